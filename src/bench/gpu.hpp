// The bench's own kernels, host side: filling input buffers with varied values, and the
// three ceilings every run measures. Definitions in fill.cu and ceilings.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench/dtype.hpp"
#include "bench/implementation.hpp"
#include "bench/statistics.hpp"

namespace warpfold::bench {

// Fills count elements of `type` at d_data with values from a hash of (seed, index), so that
// no two buffers (different seeds or offsets) hold the same data:
// - i32: uniform in [-2^24, 2^24): big enough that int32 sums of large n wrap now and then;
// - f32: multiples of 2^-24 in [0, 1); f64: multiples of 2^-53 in [0, 1);
// - f16: multiples of 2^-11 in [0, 1); bf16: multiples of 2^-8 in [0, 1) (exact in the type).
// Floats are non-negative so that the sum is as large as the sum of magnitudes and the
// check's tolerance stays a small fraction of the answer.
// Other spreads of float values (--data), for the sums whose cost depends on the values
// (warpfold::sum_exact): see value_spread. Integers always get the default.
void fill_varied(dtype type, void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream,
                 value_spread spread = value_spread::uniform);

// Fills count elements with values for products: random signs, magnitude 1, except for
// near_one_moved(count) of them on average, which are 1 + 2^-7 or 1 - 2^-7 (exact in every
// float type). Products of any order and length stay near +-1 (no overflow or underflow), and
// since a multiply by +-1 is exact, a product in any order rounds at most once per moved value:
// its relative error stays below near_one_moved(count) units of the accumulator's precision.
void fill_near_one(dtype type, void* d_data, std::int64_t count, std::uint64_t seed, cudaStream_t stream);
inline double near_one_moved(std::int64_t count) { return count < 8192 ? count / 2.0 : 4096.0; }

struct ceiling_measurement {
  summary time_us;       // per launch (launch floor) or per pass (read, copy)
  double gbps = 0;       // bytes / median time; 0 for the launch floor
  std::int64_t bytes = 0;
  std::int64_t batch = 0;
  std::string variant;   // which kernel configuration gave the best read
};

// An empty kernel launched back to back, `batch` launches per trial: time per launch. With
// `dependent`, launched as warpfold launches its own kernels (blocks/dependent_launch.cuh),
// so each launch may be set up while the previous one is finishing.
ceiling_measurement measure_launch_floor(int trials, int batch, cudaStream_t stream, bool dependent = false);

// The plain empty launch as something the timing loop can time like a reduction, so that a
// sweep measures it at every size in the same interleaved trials as the implementations
// (a slow stretch of the host then slows both alike). Reads nothing and has no answer.
std::unique_ptr<timed_reduction> make_empty_launch();

// A read-only streaming kernel over `bytes` of d_buffer (16-byte aligned, bytes a multiple of
// 16) with 16-byte loads, one resident wave of blocks, several loads in flight per thread.
// Several configurations are timed (unroll, block size, load hint) and the fastest median is
// the ceiling; its name is in `variant`. GB/s counts bytes read.
ceiling_measurement measure_read_ceiling(const void* d_buffer, std::int64_t bytes, int trials, cudaStream_t stream);

// cudaMemcpyAsync device to device of bytes/2 from the first half of d_buffer to the second.
// GB/s counts bytes read plus bytes written.
ceiling_measurement measure_copy_ceiling(void* d_buffer, std::int64_t bytes, int trials, cudaStream_t stream);

}  // namespace warpfold::bench
