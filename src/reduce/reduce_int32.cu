// The production reduce for WARPFOLD_INSTANTIATE_INTEGER(std::int32_t) WARPFOLD_INSTANTIATE_INTEGER(std::uint32_t), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_INTEGER(std::int32_t)
WARPFOLD_INSTANTIATE_INTEGER(std::uint32_t)
