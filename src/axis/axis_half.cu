// The axis reductions for __half and __nv_bfloat16 elements, every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(__half)
WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(__nv_bfloat16)
