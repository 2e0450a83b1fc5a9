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
#include <type_traits>

#include "warpfold/accumulator.hpp"
#include "warpfold/device/dispatch.cuh"
#include "warpfold/device/reduce_policy.hpp"
#include "warpfold/device/workspace.hpp"
#include "warpfold/ops.hpp"
#include "warpfold/reduce.hpp"
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

// Validates, then enqueues. The blocking forms pass the workspace's own result slot as out.
template <typename Op, typename T, typename Acc, typename ToAcc, typename Store>
void enqueue(const T* d_in, std::int64_t n, Op op, ToAcc to_acc, Store store, cudaStream_t stream) {
  device::launch_reduce<device::reduce_policy, T, Acc>(d_in, n, op, to_acc, store, device::workspace_for(stream), stream);
}

template <typename Acc>
Acc read_result(device::workspace& ws, cudaStream_t stream) {
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(ws.host_result.get(), ws.result.get(), sizeof(Acc), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  Acc value;
  std::memcpy(&value, ws.host_result.get(), sizeof(Acc));
  return value;
}

}  // namespace detail

template <typename Op, typename T, typename Acc>
void reduce_async(const T* d_in, std::int64_t n, Acc* d_out, cudaStream_t stream) {
  check_op_fits<Op, T>();
  detail::require_device_input(d_in, n, detail::api_name<Op>());
  detail::require_device_output(d_out, detail::api_name<Op>());
  detail::enqueue<Op, T, Acc>(d_in, n, Op{}, blocks::convert_to<Acc>{}, device::store_result<Acc>{d_out}, stream);
}

template <typename Op, typename T, typename Acc>
Acc reduce_blocking(const T* d_in, std::int64_t n, cudaStream_t stream) {
  check_op_fits<Op, T>();
  detail::require_device_input(d_in, n, detail::api_name<Op>());
  device::workspace& ws = device::workspace_for(stream);
  Acc* d_out = reinterpret_cast<Acc*>(ws.result.get());
  detail::enqueue<Op, T, Acc>(d_in, n, Op{}, blocks::convert_to<Acc>{}, device::store_result<Acc>{d_out}, stream);
  return detail::read_result<Acc>(ws, stream);
}

template <typename Op, typename T>
void arg_reduce_async(const T* d_in, std::int64_t n, arg_result_t<T>* d_out, cudaStream_t stream) {
  check_op_fits<Op, T>();
  using V = accumulator_t<op::min, T>;
  detail::require_device_input(d_in, n, detail::api_name<Op>());
  detail::require_device_output(d_out, detail::api_name<Op>());
  detail::enqueue<Op, T, value_index<V>>(d_in, n, Op{}, detail::with_index<V>{}, device::store_result<value_index<V>>{d_out},
                                         stream);
}

template <typename Op, typename T>
arg_result_t<T> arg_reduce_blocking(const T* d_in, std::int64_t n, cudaStream_t stream) {
  check_op_fits<Op, T>();
  using V = accumulator_t<op::min, T>;
  detail::require_device_input(d_in, n, detail::api_name<Op>());
  device::workspace& ws = device::workspace_for(stream);
  auto* d_out = reinterpret_cast<value_index<V>*>(ws.result.get());
  detail::enqueue<Op, T, value_index<V>>(d_in, n, Op{}, detail::with_index<V>{}, device::store_result<value_index<V>>{d_out},
                                         stream);
  return detail::read_result<value_index<V>>(ws, stream);
}

// Any associative and commutative op, given as a functor callable on the device as
// Acc op(Acc, Acc). init is combined once with the result (an empty input gives init).
template <typename T, typename UserOp, typename Acc>
void reduce(const T* d_in, std::int64_t n, UserOp op, Acc init, Acc* d_out, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::reduce: the accumulator must be trivially copyable");
  detail::require_device_input(d_in, n, "warpfold::reduce");
  detail::require_device_output(d_out, "warpfold::reduce");
  detail::enqueue<detail::skip_empty<UserOp>, T, detail::maybe_value<Acc>>(
      d_in, n, detail::skip_empty<UserOp>{op}, detail::present<Acc>{}, detail::store_with_init<Acc, UserOp>{d_out, op, init},
      stream);
}

template <typename T, typename UserOp, typename Acc>
Acc reduce(const T* d_in, std::int64_t n, UserOp op, Acc init, cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<Acc>, "warpfold::reduce: the accumulator must be trivially copyable");
  detail::require_device_input(d_in, n, "warpfold::reduce");
  device::workspace& ws = device::workspace_for(stream);
  auto* d_out = reinterpret_cast<Acc*>(ws.result.get());
  detail::enqueue<detail::skip_empty<UserOp>, T, detail::maybe_value<Acc>>(
      d_in, n, detail::skip_empty<UserOp>{op}, detail::present<Acc>{}, detail::store_with_init<Acc, UserOp>{d_out, op, init},
      stream);
  return detail::read_result<Acc>(ws, stream);
}

}  // namespace warpfold
