// main() of every GPU test binary (warpfold_add_gpu_test links it instead of gtest_main).
//
// With a device: prints which one, runs the tests, returns their status.
// Without one: every test skips itself (WARPFOLD_REQUIRE_GPU), and if they all skipped
// cleanly the binary prints no_gpu_line() and returns 0; ctest matches that line with
// SKIP_REGULAR_EXPRESSION and reports the binary as skipped. The line depends only on
// whether a device exists, never on how many tests skipped, so on a GPU machine a binary is
// never reported as skipped. WARPFOLD_REQUIRE_GPU=1 (set by scripts/gpu-check) turns "no
// device" into a failure, for the machine where a device must be there.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "warpfold_test/generate.hpp"
#include "warpfold_test/gpu.hpp"
#include "warpfold_test/sizes.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* require = std::getenv("WARPFOLD_REQUIRE_GPU");
  const bool gpu = warpfold_test::gpu_available();
  if (gpu) {
    std::printf("warpfold: %s\n", warpfold_test::gpu_description().c_str());
  } else if (require != nullptr && std::string(require) == "1") {
    std::fprintf(stderr, "warpfold: no CUDA device (%s), and WARPFOLD_REQUIRE_GPU=1\n",
                 warpfold_test::gpu_unavailable_reason().c_str());
    return 1;
  }
  std::printf("warpfold: base seed %llu, %s sizes\n", static_cast<unsigned long long>(warpfold_test::base_seed()),
              warpfold_test::quick_mode() ? "quick (WARPFOLD_TEST_QUICK=1)" : "full");
  std::fflush(stdout);

  const int status = RUN_ALL_TESTS();
  if (!gpu && status == 0) std::printf("%s\n", warpfold_test::no_gpu_line().c_str());
  return status;
}
