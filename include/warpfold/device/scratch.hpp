// Scratch memory: what a launch that splits work over several blocks needs besides its input
// and output. Blocks leave partial results, and arrival counters tell the last block of a
// group that every partial is written (blocks/finish.cuh). Launches of one block, or of one
// cluster, need none.
//
// One layout, whoever owns the memory (the library's pool, device/scratch_pool.hpp, or the
// caller, through warpfold::scratch_space):
//
//   bytes  0 -  3   arrivals of a finish that spans the whole grid
//   bytes  4 -  7   units of work finished: a launch of `finish_units` groups adds one per
//                   group (a launch of one group writes the count it reaches), once the
//                   group's last block has read its partials, so that the
//                   pool can tell, without touching the caller's stream, that no launch still
//                   uses the block: bytes 0-7 read at once (the "launch word") show every unit
//                   given finished and the arrivals at zero (blocks/finish.cuh says why both)
//   bytes 16 - ...  `counters` arrival counters, one per group that a launch finishes apart
//   from partials_offset(): `partial_bytes` of partials
//
// Arrivals are zero whenever no launch is running: every group's last arrival resets the
// counter it drew from (blocks/finish.cuh). So a launch never needs a memset, only memory that
// no other launch uses at the same time. Who guarantees that is the owner's job.
#pragma once

#include <cstddef>
#include <cstdint>

#include "warpfold/config.hpp"

namespace warpfold::device {

struct scratch_request {
  std::int64_t finish_units = 0;   // groups whose last block reports to the launch word
  std::int64_t counters = 0;       // arrival counters besides the launch word, zero at rest
  std::int64_t partial_bytes = 0;  // partials, any contents
  bool needed() const { return finish_units > 0; }
};

inline constexpr std::size_t scratch_launch_word_offset = 0;  // arrivals, then finished units
inline constexpr std::size_t scratch_finished_offset = 4;
inline constexpr std::size_t scratch_counters_offset = 16;
inline constexpr std::size_t scratch_partials_alignment = 256;

// End of the bytes that must be zero when a launch starts (from byte 8; the arrivals in
// bytes 0-3 are zero at rest by construction): the counters.
inline std::size_t scratch_zero_end(const scratch_request& r) {
  return scratch_counters_offset + 4 * static_cast<std::size_t>(r.counters);
}
inline std::size_t scratch_partials_offset(const scratch_request& r) {
  const std::size_t a = scratch_partials_alignment;
  return (scratch_zero_end(r) + a - 1) / a * a;
}
// Bytes of scratch that `r` takes; 0 when it needs none.
inline std::size_t scratch_bytes_for(const scratch_request& r) {
  return r.needed() ? scratch_partials_offset(r) + static_cast<std::size_t>(r.partial_bytes) : 0;
}

// What a kernel gets: pointers into one block laid out as above. Passed by value.
struct scratch_view {
  unsigned int* arrivals = nullptr;
  unsigned int* finished = nullptr;
  unsigned int* counters = nullptr;
  unsigned char* partials = nullptr;
  unsigned int finished_after = 0;  // the count of finished units once this launch is done

  template <typename T>
  WARPFOLD_HOST_DEVICE T* partials_as() const {
    return reinterpret_cast<T*>(partials);
  }
};

inline scratch_view scratch_view_of(void* base, const scratch_request& r, unsigned int finished_after = 0) {
  auto* bytes = static_cast<unsigned char*>(base);
  scratch_view v;
  v.arrivals = reinterpret_cast<unsigned int*>(bytes + scratch_launch_word_offset);
  v.finished = reinterpret_cast<unsigned int*>(bytes + scratch_finished_offset);
  v.counters = reinterpret_cast<unsigned int*>(bytes + scratch_counters_offset);
  v.partials = bytes + scratch_partials_offset(r);
  v.finished_after = finished_after;
  return v;
}

}  // namespace warpfold::device
