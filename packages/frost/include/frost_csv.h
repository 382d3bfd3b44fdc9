/* Raw file access for frost/csv (packages/frost/native/csv_files.cpp): a file's size and one
 * byte range of it, read with pread so the CSV reader's threads fill their parts of one buffer
 * at the same time. The parsing itself is Neve (csv.nv).
 *
 * Errors: a negative result is -errno (cannot open, cannot read). */
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The size of the file at path in bytes, or -errno. */
int64_t frost__csv_file_size(const char* path);

/* Reads bytes [offset, offset + n) of the file at path into out; returns n, or -errno (a file
 * shorter than offset + n is -EIO). */
int64_t frost__csv_read_range(const char* path, int64_t offset, int64_t n, uint8_t* out);

/* The text of errno value code (strerror). */
const char* frost__csv_strerror(int64_t code);

#ifdef __cplusplus
}
#endif
