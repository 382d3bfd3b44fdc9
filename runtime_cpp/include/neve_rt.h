/* neve_rt.h: the C ABI between compiled Neve code and the runtime (runtime_cpp/).
 *
 * The compiler (compiler/lower/) emits calls to exactly these functions; keep both in sync.
 * Conventions:
 *   - Reference values are pointers; NULL is nil. A NULL NvStr* is the empty string "".
 *   - Booleans cross the ABI as int32_t (0/1); chars and u8 as int32_t (0..255).
 *   - Functions documented "panics" never return on error: they print a runtime error
 *     (LANGUAGE.md 13.2) located at the innermost frame's current site and exit(1).
 *   - The compiler never passes NULL where a function says "non-nil": it checks first.
 */
#ifndef NEVE_RT_H
#define NEVE_RT_H

#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ type descriptors
 * Emitted by the compiler as constant globals for composite types; the runtime exports the
 * descriptors of primitive types. Used by generic printing, equality, sorting, arrays. */
enum NvKind {
    NV_INT = 1,   /* int / i64 */
    NV_I8, NV_I16, NV_I32, NV_U8,
    NV_FLOAT, NV_F64, NV_BF16, NV_HALF,
    NV_BOOL,      /* stored as one byte 0/1 */
    NV_CHAR,      /* one byte */
    NV_STR,       /* NvStr* */
    NV_ARRAY,     /* NvArray*; elems[0] = element type */
    NV_TUPLE,     /* inline struct; elems[i], offsets[i] */
    NV_FIXED,     /* T[N] inline; elems[0], count = N */
    NV_MAP,       /* elems[0] = K, elems[1] = V (issue 3) */
    NV_CLASS,     /* object pointer; name = class name (issue 3) */
    NV_CHANNEL,   /* (issue 4) */
    NV_FUNCTION,  /* function pointer */
    NV_BUFFER,    /* T[] (issue 7) */
    NV_ANY,
    NV_FOREIGN,   /* a raw handle (File; a void* from C: name "foreign pointer") */
    NV_FOREIGN_REF, /* opaque C type (11.2): NvForeign*, compared, hashed, printed by addr */
    NV_U16, NV_U32, NV_U64  /* unsigned, zero-extended (issue 15); last, so older kinds keep their numbers */
};

typedef struct NvType {
    int32_t kind;                       /* enum NvKind */
    int32_t size;                       /* bytes one value occupies in memory (array slot) */
    int32_t count;                      /* tuple: number of elements; fixed: N; else 0 */
    int32_t has_ptrs;                   /* 1 if a value may contain GC pointers */
    const struct NvType* const* elems;  /* see NvKind */
    const int64_t* offsets;             /* tuple element byte offsets */
    const char* name;                   /* class / foreign type name, or the type's spelling */
    const void* to_str;                 /* classes: NvStr* (*)(void* self) for print, or NULL */
    const struct NvType* base;          /* classes: the base class's descriptor (7.5), or NULL */
} NvType;

extern const NvType nv_type_int, nv_type_i8, nv_type_i16, nv_type_i32, nv_type_u8,
    nv_type_u16, nv_type_u32, nv_type_u64, nv_type_float, nv_type_f64, nv_type_bf16, nv_type_half, nv_type_bool, nv_type_char,
    nv_type_str;

/* ------------------------------------------------------------------ values */
typedef struct NvStr {
    int64_t len;
    const char* data;                   /* not NUL-terminated in general */
    uint64_t hash;                      /* the bytes' hash (>= 2) once computed, else 0 */
} NvStr;

typedef struct NvArray {
    int64_t len;
    int64_t cap;
    char* data;                         /* len * elem->size bytes in use */
    const NvType* elem;
} NvArray;

/* ------------------------------------------------------------------ frames and errors
 * Every Neve function that may raise a runtime error keeps an NvFrame on its native stack,
 * linked through the thread-local nv_top_frame (initial-exec TLS). Before each call and each
 * check, the compiled code stores the current site: (line << 32) | col. */
typedef struct NvFuncInfo {
    const char* name;                   /* "average", "main", "Account.deposit" */
    const char* file;                   /* source path as shown in diagnostics */
} NvFuncInfo;

typedef struct NvFrame {
    struct NvFrame* prev;
    const NvFuncInfo* fn;
    int64_t site;
} NvFrame;

extern __thread NvFrame* nv_top_frame __attribute__((tls_model("initial-exec")));

