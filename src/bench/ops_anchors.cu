// The anchors of `warpfold ops` (bench/ops.hpp): what a careful user calls instead of warpfold.
// - CUB's DeviceReduce: Sum, Min, Max, ArgMin, ArgMax, and TransformReduce for the product, the norms, the
//   dot product (over an index, reading x[i] * y[i]), the mean and a one-pass Welford/Chan
//   variance. Half types accumulate in float, as warpfold's do. Temporary storage is sized and
//   allocated when the candidate is made, never while it is timed.
// - cuBLAS (float: sdot, snrm2, sasum; half types: cublasDotEx and cublasNrm2Ex, whose result
//   is a half), in device pointer mode so that a call does not wait for its answer.
// This file and impl_cub.cu are the two that instantiate CUB's DeviceReduce.
#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <thrust/iterator/counting_iterator.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "bench/dtype_types.hpp"
#include "bench/ops.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench::ops {
namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A>
struct to_acc {
  template <typename T>
  __host__ __device__ A operator()(T x) const { return static_cast<A>(x); }
};
template <typename A>
struct absolute {
  template <typename T>
  __host__ __device__ A operator()(T x) const { return fabs(static_cast<A>(x)); }
};
template <typename A>
struct square {
  template <typename T>
  __host__ __device__ A operator()(T x) const { return static_cast<A>(x) * static_cast<A>(x); }
};
template <typename T, typename A>
struct product_at {
  const T* x;
  const T* y;
  __host__ __device__ A operator()(std::int64_t i) const { return static_cast<A>(x[i]) * static_cast<A>(y[i]); }
};
struct plus {
  template <typename A>
  __host__ __device__ A operator()(A a, A b) const { return a + b; }
};
struct times {
  template <typename A>
  __host__ __device__ A operator()(A a, A b) const { return a * b; }
};
struct larger {
  template <typename A>
  __host__ __device__ A operator()(A a, A b) const { return a < b ? b : a; }
};
template <typename A>
struct welford {
  A count, mean, m2;
};
template <typename A>
struct to_welford {
  template <typename T>
  __host__ __device__ welford<A> operator()(T x) const { return {1, static_cast<A>(x), 0}; }
};
struct chan {
  template <typename A>
  __host__ __device__ welford<A> operator()(const welford<A>& a, const welford<A>& b) const {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const auto n = a.count + b.count, d = b.mean - a.mean;
    return {n, a.mean + d * (b.count / n), a.m2 + b.m2 + d * d * a.count * (b.count / n)};
  }
};

// A CUB call as a candidate: temp storage sized once, output of type O read back by `read`.
template <typename O, typename Call, typename Read>
candidate cub_candidate(std::int64_t n, Call call, Read read) {
  struct state {
    warpfold::detail::device_buffer<unsigned char> temp;
    std::size_t temp_bytes = 0;
    warpfold::detail::device_buffer<O> out;
    warpfold::detail::device_buffer<std::int64_t> index;
  };
  auto s = std::make_shared<state>();
  s->out.reserve(1);
  s->index.reserve(1);
  WARPFOLD_CUDA_CHECK(call(nullptr, s->temp_bytes, nullptr, nullptr, n, s->out.get(), s->index.get(), cudaStream_t{}));
  s->temp.reserve(s->temp_bytes > 0 ? s->temp_bytes : 1);
  candidate c;
  c.impl = "cub";
  c.enqueue = [s, call](const void* x, const void* y, std::int64_t m, cudaStream_t stream) {
    std::size_t bytes = s->temp_bytes;
    WARPFOLD_CUDA_CHECK(call(s->temp.get(), bytes, x, y, m, s->out.get(), s->index.get(), stream));
  };
  c.answer = [s, read](cudaStream_t stream) {
    O value;
    std::int64_t index = -1;
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&value, s->out.get(), sizeof(O), cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&index, s->index.get(), sizeof index, cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    return read(value, index);
  };
  c.state = s;
  return c;
}

