// Many-array statistics (many.hpp) of __half and __nv_bfloat16 elements, compiled once.
#include "warpfold/many.cuh"

WARPFOLD_INSTANTIATE_FLOAT_MANY(__half)
WARPFOLD_INSTANTIATE_FLOAT_MANY(__nv_bfloat16)
