// The production API as bench implementations: warpfold::sum(d_in, n, d_out, stream) from
// <warpfold/reduce.hpp>, one kernel per call, and its reproducible and exact forms (sum_modes.hpp).
// int32 accumulates in int64 (so it never wraps),
// __half and __nv_bfloat16 in float; float and double in themselves (see accumulator.hpp).
// The first call on a stream binds a block of the library's scratch to it; prepare() makes
// that call, so the timed calls only enqueue.
//
// Built with WARPFOLD_BENCH_PRODUCTION (a CMake option, on by default: the definitions of
// warpfold::sum are linked in from src/reduce); without it this file registers nothing.
#include "bench/implementation.hpp"

#if WARPFOLD_BENCH_PRODUCTION

#include "bench/dtype_types.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"
#include "warpfold/reduce.hpp"

namespace warpfold::bench {
namespace {

// Which sum: the default, or one of the two float modes (warpfold/sum_modes.hpp).
enum class sum_kind { fast, reproducible, exact };

template <typename T, sum_kind Kind>
class warpfold_impl final : public implementation {
 public:
  using result_type = accumulator_t<op::sum, T>;

  result_kind kind() const override { return result_kind_of<result_type>(); }

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    out_.reserve(1);
    enqueue(d_sample, n, stream);
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void enqueue(const void* d_in, std::int64_t n, cudaStream_t stream) override {
    const T* in = static_cast<const T*>(d_in);
    if constexpr (Kind == sum_kind::fast) warpfold::sum(in, n, out_.get(), stream);
    else if constexpr (Kind == sum_kind::reproducible) warpfold::sum_reproducible(in, n, out_.get(), stream);
    else warpfold::sum_exact(in, n, out_.get(), stream);
  }

  result_value fetch(cudaStream_t stream) override {
    result_type value{};
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&value, out_.get(), sizeof value, cudaMemcpyDeviceToHost, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
    return to_result_value(value);
  }

  bool capturable() const override { return true; }

 private:
  warpfold::detail::device_buffer<result_type> out_;
};

template <sum_kind Kind>
std::unique_ptr<implementation> make_warpfold(dtype t) {
  return visit_dtype(t, [](auto tag) -> std::unique_ptr<implementation> {
    using T = typename decltype(tag)::type;
    if constexpr (Kind != sum_kind::fast && !warpfold::is_summable_float_v<T>) return nullptr;
    else return std::make_unique<warpfold_impl<T, Kind>>();
  });
}

}  // namespace

void add_production_entries(std::vector<impl_entry>& entries) {
  entries.push_back({"warpfold", "production", "",
                     "warpfold::sum(d_in, n, d_out, stream): the production API, one kernel per call "
                     "(i32 sums in int64, f16/bf16 in float)",
                     {dtype::i32, dtype::f32, dtype::f64, dtype::f16, dtype::bf16}, make_warpfold<sum_kind::fast>});
  entries.push_back({"warpfold-reproducible", "production", "",
                     "warpfold::sum_reproducible: the same bits on every GPU, in a documented order (f16/bf16 in float)",
                     {dtype::f32, dtype::f64, dtype::f16, dtype::bf16}, make_warpfold<sum_kind::reproducible>});
  entries.push_back({"warpfold-exact", "production", "",
                     "warpfold::sum_exact: the exact sum, rounded once (f16/bf16 to float)",
                     {dtype::f32, dtype::f64, dtype::f16, dtype::bf16}, make_warpfold<sum_kind::exact>});
}

}  // namespace warpfold::bench

#else

namespace warpfold::bench {
void add_production_entries(std::vector<impl_entry>&) {}
}  // namespace warpfold::bench

#endif
