"""Hints for the common slips of programmers coming from other languages (13.1): Python's
constants and range, a field without `self.`, a class called like a function."""
from __future__ import annotations

from .suggest import similar

PYTHON_CONSTANTS = {"True": "true", "False": "false", "None": "nil"}


def unknown_name_hint(ck, name: str, cands: list[str]) -> str | None:
    """The hint for the unknown variable `name`: Python's constants, a field of the class whose
    method this is, else a similar visible name."""
    if name in PYTHON_CONSTANTS:
        return f"did you mean '{PYTHON_CONSTANTS[name]}'?"
    owner = getattr(ck, "cur_class", None)
    if owner is not None and name in owner.field_index:
        return f"did you mean 'self.{name}'?"
    s = similar(name, cands)
    return f"did you mean '{s}'?" if s else None


def unknown_function_hint(name: str, cands: list[str]) -> str | None:
    if name == "range":
        return "count with for i = 0, i < n or the range loop [0..n] i"
    s = similar(name, cands)
    return f"did you mean '{s}'?" if s else None


def mix_hint(a, b) -> str:
    """The hint for unsigned and signed operands (4.2), naming both conversions."""
    u, other = (a, b) if a.name in ("u16", "u32", "u64") else (b, a)
    if other.name == "char":
        return f"a char operand is an int here (4.2): convert one side, {u}(...) or int(...)"
    return f"unsigned and signed integers do not mix: convert one side, {u}(...) or {other}(...)"
