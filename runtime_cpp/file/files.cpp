// Files (14.7): the File class's handle (nv_file_*) and the whole-file functions.
//
// A handle is a collected NvFile around a stdio stream; a finalizer closes the stream when the
// handle becomes unreachable without close() (and running out of descriptors triggers a
// collection first). Bytes pass through unchanged (binary mode): a
// line is everything up to '\n' ('\r' included). Failures are runtime errors naming the path:
// `cannot open file "x.txt"` when a whole-file function cannot open it, `cannot read file`,
// `cannot write file` when a transfer fails or the handle's mode forbids it, and
// `file "x.txt" is closed` for reads and writes after close().
#include <gc.h>
#include <glob.h>
#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"
#include "fmt/text.h"
#include "gc/alloc.h"
#include "str/strs.h"

namespace {

struct NvFile {
    FILE* fp;          // NULL once closed
    NvStr* path;       // for messages
    int32_t mode;      // 'r', 'w', 'a'
};

std::string cpath(const NvStr* s) { return std::string(rt_sdata(s), (size_t)rt_slen(s)); }

// `WHAT "path"` with the path quoted like a str element
[[noreturn]] void fail(const char* what, const NvStr* path, const char* after = nullptr) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, what);
    rt_buf_putc(&b, ' ');
    rt_fmt_quoted(&b, rt_sdata(path), rt_slen(path), '"');
    if (after) nv_fmt_cstr(&b, after);
    rt_die(b.data, (size_t)b.len, false);
}

int32_t parse_mode(const NvStr* mode) {
    if (mode && mode->len == 1 && (mode->data[0] == 'r' || mode->data[0] == 'w' || mode->data[0] == 'a'))
        return mode->data[0];
    fail("invalid file mode", mode);
}

// fopen in binary mode; NULL for a path with a NUL byte and for directories.
FILE* open_path(const NvStr* path, int32_t mode) {
    std::string p = cpath(path);
    if (p.size() != strlen(p.c_str())) return nullptr;
    const char* m = mode == 'r' ? "rb" : mode == 'w' ? "wb" : "ab";
    FILE* fp = fopen(p.c_str(), m);
    if (!fp && (errno == EMFILE || errno == ENFILE)) {
        // out of descriptors: unreachable handles may still hold some until finalized
        GC_gcollect();
        GC_invoke_finalizers();
        fp = fopen(p.c_str(), m);
    }
    if (!fp) return nullptr;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return nullptr;
    }
    return fp;
}

void finalize(void* obj, void*) {
    NvFile* f = (NvFile*)obj;
    if (f->fp) fclose(f->fp);
    f->fp = nullptr;
}

NvFile* live(void* h, int32_t need) {
    NvFile* f = (NvFile*)h;
    if (!f) rt_panic("file is not open");   // the File class checks opened() first
    if (!f->fp) fail("file", f->path, " is closed");
    if (need == 'r' && f->mode != 'r') fail("cannot read file", f->path);
    if (need == 'w' && f->mode == 'r') fail("cannot write file", f->path);
    return f;
}

// The rest of a stream, appended to out; false on a read error.
bool slurp(FILE* fp, std::string& out) {
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) out.append(chunk, n);
    return !ferror(fp);
}

NvStr* to_str(const std::string& s) { return nv_str_new(s.data(), (int64_t)s.size()); }

std::string read_whole(const NvStr* path) {
    FILE* fp = open_path(path, 'r');
    if (!fp) fail("cannot open file", path);
    std::string s;
    bool ok = slurp(fp, s);
    fclose(fp);
    if (!ok) fail("cannot read file", path);
    return s;
}

}  // namespace

