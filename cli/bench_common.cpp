#include "bench_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "bench/device.hpp"
#include "bench/gpu.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/sizes.hpp"
#include "bench/statistics.hpp"
#include "bench/table.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

constexpr std::int64_t ceiling_buffer_bytes = std::int64_t(2) << 30;  // 2 GiB, as in shared/GPU.md
constexpr int launch_floor_batch = 1000;

measurement ceiling_row(const std::string& impl, const bench::ceiling_measurement& c, const bench_options& o,
                        const bench::device_description& d) {
  measurement m;
  m.impl = impl;
  m.family = "ceiling";
  m.bytes = c.bytes;
  m.time_us = c.time_us.median;
  m.time_min_us = c.time_us.min;
  m.time_max_us = c.time_us.max;
  m.gbps = c.gbps;
  m.trials = o.trials;
  m.batch = c.batch;
  m.buffers = 1;
  m.device = d.name;
  m.note = c.variant;
  return m;
}

// "  3101.2 GB/s" and "    4.21 µs  ": the ceilings' figures in one column.
std::string ceiling_figure(const std::string& value, const std::string& unit) {
  return std::string(value.size() < 8 ? 8 - value.size() : 0, ' ') + value + " " + unit +
         (unit.size() < 4 ? std::string(4 - bench::display_width(unit), ' ') : "");
}

}  // namespace

owned_stream::owned_stream() { WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
owned_stream::~owned_stream() { (void)cudaStreamDestroy(stream_); }

progress::progress(bool enabled, int total) : enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1), total_(total) {}

void progress::note(const std::string& what) {
  clear();
  std::cerr << what << "\n";
}

void progress::begin(const std::string& what) {
  ++done_;
  current_ = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + what;
  if (enabled_ && tty_) std::cerr << "\r\033[K" << current_ << " ..." << std::flush;
}

void progress::status(int count, const std::string& what) {
  if (!enabled_ || !tty_) return;
  std::cerr << "\r\033[K[" << done_ + 1 << (count > 1 ? "-" + std::to_string(done_ + count) : "") << "/" << total_
            << "] " << what << " ..." << std::flush;
  dirty_ = true;
}

void progress::end(const std::string& result) {
  if (!enabled_) return;
  if (tty_) {
    std::cerr << "\r\033[K" << current_ << ": " << result << std::flush;
    dirty_ = true;
  } else {
    std::cerr << current_ << ": " << result << "\n";
  }
}

void progress::result(const std::string& what, const measurement& m) {
  begin(what);
  end(m.ok ? bench::format_time_us(m.time_us) + " µs, " + bench::format_gbps(m.gbps) + " GB/s" : "FAILED");
}

void progress::clear() {
  if (enabled_ && tty_ && dirty_) std::cerr << "\r\033[K" << std::flush;
  dirty_ = false;
}

ceilings measure_ceilings(const bench_options& o, const bench::device_description& d, cudaStream_t stream) {
  // 2 GiB, or less when memory is short; at least 4x L2 either way, so L2 cannot serve it.
  std::int64_t bytes = std::min(ceiling_buffer_bytes, bench::free_device_memory() / 2) / (1 << 20) * (1 << 20);
  if (bytes < 4 * d.l2_bytes)
    throw error("not enough free device memory for the ceilings' buffer (" + bench::format_bytes(double(bytes)) +
                " free, need 4x L2 = " + bench::format_bytes(4.0 * d.l2_bytes) + ")");
  void* buffer = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMalloc(&buffer, static_cast<std::size_t>(bytes)));
  ceilings c;
  try {
    WARPFOLD_CUDA_CHECK(cudaMemsetAsync(buffer, 0x5a, static_cast<std::size_t>(bytes), stream));
    c.read = ceiling_row("read_ceiling", bench::measure_read_ceiling(buffer, bytes, o.trials, stream), o, d);
    c.copy = ceiling_row("copy_ceiling", bench::measure_copy_ceiling(buffer, bytes, o.trials, stream), o, d);
  } catch (...) {
    (void)cudaFree(buffer);
    throw;
  }
  WARPFOLD_CUDA_CHECK(cudaFree(buffer));
  // The empty kernel both ways: plain <<< >>>, and as warpfold launches its own kernels.
  auto launch_floor = [&](const char* impl, bool dependent, const char* how) {
    measurement m = ceiling_row(impl, bench::measure_launch_floor(o.trials, launch_floor_batch, stream, dependent), o, d);
    m.bytes = 0;
    m.gbps = 0;
    m.note = "empty kernel, " + std::to_string(launch_floor_batch) + " launches back to back per trial" + how;
    return m;
  };
  c.launch = launch_floor("launch_floor", false, "");
  c.launch_dependent = launch_floor("launch_floor_dependent", true, ", as programmatic dependent launches (as warpfold launches)");
  c.read.ceiling_gbps = c.copy.ceiling_gbps = c.launch.ceiling_gbps = c.launch_dependent.ceiling_gbps = c.read.gbps;
  c.read.bytes_in = c.read.bytes;
  c.copy.bytes_in = c.copy.bytes_out = c.copy.bytes / 2;
  return c;
}

