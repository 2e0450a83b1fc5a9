#include "axis_command.hpp"

#include <cuda_runtime_api.h>

#include <iostream>
#include <string>
#include <vector>

#include "bench/axis_cases.hpp"
#include "bench/axis_check.hpp"
#include "bench/axis_implementation.hpp"
#include "bench/device.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/sizes.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "bench_common.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

// The axis bench sums float into float (the production API's accumulator for float, and CUB's).
constexpr bench::dtype axis_dtype = bench::dtype::f32;
constexpr int float_bytes = 4;

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
                     const case_context& at) {
  measurement m = pending_row(e.name, e.family, pool, at.timing, at.device.name, at.ceiling.read.gbps);
  m.shape = bench::format_shape(c.shape);
  m.dims = std::to_string(c.dim);
  m.bytes_in = c.bytes_in(float_bytes);
  m.bytes_out = c.bytes_out(float_bytes);
  m.bytes = m.bytes_in + m.bytes_out;
  return m;
}

// Measures one case: every chosen implementation that supports it, trials interleaved.
std::vector<measurement> measure_case(const bench::axis_case& c,
                                      const std::vector<const bench::axis_impl_entry*>& entries,
                                      const case_context& at) {
  // The full reductions' rotation (input_pool): at least two buffers, together >= 4x L2. The
  // standard inputs (256 MiB) are near 4x L2 on their own, and a single buffer reread by every
  // call could keep some of its lines in L2 from one call to the next.
  bench::input_pool pool(axis_dtype, c.shape.elements(), at.device.l2_bytes, seed_of(c.shape), at.stream);
  bench::axis_references references(pool, c);
  std::vector<contender> all;
  for (const bench::axis_impl_entry* e : entries) {
    contender one;
    one.row = axis_row(*e, c, pool, at);
    one.label = e->name;
    one.open = [e, c, &pool, &references, &at] {
      auto check = [&references](int buffer, const std::vector<double>& got) { return references.check(buffer, got); };
      return open_checking_outputs(e->make(c), check, pool, at);
    };
    all.push_back(std::move(one));
  }
  return measure_interleaved(all, at.timing.trials, bench::describe(c) + ": ", at.bar);
}

void print_axis_legend(std::ostream& out) {
  out << "axis      f32 sums along one dim of a row-major ROWSxCOLS array, into a device output.\n"
      << "          GB/s = (bytes read + bytes written) / time. Every output is checked against a host\n"
      << "          reference in double, within a float tolerance growing with the reduced length.\n";
}

bool same_axis_case(const measurement& a, const measurement& b) { return a.shape == b.shape && a.dims == b.dims; }

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
    const std::vector<std::string> result = result_cells(m);
    cells.insert(cells.end(), result.begin(), result.end());
    if (!m.ok) failures.push_back(m.impl + " " + m.shape + " dim " + m.dims + ": " + m.error);
    cells.push_back(bench::format_speedup(speedup_over_cub(m, rows, same_axis_case)));
    cells.push_back(m.launches ? std::to_string(*m.launches) : "-");
    cells.push_back(m.batch > 0 ? std::to_string(m.batch) : "-");
    table.add_row(std::move(cells));
  }
  out << "\n" << table.render();
  for (const std::string& f : failures) out << "FAILED " << f << "\n";
}

}  // namespace

int run_axis_bench(const bench_options& o) {
  if (o.random_cases > 0) return run_axis_random_bench(o);
  bench::require_device(o.device);
  const std::vector<bench::axis_impl_entry> registry = bench::make_axis_registry();
  const std::vector<const bench::axis_impl_entry*> entries = chosen_entries(registry, o.impls);
  const std::vector<bench::axis_case> cases = bench::axis_cases(o.shapes, o.dims);

  case_bench axis;
  for (const bench::axis_case& c : cases) axis.measurements += static_cast<int>(entries_for(entries, c).size());
  axis.print_legend = print_axis_legend;
  axis.measure = [&](const case_context& at, const keep_rows& keep) {
    for (const bench::axis_case& c : cases) {
      const std::vector<const bench::axis_impl_entry*> for_case = entries_for(entries, c);
      if (for_case.empty()) continue;
      const std::int64_t needed = memory_needed(c, at.device.l2_bytes, for_case.size());
      if (!fits_in_device_memory(bench::describe(c), needed, static_cast<int>(for_case.size()), at.bar)) continue;
      keep(bench::describe(c), measure_case(c, for_case, at));
    }
  };
  axis.print_results = [](std::ostream& out, const std::vector<measurement>& rows, const ceilings&) {
    print_axis_table(out, rows);
    print_lowest_shares(out, rows, [](const measurement& m) { return m.shape + " dim " + m.dims; });
  };
  axis.write_csv_file = bench::write_axis_csv_file;
  return run_case_bench(o, axis);
}

void print_axis_list(std::ostream& out) {
  const std::string impls = implementations_table(
      bench::make_axis_registry(), {"dims", "what it is"},
      [](const bench::axis_impl_entry& e) { return std::vector<std::string>{e.rows_only ? "1" : "0, 1", e.summary}; },
      {"-", "the axis API: not built into this binary (configured with -DWARPFOLD_BENCH_PRODUCTION=OFF)"});
  out << "\nAxis reductions (warpfold bench --axis; f32 sums; --impl NAME; the sum-modes rows only when named):\n" << impls;

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
