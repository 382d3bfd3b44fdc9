#include <stdio.h>
#include <stdlib.h>
#include "t.h"

static const NvFuncInfo f_main = {"main", "stats.nv"};
static const NvFuncInfo f_avg = {"average", "stats.nv"};
static const NvFuncInfo f_dep = {"Account.deposit", "bank.nv"};
static const NvFuncInfo f_rec = {"walk", "deep.nv"};

static int64_t average(int64_t total, int64_t n) {
    PUSH(f, f_avg, 7, 18);
    if (n == 0) nv_panic_divzero(0);
    POP(f);
    return total / n;
}

static void deposit(const char* mode) {
    PUSH(f, f_dep, 12, 3);
    if (!strcmp(mode, "nil_call")) nv_panic_nil_call("deposit", "Account");
    if (!strcmp(mode, "assert")) nv_assert_fail(S("balance >= 0"));
    if (!strcmp(mode, "assert_empty")) nv_assert_fail(NULL);
    if (!strcmp(mode, "panic_str")) nv_panic_str(S("custom"));
    if (!strcmp(mode, "modzero")) nv_panic_divzero(1);
    if (!strcmp(mode, "segv")) {
        f.site = SITE(13, 9);
        __asm__ volatile("" ::: "memory");   /* the site store must precede the fault */
        volatile int* p = (volatile int*)(uintptr_t)16;
        *p = 1;
    }
    POP(f);
}

static void walk(int depth, int limit) {
    PUSH(f, f_rec, 2 + depth % 3, 5);
    if (depth == limit) nv_panic("too deep");
    walk(depth + 1, limit);
    POP(f);
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    const char* mode = argc > 1 ? argv[1] : "";
    say("line 1 of stdout");
    if (!strcmp(mode, "plain")) nv_panic("boom");
    PUSH(f, f_main, 22, 5);
    if (!strcmp(mode, "divzero")) average(10, 0);
    if (!strcmp(mode, "walk40")) { f.site = SITE(30, 2); walk(1, 39); }
    if (!strcmp(mode, "walk100")) { f.site = SITE(30, 2); walk(1, 99); }
    if (!strcmp(mode, "exit")) {
        say("bye");
        nv_exit(3);
    }
    if (!strcmp(mode, "eprint")) {
        say("to stdout");
        NvBuf b;
        nv_buf_init(&b);
        nv_fmt_cstr(&b, "to stderr");
        nv_buf_write(&b, 1, 2);
        say("stdout again");
    }
    f.site = SITE(23, 7);
    deposit(mode);
    POP(f);
    return nv_finish();
}
