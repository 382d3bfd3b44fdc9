// Internal: what other concerns need to know about channels (printing, 10.1).
#pragma once
#include <cstdint>
#include "neve_rt.h"

const NvType* rt_chan_elem(const NvChan* c);   // the element descriptor given to nv_chan_new
int64_t rt_chan_cap(const NvChan* c);
int64_t rt_chan_handoffs(NvChan* c);           // operations completed for a parked thread (tests)
