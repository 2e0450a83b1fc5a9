// `warpfold bits`: the bit patterns of warpfold's reproducible and exact sums (and, for
// comparison, the default sum) on generated inputs: every float type, a few sizes, every value
// spread (--data's). Run on two GPUs and compare the CSVs with scripts/compare-bits: the
// reproducible and exact rows must be identical; the default's may differ between GPUs of
// different sizes. Each row also names a hash of the input's bytes, which shows that both GPUs
// summed the same data.
#pragma once

#include "options.hpp"

namespace warpfold::cli {

// Returns the exit code. Throws bench::no_device_error without a GPU.
int run_bits(const bench_options& options);

}  // namespace warpfold::cli