ceilings begin_run(const bench_options& o, const bench::device_description& d, const bench::timing_options& t,
                   cudaStream_t stream, progress& bar, bench::run_record& record) {
  print_header(std::cout, d);
  if (!o.quiet) bar.note("measuring the ceilings...");
  const ceilings c = measure_ceilings(o, d, stream);
  for (const measurement& m : c.rows()) record.measurements.push_back(m);
  print_ceilings(std::cout, c);
  print_method(std::cout, t, d);
  return c;
}

std::vector<measurement> ceilings::rows() const { return {read, copy, launch, launch_dependent}; }

void print_header(std::ostream& out, const bench::device_description& d) {
  out << "warpfold bench\n";
  out << "device    " << d.name << " (device " << d.ordinal << "): " << d.sm_count << " SMs, L2 "
      << bench::format_bytes(double(d.l2_bytes)) << ", " << bench::format_bytes(double(d.memory_bytes))
      << ", compute capability " << d.cc_major << "." << d.cc_minor << "\n";
  out << "software  driver " << d.driver_version << " (CUDA " << bench::format_cuda_version(d.cuda_driver_version)
      << "), CUDA runtime " << bench::format_cuda_version(d.cuda_runtime_version) << "\n";
}

void print_ceilings(std::ostream& out, const ceilings& c) {
  out << "ceilings  read   " << ceiling_figure(bench::format_gbps(c.read.gbps), "GB/s")
      << "  read-only streaming kernel, 16-byte loads, " << bench::format_bytes(double(c.read.bytes))
      << " in one launch\n"
      << std::string(32, ' ') << "(fastest of 8 configurations: " << c.read.note << ")\n";
  out << "          copy   " << ceiling_figure(bench::format_gbps(c.copy.gbps), "GB/s")
      << "  device-to-device cudaMemcpyAsync, bytes read + written (" << bench::format_bytes(double(c.copy.bytes))
      << ")\n";
  out << "          launch " << ceiling_figure(bench::format_time_us(c.launch.time_us), "µs")
      << "  empty kernel launched back to back (min " << bench::format_time_us(c.launch.time_min_us) << ", max "
      << bench::format_time_us(c.launch.time_max_us) << ")\n";
  out << "                 " << ceiling_figure(bench::format_time_us(c.launch_dependent.time_us), "µs")
      << "  the same, as programmatic dependent launches, the way warpfold launches (min "
      << bench::format_time_us(c.launch_dependent.time_min_us) << ", max "
      << bench::format_time_us(c.launch_dependent.time_max_us) << ")\n";
}

