// For tests only: kernels that the axis planner keeps for large inputs, reached by the calling
// host thread's test views of a few megabytes. Not part of the API; production code never
// sets them.
// - forced_row_stream: every regular rows plan that row_stream_kernel can take is streamed,
//   whatever its size (the planner streams inputs of a hundred megabytes and more);
// - forced_transposed_tiles: transposed tiles are taken however few tiles a view makes (the
//   planner takes them where they fill the GPU);
// - forced_stacked_columns: a columns plan with few rows a thread stacks its kept indices
//   however few work items that makes (the planner stacks them where they fill a wave).
#pragma once

#include "warpfold/detail/test_override.hpp"

namespace warpfold::testing {

inline bool& forced_row_stream() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}
using scoped_row_stream = scoped_override<bool, forced_row_stream>;

inline bool& forced_transposed_tiles() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}
using scoped_transposed_tiles = scoped_override<bool, forced_transposed_tiles>;

inline bool& forced_stacked_columns() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}
using scoped_stacked_columns = scoped_override<bool, forced_stacked_columns>;

}  // namespace warpfold::testing
