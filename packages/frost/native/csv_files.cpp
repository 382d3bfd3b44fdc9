// Raw file access for frost/csv (include/frost_csv.h): size and pread of one byte range, so
// every reader thread copies its own part of the file; no state, thread-safe.
#include "frost_csv.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t frost__csv_file_size(const char* path) {
    struct stat st;
    if (stat(path, &st) != 0) return -int64_t(errno);
    if (S_ISDIR(st.st_mode)) return -int64_t(EISDIR);
    return int64_t(st.st_size);
}

int64_t frost__csv_read_range(const char* path, int64_t offset, int64_t n, uint8_t* out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -int64_t(errno);
    int64_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, out + done, size_t(n - done), off_t(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            int code = got < 0 ? errno : EIO;
            close(fd);
            return -int64_t(code);
        }
        done += got;
    }
    close(fd);
    return n;
}

const char* frost__csv_strerror(int64_t code) { return std::strerror(int(code)); }
