// For tests only: makes the reproducible and exact sums of the calling host thread launch a
// given number of blocks, so that a test can show their bits do not depend on the grid. Not
// part of the API; production code never sets it.
#pragma once

namespace warpfold::testing {

inline int& forced_sum_grid() {
  static thread_local int blocks = 0;  // 0: the library chooses
  return blocks;
}

class scoped_sum_grid {
 public:
  explicit scoped_sum_grid(int blocks) : previous_(forced_sum_grid()) { forced_sum_grid() = blocks; }
  ~scoped_sum_grid() { forced_sum_grid() = previous_; }
  scoped_sum_grid(const scoped_sum_grid&) = delete;
  scoped_sum_grid& operator=(const scoped_sum_grid&) = delete;

 private:
  int previous_;
};

}  // namespace warpfold::testing