template <typename T>
std::vector<candidate> cub_candidates(op_kind op, std::int64_t n) {
  using A = acc_t<T>;
  auto value = [](A v, std::int64_t) { return static_cast<double>(v); };
  auto transform_reduce = [&](auto transform, auto combine, A init, auto finish) {
    return cub_candidate<A>(
        n,
        [=](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, A* o, std::int64_t*, cudaStream_t s) {
          return cub::DeviceReduce::TransformReduce(t, b, static_cast<const T*>(x), o, m, combine, transform, init, s);
        },
        finish);
  };
  switch (op) {
    case op_kind::sum:
    case op_kind::mean: {
      const bool mean = op == op_kind::mean;
      auto c = transform_reduce(to_acc<A>{}, plus{}, A(0), value);
      if (mean) {  // the sum, divided on the host: CUB has no mean; the division costs nothing on the GPU
        auto answer = c.answer;
        auto count = std::make_shared<std::int64_t>(0);
        auto enqueue = c.enqueue;
        c.enqueue = [=](const void* x, const void* y, std::int64_t m, cudaStream_t s) {
          *count = m;
          enqueue(x, y, m, s);
        };
        c.answer = [=](cudaStream_t s) { return answer(s) / static_cast<double>(*count); };
      }
      return {c};
    }
    case op_kind::prod:
      return {transform_reduce(to_acc<A>{}, times{}, A(1), value)};
    case op_kind::min:
      return {cub_candidate<T>(
          n,
          [](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, T* o, std::int64_t*, cudaStream_t s) {
            return cub::DeviceReduce::Min(t, b, static_cast<const T*>(x), o, m, s);
          },
          [](T v, std::int64_t) { return static_cast<double>(static_cast<A>(v)); })};
    case op_kind::max:
      return {cub_candidate<T>(
          n,
          [](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, T* o, std::int64_t*, cudaStream_t s) {
            return cub::DeviceReduce::Max(t, b, static_cast<const T*>(x), o, m, s);
          },
          [](T v, std::int64_t) { return static_cast<double>(static_cast<A>(v)); })};
    case op_kind::argmin:
      return {cub_candidate<T>(
          n,
          [](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, T* o, std::int64_t* i, cudaStream_t s) {
            return cub::DeviceReduce::ArgMin(t, b, static_cast<const T*>(x), o, i, m, s);
          },
          [](T, std::int64_t index) { return static_cast<double>(index); })};
    case op_kind::argmax:
      return {cub_candidate<T>(
          n,
          [](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, T* o, std::int64_t* i, cudaStream_t s) {
            return cub::DeviceReduce::ArgMax(t, b, static_cast<const T*>(x), o, i, m, s);
          },
          [](T, std::int64_t index) { return static_cast<double>(index); })};
    case op_kind::norm_l1:
      return {transform_reduce(absolute<A>{}, plus{}, A(0), value)};
    case op_kind::norm_l2:  // sqrt of the sum of squares (no scaling: it can overflow where warpfold's does not)
      return {transform_reduce(square<A>{}, plus{}, A(0), [](A v, std::int64_t) { return std::sqrt(static_cast<double>(v)); })};
    case op_kind::norm_linf:
      return {transform_reduce(absolute<A>{}, larger{}, A(0), value)};
    case op_kind::dot:
      return {cub_candidate<A>(
          n,
          [](void* t, std::size_t& b, const void* x, const void* y, std::int64_t m, A* o, std::int64_t*, cudaStream_t s) {
            return cub::DeviceReduce::TransformReduce(t, b, thrust::counting_iterator<std::int64_t>(0), o, m, plus{},
                                                      product_at<T, A>{static_cast<const T*>(x), static_cast<const T*>(y)},
                                                      A(0), s);
          },
          value)};
    case op_kind::var_mean:
      return {cub_candidate<welford<A>>(
          n,
          [](void* t, std::size_t& b, const void* x, const void*, std::int64_t m, welford<A>* o, std::int64_t*, cudaStream_t s) {
            return cub::DeviceReduce::TransformReduce(t, b, static_cast<const T*>(x), o, m, chan{}, to_welford<A>{},
                                                      welford<A>{0, 0, 0}, s);
          },
          [](welford<A> w, std::int64_t) { return static_cast<double>(w.m2) / (static_cast<double>(w.count) - 1); })};
  }
  return {};
}

// cuBLAS: one handle per candidate, bound to the stream at each call.
struct cublas_state {
  cublasHandle_t handle = nullptr;
  warpfold::detail::device_buffer<unsigned char> out;
  ~cublas_state() {
    if (handle) (void)cublasDestroy(handle);
  }
};

void cublas_check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw error(std::string("cuBLAS ") + what + " failed with status " + std::to_string(int(status)));
}

template <typename T>
std::vector<candidate> cublas_candidates(op_kind op) {
  constexpr bool is_float = std::is_same_v<T, float>;
  constexpr bool is_half = std::is_same_v<T, __half>;
  if (!(is_float || is_half)) return {};
  if (op != op_kind::dot && op != op_kind::norm_l2 && !(op == op_kind::norm_l1 && is_float)) return {};
  auto s = std::make_shared<cublas_state>();
  cublas_check(cublasCreate(&s->handle), "cublasCreate");
  cublas_check(cublasSetPointerMode(s->handle, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  s->out.reserve(8);
  candidate c;
  c.impl = "cublas";
  c.state = s;
  c.enqueue = [s, op](const void* x, const void* y, std::int64_t n, cudaStream_t stream) {
    cublas_check(cublasSetStream(s->handle, stream), "cublasSetStream");
    const int m = static_cast<int>(n);
    void* out = s->out.get();
    if constexpr (is_float) {
      const float* fx = static_cast<const float*>(x);
      if (op == op_kind::dot) cublas_check(cublasSdot(s->handle, m, fx, 1, static_cast<const float*>(y), 1, static_cast<float*>(out)), "sdot");
      else if (op == op_kind::norm_l2) cublas_check(cublasSnrm2(s->handle, m, fx, 1, static_cast<float*>(out)), "snrm2");
      else cublas_check(cublasSasum(s->handle, m, fx, 1, static_cast<float*>(out)), "sasum");
    } else {
      if (op == op_kind::dot)
        cublas_check(cublasDotEx(s->handle, m, x, CUDA_R_16F, 1, y, CUDA_R_16F, 1, out, CUDA_R_16F, CUDA_R_32F), "DotEx");
      else
        cublas_check(cublasNrm2Ex(s->handle, m, x, CUDA_R_16F, 1, out, CUDA_R_16F, CUDA_R_32F), "Nrm2Ex");
    }
  };
  c.answer = [s](cudaStream_t stream) {
    if constexpr (is_float) {
      float v;
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&v, s->out.get(), sizeof v, cudaMemcpyDeviceToHost, stream));
      WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
      return static_cast<double>(v);
    } else {
      __half v;
      WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&v, s->out.get(), sizeof v, cudaMemcpyDeviceToHost, stream));
      WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
      return static_cast<double>(__half2float(v));
    }
  };
  return {c};
}

}  // namespace

std::vector<candidate> anchor_candidates(op_kind op, dtype t, std::int64_t n) {
  return visit_dtype(t, [&](auto tag) -> std::vector<candidate> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::int32_t>) {
      return {};
    } else {
      std::vector<candidate> all = cub_candidates<T>(op, n);
      for (candidate& c : cublas_candidates<T>(op)) all.push_back(std::move(c));
      return all;
    }
  });
}

}  // namespace warpfold::bench::ops
