// Everything the GPU tests share: include this one header.
#pragma once

#include "warpfold_test/device_memory.hpp"
#include "warpfold_test/generate.hpp"
#include "warpfold_test/gpu.hpp"
#include "warpfold_test/input.hpp"
#include "warpfold_test/reference.hpp"
#include "warpfold_test/sizes.hpp"
#include "warpfold_test/tolerance.hpp"
#include "warpfold_test/types.hpp"
