#include "ncu_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "bench/ncu.hpp"

namespace warpfold::cli {
namespace {

bool ladder_has(bench::dtype t) { return t == bench::dtype::i32 || t == bench::dtype::f32 || t == bench::dtype::f64; }

}  // namespace

std::optional<counters_run> counters_target(const bench_options& options) {
  counters_run target;
  bool found = false;
  for (bench::dtype t : options.dtypes)
    if (!found && ladder_has(t)) {
      target.type = t;
      found = true;
    }
  if (!found) return std::nullopt;
  target.n = options.sweep && !options.sizes_given ? default_bench_size : options.sizes.front();
  target.finisher = options.finishers.front();
  return target;
}

std::optional<std::string> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& self, const bench_options& options,
                                     const counters_run& target) {
  std::vector<std::string> words = {ncu,
                                    "--clock-control",
                                    "none",
                                    "--csv",
                                    "--print-units",
                                    "base",
                                    "--metrics",
                                    bench::counter_metric_list(),
                                    self,
                                    "ncu-target",
                                    "--n",
                                    std::to_string(target.n),
                                    "--dtype",
                                    std::string(bench::name(target.type)),
                                    "--finisher",
                                    std::string(ladder::info(target.finisher).name),
                                    "--block-size",
                                    std::to_string(options.block_size),
                                    "--device",
                                    std::to_string(options.device)};
  for (const std::string& impl : options.impls) {
    words.push_back("--impl");
    words.push_back(impl);
  }
  return words;
}

}  // namespace warpfold::cli
