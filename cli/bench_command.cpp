#include "bench_command.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "bench/device.hpp"
#include "bench/gpu.hpp"
#include "bench/implementation.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/selection.hpp"
#include "bench/sizes.hpp"
#include "bench/statistics.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "axis_command.hpp"
#include "bench_common.hpp"
#include "counters.hpp"
#include "scale_command.hpp"
#include "segments_command.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

std::string describe_size(bench::dtype t, std::int64_t n) {
  std::string text = std::string(bench::name(t)) + ", n = " + bench::format_size(n);
  if (bench::format_size(n) != std::to_string(n)) text += " = " + std::to_string(n);
  return text + " (" + bench::format_bytes(double(n) * bench::element_bytes(t)) + " per call)";
}

std::string counter_bytes(double value) { return std::isnan(value) ? "-" : bench::format_bytes(value); }

// The counters' columns, shared by the counters table and the size table that carries them.
// New columns go at the end, so the older ones keep their places.
const std::vector<std::string> counter_headers = {"bank confl. ld", "bank confl. st", "branch unif. %", "threads/inst",
                                                  "occupancy %", "DRAM read", "warp insts"};

std::vector<std::string> counter_cells(const bench::step_counters& c) {
  return {bench::format_count(c.bank_conflicts_ld), bench::format_count(c.bank_conflicts_st),
          bench::format_counter_percent(c.branch_uniformity_pct),
          bench::format_counter_percent(c.active_threads_per_inst),  // one decimal, like the percentages
          bench::format_counter_percent(c.achieved_occupancy_pct), counter_bytes(c.dram_bytes_read),
          bench::format_count(c.warp_instructions)};
}

const bench::step_counters* find_counters(const std::optional<counters_run>& counters, const std::string& step) {
  if (!counters) return nullptr;
  for (const bench::step_counters& c : counters->steps)
    if (c.step_name == step) return &c;
  return nullptr;
}

void print_counters_legend(std::ostream& out, const counters_run& c) {
  out << "counters  ncu --clock-control none, one call of each step at " << describe_size(c.type, c.n) << ", finisher "
      << ladder::info(c.finisher).name << ".\n"
      << "          Bank conflicts (shared-memory loads/stores) and DRAM bytes read: summed over the step's kernels.\n"
      << "          Branch uniformity (100% = no divergent branch), threads per instruction (average active threads\n"
      << "          per executed warp instruction, 32 = every lane busy) and achieved occupancy: its main kernel's.\n"
      << "          Warp instructions (one per warp, however few lanes are busy): its main kernel's too.\n";
}

void print_counters_table(std::ostream& out, const counters_run& c) {
  bench::text_table table;
  table.add_column("step", bench::align::left);
  table.add_column("kernel", bench::align::left);
  for (const std::string& h : counter_headers) table.add_column(h);
  for (const bench::step_counters& s : c.steps) {
    std::vector<std::string> cells = {s.step_name, s.kernel};
    for (std::string& cell : counter_cells(s)) cells.push_back(std::move(cell));
    table.add_row(std::move(cells));
  }
  out << "\n";
  print_counters_legend(out, c);
  out << table.render();
}

