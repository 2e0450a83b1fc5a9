// The GPU the bench runs on: finding it, and describing it for the header and the outputs.
#pragma once

#include <cstdint>
#include <string>

#include "bench/measurement.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

// Thrown when there is no CUDA GPU to run on (no driver, no device, or the ordinal is out
// of range). The CLI prints its message as one line and exits non-zero.
class no_device_error : public error {
 public:
  using error::error;
};

// Checks that device `ordinal` exists, without creating a CUDA context. Throws no_device_error.
void require_device(int ordinal);

// Makes device `ordinal` current and describes it. Throws no_device_error.
device_description open_device(int ordinal);

// Free and total memory of the current device, in bytes.
std::int64_t free_device_memory();

}  // namespace warpfold::bench
