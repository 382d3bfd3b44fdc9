/* Files (14.7): round trips through the whole-file functions and File handles, glob, and the
 * file runtime errors. argv[1] is an empty directory to work in; argv[2] selects an error. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "t.h"

static const NvType* const str_e[] = {&nv_type_str};
static const NvType t_arr_str = {NV_ARRAY, 8, 0, 1, str_e, NULL, "array<str>"};
static const NvType* const u8_e[] = {&nv_type_u8};
static const NvType t_arr_u8 = {NV_ARRAY, 8, 0, 1, u8_e, NULL, "array<u8>"};

static void show_lines(const char* path) {
    NvArray* a = nv_read_lines(S(path));
    show(&a, &t_arr_str);
}
static void show_glob(const char* pat) {
    NvArray* a = nv_glob(S(pat));
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, pat);
    nv_fmt_cstr(&b, " -> ");
    nv_fmt_value(&b, &a, &t_arr_str);
    nv_buf_write(&b, 1, 1);
}
static void flag(const char* what, int v) {
    char t[120];
    snprintf(t, sizeof t, "%s %d", what, v);
    say(t);
}
/* the str in brackets, quoted like an element so \r and "" are visible */
static void q(const char* label, NvStr* s) {
    NvBuf b;
    nv_buf_init(&b);
    nv_fmt_cstr(&b, label);
    nv_fmt_cstr(&b, " ");
    NvArray* one = nv_array_new(&nv_type_str, 1);
    ((NvStr**)one->data)[0] = s;
    nv_fmt_value(&b, &one, &t_arr_str);
    nv_buf_write(&b, 1, 1);
}

static const NvFuncInfo f_main = {"main", "files.nv"};

static void errors(const char* mode) {
    PUSH(f, f_main, 8, 3);
    nv_write_file(S("a.txt"), S("one\ntwo\n"));
    if (!strcmp(mode, "read_missing")) nv_read_file(S("missing.txt"));
    if (!strcmp(mode, "lines_missing")) nv_read_lines(S("missing.txt"));
    if (!strcmp(mode, "bytes_missing")) nv_read_bytes(S("missing.txt"));
    if (!strcmp(mode, "read_dir")) nv_read_file(S("."));
    if (!strcmp(mode, "write_nodir")) nv_write_file(S("nodir/x.txt"), S("x"));
    if (!strcmp(mode, "mode")) nv_file_open(S("a.txt"), S("rw"));
    if (!strcmp(mode, "mode_empty")) nv_file_open(S("a.txt"), S(""));
    void* h = nv_file_open(S("a.txt"), S("r"));
    if (!strcmp(mode, "closed")) {
        nv_file_close(h);
        nv_file_readline(h);
    }
    if (!strcmp(mode, "write_r")) nv_file_write(h, S("x"));
    if (!strcmp(mode, "read_w")) nv_file_readline(nv_file_open(S("w.txt"), S("w")));
    POP(f);
}

