#include "counters.hpp"

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench/device.hpp"
#include "bench/implementation.hpp"
#include "bench/ncu.hpp"
#include "bench/reference.hpp"
#include "bench/selection.hpp"
#include "bench/sizes.hpp"

namespace warpfold::cli {
namespace {

std::string self_path() {
  std::array<char, 4096> path{};
  const ssize_t length = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (length <= 0) throw error("cannot find this program's path (/proc/self/exe)");
  return std::string(path.data(), static_cast<std::size_t>(length));
}

std::string temp_path(const char* stem) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/" + stem + "-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) throw error("cannot create a temporary file " + pattern);
  close(fd);
  return pattern;
}

std::string last_lines(const std::string& text, int count) {
  std::size_t pos = text.size();
  for (int i = 0; i <= count && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

}  // namespace

std::optional<counters_run> collect_counters(const bench_options& options, std::ostream& log) {
  std::optional<counters_run> target = counters_target(options);
  if (!target) {
    log << "warpfold bench: --counters: none of the selected types has ladder kernels (i32, f32, f64); running "
           "without counters\n";
    return std::nullopt;
  }
  const std::optional<std::string> ncu = find_on_path("ncu");
  if (!ncu) {
    log << "warpfold bench: --counters: ncu (Nsight Compute) is not on PATH; running without counters\n";
    return std::nullopt;
  }
  const std::string errors = temp_path("warpfold-ncu-stderr");
  std::string command;
  for (const std::string& word : ncu_command(*ncu, self_path(), options, *target))
    command += (command.empty() ? "" : " ") + shell_quote(word);
  command += " 2>" + shell_quote(errors);

  if (!options.quiet)
    log << "counters: profiling the ladder under ncu at " << bench::name(target->type)
        << " n=" << bench::format_size(target->n) << " (this takes a while)...\n";
  std::fflush(nullptr);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    log << "warpfold bench: --counters: could not start ncu; running without counters\n";
    return std::nullopt;
  }
  std::string output;
  std::array<char, 65536> chunk{};
  for (std::size_t got; (got = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0;) output.append(chunk.data(), got);
  const int status = pclose(pipe);

  std::ifstream error_file(errors);
  const std::string error_text((std::istreambuf_iterator<char>(error_file)), std::istreambuf_iterator<char>());
  std::remove(errors.c_str());

  try {
    std::istringstream in(output);
    target->steps = bench::counters_by_step(bench::parse_ncu_csv(in));
  } catch (const invalid_argument&) {
    target->steps.clear();  // no table in the output: reported below
  }
  const std::string what = status == 0 ? "gave no ladder counters"
                           : WIFEXITED(status) ? "exited with code " + std::to_string(WEXITSTATUS(status))
                                               : "was stopped (wait status " + std::to_string(status) + ")";
  if (status != 0 || target->steps.empty()) {
    const std::string saved = temp_path("warpfold-ncu-output");
    std::ofstream(saved) << output << "\n--- stderr ---\n" << error_text;
    log << "warpfold bench: --counters: ncu " << what
        << (target->steps.empty() ? "; running without counters" : "; showing the counters it did give")
        << ". Its output is in " << saved << "; last lines:\n"
        << last_lines(error_text.empty() ? output : error_text, 8) << "\n";
    if (target->steps.empty()) return std::nullopt;
  }
  return target;
}

int run_ncu_target(const bench_options& options) {
  const std::optional<counters_run> target = counters_target(options);
  if (!target) throw usage_error("ncu-target: no type with ladder kernels selected");
  bench::open_device(options.device);
  const std::vector<bench::impl_entry> registry = bench::make_registry({{target->finisher}, options.block_size});
  std::vector<bench::impl_name> catalogue;
  for (const auto& e : registry) catalogue.push_back({e.name, e.family});
  const std::vector<std::string> chosen = bench::select_impls(options.impls, catalogue);

  // The input is made on the host and copied, so that the only kernels in the profile are the
  // ladder's. Integers in [-1000, 1000), floats in [0, 1).
  const std::int64_t n = target->n;
  const int bytes_per = bench::element_bytes(target->type);
  std::vector<unsigned char> host(static_cast<std::size_t>(n * bytes_per));
  std::uint64_t state = 0x243f6a8885a308d3ull;
  for (std::int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint32_t r = static_cast<std::uint32_t>(state >> 32);
    if (target->type == bench::dtype::i32) {
      const std::int32_t v = static_cast<std::int32_t>(r % 2000) - 1000;
      std::memcpy(host.data() + i * 4, &v, 4);
    } else if (target->type == bench::dtype::f32) {
      const float v = static_cast<float>(r >> 8) * 0x1p-24f;
      std::memcpy(host.data() + i * 4, &v, 4);
    } else {
      const double v = static_cast<double>(r) * 0x1p-32;
      std::memcpy(host.data() + i * 8, &v, 8);
    }
  }
  const bench::host_reference reference = bench::compute_reference(target->type, host.data(), n);
  void* d_in = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMalloc(&d_in, host.size()));
  int failures = 0;
  try {
    WARPFOLD_CUDA_CHECK(cudaMemcpy(d_in, host.data(), host.size(), cudaMemcpyHostToDevice));
    for (const bench::impl_entry& entry : registry) {
      if (entry.family != "ladder" || std::find(chosen.begin(), chosen.end(), entry.name) == chosen.end()) continue;
      auto impl = entry.make(target->type);
      impl->enqueue(d_in, n, nullptr);
      const bench::check_outcome outcome = bench::check_result(impl->kind(), reference, impl->fetch(nullptr));
      if (!outcome.ok) {
        std::cerr << "ncu-target: " << entry.name << " FAILED: " << outcome.detail << "\n";
        ++failures;
      }
    }
  } catch (...) {
    (void)cudaFree(d_in);
    throw;
  }
  WARPFOLD_CUDA_CHECK(cudaFree(d_in));
  return failures == 0 ? 0 : 1;
}

}  // namespace warpfold::cli
