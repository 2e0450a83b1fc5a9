// Inputs the runner must refuse, on a machine with a device: each is rejected with
// warpfold::invalid_argument and a message that says what is wrong, before anything is
// launched, so the previous run's result is still there afterwards. And inputs it must accept
// that look odd: an empty input behind a null pointer, and managed memory.
// (Unsupported block sizes are rejected before the GPU is touched: see ladder_cpu_test.cpp.)
#include <functional>

#include "ladder_test_util.hpp"

namespace ladder_test {
namespace {

using warpfold_test::gpu_test;

::testing::AssertionResult rejects(const std::function<void()>& call, const std::string& keyword) {
  try {
    call();
  } catch (const warpfold::invalid_argument& e) {
    if (std::string(e.what()).find(keyword) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "invalid_argument's message \"" << e.what() << "\" does not mention \""
                                         << keyword << "\"";
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw something other than warpfold::invalid_argument: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

class LadderBadInput : public gpu_test {};

// For every step x finisher: a valid run, then the bad call, then the valid result again.
template <typename T>
void check_rejections() {
  const prepared_input<T> good("ladder-bad-input", 4099, sweep_mode<T>);
  std::vector<T> host_values(16, T(1));
  const warpfold_test::pinned_array<T> pinned(16);
  for (int i = 0; i < 16; ++i) pinned.data()[i] = T(1);

  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      SCOPED_TRACE(describe<T>(s, f, warpfold::ladder::default_block_size, good.input.size()));
      runner<T> r(s, f);
      ASSERT_TRUE(run_and_check(r, good));

      EXPECT_TRUE(rejects([&] { r.run(good.input.data(), -1); }, "negative")) << "n = -1";
      EXPECT_TRUE(rejects([&] { r.run(good.input.data(), -(std::int64_t{1} << 40)); }, "negative")) << "n = -2^40";
      EXPECT_TRUE(rejects([&] { r.run(nullptr, -5); }, "negative")) << "null pointer and n = -5";
      EXPECT_TRUE(rejects([&] { r.run(nullptr, 1); }, "null")) << "null pointer, n = 1";
      EXPECT_TRUE(rejects([&] { r.run(nullptr, 1000); }, "null")) << "null pointer, n = 1000";
      EXPECT_TRUE(rejects([&] { r.run(host_values.data(), 16); }, "not device memory")) << "std::vector data";
      EXPECT_TRUE(rejects([&] { r.run(pinned.data(), 16); }, "not device memory")) << "pinned host memory";

      // Nothing was launched or written: the last valid result is still the answer.
      EXPECT_TRUE(good.expected.matches(r.result())) << "the result after the rejected calls";
      EXPECT_TRUE(good.input.unchanged());
    }
  }
}

TEST_F(LadderBadInput, Int32IsRejectedWithAReason) { check_rejections<std::int32_t>(); }
TEST_F(LadderBadInput, FloatIsRejectedWithAReason) { check_rejections<float>(); }
TEST_F(LadderBadInput, DoubleIsRejectedWithAReason) { check_rejections<double>(); }

// n = 0 never dereferences the pointer, so null is fine: the sum of nothing is 0 and no
// kernel runs. A host pointer with n = 0 is also never touched.
TEST_F(LadderBadInput, EmptyInputIsZeroWhateverThePointer) {
  std::vector<float> host_values(4, 1.0f);
  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      SCOPED_TRACE(describe<float>(s, f, warpfold::ladder::default_block_size, 0));
      runner<float> r(s, f);
      EXPECT_NO_THROW(r.run(nullptr, 0));
      EXPECT_EQ(r.result(), 0.0f);
      EXPECT_EQ(r.launches(), 0);
      EXPECT_NO_THROW(r.run(host_values.data(), 0));
      EXPECT_EQ(r.result(), 0.0f);
    }
  }
}

// Managed memory is device-accessible, so it is accepted and summed.
TEST_F(LadderBadInput, ManagedMemoryIsAccepted) {
  const std::int64_t n = 100003;
  const std::vector<std::int32_t> values =
      warpfold_test::make_values<std::int32_t>(n, warpfold_test::seed_for("ladder-managed", n), value_mode::full_range);
  const expected_sum<std::int32_t> expected = warpfold_test::expect_sum<std::int32_t>(values);
  std::int32_t* managed = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&managed), n * sizeof(std::int32_t)));
  std::copy(values.begin(), values.end(), managed);
  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      SCOPED_TRACE(describe<std::int32_t>(s, f, warpfold::ladder::default_block_size, n) + ", managed memory");
      runner<std::int32_t> r(s, f);
      try {
        r.run(managed, n);
        EXPECT_TRUE(expected.matches(r.result()));
      } catch (const std::exception& e) {
        ADD_FAILURE() << "threw: " << e.what();
      }
    }
  }
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(std::equal(values.begin(), values.end(), managed)) << "managed input was written";
  WARPFOLD_TEST_CUDA(cudaFree(managed));
}

}  // namespace
}  // namespace ladder_test
