// Frost's file readers and writers (include/frost_data.h): IDX through zlib (raw or gzipped),
// CIFAR binary batches, batch gathering, and safetensors' raw little-endian data. Plain C stdio
// and zlib; no state beyond a per-thread error message, so every function is thread-safe.
#include "frost_data.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

thread_local std::string last_error;
thread_local std::string header_text;

int64_t fail(int64_t code, const std::string& msg) {
    last_error = msg;
    return code;
}

// An open gzip (or plain: zlib reads those transparently) file, closed on scope exit.
struct GzFile {
    gzFile f;
    explicit GzFile(const char* path) : f(gzopen(path, "rb")) {
        if (f) gzbuffer(f, 1 << 17);
    }
    ~GzFile() {
        if (f) gzclose(f);
    }
    // Reads exactly n bytes; false on a short read.
    bool read(void* out, int64_t n) {
        auto* p = static_cast<unsigned char*>(out);
        while (n > 0) {
            unsigned chunk = n > (1 << 30) ? (1u << 30) : unsigned(n);
            int got = gzread(f, p, chunk);
            if (got <= 0) return false;
            p += got;
            n -= got;
        }
        return true;
    }
};

struct CFile {
    FILE* f;
    CFile(const char* path, const char* mode) : f(std::fopen(path, mode)) {}
    ~CFile() {
        if (f) std::fclose(f);
    }
};

int64_t idx_size(int code) {
    switch (code) {
        case 0x08: case 0x09: return 1;
        case 0x0B: return 2;
        case 0x0C: case 0x0D: return 4;
        case 0x0E: return 8;
        default: return 0;
    }
}

