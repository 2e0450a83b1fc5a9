// The axis reductions for int64 elements (signed and unsigned for integers), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_INTEGER(std::int64_t)
WARPFOLD_INSTANTIATE_AXES_INTEGER(std::uint64_t)
