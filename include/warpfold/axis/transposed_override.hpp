// For tests only: lets the axis reductions of the calling host thread take transposed tiles
// (axis/transposed_tiles_kernel.cuh) however few tiles a view makes, so that test views of a
// few thousand outputs reach the kernel that the planner keeps for views that fill the GPU.
// Not part of the API; production code never sets it.
#pragma once

#include "warpfold/detail/test_override.hpp"

namespace warpfold::testing {

inline bool& forced_transposed_tiles() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}

using scoped_transposed_tiles = scoped_override<bool, forced_transposed_tiles>;

}  // namespace warpfold::testing
