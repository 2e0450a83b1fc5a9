// The production reduce for WARPFOLD_INSTANTIATE_ARITHMETIC(__half) WARPFOLD_INSTANTIATE_ARITHMETIC(__nv_bfloat16), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_ARITHMETIC(__half)
WARPFOLD_INSTANTIATE_ARITHMETIC(__nv_bfloat16)
