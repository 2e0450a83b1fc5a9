// Shared pieces of the production-API tests: the element types, and checks that run every op
// on one device input against the CPU references.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <warpfold/reduce.hpp>

#include "warpfold_test/warpfold_test.hpp"

namespace reduce_test {

using element_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                                       std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;

struct type_names {
  template <typename T>
  static std::string GetName(int) {
    return warpfold_test::type_name<T>();
  }
};

// Runs the async form on `stream` into a fresh device slot poisoned beforehand, so a result
// that is never written shows up as the poison, not as a stale right answer.
template <typename Acc, typename Call>
Acc run_async(Call call, cudaStream_t stream) {
  warpfold_test::device_array<Acc> out(1);
  warpfold_test::fill_device_bytes(out.data(), 0xA5, sizeof(Acc));
  call(out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  Acc value;
  warpfold_test::copy_to_host(&value, out.data(), 1);
  return value;
}

// Compares two values of a float or integer type as real numbers (exact for every type).
template <typename A, typename B>
::testing::AssertionResult same_value(A got, B expected) {
  if (warpfold_test::to_real(got) == warpfold_test::to_real(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << warpfold_test::format_value(got) << ", expected "
                                       << warpfold_test::format_value(expected);
}

}  // namespace reduce_test
