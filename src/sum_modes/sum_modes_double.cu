// The reproducible and exact sums of double, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_SUM_MODES(double)
