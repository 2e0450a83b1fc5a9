// `warpfold bench --host` and `warpfold bench --distributed`: f32 sums beyond one GPU's memory
// and over several GPUs, each next to the reference of the same run; CSV rows
// impl,mode,op,dtype,gpus,bytes,time_us,min_us,max_us,gbps,vs_reference,check,device,date.
// vs_reference: for host rows, the share of the pinned host-to-device copy's bandwidth; for
// sharded warpfold rows, the speedup over one GPU reducing one shard with warpfold::sum (the
// warpfold-local row: gpus x its time / the time); for the combine alone, its time over NCCL's all-reduce of one float.
#pragma once

#include "options.hpp"

namespace warpfold::cli {

int run_host_bench(const bench_options& options);
int run_distributed_bench(const bench_options& options);

}  // namespace warpfold::cli
