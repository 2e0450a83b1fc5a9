// Dynamically sized shared memory typed as T. The ladder's early steps size their shared
// array from the runtime block size; `extern __shared__` cannot be declared once per template
// type, so one byte array is declared and viewed as T.
#pragma once

#include "warpfold/config.hpp"

namespace warpfold::blocks {

template <typename T>
WARPFOLD_DEVICE T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char dynamic_shared_bytes[];
  return reinterpret_cast<T*>(dynamic_shared_bytes);
}

}  // namespace warpfold::blocks
