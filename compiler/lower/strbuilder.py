"""Lowering of StrBuilder (14.5) to the runtime's nv_sb_* functions."""
from __future__ import annotations

from .. import tir as T


class StrBuilderLowering:
    def bi_sb_new(self, e: T.Builtin):
        return self.rt("nv_sb_new")

    def sb_call(self, e: T.Builtin):
        m = e.name.split(".")[1]
        b = self.receiver(e, m)
        args = [self.expr(a) for a in e.args[1:]]
        return self.rt(f"nv_sb_{m}", b, *args)

    bi_sb_add = bi_sb_size = bi_sb_str = bi_sb_clear = sb_call
