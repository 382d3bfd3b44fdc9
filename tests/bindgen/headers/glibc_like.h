/* The shapes of glibc headers (issue 15, fault 2): one declaration the parser cannot read
   costs only itself; asm labels bind to their symbol; constants and enums become functions. */
#define LEVEL_MAX 9
#define LEVEL_MASK (LEVEL_MAX | (1 << 4))
#define GREETING "hi \"there\""
#define NOT_A_CONSTANT (sizeof(int))
enum mode { MODE_FAST = 1, MODE_SLOW = MODE_FAST << 3, MODE_NEXT };

extern double cube_root (double __x) __asm__ ("" "cbrt") __attribute__ ((__nothrow__ , __leaf__));
extern _Noreturn void stop (int __status);
extern void quit (int __status) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));
extern int counter_load (_Atomic int* __c);
extern __typeof__ (quit) quit_alias;
typedef void (*handler_t) (int);
extern handler_t on_signal (int __sig, handler_t __handler);
extern int set_mode (enum mode __m);
extern int pair_open (const char* __path, void** __handle, char** __err);
extern int still_bound (int __x);
