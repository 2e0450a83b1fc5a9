// Statistics of many arrays in one launch (warpfold/many.hpp): every per-array result and the
// combined one against long double references of the same data, for lists that mix empty,
// tiny, odd and large arrays, thousands of small ones, repeated pointers and unaligned
// starts; the same bits on every run; the device-list form in a CUDA graph, with the list
// changed between replays; and the errors, with nothing written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <warpfold/many/layout.cuh>
#include <warpfold/reduce.hpp>

#include "reduce_test_util.hpp"
#include "statistics_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace statistics_test;

template <typename T>
using R = warpfold::float_result_t<T>;

std::vector<bool> download_bools(const bool* d, std::size_t n) {
  std::vector<unsigned char> bytes(n);
  WARPFOLD_TEST_CUDA(cudaMemcpy(bytes.data(), d, n, cudaMemcpyDeviceToHost));
  return std::vector<bool>(bytes.begin(), bytes.end());
}

// One device allocation holding every array of a list (some share elements, some start
// unaligned), plus the host copy to compute references from.
template <typename T>
struct list_data {
  std::vector<T> values;
  std::vector<std::int64_t> starts, sizes;
  device_input<T>* input = nullptr;
  std::vector<warpfold::array_ref<T>> refs() const {
    std::vector<warpfold::array_ref<T>> list;
    for (std::size_t a = 0; a < sizes.size(); ++a)
      list.push_back({sizes[a] > 0 || a % 3 ? input->data() + starts[a] : nullptr, sizes[a]});  // some empty ones null
    return list;
  }
};

// Sizes of the kinds of lists that matter: a model's parameters (a few large, many small),
// thousands of small arrays, and a random mix with empties and repeats.
std::vector<std::int64_t> list_sizes(const std::string& kind, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::int64_t> sizes;
  const bool quick = quick_mode();
  if (kind == "model") {
    const int layers = quick ? 2 : 12;
    const std::int64_t d = quick ? 64 : 768;
    sizes.push_back((quick ? 500 : 50257) * d);
    for (int l = 0; l < layers; ++l)
      for (std::int64_t s : {d, d, 3 * d * d, 3 * d, d * d, d, d, d, 4 * d * d, 4 * d, 4 * d * d, d}) sizes.push_back(s);
    sizes.push_back(d);
  } else if (kind == "small") {
    const int count = quick ? 300 : 5000;
    for (int i = 0; i < count; ++i) sizes.push_back(1 + static_cast<std::int64_t>(random() % 2000));
  } else if (kind == "long") {
    // More arrays than a block plans itself; in full size also more than the plan kernel's
    // eight blocks read in one tile each (8 x 8,192: many/plan_kernel.cuh), so that they read
    // two. (The quick size is for the sanitizers, under which 70,000 arrays take minutes.)
    for (std::int64_t i = 0; i < (quick ? 9000 : 70000); ++i)
      sizes.push_back(static_cast<std::int64_t>(random() % 40));
    sizes.push_back(quick ? 20000 : 1000003);
  } else {  // mix
    const std::int64_t classes[] = {0, 1, 2, 31, 32, 33, 511, 512, 513, 4099, 65537, 100003};
    const int count = quick ? 40 : 400;
    for (int i = 0; i < count; ++i) sizes.push_back(classes[random() % 12]);
    if (!quick) sizes.push_back(3000017);
  }
  return sizes;
}

template <typename T>
list_data<T> make_list(const std::vector<std::int64_t>& sizes, std::uint64_t seed, value_mode mode) {
  list_data<T> d;
  std::mt19937_64 random(seed);
  std::int64_t at = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    if (a > 0 && random() % 10 == 0 && sizes[a] <= sizes[a - 1]) {
      d.starts.push_back(d.starts[a - 1]);  // repeats (part of) the previous array
    } else {
      at += static_cast<std::int64_t>(random() % 4);  // 0-3 elements of gap: any alignment
      d.starts.push_back(at);
      at += sizes[a];
    }
    d.sizes.push_back(sizes[a]);
  }
  d.values = make_values<T>(at + 1, seed, mode);
  return d;
}

