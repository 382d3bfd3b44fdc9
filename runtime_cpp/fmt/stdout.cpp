// Standard output (10.2): one process-wide buffer behind a mutex, so that each print call's
// text reaches fd 1 in one piece and lines of different threads never interleave. It is
// written out when it passes 64 KiB, after every call when stdout is a terminal, by
// nv_flush/nv_finish/nv_exit, before anything goes to stderr and before a runtime error.
#include <cerrno>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <unistd.h>
#include "neve_rt.h"
#include "fmt/out.h"
#include "fmt/text.h"

namespace {

constexpr size_t kCap = 64 * 1024;
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
char g_buf[kCap];
size_t g_len;
int g_tty = -1;   // unknown until rt_stdout_init or the first write

void flush_locked() {
    rt_write_all(1, g_buf, g_len);
    g_len = 0;
}

void append_locked(const char* p, size_t n) {
    if (g_len + n > kCap) flush_locked();
    if (n > kCap) {
        rt_write_all(1, p, n);
        return;
    }
    memcpy(g_buf + g_len, p, n);
    g_len += n;
}

}  // namespace

void rt_write_all(int fd, const char* p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return;   // closed pipe or bad fd: the text is lost, as with C stdio
        }
        p += k;
        n -= (size_t)k;
    }
}

void rt_stdout_init() { g_tty = isatty(1) ? 1 : 0; }

void rt_stdout_flush_for_error(bool in_signal) {
    if (!in_signal) {
        pthread_mutex_lock(&g_mu);
        flush_locked();
        pthread_mutex_unlock(&g_mu);
        return;
    }
    // The faulting thread may itself hold the lock; give other holders ~100 ms.
    for (int i = 0; i < 100; i++) {
        if (pthread_mutex_trylock(&g_mu) == 0) {
            flush_locked();
            pthread_mutex_unlock(&g_mu);
            return;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, nullptr);
    }
    flush_locked();
}

extern "C" void nv_buf_write(NvBuf* b, int32_t newline, int32_t fd) {
    if (newline) rt_buf_putc(b, '\n');
    pthread_mutex_lock(&g_mu);
    if (fd == 1) {
        append_locked(b->data, (size_t)b->len);
        if (g_tty < 0) g_tty = isatty(1) ? 1 : 0;
        if (g_tty) flush_locked();
    } else {
        // stderr after everything printed before it
        flush_locked();
        rt_write_all(fd, b->data, (size_t)b->len);
    }
    pthread_mutex_unlock(&g_mu);
    rt_buf_release(b);
}

extern "C" void nv_flush(void) {
    pthread_mutex_lock(&g_mu);
    flush_locked();
    pthread_mutex_unlock(&g_mu);
}
