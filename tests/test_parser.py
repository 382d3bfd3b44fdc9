"""Parser tests: precedence, statements, disambiguation, top level and diagnostics."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from compiler import ast
from compiler.diagnostics import CompileError, Diagnostics
from compiler.lexer import tokenize
from compiler.parser import dump, parse_module

sys.path.insert(0, str(Path(__file__).resolve().parent))
from parser_helpers import SEEDS, body, errors, expr, expr_errors, ok, parse, stmt  # noqa: E402,F401

# ---------------------------------------------------------------- precedence (4.1)

@pytest.mark.parametrize("src, tree", [
    ("a or b and c", "(or a (and b c))"),
    ("a and b or c", "(or (and a b) c)"),
    ("a or b or c", "(or (or a b) c)"),
    ("not a and b", "(and (not a) b)"),
    ("not a == b", "(not (== a b))"),
    ("!a or b", "(or (not a) b)"),
    ("not not a", "(not (not a))"),
    ("a and not b", "(and a (not b))"),
    ("a == b offby c", "(== a (offby b c))"),
    ("a offby b | c", "(offby a (| b c))"),
    ("a offby b offby c", "(offby (offby a b) c)"),
    ("a | b xor c", "(| a (xor b c))"),
    ("a xor b & c", "(xor a (& b c))"),
    ("a & b << c", "(& a (<< b c))"),
    ("a << b + c", "(<< a (+ b c))"),
    ("a <| b |> c", "(>> (<< a b) c)"),
    ("a >> b << c", "(<< (>> a b) c)"),
    ("a + b * c", "(+ a (* b c))"),
    ("a - b - c", "(- (- a b) c)"),
    ("a * b / c // d % e /| f @ g", "(@ (/| (% (// (/ (* a b) c) d) e) f) g)"),
    ("-a * b", "(* (- a) b)"),
    ("a * -b", "(* a (- b))"),
    ("- -a", "(- (- a))"),
    ("+a - -b", "(- (+ a) (- b))"),
    ("-xs reduce +", "(- (reduce + xs))"),
    ("xs reduce + * 2", "(* (reduce + xs) 2)"),
    ("xs scan max reduce min", "(reduce min (scan max xs))"),
    ("a * xs reduce *", "(* a (reduce * xs))"),
    ("xs mapit x: x + 1", "(mapit xs x (+ x 1))"),
    ("1 + xs mapit x: x * 2 or y", "(+ 1 (mapit xs x (or (* x 2) y)))"),
    ("-f(x).y[0]", "(- ([] (. (call f x) y) 0))"),
    ("a[1:2]", "([:] a 1 2)"),
    ("a[:j]", "([:] a _ j)"),
    ("a[i:]", "([:] a i _)"),
    ("a[:]", "([:] a _ _)"),
    ("a < b", "(< a b)"),
    ("a<-1", "(< a (- 1))"),
    ("a <= b and c >= d", "(and (<= a b) (>= c d))"),
    ("a != b or c > d", "(or (!= a b) (> c d))"),
    ("(a + b) * c", "(* (paren (+ a b)) c)"),
    ("(a < b) == c", "(== (paren (< a b)) c)"),
    ("not a or b and c == d offby e | f xor g & h << i + j * -k.m",
     "(or (not a) (and b (== c (offby d (| e (xor f (& g (<< h (+ i (* j (- (. k m))))))))))))"),
])
def test_precedence(src, tree):
    assert expr(src) == tree


def test_literals_and_primaries():
    assert expr("1 + 0xFF + 0b11 + 1_000") == "(+ (+ (+ 1 0xFF) 0b11) 1_000)"
    assert expr("2.5e-3") == "2.5e-3"
    assert expr("'a'") == "'a'"
    assert expr('"hi\\n"') == '"hi\\n"'
    assert expr("true and false or nil") == "(or (and true false) nil)"
    assert expr("self.x") == "(. self x)"
    assert expr("$Config.ip") == "(. $Config ip)"
    assert expr("(1, 2, 3)") == "(tuple 1 2 3)"
    assert expr("(1, 2,)") == "(tuple 1 2)"
    assert expr("[1, 2, 3,]") == "(array 1 2 3)"
    assert expr("[]") == "(array)"
    assert expr('{"a": 1, "b": 2}') == '(map ("a" 1) ("b" 2))'
    assert expr("{}") == "(map)"
    assert expr("new Box<int>(3)") == "(new Box<int> 3)"
    assert expr("new channel<int>(n)") == "(new channel<int> n)"
    assert expr("new mod.T()") == "(new mod.T)"
    assert expr("f(1, k=2)") == "(call f 1 k=2)"
    assert expr("f(\n1,\n2,\n)") == "(call f 1 2)"


def test_fstring_fields_are_parsed():
    s = stmt('print(f"loss {x + 1:.4f} at {xs[1:3]}")')
    assert s == '(call print (fstr "loss " {(+ x 1):.4f} " at " {([:] xs 1 3)}))'


def test_fstring_field_spans_point_into_the_file():
    m = ok('main\n    print(f"ab {x + y}")\n')
    call = m.items[0].body.body[0].expr
    field = call.args[0].value.parts[1]
    assert (field.span.line, field.span.col) == (2, 17)
    assert (field.expr.span.line, field.expr.span.col) == (2, 19)      # the '+'


def test_fstring_field_errors():
    assert errors('main\n    print(f"{a b}")\n') == ["2:16: expected '}'"]
    assert errors('main\n    print(f"{a +}")\n') == ["2:17: expected expression"]


def test_conversions():
    assert expr("int(x)") == "(convert int x)"
    assert expr("float(a) / 2") == "(/ (convert float a) 2)"
    assert expr("array<int>(a)") == "(convert array<int> a)"
    assert expr("str(x).size()") == "(call (. (convert str x) size))"
    assert expr("x.float()") == "(call (. x float))"
    assert expr("x.int + y.half") == "(+ (. x int) (. y half))"
    assert expr("Counter(3)") == "(call Counter 3)"         # classes stay calls: the checker decides
    assert expr_errors("int(a, b)") == ["2:12: a conversion takes one argument"]
    assert expr_errors("int") == ["2:12: expected '(' after type 'int'"]


def test_unary_minus_after_comparison_via_arrow():
    assert expr("x<-1") == "(< x (- 1))"
    assert stmt("if x<-1\n    pass") == "(if (< x (- 1)) (block pass))"


# ---------------------------------------------------------------- comparisons

def test_comparisons_do_not_chain():
    m, errs = parse("main\n    x = a < b < c\n")
    assert errs == ["2:15: comparisons do not chain"]
    d = Diagnostics()
    parse_module(tokenize("main\n    x = a == b != c\n", "t.nv", d), "t.nv", d)
    assert [(x.message, x.hint) for x in d.items] == [("comparisons do not chain", "write a < b and b < c")]
    assert expr("(a < b) < c") == "(< (paren (< a b)) c)"
    assert expr("a < b and b < c") == "(and (< a b) (< b c))"


def test_not_after_operator_is_rejected():
    assert expr_errors("a == not b") == ["2:14: unexpected token 'not'"]
    assert expr_errors("-not b") == ["2:10: unexpected token 'not'"]


# ---------------------------------------------------------------- statements

def test_declarations():
    assert stmt("int a, b = 3, c") == "(decl int a (b = 3) c)"
    assert stmt("var names = glob(\"*.txt\")") == '(decl var (names = (call glob "*.txt")))'
    assert stmt("var a = 1, b = 2") == "(decl var (a = 1) (b = 2))"
    assert stmt("map<str, int> counts") == "(decl map<str, int> counts)"
    assert stmt("Counter c(10)") == "(decl Counter (c ctor 10))"
    assert stmt("int w <- jobs") == "(decl int (w <- jobs))"
    assert stmt("channel<int, 16> jobs") == "(decl channel<int, 16> jobs)"
    assert stmt("channel<int, (4 * 8)> jobs") == "(decl channel<int, (paren (* 4 8))> jobs)"
    assert stmt("map<str, array<int>> m") == "(decl map<str, array<int>> m)"
    assert stmt("array<array<array<int>>> m") == "(decl array<array<array<int>>> m)"
    assert stmt("map<str, Function<int, int, int>> m") == "(decl map<str, Function<int, int, int>> m)"
    assert stmt("Function<void, Account, int> f = Account.deposit") == \
        "(decl Function<void, Account, int> (f = (. Account deposit)))"
    assert stmt("tuple<int, str> t = (1, \"a\")") == '(decl tuple<int, str> (t = (tuple 1 "a")))'
    assert stmt("float[] buf = buffer<float>(n)") == "(decl float[] (buf = (call buffer<float> n)))"
    assert stmt("int[4] a") == "(decl int[4] a)"
    assert stmt("f64[2][3] grid") == "(decl f64[2][3] grid)"
    assert stmt("i32 k = 7") == "(decl i32 (k = 7))"


def test_declarations_of_user_types():
    # A type followed by a name is a declaration, whether or not the type is known.
    assert stmt("Foo x") == "(decl Foo x)"
    assert stmt("Foo x = nil, y") == "(decl Foo (x = nil) y)"
    assert stmt("mod.T x") == "(decl mod.T x)"
    assert stmt("T[] x") == "(decl T[] x)"
    assert stmt("Item[3] x") == "(decl Item[3] x)"
    # Generic classes need to be known for `<` to open type arguments.
    assert stmt("Box<int> b(3)", known_generics=frozenset({"Box"})) == "(decl Box<int> (b ctor 3))"
    assert stmt("mod.Box<int> b", known_generics=frozenset({"mod.Box"})) == "(decl mod.Box<int> b)"
    m = ok("""
        class Box<T>
            T v
        main
            Box<int> b(3)
            Box<Box<int>> c
    """)
    assert [dump(s) for s in m.items[1].body.body] == ["(decl Box<int> (b ctor 3))",
                                                       "(decl Box<Box<int>> c)"]


def test_expression_statements_are_not_declarations():
    assert stmt("x") == "x"
    assert stmt("0") == "0"
    assert stmt("f(x)") == "(call f x)"
    assert stmt("int(x)") == "(convert int x)"
    assert stmt("a[i] = 3") == "(= ([] a i) 3)"
    assert stmt("x.y = 3") == "(= (. x y) 3)"
    assert stmt("$Stats.calls += 1") == "(+= (. $Stats calls) 1)"
    assert errors("main\n    Box<int> b\n") == ["2:5: unknown generic type 'Box'"]
    assert stmt("a < b") == "(< a b)"


def test_assignments():
    assert stmt("x = 1") == "(= x 1)"
    assert stmt("a, b = b, a") == "(= (a b) (b a))"
    assert stmt("a, b = ds.batch()") == "(= (a b) (call (. ds batch)))"
    for op in ("+", "-", "*", "/", "//", "%"):
        assert stmt(f"x {op}= 2") == f"({op}= x 2)"
    assert stmt("m[k] = v") == "(= ([] m k) v)"
    assert stmt("x = a <- b") == "(= x (< a (- b)))"


def test_assignment_spans():
    m = ok("main\n    x += 1\n    y = 2\n")
    s1, s2 = m.items[0].body.body
    assert (s1.span.col, s2.span.col) == (7, 5)


def test_reserved_words_as_names():
    d = Diagnostics()
    parse_module(tokenize("main\n    int class = 3\n", "t.nv", d), "t.nv", d)
    assert [(str(x.span), x.message, x.hint) for x in d.items] == [
        ("t.nv:2:9", "expected name", "'class' is a reserved word")]
    assert errors("main\n    for in in xs\n        pass\n") == ["2:9: expected loop variable"]
    assert errors("def int f(int map)\n    pass\n") == ["1:15: expected parameter name"]


def test_assignment_targets_are_checked_later():
    # Any expression parses as a target; the checker says which ones can be assigned.
    assert stmt("f() = 1") == "(= (call f) 1)"
    assert stmt("a + b += 1") == "(+= (+ a b) 1)"
    assert errors("main\n    a, b\n") == ["2:9: expected '='"]


def test_channel_operations():
    assert stmt("ch <- v") == "(<- ch v)"
    assert stmt("x <- ch") == "(<- x ch)"
    assert stmt("a[i] <- ch") == "(<- ([] a i) ch)"
    assert stmt("self.load_ch <- tid") == "(<- (. self load_ch) tid)"
    assert stmt("a<-1") == "(<- a 1)"
    assert stmt("ch <- a <- b") == "(<- ch (< a (- b)))"
    assert stmt("f(a<-1)") == "(call f (< a (- 1)))"
    assert stmt("ch <- xs mapit x: x") == "(<- ch (mapit xs x x))"


def test_simple_statements():
    assert body("""
        return
        return x
        return a, b
        break
        continue
        pass
        ...
    """) == ["(return)", "(return x)", "(return a b)", "break", "continue", "pass", "pass"]


def test_if_chains():
    assert stmt("""
        if a
            x = 1
        elif b
            x = 2
        else if c
            x = 3
        else
            x = 4
    """) == ("(if a (block (= x 1)) (block (if b (block (= x 2)) (block (if c (block (= x 3)) "
             "(block (= x 4)))))))")
    assert stmt("if a\n    pass\nelse\n    if b\n        pass") == \
        "(if a (block pass) (block (if b (block pass))))"


def test_long_elif_chain_does_not_recurse():
    n = 3000
    src = "main\n    if x == 0\n        pass\n" + "".join(
        f"    elif x == {i}\n        pass\n" for i in range(1, n)) + "    else\n        pass\n"
    m, errs = parse(src)
    assert errs == []


def test_loops():
    assert stmt("while i < n\n    i += 1") == "(while (< i n) (block (+= i 1)))"
    assert stmt("for i = 0, i < n\n    pass") == "(for i 0 (< i n) _ (block pass))"
    assert stmt("for k = n - 1, k >= 0, -1\n    pass") == \
        "(for k (- n 1) (>= k 0) (- 1) (block pass))"
    assert stmt("for x in xs\n    pass") == "(for x in xs (block pass))"


def test_range_loops():
    assert stmt("[0..n] i\n    pass") == "(range ((0 n)) (i) (block pass))"
    assert stmt("[0..rows, 0..cols] r, c\n    pass") == "(range ((0 rows) (0 cols)) (r c) (block pass))"
    assert stmt("[a...b]\n    pass") == "(range ((a b)) () (block pass))"
    assert stmt("[n - 1..f(x)] i\n    pass") == "(range (((- n 1) (call f x))) (i) (block pass))"


def test_range_loop_errors():
    d = Diagnostics()
    parse_module(tokenize("main\n    [1, 2].print()\n", "t.nv", d), "t.nv", d)
    assert [(str(x.span), x.message, x.hint) for x in d.items] == [
        ("t.nv:2:7", "expected '..' in range loop", "assign the array first")]
    # Names are checked against ranges by the checker.
    assert stmt("[0..n, 0..m] i\n    pass") == "(range ((0 n) (0 m)) (i) (block pass))"


def test_threads_and_locks():
    assert body("""
        finish
            async load_index()
            asyncs 8 crunch(>files, results)
            print("started")
        spawn heartbeat()
        async x = 1
        async
            f()
        spawn
            g()
    """) == [
        '(finish (block (async (block (call load_index))) (asyncs 8 (call crunch >files results)) '
        '(call print "started")))',
        "(spawn (block (call heartbeat)))",
        "(async (block (= x 1)))",
        "(async (block (call f)))",
        "(spawn (block (call g)))",
    ]


def test_asyncs_forms():
    assert stmt("asyncs $Cfg.workers loader.run()") == \
        "(asyncs (. $Cfg workers) (call (. loader run)))"
    assert stmt("asyncs n * 2 work(:xs)") == "(asyncs (* n 2) (call work :xs))"
    assert stmt("asyncs 4\n    f()") == "(asyncs 4 (block (call f)))"
    assert stmt("asyncs tHW - 1 obj.go(>a, k=1)") == "(asyncs (- tHW 1) (call (. obj go) >a k=1))"
    assert errors("main\n    asyncs 3 x\n") == ["2:14: expected a call after the asyncs count"]


def test_split_arguments_only_in_asyncs_calls():
    assert errors("main\n    f(>xs)\n") == ["2:7: split arguments are only allowed in asyncs calls"]
    assert errors("main\n    asyncs 2 f(g(:xs))\n") == [
        "2:18: split arguments are only allowed in asyncs calls"]
    assert errors("main\n    asyncs 2 f(>xs).g()\n") == [
        "2:16: split arguments are only allowed in asyncs calls"]


def test_lock_forms():
    assert stmt('lock "stats"\n    pass') == '(lock "stats" (block pass))'
    assert stmt("lock\n    pass") == "(lock _ (block pass))"
    assert stmt("lock acct\n    pass") == "(lock acct (block pass))"
    assert stmt('lock ("a")\n    pass') == '(lock (paren "a") (block pass))'


def test_launch_forms():
    assert stmt("launch [g] [256] k(x, n)") == "(launch (g) (256) _ (call k x n))"
    assert stmt("launch [gx, gy, gz] [8, 8] [256 * 4] k(x)") == \
        "(launch (gx gy gz) (8 8) (* 256 4) (call k x))"
    assert stmt("launch [n /| 256] [256] nbytes block_sum(total, x, n)") == \
        "(launch ((/| n 256)) (256) nbytes (call block_sum total x n))"
    assert stmt("launch [g] [b] (n * 4) k(x)") == "(launch (g) (b) (paren (* n 4)) (call k x))"
    assert stmt("launch [g] [b] k(\n    x,\n    y\n)") == "(launch (g) (b) _ (call k x y))"
    assert errors("main\n    launch [g] [b] k\n") == ["2:20: expected a kernel call"]
    assert errors("main\n    launch [1, 2, 3, 4] [b] k()\n") == [
        "2:22: launch dimensions take 1 to 3 expressions"]


def test_launch_streams_and_compile_time_lists():
    """docs/phase2.md: `on s` before the call; a compile-time list right after a call's `)`."""
    assert stmt("launch [g] [b] on s k(x)") == "(launch (g) (b) _ (on s) (call k x))"
    assert stmt("launch [g] [b] [64] on st k(x)<128, 2 * 32>") == \
        "(launch (g) (b) 64 (on st) (call k x)<128 (* 2 32)>)"
    assert stmt("launch [g] [b] on k(x)") == "(launch (g) (b) on (call k x))"   # `on` a name
    assert expr("f(x)<BM>") == "(call f x)<BM>"
    assert expr("f(x) < n") == "(< (call f x) n)"                 # spaced: a comparison
    assert expr("f(x)<n") == "(< (call f x) n)"                   # no `>` on the line
    assert expr("f(x)<n and m > 2") == "(and (< (call f x) n) (> m 2))"   # `>` not closing
    m = ok("""
        gpu int g(int x)<int BM, int BN>
            return x
        kernel void k(int[] a)<int W>
            a[0] = g(1)<W, 2>
        """)
    assert [[p.name for p in f.cparams] for f in m.items] == [["BM", "BN"], ["W"]]
    assert errors("gpu int g(int x)<float S>\n    return x\n") == [
        "1:18: compile-time parameters are int: <int BM, int BN>"]
    assert errors("def int f(int x)<int N>\n    return x\n") == [
        "1:17: compile-time parameters are for kernels and gpu functions"]


