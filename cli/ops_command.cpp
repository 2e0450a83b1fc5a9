#include "ops_command.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <future>
#include <iostream>
#include <limits>
#include <sstream>
#include <vector>

#include "bench/cuda_events.hpp"
#include "bench/device.hpp"
#include "bench/dtype.hpp"
#include "bench/dtype_types.hpp"
#include "bench/gpu.hpp"
#include "bench/ops.hpp"
#include "bench/output.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::cli {

namespace ops_detail {

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double measure_ceiling_gbps(cudaStream_t stream) {
  warpfold::detail::device_buffer<unsigned char> buffer;
  const std::int64_t bytes = std::int64_t{1} << 30;
  buffer.reserve(static_cast<std::size_t>(bytes));
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, bytes, stream));
  return bench::measure_read_ceiling(buffer.get(), bytes, 9, stream).gbps;
}

}  // namespace ops_detail

namespace {

using namespace ops_detail;
using bench::ops::candidate;
using bench::ops::op_kind;

// The host references of one input (x, and y for dot), in long double, computed on all cores.
struct references {
  long double sum = 0, l1 = 0, squares = 0, linf = 0, dot = 0, min = 0, max = 0, m2 = 0;
  long double prod = 1;  // of the product's own buffer
  std::int64_t n = 0;
  std::vector<long double> x_values;  // only to check an index: x at it must be the extremum
};

template <typename T>
long double real(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return static_cast<long double>(v);
}

template <typename T>
references references_of(const std::vector<T>& x, const std::vector<T>& y, std::int64_t n) {
  references r;
  r.n = n;
  const int parts = 16;
  struct partial {
    long double sum = 0, l1 = 0, squares = 0, linf = 0, dot = 0, min = INFINITY, max = -INFINITY;
  };
  std::vector<std::future<partial>> work;
  for (int p = 0; p < parts; ++p)
    work.push_back(std::async(std::launch::async, [&, p] {
      partial q;
      for (std::int64_t i = n * p / parts; i < n * (p + 1) / parts; ++i) {
        const long double v = real(x[i]);
        q.sum += v;
        q.l1 += std::fabs(v);
        q.squares += v * v;
        q.linf = std::max(q.linf, std::fabs(v));
        q.dot += v * real(y[i]);
        q.min = std::min(q.min, v);
        q.max = std::max(q.max, v);
      }
      return q;
    }));
  r.min = INFINITY;
  r.max = -INFINITY;
  for (auto& w : work) {
    const partial q = w.get();
    r.sum += q.sum, r.l1 += q.l1, r.squares += q.squares, r.dot += q.dot;
    r.linf = std::max(r.linf, q.linf), r.min = std::min(r.min, q.min), r.max = std::max(r.max, q.max);
  }
  const long double mean = r.sum / n;
  std::vector<std::future<long double>> deviations;
  for (int p = 0; p < parts; ++p)
    deviations.push_back(std::async(std::launch::async, [&, p] {
      long double m2 = 0;
      for (std::int64_t i = n * p / parts; i < n * (p + 1) / parts; ++i) m2 += (real(x[i]) - mean) * (real(x[i]) - mean);
      return m2;
    }));
  for (auto& d : deviations) r.m2 += d.get();
  return r;
}

// The product of p's values, in long double, on all cores (each part's product, then theirs).
template <typename T>
long double product_of(const std::vector<T>& p) {
  const int parts = 16;
  const auto n = static_cast<std::int64_t>(p.size());
  std::vector<std::future<long double>> work;
  for (int part = 0; part < parts; ++part)
    work.push_back(std::async(std::launch::async, [&, part] {
      long double q = 1;
      for (std::int64_t i = n * part / parts; i < n * (part + 1) / parts; ++i) q *= real(p[i]);
      return q;
    }));
  long double product = 1;
  for (auto& w : work) product *= w.get();
  return product;
}

// Empty when the answer is right; otherwise what is wrong.
template <typename T>
std::string check(op_kind op, double got, const references& r, const std::vector<T>& x, double tolerance) {
  auto relative = [&](long double expected) -> std::string {
    const long double scale = std::max<long double>(std::fabs(expected), 1e-30L);
    if (std::fabs(got - expected) <= tolerance * scale) return "";
    std::ostringstream s;
    s << "got " << got << ", expected " << static_cast<double>(expected);
    return s.str();
  };
  switch (op) {
    case op_kind::sum: return relative(r.sum);
    case op_kind::prod: return relative(r.prod);
    case op_kind::min: return relative(r.min);
    case op_kind::max: return relative(r.max);
    case op_kind::argmin:
    case op_kind::argmax: {
      const auto i = static_cast<std::int64_t>(got);
      if (i < 0 || i >= r.n) return "index " + std::to_string(i) + " out of range";
      const long double at = real(x[static_cast<std::size_t>(i)]);
      return at == (op == op_kind::argmin ? r.min : r.max) ? "" : "index " + std::to_string(i) + " holds no extremum";
    }
    case op_kind::norm_l1: return relative(r.l1);
    case op_kind::norm_l2: return relative(std::sqrt(r.squares));
    case op_kind::norm_linf: return relative(r.linf);
    case op_kind::dot: return relative(r.dot);
    case op_kind::mean: return relative(r.sum / r.n);
    case op_kind::var_mean: return relative(r.m2 / (r.n - 1));
  }
  return "unknown op";
}

struct timing {
  double median_us = 0, min_us = 0, max_us = 0;
  std::string problem;  // a wrong answer: no time counts
};

template <typename T>
void run_case(bench::dtype t, std::int64_t n, int offset, const std::vector<op_kind>& ops, const ops_options& o,
              double ceiling_gbps, const std::string& device_name, cudaStream_t stream, bench::row_table& table,
              int& failures) {
  // Buffers: enough of them that back-to-back calls read cold data (together 4x an H100's L2 and
  // more), up to 16; small sizes stay in L2 for every implementation alike.
  const std::int64_t bytes = (n + offset) * std::int64_t(sizeof(T));
  const int buffers = static_cast<int>(std::clamp<std::int64_t>((std::int64_t{256} << 20) / std::max<std::int64_t>(bytes, 1), 1, 16));
  std::vector<warpfold::detail::device_buffer<T>> xs(buffers), ys(buffers);
  for (int b = 0; b < buffers; ++b) {
    xs[b].reserve(static_cast<std::size_t>(n + offset));
    ys[b].reserve(static_cast<std::size_t>(n + offset));
    bench::fill_varied(t, xs[b].get(), n + offset, 1000 + 2 * b, stream);
    bench::fill_varied(t, ys[b].get(), n + offset, 1001 + 2 * b, stream);
  }
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  // References of every buffer (an answer is checked against the buffer it read).
  std::vector<std::vector<T>> host_x(buffers);
  std::vector<references> refs(buffers);
  for (int b = 0; b < buffers; ++b) {
    std::vector<T> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    WARPFOLD_CUDA_CHECK(cudaMemcpy(x.data(), xs[b].get() + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
    WARPFOLD_CUDA_CHECK(cudaMemcpy(y.data(), ys[b].get() + offset, n * sizeof(T), cudaMemcpyDeviceToHost));
    refs[b] = references_of(x, y, n);
    host_x[b] = std::move(x);
  }
  // The product reads buffers of its own, of values near +-1 (bench/gpu.hpp: fill_near_one),
  // so that products of any length stay in range; it is checked against their long double
  // product.
  const bool times_prod = std::find(ops.begin(), ops.end(), op_kind::prod) != ops.end();
  std::vector<warpfold::detail::device_buffer<T>> ps(times_prod ? buffers : 0);
  for (int b = 0; b < static_cast<int>(ps.size()); ++b) {
    ps[b].reserve(static_cast<std::size_t>(n + offset));
    bench::fill_near_one(t, ps[b].get(), n + offset, 3000 + b, stream);
    std::vector<T> p(static_cast<std::size_t>(n));
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(p.data(), ps[b].get() + offset, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    refs[b].prod = product_of(p);
  }
  const double tolerance = std::is_same_v<T, double> ? 1e-9 : std::is_same_v<T, float> ? 1e-4 : 2e-3;
  for (op_kind op : ops) {
    std::vector<candidate> all = bench::ops::warpfold_candidates(op, t, n);
    for (candidate& c : bench::ops::anchor_candidates(op, t, n)) all.push_back(std::move(c));
    const int arrays = op == op_kind::dot ? 2 : 1;
    std::vector<timing> result(all.size());
    std::vector<int> batch(all.size(), 1);
    bench::event_timer timer;
    auto call = [&](std::size_t c, int k) {
      const int b = k % buffers;
      const T* x = (op == op_kind::prod ? ps[b].get() : xs[b].get()) + offset;
      all[c].enqueue(x, ys[b].get() + offset, n, stream);
      return b;
    };
    // A product of fill_near_one's values rounds at most once per value off +-1 (a multiply by
    // +-1 is exact): its bound is twice their expected count in units of the accumulator's
    // precision (f32 accumulates f16 and bf16 too).
    const double unit = std::is_same_v<T, double> ? 0x1p-53 : 0x1p-24;
    const double op_tolerance =
        op == op_kind::prod ? std::max(tolerance, 2 * bench::near_one_moved(n) * unit) : tolerance;
    auto verify = [&](std::size_t c, int b) {
      if (!result[c].problem.empty()) return;
      result[c].problem = check(op, all[c].answer(stream), refs[b], host_x[b], op_tolerance);
    };
    // Warm-up (checked), then the batch that lasts at least 1 ms.
    for (std::size_t c = 0; c < all.size(); ++c) {
      for (int k = 0; k < 3; ++k) verify(c, call(c, k));
      timer.start(stream);
      call(c, 0);
      timer.stop(stream);
      batch[c] = static_cast<int>(std::clamp(1000.0 / std::max(timer.elapsed_us(), 0.5), 1.0, 4096.0));
    }
    std::vector<std::vector<double>> trials(all.size());
    for (int trial = 0; trial < o.trials; ++trial)
      for (std::size_t c = 0; c < all.size(); ++c) {
        if (!result[c].problem.empty()) continue;
        for (int k = 0; k < batch[c]; ++k) call(c, k);  // untimed: the GPU is busy and at its clocks
        timer.start(stream);
        int last = 0;
        for (int k = 0; k < batch[c]; ++k) last = call(c, k);
        timer.stop(stream);
        trials[c].push_back(timer.elapsed_us() / batch[c]);
        verify(c, last);
      }
    for (std::size_t c = 0; c < all.size(); ++c) {
      using cell = bench::row_table::cell;
      std::vector<cell> row = {all[c].impl, std::string(bench::ops::name(op)), std::string(bench::name(t)), n,
                               std::int64_t{offset}};
      if (result[c].problem.empty()) {
        const double us = median(trials[c]);
        const double gbps = double(n) * sizeof(T) * arrays / (us * 1e3);
        row.insert(row.end(), {us, *std::min_element(trials[c].begin(), trials[c].end()),
                               *std::max_element(trials[c].begin(), trials[c].end()), gbps, ceiling_gbps,
                               100.0 * gbps / ceiling_gbps, std::string("ok")});
        if (!o.quiet)
          std::cerr << "  " << bench::ops::name(op) << " " << bench::name(t) << " n=" << n << " +" << offset << " "
                    << all[c].impl << ": " << us << " us, " << 100.0 * gbps / ceiling_gbps << "% of the ceiling\n";
      } else {  // a wrong answer has no time
        row.insert(row.end(), {cell{}, cell{}, cell{}, cell{}, ceiling_gbps, cell{}, "wrong answer: " + result[c].problem});
        std::cerr << "  " << bench::ops::name(op) << " " << bench::name(t) << " n=" << n << " " << all[c].impl
                  << ": WRONG ANSWER: " << result[c].problem << "\n";
        if (all[c].impl == "warpfold") ++failures;
      }
      row.insert(row.end(), {device_name, today()});
      table.add(row);
    }
  }
}

}  // namespace

int run_ops(const ops_options& o) {
  const bench::device_description device = bench::open_device(o.device);
  std::vector<op_kind> ops;
  for (const std::string& name : o.ops) {
    const auto op = bench::ops::parse_op(name);
    if (!op) throw invalid_argument("warpfold ops: unknown op '" + name + "'");
    ops.push_back(*op);
  }
  if (ops.empty()) ops = bench::ops::all_ops();
  std::vector<bench::dtype> dtypes;
  for (const std::string& name : o.dtypes) {
    const auto t = bench::parse_dtype(name);
    if (!t || *t == bench::dtype::i32) throw invalid_argument("warpfold ops: --dtype takes f16, bf16, f32, f64");
    dtypes.push_back(*t);
  }
  if (dtypes.empty()) dtypes = {bench::dtype::f32, bench::dtype::f16};
  std::vector<std::int64_t> sizes = o.sizes;
  if (sizes.empty())
    for (int e = 10; e <= 30; e += 2) sizes.push_back(std::int64_t{1} << e);

  bench::row_table table({"impl", "op", "dtype", "n", "offset", "time_us", "min_us", "max_us", "gbps", "ceiling_gbps",
                          "percent_of_ceiling", "check", "device", "date"},
                         o.csv_path, o.json_path);
  cudaStream_t stream;
  WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double ceiling = measure_ceiling_gbps(stream);
  if (!o.quiet) std::cerr << "read ceiling on " << device.name << ": " << ceiling << " GB/s\n";
  int failures = 0;
  for (bench::dtype t : dtypes)
    for (std::int64_t n : sizes) {
      std::vector<int> offsets = o.offsets;
      if (!o.offsets_given) offsets = n >= (std::int64_t{1} << 28) ? std::vector<int>{0, 1, 3} : std::vector<int>{0};
      for (int offset : offsets)
        bench::visit_dtype(t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (!std::is_same_v<T, std::int32_t>) run_case<T>(t, n, offset, ops, o, ceiling, device.name, stream, table, failures);
        });
    }
  WARPFOLD_CUDA_CHECK(cudaStreamDestroy(stream));
  table.finish();
  if (failures > 0) std::cerr << "warpfold ops: " << failures << " wrong answers from warpfold\n";
  return failures > 0 ? 1 : 0;
}

}  // namespace warpfold::cli