// Reads the IDX header of an open file into info; 0 or a negative error.
int64_t read_idx_header(GzFile& g, const char* path, int64_t* info) {
    unsigned char magic[4];
    if (!g.read(magic, 4) || magic[0] != 0 || magic[1] != 0 || idx_size(magic[2]) == 0 ||
        magic[3] < 1 || magic[3] > 8)
        return fail(-2, std::string("not an IDX file (bad magic number): ") + path);
    info[0] = magic[2];
    info[1] = magic[3];
    for (int d = 0; d < magic[3]; d++) {
        unsigned char b[4];
        if (!g.read(b, 4)) return fail(-2, std::string("truncated IDX header: ") + path);
        info[2 + d] = (int64_t(b[0]) << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
    }
    return 0;
}

float bf16_to_f32(uint16_t h) {
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t f32_to_bf16(float f) {  // round to nearest even, as torch and numpy-bfloat16 do
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
    u += 0x7FFF + ((u >> 16) & 1);
    return uint16_t(u >> 16);
}

float f16_to_f32(uint16_t u) {
    _Float16 h;
    std::memcpy(&h, &u, 2);
    return float(h);
}

uint16_t f32_to_f16(float f) {
    _Float16 h = _Float16(f);  // round to nearest even
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
}

int64_t dtype_size(int64_t dtype) {
    static const int64_t sizes[] = {4, 8, 2, 2, 1, 1, 2, 4, 8, 1};
    return dtype >= 0 && dtype < 10 ? sizes[dtype] : 0;
}

// Little-endian element i of a buffer of type dtype, as float.
float element(const unsigned char* p, int64_t dtype) {
    switch (dtype) {
        case 0: { float v; std::memcpy(&v, p, 4); return v; }
        case 1: { double v; std::memcpy(&v, p, 8); return float(v); }
        case 2: { uint16_t v; std::memcpy(&v, p, 2); return bf16_to_f32(v); }
        case 3: { uint16_t v; std::memcpy(&v, p, 2); return f16_to_f32(v); }
        case 4: return float(p[0]);
        case 5: return float(int8_t(p[0]));
        case 6: { int16_t v; std::memcpy(&v, p, 2); return float(v); }
        case 7: { int32_t v; std::memcpy(&v, p, 4); return float(v); }
        case 8: { int64_t v; std::memcpy(&v, p, 8); return float(v); }
        default: return p[0] ? 1.0f : 0.0f;
    }
}

}  // namespace

extern "C" {

const char* frost__data_error(void) { return last_error.c_str(); }

const char* frost__data_dir(void) {
    static const std::string dir = [] {
        std::string f = __FILE__;                       // <root>/native/data_files.cpp
        size_t cut = f.rfind("/native/");
        return (cut == std::string::npos ? std::string(".") : f.substr(0, cut)) + "/data";
    }();
    return dir.c_str();
}

int64_t frost__idx_header(const char* path, int64_t* info) {
    GzFile g(path);
    if (!g.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    return read_idx_header(g, path, info);
}

int64_t frost__idx_read_u8(const char* path, uint8_t* out, int64_t n) {
    GzFile g(path);
    if (!g.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    int64_t info[10];
    if (int64_t e = read_idx_header(g, path, info)) return e;
    if (!g.read(out, n)) return fail(-3, std::string("truncated IDX data: ") + path);
    return n;
}

int64_t frost__idx_read_f32(const char* path, float* out, int64_t n) {
    GzFile g(path);
    if (!g.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    int64_t info[10];
    if (int64_t e = read_idx_header(g, path, info)) return e;
    int code = int(info[0]);
    int64_t w = idx_size(code);
    std::vector<unsigned char> raw(size_t(n * w));
    if (!g.read(raw.data(), n * w)) return fail(-3, std::string("truncated IDX data: ") + path);
    for (int64_t i = 0; i < n; i++) {
        const unsigned char* p = raw.data() + i * w;
        unsigned char le[8];
        for (int64_t k = 0; k < w; k++) le[k] = p[w - 1 - k];  // IDX values are big-endian
        switch (code) {
            case 0x08: out[i] = float(p[0]); break;
            case 0x09: out[i] = float(int8_t(p[0])); break;
            case 0x0B: { int16_t v; std::memcpy(&v, le, 2); out[i] = float(v); break; }
            case 0x0C: { int32_t v; std::memcpy(&v, le, 4); out[i] = float(v); break; }
            case 0x0D: { float v; std::memcpy(&v, le, 4); out[i] = v; break; }
            default: { double v; std::memcpy(&v, le, 8); out[i] = float(v); break; }
        }
    }
    return n;
}

int64_t frost__cifar_count(const char* path, int64_t label_bytes) {
    int64_t size = frost__file_size(path);
    if (size < 0) return -1;
    int64_t rec = label_bytes + 3072;
    if (size % rec != 0)
        return fail(-2, std::string("not a CIFAR binary batch (size ") + std::to_string(size) +
                            " is not a multiple of " + std::to_string(rec) + "): " + path);
    return size / rec;
}

int64_t frost__cifar_read(const char* path, int64_t label_bytes, uint8_t* labels, uint8_t* pixels,
                          int64_t n) {
    CFile c(path, "rb");
    if (!c.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    std::vector<unsigned char> rec(size_t(label_bytes + 3072));
    for (int64_t i = 0; i < n; i++) {
        if (std::fread(rec.data(), 1, rec.size(), c.f) != rec.size())
            return fail(-3, std::string("truncated CIFAR batch: ") + path);
        labels[i] = rec[size_t(label_bytes - 1)];
        std::memcpy(pixels + i * 3072, rec.data() + label_bytes, 3072);
    }
    return n;
}

void frost__gather_u8(const uint8_t* src, int64_t sample, const int64_t* idx, int64_t n,
                      float scale, float* out) {
    for (int64_t k = 0; k < n; k++) {
        const uint8_t* s = src + idx[k] * sample;
        float* o = out + k * sample;
        for (int64_t j = 0; j < sample; j++) o[j] = float(s[j]) * scale;
    }
}

void frost__gather_f32(const float* src, int64_t sample, const int64_t* idx, int64_t n,
                       float* out) {
    for (int64_t k = 0; k < n; k++)
        std::memcpy(out + k * sample, src + idx[k] * sample, size_t(sample) * sizeof(float));
}

int64_t frost__file_size(const char* path) {
    CFile c(path, "rb");
    if (!c.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    if (std::fseek(c.f, 0, SEEK_END) != 0) return fail(-1, std::string("cannot seek: ") + path);
    return int64_t(std::ftell(c.f));
}

const char* frost__st_header(const char* path) {
    header_text.clear();
    CFile c(path, "rb");
    if (!c.f) {
        fail(-1, std::string("cannot open file \"") + path + "\"");
        return "";
    }
    unsigned char len[8];
    if (std::fread(len, 1, 8, c.f) != 8) {
        fail(-2, std::string("not a safetensors file (shorter than 8 bytes): ") + path);
        return "";
    }
    uint64_t n = 0;
    for (int k = 7; k >= 0; k--) n = (n << 8) | len[k];
    std::fseek(c.f, 0, SEEK_END);
    long size = std::ftell(c.f);
    if (n == 0 || n > 100000000 || int64_t(n) + 8 > size) {
        fail(-2, std::string("not a safetensors file (header length ") + std::to_string(n) +
                     " does not fit the file): " + path);
        return "";
    }
    std::fseek(c.f, 8, SEEK_SET);
    header_text.resize(n);
    if (std::fread(&header_text[0], 1, n, c.f) != n) {
        fail(-3, std::string("truncated safetensors header: ") + path);
        header_text.clear();
    }
    return header_text.c_str();
}

int64_t frost__read_as_f32(const char* path, int64_t offset, int64_t n, int64_t dtype, float* out) {
    int64_t w = dtype_size(dtype);
    if (w == 0) return fail(-4, "unknown dtype code " + std::to_string(dtype));
    CFile c(path, "rb");
    if (!c.f) return fail(-1, std::string("cannot open file \"") + path + "\"");
    if (std::fseek(c.f, long(offset), SEEK_SET) != 0)
        return fail(-3, std::string("cannot seek in ") + path);
    if (dtype == 0) {
        if (std::fread(out, 4, size_t(n), c.f) != size_t(n))
            return fail(-3, std::string("truncated tensor data: ") + path);
        return n;
    }
    std::vector<unsigned char> raw(size_t(n * w));
    if (std::fread(raw.data(), 1, raw.size(), c.f) != raw.size())
        return fail(-3, std::string("truncated tensor data: ") + path);
    for (int64_t i = 0; i < n; i++) out[i] = element(raw.data() + i * w, dtype);
    return n;
}

int64_t frost__st_begin(const char* path, const char* header) {
    CFile c(path, "wb");
    if (!c.f) return fail(-1, std::string("cannot write file \"") + path + "\"");
    uint64_t n = std::strlen(header);
    unsigned char len[8];
    for (int k = 0; k < 8; k++) len[k] = (unsigned char)(n >> (8 * k));
    if (std::fwrite(len, 1, 8, c.f) != 8 || std::fwrite(header, 1, n, c.f) != n)
        return fail(-3, std::string("cannot write file \"") + path + "\"");
    return 0;
}

int64_t frost__append_f32(const char* path, const float* data, int64_t n, int64_t dtype) {
    CFile c(path, "ab");
    if (!c.f) return fail(-1, std::string("cannot write file \"") + path + "\"");
    size_t done = 0;
    if (dtype == 0) {
        done = std::fwrite(data, 4, size_t(n), c.f);
    } else if (dtype == 1) {
        std::vector<double> v(data, data + n);
        done = std::fwrite(v.data(), 8, size_t(n), c.f);
    } else if (dtype == 2 || dtype == 3) {
        std::vector<uint16_t> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; i++) v[i] = dtype == 2 ? f32_to_bf16(data[i]) : f32_to_f16(data[i]);
        done = std::fwrite(v.data(), 2, size_t(n), c.f);
    } else {
        return fail(-4, "cannot write dtype code " + std::to_string(dtype));
    }
    if (done != size_t(n)) return fail(-3, std::string("cannot write file \"") + path + "\"");
    return n;
}

int64_t frost__file_replace(const char* src, const char* dst) {
    if (std::rename(src, dst) != 0)
        return fail(-1, std::string("cannot rename ") + src + " to " + dst + ": " + std::strerror(errno));
    return 0;
}

}  // extern "C"