/* A foreign call in progress (debug builds): the compiled code points nv_foreign_site at a
 * constant before each call of a proto and restores the previous value after it (a C-ABI entry
 * back into Neve clears it), so a fault inside C is reported at the Neve call site, naming the
 * foreign function. `caller` is the calling function's info (its NvFrame's, when it keeps one). */
typedef struct NvForeignSite {
    const char* name;                   /* the C function */
    const NvFuncInfo* caller;
    int64_t site;                       /* (line << 32) | col of the call */
} NvForeignSite;

extern __thread const NvForeignSite* nv_foreign_site __attribute__((tls_model("initial-exec")));

/* Print "file:line:col: runtime error: MSG", the trace ("  at fn (file:line:col)", innermost
 * first), flush stdout first, exit(1). */
void nv_panic(const char* msg) __attribute__((noreturn));
void nv_panic_str(const NvStr* msg) __attribute__((noreturn));
/* "index 7 out of range for array of length 5"; what: 0 array, 1 str, 2 fixed array */
void nv_panic_index(int64_t idx, int64_t len, int32_t what) __attribute__((noreturn));
/* "integer division by zero" (modulo = 0) or "integer modulo by zero" (modulo = 1) */
void nv_panic_divzero(int32_t modulo) __attribute__((noreturn));
/* "called NAME() on nil TYPE" */
void nv_panic_nil_call(const char* method, const char* type) __attribute__((noreturn));
/* Recursive functions compare their stack pointer with this on entry (0 until known) and
 * call nv_panic_stack below it, so an overflow is reported in the recursing function. */
extern __thread uintptr_t nv_stack_limit __attribute__((tls_model("initial-exec")));
/* "stack overflow" located at fn's site; has_frame: whether fn keeps an NvFrame; each machine
 * frame of the function at `code` runs `levels` activations (unrolled recursion) */
void nv_panic_stack(const NvFuncInfo* fn, int64_t site, int32_t has_frame, const void* code,
                    int32_t levels) __attribute__((noreturn));
/* "assertion failed: MSG" (just "assertion failed" when msg is empty) */
void nv_assert_fail(const NvStr* msg) __attribute__((noreturn));

/* ------------------------------------------------------------------ process */
/* Called first by the generated C `main`: GC_INIT, stack-overflow handler (sigaltstack +
 * SIGSEGV on the guard page -> "stack overflow" runtime error), stdout buffering, argv. */
void nv_init(int argc, char** argv);
/* Called when Neve `main` returns: flush stdout; returns the process exit status (0). */
int nv_finish(void);
void nv_exit(int64_t code) __attribute__((noreturn));   /* flush, exit(code) at once */
void nv_flush(void);
NvArray* nv_argv(void);                                   /* array<str>, [0] = program path */
NvStr* nv_getenv(const NvStr* name, const NvStr* dflt);

/* ------------------------------------------------------------------ memory (bdwgc) */
void* nv_alloc(int64_t size);            /* zeroed, may hold pointers */
void* nv_alloc_atomic(int64_t size);     /* zeroed, never scanned */

/* ------------------------------------------------------------------ formatting and printing
 * A NvBuf lives on the caller's stack (the compiler allocas NV_BUF_SIZE bytes, 8-aligned);
 * nv_buf_init must be called first; write/to_str release its heap part. */
#define NV_BUF_SIZE 256
typedef struct NvBuf {
    char* data;
    int64_t len;
    int64_t cap;
    char small[NV_BUF_SIZE - 24];
} NvBuf;

void nv_buf_init(NvBuf* b);
void nv_fmt_i64(NvBuf* b, int64_t v);          /* also i8..i32 (sign-extended), u8..u32 (zext) */
void nv_fmt_u64(NvBuf* b, uint64_t v);
void nv_fmt_f32(NvBuf* b, float v);            /* shortest round-trip text of the float (10.1) */
void nv_fmt_f64(NvBuf* b, double v);
void nv_fmt_bool(NvBuf* b, int32_t v);         /* true / false */
void nv_fmt_char(NvBuf* b, int32_t c);         /* the byte itself */
void nv_fmt_str(NvBuf* b, const NvStr* s);     /* its bytes; "" for NULL */
void nv_fmt_cstr(NvBuf* b, const char* s);     /* NUL-terminated literal text */
/* Any value by descriptor, as print shows it (arrays [1, 2], tuples (1, "x"), str elements
 * quoted with escapes, char elements in single quotes). p points at the value in memory
 * (for NV_STR/NV_ARRAY: at the pointer). */
void nv_fmt_value(NvBuf* b, const void* p, const NvType* t);
/* Write the buffer (plus '\n' if newline) in one piece: fd 1 = stdout (buffered, thread-safe),
 * fd 2 = stderr (stdout flushed first). Releases the buffer. */
