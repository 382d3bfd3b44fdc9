/* The `tally` package of LANGUAGE.md 11.2. */
#ifndef TALLY_H
#define TALLY_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct counter counter;
counter* counter_create(int64_t start);
void counter_destroy(counter* c);
int64_t counter_bump(counter* c, int64_t by);
double tally__mean(const double* xs, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