template <typename T>
class ManyArrays : public gpu_test {};
using float_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(ManyArrays, float_types, reduce_test::type_names);

template <typename T>
struct many_results {
  std::vector<R<T>> l1, l2, linf, sum, max, mean;
  R<T> l1_all, l2_all, linf_all, sum_all, max_all, mean_all;
  std::vector<warpfold::mean_var<R<T>>> vm;
  warpfold::mean_var<R<T>> vm_all;
};

template <typename T>
many_results<T> run_many(const std::vector<warpfold::array_ref<T>>& list) {
  const std::size_t A = list.size();
  device_array<R<T>> per(std::max<std::size_t>(A, 1)), all(1);
  device_array<warpfold::mean_var<R<T>>> per_vm(std::max<std::size_t>(A, 1)), all_vm(1);
  many_results<T> r;
  auto run = [&](auto call, std::vector<R<T>>& out, R<T>& combined) {
    warpfold_test::fill_device_bytes(per.data(), 0xA5, per.bytes());
    warpfold_test::fill_device_bytes(all.data(), 0xA5, all.bytes());
    call(list, per.data(), all.data(), nullptr);
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    out = download(per.data(), A);
    copy_to_host(&combined, all.data(), 1);
  };
  run([](auto&&... a) { warpfold::norm_l1_many<T>(a...); }, r.l1, r.l1_all);
  run([](auto&&... a) { warpfold::norm_l2_many<T>(a...); }, r.l2, r.l2_all);
  run([](auto&&... a) { warpfold::norm_linf_many<T>(a...); }, r.linf, r.linf_all);
  run([](auto&&... a) { warpfold::sum_many<T>(a...); }, r.sum, r.sum_all);
  run([](auto&&... a) { warpfold::max_many<T>(a...); }, r.max, r.max_all);
  run([](auto&&... a) { warpfold::mean_many<T>(a...); }, r.mean, r.mean_all);
  // The combined result alone (no per-array output): the same bits.
  R<T> l2_alone;
  warpfold_test::fill_device_bytes(all.data(), 0xA5, all.bytes());
  warpfold::norm_l2_many<T>(list, nullptr, all.data(), nullptr);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  copy_to_host(&l2_alone, all.data(), 1);
  EXPECT_EQ(std::memcmp(&l2_alone, &r.l2_all, sizeof(R<T>)), 0) << "norm_l2 without per-array results";
  warpfold::var_mean_many<T>(list, per_vm.data(), all_vm.data(), nullptr);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  r.vm = download(per_vm.data(), A);
  copy_to_host(&r.vm_all, all_vm.data(), 1);
  return r;
}

template <typename T>
void check_against_references(const list_data<T>& d, const many_results<T>& got) {
  std::vector<T> everything;
  auto check = [&](const T* x, std::int64_t n, R<T> l1, R<T> l2, R<T> linf, R<T> sum, R<T> max, R<T> mean,
                   warpfold::mean_var<R<T>> vm, const std::string& what) {
    SCOPED_TRACE(what + " (" + std::to_string(n) + " elements)");
    const reference r = reference_of(x, n);
    EXPECT_TRUE(near(to_real(l1), r.l1, l1_bound<R<T>, R<T>>(r), "norm_l1"));
    EXPECT_TRUE(near(to_real(l2), std::sqrt(r.sum_squares), l2_bound<squares_t<T>, R<T>>(r), "norm_l2"));
    EXPECT_TRUE(reduce_test::same_value(linf, r.linf));
    EXPECT_TRUE(near(to_real(sum), r.sum, sum_tolerance<R<T>>(n, r.l1), "sum"));
    long double largest = -INFINITY;
    for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, to_real(x[i]));
    EXPECT_TRUE(reduce_test::same_value(max, largest));
    EXPECT_TRUE(near(to_real(mean), n > 0 ? r.mean : NAN, mean_bound<R<T>>(r), "mean"));
    EXPECT_TRUE(near(to_real(vm.mean), n > 0 ? r.mean : NAN, mean_bound<R<T>>(r), "var_mean's mean"));
    const long double var = var_of(r, 1);
    EXPECT_TRUE(near(to_real(vm.var), var, var_bound<R<T>>(r, var), "var"));
  };
  for (std::size_t a = 0; a < d.sizes.size(); ++a) {
    const T* x = d.values.data() + d.starts[a];
    everything.insert(everything.end(), x, x + d.sizes[a]);
    check(x, d.sizes[a], got.l1[a], got.l2[a], got.linf[a], got.sum[a], got.max[a], got.mean[a], got.vm[a],
          "array " + std::to_string(a));
    if (::testing::Test::HasFailure()) return;  // one array's report is enough
  }
  check(everything.data(), static_cast<std::int64_t>(everything.size()), got.l1_all, got.l2_all, got.linf_all, got.sum_all,
        got.max_all, got.mean_all, got.vm_all, "all arrays together");
}