void nv_buf_write(NvBuf* b, int32_t newline, int32_t fd);
NvStr* nv_buf_to_str(NvBuf* b);               /* new string; releases the buffer */

/* ------------------------------------------------------------------ strings (14.5, 14.6) */
NvStr* nv_str_new(const char* data, int64_t len);        /* copies */
NvStr* nv_str_concat(const NvStr* a, const NvStr* b);
int32_t nv_str_eq(const NvStr* a, const NvStr* b);
int32_t nv_str_cmp(const NvStr* a, const NvStr* b);      /* <0, 0, >0 bytewise */
int32_t nv_str_at(const NvStr* s, int64_t i);            /* checked index (negatives from end); panics */
/* Slice: missing lo is 0, missing hi is INT64_MAX; negatives count from the end; clamped. */
NvStr* nv_str_slice(const NvStr* s, int64_t lo, int64_t hi);
NvArray* nv_str_split(const NvStr* s, const NvStr* sep); /* empty fields kept; empty sep panics */
NvArray* nv_str_split_ws(const NvStr* s);
NvStr* nv_str_strip(const NvStr* s);
NvStr* nv_str_lstrip(const NvStr* s);
NvStr* nv_str_rstrip(const NvStr* s);
int32_t nv_str_startswith(const NvStr* s, const NvStr* p);
int32_t nv_str_endswith(const NvStr* s, const NvStr* p);
int64_t nv_str_find(const NvStr* s, const NvStr* sub, int64_t start);
int64_t nv_str_count(const NvStr* s, const NvStr* sub);
NvStr* nv_str_replace(const NvStr* s, const NvStr* old, const NvStr* neu);
NvStr* nv_str_lower(const NvStr* s);
NvStr* nv_str_upper(const NvStr* s);
NvStr* nv_str_repeat(const NvStr* s, int64_t n);   /* s * n, n >= 0 */
/* StrBuilder (14.5): add appends a string's bytes (the compiler formats other values first) */
typedef struct NvStrBuilder NvStrBuilder;
NvStrBuilder* nv_sb_new(void);
void nv_sb_add(NvStrBuilder* b, const NvStr* s);
int64_t nv_sb_size(const NvStrBuilder* b);
NvStr* nv_sb_str(const NvStrBuilder* b);
void nv_sb_clear(NvStrBuilder* b);
NvStr* nv_str_join(const NvStr* sep, const NvArray* parts);   /* parts: array<str>, non-nil */
/* Parsing (14.6); panics with e.g. `to_int: invalid integer "12x"`. */
int64_t nv_to_int(const NvStr* s);
float nv_to_float(const NvStr* s);
double nv_to_f64(const NvStr* s);

/* ------------------------------------------------------------------ arrays (14.4)
 * All take non-nil arrays (the compiler checks nil first). Slots are elem->size bytes. */
NvArray* nv_array_new(const NvType* elem, int64_t len);      /* len zeroed elements */
void* nv_array_push(NvArray* a);           /* grow by one zeroed slot at the end; its address */
void nv_array_grow(NvArray* a);            /* make room for one more element (cap > len after) */
void* nv_array_insert(NvArray* a, int64_t i); /* open a zeroed slot at i (0..len, negatives from end); panics */
void nv_array_extend(NvArray* a, const NvArray* b);
void nv_array_pop(NvArray* a, void* out);  /* copy last into out, shrink; "pop from empty array" */
void nv_array_remove_at(NvArray* a, int64_t i, void* out);   /* checked index; panics */
void nv_array_clear(NvArray* a);
NvArray* nv_array_clone(const NvArray* a);
NvArray* nv_array_slice(const NvArray* a, int64_t lo, int64_t hi); /* as nv_str_slice */
int64_t nv_array_index(const NvArray* a, const void* v);     /* -1 if absent; equality as 4.3 */
void nv_array_reverse(NvArray* a);
void nv_array_sort(NvArray* a);            /* numbers, char, str, bool ascending; stable */
/* sort(key = f, reverse) and sort(less = f, reverse), stable (14.4). fn is the Function value;
 * the compiler's adapters call it: key stores f(*elem) at out, less returns f(*x, *y).
 * With key NULL the elements are their own keys (kt unused). */