void print_method(std::ostream& out, const bench::timing_options& t, const bench::device_description& d) {
  out << "method    CUDA events; " << t.warmup_calls << " warm-up calls, then the median of " << t.trials
      << " trials (min and max shown).\n"
      << "          Back to back: each trial times a batch of calls lasting >= "
      << bench::format_time_us(t.min_batch_us / 1000.0) << " ms and divides by the calls (column 'batch'),\n"
      << "          right after the same batch untimed, so the GPU is busy and at its clocks when timing starts.\n"
      << "          Trials interleaved across implementations: at each type and size, trial 1 of every\n"
      << "          implementation, then trial 2 of every one, and so on.\n"
      << "          Inputs of varied values, rotated over buffers totalling >= " << bench::input_pool::rotation_factor
      << "x L2 (" << bench::format_bytes(double(d.l2_bytes)) << "): every call reads cold data.\n"
      << "          Every timed result is checked against a host reference; a wrong answer shows as FAILED.\n";
}

std::vector<measurement> measure_interleaved(std::vector<contender>& contenders, int trials, const std::string& point,
                                             progress& bar) {
  struct state {
    contender::opened timed;
    bool running = false;  // started, and no check has failed
  };
  std::vector<state> all(contenders.size());

  // Runs one stage of contender i; a failed check or an exception ends its measurement.
  auto run_stage = [&](std::size_t i, const auto& stage) {
    state& s = all[i];
    measurement& row = contenders[i].row;
    try {
      s.running = stage(s);
      if (!s.running) {
        row.ok = false;
        row.error = s.timed.session->result().error;
      }
    } catch (const std::exception& failure) {
      s.running = false;
      row.ok = false;
      row.error = failure.what();
      // An error that breaks the CUDA context (an illegal address, say) makes every later
      // number meaningless: stop here rather than print them.
      (void)cudaGetLastError();
      const cudaError_t sticky = cudaDeviceSynchronize();
      if (sticky != cudaSuccess)
        throw cuda_error(sticky, row.impl + " broke the CUDA context (" + failure.what() + "); stopping");
    }
  };

  const int count = static_cast<int>(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    bar.status(count, point + "warming up " + contenders[i].label);
    run_stage(i, [&](state& s) {
      s.timed = contenders[i].open();
      return s.timed.session->start();
    });
  }
  for (const bench::trial_slot& slot : bench::interleaved_schedule(count, trials)) {
    const std::size_t i = static_cast<std::size_t>(slot.impl);
    if (!all[i].running) continue;  // FAILED already: the others go on
    bar.status(count, point + "trial " + std::to_string(slot.trial + 1) + "/" + std::to_string(trials) + ", " +
                          contenders[i].label);
    run_stage(i, [](state& s) { return s.timed.session->trial(); });
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].running) continue;
    bar.status(count, point + "verifying " + contenders[i].label);
    run_stage(i, [](state& s) { return s.timed.session->finish(); });
  }

  std::vector<measurement> rows;
  for (std::size_t i = 0; i < all.size(); ++i) {
    measurement m = contenders[i].row;
    const bench::timing_session* session = all[i].timed.session.get();
    if (session) {
      m.launches = session->result().launches;
      m.batch = session->result().batch;
    }
    if (m.ok) {  // every stage passed: the session has its summary
      const bench::summary& per_call = session->result().per_call_us;
      m.time_us = per_call.median;
      m.time_min_us = per_call.min;
      m.time_max_us = per_call.max;
      m.gbps = bench::gbps(double(m.bytes), m.time_us);
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

int exit_code_after(bool any_failed) {
  if (!any_failed) return 0;
  std::cout << "\nFAILED: at least one implementation gave a wrong answer (see above); exit code 1\n";
  return 1;
}

bench::timing_options timing_of(const bench_options& o) {
  bench::timing_options timing;
  timing.trials = o.trials;
  timing.min_batch_us = o.batch_ms * 1000.0;
  return timing;
}

bench::run_record new_record(const bench::device_description& d, const bench::timing_options& t, int block_size) {
  bench::run_record record;
  record.device = d;
  record.method = {t.trials, t.warmup_calls, t.min_batch_us, bench::input_pool::rotation_factor, block_size};
  return record;
}

measurement pending_row(const std::string& impl, const std::string& family, const bench::input_pool& pool,
                        const bench::timing_options& timing, const std::string& device_name, double ceiling_gbps) {
  measurement m;
  m.impl = impl;
  m.family = family;
  m.dtype = std::string(bench::name(pool.type()));
  m.n = pool.n();
  m.ceiling_gbps = ceiling_gbps;
  m.trials = timing.trials;
  m.buffers = pool.buffers();
  m.device = device_name;
  return m;
}

contender::opened open_checking_outputs(std::unique_ptr<bench::axis_implementation> impl, outputs_check check,
                                        bench::input_pool& pool, const case_context& at) {
  bench::axis_implementation& answers = *impl;
  const cudaStream_t stream = at.stream;
  auto check_last_call = [&answers, check = std::move(check), stream](int buffer) {
    return check(buffer, answers.fetch_outputs(stream));
  };
  auto session = std::make_unique<bench::timing_session>(*impl, pool, check_last_call, at.timing, stream);
  return {std::move(impl), std::move(session)};
}

bool fits_in_device_memory(const std::string& what, std::int64_t needed, int measurements, progress& bar) {
  const std::int64_t free_bytes = bench::free_device_memory();
  if (needed <= free_bytes) return true;
  bar.note("note: skipping " + what + ": needs about " + bench::format_bytes(double(needed)) +
           " of device memory, " + bench::format_bytes(double(free_bytes)) + " free");
  bar.skip(measurements);
  return false;
}

int run_case_bench(const bench_options& o, const case_bench& spec) {
  const bench::device_description device = bench::open_device(o.device);
  const bench::timing_options timing = timing_of(o);
  bench::run_record record = new_record(device, timing);
  progress bar(!o.quiet, spec.measurements);

  owned_stream stream;
  const ceilings ceiling = begin_run(o, device, timing, stream, bar, record);
  spec.print_legend(std::cout);
  std::cout << std::flush;

  std::vector<measurement> rows;
  bool any_failed = false;
  const keep_rows keep = [&](const std::string& what, const std::vector<measurement>& measured) {
    for (const measurement& m : measured) {
      bar.result(what + " " + m.impl, m);
      any_failed = any_failed || !m.ok;
      record.measurements.push_back(m);
      rows.push_back(m);
    }
  };
  auto write_outputs = [&] {
    if (!o.csv_path.empty()) spec.write_csv_file(o.csv_path, record.measurements);
    if (!o.json_path.empty()) bench::write_json_file(o.json_path, record);
  };
  try {
    spec.measure({device, timing, ceiling, stream, bar}, keep);
  } catch (...) {
    bar.clear();
    write_outputs();
    throw;
  }
  bar.clear();
  write_outputs();
  spec.print_results(std::cout, rows, ceiling);
  return exit_code_after(any_failed);
}

std::vector<std::string> result_cells(const measurement& m) {
  if (!m.ok) return {"FAILED", "-", "-", "-"};
  return {bench::format_time_us(m.time_us),
          bench::format_time_us(m.time_min_us) + "–" + bench::format_time_us(m.time_max_us),
          bench::format_gbps(m.gbps), bench::format_percent(m.percent_of_ceiling())};
}

std::optional<double> speedup_over_cub(const measurement& m, const std::vector<measurement>& rows, const same_case& same) {
  if (!m.ok) return std::nullopt;
  for (const measurement& other : rows)
    if (other.impl == "cub" && other.ok && same(other, m)) return other.time_us / m.time_us;
  return std::nullopt;
}

void print_lowest_shares(std::ostream& out, const std::vector<measurement>& rows,
                         const std::function<std::string(const measurement&)>& where) {
  std::vector<std::string> impls;
  std::map<std::string, const measurement*> lowest;
  for (const measurement& m : rows) {
    if (!m.has_bandwidth()) continue;
    if (!lowest.count(m.impl)) impls.push_back(m.impl);
    const measurement*& low = lowest[m.impl];
    if (!low || m.percent_of_ceiling() < low->percent_of_ceiling()) low = &m;
  }
  for (const std::string& impl : impls) {
    const measurement& m = *lowest[impl];
    out << "lowest    " << impl << ": " << bench::format_percent(m.percent_of_ceiling()) << "% of the read ceiling ("
        << where(m) << ")\n";
  }
}

}  // namespace warpfold::cli
