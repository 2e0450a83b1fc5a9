// The statistics along axes of half arrays (statistics_axes.hpp), compiled once.
#include "warpfold/statistics_axes.cuh"

WARPFOLD_INSTANTIATE_FLOAT_STATISTICS_AXES(__half)
