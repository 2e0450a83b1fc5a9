// Many-array statistics (many.hpp) of double elements, compiled once.
#include "warpfold/many.cuh"

WARPFOLD_INSTANTIATE_FLOAT_MANY(double)
