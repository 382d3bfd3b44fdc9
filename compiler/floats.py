"""Exact rounding of decimal literal text to each float type (3.3: rounded once from the text)."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

# struct formats (value, bits) per storage type
_FORMATS = {"float": ("<f", "<I"), "half": ("<e", "<H")}


def _bits(v: float, name: str) -> int:
    if name == "bf16":
        return struct.unpack("<I", struct.pack("<f", v))[0] >> 16
    fmt, ifmt = _FORMATS[name]
    return struct.unpack(ifmt, struct.pack(fmt, v))[0]


def _value(bits: int, name: str) -> float:
    if name == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    fmt, ifmt = _FORMATS[name]
    return struct.unpack(fmt, struct.pack(ifmt, bits))[0]


def _narrow(v: float, name: str) -> float:
    """Round a double to the type (ties to even); inf when out of range."""
    if name == "bf16":
        b = struct.unpack("<I", struct.pack("<f", _narrow(v, "float")))[0]
        if (b & 0x7F800000) == 0x7F800000:
            return _value(b >> 16, "bf16")
        b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
        return _value(b, "bf16")
    try:
        return struct.unpack(_FORMATS[name][0], struct.pack(_FORMATS[name][0], v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def round_decimal(text: str, name: str) -> float:
    """The value of type `name` (float, f64, bf16, half) nearest the decimal `text`, ties to
    even, as a Python float holding that exact value (inf when out of range)."""
    d = float(text)
    if name == "f64" or math.isinf(d) or d == 0.0:
        return d if name == "f64" else _narrow(d, name)
    exact = Fraction(text)
    c = _narrow(d, name)
    if math.isinf(c):
        return c
    b = _bits(abs(c), name)
    sign = -1.0 if d < 0 else 1.0
    best, best_err = c, None
    for nb in (b - 1, b, b + 1):
        if nb < 0:
            continue
        cand = sign * _value(nb, name)
        if math.isinf(cand) or math.isnan(cand):
            continue
        err = abs(Fraction(cand) - exact)
        if best_err is None or err < best_err or (err == best_err and nb % 2 == 0):
            best, best_err = cand, err
    return best


def narrow(v: float, name: str) -> float:
    """Round an already computed double to the type (used by constant folding)."""
    return v if name == "f64" else _narrow(v, name)
