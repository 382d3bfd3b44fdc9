/* const and non-const pointers to scalars, chars, void and pointers (11.3). */
#include <stdbool.h>

const char* greeting(void);
char* buffer(int n);
void fill(double* out, const double* in, long n);
void names(const char* const* list, char** out);
void* block_alloc(unsigned long size);
void block_copy(void* dst, const void* src);
int bytes_sum(const unsigned char* b, signed char* s, const bool* mask);
int* const counts(int* const* rows);
