"""frost/csv (issue 24, part 3): records equal Python's csv module (strict) on a table of tricky
documents at 1-3 threads and tiny blocks, numbers equal float32(float(text)), malformed input
gets the located message of the first error in the file, and the MNIST digits written as CSV
train the MNIST MLP through the threaded Loader."""
from __future__ import annotations

import csv
import gzip
import io
import math
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from tests.frost.helpers import NSM

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "packages" / "frost" / "examples"
MNIST = ROOT / "packages" / "frost" / "data" / "mnist"
ENV = dict(os.environ, NSM_QUIET="1")


def run(example: str, *args, cwd: Path, code: int = 0) -> subprocess.CompletedProcess:
    p = subprocess.run([NSM, "run", str(EXAMPLES / example), *map(str, args)], cwd=cwd,
                       capture_output=True, timeout=600, env=ENV)
    assert p.returncode == code, p.stderr.decode()[-3000:]
    return p


def random_document(rows: int, seed: int, all_quoted: bool) -> bytes:
    """Fields with separators, quotes, LF, CRLF and CR inside, written by Python's csv module
    (which quotes only the line terminator's characters: CRLF lines unless all are quoted)."""
    rnd = random.Random(seed)
    alphabet = ["a", "b", " ", ",", '"', "\n", "\r\n", "\r", "é", "x" * 30, ""]
    out = io.StringIO(newline="")
    w = csv.writer(out, lineterminator="\n" if all_quoted else "\r\n",
                   quoting=csv.QUOTE_ALL if all_quoted else csv.QUOTE_MINIMAL)
    w.writerow(["id", "text", "more"])
    for i in range(rows):
        w.writerow([str(i)] + ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(6)))
                               for _ in range(2)])
    return out.getvalue().encode()


DOCS = {
    "simple": b"a,b,c\n1,2,3\n4,5,6\n",
    "quoted": b'a,b\n"x,y","1"\n"",z\n',
    "doubled": b'a,b\n"say ""hi""",""""\n"""",x\n',
    "newlines_in_quotes": b'a,b\n"line1\nline2","cr\r\nlf"\n"lone\rcr",2\n',
    "crlf": b"a,b\r\n1,2\r\n3,4\r\n",
    "cr_only": b"a,b\r1,2\r3,4\r",
    "no_final_newline": b'a,b\n1,2\n"3",4',
    "empty_fields": b'a,b,c\n,,\n1,,\n,,"" \n'.replace(b'"" ', b'""'),
    "blank_lines": b"a,b\n\n1,2\n\r\n\n3,4\n\n",
    "header_only": b"name,value\n",
    "utf8": "k,v\nnaïve,\"日本, 語\"\n".encode(),
    "random_minimal_crlf": random_document(3000, 1, False),
    "random_all_quoted_lf": random_document(1000, 2, True),
}


def python_records(doc: bytes) -> list[list[str]]:
    """Python's reading: strict, blank lines (empty records) left out as frost/csv does."""
    rows = csv.reader(io.StringIO(doc.decode(), newline=""), strict=True)
    return [r for r in rows if r]


def parse_dump(out: bytes) -> dict[str, list[list[str]]]:
    files, pos, cur = {}, 0, None
    while pos < len(out):
        nl = out.index(b"\n", pos)
        head = out[pos:nl].decode()
        pos = nl + 1
        if head.startswith("F "):
            cur = files.setdefault(head[2:], [])
            continue
        assert head.startswith("R "), head
        row = []
        for _ in range(int(head[2:])):
            sp = out.index(b" ", pos)
            n = int(out[pos:sp])
            row.append(out[sp + 1:sp + 1 + n].decode())
            pos = sp + 1 + n + 1
        cur.append(row)
    return files


@pytest.mark.parametrize("threads,block_rows", [(1, 256), (2, 1), (3, 7)])
def test_records_equal_python_csv(tmp_path, threads, block_rows):
    names = []
    for name, doc in DOCS.items():
        (tmp_path / f"{name}.csv").write_bytes(doc)
        names.append(f"{name}.csv")
    got = parse_dump(run("csv_dump.nv", threads, block_rows, *names, cwd=tmp_path).stdout)
    for name, doc in DOCS.items():
        assert got[f"{name}.csv"] == python_records(doc), name


NUMBERS = ["1", "-2.5", "1e3", "1.5E-7", ".5", "5.", "+3", "nan", "-inf", "Infinity", "",
           "0.1", "3.4028235e38", "123456789012345678901234", "1e-30", "0.000001234567891234",
           "9007199254740993", "-0", "2.5e+2"]


def test_numbers_equal_float32_of_python_float(tmp_path):
    import numpy as np
    rows = ["label,x,q"] + [f'{i},{s},"{s}"' for i, s in enumerate(NUMBERS)]
    (tmp_path / "n.csv").write_text("\n".join(rows) + "\n")
    out = run("csv_read.nv", "n.csv", 2, "label", "-", "print", cwd=tmp_path).stdout.decode()
    lines = out.splitlines()
    assert lines[0].startswith(f"rows {len(NUMBERS)} features 2 ")
    assert lines[2] == f"label_sum {sum(range(len(NUMBERS)))} int64 [{len(NUMBERS)}]"
    for i, (s, line) in enumerate(zip(NUMBERS, lines[3:])):
        label, values = line.split(" ", 1)
        assert int(label) == i
        want = np.float32(float(s) if s else math.nan)
        for v in values.strip("[]").split(", "):
            got = np.float32(float(v))
            assert (math.isnan(want) and math.isnan(got)) or got == want, (s, v)


