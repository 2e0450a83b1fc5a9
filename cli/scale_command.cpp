// `warpfold bench --host` and `--distributed` (scale_command.hpp).
#include "scale_command.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/cuda_events.hpp"
#include "bench/device.hpp"
#include "bench/gpu.hpp"
#include "bench/output.hpp"
#include "bench/reference.hpp"
#include "ops_command.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/host_arrays.hpp"
#include "warpfold/reduce.hpp"
#ifdef WARPFOLD_HAVE_NCCL
#include <nccl.h>

#include "warpfold/sharded.hpp"
#endif

namespace warpfold::cli {

namespace {

using ops_detail::median;
using ops_detail::splitmix64;
using ops_detail::today;
using cell = bench::row_table::cell;

std::vector<std::string> scale_columns() {
  return {"impl", "mode", "op", "dtype", "gpus", "bytes", "time_us", "min_us", "max_us", "gbps", "vs_reference", "check", "device", "date"};
}

struct timing {
  double median_us = 0, min_us = 0, max_us = 0;
};
timing summarize(const std::vector<double>& us) {
  return {median(us), *std::min_element(us.begin(), us.end()), *std::max_element(us.begin(), us.end())};
}

// Runs body(begin, end) over [0, n) on every core, in slices of whole 1 Mi-element blocks.
void on_all_cores(std::int64_t n, const std::function<void(std::int64_t, std::int64_t, int)>& body, int* slices = nullptr) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (slices != nullptr) *slices = threads;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { body(n * t / threads, n * (t + 1) / threads, t); });
  for (std::thread& th : pool) th.join();
}

// Varied floats in [0, 1), written by every core: first touch on all of them, so the host's
// memory is mapped before anything is timed.
void fill_host(float* x, std::int64_t n, std::uint64_t seed) {
  on_all_cores(n, [&](std::int64_t b, std::int64_t e, int) {
    for (std::int64_t i = b; i < e; ++i) x[i] = static_cast<float>(splitmix64(seed + static_cast<std::uint64_t>(i)) >> 40) * 0x1p-24f;
  });
}

// The long double sum and magnitude sum, on every core, for the check.
bench::host_reference reference_of(const float* x, std::int64_t n) {
  std::vector<long double> sums(256, 0), abs_sums(256, 0);
  int slices = 0;
  on_all_cores(n, [&](std::int64_t b, std::int64_t e, int t) {
    long double s = 0, a = 0;
    for (std::int64_t i = b; i < e; ++i) {
      s += x[i];
      a += std::fabs(x[i]);
    }
    sums[t] = s;
    abs_sums[t] = a;
  }, &slices);
  bench::host_reference r;
  r.type = bench::dtype::f32;
  r.n = n;
  for (int t = 0; t < slices; ++t) {
    r.sum += sums[t];
    r.abs_sum += abs_sums[t];
  }
  return r;
}

std::string check_float_sum(const bench::host_reference& ref, float got) {
  bench::result_value v;
  v.real = got;
  const bench::check_outcome c = bench::check_result(bench::result_kind::float32, ref, v);
  return c.ok ? "ok" : "wrong answer: " + c.detail;
}

double wall_us(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// A row; a check other than "ok" (a wrong answer, or "n/a: why") has no figures.
void add_row(bench::row_table& table, const std::string& impl, const std::string& mode, const std::string& op, int gpus,
             double bytes, const timing& t, double vs_reference, const std::string& check, const std::string& device) {
  std::vector<cell> row = {impl, mode, op, std::string("f32"), std::int64_t{gpus}, static_cast<std::int64_t>(bytes)};
  if (check == "ok")
    row.insert(row.end(), {t.median_us, t.min_us, t.max_us, bytes / (t.median_us * 1e3), vs_reference});
  else
    row.insert(row.end(), {cell{}, cell{}, cell{}, cell{}, cell{}});
  row.insert(row.end(), {check, device, today()});
  table.add(row);
}

std::int64_t default_host_elements() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  // 60% of the host's memory at most: the bench also holds a pinned GiB, and the reference.
  const std::int64_t usable = pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page / 10 * 6 : std::int64_t{8} << 30;
  const std::int64_t elements = std::min<std::int64_t>(std::int64_t{1} << 34, usable / 4);
  return std::max<std::int64_t>(elements / (1 << 20) * (1 << 20), 1 << 20);
}

}  // namespace

