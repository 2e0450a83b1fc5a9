// The reproducible and exact axis and segment sums of float, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_SUM_MODES(float)
