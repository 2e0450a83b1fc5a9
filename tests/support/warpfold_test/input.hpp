// A test input on the device that can prove it was not written to.
//
// device_input<T> lays the values out as [front poison][values][back poison] in one allocation
// of exactly front + n + back elements (see types.hpp for the poison values), keeps the whole
// image on the host, and unchanged() compares every byte of the allocation, guards included:
// - up to 4 MiB, on the host (download and memcmp), after every call;
// - above that, on the device against a pristine device copy made at upload (compare.cu), so
//   that checking after each of the 50 step x finisher calls on a 10^8-element input costs
//   milliseconds, not a minute of PCIe traffic. unchanged_on_host() does the full host check
//   (it also catches a corrupted pristine copy); the tests call it once per input.
// With no guards (the default), the input ends exactly at the end of its allocation, so
// compute-sanitizer's memcheck sees any read past it. With guards, a read into them changes
// the result, which the tests see without a sanitizer.
// An empty input (n = 0) always gets one back poison element, so data() is a real device
// pointer and a kernel that dereferences it anyway returns a poisoned result.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "warpfold_test/device_memory.hpp"
#include "warpfold_test/generate.hpp"
#include "warpfold_test/reference.hpp"
#include "warpfold_test/types.hpp"

namespace warpfold_test {

struct guard_layout {
  std::int64_t front = 0;  // elements before the input (d_in - front is the allocation)
  std::int64_t back = 0;   // elements after it
};

// Bytes up to which unchanged() compares on the host.
constexpr std::size_t host_compare_limit = std::size_t{4} << 20;

template <typename T>
class device_input {
 public:
  explicit device_input(const std::vector<T>& values, guard_layout guards = {}, T poison = default_poison<T>());

  const T* data() const { return allocation_.data() + guards_.front; }
  std::int64_t size() const { return n_; }
  const T* host_values() const { return image_.data() + guards_.front; }
  guard_layout guards() const { return guards_; }

  // Every byte of the allocation is what was uploaded.
  ::testing::AssertionResult unchanged() const;
  ::testing::AssertionResult unchanged_on_host() const;

  // Uploads the original bytes again: after a kernel wrote to the input, the calls that
  // follow are then tested on the right data instead of failing as a consequence.
  void restore() const {
    copy_to_device(allocation_.data(), image_.data(), image_.size());
  }

 private:
  ::testing::AssertionResult describe_difference(std::int64_t element, const T& now) const;

  std::int64_t n_;
  guard_layout guards_;
  std::vector<T> image_;          // the whole allocation as uploaded
  device_array<T> allocation_;
  device_array<T> pristine_;      // only above host_compare_limit
};

// An input too big to keep on the host (2^31 + 17 int32 is 8.6 GB): generated on all cores,
// chunk by chunk through a pinned staging buffer, uploaded, and summed in the same pass.
// unchanged() downloads it chunk by chunk and compares with the values generated again from
// the seed. Acc is the accumulator the sum reference is computed for.
template <typename T, typename Acc>
class generated_device_input {
 public:
  generated_device_input(std::int64_t n, std::uint64_t seed, value_mode mode);

  const T* data() const { return device_.data(); }
  std::int64_t size() const { return n_; }
  const expected_sum<Acc>& expected() const { return expected_; }
  ::testing::AssertionResult unchanged() const;

 private:
  std::int64_t n_;
  std::uint64_t seed_;
  value_mode mode_;
  device_array<T> device_;
  expected_sum<Acc> expected_;
};

}  // namespace warpfold_test

// ---- definitions ----

namespace warpfold_test {

template <typename T>
device_input<T>::device_input(const std::vector<T>& values, guard_layout guards, T poison)
    : n_(static_cast<std::int64_t>(values.size())), guards_(guards) {
  if (n_ == 0 && guards_.back == 0) guards_.back = 1;
  image_.assign(static_cast<std::size_t>(guards_.front + n_ + guards_.back), poison);
  std::copy(values.begin(), values.end(), image_.begin() + guards_.front);
  allocation_ = upload(image_);
  if (allocation_.bytes() > host_compare_limit) {
    pristine_ = device_array<T>(allocation_.size());
    WARPFOLD_TEST_CUDA(cudaMemcpy(pristine_.data(), allocation_.data(), allocation_.bytes(), cudaMemcpyDeviceToDevice));
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());  // device_memory.hpp (copy_to_device) says why
  }
}

