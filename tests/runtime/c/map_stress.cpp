// Maps against a reference: 100k random stores/removes/lookups/clears on map<str, int> and
// map<int, int>, compared with an insertion-ordered model (std::vector of entries + a
// std::map from key to position) after every operation (size, the touched key) and in full
// (iteration order, keys(), values()) every 1000 operations. Keys are fresh strings that only
// the map references, with collections forced in between, so the collector must find them
// through the map's entries.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>
#include "t.h"

extern "C" void GC_gcollect(void);

namespace {

const NvType* const si_e[] = {&nv_type_str, &nv_type_int};

uint64_t lcg_state = 12345;
uint64_t rnd() {
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_state >> 33;
}

template <class K>
struct Model {
    std::vector<std::pair<K, int64_t>> ents;
    std::vector<bool> alive;
    std::map<K, size_t> pos;

    void store(const K& k, int64_t v) {
        auto it = pos.find(k);
        if (it != pos.end()) {
            ents[it->second].second = v;
            return;
        }
        pos[k] = ents.size();
        ents.push_back({k, v});
        alive.push_back(true);
    }
    bool remove(const K& k) {
        auto it = pos.find(k);
        if (it == pos.end()) return false;
        alive[it->second] = false;
        pos.erase(it);
        return true;
    }
    void clear() {
        ents.clear();
        alive.clear();
        pos.clear();
    }
    std::vector<std::pair<K, int64_t>> live() const {
        std::vector<std::pair<K, int64_t>> r;
        for (size_t i = 0; i < ents.size(); i++)
            if (alive[i]) r.push_back(ents[i]);
        return r;
    }
};

[[noreturn]] void fail(const char* what, long op) {
    fprintf(stderr, "mismatch: %s at op %ld\n", what, op);
    exit(2);
}

std::string as_std(const NvStr* s) { return s ? std::string(s->data, (size_t)s->len) : std::string(); }

struct StrKeys {
    using K = std::string;
    static NvMap* make() { return nv_map_new(&nv_type_str, &nv_type_int); }
    static K pick(long range) { return "key-" + std::to_string(rnd() % (uint64_t)range); }
    static void* slot_of(NvMap* m, const K& k, void* (*fn)(NvMap*, const void*)) {
        NvStr* s = nv_str_new(k.data(), (int64_t)k.size());   // a fresh copy each time
        return fn(m, &s);
    }
    static int32_t remove(NvMap* m, const K& k) {
        NvStr* s = nv_str_new(k.data(), (int64_t)k.size());
        return nv_map_remove(m, &s);
    }
    static K from_slot(const void* p) { return as_std(*(NvStr* const*)p); }
    static const NvType* type() { return &nv_type_str; }
};

struct IntKeys {
    using K = int64_t;
    static NvMap* make() { return nv_map_new(&nv_type_int, &nv_type_int); }
    static K pick(long range) { return (int64_t)(rnd() % (uint64_t)range) * 1000003 - 7; }
    static void* slot_of(NvMap* m, const K& k, void* (*fn)(NvMap*, const void*)) { return fn(m, &k); }
    static int32_t remove(NvMap* m, const K& k) { return nv_map_remove(m, &k); }
    static K from_slot(const void* p) { return *(const int64_t*)p; }
    static const NvType* type() { return &nv_type_int; }
};

void* find_fn(NvMap* m, const void* k) { return nv_map_find(m, k); }
void* slot_fn(NvMap* m, const void* k) { return nv_map_slot(m, k); }

template <class KS>
void full_check(NvMap* m, const Model<typename KS::K>& ref, long op) {
    auto want = ref.live();
    if ((size_t)nv_map_size(m) != want.size()) fail("size", op);
    int64_t mod = nv_map_mod(m);
    alignas(8) char key[16];
    size_t i = 0;
    for (int64_t pos = nv_map_next(m, 0, mod, key); pos >= 0; pos = nv_map_next(m, pos, mod, key), i++) {
        if (i >= want.size() || KS::from_slot(key) != want[i].first) fail("iteration order", op);
        int64_t* v = (int64_t*)KS::slot_of(m, want[i].first, find_fn);
        if (!v || *v != want[i].second) fail("iteration value", op);
    }
    if (i != want.size()) fail("iteration length", op);
    NvArray* ks = nv_map_keys(m);
    NvArray* vs = nv_map_values(m);
    if ((size_t)ks->len != want.size() || (size_t)vs->len != want.size()) fail("keys/values length", op);
    if (ks->elem != KS::type() || vs->elem != &nv_type_int) fail("keys/values elem", op);
    for (size_t j = 0; j < want.size(); j++) {
        if (KS::from_slot(ks->data + j * 8) != want[j].first) fail("keys()", op);
        if (((int64_t*)vs->data)[j] != want[j].second) fail("values()", op);
    }
}

template <class KS>
long stress(long ops, long range) {
    NvMap* m = KS::make();
    Model<typename KS::K> ref;
    long hits = 0;
    for (long op = 0; op < ops; op++) {
        typename KS::K k = KS::pick(range);
        uint64_t r = rnd() % 100;
        if (r < 55) {
            int64_t v = (int64_t)rnd();
            int64_t mod = nv_map_mod(m);
            bool existed = ref.pos.count(k) != 0;
            *(int64_t*)KS::slot_of(m, k, slot_fn) = v;
            ref.store(k, v);
            if ((nv_map_mod(m) != mod) == existed) fail("mod count on store", op);
        } else if (r < 90) {
            int64_t mod = nv_map_mod(m);
            bool had = ref.remove(k);
            if ((KS::remove(m, k) != 0) != had) fail("remove result", op);
            if ((nv_map_mod(m) != mod) != had) fail("mod count on remove", op);
        } else if (r < 99) {
            int64_t* v = (int64_t*)KS::slot_of(m, k, find_fn);
            auto it = ref.pos.find(k);
            if ((v != nullptr) != (it != ref.pos.end())) fail("find", op);
            if (v && *v != ref.ents[it->second].second) fail("find value", op);
            hits += v != nullptr;
        } else if (rnd() % 400 == 0) {
            nv_map_clear(m);
            ref.clear();
        }
        if ((size_t)nv_map_size(m) != ref.pos.size()) fail("size", op);
        if (op % 1000 == 999) full_check<KS>(m, ref, op);
        if (op % 25000 == 24999) GC_gcollect();
    }
    full_check<KS>(m, ref, ops);
    // drain: remove everything in a shuffled order, checking along the way
    auto rest = ref.live();
    for (size_t i = rest.size(); i > 1; i--) std::swap(rest[i - 1], rest[rnd() % i]);
    for (size_t i = 0; i < rest.size(); i++) {
        if (!KS::remove(m, rest[i].first)) fail("drain remove", (long)i);
        ref.remove(rest[i].first);
        if (i % 97 == 0) full_check<KS>(m, ref, (long)i);
    }
    if (nv_map_size(m) != 0) fail("drained size", 0);
    return hits;
}

// A large map (entries well past one page: a separately allocated large block) whose str keys
// and values only it references survives collections and heavy reallocation.
bool large_map_survives_gc() {
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_str);
    const long n = 200000;
    char t[32];
    for (long i = 0; i < n; i++) {
        int k = snprintf(t, sizeof t, "k%ld", i * 31);
        NvStr* key = nv_str_new(t, k);
        *(NvStr**)nv_map_slot(m, &key) = nv_str_new(t + 1, k - 1);
    }
    GC_gcollect();
    for (long i = 0; i < 2000000; i++) nv_str_new(t, 24);   // garbage that reuses freed memory
    GC_gcollect();
    int64_t mod = nv_map_mod(m);
    NvStr* key;
    long i = 0;
    for (int64_t pos = nv_map_next(m, 0, mod, &key); pos >= 0; pos = nv_map_next(m, pos, mod, &key), i++) {
        int k = snprintf(t, sizeof t, "k%ld", i * 31);
        if (as_std(key) != std::string(t, (size_t)k)) return false;
        NvStr* v = *(NvStr**)nv_map_get(m, &key);
        if (as_std(v) != std::string(t + 1, (size_t)k - 1)) return false;
    }
    return i == n;
}

}  // namespace

#ifndef MAP_STRESS_NO_MAIN   // map_collide.cpp reuses the model with its own main
int main(int argc, char** argv) {
    nv_init(argc, argv);
    long a = stress<StrKeys>(100000, 3000);
    long b = stress<IntKeys>(100000, 20000);
    // a wide key range: the map grows to ~50k live entries
    long c = stress<IntKeys>(100000, 1000000);
    if (!large_map_survives_gc()) fail("large map after collections", 0);
    char t[128];
    snprintf(t, sizeof t, "ok %d %d %d %ld %ld %ld", a > 1000, b > 1000, c >= 0, a, b, c);
    say(t);
    return nv_finish();
}
#endif
