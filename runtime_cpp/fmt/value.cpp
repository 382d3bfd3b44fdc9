// Text of any value by its type descriptor (10.1): what print and str() show for arrays,
// tuples, fixed arrays and maps, recursively; objects through their class's to_str. At the top
// level a str is its bytes and a char the byte itself; inside a container they are quoted.
#include <cstdio>
#include <cstring>
#include "neve_rt.h"
#include "fmt/text.h"
#include "map/maps.h"
#include "channel/chan.h"

namespace {

template <class T>
T load(const void* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;
}

void put(NvBuf* b, const char* s) { rt_buf_append(b, s, strlen(s)); }

// "<NAME>" or "<NAME 0x...>" for references without a text of their own
void opaque(NvBuf* b, const void* ref, const char* name, bool with_addr) {
    if (!ref) {
        put(b, "nil");
        return;
    }
    char t[32];
    rt_buf_putc(b, '<');
    put(b, name);
    if (with_addr) {
        snprintf(t, sizeof t, " %p", ref);
        put(b, t);
    }
    rt_buf_putc(b, '>');
}

void fmt(NvBuf* b, const char* p, const NvType* t, bool nested);

// <channel<int> size=3>: the element type's spelling and the number of buffered items
void chan_text(NvBuf* b, const NvChan* c, const NvType* t) {
    if (!c) {
        put(b, "nil");
        return;
    }
    const NvType* et = rt_chan_elem(c);
    if (et && et->name) {
        put(b, "<channel<");
        put(b, et->name);
        put(b, ">");
    } else {
        rt_buf_putc(b, '<');
        put(b, t->name ? t->name : "channel");
    }
    put(b, " size=");
    nv_fmt_i64(b, nv_chan_size(c));
    rt_buf_putc(b, '>');
}

// {"a": 1, "b": 2} in iteration order; keys and values as container elements
void map_text(NvBuf* b, const NvMap* m) {
    if (!m) {
        put(b, "nil");
        return;
    }
    const NvType* kt = rt_map_key_type(m);
    const NvType* vt = rt_map_val_type(m);
    rt_buf_putc(b, '{');
    const void *k, *v;
    bool first = true;
    for (int64_t pos = rt_map_entry(m, 0, &k, &v); pos >= 0; pos = rt_map_entry(m, pos, &k, &v)) {
        if (!first) rt_buf_append(b, ", ", 2);
        first = false;
        fmt(b, (const char*)k, kt, true);
        rt_buf_append(b, ": ", 2);
        fmt(b, (const char*)v, vt, true);
    }
    rt_buf_putc(b, '}');
}

// An object: its class's to_str (NvStr* (*)(void* self)) when it has one, else <Name>.
void object_text(NvBuf* b, void* obj, const NvType* t) {
    if (!obj) {
        put(b, "nil");
        return;
    }
    if (t->kind == NV_CLASS)
        t = nv_dyn_type(obj);          // 7.5: the dynamic class prints
    if (t->to_str) {
        NvStr* (*to_str)(void*);
        const void* f = t->to_str;
        memcpy(&to_str, &f, sizeof to_str);
        nv_fmt_str(b, to_str(obj));
        return;
    }
    rt_buf_putc(b, '<');
    put(b, t->name ? t->name : "object");
    rt_buf_putc(b, '>');
}

// The value an any holds, by its dynamic type. References (str, arrays, maps, objects,
// channels, functions, buffers) are the value word itself; a value of another kind (a number
// or tuple, should the compiler box one) is read through the pointer. Foreign pointers have no
// text of their own: <any 0x...>.
void any_text(NvBuf* b, NvAny a, bool nested) {
    if (!a.type || (!a.value && a.type->kind != NV_STR)) {
        put(b, "nil");
        return;
    }
    switch (a.type->kind) {
        case NV_FOREIGN: opaque(b, a.value, "any", true); break;
        case NV_STR: case NV_ARRAY: case NV_MAP: case NV_CLASS: case NV_CHANNEL:
        case NV_FUNCTION: case NV_BUFFER: case NV_FOREIGN_REF:
            fmt(b, (const char*)&a.value, a.type, nested);
            break;
        case NV_ANY: put(b, "<any>"); break;
        default: fmt(b, (const char*)a.value, a.type, nested); break;
    }
}

void elements(NvBuf* b, const char* data, int64_t n, const NvType* et) {
    rt_buf_putc(b, '[');
    for (int64_t i = 0; i < n; i++) {
        if (i) rt_buf_append(b, ", ", 2);
        fmt(b, data + i * et->size, et, true);
    }
    rt_buf_putc(b, ']');
}

void fmt(NvBuf* b, const char* p, const NvType* t, bool nested) {
    switch (t->kind) {
        case NV_INT: nv_fmt_i64(b, load<int64_t>(p)); break;
        case NV_I8: nv_fmt_i64(b, load<int8_t>(p)); break;
        case NV_I16: nv_fmt_i64(b, load<int16_t>(p)); break;
        case NV_I32: nv_fmt_i64(b, load<int32_t>(p)); break;
        case NV_U8: nv_fmt_i64(b, load<uint8_t>(p)); break;
        case NV_U16: nv_fmt_i64(b, load<uint16_t>(p)); break;
        case NV_U32: nv_fmt_i64(b, load<uint32_t>(p)); break;
        case NV_U64: nv_fmt_u64(b, load<uint64_t>(p)); break;
        case NV_FLOAT: nv_fmt_f32(b, load<float>(p)); break;
        case NV_F64: nv_fmt_f64(b, load<double>(p)); break;
        case NV_BF16: nv_fmt_bf16(b, load<uint16_t>(p)); break;
        case NV_HALF: nv_fmt_half(b, load<uint16_t>(p)); break;
        case NV_BOOL: nv_fmt_bool(b, load<uint8_t>(p) != 0); break;
        case NV_CHAR:
            if (nested) rt_fmt_quoted(b, p, 1, '\'');
            else rt_buf_putc(b, *p);
            break;
        case NV_STR: {
            const NvStr* s = load<const NvStr*>(p);
            if (nested) rt_fmt_quoted(b, s ? s->data : "", s ? s->len : 0, '"');
            else nv_fmt_str(b, s);
            break;
        }
        case NV_ARRAY: {
            const NvArray* a = load<const NvArray*>(p);
            if (!a) put(b, "nil");
            else elements(b, a->data, a->len, a->elem ? a->elem : t->elems[0]);
            break;
        }
        case NV_FIXED: elements(b, p, t->count, t->elems[0]); break;
        case NV_TUPLE:
            rt_buf_putc(b, '(');
            for (int32_t i = 0; i < t->count; i++) {
                if (i) rt_buf_append(b, ", ", 2);
                fmt(b, p + t->offsets[i], t->elems[i], true);
            }
            rt_buf_putc(b, ')');
            break;
        case NV_MAP: map_text(b, load<const NvMap*>(p)); break;
        case NV_CLASS: object_text(b, load<void*>(p), t); break;
        case NV_CHANNEL: chan_text(b, load<const NvChan*>(p), t); break;
        case NV_FUNCTION: {
            const NvFuncValue* f = load<const NvFuncValue*>(p);
            if (!f) {
                put(b, "nil");
            } else {
                put(b, "<function ");
                put(b, f->name ? f->name : "?");
                rt_buf_putc(b, '>');
            }
            break;
        }
        case NV_BUFFER:
            opaque(b, load<const void*>(p), t->name ? t->name : "buffer", true);
            break;
        case NV_ANY: any_text(b, load<NvAny>(p), nested); break;
        case NV_FOREIGN:
            opaque(b, load<const void*>(p), t->name ? t->name : "foreign", true);
            break;
        case NV_FOREIGN_REF: {   // <image 0x...>: the C address, not the wrapper's
            const NvForeign* w = load<const NvForeign*>(p);
            opaque(b, w ? w->addr : nullptr, t->name ? t->name : "foreign", true);
            break;
        }
        default: put(b, "<?>"); break;
    }
}

}  // namespace

extern "C" void nv_fmt_value(NvBuf* b, const void* p, const NvType* t) {
    fmt(b, (const char*)p, t, false);
}
