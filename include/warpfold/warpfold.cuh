// warpfold: the production reduction API, with its definitions. Include this from a .cu
// file; plain C++ files include <warpfold/reduce.hpp> and link the instantiations.
//
//   float total = warpfold::sum(d_in, n);                 // blocking, result on the host
//   warpfold::max(d_in, n, d_out, stream);                // async, result in device memory
//   auto [value, index] = warpfold::argmin(d_in, n);      // first index of the smallest
//   auto r = warpfold::reduce(d_in, n, my_op, init);      // any associative, commutative op
//
// Every call is one kernel launch, whatever n. See reduce.hpp for the contract.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "warpfold/accumulator.hpp"
#include "warpfold/blocks/fold_traits.hpp"
#include "warpfold/device/device_facts.hpp"
#include "warpfold/device/dispatch.cuh"
#include "warpfold/device/host_result.hpp"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/device/scratch_pool.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/stream.hpp"
#include "warpfold/validate.hpp"

namespace warpfold {
namespace detail {

template <typename Op>
constexpr const char* api_name() {
  if constexpr (std::is_same_v<Op, op::sum>) return "warpfold::sum";
  else if constexpr (std::is_same_v<Op, op::prod>) return "warpfold::prod";
  else if constexpr (std::is_same_v<Op, op::min>) return "warpfold::min";
  else if constexpr (std::is_same_v<Op, op::max>) return "warpfold::max";
  else if constexpr (std::is_same_v<Op, op::bit_and>) return "warpfold::bit_and";
  else if constexpr (std::is_same_v<Op, op::bit_or>) return "warpfold::bit_or";
  else if constexpr (std::is_same_v<Op, op::bit_xor>) return "warpfold::bit_xor";
  else if constexpr (std::is_same_v<Op, op::argmin>) return "warpfold::argmin";
  else if constexpr (std::is_same_v<Op, op::argmax>) return "warpfold::argmax";
  else return "warpfold::reduce";
}

// argmin/argmax see each element as (value, index).
template <typename V>
struct with_index {
  template <typename T>
  WARPFOLD_DEVICE value_index<V> operator()(T x, std::int64_t index) const {
    return {static_cast<V>(x), index};
  }
};

}  // namespace detail

// A widening keeps the order of values (blocks/fold_traits.hpp).
template <typename V>
struct blocks::keeps_value_order<detail::with_index<V>> : std::true_type {};

namespace detail {

// A user's op has no identity, so threads with no element carry an empty marker instead.
template <typename Acc>
struct maybe_value {
  Acc value;
  int has_value;  // an int, not a bool, so the struct is made of whole 4-byte words
};

template <typename UserOp>
struct skip_empty {
  UserOp op;
  template <typename M>
  WARPFOLD_HOST_DEVICE static M identity() { return M{{}, 0}; }
  template <typename M>
  WARPFOLD_HOST_DEVICE M operator()(const M& a, const M& b) const {
    if (!a.has_value) return b;
    if (!b.has_value) return a;
    return M{op(a.value, b.value), 1};
  }
};

template <typename Acc>
struct present {
  template <typename T>
  WARPFOLD_DEVICE maybe_value<Acc> operator()(T x, std::int64_t) const { return {static_cast<Acc>(x), 1}; }
};

// transform_reduce's element step: the user's transform of one element, or of a pair.
template <typename Acc, typename Transform>
struct present_transformed {
  Transform transform;
  template <typename T>
  WARPFOLD_DEVICE maybe_value<Acc> operator()(T x, std::int64_t) const { return {static_cast<Acc>(transform(x)), 1}; }
  template <typename T>
  WARPFOLD_DEVICE maybe_value<Acc> operator()(T x, T y, std::int64_t) const { return {static_cast<Acc>(transform(x, y)), 1}; }
};

// The user's init enters exactly once, at the very end (as in CUB).
template <typename Acc, typename UserOp>
struct store_with_init {
  Acc* out;
  UserOp op;
  Acc init;
  WARPFOLD_DEVICE void operator()(const maybe_value<Acc>& total) const {
    *out = total.has_value ? op(init, total.value) : init;
  }
};

// What each element becomes before it is combined: argmin/argmax keep its index.
template <typename Op, typename Acc>
auto element_to_accumulator() {
  if constexpr (is_arg_op_v<Op>) {
    return with_index<decltype(Acc::value)>{};
  } else {
    return blocks::convert_to<Acc>{};
  }
}

// The caller's scratch, when given, is device memory of `device` (its size is checked once the
// launch knows what it needs: device/scratch_pool.hpp, scratch_for).
inline void require_caller_scratch(const scratch_space* scratch, const char* api, int device) {
  if (scratch == nullptr) return;
  if (scratch->data == nullptr) throw invalid_argument(std::string(api) + ": the caller's scratch pointer is null");
  require_device_memory(scratch->data, "the caller's scratch", api, device);
}

// Checks the pointers of an asynchronous call that runs on `device` (the current device).
inline void require_async_memory(const void* d_in, std::int64_t n, const void* d_out, const scratch_space* scratch,
                                 const char* api, int device) {
  require_device_input(d_in, n, api, device);
  require_device_output(d_out, api, device);
  require_caller_scratch(scratch, api, device);
}

// Runs a validated reduction whose result goes to `store`.
template <typename Acc, typename Op, typename T, typename ToAcc, typename Store>
void enqueue(const T* d_in, std::int64_t n, Op op, ToAcc to_acc, Store store, int device, cudaStream_t stream,
             const scratch_space* scratch) {
  device::launcher l(device, stream, scratch);
  device::launch_reduce<device::reduce_policy, T, Acc>(d_in, n, op, to_acc, store, l);
}

// The blocking forms: the kernel writes into the calling thread's mapped host buffer
// (device/host_result.hpp), and the call waits for its stream.
template <typename Acc, typename Enqueue>
Acc run_to_host(cudaStream_t stream, const char* api, Enqueue enqueue_into) {
  device::require_not_capturing(stream, api);
  auto* slot = static_cast<Acc*>(device::thread_result_buffer(sizeof(Acc)));
  enqueue_into(slot);
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  Acc value;
  std::memcpy(&value, slot, sizeof(Acc));
  return value;
}

template <typename Op, typename T>
void reduce_into(const T* d_in, std::int64_t n, reduce_result_t<Op, T>* d_out, cudaStream_t stream,
                 const scratch_space* scratch) {
  using Acc = reduce_result_t<Op, T>;
  check_op_fits<Op, T>();
  const int device = device::current_device();
  require_async_memory(d_in, n, d_out, scratch, api_name<Op>(), device);
  enqueue<Acc>(d_in, n, Op{}, element_to_accumulator<Op, Acc>(), device::store_result<Acc>{d_out}, device, stream, scratch);
}

template <typename Op, typename T>
reduce_result_t<Op, T> reduce_to_host(const T* d_in, std::int64_t n, cudaStream_t stream) {
  using Acc = reduce_result_t<Op, T>;
  check_op_fits<Op, T>();
  const int device = device::current_device();
  require_device_input(d_in, n, api_name<Op>(), device);
  return run_to_host<Acc>(stream, api_name<Op>(), [&](Acc* slot) {
    enqueue<Acc>(d_in, n, Op{}, element_to_accumulator<Op, Acc>(), device::store_result<Acc>{slot}, device, stream, nullptr);
  });
}

}  // namespace detail

// Bytes of caller scratch that reduce() with an accumulator Acc may need for n elements of T.
template <typename T, typename Acc>
std::size_t custom_reduce_scratch_bytes(std::int64_t n) {
  return reduce_scratch_bytes(n, sizeof(T), sizeof(detail::maybe_value<Acc>));
}

// Any associative and commutative op, given as a functor callable on the device as
// Acc op(Acc, Acc). init is combined once with the result (an empty input gives init).
template <typename T, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void reduce(const T* d_in, std::int64_t n, UserOp op, Acc init, Acc* d_out, cudaStream_t stream,
            const scratch_space& scratch = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const scratch_space* caller = detail::callers_scratch(scratch);
  const int device = device::current_device();
  detail::require_async_memory(d_in, n, d_out, caller, "warpfold::reduce", device);
  detail::enqueue<detail::maybe_value<Acc>>(d_in, n, detail::skip_empty<UserOp>{op}, detail::present<Acc>{},
                                            detail::store_with_init<Acc, UserOp>{d_out, op, init}, device, stream, caller);
}

template <typename T, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
Acc reduce(const T* d_in, std::int64_t n, UserOp op, Acc init, cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const int device = device::current_device();
  detail::require_device_input(d_in, n, "warpfold::reduce", device);
  return detail::run_to_host<Acc>(stream, "warpfold::reduce", [&](Acc* slot) {
    detail::enqueue<detail::maybe_value<Acc>>(d_in, n, detail::skip_empty<UserOp>{op}, detail::present<Acc>{},
                                              detail::store_with_init<Acc, UserOp>{slot, op, init}, device, stream, nullptr);
  });
}

// transform_reduce: op over transform(x[i]), or over transform(x[i], y[i]) for two arrays of
// n elements each, in one pass (nothing transformed is written anywhere):
//   float sum_of_squares = warpfold::transform_reduce(d_x, n, square{}, plus{}, 0.0f);
//   warpfold::transform_reduce(d_x, d_y, n, multiply{}, plus{}, 0.0f, d_out, stream);
// transform is callable on the device as Acc transform(T) (or Acc transform(T, T)); op and init
// as for reduce(). The named statistics (statistics.hpp) are built the same way.
namespace detail {

template <typename Acc, bool Pairs, typename T, typename Transform, typename UserOp, typename Store>
void enqueue_transform_reduce(const T* x, const T* y, std::int64_t n, Transform transform, UserOp op, Store store,
                              int device, cudaStream_t stream, const scratch_space* scratch) {
  device::launcher l(device, stream, scratch);
  device::launch_reduce_arrays<device::reduce_policy, maybe_value<Acc>, Pairs>(
      x, y, n, skip_empty<UserOp>{op}, present_transformed<Acc, Transform>{transform}, store, l);
}

}  // namespace detail

template <typename T, typename Transform, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void transform_reduce(const T* d_in, std::int64_t n, Transform transform, UserOp op, Acc init, Acc* d_out, cudaStream_t stream,
                      const scratch_space& scratch = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::transform_reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const scratch_space* caller = detail::callers_scratch(scratch);
  const int device = device::current_device();
  detail::require_async_memory(d_in, n, d_out, caller, "warpfold::transform_reduce", device);
  detail::enqueue_transform_reduce<Acc, false>(d_in, static_cast<const T*>(nullptr), n, transform, op,
                                        detail::store_with_init<Acc, UserOp>{d_out, op, init}, device, stream, caller);
}

template <typename T, typename Transform, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
Acc transform_reduce(const T* d_in, std::int64_t n, Transform transform, UserOp op, Acc init, cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::transform_reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const int device = device::current_device();
  detail::require_device_input(d_in, n, "warpfold::transform_reduce", device);
  return detail::run_to_host<Acc>(stream, "warpfold::transform_reduce", [&](Acc* slot) {
    detail::enqueue_transform_reduce<Acc, false>(d_in, static_cast<const T*>(nullptr), n, transform, op,
                                          detail::store_with_init<Acc, UserOp>{slot, op, init}, device, stream, nullptr);
  });
}

template <typename T, typename Transform, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
void transform_reduce(const T* d_x, const T* d_y, std::int64_t n, Transform transform, UserOp op, Acc init, Acc* d_out,
                      cudaStream_t stream, const scratch_space& scratch = {}) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::transform_reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const scratch_space* caller = detail::callers_scratch(scratch);
  const int device = device::current_device();
  detail::require_device_pair(d_x, d_y, n, "warpfold::transform_reduce", device);
  detail::require_device_output(d_out, "warpfold::transform_reduce", device);
  detail::require_caller_scratch(caller, "warpfold::transform_reduce", device);
  detail::enqueue_transform_reduce<Acc, true>(d_x, d_y, n, transform, op, detail::store_with_init<Acc, UserOp>{d_out, op, init},
                                        device, stream, caller);
}

template <typename T, typename Transform, typename UserOp, typename Acc, bool PerThread = WARPFOLD_PER_THREAD_DEFAULT_STREAM>
Acc transform_reduce(const T* d_x, const T* d_y, std::int64_t n, Transform transform, UserOp op, Acc init,
                     cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::transform_reduce: the accumulator must be trivially copyable");
  stream = detail::callers_stream<PerThread>(stream);
  const int device = device::current_device();
  detail::require_device_pair(d_x, d_y, n, "warpfold::transform_reduce", device);
  return detail::run_to_host<Acc>(stream, "warpfold::transform_reduce", [&](Acc* slot) {
    detail::enqueue_transform_reduce<Acc, true>(d_x, d_y, n, transform, op, detail::store_with_init<Acc, UserOp>{slot, op, init},
                                          device, stream, nullptr);
  });
}

}  // namespace warpfold
