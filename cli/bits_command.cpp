#include "bits_command.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/device.hpp"
#include "bench/dtype.hpp"
#include "bench/dtype_types.hpp"
#include "bench/gpu.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"

namespace warpfold::cli {
namespace {

// FNV-1a over the input's bytes.
std::uint64_t hash_bytes(const std::vector<unsigned char>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

template <typename R>
std::string hex_bits(R value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(R));
  char text[24];
  std::snprintf(text, sizeof text, sizeof(R) == 4 ? "%08llx" : "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

template <typename T>
void sum_case(bench::dtype t, std::int64_t n, bench::value_spread spread, std::uint64_t seed, std::ostream& csv) {
  if constexpr (!warpfold::is_summable_float_v<T>) {
    throw invalid_argument("warpfold bits: float types only");
  } else {
  warpfold::detail::device_buffer<T> input;
  input.reserve(static_cast<std::size_t>(n));
  bench::fill_varied(t, input.get(), n, seed, nullptr, spread);
  WARPFOLD_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes(static_cast<std::size_t>(n) * sizeof(T));
  WARPFOLD_CUDA_CHECK(cudaMemcpy(bytes.data(), input.get(), bytes.size(), cudaMemcpyDeviceToHost));
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(hash_bytes(bytes)));
  const std::string where = std::string(bench::name(t)) + "," + std::to_string(n) + "," +
                            std::string(bench::name(spread));
  csv << "reproducible," << where << "," << hex_bits(warpfold::sum_reproducible(input.get(), n)) << "," << hash << "\n";
  csv << "exact," << where << "," << hex_bits(warpfold::sum_exact(input.get(), n)) << "," << hash << "\n";
  csv << "default," << where << "," << hex_bits(warpfold::sum(input.get(), n)) << "," << hash << "\n";
  }
}

}  // namespace

int run_bits(const bench_options& o) {
  const bench::device_description device = bench::open_device(o.device);
  std::ofstream file;
  if (!o.csv_path.empty()) {
    file.open(o.csv_path);
    if (!file) throw error("cannot open '" + o.csv_path + "' for writing");
  }
  std::ostream& csv = o.csv_path.empty() ? std::cout : file;
  csv << "mode,dtype,n,data,bits,input_hash\n";
  const std::vector<std::int64_t> sizes = {1, 1000, 65537, (1 << 20) + 3, (1 << 24) + 1, 100000007};
  const bench::value_spread spreads[] = {bench::value_spread::uniform, bench::value_spread::normal,
                                         bench::value_spread::wide, bench::value_spread::full};
  for (bench::dtype t : {bench::dtype::f16, bench::dtype::bf16, bench::dtype::f32, bench::dtype::f64})
    for (std::int64_t n : sizes)
      for (bench::value_spread s : spreads) {
        const std::uint64_t seed = 0x5eedull * (static_cast<std::uint64_t>(t) + 1) + static_cast<std::uint64_t>(n);
        if (!o.quiet) std::cerr << "\r" << bench::name(t) << " n=" << n << " " << bench::name(s) << "        " << std::flush;
        bench::visit_dtype(t, [&](auto tag) { sum_case<typename decltype(tag)::type>(t, n, s, seed, csv); });
      }
  if (!o.quiet) std::cerr << "\rdone on " << device.name << "                          \n";
  return 0;
}

}  // namespace warpfold::cli
