// The arithmetic behind the printed numbers: medians, bandwidth, shares and speedups, and the
// rotation, batch sizing and trial order of the timing loop.
#include <gtest/gtest.h>

#include "bench/statistics.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

TEST(Summarize, OddCountTakesTheMiddleOfTheSortedValues) {
  const wb::summary s = wb::summarize({5, 1, 9, 3, 7, 2, 8});
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 9);
}

TEST(Summarize, EvenCountAveragesTheMiddleTwo) {
  const wb::summary s = wb::summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
}

TEST(Summarize, OneValueAndEmpty) {
  const wb::summary s = wb::summarize({42});
  EXPECT_DOUBLE_EQ(s.median, 42);
  EXPECT_DOUBLE_EQ(s.min, 42);
  EXPECT_DOUBLE_EQ(s.max, 42);
  EXPECT_THROW(wb::summarize({}), warpfold::invalid_argument);
}

TEST(Gbps, BytesOverMicrosecondsInGigabytesPerSecond) {
  // 512 MiB in 180 us: 536870912 / 180e-6 / 1e9 = 2982.6 GB/s
  EXPECT_NEAR(wb::gbps(536870912.0, 180.0), 2982.616, 1e-3);
  EXPECT_DOUBLE_EQ(wb::gbps(1e9, 1e6), 1.0);  // 1 GB in 1 s
  EXPECT_EQ(wb::gbps(100, 0), 0.0);
  EXPECT_EQ(wb::gbps(100, -1), 0.0);
}

TEST(PercentOf, ShareOfTheCeiling) {
  EXPECT_DOUBLE_EQ(wb::percent_of(1550, 3100), 50.0);
  EXPECT_DOUBLE_EQ(wb::percent_of(3100, 3100), 100.0);
  EXPECT_EQ(wb::percent_of(10, 0), 0.0);
}

TEST(Speedups, StepAndCumulativeAlongTheColumn) {
  const auto s = wb::speedups({1000.0, 500.0, 250.0, 200.0});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_FALSE(s[0].step);
  EXPECT_DOUBLE_EQ(*s[0].cumulative, 1.0);
  EXPECT_DOUBLE_EQ(*s[1].step, 2.0);
  EXPECT_DOUBLE_EQ(*s[1].cumulative, 2.0);
  EXPECT_DOUBLE_EQ(*s[2].step, 2.0);
  EXPECT_DOUBLE_EQ(*s[2].cumulative, 4.0);
  EXPECT_DOUBLE_EQ(*s[3].step, 1.25);
  EXPECT_DOUBLE_EQ(*s[3].cumulative, 5.0);
}

TEST(Speedups, AFailedRowHasNoneAndTheNextComparesWithTheLastGoodRow) {
  const auto s = wb::speedups({std::nullopt, 800.0, std::nullopt, 200.0});
  EXPECT_FALSE(s[0].step);
  EXPECT_FALSE(s[0].cumulative);
  EXPECT_FALSE(s[1].step);  // the first row with a time is the base
  EXPECT_DOUBLE_EQ(*s[1].cumulative, 1.0);
  EXPECT_FALSE(s[2].step);
  EXPECT_FALSE(s[2].cumulative);
  EXPECT_DOUBLE_EQ(*s[3].step, 4.0);
  EXPECT_DOUBLE_EQ(*s[3].cumulative, 4.0);
}

TEST(RotationBuffers, AtLeastFourTimesL2AndAtLeastTwo) {
  const std::int64_t l2 = 50 << 20;
  EXPECT_EQ(wb::rotation_buffers(512 << 20, l2), 2);           // one buffer is already 10x L2
  EXPECT_EQ(wb::rotation_buffers(100 << 20, l2), 2);           // 2 x 100 MiB = 4 x 50 MiB exactly
  EXPECT_EQ(wb::rotation_buffers((100 << 20) - 1, l2), 3);     // just short: one more
  EXPECT_EQ(wb::rotation_buffers(4096, l2), 51200);            // 4 KiB buffers: 200 MiB of them
  EXPECT_GE(std::int64_t(wb::rotation_buffers(3000, l2)) * 3000, 4 * l2);
  EXPECT_EQ(wb::rotation_buffers(4096, 0), 2);
  EXPECT_THROW(wb::rotation_buffers(0, l2), warpfold::invalid_argument);
}

TEST(BatchCalls, EnoughCallsToFillTheBatch) {
  EXPECT_EQ(wb::batch_calls(5.0, 1000.0, 1 << 14), 200);   // 5 us calls: 200 make 1 ms
  EXPECT_EQ(wb::batch_calls(3.0, 1000.0, 1 << 14), 334);   // rounded up
  EXPECT_EQ(wb::batch_calls(5000.0, 1000.0, 1 << 14), 1);  // one call is longer than the batch
  EXPECT_EQ(wb::batch_calls(0.001, 1000.0, 1000), 1000);   // capped
  EXPECT_EQ(wb::batch_calls(0.0, 1000.0, 1000), 1000);
}

TEST(AlignedBufferBytes, RoundsUpTo256) {
  EXPECT_EQ(wb::aligned_buffer_bytes(64, 4), 256);
  EXPECT_EQ(wb::aligned_buffer_bytes(65, 4), 512);
  EXPECT_EQ(wb::aligned_buffer_bytes(1, 2), 256);
  EXPECT_EQ(wb::aligned_buffer_bytes(std::int64_t(1) << 27, 4), std::int64_t(1) << 29);
}

TEST(InterleavedSchedule, RoundRobinOverTheImplementationsTrialByTrial) {
  const std::vector<wb::trial_slot> want = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  EXPECT_EQ(wb::interleaved_schedule(3, 2), want);
}

TEST(InterleavedSchedule, EveryImplementationGetsEveryTrialOnce) {
  const int impls = 13, trials = 9;
  const std::vector<wb::trial_slot> slots = wb::interleaved_schedule(impls, trials);
  ASSERT_EQ(slots.size(), std::size_t(impls * trials));
  std::vector<int> next_trial(impls, 0);
  for (std::size_t k = 0; k < slots.size(); ++k) {
    EXPECT_EQ(slots[k].impl, int(k % impls));  // never two batches of one implementation in a row
    EXPECT_EQ(slots[k].trial, next_trial[slots[k].impl]++);
  }
  for (int t : next_trial) EXPECT_EQ(t, trials);
}

TEST(InterleavedSchedule, DegenerateCounts) {
  EXPECT_EQ(wb::interleaved_schedule(1, 3), (std::vector<wb::trial_slot>{{0, 0}, {0, 1}, {0, 2}}));
  EXPECT_TRUE(wb::interleaved_schedule(0, 9).empty());
  EXPECT_TRUE(wb::interleaved_schedule(4, 0).empty());
}
