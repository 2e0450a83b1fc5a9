// The reproducible and exact sums of half and bfloat16, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_SUM_MODES(__half)
WARPFOLD_INSTANTIATE_SUM_MODES(__nv_bfloat16)
