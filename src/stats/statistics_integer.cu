// count_nonzero, any and all of integer (and bool, as uint8) arrays, compiled once.
#include "warpfold/statistics.cuh"

WARPFOLD_INSTANTIATE_COUNTS(std::int8_t)
WARPFOLD_INSTANTIATE_COUNTS(std::uint8_t)
WARPFOLD_INSTANTIATE_COUNTS(std::int16_t)
WARPFOLD_INSTANTIATE_COUNTS(std::uint16_t)
WARPFOLD_INSTANTIATE_COUNTS(std::int32_t)
WARPFOLD_INSTANTIATE_COUNTS(std::uint32_t)
WARPFOLD_INSTANTIATE_COUNTS(std::int64_t)
WARPFOLD_INSTANTIATE_COUNTS(std::uint64_t)
