#include "axis_command.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/axis_cases.hpp"
#include "bench/axis_check.hpp"
#include "bench/axis_implementation.hpp"
#include "bench/device.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/selection.hpp"
#include "bench/sizes.hpp"
#include "bench/statistics.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "bench_common.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

// The axis bench sums float into float (the production API's accumulator for float, and CUB's).
constexpr bench::dtype axis_dtype = bench::dtype::f32;
constexpr int float_bytes = 4;

// The implementations chosen by --impl, in registry order.
std::vector<const bench::axis_impl_entry*> chosen_entries(const std::vector<bench::axis_impl_entry>& registry,
                                                          const std::vector<std::string>& filters) {
  std::vector<bench::impl_name> catalogue;
  for (const auto& e : registry) catalogue.push_back({e.name, e.family});
  const std::vector<std::string> chosen = bench::select_impls(filters, catalogue);
  std::vector<const bench::axis_impl_entry*> entries;
  for (const auto& e : registry)
    if (std::find(chosen.begin(), chosen.end(), e.name) != chosen.end()) entries.push_back(&e);
  return entries;
}

std::vector<const bench::axis_impl_entry*> entries_for(const std::vector<const bench::axis_impl_entry*>& entries,
                                                       const bench::axis_case& c) {
  std::vector<const bench::axis_impl_entry*> out;
  for (const auto* e : entries)
    if (e->supports(c)) out.push_back(e);
  return out;
}

// Device memory one case needs: its rotating input buffers, every implementation's output,
// and a margin for CUB's temp storage, the production API's scratch and allocation rounding.
std::int64_t memory_needed(const bench::axis_case& c, std::int64_t l2_bytes, std::size_t implementations) {
  return bench::input_pool::bytes_needed(axis_dtype, c.shape.elements(), l2_bytes) +
         static_cast<std::int64_t>(implementations) * c.bytes_out(float_bytes) + (std::int64_t(512) << 20);
}

// Different data for every shape (both dims of a shape see the same data).
std::uint64_t seed_of(const bench::matrix_shape& s) {
  return 0x5eed0a11u ^ (static_cast<std::uint64_t>(s.rows) * 0x100000001b3ull + static_cast<std::uint64_t>(s.cols));
}

measurement axis_row(const bench::axis_impl_entry& e, const bench::axis_case& c, const bench::input_pool& pool,
                     const bench::timing_options& timing, const std::string& device_name, double ceiling_gbps) {
  measurement m;
  m.impl = e.name;
  m.family = e.family;
  m.dtype = std::string(bench::name(axis_dtype));
  m.n = c.shape.elements();
  m.shape = bench::format_shape(c.shape);
  m.dims = std::to_string(c.dim);
  m.bytes_in = c.bytes_in(float_bytes);
  m.bytes_out = c.bytes_out(float_bytes);
  m.bytes = m.bytes_in + m.bytes_out;
  m.ceiling_gbps = ceiling_gbps;
  m.trials = timing.trials;
  m.buffers = pool.buffers();
  m.device = device_name;
  return m;
}

// The implementation and a session that checks every output against the case's references.
contender::opened open_axis(const bench::axis_impl_entry& e, const bench::axis_case& c, bench::input_pool& pool,
                            bench::axis_references& references, const bench::timing_options& timing,
                            cudaStream_t stream) {
  std::unique_ptr<bench::axis_implementation> impl = e.make(c);
  bench::axis_implementation& answers = *impl;
  auto check = [&answers, &references, stream](int buffer) {
    return references.check(buffer, answers.fetch_outputs(stream));
  };
  auto session = std::make_unique<bench::timing_session>(*impl, pool, check, timing, stream);
  return {std::move(impl), std::move(session)};
}

// Measures one case: every chosen implementation that supports it, trials interleaved.
std::vector<measurement> measure_case(const bench::axis_case& c,
                                      const std::vector<const bench::axis_impl_entry*>& entries,
                                      const bench::device_description& device, const bench::timing_options& timing,
                                      double ceiling_gbps, cudaStream_t stream, progress& bar) {
  // The full reductions' rotation (input_pool): at least two buffers, together >= 4x L2. The
  // standard inputs (256 MiB) are near 4x L2 on their own, and a single buffer reread by every
  // call could keep some of its lines in L2 from one call to the next.
  bench::input_pool pool(axis_dtype, c.shape.elements(), device.l2_bytes, seed_of(c.shape), stream);
  bench::axis_references references(pool, c);
  std::vector<contender> all;
  for (const bench::axis_impl_entry* e : entries) {
    contender one;
    one.row = axis_row(*e, c, pool, timing, device.name, ceiling_gbps);
    one.label = e->name;
    one.open = [e, c, &pool, &references, &timing, stream] {
      return open_axis(*e, c, pool, references, timing, stream);
    };
    all.push_back(std::move(one));
  }
  return measure_interleaved(all, timing.trials, bench::describe(c) + ": ", bar);
}

void print_axis_legend(std::ostream& out) {
  out << "axis      f32 sums along one dim of a row-major ROWSxCOLS array, into a device output.\n"
      << "          GB/s = (bytes read + bytes written) / time. Every output is checked against a host\n"
      << "          reference in double, within a float tolerance growing with the reduced length.\n";
}

// "x cub": CUB's time over this row's, for cases that have a CUB row.
std::string versus_cub(const measurement& m, const std::vector<measurement>& rows) {
  if (!m.ok) return "-";
  for (const measurement& other : rows)
    if (other.impl == "cub" && other.ok && other.shape == m.shape && other.dims == m.dims)
      return bench::format_speedup(other.time_us / m.time_us);
  return "-";
}

