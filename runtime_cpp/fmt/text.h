// Internal: appending to an NvBuf and the shared pieces of value text (10.1).
#pragma once
#include <cstddef>
#include <cstdint>
#include "neve_rt.h"

void rt_buf_append(NvBuf* b, const char* p, size_t n);
void rt_buf_putc(NvBuf* b, char c);
void rt_buf_release(NvBuf* b);                 // frees the heap part, leaves b empty
// s in `quote` quotes with the escapes of str/char elements: \n \t \r \0 \\ \" (or \') \xNN
void rt_fmt_quoted(NvBuf* b, const char* s, int64_t len, char quote);
