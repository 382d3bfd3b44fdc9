// map_stress's model check with colliding str hashes. This program links its own rt_hash_bytes
// (the runtime's sits alone in map/hash.cpp, so the linker leaves it out): every str key gets
// one of two hashes by the parity of its length, both with control tag 0 and one home slot, so
// every probe meets tag matches of other keys, full-hash matches of other keys (short keys,
// compared by their short words; long keys, by their bytes) and long chains across groups,
// removed slots and rebuilds included.
#include <cstdint>
#define MAP_STRESS_NO_MAIN
#include "map_stress.cpp"

uint64_t rt_hash_bytes(const char*, int64_t n) { return 2 + (uint64_t)(n & 1); }

namespace {

// Short keys ("k17") and long ones ("a-longer-key-17"), of odd and even lengths.
struct CollideKeys : StrKeys {
    static K pick(long range) {
        uint64_t r = rnd();
        return std::string(r & 1 ? "k" : "a-longer-key-") + std::to_string(r / 2 % (uint64_t)range);
    }
};

}  // namespace

int main(int argc, char** argv) {
    nv_init(argc, argv);
    long a = stress<CollideKeys>(20000, 300);
    long b = stress<StrKeys>(20000, 300);
    NvStr* x = nv_str_new("k1", 2);   // hashed by this file's function: the cache holds it
    int32_t fresh;
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_int);
    nv_map_upsert(m, &x, &fresh);
    char t[128];
    snprintf(t, sizeof t, "ok %d %d %llu %ld %ld", a > 500, b > 500, (unsigned long long)x->hash, a, b);
    say(t);
    return nv_finish();
}
