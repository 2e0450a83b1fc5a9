// The random axis cases of `warpfold bench --axis --random K --seed S`: N-D arrays, some of
// them strided views, reduced over a random set of axes, in f32, f16, bf16 and i32 (sums).
// The cases are drawn to cover what the planner must handle, not tuned to it:
// - rank 1 to 6 (rank 1 reduces its one axis; higher ranks a random non-empty proper subset);
// - the element count log-uniform from 2^16 to 2^27, split over the axes at random, so
//   extents are log-uniform too, with 1s, odd and prime extents, and extents that are not a
//   multiple of 4;
// - about half the cases are views of a larger contiguous parent: transposed (the last two
//   axes swapped), permuted (any order), or sliced (x[1:-1] or x[a:b] on some axes, so the
//   view starts inside its parent and its rows are not contiguous).
// Plain C++: the CPU tests check the draws (determinism, ranges, view validity).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/dtype.hpp"

namespace warpfold::bench {

struct view_case {
  int index = 0;                      // 0 .. K-1, the CSV's case column
  dtype type = dtype::f32;
  std::vector<std::int64_t> extents;  // the view's shape
  std::vector<std::int64_t> strides;  // its element strides
  std::int64_t offset = 0;            // its first element in the parent
  std::int64_t parent = 0;            // the parent buffer's element count
  std::vector<int> dims;              // the reduced axes, ascending
  std::string view;                   // "contiguous", "transposed", "permuted" or "sliced"

  std::int64_t elements() const;      // of the view
  std::int64_t outputs() const;
  std::int64_t reduced() const;       // elements per output
  // Bytes one call must move: the view's elements (not the parent's), and the outputs.
  std::int64_t bytes_in() const { return elements() * element_bytes(type); }
  std::int64_t bytes_out(int output_bytes) const { return outputs() * output_bytes; }
};

// K cases from `seed`; the same (K, seed) gives the same cases on every machine.
std::vector<view_case> random_view_cases(int count, std::uint64_t seed);

// "64x128x8", "1x3": extents (or strides) joined by 'x'.
std::string join_extents(const std::vector<std::int64_t>& values);
// "1,3": the dims.
std::string join_dims(const std::vector<int>& dims);
// "case 7: f16 (64, 128, 8) strides (1024, 8, 1) over {1}, sliced".
std::string describe(const view_case& c);

}  // namespace warpfold::bench
