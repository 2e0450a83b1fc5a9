// Errors that warpfold reports. The library throws; it never prints and never exits.
// The CLI catches these at its edge and turns them into a message and a non-zero exit code.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace warpfold {

// Base class for everything warpfold throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller passed something warpfold cannot work with (negative size, null or host pointer,
// unsupported configuration). Nothing was launched and nothing was written.
class invalid_argument : public error {
 public:
  using error::error;
};

// A CUDA runtime call failed. `code()` is the CUDA error.
class cuda_error : public error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {

inline void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  throw cuda_error(code, std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) +
                             ") from " + expression + " at " + file + ":" + std::to_string(line));
}

inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expression, file, line);
}

}  // namespace detail
}  // namespace warpfold

// The one error-check path: every CUDA runtime call in warpfold goes through it.
#define WARPFOLD_CUDA_CHECK(expression) \
  ::warpfold::detail::check_cuda((expression), #expression, __FILE__, __LINE__)

// After a kernel launch: catches bad launch configurations at once, not at the next sync.
#define WARPFOLD_CHECK_LAUNCH() WARPFOLD_CUDA_CHECK(cudaGetLastError())