int main(int argc, char** argv) {
    nv_init(argc, argv);
    if (argc < 2 || chdir(argv[1]) != 0) {
        say("usage: files DIR [error]");
        return 2;
    }
    if (argc > 2) {
        errors(argv[2]);
        return nv_finish();
    }
    /* whole files */
    NvStr* text = S("line1\nline2\r\n\nlast");
    nv_write_file(S("a.txt"), text);
    flag("read_file round trip", nv_str_eq(nv_read_file(S("a.txt")), text));
    show_lines("a.txt");
    nv_write_file(S("b.txt"), S("x\ny\n"));
    show_lines("b.txt");
    nv_write_file(S("c.txt"), S("\n"));
    show_lines("c.txt");
    nv_write_file(S("d.txt"), NULL);
    show_lines("d.txt");
    q("empty file reads", nv_read_file(S("d.txt")));
    nv_write_file(S("e.txt"), S("a\n\n"));
    show_lines("e.txt");
    NvStr* bin = nv_str_new("\0\xff\n\x80z", 5);
    nv_write_file(S("bin.dat"), bin);
    NvArray* bytes = nv_read_bytes(S("bin.dat"));
    show(&bytes, &t_arr_u8);
    flag("bytes elem is u8", bytes->elem == &nv_type_u8);
    flag("binary round trip", nv_str_eq(nv_read_file(S("bin.dat")), bin));
    nv_write_file(S("b.txt"), S("replaced"));
    q("write_file truncates", nv_read_file(S("b.txt")));

    /* File handles */
    void* w = nv_file_open(S("f.txt"), S("w"));
    flag("opened w", w != NULL);
    nv_file_write(w, S("alpha\n"));
    nv_file_write(w, S("beta"));
    nv_file_write(w, NULL);
    flag("eof of a write handle", nv_file_eof(w));
    nv_file_close(w);
    nv_file_close(w);   /* idempotent */
    void* ap = nv_file_open(S("f.txt"), S("a"));
    nv_file_write(ap, S("\ngamma\r\n"));
    nv_file_close(ap);
    void* r = nv_file_open(S("f.txt"), S("r"));
    flag("eof at start", nv_file_eof(r));
    while (!nv_file_eof(r)) q("readline", nv_file_readline(r));
    q("readline at end", nv_file_readline(r));
    flag("eof at end", nv_file_eof(r));
    nv_file_close(r);
    r = nv_file_open(S("f.txt"), S("r"));
    q("first", nv_file_readline(r));
    q("read_all rest", nv_file_read_all(r));
    q("read_all at end", nv_file_read_all(r));
    flag("eof after read_all", nv_file_eof(r));
    nv_file_close(r);
    void* e = nv_file_open(S("d.txt"), S("r"));
    flag("empty file eof", nv_file_eof(e));
    q("empty file readline", nv_file_readline(e));
    nv_file_close(e);
    nv_write_file(S("nonl.txt"), S("no newline"));
    r = nv_file_open(S("nonl.txt"), S("r"));
    q("last line without newline", nv_file_readline(r));
    flag("then eof", nv_file_eof(r));
    nv_file_close(r);
    flag("open missing", nv_file_open(S("missing.txt"), S("r")) == NULL);
    flag("open directory", nv_file_open(S("."), S("r")) == NULL);
    flag("open w in missing dir", nv_file_open(S("nodir/x.txt"), S("w")) == NULL);
    /* unreachable open handles are closed by the collector's finalizer: more opens than
     * the descriptor limit all succeed */
    int all = 1;
    long limit = sysconf(_SC_OPEN_MAX);
    for (long i = 0; i < (limit > 0 && limit < 20000 ? limit + 100 : 5000); i++)
        all &= nv_file_open(S("f.txt"), S("r")) != NULL;
    flag("unreachable handles are closed", all);

    /* exists */
    mkdir("sub", 0755);
    mkdir("sub/deeper", 0755);
    flag("file_exists a.txt", nv_file_exists(S("a.txt")));
    flag("file_exists sub", nv_file_exists(S("sub")));
    flag("file_exists missing", nv_file_exists(S("missing")));
    flag("dir_exists sub", nv_dir_exists(S("sub")));
    flag("dir_exists a.txt", nv_dir_exists(S("a.txt")));
    flag("dir_exists missing", nv_dir_exists(S("nope")));

    /* glob */
    const char* names[] = {"g/b.txt", "g/a.txt", "g/B.txt", "g/c.log", "g/ab.txt", "g/.hidden.txt",
                           "g/sub1/x.txt", "g/sub2/x.txt", "g/sub2/y.md", "g/~", "g/{a,b}.txt"};
    mkdir("g", 0755);
    mkdir("g/sub1", 0755);
    mkdir("g/sub2", 0755);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) nv_write_file(S(names[i]), S("."));
    show_glob("g/*.txt");
    show_glob("g/?.txt");
    show_glob("g/[ab].txt");
    show_glob("g/[!a]*");
    show_glob("g/*/x.txt");
    show_glob("g/sub*");
    show_glob("g/none*");
    show_glob("g/{a,b}.txt");
    show_glob("g/~");
    show_glob("g/a.txt");
    show_glob("missing/*.txt");
    show_glob("");
    return nv_finish();
}
