// The one place that maps a bench dtype to its C++ element type. Needs the CUDA half types,
// so it is kept apart from dtype.hpp, which plain C++ (the option parser, CPU tests) uses.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "bench/dtype.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

template <typename T>
struct type_tag {
  using type = T;
};

// Calls visit(type_tag<T>{}) with the element type of `t` and returns what it returns.
template <typename Visit>
decltype(auto) visit_dtype(dtype t, Visit&& visit) {
  switch (t) {
    case dtype::i32: return visit(type_tag<std::int32_t>{});
    case dtype::f32: return visit(type_tag<float>{});
    case dtype::f64: return visit(type_tag<double>{});
    case dtype::f16: return visit(type_tag<__half>{});
    case dtype::bf16: return visit(type_tag<__nv_bfloat16>{});
  }
  throw invalid_argument("unknown dtype");
}

}  // namespace warpfold::bench
