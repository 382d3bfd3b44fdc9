/* Unsigned results that an i64 mapping would not zero-extend (issue 15, fault 5). */
#include <stdint.h>
uint32_t wide_u32(void);
uint16_t wide_u16(uint16_t x);
uint64_t wide_u64(void);