typedef void (*NvSortKey)(const void* fn, const void* elem, void* out);
typedef int32_t (*NvSortLess)(const void* fn, const void* x, const void* y);
void nv_array_sort_key(NvArray* a, const void* fn, NvSortKey key, const NvType* kt, int32_t reverse);
void nv_array_sort_less(NvArray* a, const void* fn, NvSortLess less, int32_t reverse);
/* reduce/scan over numeric elements; op: 0 '+', 1 '*', 2 min, 3 max. reduce writes one element
 * to out ("min of empty array" / "max of empty array" for empty min/max). */
void nv_array_reduce(const NvArray* a, int32_t op, void* out);
NvArray* nv_array_scan(const NvArray* a, int32_t op);
/* equality of two values of type t (arrays: lengths and elements; tuples: elements; str: bytes;
 * numbers by value; other references by identity) */
int32_t nv_value_eq(const void* a, const void* b, const NvType* t);

NvArray* nv_arange_int(int64_t a, int64_t b, int64_t step);   /* step 0 panics */
NvArray* nv_arange_float(float a, float b, float step);
NvArray* nv_fill_int(int64_t n, int64_t v);    /* zeros_int / ones_int */
NvArray* nv_fill_float(int64_t n, float v);

/* ------------------------------------------------------------------ numbers */
int64_t nv_pow_i64(int64_t a, int64_t b);     /* b < 0 panics "negative exponent in pow" */
float nv_bf16_to_f32(int32_t bits);
int32_t nv_f32_to_bf16(float v);              /* round to nearest even */

/* ------------------------------------------------------------------ time (14.2) */
void nv_start_timer(void);
float nv_end_timer(void);                     /* prints "Elapsed time: S seconds." ms returned */
double nv_clock(void);
double nv_time(void);
void nv_sleep(double seconds);

/* ------------------------------------------------------------------ additions (runtime side)
 * Storage types print in their own precision (10.1); half conversions for code that does not
 * use LLVM's half type. */
void nv_fmt_bf16(NvBuf* b, int32_t bits);     /* shortest text that reads back as the same bf16 */
void nv_fmt_half(NvBuf* b, int32_t bits);     /* same for IEEE binary16 */
float nv_half_to_f32(int32_t bits);
int32_t nv_f32_to_half(float v);              /* round to nearest even */

/* Threads other than main call nv_sigstack_attach first (alternate signal stack and the stack
 * bounds the overflow handler needs) and nv_sigstack_detach before they end. */
void nv_sigstack_attach(void);
void nv_sigstack_detach(void);
/* A line printed after this thread's error trace, e.g. "in thread tid=2 started at a.nv:30:9"
 * (13.2); the caller keeps the text alive; NULL for none. */
void nv_set_thread_origin(const char* line);


/* ------------------------------------------------------------------ maps (3.4, 14.5)
 * Insertion-ordered hash map: entries in insertion order with tombstones, an open-addressed
 * index, and a modification counter checked by iteration. Keys compare by descriptor: str by
 * bytes, numbers/char/bool by value (a NaN key is never found), classes, foreign and any by
 * identity. Slots are key->size / val->size bytes; `key` arguments point at a key value. */
typedef struct NvMap NvMap;
NvMap* nv_map_new(const NvType* key, const NvType* val);
void* nv_map_find(NvMap* m, const void* key);       /* value slot, or NULL when absent */
void* nv_map_get(NvMap* m, const void* key);        /* value slot; panics `key not found: "x"` */
void* nv_map_slot(NvMap* m, const void* key);       /* value slot, inserting a zeroed one (last) if absent */
void* nv_map_upsert(NvMap* m, const void* key, int32_t* fresh); /* nv_map_slot; *fresh = 1 if it inserted */
int32_t nv_map_remove(NvMap* m, const void* key);   /* 1 if it was present */
int64_t nv_map_size(const NvMap* m);
NvArray* nv_map_keys(const NvMap* m);
NvArray* nv_map_values(const NvMap* m);
void nv_map_clear(NvMap* m);
/* Iteration: pos starts at 0; returns the position after the next live entry and copies its
 * key to key_out, or -1 at the end. `mod` is nv_map_mod at loop start: a different count is
 * the runtime error `map modified during iteration`. */
int64_t nv_map_mod(const NvMap* m);
int64_t nv_map_next(const NvMap* m, int64_t pos, int64_t mod, void* key_out);

/* ------------------------------------------------------------------ f-string specs (10.3)
 * align: 0 default ('>' for numbers, '<' otherwise), '<' or '>'; zero: pad numbers with '0'
 * after the sign; width: minimum width (0 none); prec: -1 when absent; type: 0, 'd', 'x', 'f',
 * 'e'. `f`/`e` format the exact binary value (round half to even, as printf). */