// The table of one type and size: ladder rows (per finisher), then baselines and production.
// Returns true when it showed the counters.
bool print_size_table(std::ostream& out, const std::vector<measurement>& rows, bench::dtype t, std::int64_t n,
                      int buffers, const bench_options& o, const std::optional<counters_run>& counters) {
  const bool many_finishers = o.finishers.size() > 1;
  const bool with_counters = counters && counters->type == t && counters->n == n;
  const std::string counters_finisher = counters ? std::string(ladder::info(counters->finisher).name) : "";

  // Speedups: along each finisher's ladder; the others compare with the first ladder row.
  std::vector<bench::speedup> speed(rows.size());
  std::optional<double> first_ladder_time;
  for (ladder::finisher f : o.finishers) {
    std::vector<std::size_t> chain;
    std::vector<std::optional<double>> times;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].family == "ladder" && rows[i].finisher == ladder::info(f).name) {
        chain.push_back(i);
        times.push_back(rows[i].ok ? std::optional<double>(rows[i].time_us) : std::nullopt);
      }
    const std::vector<bench::speedup> s = bench::speedups(times);
    for (std::size_t k = 0; k < chain.size(); ++k) {
      speed[chain[k]] = s[k];
      if (!first_ladder_time && times[k]) first_ladder_time = times[k];
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].family != "ladder" && rows[i].ok && first_ladder_time)
      speed[i].cumulative = *first_ladder_time / rows[i].time_us;

  bench::text_table table;
  table.add_column("impl", bench::align::left);
  if (many_finishers) table.add_column("finisher", bench::align::left);
  for (const char* h : {"time µs", "min–max µs", "GB/s", "% of read", "step x", "cumul. x", "launches", "batch"})
    table.add_column(h);
  if (with_counters)
    for (const std::string& h : counter_headers) table.add_column(h);

  std::vector<std::string> failures;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const measurement& m = rows[i];
    std::vector<std::string> cells = {m.impl};
    if (many_finishers) cells.push_back(m.finisher.empty() ? "-" : m.finisher);
    if (m.ok) {
      cells.insert(cells.end(), {bench::format_time_us(m.time_us),
                                 bench::format_time_us(m.time_min_us) + "–" + bench::format_time_us(m.time_max_us),
                                 bench::format_gbps(m.gbps), bench::format_percent(m.percent_of_ceiling()),
                                 bench::format_speedup(speed[i].step), bench::format_speedup(speed[i].cumulative)});
    } else {
      cells.insert(cells.end(), {"FAILED", "-", "-", "-", "-", "-"});
      failures.push_back(m.impl + (m.finisher.empty() ? "" : " (" + m.finisher + ")") + ": " + m.error);
    }
    cells.push_back(m.launches ? std::to_string(*m.launches) : "-");
    cells.push_back(m.batch > 0 ? std::to_string(m.batch) : "-");
    if (with_counters) {
      const bench::step_counters* c =
          m.family == "ladder" && m.finisher == counters_finisher ? find_counters(counters, m.impl) : nullptr;
      const std::vector<std::string> counter_values =
          c ? counter_cells(*c) : std::vector<std::string>(counter_headers.size(), "-");
      cells.insert(cells.end(), counter_values.begin(), counter_values.end());
    }
    table.add_row(std::move(cells));
  }

  out << "\n" << describe_size(t, n) << "; " << buffers << " rotating input buffers ("
      << bench::format_bytes(double(buffers) * double(n) * bench::element_bytes(t)) << " in all)\n";
  const bool any_ladder = std::any_of(rows.begin(), rows.end(), [](const measurement& m) { return m.family == "ladder"; });
  if (any_ladder) {
    std::string finishers;
    for (ladder::finisher f : o.finishers) finishers += (finishers.empty() ? "" : ", ") + std::string(ladder::info(f).name);
    out << "ladder    block size " << o.block_size << ", finisher " << finishers;
    if (!many_finishers) out << " (" << ladder::info(o.finishers.front()).summary << ")";
    out << "\n";
  }
  if (with_counters) print_counters_legend(out, *counters);
  out << table.render();
  for (const std::string& f : failures) out << "FAILED " << f << "\n";
  return with_counters;
}

// The sweep's summary of one type: GB/s per implementation (rows) and size (columns).
void print_sweep_table(std::ostream& out, const std::vector<measurement>& rows, bench::dtype t,
                       const std::vector<std::int64_t>& sizes, double ceiling_gbps, bool many_finishers) {
  std::vector<std::string> keys;
  std::map<std::string, std::map<std::int64_t, const measurement*>> cells;
  for (const measurement& m : rows) {
    if (m.family == "ceiling") continue;  // the per-size launch floor has no GB/s
    const std::string key = m.impl + (many_finishers && !m.finisher.empty() ? " (" + m.finisher + ")" : "");
    if (!cells.count(key)) keys.push_back(key);
    cells[key][m.n] = &m;
  }
  bench::text_table table;
  table.add_column("impl", bench::align::left);
  for (std::int64_t n : sizes) table.add_column(bench::format_size(n));
  std::vector<std::string> failures;
  for (const std::string& key : keys) {
    std::vector<std::string> line = {key};
    for (std::int64_t n : sizes) {
      const auto found = cells[key].find(n);
      if (found == cells[key].end()) line.push_back("-");
      else if (!found->second->ok) {
        line.push_back("FAILED");
        failures.push_back(key + " n=" + bench::format_size(n) + ": " + found->second->error);
      } else line.push_back(bench::format_gbps(found->second->gbps));
    }
    table.add_row(std::move(line));
  }
  out << "\nsweep " << bench::name(t) << ": GB/s per call (back to back; read ceiling "
      << bench::format_gbps(ceiling_gbps) << " GB/s; '-' = not run)\n";
  out << table.render();
  for (const std::string& f : failures) out << "FAILED " << f << "\n";
}