TYPED_TEST(ManyArrays, EveryArrayAndTheCombinedResultMatchTheReferences) {
  using T = TypeParam;
  for (const std::string kind : {"model", "small", "mix", "long"})
    for (value_mode mode : {value_mode::moderate, value_mode::full_range}) {
      SCOPED_TRACE(kind + " " + mode_name(mode));
      list_data<T> d = make_list<T>(list_sizes(kind, seed_for("many-" + kind, 0)), seed_for("many-values-" + kind, 1), mode);
      const device_input<T> input(d.values);
      d.input = const_cast<device_input<T>*>(&input);
      const auto list = d.refs();
      const many_results<T> first = run_many<T>(list);
      check_against_references(d, first);
      // The same bits on a second run.
      const many_results<T> second = run_many<T>(list);
      EXPECT_EQ(std::memcmp(first.l2.data(), second.l2.data(), first.l2.size() * sizeof(R<T>)), 0);
      EXPECT_EQ(std::memcmp(&first.l2_all, &second.l2_all, sizeof(R<T>)), 0);
      EXPECT_EQ(std::memcmp(&first.vm_all, &second.vm_all, sizeof(first.vm_all)), 0);
      EXPECT_TRUE(input.unchanged());
    }
}

TYPED_TEST(ManyArrays, EmptyListsAndListsOfEmptyArrays) {
  using T = TypeParam;
  device_array<R<T>> per(4), all(1);
  warpfold::norm_l2_many<T>(std::vector<warpfold::array_ref<T>>{}, per.data(), all.data());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  R<T> combined;
  copy_to_host(&combined, all.data(), 1);
  EXPECT_EQ(to_real(combined), 0);
  const std::vector<warpfold::array_ref<T>> empties(4, warpfold::array_ref<T>{nullptr, 0});
  warpfold_test::fill_device_bytes(per.data(), 0xA5, per.bytes());
  warpfold::sum_many<T>(empties, per.data(), all.data());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  for (R<T> v : download(per.data(), 4)) EXPECT_EQ(to_real(v), 0);
  copy_to_host(&combined, all.data(), 1);
  EXPECT_EQ(to_real(combined), 0);
  warpfold::mean_many<T>(empties, per.data(), all.data());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  for (R<T> v : download(per.data(), 4)) EXPECT_TRUE(std::isnan(to_real(v)));
}

