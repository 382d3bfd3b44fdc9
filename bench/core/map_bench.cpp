// map<str, int> against std::unordered_map<std::string, int64_t>: N distinct str keys inserted,
// then looked up (in a shuffled order, through separate copies of the key strings so that
// equality compares bytes), then 10% removed and reinserted. Keys are "key-<i*7919>" made
// before timing. Prints milliseconds per phase and a checksum per side.
//
// Build and run (runtime from `nsm`'s cache; -O2 like bench/core's C column):
//   R=$(.venv/bin/python -c "from nsm.build.runtime import ensure_runtime as e; print(e().lib.parent)")
//   g++ -O2 -std=c++17 -I $R/include bench/core/map_bench.cpp $R/libneve_rt.a -lgc -lpthread -o /tmp/map_bench
//   /tmp/map_bench [N=1000000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>
#include "neve_rt.h"

static double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    std::vector<std::string> keys(n), probes;
    // the collector does not scan malloc memory: the NvStr pointers live in collected arrays
    NvStr** nkeys = (NvStr**)nv_alloc(n * (int64_t)sizeof(NvStr*));
    NvStr** nprobes = (NvStr**)nv_alloc(n * (int64_t)sizeof(NvStr*));
    for (long i = 0; i < n; i++) {
        keys[i] = "key-" + std::to_string(i * 7919L);
        nkeys[i] = nv_str_new(keys[i].data(), (int64_t)keys[i].size());
    }
    std::vector<long> order(n);
    for (long i = 0; i < n; i++) order[i] = i;
    uint64_t x = 88172645463325252ull;
    for (long i = n - 1; i > 0; i--) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        std::swap(order[i], order[x % (uint64_t)(i + 1)]);
    }
    for (long i = 0; i < n; i++) {
        probes.push_back(keys[order[i]]);
        nprobes[i] = nv_str_new(keys[order[i]].data(), (int64_t)keys[order[i]].size());
    }

    // Neve map
    double t0 = now_ms();
    NvMap* m = nv_map_new(&nv_type_str, &nv_type_int);
    for (long i = 0; i < n; i++) *(int64_t*)nv_map_slot(m, &nkeys[i]) = i;
    double t1 = now_ms();
    int64_t sum = 0;
    for (long i = 0; i < n; i++) sum += *(int64_t*)nv_map_get(m, &nprobes[i]);
    double t2 = now_ms();
    for (long i = 0; i < n; i += 10) nv_map_remove(m, &nprobes[i]);
    for (long i = 0; i < n; i += 10) *(int64_t*)nv_map_slot(m, &nprobes[i]) = 1;
    double t3 = now_ms();
    sum += nv_map_size(m);

    // std::unordered_map
    double u0 = now_ms();
    std::unordered_map<std::string, int64_t> u;
    for (long i = 0; i < n; i++) u[keys[i]] = i;
    double u1 = now_ms();
    int64_t usum = 0;
    for (long i = 0; i < n; i++) usum += u.at(probes[i]);
    double u2 = now_ms();
    for (long i = 0; i < n; i += 10) u.erase(probes[i]);
    for (long i = 0; i < n; i += 10) u[probes[i]] = 1;
    double u3 = now_ms();
    usum += (int64_t)u.size();

    printf("n=%ld                  insert ms  lookup ms  remove+reinsert 10%% ms  checksum\n", n);
    printf("neve map<str, int>     %9.1f  %9.1f  %22.1f  %lld\n", t1 - t0, t2 - t1, t3 - t2, (long long)sum);
    printf("std::unordered_map     %9.1f  %9.1f  %22.1f  %lld\n", u1 - u0, u2 - u1, u3 - u2, (long long)usum);
    return nv_finish();
}
