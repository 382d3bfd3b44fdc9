// Internal helpers of the array concern (14.4).
#pragma once
#include <cstdint>
#include "neve_rt.h"

// A new array of len zeroed elements with room for cap (>= len).
NvArray* rt_array_make(const NvType* elem, int64_t len, int64_t cap);
// Room for at least `need` elements; grows the capacity at least twofold.
void rt_array_reserve(NvArray* a, int64_t need);