// dot over a list of pairs: each pair's x and y from two allocations (y at other offsets),
// against long double references, the combined result being the dot of all pairs together;
// the device-list form gives the same bits as the host-list form.
TYPED_TEST(ManyArrays, DotOfPairsMatchesTheReferences) {
  using T = TypeParam;
  for (const std::string kind : {"model", "small", "mix", "long"}) {
    SCOPED_TRACE(kind);
    const std::vector<std::int64_t> sizes = list_sizes(kind, seed_for("dot-" + kind, 0));
    list_data<T> xd = make_list<T>(sizes, seed_for("dot-x-" + kind, 1), value_mode::moderate);
    list_data<T> yd = make_list<T>(sizes, seed_for("dot-y-" + kind, 2), value_mode::moderate);
    const device_input<T> x_input(xd.values), y_input(yd.values);
    xd.input = const_cast<device_input<T>*>(&x_input);
    yd.input = const_cast<device_input<T>*>(&y_input);
    const std::vector<warpfold::array_ref<T>> xs = xd.refs(), ys = yd.refs();
    std::vector<warpfold::array_pair_ref<T>> pairs;
    for (std::size_t a = 0; a < sizes.size(); ++a) pairs.push_back({xs[a].data, ys[a].data, sizes[a]});
    const std::size_t A = sizes.size();
    device_array<R<T>> per(A), all(1);
    warpfold_test::fill_device_bytes(per.data(), 0xA5, per.bytes());
    warpfold::dot_many<T>(pairs, per.data(), all.data());
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    const std::vector<R<T>> got = download(per.data(), A);
    R<T> got_all;
    copy_to_host(&got_all, all.data(), 1);
    long double total = 0, total_magnitude = 0;
    std::int64_t total_n = 0;
    for (std::size_t a = 0; a < A; ++a) {
      long double dot = 0, magnitude = 0;
      for (std::int64_t i = 0; i < sizes[a]; ++i) {
        const long double p = to_real(xd.values[xd.starts[a] + i]) * to_real(yd.values[yd.starts[a] + i]);
        dot += p;
        magnitude += std::fabs(p);
      }
      total += dot;
      total_magnitude += magnitude;
      total_n += sizes[a];
      ASSERT_TRUE(near(to_real(got[a]), dot, sum_tolerance<R<T>>(sizes[a], magnitude), "dot"))
          << "pair " << a << " of " << sizes[a] << " elements";
    }
    EXPECT_TRUE(near(to_real(got_all), total, sum_tolerance<R<T>>(total_n, total_magnitude), "combined dot"));
    device_array<warpfold::array_pair_ref<T>> d_pairs(A);
    copy_to_device(d_pairs.data(), pairs.data(), A);
    device_array<R<T>> per_device(A);
    device_array<std::int64_t> status(1);
    warpfold::dot_many(d_pairs.data(), static_cast<std::int64_t>(A), per_device.data(), static_cast<R<T>*>(nullptr),
                       nullptr, status.data());
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    std::int64_t s;
    copy_to_host(&s, status.data(), 1);
    EXPECT_EQ(s, -1);
    EXPECT_EQ(std::memcmp(download(per_device.data(), A).data(), got.data(), A * sizeof(R<T>)), 0);
    EXPECT_TRUE(x_input.unchanged());
    EXPECT_TRUE(y_input.unchanged());
  }
}

// count_nonzero, any and all over a list with zeros, empty arrays, all-zero and all-nonzero
// arrays: exact.
TYPED_TEST(ManyArrays, CountsOfEveryArrayAreExact) {
  using T = TypeParam;
  std::mt19937_64 random(seed_for("many-counts", sizeof(T)));
  std::vector<std::int64_t> sizes = list_sizes("mix", seed_for("many-counts-sizes", 0));
  list_data<T> d = make_list<T>(sizes, seed_for("many-counts-values", 0), value_mode::moderate);
  for (std::size_t a = 0; a < sizes.size(); ++a) {  // some arrays all zero, some with no zero, the rest mixed
    const int kind = static_cast<int>(random() % 4);
    for (std::int64_t i = 0; i < sizes[a]; ++i) {
      const bool zero = kind == 0 || (kind >= 2 && random() % 3 == 0);
      d.values[d.starts[a] + i] = from_double<T>(zero ? (random() % 2 ? 0.0 : -0.0) : 1.0 + double(random() % 7));
    }
  }
  const device_input<T> input(d.values);
  d.input = const_cast<device_input<T>*>(&input);
  const auto list = d.refs();
  const std::size_t A = sizes.size();
  device_array<std::int64_t> counts(A), count_all(1);
  device_array<bool> anys(A), any_all(1), alls(A), all_all(1);
  warpfold::count_nonzero_many<T>(list, counts.data(), count_all.data());
  warpfold::any_many<T>(list, anys.data(), any_all.data());
  warpfold::all_many<T>(list, alls.data(), all_all.data());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  const std::vector<std::int64_t> got_counts = download(counts.data(), A);
  const std::vector<bool> got_any = download_bools(anys.data(), A), got_all = download_bools(alls.data(), A);
  std::int64_t total = 0, elements = 0;
  for (std::size_t a = 0; a < A; ++a) {
    std::int64_t nonzero = 0;
    for (std::int64_t i = 0; i < sizes[a]; ++i) nonzero += to_real(d.values[d.starts[a] + i]) != 0;
    EXPECT_EQ(got_counts[a], nonzero) << "array " << a;
    EXPECT_EQ(got_any[a], nonzero > 0) << "array " << a;
    EXPECT_EQ(got_all[a], nonzero == sizes[a]) << "array " << a;
    total += nonzero;
    elements += sizes[a];
  }
  std::int64_t combined;
  copy_to_host(&combined, count_all.data(), 1);
  EXPECT_EQ(combined, total);
  EXPECT_EQ(download_bools(any_all.data(), 1)[0], total > 0);
  EXPECT_EQ(download_bools(all_all.data(), 1)[0], total == elements);
}

