// The reproducible and exact sums along axes and over segments (warpfold/axes_sum_modes.hpp):
// every output must equal, bit for bit, the CPU reference of its elements listed in order
// (the row-major order of the view's reduced axes, or the segment's order in memory): MPFR's
// correctly rounded sum for the exact mode, the CPU implementation of the documented order for
// the reproducible one. Views are drawn at random (row-major, permuted, sliced with steps,
// broadcast), with random axis sets, next to fixed cases whose outputs are long enough for a
// whole block, a mix of segment lengths, special values, forced grids, graphs and bad input.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <warpfold/axes.hpp>
#include <warpfold/sum_modes/grid_override.hpp>

#include "reduce_test_util.hpp"
#include "sum_modes_test_data.hpp"
#include "warpfold_test/float_sum_references.hpp"

namespace {

using namespace warpfold_test;
using namespace sum_modes_test;
using sum_modes_test::from_double;  // rounds through float, as the data were made; not warpfold_test's

// A strided view of a buffer: element (i0, i1, ...) is buffer[start + sum ik * strides[k]].
struct view_case {
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;
  std::int64_t start = 0;
  std::vector<int> reduced_axes;
  std::string name;

  std::int64_t buffer_elements() const {
    std::int64_t last = start;
    for (std::size_t a = 0; a < extents.size(); ++a) {
      if (extents[a] == 0) return start;
      last += (extents[a] - 1) * strides[a];
    }
    return last + 1;
  }
  bool row_major() const {
    std::int64_t step = 1;
    for (int a = static_cast<int>(extents.size()) - 1; a >= 0; --a) {
      if (extents[a] != 1 && strides[a] != step) return false;
      step *= extents[a];
    }
    return start == 0;
  }
};

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> s(extents.size());
  std::int64_t step = 1;
  for (int a = static_cast<int>(extents.size()) - 1; a >= 0; --a) {
    s[a] = step;
    step *= std::max<std::int64_t>(extents[a], 1);
  }
  return s;
}

// Each output's elements, outputs row-major over the kept axes and elements row-major over
// the reduced ones: the independent statement of what the API promises.
template <typename T>
std::vector<std::vector<T>> sequences_of(const std::vector<T>& buffer, const view_case& c) {
  const int rank = static_cast<int>(c.extents.size());
  std::vector<bool> reduced(rank, false);
  for (int a : c.reduced_axes) reduced[a < 0 ? a + rank : a] = true;
  std::vector<int> kept_list, reduced_list;
  for (int a = 0; a < rank; ++a) (reduced[a] ? reduced_list : kept_list).push_back(a);
  auto count = [&](const std::vector<int>& list) {
    std::int64_t n = 1;
    for (int a : list) n *= c.extents[a];
    return n;
  };
  auto offset = [&](const std::vector<int>& list, std::int64_t index) {
    std::int64_t off = 0;
    for (int k = static_cast<int>(list.size()) - 1; k >= 0; --k) {
      off += (index % c.extents[list[k]]) * c.strides[list[k]];
      index /= c.extents[list[k]];
    }
    return off;
  };
  std::vector<std::vector<T>> result(static_cast<std::size_t>(count(kept_list)));
  const std::int64_t length = count(reduced_list);
  for (std::size_t o = 0; o < result.size(); ++o) {
    const std::int64_t base = c.start + offset(kept_list, static_cast<std::int64_t>(o));
    for (std::int64_t i = 0; i < length; ++i) result[o].push_back(buffer[base + offset(reduced_list, i)]);
  }
  return result;
}

template <typename T>
::testing::AssertionResult outputs_match(const std::vector<warpfold::float_sum_t<T>>& got,
                                         const std::vector<std::vector<T>>& sequences, bool exact) {
  if (got.size() != sequences.size())
    return ::testing::AssertionFailure() << got.size() << " outputs, expected " << sequences.size();
  for (std::size_t o = 0; o < got.size(); ++o) {
    const auto& s = sequences[o];
    const std::int64_t n = static_cast<std::int64_t>(s.size());
    const auto expected = exact ? exact_sum_reference(s.data(), n) : reproducible_sum_reference(s.data(), n);
    const ::testing::AssertionResult r = same_bits(got[o], expected);
    if (!r) return ::testing::AssertionFailure() << "output " << o << " of " << n << " elements: " << r.message();
  }
  return ::testing::AssertionSuccess();
}

