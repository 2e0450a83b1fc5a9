// The reproducible and exact sums of float, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_SUM_MODES(float)