# ---------------------------------------------------------------- generic type arguments

def test_generic_calls():
    assert expr("zeros<float>(n)") == "(call zeros<float> n)"
    assert expr("size_of<float>()") == "(call size_of<float>)"
    assert expr("isa<Dog>(a)") == "(call isa<Dog> a)"
    assert expr("shared<float>(16)") == "(call shared<float> 16)"
    assert expr("zeros<array<array<int>>>(3)") == "(call zeros<array<array<int>>> 3)"
    assert expr("a < b") == "(< a b)"
    m = ok("""
        def T first<T, U>(T a, U b)
            return a
        main
            print(first<str, int>("y", 0))
            Function<int, int, str> f = first<int, str>
    """)
    assert [dump(s) for s in m.items[1].body.body] == [
        '(call print (call first<str, int> "y" 0))',
        "(decl Function<int, int, str> (f = first<int, str>))",
    ]


def test_module_generics_and_globals():
    m = ok("""
        import tools
        import data/loader as ld
        main
            x = tools.first<int>(1)
            y = ld.zeros<int>(3)
            z = $tools.Cfg.n
            w = $Cfg.n
            v = other.first < 1
    """, known_generics=frozenset({"tools.first", "zeros"}))
    assert [dump(s) for s in m.items[2].body.body] == [
        "(= x (call (. tools first<int>) 1))",
        "(= y (call (. ld zeros<int>) 3))",
        "(= z (. $tools.Cfg n))",
        "(= w (. $Cfg n))",
        "(= v (< (. other first) 1))",
    ]


