// Explicit instantiation of the production API for one element type: each op x type is
// compiled once, in the reduce_<type>.cu file that includes this.
#pragma once

#include <cstdint>

#include "warpfold/warpfold.cuh"

#define WARPFOLD_INSTANTIATE_OP(Op, T)                                                                                  \
  template void warpfold::detail::reduce_into<Op, T>(const T*, std::int64_t, warpfold::reduce_result_t<Op, T>*,        \
                                                     cudaStream_t, const warpfold::scratch_space*);                    \
  template warpfold::reduce_result_t<Op, T> warpfold::detail::reduce_to_host<Op, T>(const T*, std::int64_t, cudaStream_t);

// Every op that fits any element type.
#define WARPFOLD_INSTANTIATE_ARITHMETIC(T)           \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::sum, T)      \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::prod, T)     \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::min, T)      \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::max, T)      \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::argmin, T)   \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::argmax, T)

// Integers also get the bitwise ops.
#define WARPFOLD_INSTANTIATE_INTEGER(T)              \
  WARPFOLD_INSTANTIATE_ARITHMETIC(T)                 \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::bit_and, T)  \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::bit_or, T)   \
  WARPFOLD_INSTANTIATE_OP(warpfold::op::bit_xor, T)
