// Files and folders by path (14.7): remove_file, rename, make_dir, remove_dir, list_dir, temp_dir.
// Failures are runtime errors naming the path and saying why: `cannot remove folder "out":
// folder not empty`.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "neve_rt.h"
#include "array/arrays.h"
#include "error/panic.h"
#include "fmt/text.h"
#include "str/strs.h"

namespace {

std::string cpath(const NvStr* s) { return std::string(rt_sdata(s), (size_t)rt_slen(s)); }

const char* reason(int err) {
    switch (err) {
        case ENOENT: return "no such file or folder";
        case ENOTEMPTY: return "folder not empty";
        case EEXIST: return "already exists";
        case EACCES:
        case EPERM: return "permission denied";
        case EISDIR: return "is a folder";
        case ENOTDIR: return "not a folder";
        case EXDEV: return "on another file system";
        case EINVAL: return "invalid path";
        default: return strerror(err);
    }
}

// `WHAT "path"[ to "path2"]: REASON`, with the paths quoted like str elements
[[noreturn]] void fail(const char* what, const NvStr* path, int err, const NvStr* path2 = nullptr) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, what);
    rt_buf_putc(&b, ' ');
    rt_fmt_quoted(&b, rt_sdata(path), rt_slen(path), '"');
    if (path2) {
        nv_fmt_cstr(&b, " to ");
        rt_fmt_quoted(&b, rt_sdata(path2), rt_slen(path2), '"');
    }
    nv_fmt_cstr(&b, ": ");
    nv_fmt_cstr(&b, reason(err));
    rt_die(b.data, (size_t)b.len, false);
}

// A path with a NUL byte names nothing the OS can reach.
bool valid(const std::string& p) { return !p.empty() && p.size() == strlen(p.c_str()); }

bool is_dir(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

extern "C" {

void nv_remove_file(const NvStr* path) {
    std::string p = cpath(path);
    if (!valid(p)) fail("cannot remove file", path, ENOENT);
    if (is_dir(p)) fail("cannot remove file", path, EISDIR);
    if (unlink(p.c_str()) != 0) fail("cannot remove file", path, errno);
}

void nv_rename(const NvStr* from, const NvStr* to) {
    std::string a = cpath(from), b = cpath(to);
    if (!valid(a) || !valid(b)) fail("cannot rename", from, ENOENT, to);
    if (rename(a.c_str(), b.c_str()) != 0) fail("cannot rename", from, errno, to);
}

void nv_make_dir(const NvStr* path, int32_t parents) {
    std::string p = cpath(path);
    if (!valid(p)) fail("cannot make folder", path, EINVAL);
    if (!parents) {
        if (mkdir(p.c_str(), 0777) != 0) fail("cannot make folder", path, errno);
        return;
    }
    // like mkdir -p: every missing folder on the way, an existing folder is fine
    for (size_t i = 1; i <= p.size(); i++) {
        if (i < p.size() && p[i] != '/') continue;
        std::string part = p.substr(0, i);
        if (mkdir(part.c_str(), 0777) != 0 && !(errno == EEXIST && is_dir(part)))
            fail("cannot make folder", path, errno == EEXIST ? ENOTDIR : errno);
    }
}

void nv_remove_dir(const NvStr* path) {
    std::string p = cpath(path);
    if (!valid(p)) fail("cannot remove folder", path, ENOENT);
    if (rmdir(p.c_str()) != 0) fail("cannot remove folder", path, errno == EEXIST ? ENOTEMPTY : errno);
}

NvArray* nv_list_dir(const NvStr* path) {
    std::string p = cpath(path);
    if (!valid(p)) fail("cannot list folder", path, ENOENT);
    DIR* d = opendir(p.c_str());
    if (!d) fail("cannot list folder", path, errno);
    std::vector<std::string> names;
    while (struct dirent* e = readdir(d)) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());   // bytewise
    NvArray* a = rt_array_make(&nv_type_str, 0, (int64_t)names.size());
    for (const std::string& n : names) rt_str_array_push(a, nv_str_new(n.data(), (int64_t)n.size()));
    return a;
}

NvStr* nv_temp_dir(void) {
    const char* base = getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/neve-XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data())) {
        NvStr* s = nv_str_new(t.data(), (int64_t)t.size());
        fail("cannot make folder", s, errno);
    }
    return nv_str_new(buf.data(), (int64_t)strlen(buf.data()));
}

}  // extern "C"
