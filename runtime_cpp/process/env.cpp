// argv() and getenv() (14.1).
#include <cstdlib>
#include <cstring>
#include "neve_rt.h"
#include "str/strs.h"
#include "process/process.h"

namespace {
int g_argc;
char** g_argv;   // the process's own argv: it lives as long as the process
}  // namespace

void rt_argv_init(int argc, char** argv) {
    g_argc = argc;
    g_argv = argv;
}

// A new array each call: the caller may modify it.
extern "C" NvArray* nv_argv(void) {
    NvArray* a = nv_array_new(&nv_type_str, 0);
    for (int i = 0; i < g_argc && g_argv && g_argv[i]; i++)
        rt_str_array_push(a, nv_str_new(g_argv[i], (int64_t)strlen(g_argv[i])));
    return a;
}

extern "C" NvStr* nv_getenv(const NvStr* name, const NvStr* dflt) {
    // rt_str_alloc NUL-terminates, so name->data is a C string unless name came from the
    // compiler's constants; copy to be sure.
    int64_t n = rt_slen(name);
    char small[256];
    char* c = n < (int64_t)sizeof small ? small : (char*)malloc((size_t)n + 1);
    if (!c) return dflt ? (NvStr*)dflt : rt_str_empty();
    memcpy(c, rt_sdata(name), (size_t)n);
    c[n] = '\0';
    const char* v = memchr(c, 0, (size_t)n) ? nullptr : getenv(c);   // "A\0B" names nothing
    if (c != small) free(c);
    if (!v) return dflt ? (NvStr*)dflt : rt_str_empty();
    return nv_str_new(v, (int64_t)strlen(v));
}
