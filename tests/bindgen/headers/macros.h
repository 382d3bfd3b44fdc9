/* Macros used in declarations are expanded by the preprocessor first. */
#include <stdint.h>

#define API __attribute__((visibility("default")))
#define REAL double
#define INDEX int64_t
#define DECLARE_GETTER(name, type) API type get_##name(void)
#define VEC_FN(op) API void vec_##op(REAL* out, const REAL* a, const REAL* b, INDEX n)

API REAL norm(const REAL* x, INDEX n);
DECLARE_GETTER(count, INDEX);
DECLARE_GETTER(ratio, REAL);
VEC_FN(add);
VEC_FN(mul);

#ifdef WITH_EXTRA
API int extra(int x);
#else
API int basic(int x);
#endif
