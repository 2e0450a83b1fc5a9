// The statistics of half and bfloat16 arrays (statistics.hpp), compiled once.
#include "warpfold/statistics.cuh"

WARPFOLD_INSTANTIATE_FLOAT_STATISTICS(__half)
WARPFOLD_INSTANTIATE_FLOAT_STATISTICS(__nv_bfloat16)