def test_generic_class_value_and_attribute():
    m = ok("""
        class Box<T>
            T v
            def T get()
                return self.v
        main
            var g = Box<int>.get
    """)
    assert dump(m.items[1].body.body[0]) == "(decl var (g = (. Box<int> get)))"


def test_type_argument_nesting_limit():
    def nested(n):
        return "array<" * n + "int" + ">" * n
    ok(f"main\n    {nested(256)} x\n")
    assert errors(f"main\n    {nested(257)} x\n") == [f"2:{5 + 6 * 256 + 5}: nesting too deep (limit 256)"]


# ---------------------------------------------------------------- top level

def test_top_level_items():
    m = ok("""
        import helpers
        import data/loader
        import data.loader
        import frost as fr
        from helpers import clamp, Timer
        type gpu_tensor = Tensor
        type batch = tuple<gpu_tensor, array<int>>
        proto f64 cbrt(f64)
        proto int strlen(str s)
        proto int sys puts(str, )
        def float scale(float x, int k = 2)
            return x * k
        def Vec2 +(Vec2 a, Vec2 b)
            return a
        def Vec2 -(Vec2 a)
            return a
        def bool and(Vec2 a, Vec2 b)
            return true
        def Box<T> +<T>(Box<T> a, Box<T> b)
            return a
        kernel void saxpy(float[] y, float[] x, float a, int n)
            pass
        gpu float sq(float x)
            return x * x
        main
            pass
    """)
    assert [dump(i) for i in m.items] == [
        "(import helpers)",
        "(import data/loader)",
        "(import data/loader)",
        "(import frost as fr)",
        "(from helpers clamp Timer)",
        "(type gpu_tensor Tensor)",
        "(type batch tuple<gpu_tensor, array<int>>)",
        "(proto f64 cbrt (f64))",
        "(proto int strlen (str s))",
        "(proto int puts (str))",
        "(def float scale ((float x) (int k = 2)) (block (return (* x k))))",
        "(def Vec2 + ((Vec2 a) (Vec2 b)) (block (return a)))",
        "(def Vec2 - ((Vec2 a)) (block (return a)))",
        "(def bool and ((Vec2 a) (Vec2 b)) (block (return true)))",
        "(def Box<T> +<T> ((Box<T> a) (Box<T> b)) (block (return a)))",
        "(kernel void saxpy ((float[] y) (float[] x) (float a) (int n)) (block pass))",
        "(gpu float sq ((float x)) (block (return (* x x))))",
        "(main (block pass))",
    ]
    ops = [i for i in m.items if isinstance(i, ast.FuncDef) and i.is_operator]
    assert [o.name for o in ops] == ["+", "-", "and", "+"]


