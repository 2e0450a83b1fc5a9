// For tests only: kernels that the axis planner keeps for large inputs, reached by the calling
// host thread's test views of a few megabytes. Not part of the API; production code never
// sets them.
// - forced_row_stream: every regular rows plan that row_stream_kernel can take is streamed,
//   whatever its size (the planner streams inputs of a hundred megabytes and more);
// - forced_transposed_tiles: transposed tiles are taken however few tiles a view makes (the
//   planner takes them where they fill the GPU);
// - forced_stacked_columns: a columns plan that may stack its kept indices (one column an
//   output, in the output's order) stacks them whatever its rows and however few work items
//   that makes (the planner stacks them where stacked_columns_pay);
// - forced_few_rows_items: columns of vectors over fewer than 16 rows go to the few-rows
//   kernel, however small, and give each thread this many column items (1, 2 or 4, as many as
//   fit its batch of loads) however few threads that leaves busy (the planner takes the kernel
//   from a column item per resident thread and for fewer than 8 rows, 4 unaligned, and more
//   than one item only where the items fill the GPU's threads several times);
// - forced_block_space: shifted 4-byte columns go in block space however few rows a thread
//   has (the planner asks for min_block_space_rows_per_thread).
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

inline int& forced_few_rows_items() {
  static thread_local int items = 0;  // 0: the planner chooses
  return items;
}
using scoped_few_rows_items = scoped_override<int, forced_few_rows_items>;

inline bool& forced_block_space() {
  static thread_local bool always = false;  // false: the planner chooses
  return always;
}
using scoped_block_space = scoped_override<bool, forced_block_space>;

}  // namespace warpfold::testing
