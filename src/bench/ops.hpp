// `warpfold ops`: the statistics and ops of statistics.hpp and reduce.hpp timed next to their
// anchors (CUB's DeviceReduce, and cuBLAS for dot, nrm2 and asum). Each candidate is a pair of
// functions: enqueue one call on a stream, and read its last answer back as a number that the
// command checks against a host reference before any of its times count.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/dtype.hpp"

namespace warpfold::bench::ops {

enum class op_kind { sum, prod, min, max, argmin, argmax, norm_l1, norm_l2, norm_linf, dot, mean, var_mean };
std::string name(op_kind op);
std::optional<op_kind> parse_op(const std::string& text);
const std::vector<op_kind>& all_ops();

// What a candidate's answer means, for the check: argmin/argmax give the index; var_mean gives
// the variance (correction 1).
struct candidate {
  std::string impl;  // "warpfold", "cub", "cublas"
  std::function<void(const void* x, const void* y, std::int64_t n, cudaStream_t)> enqueue;
  std::function<double(cudaStream_t)> answer;
  std::shared_ptr<void> state;  // buffers and handles the two functions use
};

// The candidates for one op and type; each allocates what it needs for inputs of up to n
// elements here, never while being timed. Anchors that do not offer the op or type are left out.
std::vector<candidate> warpfold_candidates(op_kind op, dtype t, std::int64_t n);
std::vector<candidate> anchor_candidates(op_kind op, dtype t, std::int64_t n);

}  // namespace warpfold::bench::ops
