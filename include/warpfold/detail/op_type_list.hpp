// The op x element-type pairs of the production API, as macros that apply X(Op, T) to each:
// the one list that every file of explicit instantiations uses.
//
//   #define INSTANTIATE(Op, T) template void f<Op, T>(...);
//   WARPFOLD_FOR_EACH_OP_AND_TYPE(INSTANTIATE)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "warpfold/ops.hpp"

// Every op that fits any element type.
#define WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, T) \
  X(::warpfold::op::sum, T)                   \
  X(::warpfold::op::prod, T)                  \
  X(::warpfold::op::min, T)                   \
  X(::warpfold::op::max, T)                   \
  X(::warpfold::op::argmin, T)                \
  X(::warpfold::op::argmax, T)

// Integers also get the bitwise ops.
#define WARPFOLD_FOR_EACH_INTEGER_OP(X, T) \
  WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, T)    \
  X(::warpfold::op::bit_and, T)            \
  X(::warpfold::op::bit_or, T)             \
  X(::warpfold::op::bit_xor, T)

#define WARPFOLD_FOR_EACH_OP_AND_TYPE(X)                 \
  WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, __half)             \
  WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, __nv_bfloat16)      \
  WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, float)              \
  WARPFOLD_FOR_EACH_ARITHMETIC_OP(X, double)             \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::int8_t)           \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::uint8_t)          \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::int16_t)          \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::uint16_t)         \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::int32_t)          \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::uint32_t)         \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::int64_t)          \
  WARPFOLD_FOR_EACH_INTEGER_OP(X, std::uint64_t)