// The device-list form, captured once and replayed with other lists of the same length.
template <typename T>
void check_device_list_in_a_graph(const std::string& kind) {
  const std::vector<std::int64_t> sizes = list_sizes(kind, seed_for("graph-sizes", 0));
  list_data<T> d = make_list<T>(sizes, seed_for("graph-values", 0), value_mode::moderate);
  const device_input<T> input(d.values);
  d.input = const_cast<device_input<T>*>(&input);
  const std::size_t A = sizes.size();
  device_array<warpfold::array_ref<T>> d_list(A);
  device_array<R<T>> per(A), all(1);
  device_array<std::int64_t> status(1);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::norm_l2_many(d_list.data(), static_cast<std::int64_t>(A), per.data(), all.data(), stream, status.data());
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    std::vector<warpfold::array_ref<T>> list = d.refs();
    std::rotate(list.begin(), list.begin() + replay * 7 % A, list.end());  // another list each time
    copy_to_device(d_list.data(), list.data(), A);
    warpfold_test::fill_device_bytes(per.data(), 0xA5, per.bytes());
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    const std::vector<R<T>> got = download(per.data(), A);
    std::int64_t s;
    copy_to_host(&s, status.data(), 1);
    EXPECT_EQ(s, -1);
    // Against the host-list form of the same list: the same bits.
    device_array<R<T>> expected(A);
    warpfold::norm_l2_many<T>(list, expected.data(), nullptr, stream);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(std::memcmp(download(expected.data(), A).data(), got.data(), A * sizeof(R<T>)), 0) << "replay " << replay;
  }
  // Invalid entries, near the end of the list and then also near its start: the status names
  // the first, and no result is written.
  std::vector<warpfold::array_ref<T>> bad = d.refs();
  bad[A - 3] = {input.data(), -1};
  for (const std::int64_t first_bad : {static_cast<std::int64_t>(A) - 3, std::int64_t{5}}) {
    if (first_bad == 5) {
      bad[5] = {nullptr, 10};
      bad[9] = {input.data(), -3};
    }
    copy_to_device(d_list.data(), bad.data(), A);
    warpfold_test::fill_device_bytes(per.data(), 0xA5, per.bytes());
    warpfold_test::fill_device_bytes(all.data(), 0xA5, all.bytes());
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    std::int64_t s;
    copy_to_host(&s, status.data(), 1);
    EXPECT_EQ(s, first_bad);
    std::vector<unsigned char> untouched(per.bytes());
    WARPFOLD_TEST_CUDA(cudaMemcpy(untouched.data(), per.data(), per.bytes(), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](unsigned char b) { return b == 0xA5; }));
    unsigned char combined[sizeof(R<T>)];
    WARPFOLD_TEST_CUDA(cudaMemcpy(combined, all.data(), sizeof(combined), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(combined, combined + sizeof(combined), [](unsigned char b) { return b == 0xA5; }))
        << "the combined result was written";
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

// Both plans: each block's own (a mix of sizes) and the plan kernel's (a long list).
TYPED_TEST(ManyArrays, DeviceListInAGraph) {
  for (const std::string kind : {"mix", "long"}) {
    SCOPED_TRACE(kind);
    check_device_list_in_a_graph<TypeParam>(kind);
  }
}

TEST(ManyArraysBadInput, ClearErrorsAndNothingWritten) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  const device_input<float> input(std::vector<float>(100, 1.0f));
  device_array<float> per(3), all(1);
  warpfold_test::fill_device_bytes(per.data(), 0x5A, per.bytes());
  warpfold_test::fill_device_bytes(all.data(), 0x5A, all.bytes());
  std::vector<float> host(100, 1.0f);
  const auto expect_error = [](auto call, const char* words) { expect_invalid_argument(call, words); };
  using list = std::vector<warpfold::array_ref<float>>;
  expect_error([&] { warpfold::norm_l2_many(list{{input.data(), 10}, {nullptr, 5}, {input.data(), 1}}, per.data(), all.data()); },
               "array 1 of the list is null");
  expect_error([&] { warpfold::norm_l2_many(list{{input.data(), -1}}, per.data(), all.data()); }, "negative size");
  expect_error([&] { warpfold::norm_l2_many(list{{input.data(), 10}, {host.data(), 10}}, per.data(), all.data()); },
               "array 1 of the list is not device memory");
  expect_error([&] { warpfold::norm_l2_many(list{{input.data(), 10}}, static_cast<float*>(nullptr), static_cast<float*>(nullptr)); },
               "both outputs");
  expect_error([&] { warpfold::norm_l2_many(list{{input.data(), 10}}, host.data(), all.data()); }, "not device memory");
  expect_error([&] { warpfold::norm_l2_many(static_cast<const warpfold::array_ref<float>*>(nullptr), 3, per.data(), all.data(), nullptr); },
               "list of arrays is null");
  using pairs = std::vector<warpfold::array_pair_ref<float>>;
  expect_error([&] { warpfold::dot_many(pairs{{input.data(), input.data(), 10}, {input.data(), nullptr, 5}}, per.data(), all.data()); },
               "array 1 of the list is null");
  expect_error([&] { warpfold::dot_many(pairs{{input.data(), host.data(), 10}}, per.data(), all.data()); },
               "array 0 of the list is not device memory");
  std::vector<unsigned char> bytes(per.bytes() + all.bytes());
  WARPFOLD_TEST_CUDA(cudaMemcpy(bytes.data(), per.data(), per.bytes(), cudaMemcpyDeviceToHost));
  WARPFOLD_TEST_CUDA(cudaMemcpy(bytes.data() + per.bytes(), all.data(), all.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0x5A; })) << "a rejected call wrote";
}

