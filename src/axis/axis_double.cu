// The axis reductions for double elements, every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(double)
