// `warpfold many` (ops_command.hpp): per-array L2 norms and the combined norm of lists of
// device arrays, each answer checked against host references.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cuda_events.hpp"
#include "bench/device.hpp"
#include "bench/dtype.hpp"
#include "bench/gpu.hpp"
#include "bench/output.hpp"
#include "ops_command.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"

namespace warpfold::cli {

namespace {

using namespace ops_detail;

struct named_list {
  std::string name;
  std::vector<std::int64_t> sizes;
};

// The lists (scripts/many_torch.py builds the same ones for torch):
// - gpt2-small: GPT-2 small's 148 parameter tensors (124M floats), from its published shapes;
// - small-5000: 5,000 arrays of 1 to 16,384 elements (log-spread, integer hash of the index);
// - mix-1000: 1,000 arrays of 1 to 4M elements, spread the same way;
// - tiny-20000: 20,000 arrays of 1 to 1,024 elements, spread the same way: more arrays than a
//   block plans for itself (the plan kernel's path).
std::vector<named_list> standard_lists() {
  std::vector<named_list> lists;
  named_list gpt2{"gpt2-small", {}};
  const std::int64_t d = 768, vocabulary = 50257, positions = 1024;
  gpt2.sizes = {vocabulary * d, positions * d};
  for (int layer = 0; layer < 12; ++layer)
    for (std::int64_t s : {d, d, d * 3 * d, 3 * d, d * d, d, d, d, d * 4 * d, 4 * d, 4 * d * d, d}) gpt2.sizes.push_back(s);
  gpt2.sizes.push_back(d);
  gpt2.sizes.push_back(d);
  lists.push_back(gpt2);
  auto spread = [](const std::string& name, int count, int max_bits, std::uint64_t seed) {
    named_list l{name, {}};
    for (int i = 0; i < count; ++i) {
      const std::uint64_t bits = splitmix64(seed + 2 * std::uint64_t(i)) % (max_bits + 1);
      l.sizes.push_back(1 + static_cast<std::int64_t>(splitmix64(seed + 2 * std::uint64_t(i) + 1) % (std::uint64_t{1} << bits)));
    }
    return l;
  };
  lists.push_back(spread("small-5000", 5000, 14, 5000));
  lists.push_back(spread("mix-1000", 1000, 22, 1000));
  lists.push_back(spread("tiny-20000", 20000, 10, 20000));
  return lists;
}

// A stretch of stream work captured once into a graph, replayed as often as needed.
class captured_calls {
 public:
  captured_calls() = default;
  captured_calls(const captured_calls&) = delete;
  captured_calls& operator=(const captured_calls&) = delete;
  ~captured_calls() {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  }
  void capture(cudaStream_t stream, const std::function<void()>& work) {
    WARPFOLD_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      work();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(stream, &broken);
      if (broken != nullptr) (void)cudaGraphDestroy(broken);
      throw;
    }
    WARPFOLD_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    WARPFOLD_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t stream) { WARPFOLD_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

void run_list(const named_list& list, const ops_options& o, double ceiling_gbps, double launch_us, const std::string& device,
              cudaStream_t stream, bench::row_table& table, int& failures) {
  using T = float;
  // Arrays at 256-byte boundaries, as allocators place tensors.
  std::vector<std::int64_t> starts;
  std::int64_t at = 0, elements = 0;
  for (std::int64_t s : list.sizes) {
    starts.push_back(at);
    at += (s + 63) / 64 * 64;
    elements += s;
  }
  warpfold::detail::device_buffer<T> data;
  data.reserve(static_cast<std::size_t>(at));
  bench::fill_varied(bench::dtype::f32, data.get(), at, 77, stream);
  std::vector<T> host(static_cast<std::size_t>(at));
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), data.get(), at * sizeof(T), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::size_t A = list.sizes.size();
  std::vector<warpfold::array_ref<T>> refs;
  std::vector<double> expected(A);
  long double all_squares = 0;
  for (std::size_t a = 0; a < A; ++a) {
    refs.push_back({data.get() + starts[a], list.sizes[a]});
    long double squares = 0;
    for (std::int64_t i = 0; i < list.sizes[a]; ++i) squares += static_cast<long double>(host[starts[a] + i]) * host[starts[a] + i];
    expected[a] = static_cast<double>(std::sqrt(squares));
    all_squares += squares;
  }
  const double expected_all = static_cast<double>(std::sqrt(all_squares));
  warpfold::detail::device_buffer<warpfold::array_ref<T>> d_list;
  d_list.reserve(A);
  WARPFOLD_CUDA_CHECK(cudaMemcpy(d_list.get(), refs.data(), A * sizeof(refs[0]), cudaMemcpyHostToDevice));
  warpfold::detail::device_buffer<float> per, all;
  per.reserve(A);
  all.reserve(1);

  struct way {
    std::string impl;
    std::function<void()> call;
    bool combined;
    bool graph = false;  // timed as a replayed CUDA graph of the batch's calls, not as stream calls
  };
  const auto device_list_call = [&] { warpfold::norm_l2_many(d_list.get(), std::int64_t(A), per.get(), all.get(), stream); };
  const std::vector<way> ways = {
      {"warpfold", device_list_call, true},
      {"warpfold-graph", device_list_call, true, true},
      {"warpfold-host-list", [&] { warpfold::norm_l2_many(refs, per.get(), all.get(), stream); }, true},
      {"warpfold-loop",
       [&] {
         for (std::size_t a = 0; a < A; ++a) warpfold::norm_l2(refs[a].data, refs[a].size, per.get() + a, stream);
       },
       false},
  };
  const double bytes = double(elements) * sizeof(T);
  const double limit_us = bytes / (ceiling_gbps * 1e3) + launch_us;
  bench::event_timer timer;
  for (const way& w : ways) {
    std::string problem;
    auto verify = [&] {
      WARPFOLD_CUDA_CHECK(cudaMemsetAsync(per.get(), 0xFF, A * sizeof(float), stream));
      WARPFOLD_CUDA_CHECK(cudaMemsetAsync(all.get(), 0xFF, sizeof(float), stream));
      w.call();
      std::vector<float> got(A);
      float got_all = 0;
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(got.data(), per.get(), A * sizeof(float), cudaMemcpyDeviceToHost, stream));
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&got_all, all.get(), sizeof(float), cudaMemcpyDeviceToHost, stream));
      WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
      for (std::size_t a = 0; a < A && problem.empty(); ++a)
        if (!(std::fabs(got[a] - expected[a]) <= 1e-5 * expected[a] + 1e-30))
          problem = "array " + std::to_string(a) + ": got " + std::to_string(got[a]) + ", expected " + std::to_string(expected[a]);
      if (w.combined && problem.empty() && !(std::fabs(got_all - expected_all) <= 1e-5 * expected_all))
        problem = "combined: got " + std::to_string(got_all) + ", expected " + std::to_string(expected_all);
    };
    verify();
    timer.start(stream);
    w.call();
    timer.stop(stream);
    const int batch = static_cast<int>(std::clamp(2000.0 / std::max(timer.elapsed_us(), 1.0), 1.0, 2000.0));
    // A graph holds the batch's calls; replaying it costs the GPU's time, not the host's (the
    // device-list call can be captured, which is what a training step does with it).
    captured_calls graph;
    if (w.graph) graph.capture(stream, [&] {
      for (int k = 0; k < batch; ++k) w.call();
    });
    auto run_batch = [&] {
      if (w.graph) graph.launch(stream);
      else for (int k = 0; k < batch; ++k) w.call();
    };
    std::vector<double> trials;
    for (int t = 0; t < o.trials && problem.empty(); ++t) {
      run_batch();
      timer.start(stream);
      run_batch();
      timer.stop(stream);
      trials.push_back(timer.elapsed_us() / batch);
      verify();
    }
    using cell = bench::row_table::cell;
    std::vector<cell> row = {w.impl, list.name, static_cast<std::int64_t>(A), elements};
    if (problem.empty()) {
      const double us = median(trials);
      row.insert(row.end(), {us, bytes / (us * 1e3), ceiling_gbps, limit_us, us / limit_us, std::string("ok")});
      if (!o.quiet) std::cerr << "  " << list.name << " " << w.impl << ": " << us << " us (" << us / limit_us << "x the limit)\n";
    } else {  // a wrong answer has no time
      row.insert(row.end(), {cell{}, cell{}, ceiling_gbps, limit_us, cell{}, "wrong answer: " + problem});
      std::cerr << "  " << list.name << " " << w.impl << ": WRONG ANSWER: " << problem << "\n";
      ++failures;
    }
    row.insert(row.end(), {device, today()});
    table.add(row);
  }
}

}  // namespace

int run_many(const ops_options& o) {
  const bench::device_description device = bench::open_device(o.device);
  bench::row_table table({"impl", "list", "arrays", "elements", "time_us", "gbps", "ceiling_gbps", "limit_us",
                          "ratio_to_limit", "check", "device", "date"},
                         o.csv_path, o.json_path);
  cudaStream_t stream;
  WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double ceiling = measure_ceiling_gbps(stream);
  const double launch_us = bench::measure_launch_floor(9, 1000, stream).time_us.median;
  if (!o.quiet) std::cerr << "read ceiling " << ceiling << " GB/s, one launch " << launch_us << " us\n";
  int failures = 0;
  for (const named_list& list : standard_lists())
    if (o.lists.empty() || std::find(o.lists.begin(), o.lists.end(), list.name) != o.lists.end())
      run_list(list, o, ceiling, launch_us, device.name, stream, table, failures);
  WARPFOLD_CUDA_CHECK(cudaStreamDestroy(stream));
  table.finish();
  return failures > 0 ? 1 : 0;
}

}  // namespace warpfold::cli
