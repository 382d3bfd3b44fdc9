// map<K, V> (3.4, 14.5): an insertion-ordered hash map in the layout of CPython's compact dict.
//
//   entries: `cap` fixed-size records in insertion order, [hash | key | value], each field
//            8-byte aligned; str-keyed maps add a word [short] (below). A removed entry keeps
//            its place with hash 0 (a tombstone) and its key and value bytes cleared, so the
//            collector does not keep them alive.
//   index:   2 * cap 32-bit slots (a power of two, load <= 1/2), linear probing. A slot is 0
//            when empty, else entry number + 1 in its low `nbits` bits (enough for cap) and
//            as many bits of the hash's high half above them: the tag lets a probe skip most
//            non-matching entries without touching them. Four bytes a slot keep the index
//            small enough to stay in the cache next to the entries it points into.
//
// A str key of at most 7 bytes is also held in its entry's short word (its bytes, its length
// in the top byte; longer keys: kLongKey), so a probe compares short keys without loading the
// key string: an index slot and its entry are the only dependent loads. Longer keys are
// compared by full hash first (kept in the entry), then by bytes. str hashes are cached in
// the string's header (rt_str_hash), so a key is hashed once however often it is looked up.
//
// Removing a key leaves its index slot pointing at the tombstone (probing goes past it); the
// tombstones go away when the entries are rebuilt: when the entries are full (compacted in
// place if at least half are tombstones, else grown twofold) and, on remove, when tombstones
// outnumber live entries three to one. So a removed key stored again goes last, and storing to
// an existing key keeps its position.
//
// `mod` counts insertions of new keys, removals and clears (never stores to existing keys);
// iteration compares it with its value at the start of the loop. Slot pointers returned by
// find/get/slot stay valid until the next insertion of a new key, removal or clear.
#include <gc.h>
#include <cstring>
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/text.h"
#include "array/arrays.h"
#include "map/maps.h"
#include "str/strs.h"

struct NvMap {
    const NvType* kt;
    const NvType* vt;
    char* entries;
    uint32_t* index;
    int64_t used;     // entries in use, tombstones included
    int64_t live;     // live entries (the map's size)
    int64_t cap;      // entry capacity: 0 or a power of two
    int64_t mod;      // modification count
    int32_t koff, voff, soff, stride;   // soff: the short word (kStr maps), else 0
    int32_t kmode;    // kGeneric, kStr, kInt: fast paths of hashing and equality
    int32_t ptrs;     // entries may hold GC pointers
    int32_t nbits;    // index slots: entry number + 1 in the low nbits, hash tag above
};

namespace {

enum { kGeneric = 0, kStr = 1, kInt = 2 };

constexpr int64_t kMaxCap = int64_t(1) << 30;   // entry numbers fit in 32 bits
constexpr size_t kLarge = 64 * 1024;
constexpr uint64_t kLongKey = uint64_t(0xFF) << 56;
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "short words keep the length in the top byte");

inline int32_t round8(int32_t n) { return (n + 7) & ~7; }

bool holds_ptrs(const NvType* t) {
    switch (t->kind) {
        case NV_STR: case NV_ARRAY: case NV_MAP: case NV_CLASS: case NV_CHANNEL:
        case NV_FUNCTION: case NV_BUFFER: case NV_ANY: case NV_FOREIGN: case NV_FOREIGN_REF:
            return true;
        default:
            return t->has_ptrs != 0;
    }
}

// Zeroed memory from the collector; large blocks are only recognized through pointers near
// their start (the map keeps the base pointer).
char* alloc_block(size_t bytes, bool ptrs) {
    void* p;
    if (ptrs) {
        p = bytes >= kLarge ? GC_MALLOC_IGNORE_OFF_PAGE(bytes) : GC_MALLOC(bytes);
    } else {
        p = bytes >= kLarge ? GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(bytes) : GC_MALLOC_ATOMIC(bytes);
        if (p) memset(p, 0, bytes);
    }
    if (!p) rt_panic("out of memory");
    return (char*)p;
}

inline char* entry(const NvMap* m, int64_t i) { return m->entries + i * m->stride; }
inline uint64_t entry_hash(const char* e) {
    uint64_t h;
    memcpy(&h, e, 8);
    return h;
}

// A key as probes see it: its hash (never 0) and, for str keys, its short word.
struct Probe {
    uint64_t h;
    uint64_t sk;
};

inline uint64_t short_word(const NvStr* s) {
    int64_t n = s ? s->len : 0;
    if (n > 7) return kLongKey;
    uint64_t w = (uint64_t)n << 56;
    const unsigned char* d = (const unsigned char*)(n ? s->data : "");
    if (n >= 4) {   // two overlapping 4-byte loads, as the hash reads them
        uint32_t lo, hi;
        memcpy(&lo, d, 4);
        memcpy(&hi, d + n - 4, 4);
        w |= lo | ((uint64_t)hi << (8 * (n - 4)));
    } else if (n > 0) {
        w |= d[0] | ((uint64_t)d[n >> 1] << (8 * (n >> 1))) | ((uint64_t)d[n - 1] << (8 * (n - 1)));
    }
    return w;
}

