#include "concurrency_cases.hpp"

#include <warpfold/axes.hpp>
#include <warpfold/reduce.hpp>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace concurrency_test {
namespace {

using namespace warpfold_test;

template <typename T>
std::vector<double> as_numbers(const void* out, std::size_t count) {
  std::vector<T> values(count);
  std::memcpy(values.data(), out, count * sizeof(T));
  return std::vector<double>(values.begin(), values.end());
}

template <typename V>
std::vector<double> arg_numbers(const void* out) {
  warpfold::value_index<V> r;
  std::memcpy(&r, out, sizeof(r));
  return {static_cast<double>(r.value), static_cast<double>(r.index)};
}

template <typename T>
std::vector<double> to_numbers(const std::vector<T>& values) {
  return std::vector<double>(values.begin(), values.end());
}

// The inputs, kept alive for the whole binary.
struct inputs {
  std::vector<std::unique_ptr<device_input<std::int32_t>>> ints;
  std::vector<std::unique_ptr<device_input<float>>> floats;
  std::unique_ptr<device_array<std::int64_t>> begins, ends;
  std::vector<std::unique_ptr<device_array<warpfold::array_ref<float>>>> lists;
};

inputs& kept_inputs() {
  static inputs all;
  return all;
}

const device_input<std::int32_t>& keep_on_device(const std::vector<std::int32_t>& v) {
  kept_inputs().ints.push_back(std::make_unique<device_input<std::int32_t>>(v));
  return *kept_inputs().ints.back();
}
const device_input<float>& keep_on_device(const std::vector<float>& v) {
  kept_inputs().floats.push_back(std::make_unique<device_input<float>>(v));
  return *kept_inputs().floats.back();
}

// Full reductions at sizes that take each launch shape: one block, one cluster, the one-pass
// finish, the streaming shape.
void add_full_cases(std::vector<reduction_case>& cases) {
  // Quick mode (the sanitizer runs) keeps one size of each shape and drops the large one.
  const std::vector<std::int64_t> sizes = quick_mode()
      ? std::vector<std::int64_t>{1000, 100003, (std::int64_t{1} << 18) + 3}
      : std::vector<std::int64_t>{1000, 100003, (std::int64_t{1} << 20) + 3, (std::int64_t{1} << 23) + 5};
  for (std::int64_t n : sizes) {
    const bool scratch = n * 4 > 512 * 1024;
    const std::vector<std::int32_t> ints = make_values<std::int32_t>(n, seed_for("concurrency-int", n));
    const std::int32_t* d_ints = keep_on_device(ints).data();
    std::int64_t total = 0;
    for (std::int32_t v : ints) total += v;
    reduction_case sum;
    sum.name = "sum<int32>(" + std::to_string(n) + ")";
    sum.out_bytes = sizeof(std::int64_t);
    sum.enqueue = [=](void* out, cudaStream_t s) { warpfold::sum(d_ints, n, static_cast<std::int64_t*>(out), s); };
    sum.blocking = [=](cudaStream_t s) { return std::vector<double>{double(warpfold::sum(d_ints, n, s))}; };
    sum.decode = [](const void* out) { return as_numbers<std::int64_t>(out, 1); };
    sum.expected = {double(total)};
    sum.needs_scratch = scratch;
    cases.push_back(sum);

    const std::vector<float> floats = exact_floats(n, seed_for("concurrency-float", n));
    const float* d_floats = keep_on_device(floats).data();
    double float_total = 0;
    for (float v : floats) float_total += v;
    reduction_case fsum;
    fsum.name = "sum<float>(" + std::to_string(n) + ")";
    fsum.out_bytes = sizeof(float);
    fsum.enqueue = [=](void* out, cudaStream_t s) { warpfold::sum(d_floats, n, static_cast<float*>(out), s); };
    fsum.blocking = [=](cudaStream_t s) { return std::vector<double>{warpfold::sum(d_floats, n, s)}; };
    fsum.decode = [](const void* out) { return as_numbers<float>(out, 1); };
    fsum.expected = {float_total};
    fsum.needs_scratch = scratch;
    cases.push_back(fsum);

    const auto smallest = std::min_element(floats.begin(), floats.end());
    reduction_case argmin;
    argmin.name = "argmin<float>(" + std::to_string(n) + ")";
    argmin.out_bytes = sizeof(warpfold::value_index<float>);
    argmin.enqueue = [=](void* out, cudaStream_t s) {
      warpfold::argmin(d_floats, n, static_cast<warpfold::value_index<float>*>(out), s);
    };
    argmin.blocking = [=](cudaStream_t s) {
      const auto r = warpfold::argmin(d_floats, n, s);
      return std::vector<double>{r.value, double(r.index)};
    };
    argmin.decode = [](const void* out) { return arg_numbers<float>(out); };
    argmin.expected = {*smallest, double(smallest - floats.begin())};
    argmin.needs_scratch = scratch;
    cases.push_back(argmin);
  }
}

// Axis reductions whose outputs are split over blocks: long rows (several blocks per row),
// columns too few to fill the GPU (several blocks per column tile), narrow columns read flat.
void add_axis_cases(std::vector<reduction_case>& cases) {
  {  // 3 rows of 2^20 + 1 floats, along dim 1
    const std::int64_t rows = 3, length = (std::int64_t{1} << (quick_mode() ? 16 : 20)) + 1;
    const std::vector<float> x = exact_floats(rows * length, seed_for("concurrency-rows", length));
    const float* d = keep_on_device(x).data();
    std::vector<double> expected(rows, 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t i = 0; i < length; ++i) expected[r] += x[r * length + i];
    reduction_case c;
    c.name = "sum_axes<float>({3, " + std::to_string(length) + "}, {1})";
    c.out_bytes = rows * sizeof(float);
    c.enqueue = [=](void* out, cudaStream_t s) { warpfold::sum_axes(d, {rows, length}, {1}, static_cast<float*>(out), rows, s); };
    c.blocking = [=](cudaStream_t s) { return to_numbers(warpfold::sum_axes(d, {rows, length}, {1}, s)); };
    c.decode = [=](const void* out) { return as_numbers<float>(out, rows); };
    c.expected = expected;
    c.needs_scratch = true;
    cases.push_back(c);
  }
  {  // [2^15 + 3, 40] int32 along dim 0: 40 columns are 10 vectors, column tiles split over rows
    const std::int64_t rows = (std::int64_t{1} << (quick_mode() ? 12 : 15)) + 3, cols = 40;
    const std::vector<std::int32_t> x = make_values<std::int32_t>(rows * cols, seed_for("concurrency-columns", rows));
    const std::int32_t* d = keep_on_device(x).data();
    std::vector<double> expected(cols, 0.0);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < cols; ++k) expected[k] += x[r * cols + k];
    reduction_case c;
    c.name = "sum_axes<int32>({" + std::to_string(rows) + ", 40}, {0})";
    c.out_bytes = cols * sizeof(std::int64_t);
    c.enqueue = [=](void* out, cudaStream_t s) {
      warpfold::sum_axes(d, {rows, cols}, {0}, static_cast<std::int64_t*>(out), cols, s);
    };
    c.blocking = [=](cudaStream_t s) { return to_numbers(warpfold::sum_axes(d, {rows, cols}, {0}, s)); };
    c.decode = [=](const void* out) { return as_numbers<std::int64_t>(out, cols); };
    c.expected = expected;
    c.needs_scratch = true;
    cases.push_back(c);
  }
  {  // [2^17, 16] floats along dim 0: rows of 4 vectors, read flat
    const std::int64_t rows = std::int64_t{1} << (quick_mode() ? 13 : 17), cols = 16;
    const std::vector<float> x = exact_floats(rows * cols, seed_for("concurrency-flat", rows));
    const float* d = keep_on_device(x).data();
    std::vector<double> expected(cols, -1e30);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < cols; ++k) expected[k] = std::max<double>(expected[k], x[r * cols + k]);
    reduction_case c;
    c.name = "max_axes<float>({" + std::to_string(rows) + ", 16}, {0})";
    c.out_bytes = cols * sizeof(float);
    c.enqueue = [=](void* out, cudaStream_t s) { warpfold::max_axes(d, {rows, cols}, {0}, static_cast<float*>(out), cols, s); };
    c.blocking = [=](cudaStream_t s) { return to_numbers(warpfold::max_axes(d, {rows, cols}, {0}, s)); };
    c.decode = [=](const void* out) { return as_numbers<float>(out, cols); };
    c.expected = expected;
    c.needs_scratch = true;
    cases.push_back(c);
  }
  {  // 64 segments of lengths 0 .. 2 * 4096 over one input, some empty
    const std::int64_t segments = 64;
    std::vector<std::int64_t> begin(segments), end(segments);
    std::int64_t at = 0;
    for (std::int64_t s = 0; s < segments; ++s) {
      const std::int64_t length = s % 9 == 0 ? 0 : std::int64_t(splitmix64(base_seed() + s) % 8192);
      begin[s] = at;
      end[s] = at + length;
      at += length;
    }
    const std::vector<float> x = exact_floats(std::max<std::int64_t>(at, 1), seed_for("concurrency-segments", at));
    const float* d = keep_on_device(x).data();
    auto& kept = kept_inputs();
    kept.begins = std::make_unique<device_array<std::int64_t>>(upload(begin));
    kept.ends = std::make_unique<device_array<std::int64_t>>(upload(end));
    const std::int64_t* d_begin = kept.begins->data();
    const std::int64_t* d_end = kept.ends->data();
    std::vector<double> expected(segments, 0.0);
    for (std::int64_t s = 0; s < segments; ++s)
      for (std::int64_t i = begin[s]; i < end[s]; ++i) expected[s] += x[i];
    reduction_case c;
    c.name = "reduce_segments<sum, float>(64 segments)";
    c.out_bytes = segments * sizeof(float);
    c.enqueue = [=](void* out, cudaStream_t s) {
      warpfold::reduce_segments<warpfold::op::sum>(d, d_begin, d_end, segments, static_cast<float*>(out), s);
    };
    c.blocking = [=](cudaStream_t s) { return to_numbers(warpfold::reduce_segments<warpfold::op::sum>(d, d_begin, d_end, segments, s)); };
    c.decode = [=](const void* out) { return as_numbers<float>(out, segments); };
    c.expected = expected;
    cases.push_back(c);
  }
}

