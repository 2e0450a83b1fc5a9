// The axis reductions for int32 elements (signed and unsigned for integers), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_INTEGER(std::int32_t)
WARPFOLD_INSTANTIATE_AXES_INTEGER(std::uint32_t)
