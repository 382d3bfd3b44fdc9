// Internal helpers of the map concern (3.4, 14.5).
#pragma once
#include <cstdint>
#include "neve_rt.h"

// Walks the live entries in insertion order without the modification check: returns the
// position after the next live entry at or after pos and points *key / *val at its slots, or
// -1 at the end. Used by printing.
int64_t rt_map_entry(const NvMap* m, int64_t pos, const void** key, const void** val);
const NvType* rt_map_key_type(const NvMap* m);
const NvType* rt_map_val_type(const NvMap* m);

// Key hashing and equality by descriptor (map key rules: str by bytes, numbers by value with
// -0.0 == 0.0 and NaN unequal to itself, references and any by identity, tuples element-wise).
uint64_t rt_key_hash(const void* p, const NvType* t);
bool rt_key_eq(const void* a, const void* b, const NvType* t);
// Hash of a byte string (wyhash-style; not cryptographic).
uint64_t rt_hash_bytes(const char* p, int64_t n);
