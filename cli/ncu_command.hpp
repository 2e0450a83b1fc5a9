// The pure half of `warpfold bench --counters`: which run the counters are taken at, and the
// ncu command line that profiles it. No CUDA; the CPU tests link it with the option parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/dtype.hpp"
#include "bench/measurement.hpp"
#include "options.hpp"

namespace warpfold::cli {

struct counters_run {
  std::vector<bench::step_counters> steps;
  bench::dtype type = bench::dtype::i32;
  std::int64_t n = 0;
  ladder::finisher finisher = ladder::finisher::last_block;
};

// The type, size and finisher the counters are taken at: the first type the ladder has, the
// first --n (the default size with --sweep and no --n), the first finisher. nullopt when no
// selected type has ladder kernels.
std::optional<counters_run> counters_target(const bench_options& options);

// The full path of `program` found on PATH, or nullopt.
std::optional<std::string> find_on_path(const std::string& program);

// Quotes one word for /bin/sh.
std::string shell_quote(const std::string& word);

// The ncu command line that profiles `self ncu-target ...`: ncu --clock-control none --csv
// --print-units base --metrics <the five> <self> ncu-target --n N --dtype T --finisher F
// --block-size B --device D [--impl X]...
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& self, const bench_options& options,
                                     const counters_run& target);

}  // namespace warpfold::cli
