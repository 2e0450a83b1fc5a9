// The production reduce for WARPFOLD_INSTANTIATE_INTEGER(std::int16_t) WARPFOLD_INSTANTIATE_INTEGER(std::uint16_t), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_INTEGER(std::int16_t)
WARPFOLD_INSTANTIATE_INTEGER(std::uint16_t)
