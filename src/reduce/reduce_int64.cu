// The production reduce for WARPFOLD_INSTANTIATE_INTEGER(std::int64_t) WARPFOLD_INSTANTIATE_INTEGER(std::uint64_t), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_INTEGER(std::int64_t)
WARPFOLD_INSTANTIATE_INTEGER(std::uint64_t)
