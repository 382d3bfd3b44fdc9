// Internal: generic operations on values described by an NvType.
#pragma once
#include "neve_rt.h"

// Total order for sorting (4.3 order of numbers, char, bool, str; tuples, fixed arrays and
// arrays lexicographically). NaN sorts after every number. Unordered kinds are a runtime error.
int rt_value_cmp(const void* a, const void* b, const NvType* t);
// Equality of two values of type t (4.3): numbers by value (NaN unequal, -0.0 == 0.0), str by
// bytes, tuples and fixed arrays element-wise, references by identity; arrays element-wise
// unless arrays_by_identity (map keys compare arrays by identity, 3.4).
bool rt_value_eq(const void* a, const void* b, const NvType* t, bool arrays_by_identity);
