// The library's scratch memory: it does not grow with the streams a program ever used, it can
// be given back, a caller can bring their own, and running out of memory is an error that
// says so and goes away once memory is free again.
#include <gtest/gtest.h>

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "warpfold_test/graph_nodes.hpp"
#include "concurrency_cases.hpp"

namespace {

using namespace concurrency_test;
using warpfold_test::device_array;
using warpfold_test::device_input;
using warpfold_test::gpu_test;
using warpfold_test::quick_mode;

class ScratchMemory : public gpu_test {
 protected:
  int device() const {
    int d = 0;
    WARPFOLD_TEST_CUDA(cudaGetDevice(&d));
    return d;
  }
};

// Create a stream, make calls that use scratch on it, wait, destroy it: 10,000 times.
TEST_F(ScratchMemory, TenThousandStreamsLeaveTheCacheBounded) {
  const std::vector<const reduction_case*> cases = scratch_cases();
  const int streams = quick_mode() ? 300 : 10000;
  result_slots out(1, largest_output());
  warpfold::release_cached_memory();  // what earlier tests left is not this test's growth
  std::size_t most_blocks = 0, most_bytes = 0;
  int wrong = 0;
  for (int i = 0; i < streams; ++i) {
    cudaStream_t s;
    WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
    const reduction_case& c = *cases[i % cases.size()];
    out.poison(0, s);
    c.enqueue(out.device(0), s);
    out.fetch(0, s);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
    wrong += !mismatch(c, c.decode(out.host(0))).empty();
    const warpfold::scratch_usage u = warpfold::cached_scratch_usage(device());
    most_blocks = std::max(most_blocks, u.blocks);
    most_bytes = std::max(most_bytes, u.bytes);
  }
  EXPECT_EQ(wrong, 0);
  // 16 streams keep their blocks before a new stream reclaims; then a few spares, one for
  // each size of request that the cases make.
  EXPECT_LE(most_blocks, 16u + cases.size()) << "scratch grew with the number of streams";
  EXPECT_LE(most_bytes, std::size_t{64} << 20);
}

// Threads that each make one call on their own default stream (cudaStreamPerThread), then
// end: a new stream each time.
TEST_F(ScratchMemory, ShortLivedThreadsLeaveTheCacheBounded) {
  const reduction_case& c = *scratch_cases().front();
  const int threads = quick_mode() ? 40 : 400;
  warpfold::release_cached_memory();
  int wrong = 0;
  std::size_t most_blocks = 0;
  for (int t = 0; t < threads; ++t) {
    std::string m;
    std::thread([&] {
      try {
        m = mismatch(c, c.blocking(cudaStreamPerThread));
      } catch (const std::exception& e) {
        m = e.what();
      }
    }).join();
    wrong += !m.empty();
    const warpfold::scratch_usage u = warpfold::cached_scratch_usage(device());
    most_blocks = std::max(most_blocks, u.blocks);
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_LE(most_blocks, 17u);
}

TEST_F(ScratchMemory, ReleaseCachedMemoryFreesWhatNothingUses) {
  result_slots out(1, largest_output());
  cudaStream_t streams[3];
  for (cudaStream_t& s : streams) WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
  for (const reduction_case* c : scratch_cases())
    for (cudaStream_t s : streams) c->enqueue(out.device(0), s);
  for (cudaStream_t s : streams) WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  EXPECT_GT(warpfold::cached_scratch_usage(device()).bytes, 0u);
  warpfold::release_cached_memory();
  const warpfold::scratch_usage after = warpfold::cached_scratch_usage(device());
  EXPECT_EQ(after.blocks, 0u);
  EXPECT_EQ(after.bound_to_streams, 0u);
  // And the library works on as before, on the same streams.
  for (const reduction_case* c : scratch_cases()) {
    out.poison(0, streams[0]);
    c->enqueue(out.device(0), streams[0]);
    out.fetch(0, streams[0]);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(streams[0]));
    EXPECT_EQ(mismatch(*c, c->decode(out.host(0))), "");
  }
  for (cudaStream_t s : streams) WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

// Scratch from the caller's own allocator (here CUDA's stream-ordered pool), filled with
// garbage: the call clears what it needs, leaves the library's pool alone, and is right.
TEST_F(ScratchMemory, CallersScratchFromTheirOwnAllocator) {
  const std::int64_t n = (std::int64_t{1} << 20) + 3;
  const std::vector<float> values = exact_floats(n, 77);
  double total = 0;
  for (float v : values) total += v;
  const device_input<float> input(values);
  const std::size_t bytes = warpfold::reduce_scratch_bytes<warpfold::op::sum, float>(n);
  ASSERT_GT(bytes, 0u);
  EXPECT_EQ((warpfold::reduce_scratch_bytes<warpfold::op::sum, float>(1000)), 0u) << "one block needs no scratch";

  cudaStream_t s;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
  void* scratch = nullptr;
  WARPFOLD_TEST_CUDA(cudaMallocAsync(&scratch, bytes, s));
  WARPFOLD_TEST_CUDA(cudaMemsetAsync(scratch, 0xFF, bytes, s));
  result_slots out(2, 8);
  const std::size_t bound_before = warpfold::cached_scratch_usage(device()).bound_to_streams;
  out.poison(0, s);
  warpfold::sum(input.data(), n, static_cast<float*>(out.device(0)), s, warpfold::scratch_space{scratch, bytes});
  out.fetch(0, s);
  // Captured with the caller's scratch: the graph uses that memory at every replay.
  {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    warpfold::sum(input.data(), n, static_cast<float*>(out.device(1)), s, warpfold::scratch_space{scratch, bytes});
    WARPFOLD_TEST_CUDA(cudaStreamEndCapture(s, &graph));
    WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < 3; ++r) WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, s));
    out.fetch(1, s);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
    WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  }
  EXPECT_EQ(*static_cast<const float*>(out.host(0)), float(total));
  EXPECT_EQ(*static_cast<const float*>(out.host(1)), float(total));
  EXPECT_EQ(warpfold::cached_scratch_usage(device()).bound_to_streams, bound_before) << "the pool was not used";

  // Too small, or not device memory: refused before anything is written.
  out.poison(0, s);
  EXPECT_THROW(warpfold::sum(input.data(), n, static_cast<float*>(out.device(0)), s, warpfold::scratch_space{scratch, 64}),
               warpfold::invalid_argument);
  std::vector<unsigned char> host(bytes);
  EXPECT_THROW(warpfold::sum(input.data(), n, static_cast<float*>(out.device(0)), s, warpfold::scratch_space{host.data(), bytes}),
               warpfold::invalid_argument);
  out.fetch(0, s);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  std::uint32_t poison;
  std::memcpy(&poison, out.host(0), 4);
  EXPECT_EQ(poison, 0xA5A5A5A5u) << "a refused call wrote its output";
  WARPFOLD_TEST_CUDA(cudaFreeAsync(scratch, s));
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
  EXPECT_TRUE(input.unchanged());
}

