// Shared pieces of the axis API's GPU tests: the element types, calling each op's named
// function (sum_axes, argmax_axes, ...) in its blocking and asynchronous forms, output buffers
// that prove what was not written, input values suited to each op, and expect_axes(), which
// runs one (input, shape, axes, op) through both forms and holds every output against the
// independent CPU reference in axis_reference.hpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <warpfold/axes.hpp>

#include "axis_reference.hpp"
#include "warpfold_test/warpfold_test.hpp"

namespace axis_test {

namespace op = warpfold::op;

using all_element_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                           std::uint16_t, std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float,
                                           double>;
// The types every op is tested on: 8-, 32- and 64-bit integers of both signs, both half
// types (accumulating in float), float and double.
using op_element_types =
    ::testing::Types<std::int8_t, std::int32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;

struct type_names {
  template <typename T>
  static std::string GetName(int) {
    return warpfold_test::type_name<T>();
  }
};

template <typename Op>
constexpr const char* op_name() {
  if constexpr (std::is_same_v<Op, op::sum>) return "sum";
  else if constexpr (std::is_same_v<Op, op::prod>) return "prod";
  else if constexpr (std::is_same_v<Op, op::min>) return "min";
  else if constexpr (std::is_same_v<Op, op::max>) return "max";
  else if constexpr (std::is_same_v<Op, op::bit_and>) return "bit_and";
  else if constexpr (std::is_same_v<Op, op::bit_or>) return "bit_or";
  else if constexpr (std::is_same_v<Op, op::bit_xor>) return "bit_xor";
  else if constexpr (std::is_same_v<Op, op::argmin>) return "argmin";
  else return "argmax";
}

inline warpfold::shape to_shape(const std::vector<std::int64_t>& extents) { return warpfold::shape(extents); }
inline warpfold::axes to_axes(const std::vector<int>& list) { return warpfold::axes(list); }

// Every subset of the axes of a rank-r array, ascending, from none to all.
inline std::vector<std::vector<int>> every_axis_subset(int rank) {
  std::vector<std::vector<int>> subsets;
  for (int mask = 0; mask < (1 << rank); ++mask) {
    std::vector<int> list;
    for (int a = 0; a < rank; ++a)
      if (mask & (1 << a)) list.push_back(a);
    subsets.push_back(list);
  }
  return subsets;
}

inline std::int64_t element_count(const std::vector<std::int64_t>& extents) {
  std::int64_t n = 1;
  for (std::int64_t e : extents) n *= e;
  return n;
}

// ---- calling the API: each op through its own named function ----

template <typename Op, typename T>
std::vector<result_t<Op, T>> call_blocking(const T* d_in, const warpfold::shape& in, const warpfold::axes& reduce,
                                           cudaStream_t stream) {
  if constexpr (std::is_same_v<Op, op::sum>) return warpfold::sum_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::prod>) return warpfold::prod_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::min>) return warpfold::min_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::max>) return warpfold::max_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::bit_and>) return warpfold::bit_and_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::bit_or>) return warpfold::bit_or_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::bit_xor>) return warpfold::bit_xor_axes(d_in, in, reduce, stream);
  else if constexpr (std::is_same_v<Op, op::argmin>) return warpfold::argmin_axes(d_in, in, reduce, stream);
  else return warpfold::argmax_axes(d_in, in, reduce, stream);
}

template <typename Op, typename T>
void call_async(const T* d_in, const warpfold::shape& in, const warpfold::axes& reduce, result_t<Op, T>* d_out,
                std::int64_t capacity, cudaStream_t stream) {
  if constexpr (std::is_same_v<Op, op::sum>) warpfold::sum_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::prod>) warpfold::prod_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::min>) warpfold::min_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::max>) warpfold::max_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::bit_and>) warpfold::bit_and_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::bit_or>) warpfold::bit_or_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::bit_xor>) warpfold::bit_xor_axes(d_in, in, reduce, d_out, capacity, stream);
  else if constexpr (std::is_same_v<Op, op::argmin>) warpfold::argmin_axes(d_in, in, reduce, d_out, capacity, stream);
  else warpfold::argmax_axes(d_in, in, reduce, d_out, capacity, stream);
}

// ---- outputs that show what was not written ----

// Every byte of the sentinel pattern: no expected value in these tests has it (as a float it
// is -2.9e-16, as an int32 -1515870811, as an index -6510615555426900571).
constexpr unsigned char sentinel_byte = 0xA5;

// A device output of `count` elements (at least one, so data() is a real device pointer even
// for no outputs), filled with the sentinel.
template <typename R>
class sentinel_output {
 public:
  explicit sentinel_output(std::int64_t count)
      : count_(count), buffer_(static_cast<std::size_t>(std::max<std::int64_t>(count, 1))) {
    warpfold_test::fill_device_bytes(buffer_.data(), sentinel_byte, buffer_.bytes());
  }
  R* data() const { return buffer_.data(); }
  std::int64_t size() const { return count_; }
  std::vector<R> download(std::int64_t count) const {
    return warpfold_test::download(buffer_.data(), static_cast<std::size_t>(count));
  }
  // Elements [first, size()) (the whole allocation for size() 0) still hold the sentinel.
  ::testing::AssertionResult untouched_from(std::int64_t first) const {
    std::vector<unsigned char> bytes(buffer_.bytes());
    warpfold_test::copy_to_host(bytes.data(), reinterpret_cast<const unsigned char*>(buffer_.data()), bytes.size());
    for (std::size_t b = static_cast<std::size_t>(first) * sizeof(R); b < bytes.size(); ++b)
      if (bytes[b] != sentinel_byte)
        return ::testing::AssertionFailure() << "output element " << b / sizeof(R) << " (byte " << b % sizeof(R)
                                             << ") was written; only elements below " << first << " may be";
    return ::testing::AssertionSuccess();
  }

