// Internal: generic operations on values described by an NvType.
#pragma once
#include "neve_rt.h"

// Total order for sorting (4.3 order of numbers, char, bool, str; tuples, fixed arrays and
// arrays lexicographically). NaN sorts after every number. Unordered kinds are a runtime error.
int rt_value_cmp(const void* a, const void* b, const NvType* t);
