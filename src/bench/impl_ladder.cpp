// The ladder steps as bench implementations: a thin adapter over warpfold::ladder::runner,
// whose kernels are compiled once in src/ladder/. The runner grows its scratch on the first
// call at a size, so prepare() runs one reduction and the timed calls allocate nothing.
#include <cstdint>
#include <type_traits>

#include "bench/dtype_types.hpp"
#include "bench/implementation.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

template <typename T>
class ladder_impl final : public implementation {
 public:
  ladder_impl(ladder::step s, ladder::finisher f, int block_size) : runner_(s, f, block_size) {}

  result_kind kind() const override { return result_kind_of<T>(); }  // sums in T

  void prepare(const void* d_sample, std::int64_t n, cudaStream_t stream) override {
    runner_.run(static_cast<const T*>(d_sample), n, stream);
    (void)runner_.result(stream);
  }

  void enqueue(const void* d_in, std::int64_t n, cudaStream_t stream) override {
    runner_.run(static_cast<const T*>(d_in), n, stream);
  }

  result_value fetch(cudaStream_t stream) override {
    const T value = runner_.result(stream);
    return to_result_value(value);
  }

  std::optional<int> launches_per_call() const override { return runner_.launches(); }

 private:
  ladder::runner<T> runner_;
};

}  // namespace

std::unique_ptr<implementation> make_ladder(ladder::step s, ladder::finisher f, int block_size, dtype t) {
  switch (t) {
    case dtype::i32: return std::make_unique<ladder_impl<std::int32_t>>(s, f, block_size);
    case dtype::f32: return std::make_unique<ladder_impl<float>>(s, f, block_size);
    case dtype::f64: return std::make_unique<ladder_impl<double>>(s, f, block_size);
    default: throw invalid_argument("the ladder has no " + std::string(name(t)) + " kernels");
  }
}

}  // namespace warpfold::bench