// Random views: rank 1-4, small extents (1, primes, powers of two and odd ones), any axis set
// (empty and all included); row-major, permuted, sliced with steps and offsets, or with a
// broadcast axis.
std::vector<view_case> random_views(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t extent_choices[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 61, 64, 100, 127, 257, 509};
  auto pick = [&](std::int64_t n) { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)); };
  std::vector<view_case> cases;
  while (static_cast<int>(cases.size()) < count) {
    view_case c;
    const int rank = 1 + static_cast<int>(pick(4));
    std::int64_t elements = 1;
    for (int a = 0; a < rank; ++a) {
      c.extents.push_back(extent_choices[pick(std::size(extent_choices))]);
      elements *= c.extents.back();
    }
    if (elements > 400000) continue;
    for (int a = 0; a < rank; ++a)
      if (pick(2)) c.reduced_axes.push_back(pick(2) ? a : a - rank);  // negative axes count from the end
    std::shuffle(c.reduced_axes.begin(), c.reduced_axes.end(), rng);
    switch (pick(4)) {
      case 0:
        c.strides = row_major_strides(c.extents);
        c.name = "row-major";
        break;
      case 1: {  // a permutation of a row-major array
        std::vector<int> order(rank);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<std::int64_t> base_extents(rank);
        for (int a = 0; a < rank; ++a) base_extents[a] = c.extents[order[a]];
        const std::vector<std::int64_t> base = row_major_strides(base_extents);
        c.strides.assign(rank, 0);
        for (int a = 0; a < rank; ++a) c.strides[order[a]] = base[a];
        c.name = "permuted";
        break;
      }
      case 2: {  // x[a:a+e:step, ...] of a larger array
        std::vector<std::int64_t> base_extents(rank), steps(rank);
        for (int a = 0; a < rank; ++a) {
          steps[a] = 1 + pick(3);
          base_extents[a] = c.extents[a] * steps[a] + pick(3);
        }
        const std::vector<std::int64_t> base = row_major_strides(base_extents);
        for (int a = 0; a < rank; ++a) c.strides.push_back(base[a] * steps[a]);
        c.start = pick(5);
        c.name = "sliced";
        break;
      }
      default: {  // one axis broadcast (stride 0)
        c.strides = row_major_strides(c.extents);
        const int a = static_cast<int>(pick(rank));
        c.strides[a] = 0;
        c.start = pick(3);
        c.name = "broadcast";
        break;
      }
    }
    cases.push_back(c);
  }
  return cases;
}

// Views whose outputs are long enough for a whole block in both modes, and the one-output case.
std::vector<view_case> long_output_views() {
  std::vector<view_case> cases;
  auto add = [&](std::vector<std::int64_t> e, std::vector<std::int64_t> s, std::vector<int> r, std::string name,
                 std::int64_t start = 0) {
    if (s.empty()) s = row_major_strides(e);
    cases.push_back({e, s, start, r, name});
  };
  add({3, 100003}, {}, {1}, "rows of 100003");
  add({100003, 3}, {}, {0}, "columns of 100003");
  add({2, 70001, 3}, {}, {1}, "middle axis of 70001");
  add({7, 40009}, {1, 7}, {1}, "a transposed 40009 x 7 matrix along dim 1");
  add({5, 30011}, {60024, 2}, {1}, "every second element of rows", 1);
  add({3, 1 << 20}, {}, {1}, "rows of 2^20 (many groups)");
  add({(1 << 20) + 3}, {}, {0}, "one output: the full sum");
  add({1, 300007}, {}, {1}, "one output behind an axis of 1");
  add({33, 64, 65}, {}, {0, 2}, "outer and inner axes");
  return cases;
}