// "3-sequential", or "3-sequential (host)" when several finishers are measured.
std::string impl_label(const bench::impl_entry& e, const bench_options& o) {
  return e.name + (o.finishers.size() > 1 && !e.finisher.empty() ? " (" + e.finisher + ")" : "");
}

// Measures every implementation of one (type, size) point on one pool, one row each, with
// their trials interleaved (see measure_interleaved).
std::vector<measurement> measure_point(const std::vector<const bench::impl_entry*>& entries, bench::dtype t,
                                       bench::input_pool& pool, const bench::timing_options& timing,
                                       cudaStream_t stream, const bench_options& o, const std::string& device_name,
                                       double ceiling_gbps, progress& bar) {
  // The fields every row of this point shares.
  auto row_of = [&](const std::string& impl, const std::string& family) {
    measurement m = pending_row(impl, family, pool, timing, device_name, ceiling_gbps);
    m.bytes = pool.buffer_bytes();
    return m;
  };
  std::vector<contender> all;
  for (const bench::impl_entry* e : entries) {
    contender c;
    c.row = row_of(e->name, e->family);
    c.row.finisher = e->finisher;
    c.row.block_size = e->family == "ladder" ? o.block_size : 0;
    c.label = impl_label(*e, o);
    c.open = [e, t, &pool, &timing, stream] {
      std::unique_ptr<bench::implementation> impl = e->make(t);
      auto session = std::make_unique<bench::timing_session>(*impl, pool, timing, stream);
      return contender::opened{std::move(impl), std::move(session)};
    };
    all.push_back(std::move(c));
  }
  if (o.sweep) {
    // The sweep also times the plain empty launch at every point, in the same interleaved
    // trials, so that each size's time can be set against a floor measured right beside it
    // (on a virtual machine the host's speed drifts over a run). Last in the returned rows.
    contender floor;
    floor.row = row_of("launch_floor", "ceiling");
    floor.row.bytes = 0;    // it reads nothing: no GB/s
    floor.row.buffers = 0;  // and rotates over none
    floor.row.note = "empty kernel, back to back, timed in the same interleaved trials as this size's implementations";
    floor.label = "launch_floor";
    floor.open = [&pool, &timing, stream] {
      std::unique_ptr<bench::timed_reduction> impl = bench::make_empty_launch();
      // There is no answer to check: the kernel computes nothing.
      auto no_answer = [](int) { return bench::check_outcome{true, "no answer (an empty kernel)"}; };
      auto session = std::make_unique<bench::timing_session>(*impl, pool, no_answer, timing, stream);
      return contender::opened{std::move(impl), std::move(session)};
    };
    all.push_back(std::move(floor));
  }
  const std::string point = std::string(bench::name(t)) + " n=" + bench::format_size(pool.n()) + ": ";
  return measure_interleaved(all, timing.trials, point, bar);
}

// Device memory one (type, size) point needs: the rotating pool, and the scratch of all its
// implementations at once (their trials are interleaved, so all stay prepared): step 0's copy
// of the input, every ladder entry's partials (one per block; doubled, for the relaunch
// finisher's smaller spare), and a margin for CUB's temp storage, Thrust's per-call
// allocation, the production API's scratch and allocation rounding.
std::int64_t memory_needed(bench::dtype t, std::int64_t n, std::int64_t l2_bytes,
                           const std::vector<const bench::impl_entry*>& entries, int block_size) {
  const std::int64_t bytes = n * bench::element_bytes(t);
  std::int64_t scratch = 0;
  for (const bench::impl_entry* e : entries) {
    if (e->family != "ladder") continue;
    if (e->name == ladder::steps[0].name) scratch += bytes;
    scratch += 2 * (bytes / block_size);
  }
  return bench::input_pool::bytes_needed(t, n, l2_bytes) + scratch + (std::int64_t(512) << 20);
}

}  // namespace

