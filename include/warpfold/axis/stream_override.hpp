// For tests only: makes the axis reductions of the calling host thread stream every regular
// rows plan that row_stream_kernel can take (or none), whatever its size, so that tests of a
// few megabytes reach the kernel that the planner keeps for inputs of a hundred and more.
// Not part of the API; production code never sets it.
#pragma once

namespace warpfold::testing {

enum class row_stream_choice { planner, always, never };

inline row_stream_choice& forced_row_stream() {
  static thread_local row_stream_choice choice = row_stream_choice::planner;
  return choice;
}

class scoped_row_stream {
 public:
  explicit scoped_row_stream(row_stream_choice choice) : previous_(forced_row_stream()) { forced_row_stream() = choice; }
  ~scoped_row_stream() { forced_row_stream() = previous_; }
  scoped_row_stream(const scoped_row_stream&) = delete;
  scoped_row_stream& operator=(const scoped_row_stream&) = delete;

 private:
  row_stream_choice previous_;
};

}  // namespace warpfold::testing
