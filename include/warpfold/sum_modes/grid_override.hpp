// For tests only: makes the reproducible and exact sums of the calling host thread launch a
// given number of blocks, so that a test can show their bits do not depend on the grid. Not
// part of the API; production code never sets it.
#pragma once

#include "warpfold/detail/test_override.hpp"

namespace warpfold::testing {

inline int& forced_sum_grid() {
  static thread_local int blocks = 0;  // 0: the library chooses
  return blocks;
}

using scoped_sum_grid = scoped_override<int, forced_sum_grid>;

}  // namespace warpfold::testing
