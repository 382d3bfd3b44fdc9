// Frost's per-op profile (FROST_PROFILE=1; docs/frost/profile.md): calls, wall time and FLOPs per
// op name, nested ops subtracted from their caller's own time, printed at exit as a table sorted
// by own time and written as JSON to FROST_PROFILE_JSON; with steps marked (frost__c_prof_step),
// also the op time of each step and their median, nsm bench's statistic for step times. The
// variables are read once; when off,
// frost__c_prof_begin returns 0 without reading the clock and callers skip the end call.
#include <time.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>
#include "profile.h"

namespace {

struct Entry {
    int64_t calls = 0;
    int64_t self_ns = 0;   // own time: nested profiled ops excluded
    int64_t incl_ns = 0;   // with nested ops
    double flops = 0;
};

std::mutex mu;
std::unordered_map<std::string, Entry> table;
int64_t own_ns = 0;              // every op's own time so far
int64_t marked_ns = 0;           // ... at the last step mark
std::vector<int64_t> step_ns;    // the op time of each marked step
// Per thread, for each open scope: the time its nested scopes took.
thread_local std::vector<int64_t> nested;

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct Row {
    std::string op;
    Entry e;
};

std::vector<Row> sorted_rows(int64_t& total_ns) {
    std::vector<Row> rows;
    total_ns = 0;
    {
        std::lock_guard<std::mutex> g(mu);
        for (auto& kv : table) rows.push_back({kv.first, kv.second});
    }
    for (auto& r : rows) total_ns += r.e.self_ns;
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.e.self_ns != b.e.self_ns ? a.e.self_ns > b.e.self_ns : a.op < b.op;
    });
    return rows;
}

struct Steps {
    size_t n = 0;
    double median_ms = 0, mean_ms = 0;
    std::vector<int64_t> ns;
};

Steps step_stats() {
    Steps s;
    {
        std::lock_guard<std::mutex> g(mu);
        s.ns = step_ns;
    }
    s.n = s.ns.size();
    if (!s.n) return s;
    std::vector<int64_t> v = s.ns;
    std::sort(v.begin(), v.end());
    s.median_ms = (s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2.0) / 1e6;
    double sum = 0;
    for (int64_t x : v) sum += x;
    s.mean_ms = sum / s.n / 1e6;
    return s;
}

double gflop_per_s(const Entry& e) { return e.flops > 0 && e.incl_ns > 0 ? e.flops / e.incl_ns : 0; }

void json_string(FILE* f, const std::string& s) {
    fputc('"', f);
    for (char ch : s) {
        if (ch == '"' || ch == '\\') fputc('\\', f);
        if ((unsigned char)ch >= 0x20) fputc(ch, f);
    }
    fputc('"', f);
}

void print_table(FILE* f) {
    int64_t total;
    std::vector<Row> rows = sorted_rows(total);
    if (rows.empty()) return;
    fprintf(f, "frost profile: %zu ops, %.1f ms in ops (own time: nested ops counted once)\n",
            rows.size(), total / 1e6);
    Steps st = step_stats();
    if (st.n)
        fprintf(f, "per step: median %.1f ms of ops over %zu steps (mean %.1f ms)\n", st.median_ms,
                st.n, st.mean_ms);
    int w = 34;   // the op column widens to the longest name, so the columns stay aligned
    for (auto& r : rows) w = std::max(w, (int)r.op.size());
    fprintf(f, "%-*s %9s %11s %7s %11s %9s\n", w, "op", "calls", "total ms", "%", "incl ms",
            "GFLOP/s");
    for (auto& r : rows) {
        char gf[32] = "-";
        if (r.e.flops > 0) snprintf(gf, sizeof gf, "%.1f", gflop_per_s(r.e));
        fprintf(f, "%-*s %9lld %11.1f %6.1f%% %11.1f %9s\n", w, r.op.c_str(), (long long)r.e.calls,
                r.e.self_ns / 1e6, total ? 100.0 * r.e.self_ns / total : 0.0, r.e.incl_ns / 1e6,
                gf);
    }
}

int write_json(const char* path) {
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    int64_t total;
    std::vector<Row> rows = sorted_rows(total);
    Steps st = step_stats();
    fprintf(f, "{\"total_ms\": %.3f, \"steps\": %zu, \"median_step_ms\": %.3f, "
               "\"mean_step_ms\": %.3f, \"step_ms\": [", total / 1e6, st.n, st.median_ms, st.mean_ms);
    for (size_t i = 0; i < st.n; i++) fprintf(f, "%s%.3f", i ? ", " : "", st.ns[i] / 1e6);
    fprintf(f, "], \"ops\": [");
    for (size_t i = 0; i < rows.size(); i++) {
        const Entry& e = rows[i].e;
        fprintf(f, "%s\n {\"op\": ", i ? "," : "");
        json_string(f, rows[i].op);
        fprintf(f, ", \"calls\": %lld, \"total_ms\": %.3f, \"percent\": %.2f, "
                   "\"inclusive_ms\": %.3f, \"gflop\": %.9g, \"gflop_per_s\": %.4g}",
                (long long)e.calls, e.self_ns / 1e6, total ? 100.0 * e.self_ns / total : 0.0,
                e.incl_ns / 1e6, e.flops / 1e9, gflop_per_s(e));
    }
    fprintf(f, "]}\n");
    return fclose(f) == 0 ? (int)rows.size() : -1;
}

void at_exit() {
    print_table(stderr);
    const char* path = getenv("FROST_PROFILE_JSON");
    if (path && *path && write_json(path) < 0)
        fprintf(stderr, "frost: cannot write the profile to %s\n", path);
}

bool read_flag() {
    const char* v = getenv("FROST_PROFILE");
    bool yes = v && *v && strcmp(v, "0") != 0;
    if (yes) atexit(at_exit);
    return yes;
}

}  // namespace

bool frost_prof::on() {
    static const bool flag = read_flag();
    return flag;
}

int32_t frost__c_prof_on(void) { return frost_prof::on() ? 1 : 0; }

int64_t frost__c_prof_begin(void) {
    if (!frost_prof::on()) return 0;
    nested.push_back(0);
    return now_ns() | 1;   // never 0, so callers can test it
}

void frost__c_prof_end(const char* op, int64_t t0, double flops) {
    if (!t0 || nested.empty()) return;
    int64_t dt = now_ns() - t0;
    int64_t inner = nested.back();
    nested.pop_back();
    if (!nested.empty()) nested.back() += dt;
    std::lock_guard<std::mutex> g(mu);
    Entry& e = table[op];
    e.calls += 1;
    e.self_ns += dt - inner;
    e.incl_ns += dt;
    own_ns += dt - inner;
    e.flops += flops;
}

void frost__c_prof_reset(void) {
    std::lock_guard<std::mutex> g(mu);
    table.clear();
    own_ns = marked_ns = 0;
    step_ns.clear();
}

void frost__c_prof_step(void) {
    if (!frost_prof::on()) return;
    std::lock_guard<std::mutex> g(mu);
    step_ns.push_back(own_ns - marked_ns);
    marked_ns = own_ns;
}

int64_t frost__c_prof_write_json(const char* path) { return write_json(path); }

void frost__c_prof_print(void) { print_table(stderr); }

double frost__c_process_cpu_s(void) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
