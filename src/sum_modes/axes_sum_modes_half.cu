// The reproducible and exact axis and segment sums of half and bfloat16, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_SUM_MODES(__half)
WARPFOLD_INSTANTIATE_AXES_SUM_MODES(__nv_bfloat16)