int run_host_bench(const bench_options& o) {
  const bench::device_description device = bench::open_device(o.device);
  const std::int64_t n = o.sizes.front() > 0 ? o.sizes.front() : default_host_elements();
  const double bytes = double(n) * sizeof(float);
  int gpus = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDeviceCount(&gpus));
  bench::row_table table(scale_columns(), o.csv_path, o.json_path);
  const int trials = std::max(1, o.trials);
  int failures = 0;
  if (!o.quiet) std::cerr << "host array: " << n << " floats (" << bytes / (1 << 30) << " GiB), filling and touching it\n";
  std::unique_ptr<float[]> array(new float[static_cast<std::size_t>(n)]);
  fill_host(array.get(), n, 2026);
  const bench::host_reference reference = reference_of(array.get(), n);

  // The reference: the link's bandwidth from pinned memory, 1 GiB at a time.
  const std::int64_t piece = std::min<std::int64_t>(n, std::int64_t{1} << 28);  // 1 GiB of floats
  const double piece_bytes = double(piece) * sizeof(float);
  detail::pinned_buffer<float> pinned;
  detail::device_buffer<float> on_device;
  pinned.reserve(static_cast<std::size_t>(piece));
  on_device.reserve(static_cast<std::size_t>(piece));
  std::copy(array.get(), array.get() + piece, pinned.get());
  cudaStream_t stream;
  WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  bench::event_timer timer;
  std::vector<double> us;
  for (int t = 0; t <= trials; ++t) {  // the first is a warm-up
    timer.start(stream);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(on_device.get(), pinned.get(), piece_bytes, cudaMemcpyHostToDevice, stream));
    timer.stop(stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (t > 0) us.push_back(timer.elapsed_us());
  }
  const timing pinned_copy = summarize(us);
  const double pinned_gbps = piece_bytes / (pinned_copy.median_us * 1e3);
  add_row(table, "pinned-copy", "host", "copy", 1, piece_bytes, pinned_copy, 1.0, "ok", device.name);
  if (!o.quiet) std::cerr << "  pinned-copy: " << pinned_gbps << " GB/s\n";

  // A plain cudaMemcpy from pageable memory, and pinning in place, over the first 4 GiB.
  const std::int64_t prefix = std::min<std::int64_t>(n, std::int64_t{1} << 30);
  us.clear();
  for (int t = 0; t < std::min(trials, 3); ++t)
    us.push_back(wall_us([&] {
      for (std::int64_t at = 0; at < prefix; at += piece)
        WARPFOLD_CUDA_CHECK(cudaMemcpy(on_device.get(), array.get() + at, std::min(piece, prefix - at) * sizeof(float),
                                       cudaMemcpyHostToDevice));
    }));
  timing t = summarize(us);
  add_row(table, "pageable-copy", "host", "copy", 1, prefix * 4.0, t, prefix * 4.0 / (t.median_us * 1e3) / pinned_gbps, "ok", device.name);
  us.clear();
  std::string register_check = "ok";
  for (int k = 0; k < std::min(trials, 3) && register_check == "ok"; ++k)
    us.push_back(wall_us([&] {
      const cudaError_t e = cudaHostRegister(array.get(), prefix * sizeof(float), cudaHostRegisterDefault);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        register_check = std::string("n/a: cudaHostRegister failed: ") + cudaGetErrorString(e);
        return;
      }
      WARPFOLD_CUDA_CHECK(cudaHostUnregister(array.get()));
    }));
  t = register_check == "ok" ? summarize(us) : timing{};
  add_row(table, "host-register", "host", "register", 1, prefix * 4.0, t,
          register_check == "ok" ? prefix * 4.0 / (t.median_us * 1e3) / pinned_gbps : 0.0, register_check, device.name);

  // warpfold::sum_host from the pageable array: on one GPU, then on all of them; from pinned memory.
  auto time_sum = [&](const std::string& impl, const float* data, std::int64_t count, const bench::host_reference& ref,
                      const host_options& options, int used_gpus) {
    std::vector<double> samples;
    std::string check = check_float_sum(ref, warpfold::sum_host(data, count, options));  // also the warm-up
    for (int k = 0; k < trials && check == "ok"; ++k) {
      float got = 0;
      samples.push_back(wall_us([&] { got = warpfold::sum_host(data, count, options); }));
      check = check_float_sum(ref, got);
    }
    if (check != "ok") ++failures;
    const timing tt = check == "ok" ? summarize(samples) : timing{};
    const double b = double(count) * sizeof(float);
    add_row(table, impl, "host", "sum", used_gpus, b, tt, check == "ok" ? b / (tt.median_us * 1e3) / pinned_gbps : 0.0, check, device.name);
    if (!o.quiet)
      std::cerr << "  " << impl << " on " << used_gpus << " GPU(s): "
                << (check == "ok" ? std::to_string(b / (tt.median_us * 1e3)) + " GB/s" : check) << "\n";
  };
  host_options one;
  one.devices = {o.device};
  time_sum("warpfold", array.get(), n, reference, one, 1);
  if (gpus > 1) {
    host_options all;
    for (int d = 0; d < gpus; ++d) all.devices.push_back(d);
    time_sum("warpfold", array.get(), n, reference, all, gpus);
  }
  time_sum("warpfold-pinned", pinned.get(), piece, reference_of(pinned.get(), piece), one, 1);
  // The staging sweep (--chunk-mib, --copy-threads): what the library's defaults are chosen from.
  if (!o.chunk_mib.empty() || !o.copy_threads.empty()) {
    const std::vector<int> chunks = o.chunk_mib.empty() ? std::vector<int>{0} : o.chunk_mib;
    const std::vector<int> threads = o.copy_threads.empty() ? std::vector<int>{0} : o.copy_threads;
    for (int mib : chunks)
      for (int t : threads) {
        host_options swept = one;
        swept.chunk_bytes = static_cast<std::size_t>(mib) << 20;
        swept.copy_threads = t;
        const std::string name = "warpfold-" + (mib > 0 ? std::to_string(mib) + "MiB" : std::string("default")) + "-" +
                                 (t > 0 ? std::to_string(t) + "t" : std::string("default"));
        time_sum(name, array.get(), n, reference, swept, 1);
      }
  }
  WARPFOLD_CUDA_CHECK(cudaStreamDestroy(stream));
  table.finish();
  return failures > 0 ? 1 : 0;
}

