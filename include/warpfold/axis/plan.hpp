// From (shape, strides, axes) to the few problem kinds the axis kernels know. Host code
// only, and independent of CUDA kernels, so the CPU tests check it directly.
//
// Two facts make any axis set of any view small:
// - an extent of 1 changes neither addresses nor indices, so it is dropped;
// - neighbouring axes of one kind (both reduced, or both kept) whose strides make them one
//   walk through memory are one axis of their product extent. In a row-major array every
//   run of neighbouring reduced (or kept) axes is one axis.
// Then, from the axis of stride 1, the one that the kernels read along (make_plan says how):
// - no kept axis and one contiguous reduced run: one full reduction (the production kernel);
// - the stride-1 axis reduced: "rows": every output reduces `runs` contiguous runs of
//   `run_length` elements (a [rows, R] matrix reduced along dim 1 has one run per output);
// - the stride-1 axis kept: "columns": output (b, c) reduces, over the reduced axes, the
//   elements at column c of a contiguous run of `columns` kept elements ([R, C] along dim 0,
//   or a transposed [C, R] along dim 1).
// No reduced axis (or an empty one) is a "rows" plan with runs of 1 (or 0) elements.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/config.hpp"
#include "warpfold/error.hpp"

namespace warpfold::axis {

// [begin, end) of chunk `c` of `chunks` over `length` elements, as even as possible and with
// no product that could overflow.
struct index_range {
  std::int64_t begin, end;
};
WARPFOLD_HOST_DEVICE index_range chunk_of(std::int64_t length, std::int64_t chunks, std::int64_t c) {
  const std::int64_t base = length / chunks, extra = length % chunks;
  const std::int64_t begin = c * base + (c < extra ? c : extra);
  return {begin, begin + base + (c < extra ? 1 : 0)};
}

// The chunk of chunk_of(length, chunks, .) that holds index i (chunks <= length).
WARPFOLD_HOST_DEVICE std::int64_t chunk_holding(std::int64_t length, std::int64_t chunks, std::int64_t i) {
  const std::int64_t base = length / chunks, extra = length % chunks;
  const std::int64_t long_part = extra * (base + 1);
  return i < long_part ? i / (base + 1) : extra + (i - long_part) / base;
}

// Row-major index -> memory offset over up to four (extent, stride) dimensions.
struct strided_dims {
  static constexpr int max_dims = 8;
  int count = 0;
  std::int64_t extent[max_dims] = {};
  std::int64_t stride[max_dims] = {};

  WARPFOLD_HOST_DEVICE std::int64_t size() const {
    std::int64_t n = 1;
    for (int d = 0; d < count; ++d) n *= extent[d];
    return n;
  }
  // One dimension (every 2-D case) costs a multiply; more cost a division per extra one.
  WARPFOLD_HOST_DEVICE std::int64_t offset(std::int64_t index) const {
    if (count == 0) return 0;
    std::int64_t result = 0;
    for (int d = count - 1; d > 0; --d) {
      result += (index % extent[d]) * stride[d];
      index /= extent[d];
    }
    return result + index * stride[0];
  }
  // offset(index) in 32-bit arithmetic, for an index below 2^32 (so every extent fits too):
  // inlined where it is used, 64-bit divisions took the tiled rows kernel from 32 registers to
  // 64 (half the blocks per SM), and as a call they made kernels spill.
  WARPFOLD_HOST_DEVICE std::int64_t offset_32(std::uint32_t index) const {
    std::int64_t result = 0;
    for (int d = count - 1; d > 0; --d) {
      const auto e = static_cast<std::uint32_t>(extent[d]);
      result += std::int64_t(index % e) * stride[d];
      index /= e;
    }
    return count == 0 ? 0 : result + std::int64_t(index) * stride[0];
  }
  void push(std::int64_t e, std::int64_t s) {
    extent[count] = e;
    stride[count] = s;
    ++count;
  }
};

enum class plan_kind { nothing, full, rows, columns };

// Where output o of a rows plan is written: at o, or, when the plan walks its kept axes in
// memory order rather than the output's (a permuted view: axis/launch.cuh,
// in_memory_order), at map.offset(o).
struct output_order {
  strided_dims map;  // no dimensions: the identity
  WARPFOLD_HOST_DEVICE bool identity() const { return map.count == 0; }
  // In 32-bit arithmetic (in_memory_order maps fewer than 2^31 outputs; strided_dims::offset_32).
  WARPFOLD_HOST_DEVICE std::int64_t operator()(std::int64_t o) const {
    return map.count == 0 ? o : map.offset_32(static_cast<std::uint32_t>(o));
  }
};

// Positions count elements from `in` rounded down to 16 bytes (`head` elements before the
// first row). Row r holds positions [head + r * row_stride, head + r * row_stride + row_length).
struct row_stream_shape {
  std::int64_t rows;
  std::int64_t row_stride;
  std::int64_t row_length;
  std::int64_t head;
  std::int64_t vectors;  // 16-byte vectors from the aligned start to past the last row's end
  std::int64_t warps;    // the grid's warps, at most `vectors`: warp w reads chunk_of(vectors, warps, w)
  output_order order;    // where row r's output goes

