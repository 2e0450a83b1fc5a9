// For tests only: sets a value that the library reads on the calling host thread (forced
// grids, forced kernels), for the lifetime of a scope, and puts the old value back after it.
// `Value` returns the thread's slot: a function-local thread_local, so that tests running on
// other threads keep the library's choice. Not part of the API.
#pragma once

namespace warpfold::testing {

template <typename T, T& (*Value)()>
class scoped_override {
 public:
  explicit scoped_override(T value) : previous_(Value()) { Value() = value; }
  ~scoped_override() { Value() = previous_; }
  scoped_override(const scoped_override&) = delete;
  scoped_override& operator=(const scoped_override&) = delete;

 private:
  T previous_;
};

}  // namespace warpfold::testing