// The same for an axis reduction whose column tiles are split over blocks; a shape that is
// not split needs none.
TEST_F(ScratchMemory, CallersScratchForAxisReductions) {
  const std::int64_t rows = (std::int64_t{1} << 15) + 3, cols = 40;
  const std::vector<float> x = exact_floats(rows * cols, 91);
  std::vector<double> expected(cols, 0.0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k) expected[k] += x[r * cols + k];
  const device_input<float> input(x);
  const std::size_t bytes = warpfold::reduce_axes_scratch_bytes<warpfold::op::sum>(input.data(), {rows, cols}, {0});
  ASSERT_GT(bytes, 0u);
  const std::size_t unsplit = warpfold::reduce_axes_scratch_bytes<warpfold::op::sum>(input.data(), {rows, cols}, {});
  EXPECT_EQ(unsplit, 0u);
  device_array<unsigned char> scratch(bytes);
  warpfold_test::fill_device_bytes(scratch.data(), 0x7F, bytes);
  device_array<float> out(cols);
  warpfold::sum_axes(input.data(), {rows, cols}, {0}, out.data(), cols, cudaStreamLegacy,
                     warpfold::scratch_space{scratch.data(), bytes});
  const std::vector<float> got = warpfold_test::download(out.data(), cols);
  for (std::int64_t k = 0; k < cols; ++k) EXPECT_EQ(got[k], float(expected[k])) << "column " << k;
  EXPECT_THROW(warpfold::sum_axes(input.data(), {rows, cols}, {0}, out.data(), cols, cudaStreamLegacy,
                                  warpfold::scratch_space{scratch.data(), 64}),
               warpfold::invalid_argument);
}

