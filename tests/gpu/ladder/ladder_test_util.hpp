// Shared by the ladder test files: the lists of steps and finishers, the check of one run
// (result, launch count, input untouched), and a budget that stops a sweep once a broken
// kernel has failed enough combinations to be diagnosed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "warpfold/error.hpp"
#include "warpfold/ladder/ladder.hpp"
#include "warpfold_test/warpfold_test.hpp"

namespace ladder_test {

using warpfold::ladder::finisher;
using warpfold::ladder::runner;
using warpfold::ladder::step;
using warpfold_test::device_input;
using warpfold_test::expected_sum;
using warpfold_test::value_mode;

inline std::vector<step> all_steps() {
  std::vector<step> list;
  for (const auto& s : warpfold::ladder::steps) list.push_back(s.id);
  return list;
}

inline std::vector<finisher> all_finishers() {
  std::vector<finisher> list;
  for (const auto& f : warpfold::ladder::finishers) list.push_back(f.id);
  return list;
}

inline std::vector<step> grid_stride_steps() {
  std::vector<step> list;
  for (const auto& s : warpfold::ladder::steps)
    if (s.grid_stride) list.push_back(s.id);
  return list;
}

template <typename T>
std::string describe(step s, finisher f, int block, std::int64_t n, std::int64_t offset = 0) {
  return "step " + std::string(warpfold::ladder::info(s).name) + ", finisher " +
         std::string(warpfold::ladder::info(f).name) + ", block " + std::to_string(block) + ", " +
         warpfold_test::type_name<T>() + ", n = " + std::to_string(n) + ", d_in = allocation + " +
         std::to_string(offset);
}

// Integers sweep full-range values, so the int32 sums wrap modulo 2^32 (the ladder's
// contract); floats sweep [-1, 2).
template <typename T>
constexpr value_mode sweep_mode = warpfold_test::is_integer_v<T> ? value_mode::full_range : value_mode::moderate;

// The input and its reference, made once and shared by every step x finisher.
template <typename T>
struct prepared_input {
  device_input<T> input;
  expected_sum<T> expected;

  prepared_input(const std::string& what, std::int64_t n, value_mode mode, warpfold_test::guard_layout guards = {})
      : input(warpfold_test::make_values<T>(n, warpfold_test::seed_for(what + "/" + warpfold_test::type_name<T>(), n), mode),
              guards),
        expected(warpfold_test::expect_sum<T>(input.host_values(), n)) {}
};

// A broken kernel fails at every size; after `limit` failing combinations (one input's worth
// of step x finisher) a test stops and says so, instead of printing thousands of copies of
// the same failure.
class failure_budget {
 public:
  explicit failure_budget(int limit = 50) : left_(limit) {}
  // Call after a failed check; true when the test should stop.
  bool spend() {
    if (--left_ > 0) return false;
    ADD_FAILURE() << "stopping this test after too many failing combinations";
    return true;
  }

 private:
  int left_;
};

// Launches the finisher promises: one pass for host, atomic and last-block, two kernels for
// second-kernel, at least one for relaunch; none for an empty input.
inline ::testing::AssertionResult launch_count_fits(finisher f, std::int64_t n, int launches) {
  bool ok = true;
  if (n == 0) ok = launches == 0;
  else if (f == finisher::second_kernel) ok = launches == 2;
  else if (f == finisher::relaunch) ok = launches >= 1 && launches <= 64;
  else ok = launches == 1;
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "launches() = " << launches << " does not fit finisher "
                                       << warpfold::ladder::info(f).name << " at n = " << n;
}

// One run and every check on it: the sum, the launch count, and that the input's device
// memory (guards included) was not written. Exceptions are reported, not propagated, so the
// SCOPED_TRACE of the caller names the combination that threw. Returns true if all passed.
template <typename T>
bool run_and_check(runner<T>& r, const device_input<T>& input, const T* d_in, std::int64_t n,
                   const expected_sum<T>& expected, cudaStream_t stream = nullptr) {
  T got{};
  try {
    r.run(d_in, n, stream);
    got = r.result(stream);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw: " << e.what();
    return false;
  }
  bool ok = true;
  if (::testing::AssertionResult m = expected.matches(got); !m) {
    ADD_FAILURE() << m.message();
    ok = false;
  }
  if (::testing::AssertionResult m = launch_count_fits(r.which_finisher(), n, r.launches()); !m) {
    ADD_FAILURE() << m.message();
    ok = false;
  }
  if (::testing::AssertionResult m = input.unchanged(); !m) {
    ADD_FAILURE() << m.message();
    input.restore();
    ok = false;
  }
  return ok;
}

template <typename T>
bool run_and_check(runner<T>& r, const prepared_input<T>& p, cudaStream_t stream = nullptr) {
  return run_and_check(r, p.input, p.input.data(), p.input.size(), p.expected, stream);
}

// Every step x finisher at the default block size on one input (a fresh runner for each).
template <typename T>
void run_every_step_and_finisher(const prepared_input<T>& p) {
  failure_budget budget;
  for (step s : all_steps()) {
    for (finisher f : all_finishers()) {
      SCOPED_TRACE(describe<T>(s, f, warpfold::ladder::default_block_size, p.input.size(), p.input.guards().front));
      runner<T> r(s, f);
      if (!run_and_check(r, p) && budget.spend()) return;
    }
  }
}

}  // namespace ladder_test
