#include "segments_command.hpp"

#include <cuda_runtime_api.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/buffer_references.hpp"
#include "bench/device.hpp"
#include "bench/output.hpp"
#include "bench/pool.hpp"
#include "bench/segment_cases.hpp"
#include "bench/segment_implementation.hpp"
#include "bench/segment_reference.hpp"
#include "bench/sizes.hpp"
#include "bench/table.hpp"
#include "bench_common.hpp"
#include "warpfold/detail/buffer.hpp"
#include "warpfold/error.hpp"

namespace warpfold::cli {
namespace {

using bench::measurement;

// The segment bench sums float into float (the production API's accumulator for float, and CUB's).
constexpr bench::dtype segment_dtype = bench::dtype::f32;

// A case's offsets, uploaded once to device memory and read there by every implementation.
class uploaded_segments {
 public:
  uploaded_segments(const bench::segment_offsets& offsets, cudaStream_t stream) : count_(offsets.count()) {
    const std::size_t count = static_cast<std::size_t>(count_ > 0 ? count_ : 1);
    begin_.reserve(count);
    end_.reserve(count);
    const std::size_t bytes = offsets.begin.size() * sizeof(std::int64_t);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(begin_.get(), offsets.begin.data(), bytes, cudaMemcpyHostToDevice, stream));
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(end_.get(), offsets.end.data(), bytes, cudaMemcpyHostToDevice, stream));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  bench::device_segments view() const { return {begin_.get(), end_.get(), count_}; }

 private:
  std::int64_t count_;
  warpfold::detail::device_buffer<std::int64_t> begin_;
  warpfold::detail::device_buffer<std::int64_t> end_;
};

// Device memory one case needs: its rotating input buffers, both offset arrays, every
// implementation's output, and a margin for CUB's temp storage and allocation rounding.
std::int64_t memory_needed(const bench::segment_case& c, std::int64_t segments, std::int64_t l2_bytes,
                           std::size_t implementations) {
  const std::int64_t offsets = 2 * static_cast<std::int64_t>(sizeof(std::int64_t)) * segments;
  return bench::input_pool::bytes_needed(segment_dtype, c.n, l2_bytes) + offsets +
         static_cast<std::int64_t>(implementations) * bench::traffic_of(c.n, segments).bytes_out +
         (std::int64_t(512) << 20);
}

measurement segment_row(const bench::segment_impl_entry& e, const bench::segment_case& c, std::int64_t segments,
                        const bench::input_pool& pool, const case_context& at) {
  measurement m = pending_row(e.name, e.family, pool, at.timing, at.device.name, at.ceiling.read.gbps);
  const bench::segment_traffic traffic = bench::traffic_of(c.n, segments);
  m.case_id = c.name;
  m.segments = segments;
  m.bytes_in = traffic.bytes_in;
  m.bytes_out = traffic.bytes_out;
  m.bytes = traffic.bytes();
  return m;
}

// Measures one case: every chosen implementation on the same inputs and the same offset
// arrays, trials interleaved.
std::vector<measurement> measure_case(const bench::segment_case& c, const bench::segment_offsets& offsets,
                                      const std::vector<const bench::segment_impl_entry*>& entries,
                                      const case_context& at) {
  // The full reductions' rotation (input_pool): at least two buffers, together >= 4x L2, so
  // every call reads its elements cold. The offsets are one pair of arrays: as large as the
  // elements' buffers for the shortest segments, and a few KiB, which L2 may keep, for the
  // longest, where they are a negligible share of the bytes.
  bench::input_pool pool(segment_dtype, c.n, at.device.l2_bytes, c.seed, at.stream);
  const uploaded_segments on_device(offsets, at.stream);
  bench::buffer_references<bench::segment_reference> references(pool, [&offsets](const void* host_copy) {
    return bench::compute_segment_reference(static_cast<const float*>(host_copy), offsets);
  });
  std::vector<contender> all;
  for (const bench::segment_impl_entry* e : entries) {
    contender one;
    one.row = segment_row(*e, c, offsets.count(), pool, at);
    one.label = e->name;
    one.open = [e, &on_device, &pool, &references, &at] {
      auto check = [&references](int buffer, const std::vector<double>& got) {
        return bench::check_segment_outputs(references.of(buffer), got);
      };
      return open_checking_outputs(e->make(on_device.view()), check, pool, at);
    };
    all.push_back(std::move(one));
  }
  return measure_interleaved(all, at.timing.trials, bench::describe(c) + ": ", at.bar);
}

void print_segments_legend(std::ostream& out, std::int64_t n, std::uint64_t seed) {
  out << "segments  f32 sums of segments laid back to back over " << bench::format_size(n)
      << " elements (lengths from seed " << seed << "), one output\n"
      << "          per segment, the offsets in two int64 arrays (begin, end) that every implementation reads.\n"
      << "          GB/s = (elements + both offset arrays + outputs) / time. Every output is checked against a\n"
      << "          host reference in double, within a float tolerance growing with the segment's length.\n";
}

bool same_segment_case(const measurement& a, const measurement& b) { return a.case_id == b.case_id; }

// "yes" where a warpfold row is faster than CUB's row of its case, "no" where it is not.
std::string beats_cub(const measurement& m, const std::vector<measurement>& rows) {
  if (m.impl != "warpfold") return "";
  const std::optional<double> x = speedup_over_cub(m, rows, same_segment_case);
  return x ? (*x > 1.0 ? "yes" : "no") : "-";
}

void print_segments_table(std::ostream& out, const std::vector<measurement>& rows) {
  bench::text_table table;
  table.add_column("case", bench::align::left);
  table.add_column("impl", bench::align::left);
  for (const char* h : {"segments", "n", "time µs", "min–max µs", "GB/s", "% of read", "x cub", "beats cub",
                        "launches", "batch"})
    table.add_column(h);
  for (const measurement& m : rows) {
    std::vector<std::string> cells = {m.case_id, m.impl, std::to_string(m.segments), std::to_string(m.n)};
    const std::vector<std::string> result = result_cells(m);
    cells.insert(cells.end(), result.begin(), result.end());
    cells.push_back(bench::format_speedup(speedup_over_cub(m, rows, same_segment_case)));
    cells.push_back(beats_cub(m, rows));
    cells.push_back(m.launches ? std::to_string(*m.launches) : "-");
    cells.push_back(m.batch > 0 ? std::to_string(m.batch) : "-");
    table.add_row(std::move(cells));
  }
  out << "\n" << table.render();
  for (const measurement& m : rows)
    if (!m.ok) out << "FAILED " << m.impl << " " << m.case_id << ": " << m.error << "\n";
}

// Whether warpfold beat CUB in every case, and where it did not.
void print_versus_cub(std::ostream& out, const std::vector<measurement>& rows) {
  int compared = 0, faster = 0;
  std::string slower;
  for (const measurement& m : rows) {
    if (m.impl != "warpfold") continue;
    const std::optional<double> x = speedup_over_cub(m, rows, same_segment_case);
    if (!x) continue;
    ++compared;
    if (*x > 1.0) ++faster;
    else slower += (slower.empty() ? "" : ", ") + m.case_id + " " + bench::format_speedup(x);
  }
  if (compared == 0) return;
  out << "vs cub    warpfold faster than cub in " << faster << " of " << compared << " cases"
      << (slower.empty() ? "" : "; not in " + slower) << "\n";
}

}  // namespace

