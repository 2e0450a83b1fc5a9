// Store layer: how a thread writes results that nothing in this kernel reads again.
// One 16-byte store with the evict-first hint (st.global.cs): the lines go to DRAM without
// pushing the input's lines out of L2 first. Used where a kernel's output is a large share of
// its traffic (rows of one vector: a quarter of the bytes read).
#pragma once

#include <cstring>

#include "warpfold/blocks/load.cuh"
#include "warpfold/config.hpp"

namespace warpfold::blocks {

template <typename T>
WARPFOLD_DEVICE void store_streaming(vector16<T>* aligned, const vector16<T>& v) {
  unsigned int w[4];
  static_assert(sizeof(v) == sizeof(w), "a vector is 16 bytes");
  memcpy(w, &v, sizeof(w));
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(aligned), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
               : "memory");
}

}  // namespace warpfold::blocks
