// The axis reductions for int16 elements (signed and unsigned for integers), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_INTEGER(std::int16_t)
WARPFOLD_INSTANTIATE_AXES_INTEGER(std::uint16_t)