#ifdef WARPFOLD_HAVE_NCCL
namespace {

// Every rank's thread meets here between trials.
class rank_barrier {
 public:
  explicit rank_barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return generation_ != generation; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_, arrived_ = 0;
  long generation_ = 0;
};

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw warpfold::error(std::string(what) + ": " + ncclGetErrorString(r));
}

}  // namespace

int run_distributed_bench(const bench_options& o) {
  const bench::device_description device = bench::open_device(0);
  int gpus = 0;
  WARPFOLD_CUDA_CHECK(cudaGetDeviceCount(&gpus));
  const std::int64_t n = o.sizes.front() > 0 ? o.sizes.front() : std::int64_t{1} << 30;
  const double shard_bytes = double(n) * sizeof(float);
  const int trials = std::max(1, o.trials);
  bench::row_table table(scale_columns(), o.csv_path, o.json_path);
  int failures = 0;
  if (!o.quiet) std::cerr << gpus << " GPU(s), " << n << " floats per GPU (" << shard_bytes / (1 << 30) << " GiB)\n";

  std::vector<int> devices(gpus);
  for (int d = 0; d < gpus; ++d) devices[d] = d;
  std::vector<ncclComm_t> comms(gpus);
  nccl_check(ncclCommInitAll(comms.data(), gpus, devices.data()), "ncclCommInitAll");
  std::vector<float*> shards(gpus, nullptr), outs(gpus, nullptr);
  std::vector<value_index<float>*> arg_outs(gpus, nullptr);
  std::vector<cudaStream_t> streams(gpus);
  std::vector<bench::host_reference> shard_refs(gpus);
  bench::host_reference total;
  total.type = bench::dtype::f32;
  for (int r = 0; r < gpus; ++r) {
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r));
    WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking));
    WARPFOLD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&shards[r]), std::max<std::int64_t>(n, 1) * sizeof(float)));
    WARPFOLD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&outs[r]), 2 * sizeof(float)));
    WARPFOLD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&arg_outs[r]), sizeof(value_index<float>)));
    bench::fill_varied(bench::dtype::f32, shards[r], n, 100 + r, streams[r]);
    std::vector<float> host(static_cast<std::size_t>(n));
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), shards[r], n * sizeof(float), cudaMemcpyDeviceToHost, streams[r]));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(streams[r]));
    shard_refs[r] = reference_of(host.data(), n);
    total.n += n;
    total.sum += shard_refs[r].sum;
    total.abs_sum += shard_refs[r].abs_sum;
  }

  // Times `call(rank)` on every rank at once: `batch` calls per trial, rank 0's events.
  auto time_ranks = [&](int ranks, int batch, const std::function<void(int)>& call) {
    rank_barrier barrier(ranks);
    std::vector<double> samples;
    std::vector<std::exception_ptr> errors(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        try {
          WARPFOLD_CUDA_CHECK(cudaSetDevice(r));
          bench::event_timer timer;
          for (int k = 0; k <= trials; ++k) {  // the first is a warm-up
            barrier.arrive_and_wait();
            if (r == 0) timer.start(streams[0]);
            for (int b = 0; b < batch; ++b) call(r);
            if (r == 0) timer.stop(streams[0]);
            WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(streams[r]));
            if (r == 0 && k > 0) samples.push_back(timer.elapsed_us() / batch);
          }
        } catch (...) {
          errors[r] = std::current_exception();
        }
      });
    for (std::thread& th : threads) th.join();
    for (const std::exception_ptr& e : errors)
      if (e != nullptr) std::rethrow_exception(e);
    return summarize(samples);
  };
  auto read_value = [&](int r) {
    float got = 0;
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r));
    WARPFOLD_CUDA_CHECK(cudaMemcpy(&got, outs[r], sizeof(float), cudaMemcpyDeviceToHost));
    return got;
  };
  auto read_index = [&](int r) {
    value_index<float> got{};
    WARPFOLD_CUDA_CHECK(cudaSetDevice(r));
    WARPFOLD_CUDA_CHECK(cudaMemcpy(&got, arg_outs[r], sizeof(got), cudaMemcpyDeviceToHost));
    return got.index;
  };

  // One GPU, one shard: the reference for the speedup.
  const timing one = time_ranks(1, 5, [&](int) { warpfold::sum(shards[0], n, outs[0], streams[0]); });
  std::string check = check_float_sum(shard_refs[0], read_value(0));
  failures += check != "ok";
  add_row(table, "warpfold-local", "sharded", "sum", 1, shard_bytes, one, 1.0, check, device.name);
  // NCCL's all-reduce of one float: the anchor of the combine step.
  const timing allreduce = time_ranks(gpus, 20, [&](int r) {
    nccl_check(ncclAllReduce(outs[r], outs[r] + 1, 1, ncclFloat32, ncclSum, comms[r], streams[r]), "ncclAllReduce");
  });
  add_row(table, "nccl-allreduce", "sharded", "sum", gpus, 4.0, allreduce, 1.0, "ok", device.name);
  // The combine alone: the sharded calls on empty shards. Sums combine through an all-reduce,
  // argmax through the gather (sharded.hpp).
  const timing combine = time_ranks(gpus, 20, [&](int r) { warpfold::sum_sharded(shards[r], 0, outs[r], comms[r], streams[r]); });
  check = read_value(0) == 0.0f ? "ok" : "wrong answer: empty shards did not sum to 0";
  failures += check != "ok";
  add_row(table, "warpfold-combine", "sharded", "sum", gpus, 0.0, combine, combine.median_us / allreduce.median_us, check,
          device.name);
  const timing combine_arg =
      time_ranks(gpus, 20, [&](int r) { warpfold::argmax_sharded(shards[r], 0, arg_outs[r], comms[r], streams[r]); });
  check = read_index(0) == -1 ? "ok" : "wrong answer: empty shards gave an index";
  failures += check != "ok";
  add_row(table, "warpfold-combine", "sharded", "argmax", gpus, 0.0, combine_arg, combine_arg.median_us / allreduce.median_us,
          check, device.name);
  // The sharded sum.
  const timing sharded = time_ranks(gpus, 5, [&](int r) { warpfold::sum_sharded(shards[r], n, outs[r], comms[r], streams[r]); });
  check = "ok";
  for (int r = 0; r < gpus && check == "ok"; ++r) check = check_float_sum(total, read_value(r));
  failures += check != "ok";
  add_row(table, "warpfold", "sharded", "sum", gpus, shard_bytes * gpus, sharded, gpus * one.median_us / sharded.median_us,
          check, device.name);
  if (!o.quiet)
    std::cerr << "  one GPU " << one.median_us << " us; " << gpus << " GPU(s) " << sharded.median_us << " us (speedup "
              << gpus * one.median_us / sharded.median_us << "); combine " << combine.median_us << " us (argmax "
              << combine_arg.median_us << " us), all-reduce " << allreduce.median_us << " us\n";
  for (int r = 0; r < gpus; ++r) {
    (void)cudaSetDevice(r);
    (void)cudaFree(shards[r]);
    (void)cudaFree(outs[r]);
    (void)cudaFree(arg_outs[r]);
    (void)cudaStreamDestroy(streams[r]);
    (void)ncclCommDestroy(comms[r]);
  }
  (void)cudaSetDevice(0);
  table.finish();
  return failures > 0 ? 1 : 0;
}
#else
int run_distributed_bench(const bench_options&) {
  throw warpfold::error("warpfold bench --distributed: this build has no NCCL (it was not found when warpfold was configured)");
}
#endif

}  // namespace warpfold::cli
