// For tests only: makes the axis reductions of the calling host thread stream every regular
// rows plan that row_stream_kernel can take, whatever its size, so that tests of a few
// megabytes reach the kernel that the planner keeps for inputs of a hundred and more. Not
// part of the API; production code never sets it.
#pragma once

#include "warpfold/detail/test_override.hpp"

namespace warpfold::testing {

inline bool& forced_row_stream() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}

using scoped_row_stream = scoped_override<bool, forced_row_stream>;

}  // namespace warpfold::testing