inline Probe probe_of(const NvMap* m, const void* key) {
    if (m->kmode == kStr) {
        const NvStr* s;
        memcpy(&s, key, sizeof s);
        return {rt_str_hash(s), short_word(s)};   // never 0
    }
    uint64_t h = rt_key_hash(key, m->kt);
    return {h ? h : 1, 0};   // hash 0 marks a tombstone
}

// The bits of an index slot above its entry number: the tag of hash h.
inline uint32_t tag_of(uint64_t h, int32_t nbits) {
    return (uint32_t)(h >> 32) & ~((uint32_t(1) << nbits) - 1);
}

inline uint64_t entry_word(const char* e, int32_t off) {
    uint64_t w;
    memcpy(&w, e + off, 8);
    return w;
}

// Whether entry e (hash already equal to the probe's) holds key; Mode is m->kmode.
template <int Mode>
inline bool key_match(const NvMap* m, const char* e, const void* key, const Probe& p) {
    const char* ekey = e + m->koff;
    switch (Mode) {
        case kStr: {
            if (p.sk != kLongKey) return entry_word(e, m->soff) == p.sk;
            const NvStr *a, *b;
            memcpy(&a, ekey, sizeof a);
            memcpy(&b, key, sizeof b);
            if (a == b) return true;
            int64_t la = a ? a->len : 0, lb = b ? b->len : 0;
            return la == lb && memcmp(a->data, b->data, (size_t)la) == 0;
        }
        case kInt: return memcmp(ekey, key, 8) == 0;
        default: return rt_key_eq(ekey, key, m->kt);
    }
}

// The entry number holding key, or -1; one loop per key mode, so the str probe is tight.
template <int Mode>
int64_t find_in(const NvMap* m, const void* key, const Probe& p) {
    uint64_t mask = (uint64_t)(2 * m->cap - 1);
    uint32_t low = (uint32_t(1) << m->nbits) - 1;
    uint32_t tag = tag_of(p.h, m->nbits);
    for (uint64_t i = p.h & mask;; i = (i + 1) & mask) {
        uint32_t s = m->index[i];
        if (s == 0) return -1;
        if ((s & ~low) == tag) {
            int64_t n = (int64_t)(s & low) - 1;
            const char* e = entry(m, n);
            if (entry_hash(e) == p.h && key_match<Mode>(m, e, key, p)) return n;
        }
    }
}

inline int64_t find(const NvMap* m, const void* key, const Probe& p) {
    if (m->cap == 0) return -1;
    switch (m->kmode) {
        case kStr: return find_in<kStr>(m, key, p);
        case kInt: return find_in<kInt>(m, key, p);
        default: return find_in<kGeneric>(m, key, p);
    }
}

inline void index_put(uint32_t* index, uint64_t mask, int32_t nbits, uint64_t h, int64_t n) {
    uint64_t i = h & mask;
    while (index[i]) i = (i + 1) & mask;
    index[i] = tag_of(h, nbits) | (uint32_t)(n + 1);
}

// Bits for entry numbers + 1 up to cap (a power of two): log2(cap) + 1.
inline int32_t entry_bits(int64_t cap) { return 64 - __builtin_clzll((uint64_t)cap); }

// New entries and index of capacity cap holding the live entries in order.
void rebuild(NvMap* m, int64_t cap) {
    if (cap > kMaxCap) rt_panic("out of memory");
    char* ne = alloc_block((size_t)cap * (size_t)m->stride, m->ptrs != 0);
    uint32_t* ni = (uint32_t*)alloc_block((size_t)cap * 2 * sizeof(uint32_t), false);
    uint64_t mask = (uint64_t)(2 * cap - 1);
    int32_t nbits = entry_bits(cap);
    int64_t j = 0;
    for (int64_t i = 0; i < m->used; i++) {
        const char* e = entry(m, i);
        uint64_t h = entry_hash(e);
        if (!h) continue;
        memcpy(ne + j * m->stride, e, (size_t)m->stride);
        index_put(ni, mask, nbits, h, j);
        j++;
    }
    m->entries = ne;
    m->index = ni;
    m->cap = cap;
    m->nbits = nbits;
    m->used = m->live = j;
}

int64_t pow2_at_least(int64_t n) {
    int64_t c = 8;
    while (c < n) c *= 2;
    return c;
}

// Appends a new entry (zeroed value) for key; returns the entry.
char* insert_new(NvMap* m, const void* key, const Probe& p) {
    uint64_t h = p.h;
    if (m->used == m->cap) {
        if (m->cap == 0) rebuild(m, 8);
        else if (m->live <= m->cap / 2) rebuild(m, m->cap);        // compact: half are tombstones
        else rebuild(m, m->cap * 2);
    }
    int64_t n = m->used++;
    char* e = entry(m, n);
    memcpy(e, &h, 8);
    memcpy(e + m->koff, key, (size_t)m->kt->size);
    if (m->soff) memcpy(e + m->soff, &p.sk, 8);
    index_put(m->index, (uint64_t)(2 * m->cap - 1), m->nbits, h, n);
    m->live++;
    m->mod++;
    return e;
}