// Many arrays in one call, from a list in device memory: a short list (each block plans its
// share) and one of over 4096 arrays (a plan kernel first, whose plan lives in scratch). The
// arrays are pieces of one input, of every size from empty up, one piece listed twice; the
// output is each array's sum, then the sum of all of them.
void add_many_cases(std::vector<reduction_case>& cases) {
  struct list_shape {
    std::int64_t arrays;
    std::int64_t longest;  // sizes drawn in [0, longest], with a few fixed ones
  };
  const std::int64_t long_piece = quick_mode() ? 20000 : 100003;
  for (const list_shape shape : {list_shape{40, long_piece}, list_shape{5000, 700}}) {
    std::vector<std::int64_t> sizes(shape.arrays);
    for (std::int64_t a = 0; a < shape.arrays; ++a)
      sizes[a] = a % 7 == 0 ? 0 : std::int64_t(splitmix64(base_seed() + 977 * shape.arrays + a) % (shape.longest + 1));
    sizes[1] = 1;
    sizes[2] = shape.longest;
    std::int64_t total = 0;
    for (std::int64_t s : sizes) total += s;
    const std::vector<float> x = exact_floats(std::max<std::int64_t>(total, 1), seed_for("concurrency-many", shape.arrays));
    const float* d = keep_on_device(x).data();
    std::vector<warpfold::array_ref<float>> list = pieces_of(d, sizes);
    list[3] = list[2];  // the same array twice
    const std::vector<double> expected = sums_of(list, d, x);

    auto& kept = kept_inputs();
    kept.lists.push_back(std::make_unique<device_array<warpfold::array_ref<float>>>(upload(list)));
    const warpfold::array_ref<float>* d_list = kept.lists.back()->data();
    const std::int64_t count = shape.arrays;
    const std::size_t bytes = (count + 1) * sizeof(float);
    reduction_case c;
    c.name = "sum_many<float>(" + std::to_string(count) + " arrays)";
    c.out_bytes = bytes;
    c.enqueue = [=](void* out, cudaStream_t s) {
      auto* per_array = static_cast<float*>(out);
      warpfold::sum_many<float>(d_list, count, per_array, per_array + count, s);
    };
    c.blocking = [=](cudaStream_t s) {  // the host-list form, into memory of the call's own
      void* out = nullptr;
      WARPFOLD_TEST_CUDA(cudaMallocAsync(&out, bytes, s));
      auto* per_array = static_cast<float*>(out);
      warpfold::sum_many<float>(list, per_array, per_array + count, s);
      std::vector<float> got(count + 1);
      WARPFOLD_TEST_CUDA(cudaMemcpyAsync(got.data(), out, bytes, cudaMemcpyDeviceToHost, s));
      WARPFOLD_TEST_CUDA(cudaFreeAsync(out, s));
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(s));
      return to_numbers(got);
    };
    c.decode = [=](const void* out) { return as_numbers<float>(out, count + 1); };
    c.expected = expected;
    c.needs_scratch = true;
    cases.push_back(c);
  }
}

}  // namespace

