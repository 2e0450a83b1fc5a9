// The statistics of double arrays (statistics.hpp), compiled once.
#include "warpfold/statistics.cuh"

WARPFOLD_INSTANTIATE_FLOAT_STATISTICS(double)
