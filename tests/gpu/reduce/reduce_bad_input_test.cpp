// Bad input gets a warpfold::invalid_argument that says what is wrong, and nothing is written:
// the async output keeps its poison, and no kernel runs.
#include <string>
#include <vector>

#include "reduce_test_util.hpp"

namespace {

using namespace warpfold_test;

class ReduceBadInput : public gpu_test {
 protected:
  // Expects `call(out)` to throw invalid_argument mentioning `words`, and `out` untouched.
  template <typename Call>
  void expect_rejected(Call call, const std::string& words) {
    device_array<float> out(1);
    const float poison = -12345.0f;
    copy_to_device(out.data(), &poison, 1);
    try {
      call(out.data());
      ADD_FAILURE() << "expected warpfold::invalid_argument mentioning '" << words << "'";
    } catch (const warpfold::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << "message: " << e.what();
    }
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    float after;
    copy_to_host(&after, out.data(), 1);
    EXPECT_EQ(after, poison) << "a rejected call wrote its output";
  }
};

TEST_F(ReduceBadInput, NegativeSize) {
  const device_input<float> input(make_values<float>(10, 1));
  expect_rejected([&](float* out) { warpfold::sum(input.data(), -1, out, nullptr); }, "negative");
  expect_rejected([&](float*) { warpfold::max(input.data(), -5); }, "negative");
}

TEST_F(ReduceBadInput, NullPointerWithElements) {
  const float* null_input = nullptr;
  expect_rejected([&](float* out) { warpfold::sum(null_input, 10, out, nullptr); }, "null");
  expect_rejected([&](float*) { warpfold::argmin(null_input, 1); }, "null");
}

TEST_F(ReduceBadInput, HostPointers) {
  std::vector<float> pageable(1000, 1.0f);
  expect_rejected([&](float* out) { warpfold::sum(pageable.data(), 1000, out, nullptr); }, "not device memory");
  pinned_array<float> pinned(1000);
  expect_rejected([&](float*) { warpfold::min(pinned.data(), 1000); }, "not device memory");
}

TEST_F(ReduceBadInput, HostOrNullOutput) {
  const device_input<float> input(make_values<float>(1000, 2));
  float host_result = 0;
  EXPECT_THROW(warpfold::sum(input.data(), 1000, &host_result, nullptr), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::sum(input.data(), 1000, static_cast<float*>(nullptr), nullptr), warpfold::invalid_argument);
  EXPECT_TRUE(input.unchanged());
}

}  // namespace