std::vector<warpfold::array_ref<float>> pieces_of(const float* d_x, const std::vector<std::int64_t>& sizes) {
  std::vector<warpfold::array_ref<float>> list;
  std::int64_t at = 0;
  for (std::int64_t size : sizes) {
    list.push_back({d_x + at, size});
    at += size;
  }
  return list;
}

std::vector<double> sums_of(const std::vector<warpfold::array_ref<float>>& list, const float* d_x, const std::vector<float>& x) {
  std::vector<double> sums(list.size() + 1, 0.0);
  for (std::size_t a = 0; a < list.size(); ++a) {
    const float* first = x.data() + (list[a].data - d_x);
    for (std::int64_t i = 0; i < list[a].size; ++i) sums[a] += first[i];
    sums.back() += sums[a];
  }
  return sums;
}

std::vector<float> exact_floats(std::int64_t n, std::uint64_t seed) {
  std::vector<float> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    values[i] = float(std::int64_t(splitmix64(seed + std::uint64_t(i)) % 7) - 3) / 256.0f;
  return values;
}

const std::vector<reduction_case>& all_cases() {
  static const std::vector<reduction_case> cases = [] {
    std::vector<reduction_case> all;
    add_full_cases(all);
    add_axis_cases(all);
    add_many_cases(all);
    return all;
  }();
  return cases;
}