// An array of more than 2^31 elements in a list (4.3 GB of half), between two small ones.
TEST(ManyArraysLarge, AnArrayBeyondInt32) {
  if (!gpu_available()) GTEST_SKIP() << gpu_unavailable_reason();
  const std::int64_t big = (std::int64_t{1} << 31) + 1;
  device_array<__half> data(static_cast<std::size_t>(big + 10));
  // Every element 1.0 (0x3C00), filled by doubling copies.
  std::vector<__half> ones(1 << 20, __float2half(1.0f));
  copy_to_device(data.data(), ones.data(), ones.size());
  for (std::int64_t have = ones.size(); have < big + 10;) {
    const std::int64_t copy = std::min(have, big + 10 - have);
    WARPFOLD_TEST_CUDA(cudaMemcpy(data.data() + have, data.data(), copy * sizeof(__half), cudaMemcpyDeviceToDevice));
    have += copy;
  }
  const std::vector<warpfold::array_ref<__half>> list = {{data.data(), 3}, {data.data() + 3, big}, {data.data() + 1, 5}};
  device_array<float> per(3), all(1);
  warpfold::norm_l1_many(list, per.data(), all.data());
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  const std::vector<float> got = download(per.data(), 3);
  EXPECT_EQ(got[0], 3.0f);
  EXPECT_EQ(got[2], 5.0f);
  EXPECT_TRUE(near(got[1], static_cast<long double>(big), sum_tolerance<float>(big, big), "the big array"));
  float combined;
  copy_to_host(&combined, all.data(), 1);
  EXPECT_TRUE(near(combined, static_cast<long double>(big + 8), sum_tolerance<float>(big, big), "combined"));
  device_array<float> linf(3);
  warpfold::norm_linf_many(list, linf.data(), static_cast<float*>(nullptr));
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  for (float v : download(linf.data(), 3)) EXPECT_EQ(v, 1.0f);
}

}  // namespace
