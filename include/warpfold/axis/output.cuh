// Where an axis kernel writes its outputs. The ops write their accumulators as they are, to an
// `Acc*`. The statistics (mean, var_mean, norms: stats/statistics.hpp) write `finish(acc)`: a
// variance is M2 / (n - correction), a norm the square root of a sum of squares. The kernels
// take either as `Out out` and write `out[i] = acc`, or step it as `out + offset`; a pointer
// also allows their 16-byte stores (is_plain_output), which a finished output does not, as
// its results are not the accumulators.
//
// So a statistic along axes is one launch, with its finish folded into the store, as a whole
// array's statistic is (statistics.cuh), and no accumulator goes through memory.
#pragma once

#include <cstdint>
#include <type_traits>

#include "warpfold/config.hpp"

namespace warpfold::axis {

template <typename Stat>
struct finished_output {
  using accumulator = typename Stat::accumulator;
  using result = typename Stat::result;
  result* data;
  Stat stat;

  // out[i] = acc stores stat.finish(acc) at data[i].
  struct slot {
    result* at;
    Stat stat;
    WARPFOLD_DEVICE void operator=(const accumulator& acc) const { *at = stat.finish(acc); }
  };
  WARPFOLD_DEVICE slot operator[](std::int64_t i) const { return {data + i, stat}; }
  WARPFOLD_HOST_DEVICE finished_output operator+(std::int64_t i) const { return {data + i, stat}; }
};

// Whether the kernels may store accumulators bytewise (a plain pointer).
template <typename Out>
inline constexpr bool is_plain_output = std::is_pointer_v<Out>;

// The full reduction's store (device/reduce_kernel.cuh): one output.
template <typename Out>
struct store_first {
  Out out;
  template <typename Acc>
  WARPFOLD_DEVICE void operator()(const Acc& total) const { out[0] = total; }
};

}  // namespace warpfold::axis