template <typename T>
::testing::AssertionResult device_input<T>::describe_difference(std::int64_t element, const T& now) const {
  const std::int64_t index = element - guards_.front;  // relative to data()
  const char* where = index < 0 ? "front guard" : index < n_ ? "input" : "back guard";
  return ::testing::AssertionFailure()
         << "the input's device memory was written: element " << index << " of d_in (" << where << ", n = " << n_
         << ") was " << format_value(image_[static_cast<std::size_t>(element)]) << ", is now " << format_value(now);
}

template <typename T>
::testing::AssertionResult device_input<T>::unchanged_on_host() const {
  const std::vector<T> now = download(allocation_.data(), allocation_.size());
  if (std::memcmp(now.data(), image_.data(), allocation_.bytes()) == 0) return ::testing::AssertionSuccess();
  std::int64_t element = 0;
  while (std::memcmp(&now[static_cast<std::size_t>(element)], &image_[static_cast<std::size_t>(element)], sizeof(T)) == 0)
    ++element;
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < now.size(); ++i) differing += std::memcmp(&now[i], &image_[i], sizeof(T)) != 0;
  return describe_difference(element, now[static_cast<std::size_t>(element)])
         << "; " << differing << " of " << now.size() << " elements differ";
}

template <typename T>
::testing::AssertionResult device_input<T>::unchanged() const {
  if (pristine_.size() == 0) return unchanged_on_host();
  const byte_comparison c = compare_device_bytes(allocation_.data(), pristine_.data(), allocation_.bytes());
  if (c.first_difference < 0) return ::testing::AssertionSuccess();
  const std::int64_t element = c.first_difference / static_cast<std::int64_t>(sizeof(T));
  T now;
  copy_to_host(&now, allocation_.data() + element, 1);
  return describe_difference(element, now) << "; " << c.differing_words << " 16-byte words differ (device compare)";
}

template <typename T, typename Acc>
generated_device_input<T, Acc>::generated_device_input(std::int64_t n, std::uint64_t seed, value_mode mode)
    : n_(n), seed_(seed), mode_(mode), device_(static_cast<std::size_t>(n)) {
  constexpr std::int64_t chunk = std::int64_t{1} << 25;  // elements per upload
  constexpr std::int64_t piece = std::int64_t{1} << 20;  // elements per thread task
  pinned_array<T> staging(static_cast<std::size_t>(std::min(chunk, n)));
  sum_accumulator<Acc> total;
  for (std::int64_t begin = 0; begin < n; begin += chunk) {
    const std::int64_t count = std::min(chunk, n - begin);
    std::vector<sum_accumulator<Acc>> pieces(static_cast<std::size_t>((count + piece - 1) / piece));
    parallel_for_chunks(count, piece, [&](std::int64_t k, std::int64_t b, std::int64_t e) {
      fill_values(staging.data() + b, e - b, seed, begin + b, mode);
      pieces[static_cast<std::size_t>(k)].add(staging.data() + b, e - b);
    });
    for (const sum_accumulator<Acc>& p : pieces) total.add(p);
    copy_to_device(device_.data() + begin, staging.data(), static_cast<std::size_t>(count));
  }
  expected_ = total.result();
}

template <typename T, typename Acc>
::testing::AssertionResult generated_device_input<T, Acc>::unchanged() const {
  constexpr std::int64_t chunk = std::int64_t{1} << 25;
  constexpr std::int64_t piece = std::int64_t{1} << 20;
  pinned_array<T> staging(static_cast<std::size_t>(std::min(chunk, n_)));
  std::int64_t first_bad = -1;
  for (std::int64_t begin = 0; begin < n_ && first_bad < 0; begin += chunk) {
    const std::int64_t count = std::min(chunk, n_ - begin);
    copy_to_host(staging.data(), device_.data() + begin, static_cast<std::size_t>(count));
    std::mutex mutex;
    parallel_for_chunks(count, piece, [&](std::int64_t, std::int64_t b, std::int64_t e) {
      std::vector<T> expected(static_cast<std::size_t>(e - b));
      fill_values(expected.data(), e - b, seed_, begin + b, mode_);
      for (std::int64_t i = b; i < e; ++i) {
        if (std::memcmp(&staging.data()[i], &expected[static_cast<std::size_t>(i - b)], sizeof(T)) != 0) {
          std::lock_guard<std::mutex> lock(mutex);
          if (first_bad < 0 || begin + i < first_bad) first_bad = begin + i;
          break;
        }
      }
    });
  }
  if (first_bad < 0) return ::testing::AssertionSuccess();
  T now;
  copy_to_host(&now, device_.data() + first_bad, 1);
  return ::testing::AssertionFailure() << "the input's device memory was written: element " << first_bad << " of "
                                       << n_ << " was " << format_value(value_at<T>(seed_, first_bad, mode_))
                                       << ", is now " << format_value(now);
}

}  // namespace warpfold_test
