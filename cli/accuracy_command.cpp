#include "accuracy_command.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bench/device.hpp"
#include "bench/implementation.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::cli {
namespace {

struct ill_conditioned {
  std::vector<float> values;
  double exact = 0;          // the exact sum (held exactly by a double: 1000 equal floats)
  double sum_of_magnitudes = 0;
};

ill_conditioned make_input(std::int64_t n, std::uint64_t seed) {
  ill_conditioned in;
  constexpr std::int64_t small_count = 1000;
  const std::int64_t pairs = (n - small_count) / 2;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  in.values.reserve(static_cast<std::size_t>(n));
  long double magnitudes = 0;
  for (std::int64_t i = 0; i < pairs; ++i) {
    const float x = static_cast<float>(std::ldexp(unit(rng), exponent(rng)));
    in.values.push_back(x);
    in.values.push_back(-x);
    magnitudes += 2.0L * x;
  }
  // The rest: equal small values whose total is about 1e-10 of the magnitudes.
  const std::int64_t rest = n - 2 * pairs;
  const float small = static_cast<float>(1e-10 * static_cast<double>(magnitudes) / static_cast<double>(rest));
  for (std::int64_t i = 0; i < rest; ++i) in.values.push_back(small);
  std::shuffle(in.values.begin(), in.values.end(), rng);
  in.exact = static_cast<double>(rest) * static_cast<double>(small);  // exact: 24 + 11 bits
  in.sum_of_magnitudes = static_cast<double>(magnitudes) + in.exact;
  return in;
}

double relative_error(double got, double exact) { return std::fabs(got - exact) / std::fabs(exact); }

}  // namespace

int run_accuracy(const bench_options& o, const std::string& save_input) {
  const bench::device_description device = bench::open_device(o.device);
  const std::int64_t n = o.sizes_given ? o.sizes.front() : 100000000;
  if (n < 2000) throw invalid_argument("warpfold accuracy: --n must be at least 2000");
  const ill_conditioned in = make_input(n, o.seed);

  std::vector<std::pair<std::string, double>> rows;
  {
    float plain = 0, kahan = 0, compensation = 0;
    for (float x : in.values) {
      plain += x;
      const float y = x - compensation;
      const float t = kahan + y;
      compensation = (t - kahan) - y;
      kahan = t;
    }
    rows.push_back({"cpu-float", plain});
    rows.push_back({"cpu-kahan-float", kahan});
  }
  warpfold::detail::device_buffer<float> d;
  d.reserve(in.values.size());
  WARPFOLD_CUDA_CHECK(cudaMemcpy(d.get(), in.values.data(), in.values.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (const bench::impl_entry& e : bench::make_registry({})) {
    if (e.family == "ladder" || e.name == "thrust" || !e.supports(bench::dtype::f32)) continue;
    std::unique_ptr<bench::implementation> impl = e.make(bench::dtype::f32);
    impl->prepare(d.get(), n, nullptr);
    impl->enqueue(d.get(), n, nullptr);
    rows.push_back({e.name, impl->fetch(nullptr).real});
  }
  if (!save_input.empty()) {
    std::ofstream out(save_input, std::ios::binary);
    out.write(reinterpret_cast<const char*>(in.values.data()), static_cast<std::streamsize>(in.values.size() * sizeof(float)));
    if (!out) throw error("cannot write '" + save_input + "'");
  }

  std::ofstream file;
  if (!o.csv_path.empty()) {
    file.open(o.csv_path);
    if (!file) throw error("cannot open '" + o.csv_path + "' for writing");
  }
  std::ostream& csv = o.csv_path.empty() ? std::cout : file;
  char line[256];
  csv << "impl,dtype,n,result,exact,relative_error,condition,device\n";
  for (const auto& [name, value] : rows) {
    std::snprintf(line, sizeof line, "%s,f32,%lld,%.17g,%.17g,%.3e,%.3e,%s\n", name.c_str(), static_cast<long long>(n), value,
                  in.exact, relative_error(value, in.exact), in.exact / in.sum_of_magnitudes, device.name.c_str());
    csv << line;
  }
  return 0;
}

}  // namespace warpfold::cli
