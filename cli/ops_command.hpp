// `warpfold ops`: every op and statistic (sum, min, max, argmin, argmax, norm_l1, norm_l2,
// norm_linf, dot, mean, var_mean) timed next to CUB and cuBLAS at each size and offset, every
// answer checked against a host reference; CSV rows
// impl,op,dtype,n,offset,time_us,min_us,max_us,gbps,ceiling_gbps,percent_of_ceiling,check,device,date.
//
// `warpfold many`: per-array L2 norms plus the combined norm of lists of device arrays (a
// GPT-2-small parameter list, 5,000 small arrays, a random mix), warpfold's one call against a
// loop of per-array calls, next to the memory limit (bytes at the read ceiling plus one
// launch); CSV rows impl,list,arrays,elements,time_us,gbps,ceiling_gbps,limit_us,ratio_to_limit,
// check,device,date.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "options.hpp"

namespace warpfold::cli {


int run_ops(const ops_options& options);
int run_many(const ops_options& options);

// Shared by the two commands (ops_command.cpp).
namespace ops_detail {
std::string today();  // UTC, YYYY-MM-DD
double median(std::vector<double> samples);
double measure_ceiling_gbps(cudaStream_t stream);  // the read ceiling over 1 GiB, GB/s
std::uint64_t splitmix64(std::uint64_t x);          // a well-mixed hash, for varied but fixed data
}  // namespace ops_detail

}  // namespace warpfold::cli
