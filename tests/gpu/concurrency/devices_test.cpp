// Several GPUs: threads that call on different devices at the same time each get their own
// answer, and each device's calls use scratch on that device. Skips with a reason on a machine
// with one GPU.
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "concurrency_cases.hpp"

namespace {

using warpfold_test::gpu_test;
using warpfold_test::quick_mode;

class Devices : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) return;
    WARPFOLD_TEST_CUDA(cudaGetDeviceCount(&devices_));
    if (devices_ < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices_;
  }
  int devices_ = 0;
};

TEST_F(Devices, ThreadsOnEveryDeviceGetTheirOwnAnswers) {
  const std::int64_t n = (std::int64_t{1} << 22) + 7, rows = 5, cols = (std::int64_t{1} << 16) + 3;
  const int calls = quick_mode() ? 5 : 200;
  std::mutex guard;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2 * devices_; ++t) {
    threads.emplace_back([&, t] {
      const int device = t % devices_;
      auto fail = [&](const std::string& what) {
        std::lock_guard<std::mutex> lock(guard);
        failures.push_back("device " + std::to_string(device) + ", thread " + std::to_string(t) + ": " + what);
      };
      try {
        WARPFOLD_TEST_CUDA(cudaSetDevice(device));
        // Different data on every thread, so that an answer from another device shows.
        const std::vector<float> x = concurrency_test::exact_floats(n, 1000 + t);
        double total = 0, row_total[5] = {0, 0, 0, 0, 0};
        for (std::int64_t i = 0; i < n; ++i) total += x[i];
        for (std::int64_t i = 0; i < rows * cols; ++i) row_total[i / cols] += x[i];
        warpfold_test::device_array<float> d_x = warpfold_test::upload(x);
        warpfold_test::device_array<float> d_out(calls * (1 + rows));
        cudaStream_t s;
        WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
        for (int i = 0; i < calls; ++i) {
          warpfold::sum(d_x.data(), n, d_out.data() + i * (1 + rows), s);
          warpfold::sum_axes(d_x.data(), {rows, cols}, {1}, d_out.data() + i * (1 + rows) + 1, rows, s);
          if (i % 10 == 0 && warpfold::sum(d_x.data(), n) != float(total)) fail("blocking sum");
        }
        WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
        const std::vector<float> got = warpfold_test::download(d_out.data(), d_out.size());
        int wrong = 0;
        for (int i = 0; i < calls; ++i) {
          wrong += got[i * (1 + rows)] != float(total);
          for (int r = 0; r < rows; ++r) wrong += got[i * (1 + rows) + 1 + r] != float(row_total[r]);
        }
        if (wrong > 0) fail(std::to_string(wrong) + " wrong results");
        WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
      } catch (const std::exception& e) {
        fail(std::string("threw: ") + e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (int d = 0; d < devices_; ++d) EXPECT_GT(warpfold::cached_scratch_usage(d).bytes, 0u) << "device " << d << " has no scratch";
}

// Memory of another device is refused with a message that names both devices, and nothing is
// launched or written.
TEST_F(Devices, MemoryOfAnotherDeviceIsRefused) {
  WARPFOLD_TEST_CUDA(cudaSetDevice(1));
  const std::vector<float> x = concurrency_test::exact_floats(100000, 3);
  warpfold_test::device_array<float> on_one = warpfold_test::upload(x);
  WARPFOLD_TEST_CUDA(cudaSetDevice(0));
  warpfold_test::device_array<float> out(1);
  warpfold_test::fill_device_bytes(out.data(), 0xA5, sizeof(float));
  try {
    warpfold::sum(on_one.data(), std::int64_t(x.size()), out.data(), cudaStreamLegacy);
    ADD_FAILURE() << "memory of device 1 was accepted on device 0";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("device 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("device, 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(warpfold::sum_axes(on_one.data(), {100, 1000}, {1}), warpfold::invalid_argument);
  std::uint32_t poison = 0;
  WARPFOLD_TEST_CUDA(cudaMemcpy(&poison, out.data(), 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(poison, 0xA5A5A5A5u);
  WARPFOLD_TEST_CUDA(cudaSetDevice(1));
  EXPECT_EQ(warpfold::sum(on_one.data(), std::int64_t(x.size())), [&] {
    double t = 0;
    for (float v : x) t += v;
    return float(t);
  }());
  WARPFOLD_TEST_CUDA(cudaSetDevice(0));
}

}  // namespace
