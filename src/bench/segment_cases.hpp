// What `warpfold bench --segments` measures: float sums of segments of varied lengths, laid
// back to back (segment i + 1 begins where segment i ends) over n elements, one output per
// segment. The cases, in the order of the table:
//   mean-1 ... mean-65536  lengths drawn uniform in [0, 2L] for the mean length L, until n
//                          elements are covered (the last segment trimmed): from tens of
//                          millions of tiny segments, many of them empty, to a thousand long ones;
//   huge-16xM              16 segments of M = n/16 elements (2^22 at the default n): few
//                          outputs, each too long for one block;
//   mix                    all of those in one call: runs of segments of a mean length drawn
//                          from the list, with four huge segments among them, so that one launch
//                          must balance work of every size.
// The offsets are two arrays (begin and end), as cub::DeviceSegmentedReduce takes them. The
// same seed gives the same segments. Plain C++: the CPU tests check the layouts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::bench {

// The default element count: 2^26 floats (256 MiB), like the axis cases.
inline constexpr std::int64_t default_segment_elements = std::int64_t(1) << 26;
// The huge case's segment count, and the mix's number of huge segments.
inline constexpr int huge_segment_count = 16;
inline constexpr int mix_huge_segments = 4;

enum class segment_layout {
  uniform,  // lengths uniform in [0, 2 * mean_length]
  huge,     // huge_segment_count segments of n / huge_segment_count
  mix,      // runs of every mean length, and mix_huge_segments huge segments
};

struct segment_case {
  std::string name;                 // "mean-16", "huge-16x4194304", "mix"
  segment_layout layout = segment_layout::uniform;
  std::int64_t n = 0;               // the elements the segments cover
  std::int64_t mean_length = 0;     // uniform: L; huge: each segment's length; mix: 0
  std::uint64_t seed = 0;           // this case's draws (and its input values)
};

// Begin and end offsets in elements; segment i is [begin[i], end[i]).
struct segment_offsets {
  std::vector<std::int64_t> begin;
  std::vector<std::int64_t> end;

  std::int64_t count() const { return static_cast<std::int64_t>(begin.size()); }
};

// What one call must move: every element read once, both offset arrays (8 bytes each per
// segment) read once, and one float written per segment. GB/s and the ceiling count both.
struct segment_traffic {
  std::int64_t bytes_in = 0;
  std::int64_t bytes_out = 0;
  std::int64_t bytes() const { return bytes_in + bytes_out; }
};
segment_traffic traffic_of(std::int64_t n, std::int64_t segments);

// 1, 4, 16, 64, 1024, 65536: the mean lengths of the uniform cases, and the mix's.
const std::vector<std::int64_t>& segment_mean_lengths();

// Every case over n elements (n >= 1), drawn from `seed`: the uniform ones by mean length,
// then huge, then mix.
std::vector<segment_case> segment_cases(std::int64_t n, std::uint64_t seed);

// The offsets of a case: back to back from 0, covering exactly c.n elements. Deterministic
// for a case (its seed), on every platform.
segment_offsets lay_out_segments(const segment_case& c);

// "mean-16 (2^26 elements)"
std::string describe(const segment_case& c);

}  // namespace warpfold::bench
