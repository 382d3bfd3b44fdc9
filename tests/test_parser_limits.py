"""Parser tests: the phase-2 forms, the nesting limits of 13.1 and the seed programs."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from compiler import ast
from compiler.parser import dump

sys.path.insert(0, str(Path(__file__).resolve().parent))
from parser_helpers import SEEDS, body, errors, expr, expr_errors, ok, parse, stmt  # noqa: E402,F401


# ---------------------------------------------------------------- phase 2

def test_phase2_forms():
    """docs/phase2.md: layouts, elements, addresses, tiles and pieces parse into their nodes."""
    assert stmt("var v = layout<bf16, M + 1, 4, smem>(x)") == \
        "(decl var (v = (layout-new layout<bf16, (+ M 1), 4, smem> x)))"
    assert stmt("var c = layout<int,4,8,4>()") == "(decl var (c = (layout-new layout<int, 4, 8, 4>)))"
    assert stmt("y = v[1, 2]") == "(= y ([,] v 1 2))"
    assert stmt("c[i, j, k] = 0.0") == "(= ([,] c i j k) 0.0)"
    assert stmt("p = v{1, 2}") == "(= p ({} v 1 2))"
    assert stmt("p = x{256,8}(i, lane)") == "(= p (call ({} x 256 8) i lane))"
    assert stmt("z += v[256,N](bx,0) @ u[128,N](by,0)") == \
        "(+= z (@ (call ([,] v 256 N) bx 0) (call ([,] u 128 N) by 0)))"
    assert stmt("var v = layout<float, (a + b) // 2, 4>(x)") == \
        "(decl var (v = (layout-new layout<float, (// (paren (+ a b)) 2), 4> x)))"
    m = ok("gpu void @(layout<float, m> a, layout<float, m, smem> b, float[] z)\n    pass\n")
    assert dump(m.items[0]) == \
        "(gpu void @ ((layout<float, m> a) (layout<float, m, smem> b) (float[] z)) (block pass))"


def test_phase2_parse_errors():
    assert errors("main\n    y = v{}\n") == ["2:10: an address form needs at least one index: v{i, j}"]
    assert errors("main\n    var v = layout<bf16>()\n") == [
        "2:24: a layout needs at least one dimension: layout<T, d0, ...>"]
    assert errors("main\n    var v = layout<bf16, 4> x\n") == [
        "2:29: expected '(' after the layout type: layout<...>(buffer) or layout<...>()"]
    assert errors("main\n    y = a[1:2, 3]\n") == ["2:14: expected ']'"]
    # a comparison ends a dimension (the list closes at '>'): parenthesize it
    assert errors("main\n    var v = layout<float, a < b, 4>(x)\n") == ["2:29: expected '>'"]
    assert errors("main\n    var v = layout(x)\n") == ["2:19: expected '<' after 'layout'"]


@pytest.mark.parametrize("name", ["p2-tensor-core-matmul-a.nv", "p2-tensor-core-matmul-b.nv"])
def test_phase2_seeds_parse(name):
    """Both copies of the tensor-core matmul parse without errors (docs/phase2.md); what the
    checker says of them is in tests/kernels/test_phase2_seed.py."""
    _, errs = parse((SEEDS / name).read_text())
    assert errs == []


# ---------------------------------------------------------------- nesting limits (13.1)

def test_paren_nesting_limit():
    ok("main\n    x = " + "(" * 256 + "1" + ")" * 256 + "\n")
    assert errors("main\n    x = " + "(" * 257 + "1" + ")" * 257 + "\n") == [
        f"2:{9 + 256}: nesting too deep (limit 256)"]


def test_bracket_and_call_nesting_limits():
    ok("main\n    x = " + "[" * 256 + "1" + "]" * 256 + "\n")
    assert errors("main\n    x = " + "[" * 257 + "1" + "]" * 257 + "\n") == [
        f"2:{9 + 256}: nesting too deep (limit 256)"]
    ok("main\n    x = " + "f(" * 256 + "1" + ")" * 256 + "\n")
    assert errors("main\n    x = " + "f(" * 257 + "1" + ")" * 257 + "\n") == [
        f"2:{9 + 2 * 256 + 1}: nesting too deep (limit 256)"]
    ok("main\n    x = " + "a[" * 256 + "1" + "]" * 256 + "\n")


def test_prefix_operators_count_as_nesting():
    ok("main\n    x = " + "-" * 256 + "1\n")
    assert errors("main\n    x = " + "-" * 257 + "1\n") == [f"2:{9 + 256}: nesting too deep (limit 256)"]
    ok("main\n    x = " + "not " * 256 + "a\n")
    # Brackets and prefixes add up around a point.
    assert errors("main\n    x = " + "-(" * 129 + "1" + ")" * 129 + "\n") == [
        f"2:{9 + 256}: nesting too deep (limit 256)"]


def test_block_nesting_limit():
    def nested(levels):
        # main's body is level 1; each `if` opens one more.
        lines = ["main"]
        for depth in range(1, levels):
            lines.append(" " * depth + "if x")
        lines.append(" " * levels + "pass")
        return "\n".join(lines) + "\n"
    ok(nested(256))
    assert errors(nested(257)) == ["258:258: nesting too deep (limit 256)"]


def test_deep_input_never_overflows_the_stack():
    limit = sys.getrecursionlimit()
    for n in (1000, 20000):
        errs = errors("main\n    x = " + "(" * n + "1" + ")" * n + "\n")
        assert errs == [f"2:{9 + 256}: nesting too deep (limit 256)"]
        errs = errors("main\n    x = " + "-" * n + "1\n")
        assert errs == [f"2:{9 + 256}: nesting too deep (limit 256)"]
    errs = errors("main\n    array" + "<array" * 5000 + "<int" + ">" * 5001 + " x\n")
    assert errs[0].endswith("nesting too deep (limit 256)")
    assert sys.getrecursionlimit() == limit       # raised only while parsing


def test_everything_at_its_limit_at_once():
    lines = ["main"]
    for depth in range(1, 256):
        lines.append(" " * depth + "if x")
    t = "array<" * 256 + "int" + ">" * 256
    lines.append(" " * 256 + f"{t} y = " + "(" * 256 + "1" + ")" * 256)
    ok("\n".join(lines) + "\n")


def test_worst_case_nesting_with_a_low_recursion_limit():
    # Blocks, expressions and types each at their limit at one point, types and expressions
    # alternating through channel capacities, under the interpreter's default limit.
    lines = ["main"]
    for depth in range(1, 256):
        lines.append(" " * depth + "if x")
    alternating = "zeros<channel<int, (" * 127 + "1" + ")>>(1)" * 127
    types = "zeros<" + "array<" * 128 + "int" + ">" * 129 + "(1)"
    lines.append(" " * 256 + "y = " + "(" * 2 + f"[{alternating}, {types}]" + ")" * 2)
    src = "\n".join(lines) + "\n"
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        ok(src)
    finally:
        sys.setrecursionlimit(old)


def test_long_chain_does_not_recurse():
    n = 100_000
    m = ok("main\n    x = " + " + ".join(["1"] * n) + "\n")
    e = m.items[0].body.body[0].values[0]
    count = 0
    while isinstance(e, ast.Binary):
        count += 1
        e = e.left
    assert count == n - 1
    assert len(dump(m)) > n


def test_long_and_chain_and_mixed_levels():
    n = 5_000
    ok("main\n    x = " + " and ".join(["a < b"] * n) + "\n")
    ok("main\n    x = " + " * ".join(["-1 + 2"] * n) + "\n")


# ---------------------------------------------------------------- seeds

@pytest.mark.parametrize("name", ["01-vector-split.nv", "02-function-map.nv", "03-generic-bar.nv",
                                  "04-count-primes.nv", "09-adamw.nv", "10-imports.nv"])
def test_seed_parses(name):
    _, errs = parse((SEEDS / name).read_text())
    assert errs == []


def test_seed_05_as_published_and_indented():
    src = (SEEDS / "05-matmul-operator.nv").read_text()
    assert parse(src)[1] == ["2:5: expected an indented block"]
    header, dots = src.splitlines()
    m, errs = parse(f"{header}\n    {dots}\n")
    assert errs == []
    assert dump(m) == "(module (def gpu_tensor @ ((gpu_tensor a) (gpu_tensor b)) (block pass)))"


def test_seed_06():
    src = (SEEDS / "06-backprop-global.nv").read_text()
    assert parse(src)[1] == ["11:5: statement outside main"]
    lines = src.splitlines()
    assert lines[-1].strip() == "$Config.ip"
    m, errs = parse("\n".join(lines[:-1]) + "\n    main\n        $Config.ip\n")
    assert errs == []
    assert dump(m.items[-1]) == "(main (block (. $Config ip)))"


def test_seed_07_as_methods():
    src = (SEEDS / "07-dataloader-methods.nv").read_text()
    m, errs = parse("class Loader\n" + src)
    assert errs == []
    worker, batch = m.items[0].methods
    assert dump(batch.body) == (
        "(block (decl int (w <- (. self load_ch))) (decl var (x = (call (. (. self x) load) w))) "
        "(decl var (y = (call (. (. self y) load) w))) "
        "(= x (call (. x view) (array (. $cfg bs) 1 28 28))) (return x y))")


def test_seed_08_without_its_elision_line():
    lines = (SEEDS / "08-training-step.nv").read_text().splitlines()
    assert lines[0].strip() == "..."
    m, errs = parse("main\n" + "\n".join(lines[1:]) + "\n")
    assert errs == []
    assert [dump(s) for s in m.items[0].body.body] == [
        "(decl gpu_tensor a b)",
        "(= (a b) (call (. ds batch)))",
        "(decl var (y_hat = (call (. model forward) a)))",
        "(call ce_loss y_hat b)",
        "(call (. $backprop backward))",
    ]


def test_seed_09_launch():
    m, errs = parse((SEEDS / "09-adamw.nv").read_text())
    assert errs == []
    step = m.items[1].methods[0]
    launch = step.body.body[1].body.body[3]
    assert isinstance(launch, ast.Launch)
    assert len(launch.call.args) == 12 and launch.smem is None


def test_seed_nr07_gives_located_errors_only():
    _, errs = parse((SEEDS / "nr-07-dataloader-methods-b.nv").read_text())
    assert errs


def test_all_seeds_parse_without_exceptions():
    for f in sorted(SEEDS.glob("*.nv")):
        parse(f.read_text())