// The same for lists of many arrays, from the device-list form: a list short enough for each
// block to plan its share, and one long enough for a plan kernel, whose plan lives in the
// caller's scratch. many_scratch_bytes(count) is enough for any list of that length, captured
// or not, and less is refused before anything is written.
TEST_F(ScratchMemory, CallersScratchForManyArrays) {
  for (const std::int64_t count : {std::int64_t{37}, std::int64_t{5003}}) {
    SCOPED_TRACE(::testing::Message() << count << " arrays");
    std::vector<std::int64_t> sizes(count);
    std::int64_t total = 0;
    for (std::int64_t a = 0; a < count; ++a) total += sizes[a] = (a * 7919) % (count < 100 ? 30011 : 611);
    const std::vector<float> x = exact_floats(total, 93 + count);
    const device_input<float> input(x);
    const std::vector<warpfold::array_ref<float>> list = pieces_of(input.data(), sizes);
    const std::vector<double> sums = sums_of(list, input.data(), x);
    const std::vector<float> expected(sums.begin(), sums.end());
    const device_array<warpfold::array_ref<float>> d_list = warpfold_test::upload(list);

    const std::size_t bytes = warpfold::many_scratch_bytes(count);
    ASSERT_GT(bytes, 0u);
    cudaStream_t s;
    WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
    void* scratch = nullptr;
    WARPFOLD_TEST_CUDA(cudaMallocAsync(&scratch, bytes, s));
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(scratch, 0xFF, bytes, s));
    result_slots out(2, (count + 1) * sizeof(float));
    auto per_array = [&](int slot) { return static_cast<float*>(out.device(slot)); };
    const std::size_t bound_before = warpfold::cached_scratch_usage(device()).bound_to_streams;
    out.poison(0, s);
    warpfold::sum_many<float>(d_list.data(), count, per_array(0), per_array(0) + count, s, nullptr,
                              warpfold::scratch_space{scratch, bytes});
    out.fetch(0, s);
    {  // captured with the caller's scratch: the graph uses that memory at every replay
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      warpfold::sum_many<float>(d_list.data(), count, per_array(1), per_array(1) + count, s, nullptr,
                                warpfold::scratch_space{scratch, bytes});
      WARPFOLD_TEST_CUDA(cudaStreamEndCapture(s, &graph));
      EXPECT_EQ(warpfold_test::graph_nodes_of_type(graph, cudaGraphNodeTypeMemAlloc).size(), 0u);
      WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      out.poison(1, s);
      for (int r = 0; r < 3; ++r) WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, s));
      out.fetch(1, s);
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
      WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
      WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
    }
    for (int slot = 0; slot < 2; ++slot) {
      std::vector<float> got(count + 1);
      std::memcpy(got.data(), out.host(slot), got.size() * sizeof(float));
      EXPECT_EQ(got, expected) << (slot == 0 ? "direct call" : "graph replays");
    }
    EXPECT_EQ(warpfold::cached_scratch_usage(device()).bound_to_streams, bound_before) << "the pool was not used";

    out.poison(0, s);
    EXPECT_THROW(warpfold::sum_many<float>(d_list.data(), count, per_array(0), per_array(0) + count, s, nullptr,
                                           warpfold::scratch_space{scratch, 64}),
                 warpfold::invalid_argument);
    out.fetch(0, s);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    std::vector<unsigned char> after((count + 1) * sizeof(float));
    std::memcpy(after.data(), out.host(0), after.size());
    EXPECT_EQ(std::count(after.begin(), after.end(), 0xA5), std::ptrdiff_t(after.size())) << "a refused call wrote its output";
    WARPFOLD_TEST_CUDA(cudaFreeAsync(scratch, s));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
    WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
    EXPECT_TRUE(input.unchanged());
  }
}

// With the device full, a call that needs new scratch throws a cuda_error that says so; once
// memory is free again, the same call works. ("Large": it fills the whole device.)
TEST_F(ScratchMemory, OutOfMemoryIsAnErrorThatGoesAwayLarge) {
  const reduction_case& c = *scratch_cases().front();
  result_slots out(1, largest_output());
  cudaStream_t s;  // made before the device is full: creating a stream needs memory too
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&s));
  warpfold::release_cached_memory();
  std::vector<void*> hog;
  for (std::size_t chunk = std::size_t{1} << 30; chunk >= 4096; chunk /= 4) {
    for (;;) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) != cudaSuccess) {
        (void)cudaGetLastError();
        break;
      }
      hog.push_back(p);
    }
  }
  std::string message;
  try {
    c.enqueue(out.device(0), s);  // the stream's first call: it needs a block of scratch
    message = "no error";
  } catch (const warpfold::cuda_error& e) {
    message = e.what();
  }
  for (void* p : hog) WARPFOLD_TEST_CUDA(cudaFree(p));
  EXPECT_NE(message.find("out of device memory"), std::string::npos) << message;
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  out.poison(0, s);
  c.enqueue(out.device(0), s);
  out.fetch(0, s);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
  EXPECT_EQ(mismatch(c, c.decode(out.host(0))), "");
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(s));
}

}  // namespace