void nv_fmt_int_spec(NvBuf* b, int64_t v, int32_t is_unsigned, int32_t align, int32_t zero,
                     int32_t width, int32_t type);
void nv_fmt_float_spec(NvBuf* b, double v, int32_t align, int32_t zero, int32_t width,
                       int32_t prec, int32_t type);
/* Pad the text appended since byte offset `start` to `width` (align '<', '>'; 0 = '<'). */
void nv_fmt_pad(NvBuf* b, int64_t start, int32_t align, int32_t width);
int64_t nv_buf_len(const NvBuf* b);
/* (runtime addition) Pad number text appended since `start` as a number field: align 0/'>'
 * right, '<' left; zero (with right alignment) inserts '0's after a leading '-' (not for inf
 * and nan). For float types other than f64 without a spec type: nv_fmt_f32/bf16/half first. */
void nv_fmt_pad_num(NvBuf* b, int64_t start, int32_t align, int32_t zero, int32_t width);

/* ------------------------------------------------------------------ random (14.3)
 * One xoshiro256** generator per thread; the main one is seeded from the OS unless seed() is
 * called. nv_rng_fork gives a child thread's seed from the parent's generator (issue 4). */
void nv_seed(int64_t s);
int64_t nv_randint(int64_t lo, int64_t hi);         /* uniform in [lo, hi]; lo > hi panics */
float nv_randu(float lo, float hi);                 /* uniform in [lo, hi) */
float nv_randn(float mean, float std);              /* normal (Box-Muller or ziggurat) */
NvArray* nv_randint_array(int64_t n, int64_t lo, int64_t hi);
NvArray* nv_randfloat_array(int64_t n, float lo, float hi);
void nv_array_shuffle(NvArray* a);                  /* Fisher-Yates with the thread's generator */
uint64_t nv_rng_fork(void);
void nv_rng_adopt(uint64_t seed);

/* ------------------------------------------------------------------ per-thread slots
 * 16 int slots per thread, 0 when the thread starts (thread_slot_get / thread_slot_set);
 * a slot outside [0, 16) panics. */
int64_t nv_thread_slot_get(int64_t k);
void nv_thread_slot_set(int64_t k, int64_t v);

/* ------------------------------------------------------------------ files (14.7)
 * A File handle is an opaque pointer (NULL when opening failed). Failed reads/writes are
 * runtime errors naming the path, e.g. `cannot open file "x.txt"`. */
void* nv_file_open(const NvStr* path, const NvStr* mode);   /* mode "r", "w", "a"; else panics */
NvStr* nv_file_readline(void* f);                   /* next line without '\n' ("" at end) */
int32_t nv_file_eof(void* f);
NvStr* nv_file_read_all(void* f);
void nv_file_write(void* f, const NvStr* s);
void nv_file_close(void* f);                        /* idempotent */
NvStr* nv_read_file(const NvStr* path);
NvArray* nv_read_lines(const NvStr* path);          /* array<str>, no trailing empty line */
NvArray* nv_read_bytes(const NvStr* path);          /* array<u8> */
void nv_write_file(const NvStr* path, const NvStr* text);
int32_t nv_file_exists(const NvStr* path);
int32_t nv_dir_exists(const NvStr* path);
NvArray* nv_glob(const NvStr* pattern);             /* sorted array<str>; no match: empty */
/* 14.7, file/dirs.cpp: failures are runtime errors naming the path and the reason */
void nv_remove_file(const NvStr* path);
void nv_rename(const NvStr* from, const NvStr* to);
void nv_make_dir(const NvStr* path, int32_t parents);
void nv_remove_dir(const NvStr* path);             /* empty folders only */
NvArray* nv_list_dir(const NvStr* path);            /* names, sorted */
NvStr* nv_temp_dir(void);                           /* a new private folder */

/* ------------------------------------------------------------------ objects and dynamic types
 * A class object is a collected struct whose first word points at its class's vtable, whose
 * first entry is the class's descriptor (7.5: the dynamic class); then come the fields, the
 * bases' first. An NV_CLASS value in memory is the object pointer; the dynamic class's to_str
 * (if any) renders it. Function values
 * point at a constant NvFuncValue. `any` is two words, NvAny {value, dynamic type}: the
 * compiler boxes the static type on conversion; descriptors are unique per type program-wide
 * (the compiler emits them with one mangled name each), so a cast compares pointers. */
/* ------------------------------------------------------------------ foreign calls (11)
 * A value of an opaque C type is a collected wrapper of the C address, never of NULL (nil).
 * Owned pointers (T_create, `# neve: owned`) get a finalizer calling destroy(addr) at most
 * once, on a runtime thread. */