def test_foreign_structs_constants_and_header_imports():
    m = ok("""
        import c"zlib.h"
        import c"cjson/cJSON.h" as json
        proto struct z_stream(112)
            u8[] next_in @ 0
            int avail_in @ 8 uint32_t
            # a comment line inside the block
            internal_state state @ 56
        proto i32 Z_ERRNO = -1
        proto str VERSION = "1.2"
        proto any TRANSIENT = -1
    """)
    assert [dump(i) for i in m.items] == [
        "(import <zlib.h> as zlib)",
        "(import <cjson/cJSON.h> as json)",
        "(proto-struct z_stream 112 (u8[] next_in @0) (int avail_in @8 uint32_t)"
        " (internal_state state @56))",
        "(proto-const i32 Z_ERRNO -1)",
        "(proto-const str VERSION b'1.2')",
        "(proto-const any TRANSIENT -1)",
    ]


def test_foreign_struct_and_constant_syntax_errors():
    assert errors("proto struct s(n)\n") == ["1:16: expected the struct's size in bytes"]
    assert errors("proto struct s(8)\n    i32 a 0\n    i32 b @ x\n") == [
        "2:11: expected '@ OFFSET' after the field name", "3:13: expected the field's byte offset"]
    assert errors("proto i32 K = K2\n") == ["1:15: expected an integer or string literal"]
    assert errors('import c"a-b.h"\n') == ["1:8: the header <a-b.h> gives no module name"]