void print_axis_table(std::ostream& out, const std::vector<measurement>& rows) {
  bench::text_table table;
  table.add_column("shape", bench::align::left);
  table.add_column("dim");
  table.add_column("impl", bench::align::left);
  for (const char* h : {"outputs", "reduced", "time µs", "min–max µs", "GB/s", "% of read", "x cub", "launches", "batch"})
    table.add_column(h);
  std::vector<std::string> failures;
  for (const measurement& m : rows) {
    const std::int64_t outputs = m.bytes_out / float_bytes;
    std::vector<std::string> cells = {m.shape, m.dims, m.impl, std::to_string(outputs),
                                      std::to_string(outputs > 0 ? m.n / outputs : 0)};
    if (m.ok) {
      cells.insert(cells.end(), {bench::format_time_us(m.time_us),
                                 bench::format_time_us(m.time_min_us) + "–" + bench::format_time_us(m.time_max_us),
                                 bench::format_gbps(m.gbps), bench::format_percent(m.percent_of_ceiling())});
    } else {
      cells.insert(cells.end(), {"FAILED", "-", "-", "-"});
      failures.push_back(m.impl + " " + m.shape + " dim " + m.dims + ": " + m.error);
    }
    cells.push_back(versus_cub(m, rows));
    cells.push_back(m.launches ? std::to_string(*m.launches) : "-");
    cells.push_back(m.batch > 0 ? std::to_string(m.batch) : "-");
    table.add_row(std::move(cells));
  }
  out << "\n" << table.render();
  for (const std::string& f : failures) out << "FAILED " << f << "\n";
}

// The lowest share of the read ceiling each implementation reached, and where.
void print_lowest_shares(std::ostream& out, const std::vector<measurement>& rows) {
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
        << m.shape << " dim " << m.dims << ")\n";
  }
}

}  // namespace

int run_axis_bench(const bench_options& o) {
  if (o.random_cases > 0) return run_axis_random_bench(o);
  bench::require_device(o.device);
  const std::vector<bench::axis_impl_entry> registry = bench::make_axis_registry();
  const std::vector<const bench::axis_impl_entry*> entries = chosen_entries(registry, o.impls);
  const std::vector<bench::axis_case> cases = bench::axis_cases(o.shapes, o.dims);
  const bench::device_description device = bench::open_device(o.device);

  const bench::timing_options timing = timing_of(o);
  bench::run_record record = new_record(device, timing);

  int total = 0;
  for (const bench::axis_case& c : cases) total += static_cast<int>(entries_for(entries, c).size());
  progress bar(!o.quiet, total);

  owned_stream stream;
  const ceilings ceiling = begin_run(o, device, timing, stream, bar, record);
  print_axis_legend(std::cout);
  std::cout << std::flush;

  // Whatever was measured is written out, also when a later measurement throws.
  auto write_outputs = [&] {
    if (!o.csv_path.empty()) bench::write_axis_csv_file(o.csv_path, record.measurements);
    if (!o.json_path.empty()) bench::write_json_file(o.json_path, record);
  };

  std::vector<measurement> case_rows;
  bool any_failed = false;
  try {
    for (const bench::axis_case& c : cases) {
      const std::vector<const bench::axis_impl_entry*> for_case = entries_for(entries, c);
      if (for_case.empty()) continue;
      const std::int64_t needed = memory_needed(c, device.l2_bytes, for_case.size());
      const std::int64_t free_bytes = bench::free_device_memory();
      if (needed > free_bytes) {
        bar.note("note: skipping " + bench::describe(c) + ": needs about " + bench::format_bytes(double(needed)) +
                 " of device memory, " + bench::format_bytes(double(free_bytes)) + " free");
        bar.skip(static_cast<int>(for_case.size()));
        continue;
      }
      for (const measurement& m : measure_case(c, for_case, device, timing, ceiling.read.gbps, stream, bar)) {
        bar.result(bench::describe(c) + " " + m.impl, m);
        any_failed = any_failed || !m.ok;
        record.measurements.push_back(m);
        case_rows.push_back(m);
      }
    }
  } catch (...) {
    bar.clear();
    write_outputs();
    throw;
  }
  bar.clear();
  print_axis_table(std::cout, case_rows);
  print_lowest_shares(std::cout, case_rows);
  write_outputs();
  return exit_code_after(any_failed);
}

void print_axis_list(std::ostream& out) {
  bench::text_table impls;
  impls.add_column("impl", bench::align::left);
  impls.add_column("dims", bench::align::left);
  impls.add_column("what it is", bench::align::left);
  bool production = false;
  for (const auto& e : bench::make_axis_registry()) {
    production = production || e.family == "production";
    impls.add_row({e.name, e.rows_only ? "1" : "0, 1", e.summary});
  }
  if (!production)
    impls.add_row({"warpfold", "-", "the axis API: not built into this binary (configured with -DWARPFOLD_BENCH_PRODUCTION=OFF)"});
  out << "\nAxis reductions (warpfold bench --axis; f32 sums; --impl NAME):\n" << impls.render();

  std::string shapes;
  for (const bench::matrix_shape& s : bench::issue_axis_shapes())
    shapes += (shapes.empty() ? "" : ", ") + bench::format_shape(s);
  const std::int64_t elements = bench::issue_axis_shapes().front().elements();
  out << "  cases: " << bench::issue_axis_shapes().size() * bench::default_axis_dims().size()
      << " by default (--shape, --dims pick others): every shape reduced along dim 1 (row sums), then dim 0\n"
      << "  (column sums); " << bench::format_size(elements) << " floats ("
      << bench::format_bytes(double(elements) * float_bytes) << ") each: " << shapes << "\n";
}

}  // namespace warpfold::cli
