/* Every scalar row of the 11.3 table, and scalars that have no Neve type. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

size_t buf_len(size_t cap, ssize_t used, ptrdiff_t d);
int64_t wide(int64_t a, long long b, long c, uint64_t d, uint32_t e);
int32_t narrow(int32_t a, int b, int16_t c, short d, uint16_t e);
int8_t tiny(int8_t a, signed char b, uint8_t c, unsigned char d, char e);
double reals(float a, double b, _Float16 c, __bf16 d, bool e);
unsigned int plain_unsigned(unsigned short a, unsigned long long b);
long double extended(double x);
void quad(__int128 x);
const uint32_t* crc_table(const uint16_t* in, size_t n, uintptr_t p, uint64_t** slots);
typedef unsigned long uLong;
typedef unsigned int uInt;
uLong checksum(uLong crc, const unsigned char* buf, uInt len);
