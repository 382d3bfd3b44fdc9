"""frost/tokenizers and frost/bpe_trainer (issue 24, part 1) against Hugging Face `tokenizers`
(Rust, PyPI; in the `test` extra, so required under CI=true, skipped elsewhere when missing):
on the first 200 KB of Tiny Shakespeare, vocabulary 1,000, min_frequency 2, the 256-byte
alphabet, ByteLevel pre-tokenizer and decoder, no special tokens: the same vocabulary and merges,
the same ids for the validation split (its last 10%), tokenizer.json read both ways; the
splitter against ByteLevel.pre_tokenize_str on a table of strings and on both ends of every run
of its Unicode class table; a multilingual text trained alike; bad input refused."""
from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from tests.frost.helpers import NSM

if os.environ.get("CI") == "true":
    import tokenizers
else:
    tokenizers = pytest.importorskip("tokenizers")

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "packages" / "frost" / "examples" / "bpe_train.nv"
SPLIT = Path(__file__).parent / "bpe_split.nv"
TEXT = ROOT / "packages" / "frost" / "data" / "tinyshakespeare" / "input.txt"
VOCAB = 1000


def nv(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([NSM, "run", str(EXAMPLE), *args], cwd=cwd, capture_output=True,
                       text=True, timeout=600)
    if check:
        assert p.returncode == 0, p.stderr[-3000:]
    return p


def hf_tokenizer(add_prefix_space: bool = True):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tok.decoder = decoders.ByteLevel()
    return tok


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Both tokenizers trained on the same file; Neve's with 2 threads."""
    from tokenizers import pre_tokenizers, trainers
    d = tmp_path_factory.mktemp("bpe")
    text = TEXT.read_text()[:200_000]
    cut = len(text) * 9 // 10
    (d / "train.txt").write_text(text[:cut])
    (d / "valid.txt").write_text(text[cut:])
    hf = hf_tokenizer()
    hf.train([str(d / "train.txt")], trainers.BpeTrainer(
        vocab_size=VOCAB, min_frequency=2, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[], show_progress=False))
    hf.save(str(d / "hf.json"))
    out = nv("train", "train.txt", str(VOCAB), "2", "nv.json", cwd=d).stdout
    assert out.splitlines()[0] == f"vocab {VOCAB} merges {VOCAB - 256}"
    return d, hf, hf.encode(text[cut:]).ids


def neve_ids(d: Path, tokenizer_json: str, threads: int = 2) -> list[int]:
    nv("encode", tokenizer_json, "valid.txt", str(threads), "ids.txt", cwd=d)
    return [int(x) for x in (d / "ids.txt").read_text().split()]


def test_vocab_and_merges_equal_tokenizers(trained):
    d, _, _ = trained
    mine = json.loads((d / "nv.json").read_text())["model"]
    theirs = json.loads((d / "hf.json").read_text())["model"]
    assert len(mine["merges"]) == VOCAB - 256
    assert mine["merges"] == theirs["merges"]
    assert mine["vocab"] == theirs["vocab"]


def test_validation_split_encodes_token_for_token(trained):
    d, _, want = trained
    assert len(want) > 5000
    assert neve_ids(d, "nv.json", threads=2) == want
    assert neve_ids(d, "nv.json", threads=1) == want


def test_one_thread_trains_the_same_file(trained):
    d, _, _ = trained
    nv("train", "train.txt", str(VOCAB), "1", "nv1.json", cwd=d)
    assert (d / "nv1.json").read_text() == (d / "nv.json").read_text()


def test_neve_tokenizer_json_loads_in_tokenizers(trained):
    d, _, want = trained
    loaded = tokenizers.Tokenizer.from_file(str(d / "nv.json"))
    valid = (d / "valid.txt").read_text()
    assert loaded.encode(valid).ids == want
    assert loaded.decode(want) == " " + valid


def test_tokenizers_json_loads_in_neve_with_either_merge_form(trained):
    d, _, want = trained
    assert neve_ids(d, "hf.json") == want
    doc = json.loads((d / "hf.json").read_text())
    assert isinstance(doc["model"]["merges"][0], list)
    doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]]
    doc["pre_tokenizer"]["add_prefix_space"] = False
    (d / "hf_strings.json").write_text(json.dumps(doc))
    no_prefix = tokenizers.Tokenizer.from_file(str(d / "hf_strings.json"))
    got = neve_ids(d, "hf_strings.json")
    assert got == no_prefix.encode((d / "valid.txt").read_text()).ids
    assert got != want


