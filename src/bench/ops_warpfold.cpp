// warpfold's candidates for `warpfold ops` (bench/ops.hpp): the asynchronous forms of the
// library's ops and statistics, each writing into its own device slot.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <memory>

#include "bench/dtype_types.hpp"
#include "bench/ops.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"

namespace warpfold::bench::ops {
namespace {

template <typename R>
double read_back(const void* d_value, cudaStream_t stream) {
  R value;
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&value, d_value, sizeof(R), cudaMemcpyDeviceToHost, stream));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  if constexpr (std::is_same_v<R, warpfold::arg_result_t<float>> || std::is_same_v<R, warpfold::arg_result_t<double>>)
    return static_cast<double>(value.index);
  else if constexpr (std::is_same_v<R, warpfold::mean_var<float>> || std::is_same_v<R, warpfold::mean_var<double>>)
    return static_cast<double>(value.var);
  else
    return static_cast<double>(value);
}

template <typename R, typename Call>
candidate make(Call call) {
  auto out = std::make_shared<warpfold::detail::device_buffer<R>>();
  out->reserve(1);
  candidate c;
  c.impl = "warpfold";
  c.enqueue = [out, call](const void* x, const void* y, std::int64_t n, cudaStream_t s) { call(x, y, n, out->get(), s); };
  c.answer = [out](cudaStream_t s) { return read_back<R>(out->get(), s); };
  c.state = out;
  return c;
}

template <typename T>
candidate warpfold_candidate(op_kind op) {
  using F = warpfold::float_result_t<T>;
  using A = warpfold::arg_result_t<T>;
  auto x_of = [](const void* x) { return static_cast<const T*>(x); };
  switch (op) {
    case op_kind::sum:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::sum(x_of(x), n, o, s); });
    case op_kind::prod:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::prod(x_of(x), n, o, s); });
    case op_kind::min:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::min(x_of(x), n, o, s); });
    case op_kind::max:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::max(x_of(x), n, o, s); });
    case op_kind::argmin:
      return make<A>([=](const void* x, const void*, std::int64_t n, A* o, cudaStream_t s) { warpfold::argmin(x_of(x), n, o, s); });
    case op_kind::argmax:
      return make<A>([=](const void* x, const void*, std::int64_t n, A* o, cudaStream_t s) { warpfold::argmax(x_of(x), n, o, s); });
    case op_kind::norm_l1:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::norm_l1(x_of(x), n, o, s); });
    case op_kind::norm_l2:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::norm_l2(x_of(x), n, o, s); });
    case op_kind::norm_linf:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::norm_linf(x_of(x), n, o, s); });
    case op_kind::dot:
      return make<F>([=](const void* x, const void* y, std::int64_t n, F* o, cudaStream_t s) { warpfold::dot(x_of(x), x_of(y), n, o, s); });
    case op_kind::mean:
      return make<F>([=](const void* x, const void*, std::int64_t n, F* o, cudaStream_t s) { warpfold::mean(x_of(x), n, o, s); });
    case op_kind::var_mean:
      return make<warpfold::mean_var<F>>([=](const void* x, const void*, std::int64_t n, warpfold::mean_var<F>* o,
                                             cudaStream_t s) { warpfold::var_mean(x_of(x), n, 1.0, o, s); });
  }
  throw invalid_argument("warpfold ops: unknown op");
}

}  // namespace

std::vector<candidate> warpfold_candidates(op_kind op, dtype t, std::int64_t) {
  return visit_dtype(t, [&](auto tag) -> std::vector<candidate> {
    using T = typename decltype(tag)::type;
    if constexpr (!warpfold::is_float_element_v<T>) throw invalid_argument("warpfold ops: float types only (f16, bf16, f32, f64)");
    else return {warpfold_candidate<T>(op)};
  });
}

}  // namespace warpfold::bench::ops