int run_bench(const bench_options& o) {
  if (o.axis) return run_axis_bench(o);
  if (o.segments) return run_segments_bench(o);
  if (o.host) return run_host_bench(o);
  if (o.distributed) return run_distributed_bench(o);
  // The device first: without a GPU this throws and main prints a single line. (No context
  // yet: the ncu child below gets the GPU to itself.)
  bench::require_device(o.device);

  const std::vector<bench::impl_entry> registry = bench::make_registry({o.finishers, o.block_size});
  std::vector<bench::impl_name> catalogue;
  for (const auto& s : ladder::steps) catalogue.push_back({std::string(s.name), "ladder"});
  for (const auto& e : registry)
    if (e.family != "ladder") catalogue.push_back({e.name, e.family});
  const std::vector<std::string> chosen = bench::select_impls(o.impls, catalogue);
  auto is_chosen = [&](const std::string& name) { return std::find(chosen.begin(), chosen.end(), name) != chosen.end(); };
  for (const auto& s : ladder::steps)
    if (is_chosen(std::string(s.name)) && !ladder::supports_block_size(s.id, o.block_size))
      std::cerr << "note: " << s.name << " is not built for block size " << o.block_size << "; skipped\n";
  std::vector<const bench::impl_entry*> entries;
  for (const auto& e : registry)
    if (is_chosen(e.name)) entries.push_back(&e);

  std::optional<counters_run> counters;
  if (o.counters) counters = collect_counters(o, std::cerr);
  const bench::device_description device = bench::open_device(o.device);

  const bench::timing_options timing = timing_of(o);
  bench::run_record record = new_record(device, timing, o.block_size);
  if (counters) {
    record.counters = counters->steps;
    record.counters_dtype = std::string(bench::name(counters->type));
    record.counters_n = counters->n;
  }

  int total = 0;
  for (bench::dtype t : o.dtypes)
    for (const auto* e : entries) total += e->supports(t) ? static_cast<int>(o.sizes.size()) : 0;
  progress bar(!o.quiet, total);

  owned_stream stream;
  const ceilings c = begin_run(o, device, timing, stream, bar, record);
  std::cout << std::flush;

  // Whatever was measured is written out, also when a later measurement throws.
  auto write_outputs = [&] {
    if (!o.csv_path.empty()) bench::write_csv_file(o.csv_path, record.measurements);
    if (!o.json_path.empty()) bench::write_json_file(o.json_path, record);
    if (!o.counters_csv_path.empty()) {
      if (counters) bench::write_counters_csv_file(o.counters_csv_path, counters->steps);
      else std::cerr << "warpfold bench: no counters were collected; " << o.counters_csv_path << " not written\n";
    }
  };

  bool any_failed = false;
  bool counters_shown = false;
  try {
    for (bench::dtype t : o.dtypes) {
      std::vector<const bench::impl_entry*> for_type;
      for (const auto* e : entries)
        if (e->supports(t)) for_type.push_back(e);
      if (for_type.empty()) {
        bar.note("note: no selected implementation supports " + std::string(bench::name(t)) + "; skipped");
        continue;
      }
      std::vector<measurement> type_rows;
      std::vector<std::int64_t> sizes_run;
      for (std::int64_t n : o.sizes) {
        const std::int64_t needed = memory_needed(t, n, device.l2_bytes, for_type, o.block_size);
        const std::int64_t free_bytes = bench::free_device_memory();
        if (needed > free_bytes) {
          bar.note("note: skipping " + std::string(bench::name(t)) + " n=" + bench::format_size(n) + ": needs about " +
                   bench::format_bytes(double(needed)) + " of device memory, " + bench::format_bytes(double(free_bytes)) +
                   " free");
          bar.skip(static_cast<int>(for_type.size()));
          continue;
        }
        const std::uint64_t seed = (static_cast<std::uint64_t>(t) + 1) * 0x100000001b3ull + static_cast<std::uint64_t>(n);
        bench::input_pool pool(t, n, device.l2_bytes, seed, stream, o.data);
        std::vector<measurement> rows = measure_point(for_type, t, pool, timing, stream, o, device.name, c.read.gbps, bar);
        if (t != bench::dtype::i32)
          for (measurement& m : rows)
            if (!m.dtype.empty()) m.data = std::string(bench::name(o.data));
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const measurement& m = rows[i];
          if (i < for_type.size())  // (a sweep's last row is its launch floor: no progress line)
            bar.result(std::string(bench::name(t)) + " n=" + bench::format_size(n) + " " + impl_label(*for_type[i], o), m);
          any_failed = any_failed || !m.ok;
          record.measurements.push_back(m);
        }
        bar.clear();
        if (!o.sweep) counters_shown = print_size_table(std::cout, rows, t, n, pool.buffers(), o, counters) || counters_shown;
        std::cout << std::flush;
        sizes_run.push_back(n);
        type_rows.insert(type_rows.end(), rows.begin(), rows.end());
      }
      if (o.sweep && !sizes_run.empty())
        print_sweep_table(std::cout, type_rows, t, sizes_run, c.read.gbps, o.finishers.size() > 1);
    }
  } catch (...) {
    bar.clear();
    write_outputs();
    throw;
  }
  bar.clear();
  if (counters && !counters_shown) print_counters_table(std::cout, *counters);
  write_outputs();
  return exit_code_after(any_failed);
}

