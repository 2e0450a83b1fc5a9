// Many-array statistics (many.hpp) of float elements, compiled once.
#include "warpfold/many.cuh"

WARPFOLD_INSTANTIATE_FLOAT_MANY(float)
