// Load layer: how a thread reads its elements from global memory.
// 16-byte loads move four floats (or two doubles, or sixteen int8) per instruction, so the
// memory system sees a quarter as many requests. They need a 16-byte aligned address, and a
// caller's pointer may have any alignment (d_in + 1 is a valid input), so the array is split
// into an unaligned head, an aligned body read as vectors, and a tail. An unaligned pointer is
// never cast to a vector type.
#pragma once

#include <cstdint>
#include <cstring>

#include "warpfold/config.hpp"

namespace warpfold::blocks {

constexpr int vector_bytes = 16;

// Where a streaming loop's vector body starts: on a 512-byte boundary, so that each warp's
// round of 16-byte loads (32 x 16 = 512 bytes) covers one aligned 512-byte block of memory
// rather than straddling two. H100, 2026-11-23, 2^28 f32 and 2^29 f16 sums from a pointer 1, 3
// or 5 elements past alignment: 2971-2988 GB/s with the body on 16-byte boundaries, 3012-3026
// on 128-byte lines, 3097-3114 on 256 or 512 bytes, the same as aligned input (3110-3117).
// The head before it is at most 511 bytes, read as scalars by the first threads.
constexpr int stream_body_alignment = 512;

// Sixteen bytes of T, loaded with one instruction (LDG.E.128). For float this is float4's
// layout, for int int4's, for double double2's; one template covers every element type.
template <typename T>
struct alignas(vector_bytes) vector16 {
  static_assert(vector_bytes % sizeof(T) == 0, "element size must divide 16 bytes");
  static constexpr int size = vector_bytes / sizeof(T);
  T items[size];
};

// Whether p may be read or written as 16-byte vectors.
WARPFOLD_HOST_DEVICE bool is_vector_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % vector_bytes == 0;
}

// [0, head) unaligned scalars, then body_vectors vectors of 16 bytes, then tail scalars.
struct aligned_split {
  std::int64_t head;
  std::int64_t body_vectors;
  std::int64_t tail_begin;  // first element of the tail
};

// `alignment` (a multiple of 16) is where the body starts: 16 for vector loads;
// stream_body_alignment for loops that stream a large array (see above).
template <typename T>
WARPFOLD_HOST_DEVICE aligned_split split_at_alignment(const T* in, std::int64_t n, int alignment = vector_bytes) {
  constexpr std::int64_t per_vector = vector16<T>::size;
  const auto address = reinterpret_cast<std::uintptr_t>(in);
  const std::int64_t misalignment = static_cast<std::int64_t>(address % alignment);
  // An element that straddles the boundary cannot happen: T's alignment divides 16.
  std::int64_t head = misalignment == 0 ? 0 : (alignment - misalignment) / std::int64_t(sizeof(T));
  if (head > n) head = n;
  const std::int64_t body_vectors = (n - head) / per_vector;
  return {head, body_vectors, head + body_vectors * per_vector};
}

// Element i, or `fallback` past the end: the bounds check that "first add during load"
// versions often forget.
template <typename T>
WARPFOLD_DEVICE T load_or(const T* in, std::int64_t i, std::int64_t n, T fallback) {
  return i < n ? in[i] : fallback;
}

// One 16-byte load (LDG.E.128). `aligned` must come from split_at_alignment's body.
struct plain_vector_load {
  template <typename T>
  WARPFOLD_DEVICE vector16<T> operator()(const T* aligned, std::int64_t vector_index) const {
    return reinterpret_cast<const vector16<T>*>(aligned)[vector_index];
  }
};

// The same load through the read-only path without allocating in L1: a reduction reads each
// byte once, so caching it in L1 only evicts what is useful. Valid because nothing writes
// the input while the kernel runs. H100, 2026-11-22: +0.4% at 2^28 f32 (3123 against 3110
// GB/s with __ldg), the margin between 97.7% and 99% of the read ceiling.
struct streaming_vector_load {
  template <typename T>
  WARPFOLD_DEVICE vector16<T> operator()(const T* aligned, std::int64_t vector_index) const {
    const vector16<T>* address = reinterpret_cast<const vector16<T>*>(aligned) + vector_index;
    unsigned int w[4];
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
        : "l"(address));
    vector16<T> v;
    static_assert(sizeof(v) == sizeof(w), "a vector is 16 bytes");
    memcpy(&v, w, sizeof(v));
    return v;
  }
};

template <typename T>
WARPFOLD_DEVICE vector16<T> load_vector(const T* aligned, std::int64_t vector_index) {
  return plain_vector_load{}(aligned, vector_index);
}

}  // namespace warpfold::blocks