SPLIT_CASES = [
    "Hello world", "I'm here, isn't it? They'll've 'd 'S", "  two  spaces   three\n\n\nnl \n x",
    "tabs\t\tand\r\nCRLF", "a1b22 333 x4.5", "?!... --- ''s", "trailing   ", "\n", "", "a  b",
    " leading", "x\n  y", "x \ny", "it's 'tis rock'n'roll", "caf\u00e9 na\u00efve \u00c9t\u00e9",
    "\u4e2d\u6587 \u65e5\u672c\u8a9e", "\u00a0nbsp\u2003em\u3000ideo",
    "x\u00b2 \u00bd \u00d7 \u00f7 \u00ab\u00bb \u2014dash\u2026",
    "\u03b1\u03b2\u03b3 \u043f\u0440\u0438\u0432\u0435\u0442",
]


def class_probes() -> list[str]:
    """For the first and last code point of every run of one class in frost/unicode_classes
    (surrogates left out), a string whose split shows how the pattern classes it."""
    runs = []
    for line in (ROOT / "packages" / "frost" / "unicode_classes.nv").read_text().splitlines():
        if not line.startswith("#"):
            runs += [int(x.split("<<")[0], 16) for x in line.split(",") if "<<" in x]
    cps = {c for start, nxt in zip(runs, runs[1:] + [0x110000]) for c in (start, nxt - 1)}
    return [f"{x}{x}a{x}1{x}?{x} {x}\n {x}  {x}" for x in map(chr, sorted(cps))
            if not 0xD800 <= ord(x) <= 0xDFFF]


def test_splitter_matches_bytelevel_pre_tokenizer(tmp_path):
    from tokenizers import pre_tokenizers
    docs = SPLIT_CASES + class_probes()
    assert len(docs) > 2500
    (tmp_path / "docs.json").write_text(json.dumps(docs))
    p = subprocess.run([NSM, "run", str(SPLIT), "docs.json"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    bl = pre_tokenizers.ByteLevel(add_prefix_space=True)
    want = [[w for w, _ in bl.pre_tokenize_str(s)] for s in docs]
    got = json.loads(p.stdout)
    assert [d for d, g, w in zip(docs, got, want) if g != w] == []


def test_multilingual_text_trains_and_encodes_the_same(tmp_path):
    from tokenizers import pre_tokenizers, trainers
    rng = random.Random(1)
    words = ["caf\u00e9", "na\u00efve", "\u4e2d\u6587", "\u65e5\u672c\u8a9e", "\u03b1\u03b2\u03b3",
             "\u043f\u0440\u0438\u0432\u0435\u0442", "x\u00b2", "\u00bd", "\u2014dash\u2026",
             "\u00abq\u00bb", "it's", "don't", "I'll", "3.14", "2024", "  ", "\t", "the", "a",
             "e\u0301migre\u0301", "\U0001f600", "a\U0001f600b", "\u0663\u0664", "\u3000"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
             + rng.choice(["\n", "  \n", " \n\n"]) for _ in range(3000)]
    (tmp_path / "m.txt").write_text("".join(lines))
    (tmp_path / "valid.txt").write_text("".join(lines[:300]))
    hf = hf_tokenizer()
    hf.train([str(tmp_path / "m.txt")], trainers.BpeTrainer(
        vocab_size=600, min_frequency=2, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[], show_progress=False))
    hf.save(str(tmp_path / "hf.json"))
    nv("train", "m.txt", "600", "2", "nv.json", cwd=tmp_path)
    mine = json.loads((tmp_path / "nv.json").read_text())["model"]
    theirs = json.loads((tmp_path / "hf.json").read_text())["model"]
    assert mine["merges"] == theirs["merges"] and mine["vocab"] == theirs["vocab"]
    assert neve_ids(tmp_path, "nv.json") == hf.encode("".join(lines[:300])).ids


def test_bad_input_is_refused(tmp_path):
    (tmp_path / "t.txt").write_text("to be or not to be\n")
    (tmp_path / "bad.json").write_text('{"model": {"type": "BPE", "vocab": {"a": 0,}}}')
    p = nv("train", "t.txt", "12x", "1", "o.json", cwd=tmp_path, check=False)
    assert p.returncode == 2 and 'bpe_train: VOCAB "12x" is not a non-negative integer' in p.stderr
    p = nv("train", "t.txt", "100", "1", "o.json", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "bpe_train: VOCAB 100 is below the 256 byte tokens" in p.stderr
    p = nv("encode", "missing.json", "t.txt", "1", cwd=tmp_path, check=False)
    assert p.returncode == 2 and 'bpe_train: cannot open "missing.json"' in p.stderr
    p = nv("encode", "bad.json", "t.txt", "1", cwd=tmp_path, check=False)
    assert p.returncode == 2
    assert p.stderr.endswith("bpe_train: bad.json: json: line 1, column 44: Expecting property name "
                             "enclosed in double quotes\n")
    (tmp_path / "bad.json").write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}')
    p = nv("encode", "bad.json", "t.txt", "1", cwd=tmp_path, check=False)
    assert p.returncode == 2 and p.stderr.endswith("bpe_train: bad.json: the vocabulary lacks byte 0\n")
