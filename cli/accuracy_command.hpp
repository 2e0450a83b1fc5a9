// `warpfold accuracy`: how close each float sum gets on an ill-conditioned input, whose exact
// sum is known by construction: n float32 values, pairs x and -x (log-uniform magnitudes over
// 2^-20 .. 2^20) shuffled together with a few small equal values, so that the exact sum is
// about 1e-10 of the sum of magnitudes. Rows: the relative error of warpfold's default,
// reproducible and exact sums, of CUB (DeviceReduce::Sum), and of two CPU sums in the
// array's order: plain float and Kahan's compensated float. scripts/accuracy_torch adds
// torch.sum's row from the input that --save-input writes.
#pragma once

#include "options.hpp"

namespace warpfold::cli {

int run_accuracy(const bench_options& options, const std::string& save_input);

}  // namespace warpfold::cli
