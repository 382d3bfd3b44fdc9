// map<K, V> (3.4, 14.5): an insertion-ordered hash map in the layout of a Swiss table.
//
//   slots: n records [hash | key | value] (n a power of two, at least one group), each field
//          8-byte aligned; str-keyed maps add a word [short] (below). A slot without a key
//          is all zero bytes, so the collector keeps nothing alive through it.
//   ctrl:  one byte a slot: kEmpty, kRemoved, or the top 7 bits of the key's hash; then a
//          copy of the first kGroup bytes, so a group of kGroup bytes can be read at any slot.
//          A probe reads a group, compares all its bytes with the tag at once, and touches
//          only the slots whose byte matches: the control bytes are 1/32 of the slots and
//          stay in the cache, so a lookup is one miss (the slot) where it is a miss at all.
//          Groups follow one another by triangular steps, which visit every group.
//   order: `cap` (7/8 of n) slot numbers in insertion order; `used` of them taken, removed
//          keys' included (their slots read as empty: hash 0), skipped by iteration.
//
// A str key of at most 7 bytes is also held in its slot's short word (its bytes, its length
// in the top byte; longer keys: kLongKey), so a probe compares short keys without loading the
// key string; longer keys are compared by full hash (kept in the slot) before their bytes.
// str hashes are cached in the string's header (rt_str_hash): a key is hashed once however
// often it is looked up.
//
// A new key always takes an empty slot, never a removed one (its order entry still points
// there), so keys plus removed slots never exceed `used` <= cap and every probe ends at an
// empty byte. Removed slots go away when the table is rebuilt: when the order array is full
// (compacted in place if at least half its entries are removed, else grown twofold) and, on
// remove, when removed entries outnumber live ones three to one. So a removed key stored
// again goes last, and storing to an existing key keeps its position.
//
// `mod` counts insertions of new keys, removals and clears (never stores to existing keys);
// iteration compares it with its value at the start of the loop. Slot pointers returned by
// find/get/slot stay valid until the next insertion of a new key, removal or clear.
#include <gc.h>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "neve_rt.h"
#include "error/panic.h"
#include "fmt/text.h"
#include "array/arrays.h"
#include "map/maps.h"
#include "str/strs.h"

struct NvMap {
    const NvType* kt;
    const NvType* vt;
    char* slots;      // nslots records
    uint8_t* ctrl;    // nslots + kGroup bytes
    uint32_t* order;  // cap slot numbers
    int64_t nslots;   // 0 or a power of two >= kGroup
    int64_t used;     // order entries taken, removed keys included
    int64_t live;     // live keys (the map's size)
    int64_t cap;      // order capacity: 7/8 of nslots
    int64_t mod;      // modification count
    int32_t koff, voff, soff, stride;   // soff: the short word (kStr maps), else 0
    int32_t kmode;    // kGeneric, kStr, kInt: fast paths of hashing and equality
    int32_t ptrs;     // slots may hold GC pointers
};

namespace {

enum { kGeneric = 0, kStr = 1, kInt = 2 };
constexpr uint8_t kEmpty = 0x80, kRemoved = 0xFE;   // tags are 0..127

constexpr int64_t kMaxSlots = int64_t(1) << 31;   // slot numbers fit in 32 bits
constexpr size_t kLarge = 64 * 1024;
constexpr uint64_t kLongKey = uint64_t(0xFF) << 56;
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "short words keep the length in the top byte");

// A group of control bytes as bit masks, one bit per byte (SSE2: 16 bytes; else 8, SWAR).
#if defined(__SSE2__)
constexpr int kGroup = 16;
struct Group {
    __m128i v;
    explicit Group(const uint8_t* p) : v(_mm_loadu_si128((const __m128i*)p)) {}
    uint32_t match(uint8_t b) const {
        return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)b)));
    }
    uint32_t empties() const { return match(kEmpty); }
};
inline int next_bit(uint32_t& bits) {
    int i = __builtin_ctz(bits);
    bits &= bits - 1;
    return i;
}
#else
constexpr int kGroup = 8;
constexpr uint64_t kLsbs = 0x0101010101010101ull, kMsbs = 0x8080808080808080ull;
struct Group {
    uint64_t v;
    explicit Group(const uint8_t* p) { memcpy(&v, p, 8); }
    // May report a byte next to a true match (a borrow): callers verify the slot.
    uint64_t match(uint8_t b) const {
        uint64_t x = v ^ (kLsbs * b);
        return (x - kLsbs) & ~x & kMsbs;
    }
    uint64_t empties() const { return v & ~(v << 6) & kMsbs; }   // 0x80, not 0xFE
};
inline int next_bit(uint64_t& bits) {
    int i = __builtin_ctzll(bits) >> 3;
    bits &= bits - 1;
    return i;
}
#endif

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