  WARPFOLD_HOST_DEVICE std::int64_t start(std::int64_t r) const { return head + r * row_stride; }
  WARPFOLD_HOST_DEVICE std::int64_t end(std::int64_t r) const { return start(r) + row_length; }
  // The first row that ends after position x.
  WARPFOLD_HOST_DEVICE std::int64_t first_row_ending_after(std::int64_t x) const {
    const std::int64_t past = x - head - row_length;
    return past < 0 ? 0 : past / row_stride + 1;
  }
  // The warp whose range holds position x, for elements of `size` bytes.
  WARPFOLD_HOST_DEVICE std::int64_t warp_holding(std::int64_t x, std::int64_t size) const {
    return chunk_holding(vectors, warps, x / (16 / size));
  }
};

// Rows that cross the boundary of a warp's range, for elements of `size` bytes: how many
// (each finishes on a counter of its own; the scratch request needs the count). Walks the
// warps' boundaries with additions only: it runs on every call, with up to a few thousand
// boundaries.
inline std::int64_t row_stream_split_rows(const row_stream_shape& s, std::int64_t size) {
  const std::int64_t V = 16 / size;
  const std::int64_t base = s.vectors / s.warps, extra = s.vectors % s.warps;
  // Position x as (row, into): x - head = row * row_stride + into, 0 <= into < row_stride,
  // starting at x = 0 (a negative row when head > 0).
  std::int64_t row = -((s.head + s.row_stride - 1) / s.row_stride);
  std::int64_t into = -s.head - row * s.row_stride;
  // Warp w - 1's elements: (base + 1) V for the first `extra` warps, then base V.
  const std::int64_t rows_long = (base + 1) * V / s.row_stride, into_long = (base + 1) * V % s.row_stride;
  const std::int64_t rows_short = base * V / s.row_stride, into_short = base * V % s.row_stride;
  std::int64_t count = 0, last = -2;
  for (std::int64_t w = 1; w < s.warps; ++w) {
    row += w - 1 < extra ? rows_long : rows_short;
    into += w - 1 < extra ? into_long : into_short;
    if (into >= s.row_stride) into -= s.row_stride, ++row;
    if (row < 0 || row >= s.rows || into == 0 || into >= s.row_length || row == last) continue;
    ++count;
    last = row;
  }
  return count;
}

struct plan {
  plan_kind kind = plan_kind::nothing;
  std::int64_t outputs = 0;    // elements written
  std::int64_t reduced = 0;    // elements combined into each output
  // full: reduce `reduced` contiguous elements into one output.
  // rows: output o starts at kept.offset(o); it reduces runs.size() runs of run_length
  //       contiguous elements, run j starting runs.offset(j) further on.
  // columns: output (b, c), b < kept.size(), c < columns, is
  //       d_out[kept_out.offset(b) + c * column_out_stride]; it reduces the elements at
  //       kept.offset(b) + c * inner_stride + runs.offset(j), j < runs.size().
  // Element i of a run (rows) is i * inner_stride further on. inner_stride is 1 (contiguous
  // runs or columns) unless the view steps over elements.
  // Output o of rows, and output (b, c) of columns, reduce their elements in the order given
  // (j, then the element in the run); argmin/argmax count their indices in it.
  strided_dims kept;
  strided_dims kept_out;  // columns
  // columns: every kept axis, the columns' one included, in the output's order, with its
  // input strides: the plan read as rows of one-element runs (axis/launch.cuh).
  strided_dims kept_all;
  strided_dims runs;
  std::int64_t run_length = 0;         // rows
  std::int64_t columns = 0;            // columns
  std::int64_t column_out_stride = 1;  // columns
  std::int64_t inner_stride = 1;       // rows and columns
  // rows: where output o goes (make_plan leaves the identity); an interleaved columns plan
  // (axis/launch.cuh: interleaved_columns_for): where position q of its period goes, from b's
  // first output.
  output_order out_order;
};

namespace detail {

inline std::string axis_error(const char* api, const std::string& what) { return std::string(api) + ": " + what; }

// Each axis in [-rank, rank) once; returns a per-axis "reduced" flag.
inline std::vector<bool> reduced_flags(const shape& in, const axes& reduce, const char* api) {
  std::vector<bool> flags(in.rank(), false);
  for (int a : reduce.list()) {
    if (a < -in.rank() || a >= in.rank())
      throw invalid_argument(axis_error(api, "axis " + std::to_string(a) + " is out of range for an array of rank " +
                                                 std::to_string(in.rank()) +
                                                 (in.rank() ? " (valid: " + std::to_string(-in.rank()) + " to " +
                                                                  std::to_string(in.rank() - 1) + ")"
                                                            : " (a scalar has no axes)")));
    const int axis = a < 0 ? a + in.rank() : a;
    if (flags[axis])
      throw invalid_argument(axis_error(api, "axis " + std::to_string(axis) +
                                                 (a < 0 ? " (given as " + std::to_string(a) + ")" : "") +
                                                 " is listed twice"));
    flags[axis] = true;
  }
  return flags;
}

inline void check_extents(const shape& in, const char* api) {
  std::int64_t product = 1;
  for (int a = 0; a < in.rank(); ++a) {
    const std::int64_t e = in[a];
    if (e < 0)
      throw invalid_argument(axis_error(api, "extent " + std::to_string(e) + " of axis " + std::to_string(a) +
                                                 " in shape " + in.to_string() + " is negative"));
    if (e == 0) continue;  // an empty array; the other extents must still multiply out
    if (product > std::numeric_limits<std::int64_t>::max() / e)
      throw invalid_argument(axis_error(api, "shape " + in.to_string() + " has more than 2^63 - 1 elements"));
    product *= e;
  }
}

// One axis of the input after extent-1 axes are dropped: its extent, its element stride in
// the input, and (kept axes) its stride in the row-major output.
struct plan_axis {
  std::int64_t extent;
  std::int64_t stride;
  bool reduced;
  std::int64_t out_stride = 0;
};

// Where an axis sits in memory, outermost first: larger strides first, and broadcast axes
// (stride 0, which never move the address) outside everything.
inline bool outer_in_memory(const plan_axis& a, const plan_axis& b) {
  if ((a.stride == 0) != (b.stride == 0)) return a.stride == 0;
  return a.stride > b.stride;
}

// Folds each axis into its neighbour when together they step through memory as one axis of
// their product extent (outer.stride == inner.extent * inner.stride).
inline std::vector<plan_axis> merge_neighbours(const std::vector<plan_axis>& list) {
  std::vector<plan_axis> merged;
  for (const plan_axis& a : list) {
    if (!merged.empty() && merged.back().reduced == a.reduced && merged.back().stride == a.extent * a.stride) {
      merged.back().extent *= a.extent;
      merged.back().stride = a.stride;
    } else {
      merged.push_back(a);
    }
  }
  return merged;
}

inline void push_all(strided_dims& to, const std::vector<plan_axis>& list, bool out_strides = false) {
  for (const plan_axis& a : list) to.push(a.extent, out_strides ? a.out_stride : a.stride);
}

}  // namespace detail

// The plan for a strided view: extent in[a] steps `strides[a]` elements (any stride >= 0:
// transposed, permuted, sliced, broadcast; overlapping views are read as they are). A null
// `strides` means row-major. `indices_matter` (argmin/argmax): the reduced axes are then
// visited in row-major order, so that indices count as the view's logical index; otherwise
// they are visited in memory order, which merges more of them into long runs.
//
// The plan comes from where the axes lie in memory, not from their order in the shape:
// - logical neighbours that are contiguous in memory merge (a row-major array's groups);
// - the reduced axes are ordered outermost-first in memory, and merged again there;
// - the axis of stride 1 is the one the kernels read along: reduced, it is the rows' run
//   (each output reads contiguous runs); kept, it is the columns (neighbouring outputs are
//   neighbouring addresses, and threads read along them).
// - a view whose smallest stride is above 1 (x[:, ::2]) reads along that axis, element by
//   element (inner_stride); one with nothing to read along (only broadcast axes) is planned as
//   rows of runs of one element: correct for any strides, at the cost of index arithmetic per
//   element.
inline plan make_plan(const shape& in, const std::int64_t* strides, const axes& reduce, bool indices_matter,
                      const char* api) {
  detail::check_extents(in, api);
  const std::vector<bool> flags = detail::reduced_flags(in, reduce, api);
  std::vector<std::int64_t> row_major(in.rank());
  std::int64_t step = 1;
  for (int a = in.rank() - 1; a >= 0; --a) {
    row_major[a] = step;
    step *= std::max<std::int64_t>(in[a], 1);
  }
  for (int a = 0; strides && a < in.rank(); ++a)
    if (strides[a] < 0)
      throw invalid_argument(detail::axis_error(api, "stride " + std::to_string(strides[a]) + " of axis " +
                                                         std::to_string(a) + " is negative; negative strides are not "
                                                         "supported (make the view with a positive stride)"));

  plan p;
  p.outputs = 1;
  p.reduced = 1;
  for (int a = 0; a < in.rank(); ++a) (flags[a] ? p.reduced : p.outputs) *= in[a];
  if (p.outputs == 0) return p;  // nothing to write
  if (p.reduced == 0) {          // every output is the identity: runs of no elements
    p.kind = plan_kind::rows;
    return p;
  }

  // The non-unit axes in the shape's order; logical neighbours that are one axis in memory
  // merge, which keeps both the output order and the reduced indices row-major.
  std::vector<detail::plan_axis> list;
  for (int a = 0; a < in.rank(); ++a)
    if (in[a] != 1) list.push_back({in[a], strides ? strides[a] : row_major[a], flags[a]});
  list = detail::merge_neighbours(list);
  std::vector<detail::plan_axis> kept, reduced;
  for (const detail::plan_axis& a : list) (a.reduced ? reduced : kept).push_back(a);
  // Neighbours among the kept (or the reduced) axes alone merge too: in a permuted view a
  // reduced axis may sit between two kept axes that are one walk through memory. Row-major
  // order over the kept axes (the output) and over the reduced ones (indices) is unchanged.
  kept = detail::merge_neighbours(kept);
  reduced = detail::merge_neighbours(reduced);
  step = 1;
  for (int i = static_cast<int>(kept.size()) - 1; i >= 0; --i) {
    kept[i].out_stride = step;
    step *= kept[i].extent;
  }

  if (list.empty()) {  // one element (a scalar, or every extent 1)
    p.kind = plan_kind::full;
    return p;
  }
  if (!indices_matter) {
    std::stable_sort(reduced.begin(), reduced.end(), detail::outer_in_memory);
    reduced = detail::merge_neighbours(reduced);
  }
  // The axis the kernels read along: the one of the smallest stride (1, unless the view
  // steps over elements, as x[:, ::2] does). A reduced one must be the last reduced axis, so
  // that (run, element) still counts the reduced indices in order.
  std::int64_t inner = 0;
  for (const std::vector<detail::plan_axis>* group : {&kept, &reduced})
    for (const detail::plan_axis& a : *group)
      if (a.stride > 0 && (inner == 0 || a.stride < inner)) inner = a.stride;
  const bool inner_run = inner > 0 && !reduced.empty() && reduced.back().stride == inner;
  int inner_column = -1;
  for (int i = 0; i < static_cast<int>(kept.size()); ++i)
    if (inner > 0 && kept[i].stride == inner) inner_column = i;

  // A copy (no reduced axis of extent above 1): output o is element o, converted. Along a
  // kept axis that memory runs along, it is a columns plan of one row, so that neighbouring
  // threads read and write neighbouring 16-byte vectors (as runs of one element, f16
  // 3x9x1x8663x331 over axis 2 ran at 12% of the read ceiling; H100, 2026-11-23). With
  // nothing to read along (only broadcast axes), runs of one element.
  if (reduced.empty() && inner_column < 0) {
    p.kind = plan_kind::rows;
    detail::push_all(p.kept, kept);
    p.run_length = 1;
    return p;
  }

  if (kept.empty() && reduced.size() == 1 && inner_run && inner == 1) {
    p.kind = plan_kind::full;
    return p;
  }
  if (inner_run || inner_column < 0) {
    p.kind = plan_kind::rows;
    detail::push_all(p.kept, kept);
    if (inner_run) {
      p.run_length = reduced.back().extent;
      p.inner_stride = inner;
      reduced.pop_back();
    } else {
      p.run_length = 1;  // nothing to read along (only broadcast axes, or argmin over a permuted view)
    }
    detail::push_all(p.runs, reduced);
    return p;
  }
  p.kind = plan_kind::columns;
  detail::push_all(p.kept_all, kept);
  p.columns = kept[inner_column].extent;
  p.column_out_stride = kept[inner_column].out_stride;
  p.inner_stride = inner;
  kept.erase(kept.begin() + inner_column);
  detail::push_all(p.kept, kept);
  detail::push_all(p.kept_out, kept, true);
  detail::push_all(p.runs, reduced);
  return p;
}

// A columns plan read as rows of one-element runs: every kept axis, the columns' one
// included, in the output's order (kept_all), each output's elements in the columns plan's
// order.
inline plan as_single_element_rows(const plan& columns) {
  plan rows = columns;
  rows.kind = plan_kind::rows;
  rows.kept = columns.kept_all;
  rows.kept_out = {};
  rows.kept_all = {};
  rows.run_length = 1;
  rows.inner_stride = 1;
  rows.columns = 0;
  return rows;
}

// The same, with the innermost reduced axis as each output's run, strided: its elements are
// read in the same order, so argmin/argmax count the same indices. A plan with no reduced axis
// to run along (none, or a broadcast one) stays as runs of one element.
inline plan as_strided_rows(const plan& columns) {
  plan rows = as_single_element_rows(columns);
  const int last = columns.runs.count - 1;  // runs are outermost first
  if (last < 0 || columns.runs.stride[last] <= 0) return rows;
  rows.runs = {};
  for (int i = 0; i < last; ++i) rows.runs.push(columns.runs.extent[i], columns.runs.stride[i]);
  rows.run_length = columns.runs.extent[last];
  rows.inner_stride = columns.runs.stride[last];
  return rows;
}

// A row-major array.
inline plan make_plan(const shape& in, const axes& reduce, const char* api) {
  return make_plan(in, nullptr, reduce, true, api);
}

// The elements from a view's first element to one past its last (0 for an empty view):
// what must be device memory. Throws if an offset overflows int64.
inline std::int64_t view_span(const shape& in, const std::int64_t* strides, const char* api) {
  std::int64_t last = 0;
  for (int a = 0; a < in.rank(); ++a) {
    if (in[a] == 0) return 0;
    const std::int64_t stride = strides ? strides[a] : 0;
    std::int64_t step = 0;
    if (__builtin_mul_overflow(in[a] - 1, stride, &step) || __builtin_add_overflow(last, step, &last))
      throw invalid_argument(detail::axis_error(api, "the strides of shape " + in.to_string() +
                                                         " reach past 2^63 - 1 elements"));
  }
  return strides ? last + 1 : in.elements();
}

}  // namespace warpfold::axis

namespace warpfold {

inline shape reduced_shape(const shape& in, const axes& reduce, bool keep_dims) {
  axis::detail::check_extents(in, "warpfold::reduced_shape");
  const std::vector<bool> flags = axis::detail::reduced_flags(in, reduce, "warpfold::reduced_shape");
  std::vector<std::int64_t> out;
  for (int a = 0; a < in.rank(); ++a) {
    if (!flags[a]) out.push_back(in[a]);
    else if (keep_dims) out.push_back(1);
  }
  return shape(out);
}

}  // namespace warpfold
