// Shapes beyond the default: misaligned input pointers (d_in + 1, 2, 3 elements) for every
// step, and every supported block size of every step.
#include <map>
#include <memory>

#include "ladder_test_util.hpp"

namespace ladder_test {
namespace {

using warpfold_test::gpu_test;
using warpfold_test::gpu_test_with_param;
using warpfold_test::guard_layout;
using warpfold_test::size_param_name;

// ---- pointer offsets ----

// d_in = allocation + k for k = 1, 2, 3: 4, 8 and 12 bytes off a 16-byte boundary for int32
// and float, 8, 16 and 24 for double. Step 9 must read the unaligned head as scalars and
// never cast a misaligned pointer to a 16-byte vector (that would be a misaligned-address
// error, or silently read the wrong elements). The k elements before d_in are poison, so a
// kernel that rounds the pointer down to an aligned address and reads them gets NaN (floats)
// or a sum off by a multiple of an odd number (int32).
// Two layouts per k: the input ends exactly at the end of the allocation (memcheck sees any
// read past it), and 16 poison elements after it (a read past the end changes the sum, no
// sanitizer needed). Quick mode (sanitizers) keeps the first layout only.
class LadderOffsets : public gpu_test_with_param<std::int64_t> {};

std::vector<std::int64_t> offset_sizes() {
  const std::vector<std::int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 257, 1025, 4099, 65521, 1000003};
  if (!warpfold_test::quick_mode()) return sizes;
  return {1, 3, 5, 17, 1025, 65521};
}

template <typename T>
void check_offsets(std::int64_t n) {
  for (std::int64_t k = 1; k <= 3; ++k) {
    for (std::int64_t back : {std::int64_t{0}, std::int64_t{16}}) {
      if (back > 0 && warpfold_test::quick_mode()) continue;
      SCOPED_TRACE("d_in = allocation + " + std::to_string(k) + ", " + std::to_string(back) +
                   " poison elements after the input");
      const prepared_input<T> p("ladder-offset-" + std::to_string(k), n, sweep_mode<T>, guard_layout{k, back});
      run_every_step_and_finisher(p);
    }
  }
}

TEST_P(LadderOffsets, Int32) { check_offsets<std::int32_t>(GetParam()); }
TEST_P(LadderOffsets, Float) { check_offsets<float>(GetParam()); }
TEST_P(LadderOffsets, Double) { check_offsets<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Sizes, LadderOffsets, ::testing::ValuesIn(offset_sizes()), size_param_name{});

// ---- block sizes ----

// Every block size each step supports (steps 0-4: 32..1024, step 5: 64..1024, steps 6-9:
// 128, 256, 512), with every finisher, at sizes around that block's edges: one block, two
// blocks' worth (steps 4-6 take 2 * block elements per block), a ragged multi-block size,
// and a prime with many blocks. Each input is uploaded once and shared by every
// (step, block size, finisher) that uses its size.
class LadderBlockSizes : public gpu_test {};

std::vector<std::int64_t> sizes_for_block(int block) {
  const std::int64_t b = block;
  if (warpfold_test::quick_mode()) return {1, 2 * b + 1, 5 * b + 3};
  return {1, b - 1, b + 1, 2 * b + 1, 5 * b + 3, 65521, 1000003};
}

template <typename T>
void check_block_sizes() {
  // size -> the (step, block) pairs that test it
  std::map<std::int64_t, std::vector<std::pair<step, int>>> plan;
  for (step s : all_steps())
    for (int block : warpfold::ladder::supported_block_sizes(s))
      for (std::int64_t n : sizes_for_block(block)) plan[n].emplace_back(s, block);

  failure_budget budget;
  for (const auto& [n, configurations] : plan) {
    const prepared_input<T> p("ladder-blocks", n, value_mode::moderate);
    for (const auto& [s, block] : configurations) {
      for (finisher f : all_finishers()) {
        SCOPED_TRACE(describe<T>(s, f, block, n));
        std::unique_ptr<runner<T>> r;
        try {
          r = std::make_unique<runner<T>>(s, f, block);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "constructor threw for a supported block size: " << e.what();
          if (budget.spend()) return;
          continue;
        }
        if (!run_and_check(*r, p) && budget.spend()) return;
      }
    }
  }
}

TEST_F(LadderBlockSizes, Int32) { check_block_sizes<std::int32_t>(); }
TEST_F(LadderBlockSizes, Float) { check_block_sizes<float>(); }
TEST_F(LadderBlockSizes, Double) { check_block_sizes<double>(); }

}  // namespace
}  // namespace ladder_test