template <typename T>
void check_view(const view_case& c, std::uint64_t seed, data_kind kind) {
  const std::vector<T> buffer = make_data<T>(c.buffer_elements(), seed, kind);
  const device_input<T> input(buffer);
  const std::vector<std::vector<T>> sequences = sequences_of(buffer, c);
  const warpfold::shape in(c.extents);
  const warpfold::strides view(c.strides);
  const warpfold::axes reduce(c.reduced_axes);
  const T* first = input.data() + c.start;
  SCOPED_TRACE(c.name + " " + in.to_string() + ", " + kind_name(kind));
  EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_exact(first, in, view, reduce), sequences, true));
  EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_reproducible(first, in, view, reduce), sequences, false));
  if (c.row_major()) {
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_exact(first, in, reduce), sequences, true));
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_reproducible(first, in, reduce), sequences, false));
  }
  EXPECT_TRUE(input.unchanged());
}

template <typename T>
class AxisSumModes : public gpu_test {};
using float_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(AxisSumModes, float_types, reduce_test::type_names);

TYPED_TEST(AxisSumModes, RandomViewsMatchTheReferencesOfTheirSequences) {
  using T = TypeParam;
  const std::vector<view_case> cases = random_views(quick_mode() ? 24 : 80, 0x5eed0a11);
  for (std::size_t k = 0; k < cases.size(); ++k)
    check_view<T>(cases[k], 1000 + k, all_kinds[k % std::size(all_kinds)]);
}

TYPED_TEST(AxisSumModes, LongOutputsMatchTheReferencesOfTheirSequences) {
  using T = TypeParam;
  const std::vector<view_case> cases = long_output_views();
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (data_kind kind : {data_kind::wide, data_kind::cancelling}) check_view<T>(cases[k], 2000 + k, kind);
}

TYPED_TEST(AxisSumModes, SpecialValuesPerOutput) {
  using T = TypeParam;
  const std::int64_t cols = 5000;  // a block per row in both modes
  const double inf = INFINITY, nan = NAN;
  const double biggest = largest_finite<T>();
  std::vector<std::vector<double>> rows(8, std::vector<double>(cols, 0.25));
  rows[0][4320] = nan;
  rows[1][135] = inf;
  rows[2][0] = inf, rows[2][4860] = -inf;
  rows[3].assign(cols, -0.0);
  rows[4].assign(cols, -0.0), rows[4][2565] = 0.0;
  rows[5].assign(cols, biggest);  // float, double and bfloat16 overflow; half's sum is a finite float
  rows[6].assign(cols, 0.0), rows[6][0] = 1.5, rows[6][4860] = -1.5;
  rows[7][270] = -inf;
  // Narrower rows keep the columns with the specials (and then the first ones).
  std::vector<std::int64_t> columns = {0, 4860, 135, 270, 2565, 4320};
  for (std::int64_t j = 1; static_cast<std::int64_t>(columns.size()) < cols; ++j)
    if (std::find(columns.begin(), columns.end(), j) == columns.end()) columns.push_back(j);
  // A block per row, a warp per row, a thread per row (the exact sum's thread falls back to
  // the warp for specials).
  for (std::int64_t width : {cols, std::int64_t{37}, std::int64_t{6}}) {
    std::vector<std::int64_t> kept(columns.begin(), columns.begin() + width);
    std::sort(kept.begin(), kept.end());
    std::vector<T> x;
    for (const auto& row : rows)
      for (std::int64_t j : kept) x.push_back(from_double<T>(row[j]));
    const view_case c{{std::int64_t(rows.size()), width}, {width, 1}, 0, {1}, "rows with special values"};
    const device_array<T> d = upload(x);
    const auto sequences = sequences_of(x, c);
    SCOPED_TRACE("width " + std::to_string(width));
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_exact(d.data(), {std::int64_t(rows.size()), width}, {1}), sequences, true));
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_axes_reproducible(d.data(), {std::int64_t(rows.size()), width}, {1}),
                                 sequences, false));
  }
}

