// The 64-bit mixing step of the key hashes (map/hash.cpp for bytes, map/keys.cpp for words and
// compound keys), following wyhash (Wang Yi, public domain): a 64x64->128-bit multiply folded.
#pragma once
#include <cstdint>

namespace nv_mix {

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;

inline uint64_t mum(uint64_t a, uint64_t b) {
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

}  // namespace nv_mix