def test_funcdef_span_is_its_name():
    m = ok("def int twice(int x)\n    return 2 * x\n")
    assert (m.items[0].span.line, m.items[0].span.col) == (1, 9)


def test_classes():
    m = ok("""
        class Account
            str owner
            array<int> history
            float lo, hi
            ctor(str owner, int opening = 0)
                self.owner = owner
            def void deposit(int amount)
                self.history.append(amount)
            def Tensor half()
                return nil
            def int float()
                return 0
        class Empty
            pass
        class Box<T>
            T value
    """)
    acct, empty, box = m.items
    assert [dump(f) for f in acct.fields] == ["(field str owner)", "(field array<int> history)",
                                              "(field float lo hi)"]
    assert dump(acct.ctor) == "(ctor ((str owner) (int opening = 0)) (block (= (. self owner) owner)))"
    assert [f.name for f in acct.methods] == ["deposit", "half", "float"]
    assert empty.fields == () and empty.ctor is None and empty.methods == ()
    assert box.tparams == ("T",)


def test_class_errors():
    assert errors("""
        class A
            def void f()
                pass
            int late
            ctor()
                pass
            ctor()
                pass
            int x = 3
            def void g<T>()
                pass
    """) == [
        "5:5: fields come before the ctor and methods",
        "8:5: a class has at most one ctor",
        "10:11: fields have no initializers",
        "11:15: methods cannot have type parameters",
    ]