extern "C" {

void* nv_file_open(const NvStr* path, const NvStr* mode) {
    int32_t m = parse_mode(mode);
    FILE* fp = open_path(path, m);
    if (!fp) return nullptr;
    NvFile* f = (NvFile*)rt_alloc(sizeof(NvFile));
    f->fp = fp;
    f->path = (NvStr*)(path ? path : rt_str_empty());
    f->mode = m;
    GC_REGISTER_FINALIZER_NO_ORDER(f, finalize, nullptr, nullptr, nullptr);
    return f;
}

NvStr* nv_file_readline(void* h) {
    NvFile* f = live(h, 'r');
    char* line = nullptr;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f->fp);
    if (n < 0) {
        free(line);
        if (ferror(f->fp)) fail("cannot read file", f->path);
        return rt_str_empty();
    }
    if (n > 0 && line[n - 1] == '\n') n--;
    NvStr* s = nv_str_new(line, (int64_t)n);
    free(line);
    return s;
}

int32_t nv_file_eof(void* h) {
    NvFile* f = (NvFile*)h;
    if (!f || !f->fp || f->mode != 'r') return 1;
    int c = getc(f->fp);
    if (c == EOF) return 1;
    ungetc(c, f->fp);
    return 0;
}

NvStr* nv_file_read_all(void* h) {
    NvFile* f = live(h, 'r');
    std::string s;
    if (!slurp(f->fp, s)) fail("cannot read file", f->path);
    return to_str(s);
}

void nv_file_write(void* h, const NvStr* s) {
    NvFile* f = live(h, 'w');
    int64_t n = rt_slen(s);
    if (n > 0 && fwrite(s->data, 1, (size_t)n, f->fp) != (size_t)n) fail("cannot write file", f->path);
}

void nv_file_close(void* h) {
    NvFile* f = (NvFile*)h;
    if (!f || !f->fp) return;
    FILE* fp = f->fp;
    f->fp = nullptr;
    GC_REGISTER_FINALIZER_NO_ORDER(f, nullptr, nullptr, nullptr, nullptr);
    if (fclose(fp) != 0 && f->mode != 'r') fail("cannot write file", f->path);
}

NvStr* nv_read_file(const NvStr* path) { return to_str(read_whole(path)); }

NvArray* nv_read_lines(const NvStr* path) {
    std::string s = read_whole(path);
    NvArray* a = rt_array_make(&nv_type_str, 0, 0);
    size_t pos = 0;
    while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string::npos) nl = s.size();
        rt_str_array_push(a, nv_str_new(s.data() + pos, (int64_t)(nl - pos)));
        pos = nl + 1;
    }
    return a;
}

NvArray* nv_read_bytes(const NvStr* path) {
    std::string s = read_whole(path);
    NvArray* a = rt_array_make(&nv_type_u8, (int64_t)s.size(), (int64_t)s.size());
    if (!s.empty()) memcpy(a->data, s.data(), s.size());
    return a;
}

void nv_write_file(const NvStr* path, const NvStr* text) {
    FILE* fp = open_path(path, 'w');
    if (!fp) fail("cannot open file", path);
    int64_t n = rt_slen(text);
    bool ok = n == 0 || fwrite(text->data, 1, (size_t)n, fp) == (size_t)n;
    if (fclose(fp) != 0) ok = false;
    if (!ok) fail("cannot write file", path);
}

int32_t nv_file_exists(const NvStr* path) {
    std::string p = cpath(path);
    struct stat st;
    return p.size() == strlen(p.c_str()) && stat(p.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
}

int32_t nv_dir_exists(const NvStr* path) {
    std::string p = cpath(path);
    struct stat st;
    return p.size() == strlen(p.c_str()) && stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

NvArray* nv_glob(const NvStr* pattern) {
    NvArray* a = rt_array_make(&nv_type_str, 0, 0);
    std::string p = cpath(pattern);
    if (p.empty() || p.size() != strlen(p.c_str())) return a;
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = glob(p.c_str(), GLOB_NOSORT, nullptr, &g);
    if (rc == 0) {
        std::vector<std::string> names(g.gl_pathv, g.gl_pathv + g.gl_pathc);
        std::sort(names.begin(), names.end());   // bytewise (std::string compares as unsigned char)
        for (const std::string& n : names) rt_str_array_push(a, to_str(n));
    }
    globfree(&g);
    return a;
}

}  // extern "C"
