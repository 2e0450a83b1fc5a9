// Whether a CUDA device is there, and the one way tests skip when it is not.
// Every GPU test calls WARPFOLD_REQUIRE_GPU() (or derives from gpu_test), so on a machine
// without a device each test is reported as skipped, with the CUDA error that says why.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace warpfold_test {

// True when cudaGetDeviceCount finds at least one device. Asked once, then cached.
bool gpu_available();

// Why there is no device: the CUDA error name and text, or "0 devices". Empty with a device.
const std::string& gpu_unavailable_reason();

// One line about device 0 for logs: name, compute capability, SMs, memory. Needs a device.
std::string gpu_description();

// The exact line a GPU test binary prints, and nothing else does, when it ran on a machine
// without a device and every test skipped. ctest's SKIP_REGULAR_EXPRESSION matches it (see
// tests/CMakeLists.txt), so the binary is reported as skipped rather than passed.
std::string no_gpu_line();

// The test support's own error path: a failed CUDA call throws std::runtime_error naming
// the call; GoogleTest reports the exception as a failure of the running test.
void check_cuda(cudaError_t status, const char* expression, const char* file, int line);

}  // namespace warpfold_test

#define WARPFOLD_TEST_CUDA(expression) ::warpfold_test::check_cuda((expression), #expression, __FILE__, __LINE__)

// Skips the current test, with the reason, when there is no device. Use at the top of a test
// body or in SetUp(); GTEST_SKIP() returns from the enclosing function only, so it cannot be
// wrapped in a helper function.
#define WARPFOLD_REQUIRE_GPU()                                                                 \
  do {                                                                                         \
    if (!::warpfold_test::gpu_available())                                                     \
      GTEST_SKIP() << "no CUDA device: " << ::warpfold_test::gpu_unavailable_reason();         \
  } while (0)

namespace warpfold_test {

// Fixtures whose tests all need a device.
class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override { WARPFOLD_REQUIRE_GPU(); }
};

template <typename Param>
class gpu_test_with_param : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { WARPFOLD_REQUIRE_GPU(); }
};

}  // namespace warpfold_test
