// From (shape, axes) to the few problem kinds the axis kernels know. Host code only, and
// independent of CUDA kernels, so the CPU tests check it directly.
//
// Two facts make any rank-8 axis set small:
// - an extent of 1 changes neither addresses nor indices, so it is dropped;
// - neighbouring axes that are both reduced (or both kept) are one axis of their product
//   extent in a row-major array.
// What is left alternates kept and reduced groups, at most four of each. Then:
// - no kept group: one full reduction (the production kernel);
// - the last group reduced: "rows": every output reduces `runs` contiguous runs of
//   `run_length` elements (a [rows, R] matrix reduced along dim 1 has one run per output);
// - the last group kept: "columns": output (b, c) reduces, over the reduced groups, the
//   elements at column c of a contiguous run of `columns` kept elements ([R, C] along dim 0).
// No reduced group (or an empty one) is a "rows" plan with runs of 1 (or 0) elements.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/config.hpp"
#include "warpfold/error.hpp"

namespace warpfold::axis {

// Row-major index -> memory offset over up to four (extent, stride) dimensions.
struct strided_dims {
  static constexpr int max_dims = 4;
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
  void push(std::int64_t e, std::int64_t s) {
    extent[count] = e;
    stride[count] = s;
    ++count;
  }
};

enum class plan_kind { nothing, full, rows, columns };

struct plan {
  plan_kind kind = plan_kind::nothing;
  std::int64_t outputs = 0;    // elements written
  std::int64_t reduced = 0;    // elements combined into each output
  // full: reduce `reduced` contiguous elements into one output.
  // rows: output o starts at kept.offset(o); it reduces runs.size() runs of run_length
  //       contiguous elements, run j starting runs.offset(j) further on.
  // columns: output (b, c), b < kept.size(), c < columns, is d_out[b * columns + c]; it
  //       reduces the elements at kept.offset(b) + c + runs.offset(j), j < runs.size().
  strided_dims kept;
  strided_dims runs;
  std::int64_t run_length = 0;  // rows
  std::int64_t columns = 0;     // columns
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

}  // namespace detail

inline plan make_plan(const shape& in, const axes& reduce, const char* api) {
  detail::check_extents(in, api);
  const std::vector<bool> flags = detail::reduced_flags(in, reduce, api);

  plan p;
  p.outputs = 1;
  p.reduced = 1;
  for (int a = 0; a < in.rank(); ++a) (flags[a] ? p.reduced : p.outputs) *= in[a];
  if (p.outputs == 0) return p;  // nothing to write
  if (p.reduced == 0) {          // every output is the identity: runs of no elements
    p.kind = plan_kind::rows;
    return p;
  }

  // Groups of neighbouring non-unit axes of one kind, with their row-major strides.
  struct group {
    bool reduced;
    std::int64_t extent;
    std::int64_t stride;
  };
  std::vector<group> groups;
  std::int64_t stride = 1;
  for (int a = in.rank() - 1; a >= 0; --a) {
    if (in[a] == 1) continue;
    if (!groups.empty() && groups.back().reduced == flags[a]) {
      groups.back().extent *= in[a];
    } else {
      groups.push_back({flags[a], in[a], stride});
    }
    stride *= in[a];
  }
  // groups runs from the innermost outwards; strided_dims wants the outermost first.
  std::vector<group> outer_first(groups.rbegin(), groups.rend());

  bool any_kept = false, any_reduced = false;
  for (const group& g : groups) (g.reduced ? any_reduced : any_kept) = true;

  if (!any_kept) {
    p.kind = plan_kind::full;
    return p;
  }
  if (!any_reduced) {  // a copy: output o is element o, converted
    p.kind = plan_kind::rows;
    p.kept.push(p.outputs, 1);
    p.run_length = 1;
    return p;
  }
  if (groups.front().reduced) {
    p.kind = plan_kind::rows;
    p.run_length = groups.front().extent;
    for (std::size_t i = 0; i + 1 < outer_first.size(); ++i)
      (outer_first[i].reduced ? p.runs : p.kept).push(outer_first[i].extent, outer_first[i].stride);
  } else {
    p.kind = plan_kind::columns;
    p.columns = groups.front().extent;
    for (std::size_t i = 0; i + 1 < outer_first.size(); ++i)
      (outer_first[i].reduced ? p.runs : p.kept).push(outer_first[i].extent, outer_first[i].stride);
  }
  return p;
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
