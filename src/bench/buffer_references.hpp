// The references of a pool's buffers, for the benches whose answers are many outputs (axis
// cases, views, segments): one per buffer, each computed from a host copy of that very
// buffer the first time a check asks for it (so outside any timed region), then shared by
// every implementation measured on the pool. What a reference holds and how it is computed
// is the caller's. Host code on the CUDA runtime.
#pragma once

#include <functional>
#include <map>
#include <utility>

#include "bench/pool.hpp"

namespace warpfold::bench {

template <typename Reference>
class buffer_references {
 public:
  // Makes the reference of one buffer from its host copy (the pool's elements, as laid out
  // on the device).
  using compute_from_copy = std::function<Reference(const void* host_copy)>;

  // The pool must outlive this.
  buffer_references(const input_pool& pool, compute_from_copy compute) : pool_(pool), compute_(std::move(compute)) {}

  const Reference& of(int buffer) {
    const auto found = references_.find(buffer);
    if (found != references_.end()) return found->second;
    return references_.emplace(buffer, compute_(pool_.host_copy(buffer).data())).first->second;
  }

 private:
  const input_pool& pool_;
  compute_from_copy compute_;
  std::map<int, Reference> references_;
};

}  // namespace warpfold::bench