typedef struct NvForeign {
    void* addr;
    void (*destroy)(void*);                         /* T_destroy of an owned pointer, or NULL */
} NvForeign;
extern const NvType nv_type_cptr;                   /* dynamic type "foreign pointer" (3.4) */
NvForeign* nv_foreign_wrap(void* addr, void (*destroy)(void*));   /* NULL -> NULL */
NvForeign* nv_cstruct_new(int64_t size);   /* zero-filled C struct, collected with its wrapper */
char* nv_str_cstr(const NvStr* s);                  /* NUL-terminated collected copy */
NvStr* nv_str_from_cstr(const char* p);             /* copy; NULL -> "" */
void* nv_any_to_c(const void* value, const NvType* held);          /* unwraps foreign refs */
/* Called first by every C-ABI trampoline (a Neve function C calls back): a thread that C
 * created is registered with the collector on its first call into Neve (and unregistered when
 * it ends); its tid is -1 and it is outside the deadlock accounting of 9.6. */
void nv_foreign_enter(void);
NvForeign* nv_any_to_foreign(const void* value, const NvType* held);   /* unchecked (3.3) */

typedef struct NvAny {
    const void* value;                              /* the reference, NULL for nil */
    const NvType* type;                             /* its dynamic type, NULL for nil */
} NvAny;
typedef struct NvFuncValue {
    void* fn;                                       /* the callable entry */
    const char* name;                               /* printed as <function NAME> */
} NvFuncValue;
/* Global instances (7.3): the creation chain for `global initialization cycle: $A -> $B -> $A`,
 * and a collector root for each global's slot. */
void nv_global_push(const char* name);
void nv_global_pop(void);
void nv_global_cycle(const char* name) __attribute__((noreturn));
void nv_gc_root(void** slot);
/* "failed cast: any holds X, not C" (X = the held type's name, `nil`, `foreign pointer`) */
void nv_panic_cast(const NvType* held, const NvType* want) __attribute__((noreturn));
/* 7.5: the dynamic class of a non-nil object; whether class `t` is `want` or a subclass of it
 * (checked casts and isa); "failed cast: Layer holds Conv, not Scale" (the static type first) */
const NvType* nv_dyn_type(const void* obj);
int32_t nv_type_extends(const NvType* t, const NvType* want);
void nv_panic_class_cast(const NvType* stat, const void* obj, const NvType* want)
    __attribute__((noreturn));

/* ------------------------------------------------------------------ threads (9.1-9.3, 9.6)
 * Thread bodies are compiled to `void body(void* env)`; env is a collected object holding the
 * captured values the starting thread copied (9.2). Each thread knows its tid/tN (9.1) through
 * these initial-exec TLS variables (main: 0 and 1). */
extern __thread int64_t nv_tid __attribute__((tls_model("initial-exec")));
extern __thread int64_t nv_tN __attribute__((tls_model("initial-exec")));
int64_t nv_thw(void);                              /* hardware threads (tHW) */

/* A finish scope (9.1) lives on the stack of the thread that opens it: the compiler allocas
 * NV_FINISH_SIZE bytes (8-aligned). Threads started while it is the innermost open finish of
 * the starting thread -- and threads they start, unless an inner finish waits for them --
 * are waited for by nv_finish_end. main runs inside an implicit finish (nv_init/nv_finish). */
#define NV_FINISH_SIZE 64
void nv_finish_begin(void* f);
void nv_finish_end(void* f);                       /* waits (a deadlock-detector wait) */

/* Start one user thread running body(env) with the given tid/tN. detached (spawn, 9.1): no
 * finish waits for it, its body runs inside a finish of its own, and it stops when the
 * program ends. origin: "in thread tid=%d started at FILE:LINE:COL"-style location text of
 * the async/asyncs/spawn statement (FILE:LINE:COL, static). The child's random generator is
 * seeded from the parent's (14.3). Threads are created through the collector. */
void nv_spawn(void (*body)(void*), void* env, int64_t tid, int64_t tN, int32_t detached,
              const char* origin, const char* kind);  /* kind: "async", "asyncs", "spawn" */
void nv_check_thread_count(int64_t n);             /* n < 0: "asyncs with negative count -1" */
/* Split argument (9.3) for thread t of n: mode '>' balanced contiguous chunk, ':' strided. */
NvArray* nv_split_chunk(const NvArray* v, int64_t t, int64_t n, int32_t mode);
/* (runtime addition) Same, with the element descriptor for a nil v, whose chunks are then
 * empty arrays of that element type (nv_split_chunk gives them no descriptor: appending to
 * them fails). */