inline char* slot(const NvMap* m, uint64_t i) { return m->slots + i * (uint64_t)m->stride; }
inline uint64_t word_at(const char* e, int32_t off) {
    uint64_t w;
    memcpy(&w, e + off, 8);
    return w;
}
inline uint64_t slot_hash(const char* e) { return word_at(e, 0); }

// A key as probes see it: its hash (never 0) and, for str keys, its short word.
struct Probe {
    uint64_t h;
    uint64_t sk;
};

inline uint8_t tag_of(uint64_t h) { return (uint8_t)(h >> 57); }

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
    return {h ? h : 1, 0};   // hash 0 reads as no key
}

// Whether slot e (hash already equal to the probe's) holds key; Mode is m->kmode.
template <int Mode>
inline bool key_match(const NvMap* m, const char* e, const void* key, const Probe& p) {
    const char* ekey = e + m->koff;
    switch (Mode) {
        case kStr: {
            if (p.sk != kLongKey) return word_at(e, m->soff) == p.sk;
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

// The slot holding key, or nullptr; one loop per key mode, so the str probe is tight.
template <int Mode>
__attribute__((always_inline)) inline char* find_in(const NvMap* m, const void* key, const Probe& p) {
    uint64_t mask = (uint64_t)m->nslots - 1;
    uint8_t tag = tag_of(p.h);
    for (uint64_t pos = p.h & mask, step = kGroup;; pos = (pos + step) & mask, step += kGroup) {
        Group g(m->ctrl + pos);
        for (auto bits = g.match(tag); bits;) {
            char* e = slot(m, (pos + next_bit(bits)) & mask);
            if (slot_hash(e) == p.h && key_match<Mode>(m, e, key, p)) return e;
        }
        if (g.empties()) return nullptr;
    }
}

inline char* find(const NvMap* m, const void* key, const Probe& p) {
    if (m->nslots == 0) return nullptr;
    switch (m->kmode) {
        case kStr: return find_in<kStr>(m, key, p);
        case kInt: return find_in<kInt>(m, key, p);
        default: return find_in<kGeneric>(m, key, p);
    }
}

// The first empty slot on h's probe sequence.
uint64_t empty_slot(const uint8_t* ctrl, uint64_t mask, uint64_t h) {
    for (uint64_t pos = h & mask, step = kGroup;; pos = (pos + step) & mask, step += kGroup) {
        auto bits = Group(ctrl + pos).empties();
        if (bits) return (pos + next_bit(bits)) & mask;
    }
}

// Sets slot i's control byte (and its copy past the end).
inline void set_ctrl(uint8_t* ctrl, int64_t nslots, uint64_t i, uint8_t b) {
    ctrl[i] = b;
    if (i < (uint64_t)kGroup) ctrl[nslots + i] = b;
}

// Walks in order visit slots at random: fetching a few entries ahead overlaps their misses.
constexpr int64_t kAhead = 8;
inline void prefetch_ordered(const NvMap* m, int64_t i) {
    if (i + kAhead < m->used) __builtin_prefetch(slot(m, m->order[i + kAhead]));
}

// The slot of order entry i, or nullptr for a removed key.
inline const char* ordered(const NvMap* m, int64_t i) {
    prefetch_ordered(m, i);
    const char* e = slot(m, m->order[i]);
    return slot_hash(e) ? e : nullptr;
}

// A new table of nslots slots holding the live keys in order.
void rebuild(NvMap* m, int64_t nslots) {
    if (nslots > kMaxSlots) rt_panic("out of memory");
    int64_t cap = nslots - nslots / 8;
    char* ns = alloc_block((size_t)nslots * (size_t)m->stride, m->ptrs != 0);
    uint8_t* nc = (uint8_t*)alloc_block((size_t)(nslots + kGroup), false);
    memset(nc, kEmpty, (size_t)(nslots + kGroup));
    uint32_t* no = (uint32_t*)alloc_block((size_t)cap * sizeof(uint32_t), false);
    uint64_t mask = (uint64_t)nslots - 1;
    int64_t j = 0;
    for (int64_t i = 0; i < m->used; i++) {
        const char* e = ordered(m, i);
        if (!e) continue;
        uint64_t h = slot_hash(e);
        uint64_t k = empty_slot(nc, mask, h);
        set_ctrl(nc, nslots, k, tag_of(h));
        memcpy(ns + k * (uint64_t)m->stride, e, (size_t)m->stride);
        no[j++] = (uint32_t)k;
    }
    m->slots = ns;
    m->ctrl = nc;
    m->order = no;
    m->nslots = nslots;
    m->cap = cap;
    m->used = m->live = j;
}

// Slots for n keys: a power of two, at least one group, n <= 7/8 of it.
int64_t slots_for(int64_t n) {
    int64_t c = kGroup;
    while (c - c / 8 < n) c *= 2;
    return c;
}

// Stores key (zeroed value) in a new slot, last in order; returns the slot.
char* insert_new(NvMap* m, const void* key, const Probe& p) {
    if (m->used == m->cap) {
        if (m->nslots == 0) rebuild(m, kGroup);
        else if (m->live <= m->cap / 2) rebuild(m, m->nslots);     // compact: half are removed
        else rebuild(m, m->nslots * 2);
    }
    uint64_t k = empty_slot(m->ctrl, (uint64_t)m->nslots - 1, p.h);
    set_ctrl(m->ctrl, m->nslots, k, tag_of(p.h));
    char* e = slot(m, k);
    memcpy(e, &p.h, 8);
    memcpy(e + m->koff, key, (size_t)m->kt->size);
    if (m->soff) memcpy(e + m->soff, &p.sk, 8);
    m->order[m->used++] = (uint32_t)k;
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
        const char* e = ordered(m, i);
        if (!e) continue;
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
    return m;   // GC_MALLOC clears: no slots yet
}

void* nv_map_find(NvMap* m, const void* key) {
    if (!m) return nullptr;
    char* e = find(m, key, probe_of(m, key));
    return e ? e + m->voff : nullptr;
}

void* nv_map_get(NvMap* m, const void* key) {
    if (!m) rt_panic("key not found");   // the compiler checks nil first
    char* e = find(m, key, probe_of(m, key));
    if (!e) not_found(m, key);
    return e + m->voff;
}

void* nv_map_slot(NvMap* m, const void* key) {
    Probe p = probe_of(m, key);
    char* e = find(m, key, p);
    return (e ? e : insert_new(m, key, p)) + m->voff;
}

void* nv_map_upsert(NvMap* m, const void* key, int32_t* fresh) {
    Probe p = probe_of(m, key);
    char* e = find(m, key, p);
    *fresh = e == nullptr;
    return (e ? e : insert_new(m, key, p)) + m->voff;
}

int32_t nv_map_remove(NvMap* m, const void* key) {
    if (!m) return 0;
    char* e = find(m, key, probe_of(m, key));
    if (!e) return 0;
    uint64_t i = (uint64_t)(e - m->slots) / (uint64_t)m->stride;
    set_ctrl(m->ctrl, m->nslots, i, kRemoved);   // probes go on past it until the rebuild
    memset(e, 0, (size_t)m->stride);
    m->live--;
    m->mod++;
    if (m->used >= 32 && m->live * 4 < m->used) rebuild(m, slots_for(m->live * 2));
    return 1;
}

int64_t nv_map_size(const NvMap* m) { return m ? m->live : 0; }

NvArray* nv_map_keys(const NvMap* m) {
    NvArray* a = rt_array_make(m->kt, m->live, m->live);
    int64_t j = 0, sz = m->kt->size;
    for (int64_t i = 0; i < m->used; i++) {
        if (const char* e = ordered(m, i)) memcpy(a->data + (j++) * sz, e + m->koff, (size_t)sz);
    }
    return a;
}

NvArray* nv_map_values(const NvMap* m) {
    NvArray* a = rt_array_make(m->vt, m->live, m->live);
    int64_t j = 0, sz = m->vt->size;
    for (int64_t i = 0; i < m->used; i++) {
        if (const char* e = ordered(m, i)) memcpy(a->data + (j++) * sz, e + m->voff, (size_t)sz);
    }
    return a;
}

void nv_map_clear(NvMap* m) {
    if (!m) return;
    m->slots = nullptr;
    m->ctrl = nullptr;
    m->order = nullptr;
    m->nslots = m->used = m->live = m->cap = 0;
    m->mod++;
}

int64_t nv_map_mod(const NvMap* m) { return m ? m->mod : 0; }

int64_t nv_map_next(const NvMap* m, int64_t pos, int64_t mod, void* key_out) {
    if (!m || pos < 0) return -1;
    if (m->mod != mod) rt_panic("map modified during iteration");
    for (int64_t i = pos; i < m->used; i++) {
        const char* e = ordered(m, i);
        if (!e) continue;
        memcpy(key_out, e + m->koff, (size_t)m->kt->size);
        return i + 1;
    }
    return -1;
}

}  // extern "C"
