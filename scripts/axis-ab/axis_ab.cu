// The axis sums of `warpfold bench --axis --random` timed with whatever headers this file is
// compiled against: scripts/build-axis-ab compiles it twice, against an earlier commit's
// include/ and the working tree's, so that scripts/axis-ab-run can time a planner or kernel
// change case by case in one run on one GPU, and scripts/plot-ab can draw it, without
// building the base commit's whole library (about 1.5 minutes a build instead of 30 and
// more on two cores). Sums only, the cases drawn by the working tree's bench/axis_random.cpp
// in both builds.
//
//   axis_ab SEED_FROM SEED_TO MIN_MIB TRIALS [CASEFILE]
//
// times every case of at least MIN_MIB MiB of those seeds (or, with CASEFILE, the lines
// "SEED CASE" in it, whatever their size) and prints one CSV row per case in the columns that
// scripts/plot-ab reads: the median of TRIALS single calls (CUDA events; each call alone, so
// the time includes its launch; the L2 flushed before each), and a hash of the output's bytes,
// equal in both builds when a change keeps the sums' bits. The input holds small integers, so
// float sums are exact.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench/axis_random.hpp"
#include "bench/dtype.hpp"
#include "warpfold/axes.cuh"

namespace {

using namespace warpfold;

template <typename T>
__global__ void fill_small_integers(T* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<T>(static_cast<float>(static_cast<int>((i * 2654435761u) % 13) - 6));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "axis_ab: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

constexpr std::size_t l2_flush_bytes = std::size_t{256} << 20;
void* l2_flush = nullptr;

struct timing {
  double median_us;
  std::uint64_t hash;
};

template <typename T>
timing time_case(const bench::view_case& c, void* parent, int trials) {
  using Acc = axis_result_t<op::sum, T>;
  fill_small_integers<T><<<1024, 256>>>(static_cast<T*>(parent), c.parent);
  const std::int64_t outputs = std::max<std::int64_t>(1, c.outputs());
  Acc* out = nullptr;
  check(cudaMalloc(&out, outputs * sizeof(Acc)), "cudaMalloc");
  const shape extents(c.extents);
  const strides view(c.strides);
  const axes reduce(c.dims);
  const T* in = static_cast<const T*>(parent) + c.offset;
  auto call = [&] { detail::reduce_axes_into<op::sum, T>(in, extents, &view, reduce, out, outputs, nullptr, nullptr); };
  call();  // warm-up: the scratch pool, the device facts
  call();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> us;
  for (int t = 0; t < trials; ++t) {
    // Cold data, as every input a call meets the first time: 256 MiB written (four times the
    // L2) and waited for before each timed call. Without it, inputs under the L2's size came
    // back from cache in part, by how each kernel's order of reads met the previous call's.
    check(cudaMemsetAsync(l2_flush, t & 0xff, l2_flush_bytes), "the L2 flush");
    check(cudaDeviceSynchronize(), "the L2 flush");
    cudaEventRecord(start);
    call();
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "a timed call");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    us.push_back(ms * 1000.0f);
  }
  std::sort(us.begin(), us.end());
  std::vector<Acc> host(static_cast<std::size_t>(outputs));
  check(cudaMemcpy(host.data(), out, host.size() * sizeof(Acc), cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the output's bytes
  const auto* bytes = reinterpret_cast<const unsigned char*>(host.data());
  for (std::size_t i = 0; i < host.size() * sizeof(Acc); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  cudaFree(out);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {us[us.size() / 2], hash};
}

std::string joined(const std::vector<std::int64_t>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: axis_ab SEED_FROM SEED_TO MIN_MIB TRIALS [CASEFILE]\n");
    return 2;
  }
  const int from = std::atoi(argv[1]), to = std::atoi(argv[2]), trials = std::max(1, std::atoi(argv[4]));
  const double min_mib = std::atof(argv[3]);
  std::set<std::pair<int, int>> listed;
  std::set<int> seeds;
  if (argc > 5) {
    std::ifstream f(argv[5]);
    int seed, index;
    while (f >> seed >> index) listed.insert({seed, index}), seeds.insert(seed);
  } else {
    for (int seed = from; seed <= to; ++seed) seeds.insert(seed);
  }
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  void* parent = nullptr;
  check(cudaMalloc(&parent, std::size_t{1} << 30), "cudaMalloc");  // the cases' parents are at most 1 GiB
  check(cudaMalloc(&l2_flush, l2_flush_bytes), "cudaMalloc");
  // Half a second of writes first, so that the first cases run at the clocks of the others
  // (without it, a run's first cases came out up to 10% slower than the same cases later).
  {
    cudaEvent_t start, now;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&now), "cudaEventCreate");
    cudaEventRecord(start);
    for (float ms = 0; ms < 500.0f;) {
      fill_small_integers<float><<<1024, 256>>>(static_cast<float*>(parent), std::int64_t{1} << 28);
      cudaEventRecord(now);
      check(cudaEventSynchronize(now), "warm-up");
      cudaEventElapsedTime(&ms, start, now);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(now);
  }
  std::printf("case,impl,kind,dtype,n,offset,view_text,time_us,gbps,result_hash,device,date\n");
  for (const int seed : seeds) {
    for (const bench::view_case& c : bench::random_view_cases(200, seed)) {
      if (listed.empty() ? c.bytes_in() < min_mib * 1048576.0 : !listed.count({seed, c.index})) continue;
      timing t{};
      switch (c.type) {
        case bench::dtype::f32: t = time_case<float>(c, parent, trials); break;
        case bench::dtype::f16: t = time_case<__half>(c, parent, trials); break;
        case bench::dtype::bf16: t = time_case<__nv_bfloat16>(c, parent, trials); break;
        case bench::dtype::i32: t = time_case<std::int32_t>(c, parent, trials); break;
        default: continue;
      }
      std::string dims;
      for (std::size_t i = 0; i < c.dims.size(); ++i) dims += (i ? ", " : "") + std::to_string(c.dims[i]);
      const std::string type(bench::name(c.type));
      std::printf("%lld,warpfold,random,%s,%lld,0,\"case %d: %s (%s) strides (%s) over {%s}, %s\",%.3f,%.1f,%016llx,%s,%s\n",
                  static_cast<long long>(seed) * 1000 + c.index, type.c_str(), static_cast<long long>(c.elements()),
                  c.index, type.c_str(), joined(c.extents).c_str(), joined(c.strides).c_str(), dims.c_str(),
                  c.view.c_str(), t.median_us, c.bytes_in() / t.median_us / 1e3, static_cast<unsigned long long>(t.hash),
                  props.name, date);
      std::fflush(stdout);
    }
  }
  return 0;
}