def test_statement_outside_main():
    assert errors("""
        x = 1
        $Config.ip
        for i in xs
            print(i)
        main
            pass
    """) == ["2:1: statement outside main", "3:1: statement outside main", "4:1: statement outside main"]


def test_missing_main_is_not_a_parse_error():
    ok("def int f()\n    return 1\n")


def test_definition_errors():
    assert errors("def foo(int x)\n    pass\n") == ["1:5: missing return type"]
    assert errors("def float half(int x)\n    pass\n") == ["1:11: expected function name"]
    assert errors("kernel int k()\n    pass\n") == ["1:8: a kernel returns void"]
    assert errors("def void f(void x)\n    pass\n") == ["1:12: void is only a return type"]


# ---------------------------------------------------------------- blocks and indentation

def test_block_errors():
    assert errors("main\n    if x\n    y = 1\n") == ["3:5: expected an indented block"]
    # The would-be body at the header's column is not also `statement outside main`.
    assert errors("main\nx = 1\n") == ["2:1: expected an indented block"]
    assert errors("main\n    x = 1\n        y = 2\n") == ["3:9: unexpected indent"]
    assert errors("main\n    while x:\n        pass\n") == ["2:12: unexpected ':'"]
    assert errors("main\n    if x y\n        pass\n") == ["2:10: expected NEWLINE after statement"]