NvArray* nv_split_chunk_elem(const NvArray* v, int64_t t, int64_t n, int32_t mode,
                             const NvType* elem);
/* (runtime addition) Wait for main's implicit finish now, as nv_finish does first. Compiled
 * main may call it at the end of its body while its NvFrame is still pushed, so a deadlock
 * there is reported at main's location (from nv_finish it has none). */
void nv_main_wait(void);

/* ------------------------------------------------------------------ locks (9.4)
 * Re-entrant program-wide mutexes by name, or one per object (by address; NULL panics). The
 * compiler unlocks on every exit from the block. Waiting for a lock is a deadlock-detector wait. */
void nv_lock_name(const char* name);
void nv_unlock_name(const char* name);
void nv_lock_obj(const void* obj);
void nv_unlock_obj(const void* obj);

/* ------------------------------------------------------------------ channels (9.5, 9.6)
 * Bounded MPMC FIFO of elem->size-byte items; blocked threads sleep. The compiler checks nil
 * (`send on nil channel` / `receive on nil channel`) before calling. Blocking operations are
 * deadlock-detector waits, reported with the waiting frame's site. */
typedef struct NvChan NvChan;
NvChan* nv_chan_new(const NvType* elem, int64_t cap);   /* cap < 1 panics */
void nv_chan_send(NvChan* c, const void* item);    /* "send on closed channel" */
int32_t nv_chan_try_send(NvChan* c, const void* item); /* ch.send(v): 0 once closed */
int32_t nv_chan_recv(NvChan* c, void* out);        /* 1 item; 0 closed and drained (out zeroed) */
void nv_chan_close(NvChan* c);                     /* idempotent */
int32_t nv_chan_alive(const NvChan* c);
int64_t nv_chan_size(const NvChan* c);
void nv_chan_sum(NvChan* c, void* out);            /* drain and add (numeric elem); 0 if empty */


/* ------------------------------------------------------------------ kernels (12, issue 7)
 * One nv_kernel constant per `kernel` function. cpu runs one block on the CPU back end; ptx is
 * the NUL-terminated PTX text of the kernel's module (shared by the module's kernels) and entry
 * its `.entry` name. ptx "" (or NULL): no GPU code, and entry says why (NVPTX lowering failed,
 * libdevice missing); a launch on the GPU back end then reports it as a runtime error.
 * The guard lets the kernel concern and the CUDA glue each carry this block. */
#ifndef NV_KERNEL_TYPES_DEFINED
#define NV_KERNEL_TYPES_DEFINED
typedef struct nv_block { int64_t grid[3], block[3], idx[3]; void* smem; } nv_block;
typedef struct nv_kernel {
    const char* name;
    void (*cpu)(void** args, const nv_block* b);
    const char* ptx;
    const char* entry;
} nv_kernel;
#endif

/* ------------------------------------------------------------------ CUDA glue (12.4, 14.8)
 * runtime_cpp/cuda/: the CUDA driver API loaded with dlopen at run time (no link-time CUDA
 * dependency). Every call but nv_cuda_active requires nv_cuda_active() to be true. Each Neve
 * thread has its own stream, so launches are asynchronous and in order per thread. Errors are
 * runtime errors naming the kernel and its launch site. */
/* A GPU is in use: libcuda.so.1 loads, cuInit succeeds, a device exists, NEVE_DEVICE is not
 * "cpu" (NEVE_DEVICE=cuda:N picks device N). Decided once, thread-safe. LLVM: `i1 zeroext`. */
bool nv_cuda_active(void);
/* Zeroed device memory from the caching allocator (cuda/alloc.cpp); bytes <= 0 gives NULL. */
void* nv_cuda_alloc(int64_t bytes);
void nv_cuda_free(void* p);              /* to the allocator's cache; NULL is ignored */
int64_t nv_cuda_memory_allocated(void);  /* bytes in live blocks (size classes) */
int64_t nv_cuda_memory_reserved(void);   /* live and cached bytes held from the driver */
int64_t nv_cuda_max_memory_allocated(void);
void nv_cuda_empty_cache(void);          /* cached blocks back to the driver */
bool nv_cuda_owns(const void* p);        /* p lies in a live block of the allocator */
/* Events for timing on the calling thread's stream: a handle, and the milliseconds between
 * two recorded events (waits for the later one). */
