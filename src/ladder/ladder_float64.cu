// Compiles every ladder kernel for double once, for the CLI and the tests.
#include <cstdint>

#include "warpfold/ladder/runner.cuh"

template class warpfold::ladder::runner<double>;
