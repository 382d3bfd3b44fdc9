"""A warm compiler for the Neve edges of one `nsm build`.

Starting Python and importing the compiler and llvmlite costs several times what compiling a
typical module does, and ninja runs one process per build unit. So `nsm build` starts this
server before running ninja: it listens on a Unix socket at once, then imports and warms the
compiler; each request (one unit, from `nsm.build.neve_edge`) is served by a forked child,
which inherits the warm state, compiles, answers and exits. Concurrent requests run in
parallel children, so ninja's `-j` still decides the parallelism. The server serves one
build and is stopped when ninja ends; if it is not there, an edge compiles by itself.

    python -m nsm.build.compile_server SOCKET
Protocol: one JSON object per connection each way, then close (see `request`).
"""
from __future__ import annotations

import base64
import json
import os
import signal
import socket
import sys
from pathlib import Path


def _recv_all(conn: socket.socket) -> bytes:
    chunks = []
    while True:
        b = conn.recv(1 << 16)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def _serve_one(conn: socket.socket) -> None:
    from compiler.imports import ImportMap
    from compiler.unit import compile_unit
    req = json.loads(_recv_all(conn))     # the client shuts its write side after the request
    os.chdir(req["cwd"])
    res = compile_unit([Path(s) for s in req["sources"]], Path(req["nvi_dir"]),
                       ImportMap.read(Path(req["imports"])), release=req["release"])
    enc = lambda d: {k: base64.b64encode(v).decode() for k, v in d.items()}  # noqa: E731
    conn.sendall(json.dumps({"ok": res.ok, "exit_code": res.exit_code,
                             "diagnostics": res.diagnostics, "objects": enc(res.objects),
                             "interfaces": enc(res.interfaces), "ptx": res.ptx,
                             "warnings": res.warnings,
                             "interfaces_read": res.interfaces_read}).encode())


def _warm() -> None:
    """Import what a compile needs and build the target machine once, before forking."""
    import compiler.check.checker  # noqa: F401
    import compiler.lower.core  # noqa: F401
    import compiler.unit  # noqa: F401
    from compiler.backends import cpu
    cpu.target_machine()


def serve(path: str) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(64)             # connections wait here while the compiler warms up
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)    # children are reaped by the kernel
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    _warm()
    while True:
        conn, _ = sock.accept()
        if os.fork() == 0:
            sock.close()
            code = 0
            try:
                _serve_one(conn)
            except BaseException:  # noqa: BLE001 - the client falls back to compiling itself
                code = 1
            finally:
                conn.close()
                os._exit(code)
        conn.close()


def request(path: str, cwd: str, sources: list[str], nvi_dir: str, imports: str,
            release: bool) -> dict | None:
    """Ask the server at `path` to compile a unit; the decoded answer (bytes values for
    objects and interfaces, PTX text or None per module), or None when there is no server or
    it failed."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(path)
            s.sendall(json.dumps({"cwd": cwd, "sources": sources, "nvi_dir": nvi_dir,
                                  "imports": imports, "release": release}).encode())
            s.shutdown(socket.SHUT_WR)
            data = _recv_all(s)
        ans = json.loads(data)
    except (OSError, ValueError):
        return None
    for k in ("objects", "interfaces"):
        ans[k] = {n: base64.b64decode(v) for n, v in ans[k].items()}
    return ans


class Server:
    """The server process of one build (a context manager); `env` is what ninja's edges
    need to find it."""

    def __init__(self) -> None:
        import tempfile
        self.folder = tempfile.mkdtemp(prefix="nsm-cs-")   # short: socket paths are <= 107 bytes
        self.path = os.path.join(self.folder, "sock")
        self.proc = None

    def __enter__(self) -> "Server":
        import subprocess
        import time
        self.proc = subprocess.Popen([sys.executable, "-m", "nsm.build.compile_server", self.path],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not os.path.exists(self.path) and time.monotonic() < deadline and \
                self.proc.poll() is None:
            time.sleep(0.005)
        return self

    @property
    def env(self) -> dict[str, str]:
        return {"NSM_COMPILE_SERVER": self.path} if os.path.exists(self.path) else {}

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        import shutil
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    serve(sys.argv[1])
