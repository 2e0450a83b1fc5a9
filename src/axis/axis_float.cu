// The axis reductions for float elements, every op, compiled once.
#include "instantiate.cuh"

WARPFOLD_INSTANTIATE_AXES_ARITHMETIC(float)
