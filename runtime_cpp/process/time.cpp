// Time (14.2): start_timer/end_timer (per thread), clock, time, sleep.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ctime>
#include "neve_rt.h"
#include "process/process.h"

namespace {

double now(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double g_process_start;
thread_local double t_timer_start = -1.0;   // < 0: start_timer not called in this thread

}  // namespace

void rt_time_init() { g_process_start = now(CLOCK_MONOTONIC); }

extern "C" {

void nv_start_timer(void) { t_timer_start = now(CLOCK_MONOTONIC); }

float nv_end_timer(void) {
    double start = t_timer_start >= 0 ? t_timer_start : g_process_start;
    double secs = now(CLOCK_MONOTONIC) - start;
    char t[64];
    snprintf(t, sizeof t, "Elapsed time: %.3f seconds.", secs);
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, t);
    nv_buf_write(&b, 1, 1);
    return (float)(secs * 1000.0);
}

double nv_clock(void) { return now(CLOCK_MONOTONIC); }

double nv_time(void) { return now(CLOCK_REALTIME); }

void nv_sleep(double seconds) {
    if (!(seconds > 0)) return;   // also NaN
    if (seconds > 1e9) seconds = 1e9;
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

}  // extern "C"