BIG_VALID = "".join(f'{i},"t{i},\n""x"""\n' for i in range(2000))

# (document, message after "csv: FILE", Python's strict-mode error or, where Python accepts the
# document, the records it reads: RFC 4180 strictness and the rectangular table are frost/csv's).
MALFORMED = [
    ("unterminated", b'a,b\n1,2\n3,"abc\n', ':3: unterminated quoted field', "unexpected end of data"),
    ("after_quote", b'a,b\n"x"y,2\n', ":2: unexpected 'y' after the closing quote of a field",
     "',' expected after '\"'"),
    ("quote_in_field", b'a,b\nx"y,2\n',
     ":2: quote inside an unquoted field (RFC 4180: quote the whole field and double the quote)",
     [["a", "b"], ['x"y', "2"]]),
    ("too_many", b"a,b\n1,2\n1,2,3\n", ":3: record has more than 2 fields, the header has 2",
     [["a", "b"], ["1", "2"], ["1", "2", "3"]]),
    ("too_few", b'a,b\n"1\n2"\n', ":3: record has 1 field(s), the header has 2",
     [["a", "b"], ["1\n2"]]),
    ("empty", b"", ": empty file (no header row)", []),
    # the first error in the file wins, whichever thread finds which
    ("two_errors", ("id,t\n" + BIG_VALID + '1,"a"b\n' + BIG_VALID + '"zz\n').encode(),
     f":{2 + 4000}: unexpected 'b' after the closing quote of a field", "',' expected after '\"'"),
]


CASES = [(3, *m[1:]) for m in MALFORMED] + [(1, *MALFORMED[-1][1:])]


@pytest.mark.parametrize("threads,doc,message,python", CASES,
                         ids=[m[0] for m in MALFORMED] + ["two_errors_1_thread"])
def test_malformed_documents_get_located_errors(tmp_path, threads, doc, message, python):
    (tmp_path / "bad.csv").write_bytes(doc)
    p = run("csv_dump.nv", threads, 5, "bad.csv", cwd=tmp_path, code=1)
    assert p.stderr.decode().strip() == f"csv: bad.csv{message}"
    if isinstance(python, str):
        with pytest.raises(csv.Error, match=re.escape(python)):
            python_records(doc)
    else:
        assert python_records(doc) == python


def test_bad_values_and_columns_are_refused(tmp_path):
    (tmp_path / "v.csv").write_text("label,x\n1,2\n2,abc\n")
    p = run("csv_read.nv", "v.csv", 2, "label", cwd=tmp_path, code=1)
    assert p.stderr.decode().strip() == 'csv: v.csv:3: column "x": "abc" is not a number'
    (tmp_path / "l.csv").write_text("label,x\n1.5,2\n")
    p = run("csv_read.nv", "l.csv", 1, "label", cwd=tmp_path, code=1)
    assert p.stderr.decode().strip() == 'csv: l.csv:2: column "label": label "1.5" is not an integer'
    p = run("csv_read.nv", "v.csv", 1, "nope", cwd=tmp_path, code=1)
    assert p.stderr.decode().strip() == 'csv: v.csv: no column "nope" (columns: label, x)'
    p = run("csv_read.nv", "missing.csv", 1, "x", cwd=tmp_path, code=1)
    assert p.stderr.decode().strip() == "csv: missing.csv: cannot open: No such file or directory"


def idx(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def test_mnist_as_csv_trains_the_mlp(tmp_path):
    run("mnist_csv.nv", "write", "mnist.csv", cwd=tmp_path)
    images = idx(MNIST / "train-images-idx3-ubyte.gz")[16:]
    labels = idx(MNIST / "train-labels-idx1-ubyte.gz")[8:]
    rows = list(csv.reader(io.StringIO((tmp_path / "mnist.csv").read_text())))
    assert rows[0] == ["label"] + [f"p{j}" for j in range(784)]
    assert len(rows) == 1 + len(labels) == 8001
    for i in (0, 1, 4321, 7999):
        assert rows[1 + i] == [str(labels[i])] + [str(v) for v in images[784 * i:784 * (i + 1)]]
    out = run("mnist_csv.nv", "train", "mnist.csv", "epochs=1", "threads=2",
              cwd=tmp_path).stdout.decode()
    m = re.search(r"epoch 1 loss (\S+) test_accuracy (\S+)% images_per_s \d+ data_wait (\S+)%", out)
    assert m, out
    loss, acc, wait = map(float, m.groups())
    assert loss < 1.5 and acc > 80.0 and 0.0 <= wait < 100.0, out


def test_loader_batches_rows_in_file_order_every_epoch(tmp_path):
    rows = [(i % 3, i / 10, -i, f'"n,{i}\n"') for i in range(11)]
    (tmp_path / "t.csv").write_text("a,y,note,b\n" + "".join(
        f"{a},{y},{note},{b}\n" for y, a, b, note in rows))
    p = run("csv_batches.nv", "t.csv", 3, 2, 4, "y", "note", cwd=tmp_path)
    want = []
    for epoch in range(2):
        for k in range(0, 11, 4):
            batch = rows[k:k + 4]
            xs = [v for y, a, b, _ in batch for v in ((a * 10 - 1) / 2, (b * 10 - 1) / 2)]
            want.append(f"{epoch} [{len(batch)}, 1, 2] int64 {[y for y, *_ in batch]} "
                        f"[{', '.join(repr(float(v)) for v in xs)}]")
    assert p.stdout.decode().splitlines() == want + ["6 true"]
