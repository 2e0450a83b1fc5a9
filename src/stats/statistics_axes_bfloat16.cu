// The statistics along axes of bfloat16 arrays (statistics_axes.hpp), compiled once.
#include "warpfold/statistics_axes.cuh"

WARPFOLD_INSTANTIATE_FLOAT_STATISTICS_AXES(__nv_bfloat16)