// Segments: random begin/end pairs over one buffer (gaps, overlaps, empty and reversed pairs),
// lengths from 0 to a few hundred thousand in one call.
struct segment_case {
  std::vector<std::int64_t> begin, end;
};
segment_case random_segments(std::int64_t buffer, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t n) { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)); };
  segment_case s;
  for (int i = 0; i < count; ++i) {
    std::int64_t length;
    switch (pick(8)) {
      case 0: length = 0; break;
      case 1: length = 1; break;
      case 2: length = -1 - pick(5); break;  // end before begin: empty
      case 3: length = 100 + pick(5000); break;
      case 4: length = pick(20) == 0 ? 20000 + pick(std::min<std::int64_t>(buffer - 20000, 300000)) : 2 + pick(40); break;
      default: length = 2 + pick(300); break;
    }
    const std::int64_t b = pick(buffer - std::max<std::int64_t>(length, 0) + 1);
    s.begin.push_back(b);
    s.end.push_back(b + length);
  }
  return s;
}

template <typename T>
std::vector<std::vector<T>> segments_of(const std::vector<T>& x, const segment_case& s) {
  std::vector<std::vector<T>> result;
  for (std::size_t i = 0; i < s.begin.size(); ++i)
    result.emplace_back(x.begin() + s.begin[i], x.begin() + std::max(s.begin[i], s.end[i]));
  return result;
}

TYPED_TEST(AxisSumModes, SegmentsOfEveryLengthMatchTheReferences) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 400003 : 2000003;
  for (data_kind kind : all_kinds) {
    const std::vector<T> x = make_data<T>(n, seed_for(std::string("segments-") + kind_name(kind), n), kind);
    const device_input<T> input(x);
    const segment_case s = random_segments(n, quick_mode() ? 600 : 3000, seed_for(kind_name(kind), 7));
    const device_array<std::int64_t> begin = upload(s.begin), end = upload(s.end);
    const auto sequences = segments_of(x, s);
    const std::int64_t count = static_cast<std::int64_t>(s.begin.size());
    SCOPED_TRACE(kind_name(kind));
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), count), sequences, true));
    EXPECT_TRUE(outputs_match<T>(warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), count),
                                 sequences, false));
    EXPECT_TRUE(input.unchanged());
  }
}

// The grid is what differs between GPUs: forcing others must not change a bit.
TYPED_TEST(AxisSumModes, BitsDoNotDependOnTheGrid) {
  using T = TypeParam;
  const std::int64_t n = 600011;
  const std::vector<T> x = make_data<T>(n, seed_for("axis-grids", n), data_kind::wide);
  const device_input<T> input(x);
  const segment_case s = random_segments(n, 500, 99);
  const device_array<std::int64_t> begin = upload(s.begin), end = upload(s.end);
  const std::int64_t count = static_cast<std::int64_t>(s.begin.size());
  const warpfold::shape columns{n / 11, 11};
  const auto exact_segments = warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), count);
  const auto reproducible_segments = warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), count);
  const auto exact_columns = warpfold::sum_axes_exact(input.data(), columns, {0});
  const auto reproducible_columns = warpfold::sum_axes_reproducible(input.data(), columns, {0});
  for (int blocks : {1, 2, 7, 1000}) {
    warpfold::testing::scoped_sum_grid forced(blocks);
    SCOPED_TRACE(std::to_string(blocks) + " blocks");
    EXPECT_EQ(0, std::memcmp(exact_segments.data(),
                             warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), count).data(),
                             exact_segments.size() * sizeof(exact_segments[0])));
    EXPECT_EQ(0, std::memcmp(reproducible_segments.data(),
                             warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), count).data(),
                             reproducible_segments.size() * sizeof(reproducible_segments[0])));
    EXPECT_EQ(0, std::memcmp(exact_columns.data(), warpfold::sum_axes_exact(input.data(), columns, {0}).data(),
                             exact_columns.size() * sizeof(exact_columns[0])));
    EXPECT_EQ(0, std::memcmp(reproducible_columns.data(), warpfold::sum_axes_reproducible(input.data(), columns, {0}).data(),
                             reproducible_columns.size() * sizeof(reproducible_columns[0])));
  }
}

