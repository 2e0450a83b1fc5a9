// Compiles every ladder kernel for float once, for the CLI and the tests.
#include <cstdint>

#include "warpfold/ladder/runner.cuh"

template class warpfold::ladder::runner<float>;
