"""The bindgen cache, $NEVE_HOME/cache/bindgen/<sha256>.json (nsm.build.bindgen.cache)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from nsm.build import bindgen
from nsm.build.bindgen import cached_generate, generate


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("NEVE_HOME", str(home))
    return home


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "types.h").write_text("typedef long long idx;\n")
    (root / "api.h").write_text('#include <stdint.h>\n#include "inc/types.h"\n'
                                "idx api_len(const char* s);\n")
    return root


def test_second_call_is_served_from_cache(home, project):
    first = cached_generate(project / "api.h")
    assert not first.from_cache
    assert first.text == generate(project / "api.h").text
    entries = sorted(p.name for p in (home / "cache" / "bindgen").iterdir())
    assert any(n.endswith(".deps.json") for n in entries)
    result = [n for n in entries if not n.endswith(".deps.json")]
    assert len(result) == 1 and len(result[0]) == 64 + len(".json")
    second = cached_generate(project / "api.h")
    assert second.from_cache
    assert (second.text, second.problems, second.files) == \
        (first.text, first.problems, first.files)


def test_hit_runs_neither_preprocessor_nor_parser(home, project, monkeypatch):
    cached_generate(project / "api.h")

    def fail(*a, **k):
        raise AssertionError("parsed again")
    monkeypatch.setattr(bindgen.preprocess, "run", fail)
    assert cached_generate(project / "api.h").from_cache


def test_changing_an_included_header_invalidates(home, project):
    assert "proto int api_len(str s)" in cached_generate(project / "api.h").text
    (project / "inc" / "types.h").write_text("typedef int idx;\n")
    b = cached_generate(project / "api.h")
    assert not b.from_cache
    assert "proto i32 api_len(str s)" in b.text
    assert cached_generate(project / "api.h").from_cache


def test_changing_the_header_or_the_options_invalidates(home, project):
    cached_generate(project / "api.h")
    assert not cached_generate(project / "api.h", defines=["X=1"]).from_cache
    assert cached_generate(project / "api.h", defines=["X=1"]).from_cache
    with open(project / "api.h", "a") as f:
        f.write("void api_reset(void);\n")
    b = cached_generate(project / "api.h")
    assert not b.from_cache and b.text.endswith("proto void api_reset()\n")


def test_corrupt_entry_is_a_miss(home, project):
    cached_generate(project / "api.h")
    for p in (home / "cache" / "bindgen").glob("*.json"):
        if not p.name.endswith(".deps.json"):
            p.write_text("{not json")
    b = cached_generate(project / "api.h")
    assert not b.from_cache and "api_len" in b.text
    entry = [p for p in (home / "cache" / "bindgen").glob("*.json")
             if not p.name.endswith(".deps.json")]
    assert json.loads(entry[0].read_text())["text"] == b.text


def test_no_temporary_files_left(home, project):
    cached_generate(project / "api.h")
    assert not [p for p in (home / "cache" / "bindgen").iterdir() if p.name.startswith(".")]


def test_errors_are_not_cached(home, tmp_path):
    from nsm.errors import NsmError
    h = tmp_path / "bad.h"
    h.write_text('#include "gone.h"\nint f(int x);\n')       # the preprocessor fails
    for _ in range(2):
        with pytest.raises(NsmError):
            cached_generate(h)
    h.write_text("int f(int x);\n")
    assert cached_generate(h).text.endswith("proto i32 f(i32 x)\n")


def test_unwritable_cache_still_generates(tmp_path, monkeypatch, project):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    monkeypatch.setenv("NEVE_HOME", str(blocker))
    assert "api_len" in cached_generate(project / "api.h").text
