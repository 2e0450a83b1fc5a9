// The device half of the test support checks itself. Most important: the "input unchanged"
// check really fails when a byte of the input, or of a guard, is written.
#include <gtest/gtest.h>

#include <cstring>

#include "warpfold_test/warpfold_test.hpp"

namespace {

using namespace warpfold_test;

class SupportDevice : public gpu_test {};

TEST_F(SupportDevice, UploadDownloadRoundTrip) {
  const auto values = make_values<double>(12345, 1, value_mode::full_range);
  const device_array<double> d = upload(values);
  EXPECT_EQ(d.size(), values.size());
  const auto back = download(d.data(), d.size());
  EXPECT_EQ(std::memcmp(back.data(), values.data(), values.size() * sizeof(double)), 0);
}

// Writes one byte of a device_input's allocation, at `element` relative to data().
template <typename T>
void corrupt(const device_input<T>& input, std::int64_t element, int byte = 0) {
  auto* p = reinterpret_cast<unsigned char*>(const_cast<T*>(input.data() + element)) + byte;
  unsigned char value = 0;
  WARPFOLD_TEST_CUDA(cudaMemcpy(&value, p, 1, cudaMemcpyDeviceToHost));
  value ^= 0x40;
  WARPFOLD_TEST_CUDA(cudaMemcpy(p, &value, 1, cudaMemcpyHostToDevice));
}

template <typename T>
void check_unchanged_can_fail(std::int64_t n) {
  SCOPED_TRACE(std::string(type_name<T>()) + ", n = " + std::to_string(n));
  const std::vector<std::int64_t> where = {0, n / 2, n - 1, -1, n};  // first, middle, last, front guard, back guard
  for (std::int64_t element : where) {
    device_input<T> input(make_values<T>(n, 2, value_mode::moderate), guard_layout{3, 5});
    ASSERT_TRUE(input.unchanged());
    ASSERT_TRUE(input.unchanged_on_host());
    corrupt(input, element, static_cast<int>(sizeof(T)) - 1);
    const ::testing::AssertionResult fast = input.unchanged();
    EXPECT_FALSE(fast) << "a write to element " << element << " went unnoticed by unchanged()";
    EXPECT_NE(std::string(fast.message()).find("element " + std::to_string(element)), std::string::npos)
        << fast.message();
    EXPECT_FALSE(input.unchanged_on_host()) << "a write to element " << element << " went unnoticed on the host";
  }
}

TEST_F(SupportDevice, UnchangedDetectsOneFlippedByteOnTheHostPath) {
  check_unchanged_can_fail<std::int32_t>(1000);
  check_unchanged_can_fail<double>(1);
  check_unchanged_can_fail<__half>(333);
}

TEST_F(SupportDevice, UnchangedDetectsOneFlippedByteOnTheDevicePath) {
  // Above host_compare_limit, so unchanged() compares on the device; sizes that leave a tail
  // of 1..15 bytes after the last 16-byte word.
  const std::int64_t n = static_cast<std::int64_t>(host_compare_limit / 4) + 1001;
  check_unchanged_can_fail<std::int32_t>(n);
  check_unchanged_can_fail<float>(n + 2);
  check_unchanged_can_fail<std::int8_t>(static_cast<std::int64_t>(host_compare_limit) + 7);
}

TEST_F(SupportDevice, EmptyInputHasAPoisonedPointer) {
  const device_input<float> input(std::vector<float>{});
  EXPECT_NE(input.data(), nullptr);
  EXPECT_EQ(input.size(), 0);
  float value = 0;
  WARPFOLD_TEST_CUDA(cudaMemcpy(&value, input.data(), sizeof value, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::isnan(value));
}

TEST_F(SupportDevice, GuardsHoldThePoison) {
  const device_input<std::int32_t> input(std::vector<std::int32_t>{1, 2, 3}, guard_layout{2, 4});
  const auto all = download(input.data() - 2, 9);
  const std::vector<std::int32_t> expected = {default_poison<std::int32_t>(), default_poison<std::int32_t>(), 1, 2, 3,
                                              default_poison<std::int32_t>(), default_poison<std::int32_t>(),
                                              default_poison<std::int32_t>(), default_poison<std::int32_t>()};
  EXPECT_EQ(all, expected);
}

TEST_F(SupportDevice, CompareDeviceBytesFindsTheFirstDifference) {
  const auto values = make_values<std::uint8_t>(1000, 3, value_mode::full_range);
  const device_array<std::uint8_t> a = upload(values), b = upload(values);
  EXPECT_EQ(compare_device_bytes(a.data(), b.data(), 1000).first_difference, -1);
  for (std::int64_t at : {0, 15, 16, 517, 991, 999}) {
    const device_array<std::uint8_t> c = upload(values);
    const std::uint8_t flipped = static_cast<std::uint8_t>(values[at] ^ 1);
    copy_to_device(c.data() + at, &flipped, 1);
    const byte_comparison r = compare_device_bytes(a.data(), c.data(), 1000);
    EXPECT_EQ(r.first_difference, at);
    EXPECT_EQ(r.differing_words, 1);
  }
  // Unaligned ranges fall back to a byte-by-byte comparison.
  EXPECT_EQ(compare_device_bytes(a.data() + 1, b.data() + 1, 999).first_difference, -1);
}

TEST_F(SupportDevice, GeneratedInputMatchesMakeValuesAndCanFail) {
  const std::int64_t n = (std::int64_t{1} << 25) + 4321;  // two upload chunks
  const generated_device_input<std::int32_t, std::int64_t> input(n, 77, value_mode::full_range);
  const auto values = make_values<std::int32_t>(n, 77, value_mode::full_range);
  const expected_sum<std::int64_t> expected = expect_sum<std::int64_t>(values);
  EXPECT_EQ(input.expected().exact, expected.exact);
  EXPECT_EQ(input.expected().sum_abs, expected.sum_abs);
  const auto back = download(input.data(), static_cast<std::size_t>(n));
  EXPECT_EQ(back, values);
  EXPECT_TRUE(input.unchanged());
  const std::int32_t wrong = values[n - 2] + 1;
  copy_to_device(const_cast<std::int32_t*>(input.data()) + (n - 2), &wrong, 1);
  const ::testing::AssertionResult r = input.unchanged();
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("element " + std::to_string(n - 2)), std::string::npos) << r.message();
}

}  // namespace
