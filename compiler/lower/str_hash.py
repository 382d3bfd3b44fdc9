"""The runtime's str hash (runtime_cpp/map/hash.cpp rt_hash_bytes, raised to >= 2 as
rt_str_hash caches it), computed at compile time for literals, whose constants are read-only."""
from __future__ import annotations

_M = (1 << 64) - 1
_P0, _P1, _P2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3


def _mum(a: int, b: int) -> int:
    r = a * b
    return (r & _M) ^ (r >> 64)


def _r8(p: bytes, i: int) -> int:
    return int.from_bytes(p[i:i + 8], "little")


def _r4(p: bytes, i: int) -> int:
    return int.from_bytes(p[i:i + 4], "little")


def hash_bytes(p: bytes) -> int:
    """rt_hash_bytes(p, len(p)), step for step."""
    n = len(p)
    seed = _P0 ^ _mum(n ^ _P1, _P2)
    if n <= 16:
        if n >= 4:
            q = (n >> 3) << 2
            a = (_r4(p, 0) << 32) | _r4(p, q)
            b = (_r4(p, n - 4) << 32) | _r4(p, n - 4 - q)
        elif n > 0:
            a, b = (p[0] << 16) | (p[n >> 1] << 8) | p[n - 1], 0
        else:
            a = b = 0
    else:
        i, o = n, 0
        if i > 48:
            s1 = s2 = seed
            while True:
                seed = _mum(_r8(p, o) ^ _P1, _r8(p, o + 8) ^ seed)
                s1 = _mum(_r8(p, o + 16) ^ _P2, _r8(p, o + 24) ^ s1)
                s2 = _mum(_r8(p, o + 32) ^ _P0, _r8(p, o + 40) ^ s2)
                o, i = o + 48, i - 48
                if i <= 48:
                    break
            seed ^= s1 ^ s2
        while i > 16:
            seed = _mum(_r8(p, o) ^ _P1, _r8(p, o + 8) ^ seed)
            o, i = o + 16, i - 16
        a, b = _r8(p, o + i - 16), _r8(p, o + i - 8)
    return _mum(_P1 ^ n, _mum(a ^ _P1, b ^ seed))


def str_hash(data: bytes) -> int:
    """The NvStr header's hash field for a string of these bytes, as a signed i64 constant."""
    h = hash_bytes(data)
    if h < 2:
        h += 2
    return h - (1 << 64) if h >= 1 << 63 else h