void print_list(std::ostream& out) {
  bench::text_table steps;
  steps.add_column("step", bench::align::left);
  steps.add_column("what it changes", bench::align::left);
  steps.add_column("block sizes", bench::align::left);
  for (const auto& s : ladder::steps) {
    const std::vector<int> sizes = ladder::supported_block_sizes(s.id);
    steps.add_row({std::string(s.name), std::string(s.summary),
                   sizes.size() > 3 ? std::to_string(sizes.front()) + "-" + std::to_string(sizes.back())
                                    : std::to_string(sizes[0]) + ", " + std::to_string(sizes[1]) + ", " +
                                          std::to_string(sizes[2])});
  }
  out << "Ladder steps (--impl NAME or its number; types i32, f32, f64; sums in the element type):\n"
      << steps.render();

  bench::text_table finishers;
  finishers.add_column("finisher", bench::align::left);
  finishers.add_column("how the per-block partials are combined", bench::align::left);
  for (const auto& f : ladder::finishers)
    finishers.add_row({std::string(f.name) + (f.id == ladder::finisher::last_block ? " (default)" : ""),
                       std::string(f.summary)});
  out << "\nFinishers (--finisher NAME, a list, or all):\n" << finishers.render();

  bench::text_table others;
  others.add_column("impl", bench::align::left);
  others.add_column("types", bench::align::left);
  others.add_column("what it is", bench::align::left);
  bool production = false;
  for (const auto& e : bench::make_registry()) {
    if (e.family == "ladder") continue;
    production = production || e.family == "production";
    std::string types;
    for (bench::dtype t : e.dtypes) types += (types.empty() ? "" : ",") + std::string(bench::name(t));
    others.add_row({e.name, types, e.summary});
  }
  if (!production)
    others.add_row({"warpfold", "-", "the production API: not built into this binary (configured with -DWARPFOLD_BENCH_PRODUCTION=OFF)"});
  out << "\nBaselines and production (--impl NAME):\n" << others.render();

  out << "\nCeilings, measured in every bench run:\n"
         "  read_ceiling  read-only streaming kernel, 16-byte loads, 2 GiB, one launch (GB/s = bytes read / time)\n"
         "  copy_ceiling  device-to-device cudaMemcpyAsync (GB/s = bytes read + bytes written / time)\n"
         "  launch_floor  an empty kernel launched back to back (µs per launch); a sweep also times it at\n"
         "                every type and size, in the same interleaved trials as the implementations\n"
         "  launch_floor_dependent  the same, as programmatic dependent launches (warpfold's own launch mode)\n"
         "\nTypes (--dtype): i32, f32, f64, f16, bf16\n";
  print_axis_list(out);
  print_segments_list(out);
}

}  // namespace warpfold::cli
