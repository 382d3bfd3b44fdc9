// Channel throughput: P producers send N int64 values in all to one consumer through a channel
// of capacity C. Two implementations side by side:
//   neve   the runtime's channel (runtime_cpp/channel/: Vyukov ring, parking), threads from
//          nv_spawn, a finish around them -- what compiled Neve code does
//   mutex  a plain bounded queue: std::mutex, two std::condition_variable, a ring buffer;
//          std::thread
// Prints one line per run: IMPL cap=C producers=P msgs=N seconds=S rate=R (messages/s).
//
//   chan_bench [N] [REPS] [IMPL] [CAP]   (default 2,000,000 messages, 5 repetitions; best and
//                                         median; IMPL neve or mutex and CAP select one of each)
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#include "neve_rt.h"

namespace {

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// ------------------------------------------------------------------ the runtime's channel
struct Env {
    NvChan* ch;
    int64_t n;
};

void neve_producer(void* e) {
    Env* env = static_cast<Env*>(e);
    for (int64_t i = 0; i < env->n; i++) nv_chan_send(env->ch, &i);
}

double run_neve(int64_t cap, int producers, int64_t n) {
    NvChan* ch = nv_chan_new(&nv_type_int, cap);
    int64_t per = n / producers;
    alignas(8) char fin[NV_FINISH_SIZE];
    double t0 = now();
    nv_finish_begin(fin);
    for (int p = 0; p < producers; p++) {
        Env* e = static_cast<Env*>(nv_alloc(sizeof(Env)));
        e->ch = ch;
        e->n = per;
        nv_spawn(neve_producer, e, p, producers, 0, "chan_bench.cpp:1:1", "asyncs");
    }
    int64_t v, sum = 0;
    for (int64_t i = 0; i < per * producers; i++) {
        nv_chan_recv(ch, &v);
        sum += v;
    }
    nv_finish_end(fin);
    double dt = now() - t0;
    int64_t want = producers * (per * (per - 1) / 2);
    if (sum != want) {
        fprintf(stderr, "neve: wrong sum %lld != %lld\n", (long long)sum, (long long)want);
        exit(1);
    }
    return dt;
}

// ------------------------------------------------------------------ mutex + condvar queue
class MutexQueue {
public:
    explicit MutexQueue(size_t cap) : buf_(cap), cap_(cap) {}
    void send(int64_t v) {
        std::unique_lock<std::mutex> lk(mu_);
        not_full_.wait(lk, [&] { return count_ < cap_; });
        buf_[(head_ + count_) % cap_] = v;
        count_++;
        lk.unlock();
        not_empty_.notify_one();
    }
    int64_t recv() {
        std::unique_lock<std::mutex> lk(mu_);
        not_empty_.wait(lk, [&] { return count_ > 0; });
        int64_t v = buf_[head_];
        head_ = (head_ + 1) % cap_;
        count_--;
        lk.unlock();
        not_full_.notify_one();
        return v;
    }

private:
    std::mutex mu_;
    std::condition_variable not_full_, not_empty_;
    std::vector<int64_t> buf_;
    size_t cap_, head_ = 0, count_ = 0;
};

double run_mutex(int64_t cap, int producers, int64_t n) {
    MutexQueue q((size_t)cap);
    int64_t per = n / producers;
    double t0 = now();
    std::vector<std::thread> ts;
    for (int p = 0; p < producers; p++)
        ts.emplace_back([&q, per] {
            for (int64_t i = 0; i < per; i++) q.send(i);
        });
    int64_t sum = 0;
    for (int64_t i = 0; i < per * producers; i++) sum += q.recv();
    for (auto& t : ts) t.join();
    double dt = now() - t0;
    int64_t want = producers * (per * (per - 1) / 2);
    if (sum != want) {
        fprintf(stderr, "mutex: wrong sum\n");
        exit(1);
    }
    return dt;
}

}  // namespace

int main(int argc, char** argv) {
    nv_init(argc, argv);
    int64_t n = argc > 1 ? atoll(argv[1]) : 2000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    const char* only = argc > 3 ? argv[3] : nullptr;
    int64_t only_cap = argc > 4 ? atoll(argv[4]) : 0;
    for (int64_t cap : {1, 1024}) {
        if (only_cap && cap != only_cap) continue;
        for (int producers : {1, 2}) {
            for (const char* impl : {"neve", "mutex"}) {
                if (only && strcmp(only, impl) != 0) continue;
                std::vector<double> ts;
                for (int r = 0; r < reps; r++) {
                    bool neve = impl[0] == 'n';
                    ts.push_back(neve ? run_neve(cap, producers, n) : run_mutex(cap, producers, n));
                }
                std::sort(ts.begin(), ts.end());
                double med = ts[ts.size() / 2], best = ts[0];
                printf("%-5s cap=%-4lld producers=%d msgs=%lld median_s=%.4f rate=%.0f best_rate=%.0f\n",
                       impl, (long long)cap, producers, (long long)n, med, n / med, n / best);
                fflush(stdout);
            }
        }
    }
    return nv_finish();
}
