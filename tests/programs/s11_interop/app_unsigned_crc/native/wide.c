#include "wide.h"
uint32_t wide_u32(void) { return 4294967291u; }
uint16_t wide_u16(uint16_t x) { return (uint16_t)(x + 1); }
uint64_t wide_u64(void) { return 18446744073709551557ull; }