int run_segments_bench(const bench_options& o) {
  bench::require_device(o.device);
  const std::vector<bench::segment_impl_entry> registry = bench::make_segment_registry();
  const std::vector<const bench::segment_impl_entry*> entries = chosen_entries(registry, o.impls);
  const std::int64_t n = o.sizes.front();
  const std::vector<bench::segment_case> cases = bench::segment_cases(n, o.seed);
  const int per_case = static_cast<int>(entries.size());

  case_bench segments;
  segments.measurements = static_cast<int>(cases.size()) * per_case;
  segments.print_legend = [&](std::ostream& out) { print_segments_legend(out, n, o.seed); };
  segments.measure = [&](const case_context& at, const keep_rows& keep) {
    for (const bench::segment_case& c : cases) {
      // Laid out one case at a time: the shortest segments' offsets take 1 GiB at the default n.
      const bench::segment_offsets offsets = bench::lay_out_segments(c);
      const std::int64_t needed = memory_needed(c, offsets.count(), at.device.l2_bytes, entries.size());
      if (!fits_in_device_memory(bench::describe(c), needed, per_case, at.bar)) continue;
      keep(bench::describe(c), measure_case(c, offsets, entries, at));
    }
  };
  segments.print_results = [](std::ostream& out, const std::vector<measurement>& rows, const ceilings&) {
    print_segments_table(out, rows);
    print_lowest_shares(out, rows, [](const measurement& m) { return m.case_id; });
    print_versus_cub(out, rows);
  };
  segments.write_csv_file = bench::write_segment_csv_file;
  return run_case_bench(o, segments);
}

void print_segments_list(std::ostream& out) {
  const std::string impls = implementations_table(
      bench::make_segment_registry(), {"what it is"},
      [](const bench::segment_impl_entry& e) { return std::vector<std::string>{e.summary}; },
      {"the segmented reduce: not built into this binary (configured with -DWARPFOLD_BENCH_PRODUCTION=OFF)"});
  out << "\nSegmented sums (warpfold bench --segments; f32 sums; --impl NAME; the sum-modes rows only when named):\n" << impls;

  std::string names;
  for (const bench::segment_case& c : bench::segment_cases(bench::default_segment_elements, 1))
    names += (names.empty() ? "" : ", ") + c.name;
  out << "  cases: " << names << ";\n"
      << "  segments back to back over " << bench::format_size(bench::default_segment_elements)
      << " floats by default (--n picks another count, --seed other lengths): mean-L draws\n"
      << "  lengths uniform in [0, 2L], huge has " << bench::huge_segment_count << " segments of n/"
      << bench::huge_segment_count << ", mix runs of every mean length with " << bench::mix_huge_segments
      << " huge segments in one call\n";
}

}  // namespace warpfold::cli
