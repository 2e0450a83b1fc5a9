// The production reduce for WARPFOLD_INSTANTIATE_INTEGER(std::int8_t) WARPFOLD_INSTANTIATE_INTEGER(std::uint8_t), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_INTEGER(std::int8_t)
WARPFOLD_INSTANTIATE_INTEGER(std::uint8_t)