void* nv_cuda_event_record(void);
double nv_cuda_event_elapsed_ms(void* start, void* end);
/* Copies bytes in any direction (unified addressing) after the calling thread's launches. */
void nv_cuda_copy(void* dst, const void* src, int64_t bytes);
/* Launch k with args[i] pointing at parameter i's value; grid/block dimensions (a zero grid
 * dimension launches nothing), smem dynamic shared bytes; site is "FILE:LINE:COL" text. */
void nv_cuda_launch(const nv_kernel* k, void** args, const int64_t grid[3],
                    const int64_t block[3], int64_t smem, const char* site);
void nv_cuda_sync(void);                 /* waits for the calling thread's launches */
/* The calling thread's CUstream (created on first use, its context made current), for
 * libraries that take a stream, such as cuBLAS. */
void* nv_cuda_stream(void);
/* Pinned host memory (cuda/pinned.cpp): zeroed collected memory registered with the driver
 * (unregistered when collected; plain host memory without a GPU); whether p lies in such a
 * block; a copy from a pinned block enqueued on the calling thread's stream without waiting
 * (false, copying nothing, when src is not pinned); the wait for a block's last such copy. */
void* nv_cuda_pinned_alloc(int64_t bytes);
bool nv_cuda_is_pinned(const void* p);
bool nv_cuda_copy_async(void* dst, const void* src, int64_t bytes);
void nv_cuda_pinned_wait(const void* p);
/* Explicit launch streams (docs/phase2.md): a new non-blocking stream; a launch on it; waiting
 * for it. Copies, nv_cuda_sync and the allocator's reuse of freed memory first wait for every
 * explicit stream that has launches not yet waited for. */
void* nv_cuda_stream_new(void);
void nv_cuda_launch_on(const nv_kernel* k, void** args, const int64_t grid[3],
                       const int64_t block[3], int64_t smem, void* stream, const char* site);
void nv_cuda_stream_sync(void* stream);

/* ------------------------------------------------------------------ CPU back end and buffers
 * (12.3, 12.4, 14.8; runtime_cpp/kernel/). The compiler emits each kernel's nv_kernel followed
 * by a flags word; `cpu` runs one block with no frames and no checks. */
#define NV_KERNEL_SHUFFLES 1               /* uses shuffles: blocks of a multiple of 32 threads */
/* params: the kernel's parameters as "x,,y", buffer parameters by name and others empty; on the
 * GPU each buffer argument must be device memory (or pinned host memory), else a runtime error
 * names the kernel and the parameter. */
typedef struct nv_kernel_desc { nv_kernel k; int64_t flags; const char* params; } nv_kernel_desc;
/* Checks the launch (runtime errors located at the caller's site: `block of 2048 threads
 * exceeds 1024`, negative grid dimensions or shared-memory size); a zero grid dimension
 * launches nothing. Runs on the GPU when nv_cuda_active() and k->ptx, else on the CPU pool:
 * workers created through the collector (NEVE_KERNEL_THREADS: threads in all, default the
 * hardware threads) and the caller run whole blocks; returns when they are done. */
void nv_launch(const nv_kernel* k, void** args, const int64_t grid[3], const int64_t block[3],
               int64_t smem, const char* site);
int32_t nv_gpu_available(void);            /* nv_cuda_active() */
void nv_gpu_sync(void);                    /* the calling thread's launches are done */
/* gpu_stream() (a collected object holding the CUDA stream, made when a GPU is in use), a
 * launch on one (runtime error on nil) and gpu_sync(s). On the CPU launches are synchronous,
 * so each stream's launches run in order. */
void* nv_gpu_stream(void);
void nv_launch_on(const nv_kernel* k, void** args, const int64_t grid[3], const int64_t block[3],
                  int64_t smem, void* stream, const char* site);
void nv_gpu_stream_sync(void* stream);
/* The object owning `T[]` memory: a T[] value is {addr, owner}. Host memory is inside the
 * (collected) object; device memory is freed by its finalizer. */
typedef struct NvBuffer { void* addr; int64_t bytes; int32_t device; } NvBuffer;
NvBuffer* nv_buffer_new(int64_t n, int64_t elem_size, int32_t device);   /* zeroed; n < 0 panics */
/* A new buffer holding a's elements (a nil array: none); elem is the array's element type
 * (a buffer type's slots keep their addresses alone). */
NvBuffer* nv_buffer_from_array(const NvArray* a, const NvType* elem, int32_t device);
NvArray* nv_buffer_to_array(const void* addr, int64_t n, const NvType* elem);  /* copies n */
void nv_buffer_copy(void* dst, const void* src, int64_t n, int64_t elem_size);  /* any direction */

#ifdef __cplusplus
}
#endif
#endif
