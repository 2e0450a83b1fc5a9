// Explicit instantiation of the production API for one element type: each op x type is
// compiled once, in the reduce_<type>.cu file that includes this.
#pragma once

#include <cstdint>

#include "warpfold/detail/op_type_list.hpp"
#include "warpfold/warpfold.cuh"

#define WARPFOLD_INSTANTIATE_OP(Op, T)                                                                                  \
  template void warpfold::detail::reduce_into<Op, T>(const T*, std::int64_t, warpfold::reduce_result_t<Op, T>*,        \
                                                     cudaStream_t, const warpfold::scratch_space*);                    \
  template warpfold::reduce_result_t<Op, T> warpfold::detail::reduce_to_host<Op, T>(const T*, std::int64_t, cudaStream_t);

// Every op that fits any element type; integers also get the bitwise ops.
#define WARPFOLD_INSTANTIATE_ARITHMETIC(T) WARPFOLD_FOR_EACH_ARITHMETIC_OP(WARPFOLD_INSTANTIATE_OP, T)
#define WARPFOLD_INSTANTIATE_INTEGER(T) WARPFOLD_FOR_EACH_INTEGER_OP(WARPFOLD_INSTANTIATE_OP, T)
