// What the ladder promises without a GPU: the catalogue of steps and finishers, name parsing,
// supported block sizes, and argument checks that run before any CUDA call. Runs on CI.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "warpfold/error.hpp"
#include "warpfold/ladder/ladder.hpp"
#include "warpfold/validate.hpp"

namespace {

namespace ladder = warpfold::ladder;
using ladder::finisher;
using ladder::step;

TEST(LadderCatalogue, StepsAreNumberedInOrderWithUniqueNames) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < ladder::steps.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(ladder::steps[i].id), i);
    EXPECT_EQ(&ladder::info(ladder::steps[i].id), &ladder::steps[i]);
    EXPECT_EQ(ladder::steps[i].name.substr(0, ladder::steps[i].name.find('-')), std::to_string(i))
        << "a step's name starts with its number";
    EXPECT_FALSE(ladder::steps[i].summary.empty());
    EXPECT_TRUE(names.insert(ladder::steps[i].name).second) << "duplicate name " << ladder::steps[i].name;
  }
  EXPECT_EQ(ladder::steps.size(), 10u);
}

TEST(LadderCatalogue, FinishersAreNumberedInOrderWithUniqueNames) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < ladder::finishers.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(ladder::finishers[i].id), i);
    EXPECT_EQ(&ladder::info(ladder::finishers[i].id), &ladder::finishers[i]);
    EXPECT_FALSE(ladder::finishers[i].summary.empty());
    EXPECT_TRUE(names.insert(ladder::finishers[i].name).second) << "duplicate name " << ladder::finishers[i].name;
  }
  EXPECT_EQ(ladder::finishers.size(), 5u);
}

TEST(LadderCatalogue, OnlyStepsSevenToNineAreGridStride) {
  for (const auto& s : ladder::steps)
    EXPECT_EQ(s.grid_stride, static_cast<int>(s.id) >= 7) << s.name;
}

TEST(LadderCatalogue, OnlyTheAtomicFinisherIsNondeterministicForFloats) {
  for (const auto& f : ladder::finishers)
    EXPECT_EQ(f.deterministic_for_floats, f.id != finisher::atomic) << f.name;
}

TEST(LadderParse, StepByFullNameAndByNumber) {
  for (const auto& s : ladder::steps) {
    EXPECT_EQ(ladder::parse_step(s.name), s.id) << s.name;
    const std::string number = std::to_string(static_cast<int>(s.id));
    EXPECT_EQ(ladder::parse_step(number), s.id) << number;
  }
}

TEST(LadderParse, RejectsUnknownSteps) {
  for (const char* bad : {"", "10", "-1", "01", " 3", "3 ", "3-", "3-seq", "sequential", "three", "9-vector", "x"})
    EXPECT_FALSE(ladder::parse_step(bad).has_value()) << '"' << bad << '"';
}

TEST(LadderParse, FinisherByName) {
  for (const auto& f : ladder::finishers) EXPECT_EQ(ladder::parse_finisher(f.name), f.id) << f.name;
  for (const char* bad : {"", "Host", "last_block", "lastblock", "0", "atomics", "second"})
    EXPECT_FALSE(ladder::parse_finisher(bad).has_value()) << '"' << bad << '"';
}

TEST(LadderBlockSizes, SupportedListsMatchTheHeader) {
  const std::vector<int> any = {32, 64, 128, 256, 512, 1024};
  const std::vector<int> from64 = {64, 128, 256, 512, 1024};
  const std::vector<int> compiled = {128, 256, 512};
  for (const auto& s : ladder::steps) {
    const int k = static_cast<int>(s.id);
    const std::vector<int>& expected = k <= 4 ? any : k == 5 ? from64 : compiled;
    EXPECT_EQ(ladder::supported_block_sizes(s.id), expected) << s.name;
    for (int b : expected) EXPECT_TRUE(ladder::supports_block_size(s.id, b)) << s.name << " " << b;
    EXPECT_TRUE(ladder::supports_block_size(s.id, ladder::default_block_size)) << s.name;
  }
}

// The constructor checks the block size before it allocates anything, so this runs (and
// must throw invalid_argument, not a CUDA error) on a machine without a GPU.
template <typename T>
void check_unsupported_block_sizes() {
  for (const auto& s : ladder::steps) {
    std::vector<int> bad = {0, -256, 1, 16, 31, 33, 100, 255, 257, 2048, 4096};
    for (int b = 32; b <= 1024; b *= 2)
      if (!ladder::supports_block_size(s.id, b)) bad.push_back(b);  // e.g. 64 for step 6, 32 for step 5
    for (int b : bad) {
      EXPECT_FALSE(ladder::supports_block_size(s.id, b)) << s.name << " " << b;
      for (const auto& f : ladder::finishers) {
        SCOPED_TRACE(std::string(s.name) + ", " + std::string(f.name) + ", block size " + std::to_string(b));
        try {
          ladder::runner<T> r(s.id, f.id, b);
          ADD_FAILURE() << "no exception";
        } catch (const warpfold::invalid_argument& e) {
          const std::string what = e.what();
          EXPECT_NE(what.find("block size " + std::to_string(b)), std::string::npos) << what;
          EXPECT_NE(what.find(std::string(s.name)), std::string::npos) << what;
          EXPECT_NE(what.find("supported"), std::string::npos) << what;
        } catch (const std::exception& e) {
          ADD_FAILURE() << "expected warpfold::invalid_argument, got: " << e.what();
        }
      }
    }
  }
}

TEST(LadderBlockSizes, UnsupportedThrowsBeforeTouchingTheGpuInt32) { check_unsupported_block_sizes<std::int32_t>(); }
TEST(LadderBlockSizes, UnsupportedThrowsBeforeTouchingTheGpuFloat) { check_unsupported_block_sizes<float>(); }
TEST(LadderBlockSizes, UnsupportedThrowsBeforeTouchingTheGpuDouble) { check_unsupported_block_sizes<double>(); }

// The argument checks every entry point shares: size and null come before the device query,
// so they too are testable here.
TEST(LadderValidation, NegativeSizeAndNullPointerNeedNoDevice) {
  using warpfold::detail::require_device_input;
  const char* api = "warpfold::ladder::runner::run";
  try {
    require_device_input(nullptr, -3, api);
    ADD_FAILURE() << "negative n accepted";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(api), std::string::npos) << e.what();
  }
  try {
    require_device_input(nullptr, 7, api);
    ADD_FAILURE() << "null pointer accepted";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("null"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(require_device_input(nullptr, 0, api)) << "an empty input is never dereferenced";
}

}  // namespace
