// Bad input gets a warpfold::invalid_argument that says what is wrong, and nothing is written:
// the async output keeps its poison, and no kernel runs.
#include <algorithm>
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

// The other side of the pointer check: every kind of device-readable memory is accepted.
// Managed memory, and memory from a stream-ordered pool (cudaMallocAsync), as input and output.
TEST_F(ReduceBadInput, ManagedAndPoolMemoryAreAccepted) {
  const std::int64_t n = 100003;
  const std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("accepted-memory", n));
  const expected_sum<std::int64_t> expected = expect_sum<std::int64_t>(values);

  std::int32_t* managed = nullptr;
  std::int64_t* managed_out = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&managed), n * sizeof(std::int32_t)));
  WARPFOLD_TEST_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&managed_out), sizeof(std::int64_t)));
  std::copy(values.begin(), values.end(), managed);
  EXPECT_TRUE(expected.matches(warpfold::sum(managed, n)));
  warpfold::sum(managed, n, managed_out, nullptr);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(expected.matches(*managed_out));
  WARPFOLD_TEST_CUDA(cudaFree(managed_out));
  WARPFOLD_TEST_CUDA(cudaFree(managed));

  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  std::int32_t* pooled = nullptr;
  std::int64_t* pooled_out = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&pooled), n * sizeof(std::int32_t), stream));
  WARPFOLD_TEST_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&pooled_out), sizeof(std::int64_t), stream));
  WARPFOLD_TEST_CUDA(cudaMemcpyAsync(pooled, values.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream));
  warpfold::sum(pooled, n, pooled_out, stream);
  std::int64_t got = 0;
  WARPFOLD_TEST_CUDA(cudaMemcpyAsync(&got, pooled_out, sizeof got, cudaMemcpyDeviceToHost, stream));
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  EXPECT_TRUE(expected.matches(got));
  WARPFOLD_TEST_CUDA(cudaFreeAsync(pooled_out, stream));
  WARPFOLD_TEST_CUDA(cudaFreeAsync(pooled, stream));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