std::vector<const reduction_case*> scratch_cases() {
  std::vector<const reduction_case*> list;
  for (const reduction_case& c : all_cases())
    if (c.needs_scratch) list.push_back(&c);
  return list;
}

::testing::AssertionResult inputs_unchanged() {
  for (const auto& input : kept_inputs().ints)
    if (::testing::AssertionResult r = input->unchanged(); !r) return r;
  for (const auto& input : kept_inputs().floats)
    if (::testing::AssertionResult r = input->unchanged(); !r) return r;
  return ::testing::AssertionSuccess();
}

std::size_t largest_output() {
  std::size_t bytes = 0;
  for (const reduction_case& c : all_cases()) bytes = std::max(bytes, c.out_bytes);
  return bytes;
}

result_slots::result_slots(std::size_t count, std::size_t bytes) : bytes_((bytes + 15) / 16 * 16) {
  WARPFOLD_TEST_CUDA(cudaMalloc(reinterpret_cast<void**>(&device_), count * bytes_));
  WARPFOLD_TEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&host_), count * bytes_));
}

result_slots::~result_slots() {
  (void)cudaFree(device_);
  (void)cudaFreeHost(host_);
}

void result_slots::poison(std::size_t i, cudaStream_t stream) const {
  WARPFOLD_TEST_CUDA(cudaMemsetAsync(device(i), 0xA5, bytes_, stream));
}

void result_slots::fetch(std::size_t i, cudaStream_t stream) const {
  WARPFOLD_TEST_CUDA(cudaMemcpyAsync(host_ + i * bytes_, device(i), bytes_, cudaMemcpyDeviceToHost, stream));
}

std::string mismatch(const reduction_case& c, const std::vector<double>& got) {
  if (got == c.expected) return "";
  std::ostringstream text;
  text << c.name << ": ";
  if (got.size() != c.expected.size()) {
    text << got.size() << " values instead of " << c.expected.size();
    return text.str();
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != c.expected[i]) {
      text << "value " << i << " is " << got[i] << ", expected " << c.expected[i];
      break;
    }
  return text.str();
}

}  // namespace concurrency_test
