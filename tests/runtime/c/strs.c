#include "t.h"

static const NvType* const str_elems[] = {&nv_type_str};
static const NvType t_arr_str = {NV_ARRAY, 8, 0, 1, str_elems, NULL, "array<str>"};

static void show_a(NvArray* a) { show(&a, &t_arr_str); }

int main(int argc, char** argv) {
    nv_init(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "at")) {
        static const NvFuncInfo fi = {"main", "strs.nv"};
        PUSH(f, fi, 4, 11);
        nv_str_at(S("hello"), 7);
    }
    if (argc > 1 && !strcmp(argv[1], "split_empty")) nv_str_split(S("abc"), S(""));
    show_a(nv_str_split(S("a,,b,"), S(",")));
    show_a(nv_str_split(S(""), S(",")));
    show_a(nv_str_split(S("a--b--c"), S("--")));
    show_a(nv_str_split(NULL, S("x")));
    show_a(nv_str_split_ws(S("  one two\t\tthree\n ")));
    show_a(nv_str_split_ws(S("   ")));
    show_s(nv_str_strip(S(" \t x y \n")));
    show_s(nv_str_lstrip(S("  x  ")));
    show_s(nv_str_rstrip(S("  x  ")));
    show_i(nv_str_find(S("hello world"), S("o"), 0));
    show_i(nv_str_find(S("hello world"), S("o"), 5));
    show_i(nv_str_find(S("hello world"), S("z"), 0));
    show_i(nv_str_find(S("hello"), S("h"), -3));
    show_i(nv_str_find(S("hello"), S(""), 99));
    show_i(nv_str_count(S("aaaa"), S("aa")));
    show_i(nv_str_count(S("abc"), S("")));
    show_s(nv_str_replace(S("a.b.c"), S("."), S("::")));
    show_s(nv_str_replace(S("aaa"), S("a"), NULL));
    show_s(nv_str_replace(S("abc"), S(""), S("x")));
    show_s(nv_str_lower(S("MiXeD 123")));
    show_s(nv_str_upper(S("MiXeD 123")));
    show_s(nv_str_join(S(", "), nv_str_split(S("x y z"), S(" "))));
    show_s(nv_str_join(S("-"), nv_array_new(&nv_type_str, 0)));
    show_s(nv_str_concat(S("foo"), S("bar")));
    show_s(nv_str_concat(NULL, NULL));
    show_i(nv_str_startswith(S("prefix"), S("pre")));
    show_i(nv_str_startswith(S("pre"), S("prefix")));
    show_i(nv_str_endswith(S("prefix"), S("fix")));
    show_i(nv_str_endswith(S("prefix"), NULL));
    show_i(nv_str_eq(S(""), NULL));
    show_i(nv_str_cmp(S("abc"), S("abd")));
    show_i(nv_str_cmp(S("ab"), S("a")));
    show_i(nv_str_cmp(S("\xff"), S("a")));   /* bytewise: 0xff after 'a' */
    show_i(nv_str_at(S("hello"), -1));
    show_s(nv_str_slice(S("hello"), 1, 3));
    show_s(nv_str_slice(S("hello"), -3, INT64_MAX));
    show_s(nv_str_slice(S("hello"), 4, 2));
    show_s(nv_str_slice(S("hello"), -100, 100));
    /* quoting of str and char elements */
    NvArray* q = nv_array_new(&nv_type_str, 0);
    *(NvStr**)nv_array_push(q) = nv_str_new("a\"b\\c\n\t\r\0\x01\x7f" "\xc3\xa9", 13);
    *(NvStr**)nv_array_push(q) = NULL;
    show_a(q);
    static const NvType* const char_elems[] = {&nv_type_char};
    static const NvType t_arr_char = {NV_ARRAY, 8, 0, 1, char_elems, NULL, "array<char>"};
    NvArray* cs = nv_array_new(&nv_type_char, 0);
    const char* chars = "a'\\\n";
    for (int i = 0; i < 4; i++) *(char*)nv_array_push(cs) = chars[i];
    show(&cs, &t_arr_char);
    /* top-level str and char print raw */
    int8_t c = 'Z';
    show(&c, &nv_type_char);
    NvStr* raw = S("raw \"text\"");
    show(&raw, &nv_type_str);
    return nv_finish();
}
