"""Per-function lowering state, shared by the host lowering and the kernel targets."""
from __future__ import annotations

from llvmlite import ir

from .. import tir as T


class FuncState:
    """Per-function lowering state."""

    def __init__(self, sym: T.FuncSym, fn: ir.Function) -> None:
        self.sym = sym
        self.fn = fn
        self.vars: dict[T.Var, ir.Value] = {}
        self.frame: ir.Value | None = None
        self.info: ir.Value | None = None      # its NvFuncInfo, when one was made
        self.ret_slot: ir.Value | None = None
        self.exit_block: ir.Block | None = None
        # (continue target, break target, number of cleanups open when the loop began)
        self.loops: list[tuple[ir.Block, ir.Block, int]] = []
        self.cleanups: list = []      # exits of finish/lock blocks to run on return/break
        self.placeholder: ir.Value | None = None
        self.entry_builder: ir.IRBuilder | None = None
        self.unchecked: set[int] = set()   # ids of array accesses proven in range (loop_bounds)
        self.versioned = 0                 # loops being lowered twice around this point
        # (array var, bound key, inclusive, c): hi + c <= size() holds here (loop_bounds)
        self.known_bounds: set = set()
        # recursion unrolling (unroll.py): the levels per machine frame of this function and
        # where its direct self-calls go (the next clone, or f from the last)
        self.levels = 1
        self.self_call: ir.Function | None = None