 private:
  std::int64_t count_;
  warpfold_test::device_array<R> buffer_;
};

// ---- the check ----

enum class forms { blocking, async, both };

// Sweeps over many (shape, axes) run both forms for each; under WARPFOLD_TEST_QUICK=1 (the
// sanitizer runs, where every launch is slow) they alternate, so each case still runs once
// and each form still meets every kind of case.
inline forms sweep_forms(std::size_t case_index) {
  if (!warpfold_test::quick_mode()) return forms::both;
  return case_index % 2 ? forms::async : forms::blocking;
}

// Extra output elements the asynchronous form gets beyond what it must write: out_capacity is
// larger than needed, and those elements must keep the sentinel.
constexpr std::int64_t output_slack = 3;

// Runs op over `axes` of the input (whose host copy is the reference's input) in the
// requested forms, the async one on `stream` with capacity outputs + output_slack, and
// expects every output to match the reference and nothing past the outputs to be written.
// Returns false if anything failed (for callers that stop at the first failing case).
template <typename Op, typename T>
bool expect_axes(const warpfold_test::device_input<T>& input, const std::vector<std::int64_t>& extents,
                 const std::vector<int>& axes, cudaStream_t stream, forms which = forms::both) {
  using R = result_t<Op, T>;
  const layout l = make_layout(extents, axes);
  if (l.elements != input.size()) throw std::logic_error("axis_test::expect_axes: input size != shape " + l.text);
  const auto expected = expected_for<Op>(input.host_values(), l);
  const std::string what = std::string(op_name<Op>()) + "_axes<" + warpfold_test::type_name<T>() + "> " + l.text;
  bool ok = true;
  if (which != forms::async) {
    const std::vector<R> got = call_blocking<Op>(input.data(), to_shape(extents), to_axes(axes), stream);
    const ::testing::AssertionResult r = matches_all(expected, got, l);
    EXPECT_TRUE(r) << what << ", blocking";
    ok = ok && r;
  }
  if (which != forms::blocking) {
    const sentinel_output<R> out(l.outputs() + output_slack);
    call_async<Op>(input.data(), to_shape(extents), to_axes(axes), out.data(), out.size(), stream);
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    const ::testing::AssertionResult r = matches_all(expected, out.download(l.outputs()), l);
    EXPECT_TRUE(r) << what << ", async";
    const ::testing::AssertionResult tail = out.untouched_from(l.outputs());
    EXPECT_TRUE(tail) << what << ", async";
    ok = ok && r && tail;
  }
  return ok;
}

// ---- inputs suited to each op ----

// Floats rounded to quarters in [-1, 2): only 13 distinct values, so every long reduction has
// ties and argmin/argmax must pick the first index. Integers are left as they are (their
// moderate range already repeats).
template <typename T>
std::vector<T> values_with_ties(std::int64_t n, std::uint64_t seed) {
  std::vector<T> values = warpfold_test::make_values<T>(n, seed);
  if constexpr (!is_integer_v<T>)
    for (T& v : values) v = warpfold_test::from_double<T>(std::floor(static_cast<double>(to_real(v)) * 4.0) / 4.0);
  return values;
}

// Products that stay informative: odd integers (never 0, so the wrapped product keeps every
// element's mark) and floats within 2^-9 of 1 (no overflow or underflow for 10^6 elements).
template <typename T>
std::vector<T> values_for_products(std::int64_t n, std::uint64_t seed) {
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = warpfold_test::splitmix64(seed + static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull);
    if constexpr (is_integer_v<T>) {
      values[i] = static_cast<T>(static_cast<T>(h % 201) | T(1));
      if (std::is_signed_v<T> && (h >> 32) % 2) values[i] = static_cast<T>(-static_cast<std::int64_t>(values[i]));
    } else {
      values[i] = warpfold_test::from_double<T>(1.0 + (static_cast<double>(h >> 11) * 0x1p-53 - 0.5) * 0x1p-8);
    }
  }
  return values;
}

// Bitwise ops: for and, mostly all-ones with one bit cleared in a quarter of the elements;
// for or, mostly zero with one bit set in a quarter; for xor, every bit random. So and/or do
// not saturate after a handful of elements.
template <typename Op, typename T>
std::vector<T> values_for_bits(std::int64_t n, std::uint64_t seed) {
  std::vector<T> values(static_cast<std::size_t>(n));
  constexpr int bits = 8 * sizeof(T);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = warpfold_test::splitmix64(seed + static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull);
    const T one_bit = (h % 4 == 0) ? static_cast<T>(T(1) << ((h >> 8) % bits)) : T(0);
    if constexpr (std::is_same_v<Op, op::bit_and>) values[i] = static_cast<T>(~one_bit);
    else if constexpr (std::is_same_v<Op, op::bit_or>) values[i] = one_bit;
    else values[i] = static_cast<T>(h);
  }
  return values;
}

template <typename Op, typename T>
std::vector<T> values_for(std::int64_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<Op, op::prod>) return values_for_products<T>(n, seed);
  else if constexpr (is_bitwise_v<Op>) return values_for_bits<Op, T>(n, seed);
  else if constexpr (warpfold::is_arg_op_v<Op>) return values_with_ties<T>(n, seed);
  else return warpfold_test::make_values<T>(n, seed);
}

// A non-default stream for the asynchronous forms, destroyed with the test.
class owned_stream {
 public:
  owned_stream() { WARPFOLD_TEST_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~owned_stream() { (void)cudaStreamDestroy(stream_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace axis_test
