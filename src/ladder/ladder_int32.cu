// Compiles every ladder kernel for std::int32_t once, for the CLI and the tests.
#include <cstdint>

#include "warpfold/ladder/runner.cuh"

template class warpfold::ladder::runner<std::int32_t>;
