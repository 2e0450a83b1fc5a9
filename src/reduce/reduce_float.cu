// The production reduce for WARPFOLD_INSTANTIATE_ARITHMETIC(float), every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_ARITHMETIC(float)
