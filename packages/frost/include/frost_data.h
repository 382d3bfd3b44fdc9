/* Frost's data and file helpers (packages/frost/native/data_files.cpp): reading IDX (MNIST)
 * files, raw or gzipped, and CIFAR binary batches; gathering samples into float batches; and the
 * raw little-endian tensor data of safetensors files. Bound into the `frost` namespace by
 * nsm's bindgen (`frost__fn` is `frost.fn`); data.nv and io.nv declare the few they call.
 *
 * Errors: functions returning int64_t give a negative value on failure, and
 * frost__data_error() then returns a one-line message naming the file (per thread).
 *
 * Element type codes (`dtype`), shared with io.nv: 0 F32, 1 F64, 2 BF16, 3 F16, 4 U8, 5 I8,
 * 6 I16, 7 I32, 8 I64, 9 BOOL. */
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last failure on this thread ("" if none). */
const char* frost__data_error(void);

/* The folder of the data bundled with Frost (packages/frost/data), found from this source
 * file's path at build time: the bundled package's native part is built on the machine that
 * runs it. */
const char* frost__data_dir(void);

/* IDX header (http://yann.lecun.com/exdb/mnist/, "THE IDX FILE FORMAT"): magic 0 0 type ndim,
 * then ndim big-endian int32 sizes. `path` may be gzipped (read through zlib either way).
 * Fills info[0] = type code byte (0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64),
 * info[1] = ndim (1..8), info[2 .. 2+ndim) = sizes; `info` holds at least 10 elements.
 * Returns 0, or -1 (cannot open), -2 (not an IDX header). */
int64_t frost__idx_header(const char* path, int64_t* info);

/* The data of an IDX file of type u8: the first n bytes after the header into out.
 * Returns n, or a negative value when the file is shorter or unreadable. */
int64_t frost__idx_read_u8(const char* path, uint8_t* out, int64_t n);

/* The data of an IDX file of any type, converted to float (big-endian values): n elements.
 * Returns n, or a negative value. */
int64_t frost__idx_read_f32(const char* path, float* out, int64_t n);

/* Number of records in a CIFAR binary batch (https://www.cs.toronto.edu/~kriz/cifar.html):
 * records of `label_bytes` label bytes (1 for CIFAR-10; 2, coarse then fine, for CIFAR-100)
 * then 3072 pixel bytes (1024 red, 1024 green, 1024 blue, rows of 32). -1 when the file cannot
 * be opened, -2 when its size is not a whole number of records. */
int64_t frost__cifar_count(const char* path, int64_t label_bytes);

/* Reads the first n records: labels[i] = the record's last label byte (CIFAR-100: fine),
 * pixels[i*3072 ...] = its pixels (CHW order). Returns n or a negative value. */
int64_t frost__cifar_read(const char* path, int64_t label_bytes, uint8_t* labels, uint8_t* pixels,
                          int64_t n);

/* out[k*sample + j] = src[idx[k]*sample + j] * scale for k < n, j < sample: a batch of
 * samples gathered from a dataset of bytes (images) into floats. */
void frost__gather_u8(const uint8_t* src, int64_t sample, const int64_t* idx, int64_t n,
                      float scale, float* out);

/* The same for a dataset of floats (no scaling). */
void frost__gather_f32(const float* src, int64_t sample, const int64_t* idx, int64_t n,
                       float* out);

/* Size of a file in bytes, -1 if it cannot be opened. */
int64_t frost__file_size(const char* path);

/* The JSON header of a safetensors file (https://github.com/huggingface/safetensors): an 8-byte
 * little-endian length N, then N bytes of JSON. Returns the text ("" on failure, with the
 * message in frost__data_error()); the tensor data start at byte 8 + N. */
const char* frost__st_header(const char* path);

/* Reads n elements of type `dtype` (little-endian) at byte `offset` of `path` into out as
 * float (F64 rounded to nearest, BF16/F16 exact, integers converted). Returns n or < 0. */
int64_t frost__read_as_f32(const char* path, int64_t offset, int64_t n, int64_t dtype, float* out);

/* Creates (truncates) `path` and writes the 8-byte little-endian length of `header` and the
 * header itself. Returns 0 or < 0. */
int64_t frost__st_begin(const char* path, const char* header);

/* Appends n floats to `path` as elements of type `dtype` (F32, F64, BF16 or F16; BF16 and F16
 * rounded to nearest even). Returns n or < 0. */
int64_t frost__append_f32(const char* path, const float* data, int64_t n, int64_t dtype);

/* Renames `src` to `dst` (atomically replacing it). Returns 0 or < 0. */
int64_t frost__file_replace(const char* src, const char* dst);

#ifdef __cplusplus
}
#endif