// The exact sum does not depend on the order of the elements: a permuted view of the same
// values gives the same bits as the row-major array.
TYPED_TEST(AxisSumModes, ExactDoesNotDependOnTheOrder) {
  using T = TypeParam;
  const std::int64_t rows = 501, cols = 997;
  const std::vector<T> x = make_data<T>(rows * cols, seed_for("order", rows), data_kind::cancelling);
  const device_array<T> d = upload(x);
  const auto along_rows = warpfold::sum_axes_exact(d.data(), {rows, cols}, {1});
  // The same matrix read backwards along its rows is a different order of the same values;
  // strides cannot be negative, so reverse a copy instead.
  std::vector<T> reversed = x;
  for (std::int64_t r = 0; r < rows; ++r) std::reverse(reversed.begin() + r * cols, reversed.begin() + (r + 1) * cols);
  const device_array<T> e = upload(reversed);
  const auto backwards = warpfold::sum_axes_exact(e.data(), {rows, cols}, {1});
  // And the transposed copy, summed along its columns.
  std::vector<T> transposed(x.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) transposed[c * rows + r] = x[r * cols + c];
  const device_array<T> t = upload(transposed);
  const auto down_columns = warpfold::sum_axes_exact(t.data(), {cols, rows}, {0});
  ASSERT_EQ(along_rows.size(), std::size_t(rows));
  EXPECT_EQ(0, std::memcmp(along_rows.data(), backwards.data(), rows * sizeof(along_rows[0])));
  EXPECT_EQ(0, std::memcmp(along_rows.data(), down_columns.data(), rows * sizeof(along_rows[0])));
}

TYPED_TEST(AxisSumModes, AsyncFormsReplayInGraphs) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  const std::int64_t rows = 300, cols = 7001;
  const std::vector<T> x = make_data<T>(rows * cols, seed_for("axis-graph", rows), data_kind::wide);
  const device_input<T> input(x);
  const std::vector<std::int64_t> b = {0, 5, 100, 0}, e = {5, 5, 70000, rows * cols};
  const device_array<std::int64_t> begin = upload(b), end = upload(e);
  const auto exact_rows = warpfold::sum_axes_exact(input.data(), {rows, cols}, {1});
  const auto reproducible_columns = warpfold::sum_axes_reproducible(input.data(), {rows, cols}, {0});
  const auto exact_segments = warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), 4);
  const auto reproducible_segments = warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), 4);

  device_array<R> out(rows + cols + 8);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::sum_axes_exact(input.data(), {rows, cols}, {1}, out.data(), rows, stream);
  warpfold::sum_axes_reproducible(input.data(), {rows, cols}, {0}, out.data() + rows, cols, stream);
  warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), 4, out.data() + rows + cols, stream);
  warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), 4, out.data() + rows + cols + 4, stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<R> expected;
  for (const auto* part : {&exact_rows, &reproducible_columns, &exact_segments, &reproducible_segments})
    expected.insert(expected.end(), part->begin(), part->end());
  for (int replay = 0; replay < 2; ++replay) {
    WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), 0xA5, out.size() * sizeof(R), stream));
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
    const std::vector<R> got = download(out.data(), out.size());
    EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), expected.size() * sizeof(R)));
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
}