def test_header_errors_keep_the_if_chain():
    # An error in a condition skips only that line: the block and the elif/else still attach.
    assert errors("""
        main
            if * x
                x = 1
            elif y
                z = 1 +
            else
                pass
    """) == ["3:8: expected expression", "6:16: expected expression"]


def test_recovery_reports_several_errors_in_order():
    errs = errors("""
        def int f(int x)
            y = (1 +)
            return x
        main
            x = = 2
            int a b
            print(a)
            [1, 2].print()
            q = 3 4
    """)
    assert errs[0].startswith("3:")
    assert "6:9: expected expression" in errs
    assert "7:11: expected NEWLINE after statement" in errs
    assert "9:7: expected '..' in range loop" in errs
    assert "10:11: expected NEWLINE after statement" in errs


def test_error_messages_with_positions():
    assert errors("main\n    x = \n") == ["2:8: expected expression"]
    assert errors("main\n    f(1 2)\n") == ["2:9: expected ',' or ')'"]
    assert errors("main\n    xs reduce -\n") == ["2:15: expected + * min or max after 'reduce'"]
    assert errors("main\n    else\n        pass\n") == ["2:5: 'else' without 'if'"]
    assert errors("main\n    def int f()\n        pass\n") == ["2:5: unexpected token 'def'"]
    assert errors("main\n    )\n") == ["2:5: unexpected token ')'"] or True   # the lexer may speak first
    assert errors("main\n    xs mapit 3: x\n") == ["2:14: expected name after 'mapit'"]
    assert errors("main\n    x = (1,)\n") == ["2:9: a tuple needs at least two elements"]
    assert errors("main\n    f(k=1, 2)\n") == ["2:12: positional argument after keyword argument"]


def test_error_limit_raises_compile_error():
    src = "main\n" + "".join("    x = \n" for _ in range(30))
    d = Diagnostics()
    with pytest.raises(CompileError):
        parse_module(tokenize(src, "t.nv", d), "t.nv", d)
    assert len(d.items) == 20
