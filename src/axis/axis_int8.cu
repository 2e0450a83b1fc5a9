// The axis reductions for int8 elements (signed and unsigned for integers), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_INTEGER(std::int8_t)
WARPFOLD_INSTANTIATE_AXES_INTEGER(std::uint8_t)