// Threads, each on its own stream, calling every form at once: each must get the bits of a
// call made alone (no shared state but the library's pool and the per-thread result buffer).
TYPED_TEST(AxisSumModes, ConcurrentCallersGetTheSameBits) {
  using T = TypeParam;
  const std::int64_t rows = 257, cols = 1031;  // primes: rows for warps, columns for blocks
  const std::vector<T> x = make_data<T>(rows * cols, seed_for("axis-threads", rows), data_kind::wide);
  const device_input<T> input(x);
  const segment_case s = random_segments(rows * cols, 300, 4242);
  const device_array<std::int64_t> begin = upload(s.begin), end = upload(s.end);
  const std::int64_t count = static_cast<std::int64_t>(s.begin.size());
  const warpfold::shape in{rows, cols};
  const warpfold::strides transposed{1, rows};  // the same buffer read as a cols x rows matrix's transpose
  auto run_all = [&](cudaStream_t stream) {
    std::vector<std::vector<warpfold::float_sum_t<T>>> r;
    r.push_back(warpfold::sum_axes_exact(input.data(), in, {1}, stream));
    r.push_back(warpfold::sum_axes_reproducible(input.data(), in, {0}, stream));
    r.push_back(warpfold::sum_axes_exact(input.data(), in, transposed, {0}, stream));
    r.push_back(warpfold::sum_segments_reproducible(input.data(), begin.data(), end.data(), count, stream));
    r.push_back(warpfold::sum_segments_exact(input.data(), begin.data(), end.data(), count, stream));
    return r;
  };
  const auto alone = run_all(nullptr);
  constexpr int threads = 6, rounds = 4;
  std::vector<int> mismatches(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      cudaStream_t stream;
      WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
      for (int round = 0; round < rounds; ++round) {
        const auto got = run_all(stream);
        for (std::size_t k = 0; k < got.size(); ++k)
          if (got[k].size() != alone[k].size() ||
              std::memcmp(got[k].data(), alone[k].data(), got[k].size() * sizeof(got[k][0])) != 0)
            ++mismatches[t];
      }
      WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TYPED_TEST(AxisSumModes, BadInputIsRejectedAndNothingIsWritten) {
  using T = TypeParam;
  using R = warpfold::float_sum_t<T>;
  const device_array<T> d(64);
  const device_array<std::int64_t> offsets(4);
  warpfold_test::fill_device_bytes(offsets.data(), 0, 4 * sizeof(std::int64_t));
  device_array<R> out(8);
  warpfold_test::fill_device_bytes(out.data(), 0xA5, 8 * sizeof(R));
  std::vector<T> host(64);
  std::vector<R> host_out(8);
  using warpfold::invalid_argument;
  EXPECT_THROW(warpfold::sum_axes_exact(d.data(), {8, 8}, {2}), invalid_argument);                        // no axis 2
  EXPECT_THROW(warpfold::sum_axes_reproducible(d.data(), {8, 8}, {1, -1}), invalid_argument);            // twice
  EXPECT_THROW(warpfold::sum_axes_exact(d.data(), {8, -8}, {1}), invalid_argument);                      // negative
  EXPECT_THROW(warpfold::sum_axes_exact(host.data(), {8, 8}, {1}), invalid_argument);                    // host memory
  EXPECT_THROW(warpfold::sum_axes_reproducible(d.data(), {8, 8}, {-1, 8}, {1}), invalid_argument);       // negative stride
  EXPECT_THROW(warpfold::sum_axes_exact(d.data(), {8, 8}, {1}, out.data(), 7, nullptr), invalid_argument);  // too small
  EXPECT_THROW(warpfold::sum_axes_reproducible(d.data(), {8, 8}, {0}, host_out.data(), 8, nullptr), invalid_argument);
  EXPECT_THROW(warpfold::sum_segments_exact(d.data(), offsets.data(), offsets.data(), -1), invalid_argument);
  EXPECT_THROW(warpfold::sum_segments_reproducible(d.data(), static_cast<const std::int64_t*>(nullptr), offsets.data(), 2),
               invalid_argument);
  EXPECT_THROW(warpfold::sum_segments_exact(d.data(), offsets.data(), offsets.data(), 2, host_out.data(), nullptr),
               invalid_argument);
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  const std::vector<R> after = download(out.data(), 8);
  std::vector<unsigned char> expected(8 * sizeof(R), 0xA5);
  EXPECT_EQ(0, std::memcmp(after.data(), expected.data(), expected.size())) << "a rejected call wrote its output";
}

}  // namespace
