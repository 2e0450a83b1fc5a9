// The input buffers a measurement rotates over. One allocation holds `buffers()` buffers of n
// elements at 256-byte boundaries, together at least 4x the L2 size (and never fewer than 2),
// filled with varied values, different in every buffer. Calls take buffers round robin for
// the pool's whole life, so the buffer a call reads was last touched at least 4x L2 of
// traffic earlier: every timed call reads cold data, from DRAM, as a real workload would.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <vector>

#include "bench/dtype.hpp"
#include "bench/reference.hpp"

namespace warpfold::bench {

class input_pool {
 public:
  static constexpr int rotation_factor = 4;

  input_pool(dtype type, std::int64_t n, std::int64_t l2_bytes, std::uint64_t seed, cudaStream_t stream,
             value_spread spread = value_spread::uniform);
  ~input_pool();
  input_pool(const input_pool&) = delete;
  input_pool& operator=(const input_pool&) = delete;

  // Device bytes a pool for (type, n) takes.
  static std::int64_t bytes_needed(dtype type, std::int64_t n, std::int64_t l2_bytes);

  dtype type() const { return type_; }
  std::int64_t n() const { return n_; }
  int buffers() const { return buffers_; }
  std::int64_t buffer_bytes() const { return n_ * element_bytes(type_); }
  const void* buffer(int index) const;

  // The index of the next buffer in the rotation.
  int next_index();

  // Buffer `index`, copied to the host as the device holds it (waits for the device).
  std::vector<unsigned char> host_copy(int index) const;

  // The host reference of buffer `index`, computed from a copy of it the first time it is
  // asked for (outside any timed region).
  const host_reference& reference(int index);

 private:
  dtype type_;
  std::int64_t n_;
  std::int64_t stride_bytes_;
  int buffers_;
  int cursor_ = 0;
  void* base_ = nullptr;
  std::map<int, host_reference> references_;
};

}  // namespace warpfold::bench