[[noreturn]] void not_found(const NvMap* m, const void* key) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, "key not found: ");
    if (m->kt->kind == NV_STR) {
        const NvStr* s;
        memcpy(&s, key, sizeof s);
        rt_fmt_quoted(&b, s ? s->data : "", s ? s->len : 0, '"');
    } else {
        nv_fmt_value(&b, key, m->kt);
    }
    rt_die(b.data, (size_t)b.len, false);
}

}  // namespace

int64_t rt_map_entry(const NvMap* m, int64_t pos, const void** key, const void** val) {
    if (!m || pos < 0) return -1;
    for (int64_t i = pos; i < m->used; i++) {
        const char* e = entry(m, i);
        if (!entry_hash(e)) continue;
        *key = e + m->koff;
        *val = e + m->voff;
        return i + 1;
    }
    return -1;
}

const NvType* rt_map_key_type(const NvMap* m) { return m->kt; }
const NvType* rt_map_val_type(const NvMap* m) { return m->vt; }

extern "C" {

NvMap* nv_map_new(const NvType* key, const NvType* val) {
    NvMap* m = (NvMap*)GC_MALLOC(sizeof(NvMap));
    if (!m) rt_panic("out of memory");
    m->kt = key;
    m->vt = val;
    m->koff = 8;
    m->voff = 8 + round8(key->size);
    m->stride = m->voff + round8(val->size);
    m->kmode = key->kind == NV_STR ? kStr : key->kind == NV_INT ? kInt : kGeneric;
    if (m->kmode == kStr) {
        m->soff = m->stride;
        m->stride += 8;
    }
    m->ptrs = holds_ptrs(key) || holds_ptrs(val);
    return m;   // GC_MALLOC clears: no entries yet
}

void* nv_map_find(NvMap* m, const void* key) {
    if (!m) return nullptr;
    int64_t n = find(m, key, probe_of(m, key));
    return n < 0 ? nullptr : entry(m, n) + m->voff;
}

void* nv_map_get(NvMap* m, const void* key) {
    if (!m) rt_panic("key not found");   // the compiler checks nil first
    int64_t n = find(m, key, probe_of(m, key));
    if (n < 0) not_found(m, key);
    return entry(m, n) + m->voff;
}

void* nv_map_slot(NvMap* m, const void* key) {
    Probe p = probe_of(m, key);
    int64_t n = find(m, key, p);
    if (n >= 0) return entry(m, n) + m->voff;
    return insert_new(m, key, p) + m->voff;
}

void* nv_map_upsert(NvMap* m, const void* key, int32_t* fresh) {
    Probe p = probe_of(m, key);
    int64_t n = find(m, key, p);
    *fresh = n < 0;
    if (n >= 0) return entry(m, n) + m->voff;
    return insert_new(m, key, p) + m->voff;
}

int32_t nv_map_remove(NvMap* m, const void* key) {
    if (!m) return 0;
    int64_t n = find(m, key, probe_of(m, key));
    if (n < 0) return 0;
    char* e = entry(m, n);
    memset(e, 0, (size_t)m->stride);   // hash 0: tombstone; the index slot stays until rebuild
    m->live--;
    m->mod++;
    if (m->used >= 32 && m->live * 4 < m->used) rebuild(m, pow2_at_least(m->live * 2));
    return 1;
}

int64_t nv_map_size(const NvMap* m) { return m ? m->live : 0; }

NvArray* nv_map_keys(const NvMap* m) {
    NvArray* a = rt_array_make(m->kt, m->live, m->live);
    int64_t j = 0, sz = m->kt->size;
    for (int64_t i = 0; i < m->used; i++) {
        const char* e = entry(m, i);
        if (entry_hash(e)) memcpy(a->data + (j++) * sz, e + m->koff, (size_t)sz);
    }
    return a;
}

NvArray* nv_map_values(const NvMap* m) {
    NvArray* a = rt_array_make(m->vt, m->live, m->live);
    int64_t j = 0, sz = m->vt->size;
    for (int64_t i = 0; i < m->used; i++) {
        const char* e = entry(m, i);
        if (entry_hash(e)) memcpy(a->data + (j++) * sz, e + m->voff, (size_t)sz);
    }
    return a;
}

void nv_map_clear(NvMap* m) {
    if (!m) return;
    m->entries = nullptr;
    m->index = nullptr;
    m->used = m->live = m->cap = 0;
    m->mod++;
}

int64_t nv_map_mod(const NvMap* m) { return m ? m->mod : 0; }

int64_t nv_map_next(const NvMap* m, int64_t pos, int64_t mod, void* key_out) {
    if (!m || pos < 0) return -1;
    if (m->mod != mod) rt_panic("map modified during iteration");
    for (int64_t i = pos; i < m->used; i++) {
        const char* e = entry(m, i);
        if (!entry_hash(e)) continue;
        memcpy(key_out, e + m->koff, (size_t)m->kt->size);
        return i + 1;
    }
    return -1;
}

}  // extern "C"
