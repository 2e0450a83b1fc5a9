// Strided views read in place: transposed, permuted, sliced (with the view starting inside its
// parent), every other element, and broadcast (stride 0) axes, in every mix, for every op and
// type, against the independent CPU reference walking the view's own strides.
//
// The data are quarters in [-1, 2) (values_with_ties): every float sum here is exact, so a
// missing or doubled element cannot hide inside a tolerance, and argmin/argmax meet ties,
// where the first index in the view's own row-major order must win.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "axis_test_util.hpp"
#include "warpfold/axis/test_overrides.hpp"

namespace {

using namespace axis_test;

// A view of a contiguous parent: its first element's offset in the parent, extents, strides.
struct view_case {
  std::int64_t parent_elements = 0;
  std::int64_t start = 0;
  std::vector<std::int64_t> extents, strides;
  std::vector<int> axes;

  std::string text() const {
    std::string t = describe(extents, axes) + " strides (";
    for (std::size_t a = 0; a < strides.size(); ++a) t += (a ? ", " : "") + std::to_string(strides[a]);
    return t + ") from element " + std::to_string(start) + " of " + std::to_string(parent_elements);
  }
};

// Runs op over the view in both forms and checks every output, and that nothing past the
// outputs is written.
template <typename Op, typename T>
bool expect_view(const warpfold_test::device_input<T>& parent, const view_case& v, cudaStream_t stream) {
  using R = result_t<Op, T>;
  const layout l = make_layout(v.extents, v.axes, v.strides);
  const T* host = parent.host_values() + v.start;
  const auto expected = expected_for<Op>(host, l);
  const std::string what = std::string(op_name<Op>()) + "_axes<" + warpfold_test::type_name<T>() + "> " + v.text();
  const warpfold::shape in(v.extents);
  const warpfold::strides view(v.strides);
  const T* d_view = parent.data() + v.start;

  const std::vector<R> got = warpfold::reduce_axes<Op, T>(d_view, in, view, warpfold::axes(v.axes), stream);
  const ::testing::AssertionResult blocking = matches_all(expected, got, l);
  EXPECT_TRUE(blocking) << what << ", blocking";

  const sentinel_output<R> out(l.outputs() + output_slack);
  warpfold::reduce_axes<Op, T>(d_view, in, view, warpfold::axes(v.axes), out.data(), out.size(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  const ::testing::AssertionResult async = matches_all(expected, out.download(l.outputs()), l);
  EXPECT_TRUE(async) << what << ", async";
  const ::testing::AssertionResult tail = out.untouched_from(l.outputs());
  EXPECT_TRUE(tail) << what << ", async";
  return blocking && async && tail;
}

// sum, max and argmin over the view (and bit_xor for integers), stopping at the first failure.
template <typename T>
bool expect_sum_max_argmin(const warpfold_test::device_input<T>& parent, const view_case& v, cudaStream_t stream) {
  bool ok = expect_view<op::sum, T>(parent, v, stream) && expect_view<op::max, T>(parent, v, stream) &&
            expect_view<op::argmin, T>(parent, v, stream);
  if constexpr (is_integer_v<T>) ok = ok && expect_view<op::bit_xor, T>(parent, v, stream);
  return ok;
}

// A random view of a random contiguous parent of at most `max_elements`: axes permuted half
// the time; each axis kept whole, sliced (first and last dropped), stepped by 2, or
// broadcast; the view starting anywhere its extents allow.
view_case random_view(std::mt19937_64& random, int max_rank, std::int64_t max_elements) {
  view_case v;
  const int rank = 1 + static_cast<int>(random() % max_rank);
  // Log-uniform extents from 1 to 1024.
  const warpfold_test::parent_array p = warpfold_test::random_parent(random, rank, 10, max_elements);
  const std::vector<std::int64_t>& parent = p.extents;
  const std::vector<std::int64_t>& parent_stride = p.strides;
  v.parent_elements = p.elements;
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (random() % 2) std::shuffle(order.begin(), order.end(), random);
  v.extents.resize(rank);
  v.strides.resize(rank);
  std::int64_t start = 0;
  for (int a = 0; a < rank; ++a) {
    const int from = order[a];
    switch (random() % 6) {
      case 0:  // broadcast
        v.extents[a] = 1 + static_cast<std::int64_t>(random() % 5);
        v.strides[a] = 0;
        break;
      case 1:  // every other element, from the first or the second
        if (parent[from] >= 3) {
          const std::int64_t first = static_cast<std::int64_t>(random() % 2);
          v.extents[a] = (parent[from] - first + 1) / 2;
          v.strides[a] = 2 * parent_stride[from];
          start += first * parent_stride[from];
          break;
        }
        [[fallthrough]];
      case 2:  // x[1:-1]
        if (parent[from] >= 3) {
          v.extents[a] = parent[from] - 2;
          v.strides[a] = parent_stride[from];
          start += parent_stride[from];
          break;
        }
        [[fallthrough]];
      default:
        v.extents[a] = parent[from];
        v.strides[a] = parent_stride[from];
    }
  }
  v.start = start;
  for (int a = 0; a < rank; ++a)
    if (random() % 2) v.axes.push_back(a);
  return v;
}

template <typename T>
class AxisViews : public warpfold_test::gpu_test {};
class AxisViewsNamed : public warpfold_test::gpu_test {};
TYPED_TEST_SUITE(AxisViews, op_element_types, type_names);

TYPED_TEST(AxisViews, RandomViewsAndAxisSetsEveryOp) {
  using T = TypeParam;
  owned_stream stream;
  std::mt19937_64 random(warpfold_test::seed_for("axis-views", sizeof(T)));
  const int trials = warpfold_test::quick_mode() ? 12 : 60;
  for (int trial = 0; trial < trials; ++trial) {
    // Small views meet every kernel's edges; every fourth is large enough to split work
    // over blocks.
    const view_case v = random_view(random, 6, trial % 4 == 3 ? (1 << 21) : (1 << 14));
    const warpfold_test::device_input<T> parent(values_with_ties<T>(v.parent_elements, 1000 + trial));
    SCOPED_TRACE(v.text());
    bool ok = expect_view<op::sum, T>(parent, v, stream.get()) && expect_view<op::min, T>(parent, v, stream.get()) &&
              expect_view<op::max, T>(parent, v, stream.get()) && expect_view<op::argmin, T>(parent, v, stream.get()) &&
              expect_view<op::argmax, T>(parent, v, stream.get());
    if constexpr (is_integer_v<T>)
      ok = ok && expect_view<op::bit_xor, T>(parent, v, stream.get()) && expect_view<op::bit_or, T>(parent, v, stream.get());
    EXPECT_TRUE(parent.unchanged()) << "the caller's input is never modified";
    if (!ok) return;
  }
}

TYPED_TEST(AxisViews, ProductsOverViews) {
  using T = TypeParam;
  owned_stream stream;
  std::mt19937_64 random(warpfold_test::seed_for("axis-views-prod", sizeof(T)));
  for (int trial = 0; trial < (warpfold_test::quick_mode() ? 4 : 16); ++trial) {
    const view_case v = random_view(random, 5, 1 << 14);
    const warpfold_test::device_input<T> parent(values_for_products<T>(v.parent_elements, 77 + trial));
    SCOPED_TRACE(v.text());
    if (!expect_view<op::prod, T>(parent, v, stream.get())) return;
  }
}

// Short rows that are not whole vectors, and small slabs of columns, go through shared memory
// a tile at a time: every op, rows of 3, 5 (a slice x[:, 1:-1] of rows of 7) and 63, slabs of
// 31 x 2, 5 x 12 and 20 x 3, from aligned and unaligned starts, with a last tile that is not
// full.
TYPED_TEST(AxisViews, ShortRowsThroughSharedMemory) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t rows = warpfold_test::quick_mode() ? 2053 : 40961;
  const warpfold_test::device_input<T> parent(values_with_ties<T>(rows * 64 + 8, 91));
  const std::vector<view_case> cases = {
      {rows * 64 + 8, 0, {rows, 3}, {3, 1}, {1}},
      {rows * 64 + 8, 1, {rows, 3}, {3, 1}, {1}},
      {rows * 64 + 8, 1, {rows, 5}, {7, 1}, {1}},
      {rows * 64 + 8, 3, {rows / 2, 63}, {63, 1}, {1}},
      {rows * 64 + 8, 0, {rows / 4, 7, 3}, {21, 3, 1}, {1, 2}},
      // Slabs of columns: [B, 31, 2] over the 31, [B, 5, 12] over the 5 from an unaligned
      // start, and a slice of slabs 64 apart.
      {rows * 64 + 8, 0, {rows, 31, 2}, {62, 2, 1}, {1}},
      {rows * 64 + 8, 5, {rows, 5, 12}, {60, 12, 1}, {1}},
      {rows * 64 + 8, 2, {rows / 2, 20, 3}, {64, 3, 1}, {1}},
  };
  for (const view_case& v : cases) {
    SCOPED_TRACE(v.text());
    if (!expect_sum_max_argmin(parent, v, stream.get())) return;
  }
}

// A view that ends exactly at its parent allocation's end, so that a load past the view's
// last element is a read past the allocation (compute-sanitizer's memcheck runs these).
struct view_at_end {
  std::vector<std::int64_t> extents, strides;
  std::vector<int> axes;
  std::int64_t start;
};
template <typename T>
void expect_views_at_end(const std::vector<view_at_end>& views, std::uint64_t seed, cudaStream_t stream) {
  for (const view_at_end& c : views) {
    std::int64_t last = c.start;
    for (std::size_t a = 0; a < c.extents.size(); ++a) last += (c.extents[a] - 1) * c.strides[a];
    const view_case v{last + 1, c.start, c.extents, c.strides, c.axes};  // nothing after the view's last element
    const warpfold_test::device_input<T> parent(values_with_ties<T>(v.parent_elements, seed));
    SCOPED_TRACE(v.text());
    if (!expect_sum_max_argmin(parent, v, stream)) return;
  }
}

// Columns whose rows start anywhere but on a 16-byte boundary (the columns kernel reads them
// by pairs of aligned 16-byte loads, axis/shifted_vector.cuh): odd and prime widths, rows of
// a slice, the kept axis outside the columns, two reduced axes. Each view ends exactly at the
// end of its parent's allocation, so a load past the view's last element would be a read past
// the allocation (compute-sanitizer's memcheck runs these). Widths cover every shift of
// every element size, 1 to 8 bytes.
TYPED_TEST(AxisViews, ColumnsThatAreNotWholeVectors) {
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 37 : 1031;
  expect_views_at_end<TypeParam>(
      {
          {{tall, 67}, {67, 1}, {0}, 0},                    // odd width: each row a new shift
          {{7, 131}, {131, 1}, {0}, 3},                     // few rows, prime width, unaligned start
          {{2, 1031}, {1031, 1}, {0}, 1},                   // two rows
          {{1, 259}, {259, 1}, {0}, 5},                     // one row: a copy of unaligned columns
          {{tall, 70}, {72, 1}, {0}, 1},                    // x[:, 1:-1] of rows of 72
          {{5, tall, 67}, {tall * 67, 67, 1}, {1}, 2},      // [B, R, C] over R
          {{6, 5, 67}, {5 * 67 * 2, 67, 1}, {0, 1}, 0},     // two reduced axes, the outer stepped
          {{3, 4, 5, 130}, {4 * 5 * 131, 5 * 131, 131, 1}, {0, 2}, 1},  // reduced axes around a kept one
      },
      57, stream.get());
}

// Shifted columns in block space (axis/columns_kernel.cuh: realign_block_sums; 4-byte
// elements): each thread sums the aligned blocks that hold its columns, and the tile
// realigns them once, the tile's last lane loading the block after its last item. Row strides
// of every shift period (2 and 4 rows), widths just past and short of whole tiles, a slice, a
// permuted view written through its output order, few kept indices (rows split over blocks,
// whose partials hold one slot more than the tile's items), a kept axis outside the columns.
// Once as planned (large views) and once forced however few rows a thread has (the small
// views of quick mode, which compute-sanitizer runs). Each view ends at its allocation's end:
// the last lanes' blocks there reach past the view, and must not be read.
TYPED_TEST(AxisViews, ShiftedColumnsInBlockSpace) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 41 : 2053;
  const std::vector<view_at_end> views = {
      {{tall, 127}, {127, 1}, {0}, 0},                          // odd width: a period of 4 rows
      {{tall, 254}, {254, 1}, {0}, 1},                          // even: a period of 2
      {{tall, 31 * 4 + 1}, {31 * 4 + 1, 1}, {0}, 3},            // 32 items: one past a tile of 31
      {{tall, 1001}, {1003, 1}, {0}, 1},                        // x[:, 1:-1]
      {{3, tall, 509}, {tall * 509, 509, 1}, {1}, 2},           // a kept axis outside the columns
      {{9, tall * 4, 131}, {tall * 4 * 131, 131, 1}, {1}, 0},   // few kept: split rows
      {{tall, 7, 45}, {315, 1, 7}, {0}, 1},                     // permuted columns
  };
  expect_views_at_end<T>(views, 101, stream.get());
  const warpfold::testing::scoped_block_space forced(true);
  expect_views_at_end<T>(views, 103, stream.get());
}

// Rows that are not whole vectors, reduced along the row, many rows (read as the aligned
// 16-byte blocks that hold each row, axis/shifted_vector.cuh: row_blocks): odd, prime and
// sliced lengths, so the rows start at every shift; the rows kernel takes those too long for
// a shared-memory tile (1601 elements for every type; 975 and 1021 for 4- and 8-byte ones),
// the tiled kernel the others. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, RowsThatAreNotWholeVectors) {
  owned_stream stream;
  // Enough rows for the grouped rows kernel on a GPU of up to 156 SMs (axis_policy::
  // rows_per_sm_for_groups = 32 each), in quick mode too: fewer rows take the row-chunks kernel.
  const std::int64_t many = 5003;
  // Rows of 21 and 41 blocks, with gaps of twice a row (too wide for the tile or the stream):
  // a block or two a lane, so four or two rows in flight (short_rows_kernel's U).
  constexpr std::int64_t V = 16 / sizeof(TypeParam);
  const std::int64_t one_load = 20 * V - 3, two_loads = 40 * V - 3;
  expect_views_at_end<TypeParam>(
      {
          {{many, one_load}, {3 * one_load + 1, 1}, {1}, 1},
          {{many, two_loads}, {3 * two_loads + 1, 1}, {1}, 1},
          {{many, 975}, {975, 1}, {1}, 0},    // a permuted f16 case's rows (25 x 39 merged)
          {{many, 61}, {61, 1}, {1}, 3},      // short odd rows, unaligned start
          {{many, 1021}, {1024, 1}, {1}, 1},  // x[:, 1:-2] of rows of 1024: gaps between rows
          {{many, 17}, {19, 1}, {1}, 1},      // rows of 17 in a slice
          {{many / 4, 1601}, {1601, 1}, {1}, 1},  // too long for a tile of any type
          {{3, 8191}, {8193, 1}, {1}, 2},     // few long rows
      },
      59, stream.get());
}

// Rows too long for a group of lanes (over 2048 16-byte vectors) and too few to stream, a block
// each (axis/row_chunks_kernel.cuh), or several where there are fewer rows than resident
// blocks: lengths that leave a block's threads part of a batch of loads at the row's end
// (4096 vectors and a few, or 2048 and a few: every thread has only a part batch), aligned and
// not, every start shift; outputs of several long runs ([R1, K, R2] over R1 and R2, and runs
// of one to eight rounds of loads, which teams of lanes take); and a few rows split over many
// blocks. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, LongRowsABlockEach) {
  using T = TypeParam;
  owned_stream stream;
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t rows = warpfold_test::quick_mode() ? 37 : 300;
  const std::int64_t longer = 4096 * V + 37, shorter = 2048 * V + 3 * V + 1, aligned = 2048 * V + 5 * V;
  expect_views_at_end<T>(
      {
          {{rows, longer}, {longer, 1}, {1}, 1},            // a full batch for most threads, part for the rest
          {{rows, shorter}, {shorter, 1}, {1}, 3},          // part batches only
          {{rows, aligned}, {aligned, 1}, {1}, 0},          // whole aligned vectors, part batches
          {{5, 3, shorter}, {3 * shorter, shorter, 1}, {0, 2}, 2},  // outputs of five long runs each
          {{3, 7 * longer}, {7 * longer, 1}, {1}, 1},       // three rows over many blocks
          // Runs of one to eight rounds of a block's loads, teams of lanes a run: a slice
          // summed whole (every other run unaligned), and two outputs of many runs each.
          {{rows, 635 * V + 3}, {635 * V + 5, 1}, {0, 1}, 1},
          {{2, rows / 4, 3000 * V}, {rows / 4 * (3000 * V + V), 3000 * V + V, 1}, {1, 2}, 0},
      },
      67, stream.get());
}

// Longer rows that are not whole aligned vectors, a few to a shared-memory tile, each added
// up by a group of lanes (2 to 32, from the rows a tile holds): lengths from just above the
// one-thread-a-row limit to a tile's fifth, odd and prime, every start shift (and 617, which
// 4- and 8-byte types leave to the rows kernel, four to a tile); slices whose
// gaps are read with the rows; rows in blocks of rows (a 3-D array over its last axis, with a
// slice of the middle one); a permuted view, written through the output map; and a tile whose
// last rows are few. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, LongerRowsThroughSharedMemory) {
  owned_stream stream;
  const std::int64_t many = warpfold_test::quick_mode() ? 613 : 4099;
  expect_views_at_end<TypeParam>(
      {
          {{many, 65}, {65, 1}, {1}, 0},              // just past one thread a row
          {{many, 157}, {157, 1}, {1}, 1},            // about 8 lanes a row for 4-byte types
          {{many, 299}, {299, 1}, {1}, 3},            // prime length, unaligned start
          {{many, 617}, {617, 1}, {1}, 2},            // tiled for 1- and 2-byte types only
          {{many, 241}, {271, 1}, {1}, 5},            // a slice with gaps of 30 (an eighth of a row)
          {{7, many / 8, 131}, {(many / 8 + 2) * 131, 131, 1}, {2}, 131},  // x[:, 1:-1, :] of a 3-D array
          {{131, many / 8, 97}, {97, 131 * 97, 1}, {2}, 0},  // permuted: the kept axes swapped in the output
          {{37, 101}, {101, 1}, {1}, 1},              // a handful of rows
      },
      61, stream.get());
}

// Rows one stride apart, streamed flat by the grid's warps in equal ranges
// (axis/row_stream_kernel.cuh) where the tile or mostly empty rounds of a group's loads would
// take them: rows that a range holds whole, rows cut by a range's boundary (their parts
// combined on a counter), rows longer than a range (parts from many warps), lengths that are and
// are not whole vectors, every start shift, slices with gaps, a range boundary inside a gap, a
// permuted output. The planner streams only inputs of about a hundred megabytes and more, so
// these views are forced through the kernel (a test-only override), on grids from one warp
// up; then the same views again as the planner chooses. Each view ends at its allocation's
// end, as above.
TYPED_TEST(AxisViews, RowsStreamedFlat) {
  using T = TypeParam;
  owned_stream stream;
  const bool quick = warpfold_test::quick_mode();
  const std::int64_t many = quick ? 389 : 5003;
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::vector<view_at_end> views{
      {{many, 24 * V}, {24 * V, 1}, {1}, 1},            // the shortest streamed rows, unaligned
      {{many, 38 * V + 1}, {38 * V + 1, 1}, {1}, 0},    // the tile's rows before (153 floats)   
      {{many, 154 * V + 1}, {154 * V + 1, 1}, {1}, 3},  // two rounds of a group, the second 21% full
      {{many / 2, 40 * V}, {40 * V, 1}, {1}, 0},        // whole vectors, one round 63% full
      {{7, 38 * V + 1}, {38 * V + 1, 1}, {1}, 2},       // 7 rows: one warp, or the planner's tile
      {{60, quick ? 8000 : 40000}, {quick ? 8000 : 40000, 1}, {1}, 1},  // each row over several warps
      {{many, 241}, {271, 1}, {1}, 5},                  // a slice: gaps of 30
      {{many / 2, 96}, {100, 1}, {1}, 0},               // gaps of 4, range boundaries in them
      {{97, many / 8, 131}, {131, 97 * 131, 1}, {2}, 0},  // permuted: kept axes swapped in the output
      {{many / 4, 3203}, {3203, 1}, {1}, 2},            // a few rows a warp
      {{3, quick ? 150001 : 1000003}, {quick ? 150001 : 1000003, 1}, {1}, 1},  // three long rows
  };
  {
    const warpfold::testing::scoped_row_stream streamed(true);
    expect_views_at_end<T>(views, 71, stream.get());
  }
  expect_views_at_end<T>(views, 73, stream.get());
}

// Narrow columns with kept axes beside them in memory but elsewhere in the output (a
// transposed view's last two axes, both kept): each output written where the view's order
// puts it. Few and many rows (a split over blocks, and its combine), 2 to 7 columns beside 3
// to 6, an unaligned start. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, NarrowColumnsBesideKeptAxesInMemory) {
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 203 : 4099;
  expect_views_at_end<TypeParam>(
      {
          {{tall, 4, 3, 2, 3, 6}, {432, 108, 36, 18, 1, 3}, {0, 2, 3}, 0},  // columns of 3, 6 beside them
          {{tall, 7, 5}, {35, 1, 7}, {0}, 1},                                // [R, 5, 7], last two swapped
          {{tall, 3, 2}, {6, 1, 3}, {0}, 0},                                 // [R, 2, 3], last two swapped
          {{2, tall, 3, 5}, {15 * tall, 15, 1, 3}, {0, 1}, 3},               // two reduced axes
          {{9, 5, 7}, {35, 1, 7}, {0}, 0},                                   // few rows
      },
      63, stream.get());
}

// Narrow columns of one [R, C] matrix whose rows are not a power-of-two count of vectors
// (C = 2 to 256, odd, prime and whole vectors), from aligned and unaligned starts, about 1 MiB
// each, so that the rows are split over blocks: read flat (periodic_columns_kernel: each
// thread's vectors in fixed places of a row, a head and a tail folded apart, the blocks'
// partials combined), or, for argmin and 1-byte integers, the columns kernel's narrow tiles
// and their combine. Rows back to back, and slices with a gap after each row that the flat
// read takes along (1 to 32 elements) or leaves to the columns kernel (a gap longer than an
// eighth of the row). Also matrices of a few rows, and (not in quick mode) 16 MiB ones, more
// blocks than one per SM. Each matrix ends at its allocation's end, as above.
TYPED_TEST(AxisViews, NarrowColumnMatricesSplitOverBlocks) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t elements = (std::int64_t{1} << 20) / std::int64_t(sizeof(T)) + 37;
  std::vector<view_at_end> views;
  for (const std::int64_t c : {2, 3, 5, 7, 11, 12, 31, 41, 61, 64, 65, 96, 139, 200, 255, 256})
    for (const std::int64_t start : {0, 1, 3}) {
      const std::int64_t rows = elements / c + start;
      views.push_back({{rows, c}, {c, 1}, {0}, start});
    }
  // Sliced rows: {columns, gap after each row}.
  for (const auto& [c, gap] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {3, 1}, {15, 2}, {15, 4}, {54, 6}, {54, 7}, {54, 65}, {139, 17}, {139, 18}, {250, 31}, {256, 32}})
    for (const std::int64_t start : {0, 2}) {
      const std::int64_t rows = elements / (c + gap) + start;
      views.push_back({{rows, c}, {c + gap, 1}, {0}, start});
    }
  views.push_back({{3, 7}, {7, 1}, {0}, 1});      // a few rows: mostly head and tail
  views.push_back({{37, 61}, {61, 1}, {0}, 2});   // fewer vectors than one block's threads
  views.push_back({{5, 201}, {205, 1}, {0}, 1});  // a few sliced rows
  if (!warpfold_test::quick_mode()) {
    const std::int64_t large = (std::int64_t{1} << 24) / std::int64_t(sizeof(T));
    views.push_back({{large / 3, 3}, {3, 1}, {0}, 1});
    views.push_back({{large / 61, 61}, {61, 1}, {0}, 0});
    views.push_back({{large / 139, 139}, {139, 1}, {0}, 3});
    views.push_back({{large / 17, 15}, {17, 1}, {0}, 1});
  }
  expect_views_at_end<T>(views, 67, stream.get());
}

// Narrow columns under a contiguous reduced axis, with a kept axis outside ([R, K, L, C] over
// {0, 2}): rows of C columns that are not whole aligned vectors, read as L x C slabs, each
// output folding every C-th column of its slab (axis/launch.cuh: interleaved_columns_for;
// argmin keeps the columns plan). Widths 2 to 31; slabs from a few vectors to about the widest
// that one tile holds (512 vectors: shifted slabs of 2-byte elements, or aligned ones of
// 4-byte elements); unaligned starts; a permuted view whose slab is two reduced axes and
// whose kept axes are not in memory order; kept axes beside the columns in memory, and the
// columns' axis first in the output (each written through the period's map); slabs too wide
// for a tile. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, NarrowColumnsReadAsSlabs) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t outer = warpfold_test::quick_mode() ? 3 : 29;
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t widest = (512 * V - 2 * V) / 3;  // rows of a slab of 3 columns in one tile, at most
  std::vector<view_at_end> views = {
      {{outer, 11, 702, 3}, {11 * 702 * 3, 702 * 3, 3, 1}, {0, 2}, 0},
      {{outer, 13, 42, 18}, {13 * 42 * 18, 42 * 18, 18, 1}, {0, 2}, 0},
      {{outer, 9, 100, 5}, {9 * 100 * 5, 100 * 5, 5, 1}, {0, 2}, 1},
      {{outer, 6, 33, 7}, {6 * 33 * 7, 33 * 7, 7, 1}, {0, 2}, 3},
      {{outer, 5, 64, 2}, {5 * 64 * 2, 64 * 2, 2, 1}, {0, 2}, 1},
      {{outer, 4, 17, 31}, {4 * 17 * 31, 17 * 31, 31, 1}, {0, 2}, 2},
      {{outer, 5, widest, 3}, {5 * widest * 3, widest * 3, 3, 1}, {0, 2}, 1},
      {{outer, 5, widest + 40, 3}, {5 * (widest + 40) * 3, (widest + 40) * 3, 3, 1}, {0, 2}, 1},  // wider than a tile
      // [1, R, K, a, C, b] with strides that put C innermost, then a, b, K, R (a case of the
      // random views: f16 1x99x166x27x3x26 over {1, 3, 5}).
      {{1, outer, 23, 27, 3, 26}, {2106, 2106 * 23, 2106, 3, 1, 81}, {1, 3, 5}, 0},
      // Columns of 3, then 6 kept beside them in memory (a transposed view's last two axes),
      // under reduced axes of 6 and 7 (i32 460x63x7x6x3x6 over {0, 2, 3} in the random views).
      {{outer, 13, 7, 6, 3, 6}, {13 * 756, 756, 108, 18, 1, 3}, {0, 2, 3}, 1},
      // The columns' axis first in the output ([3, K] out of a [K, R, 3] slab under R).
      {{3, outer, 11, 702}, {1, 11 * 702 * 3, 702 * 3, 3}, {1, 3}, 2},
  };
  expect_views_at_end<T>(views, 71, stream.get());
}

// Narrow columns (fewer than a warp's items) with kept axes that continue them in memory, under
// reduced axes too wide for a slab in one tile: the columns and those axes are read as one row
// of columns, each output written where the output's order puts it (axis/launch.cuh:
// mapped_period_columns_for; argmin keeps the narrow columns). The random cases' f32
// 3x747x1951 over {1} (3 innermost in memory, the 1951 above them), a period of three axes,
// a kept axis outside the period, two reduced axes, unaligned starts (shifted vectors), few
// rows (the split over blocks and its combine), and odd columns. Each has more kept indices
// than a GPU has SMs (fewer are merged only in inputs of 64 MiB and more). Each view ends at
// its allocation's end, as above.
TYPED_TEST(AxisViews, NarrowColumnsWithTheirKeptAxesAsOneRow) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 61 : 747;
  expect_views_at_end<T>(
      {
          {{3, tall, 1951}, {1, 3 * 1951, 3}, {1}, 0},                        // the random case
          {{3, tall, 1951}, {1, 3 * 1951, 3}, {1}, 1},                        // from an unaligned start
          {{11, 13, tall, 3}, {3, 33, 429, 1}, {2}, 2},                       // a period of three axes
          {{4, tall, 5, 41}, {205 * tall, 205, 1, 5}, {1}, 0},                // a kept axis outside the period
          {{3, 13, 6, 7, 11}, {1, 3, 440, 2640, 39}, {2, 3}, 3},              // two reduced axes, a gap
          {{7, 133, 64}, {1, 7, 931}, {2}, 1},                                // few rows: split over blocks
          {{11, 151, 40}, {1, 11, 1661}, {2}, 0},                             // odd columns
      },
      73, stream.get());
}

// Narrow columns in many contiguous slabs: [.., K, .., R, C] over R and the axes above it but
// the kept ones, each (kept index, outer reduced index) a slab of R rows of C columns (fewer
// than a warp's column items), read flat inside each slab (axis/periodic_slabs_kernel.cuh):
// one piece a slab and several (chunks whose head and tail lie inside the slab), C = 2 to 97,
// odd and whole vectors, slabs that start at every shift (a kept stride that is not whole
// vectors), rows with a gap after each, an outer reduced axis between kept ones, a broadcast
// one (the same slab twice), and the columns' axis first in the output (written out_step
// apart). argmin, and sums of 1-byte integers (wide accumulators), keep the columns kernel.
// Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, NarrowColumnsInManySlabs) {
  using T = TypeParam;
  owned_stream stream;
  constexpr std::int64_t V = 16 / sizeof(T);
  // Rows of C columns in a slab of about `vectors` 16-byte vectors (the kernel takes slabs of
  // at least four vectors for each of a block's threads).
  auto rows = [](std::int64_t vectors, std::int64_t c) { return vectors * V / c + 3; };
  const std::int64_t one = 4500, many = warpfold_test::quick_mode() ? 9000 : 40000;  // vectors a slab
  const std::int64_t r14 = rows(one, 14), r36 = rows(many, 36), r15 = rows(one, 15), r2 = rows(one, 2);
  const std::int64_t r97 = rows(many, 97), r5 = rows(one, 5), r7 = rows(many, 7);
  expect_views_at_end<T>(
      {
          {{3, r14, 14}, {r14 * 14, 14, 1}, {1}, 0},                                     // [K, R, C] over R
          {{2, 3, r14, 14}, {3 * r14 * 14, r14 * 14, 14, 1}, {0, 2}, 1},                 // an outer reduced axis
          {{2, 2, 5, r36, 36}, {20 * r36 * 36, 5 * r36 * 36, r36 * 36, 36, 1}, {1, 3}, 0},  // reduced between kept
          {{4, r15, 15}, {r15 * 17 + 1, 17, 1}, {1}, 3},  // gaps of 2, slabs at every shift
          {{5, r2, 2}, {r2 * 2, 2, 1}, {1}, 1},           // two columns
          {{2, r97, 97}, {r97 * 97, 97, 1}, {1}, 2},      // pieces a slab
          {{3, 2, r5, 5}, {r5 * 5 + 3, 0, 5, 1}, {1, 2}, 1},  // a broadcast slab axis
          {{7, 3, r7}, {1, r7 * 7, 7}, {2}, 0},           // the columns' axis first in the output
      },
      71, stream.get());
}

// Columns of 16-byte vectors over fewer than 16 rows (axis/few_rows_columns_kernel.cuh): two
// to fifteen rows, aligned and not (every start shift), wide matrices whose last block has part
// of a chunk, slabs narrower than a block (a thread's items in several kept indices), kept axes
// permuted (kept offsets of two axes), columns written with a stride (the columns' axis first
// in the output), and a unit axis among the reduced ones; as the planner chooses (views this
// small mostly go to the columns kernel), then with the kernel forced and 1, 2 and 4 items a
// thread (as many as fit the batch). Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, ColumnsOverFewRows) {
  using T = TypeParam;
  owned_stream stream;
  constexpr std::int64_t V = 16 / sizeof(T);
  const std::int64_t wide = (warpfold_test::quick_mode() ? 37 : 1301) * V, slabs = warpfold_test::quick_mode() ? 29 : 733;
  const std::vector<view_at_end> views = {
      {{2, wide}, {wide, 1}, {0}, 0},                                      // two rows, aligned
      {{2, wide + 3}, {wide + 3, 1}, {0}, 1},                              // two unaligned: items
      {{3, wide + 5}, {wide + 5, 1}, {0}, 1},                              // three, every shift
      {{4, wide}, {wide + V, 1}, {0}, V},                                  // rows with gaps
      {{7, 97 * V + 3}, {97 * V + 3, 1}, {0}, 2},                          // an odd count
      {{15, 67 * V}, {67 * V, 1}, {0}, 0},                                 // the most: batches
      {{15, 67 * V + 1}, {67 * V + 1, 1}, {0}, 3},                         // unaligned batches
      {{slabs, 6, 27 * V + 3}, {6 * (27 * V + 3), 27 * V + 3, 1}, {1}, 1},  // narrow slabs
      {{slabs, 2, 5 * V}, {10 * V, 5 * V, 1}, {1}, 0},                     // narrower, aligned
      {{slabs, 2, 9 * V + 1}, {2 * (9 * V + 1), 9 * V + 1, 1}, {1}, 3},    // and unaligned
      {{3, 5, 2, 40 * V}, {80 * V, 240 * V, 40 * V, 1}, {2}, 0},           // kept axes permuted
      {{40 * V, 3, 2}, {1, 80 * V, 40 * V}, {2}, 0},                       // columns' axis first
      {{2, 1, 3, 33 * V}, {99 * V, 99 * V, 33 * V, 1}, {0, 1, 2}, 0},      // a unit axis reduced
  };
  expect_views_at_end<T>(views, 71, stream.get());
  for (const int items : {1, 2, 4}) {
    SCOPED_TRACE("items a thread " + std::to_string(items));
    const warpfold::testing::scoped_few_rows_items forced(items);
    expect_views_at_end<T>(views, 73 + items, stream.get());
  }
}

// Columns plans with a few rows per kept index and many kept indices ([B, 20, 100] over the
// 20): the block's row groups take neighbouring kept indices, each thread every row of its
// column (axis/launch.cuh: stacked columns). Fewer than 8 rows of vectors in large inputs go
// to the few-rows kernel (above); these views stack (17 and 20 rows whatever the size), and
// 135 rows of 47 columns (a few rows a thread in tiles) stacks in large inputs and here when
// forced. Shifted rows (odd widths, an unaligned start), aligned vectors, two reduced axes,
// and columns a step of two apart; once as the planner chooses and once with stacking forced,
// so that the small views of quick mode (compute-sanitizer) stack too. Each view ends at its
// allocation's end, as above.
TYPED_TEST(AxisViews, FewRowsPerKeptIndexStacked) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t many = warpfold_test::quick_mode() ? 37 : 1531;
  const std::vector<view_at_end> views = {
      {{many, 20, 100}, {2000, 100, 1}, {1}, 0},
      {{many, 17, 67}, {17 * 67, 67, 1}, {1}, 1},
      {{many, 6, 427}, {6 * 427, 427, 1}, {1}, 0},
      {{many, 3, 2752}, {3 * 2752, 2752, 1}, {1}, 0},
      {{many, 5, 701}, {5 * 701, 701, 1}, {1}, 3},
      {{many, 2, 3, 500}, {3500, 1750, 500, 1}, {1, 2}, 1},
      {{many, 3, 1200}, {7200, 2400, 2}, {1}, 1},
      {{3, many, 6, 427}, {many * 2600, 2600, 427, 1}, {2}, 2},
      {{many, 135, 47}, {135 * 47, 47, 1}, {1}, 1},
  };
  expect_views_at_end<T>(views, 79, stream.get());
  const warpfold::testing::scoped_stacked_columns forced(true);
  expect_views_at_end<T>(views, 83, stream.get());
}

// Columns plans that would leave a column tile little work per kept index (a few narrow
// columns over short reduced axes: axis/launch.cuh, small_column_tiles) are read as rows
// where their kept indices' elements are not one stretch of memory each: few outputs of many
// elements take the innermost reduced axis as a strided run, the others runs of one element.
// Two interleaved columns of 241-element runs under 3 rows (i32 53x3x49x241x2 over {1, 3} of
// the random cases), 16 outputs of 585 elements, and runs that step over a whole outer array
// (stride 11063); also 12 aligned columns of a transposed view (read as slabs), and three
// views whose slabs are one stretch each (runs of 26, 86 and 3 elements 3 apart, a run of 291
// two apart with a unit axis among the reduced ones), which the tile takes as wide slabs (the
// next test). Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, SmallColumnTilesReadAsRows) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t outer = warpfold_test::quick_mode() ? 3 : 53;
  std::vector<view_at_end> views = {
      {{outer, 3, 49, 241, 2}, {70854, 23618, 482, 2, 1}, {1, 3}, 0},
      {{3, 1, 15, 25, 12, 91}, {409500, 409500, 27300, 1092, 1, 12}, {0, 5}, 0},
      {{outer, 300, 26, 3}, {23400, 78, 3, 1}, {2}, 1},
      {{1, 2, 625, 1, 3, 86}, {322500, 161250, 258, 258, 1, 3}, {0, 5}, 2},
      {{5, 291, 1, 1, 2, 1}, {582, 2, 2, 2, 1, 2}, {1, 2}, 0},
      {{2, 4, 117, 5, 2, 1}, {234, 2340, 2, 468, 1, 468}, {2, 3, 5}, 1},
      {{7, 2, 23, 37, 13}, {11063, 77441, 481, 1, 37}, {0, 1}, 3},
  };
  expect_views_at_end<T>(views, 73, stream.get());
}

// The same plans where the columns are 16-byte vectors (aligned, or shifted where rows start
// anywhere) in inputs of 1 MiB and more: the columns kernel's stacked tiles (axis/launch.cuh,
// small_column_tiles), where it stacks them. Each view is scaled to about 1.5 MiB of the type
// (whole multiples of its outer axis), so that it takes that route in quick mode too: two rows
// of a permuted view 396 elements apart (bf16 2x741x137x11x2x36 over {0} of the random
// cases), a copy of a permuted view in runs of 30, a slice of 70 columns in rows 119 apart
// over two far rows, [B, 7, 2, 5, 97, 4] over {2, 3}, [B, 41, 48] over the 41, and 83 columns
// in rows 85 apart over two far rows; and copies of narrow rows (over a unit axis), which the
// stacked tiles take from the tiled rows kernel: 37 columns in rows 39 apart, 39 in rows 54
// apart. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, SmallColumnTilesOfVectorsStacked) {
  using T = TypeParam;
  owned_stream stream;
  // Outer indices that give a view of about 1.5 MiB, `per_outer` elements each.
  auto outer = [](std::int64_t per_outer) {
    const std::int64_t bytes = std::int64_t{3} << 19;
    return std::max<std::int64_t>(1, (bytes + per_outer * std::int64_t(sizeof(T)) - 1) / (per_outer * std::int64_t(sizeof(T))));
  };
  const std::int64_t b1 = outer(137 * 1584), b2 = outer(19 * 570), b3 = outer(2 * 34 * 70), b4 = outer(7 * 2 * 5 * 97 * 4),
                     b5 = outer(41 * 48), b6 = outer(2 * 96 * 85), b7 = outer(37), b8 = outer(39);
  const std::vector<view_at_end> views = {
      {{2, b1, 137, 11, 2, 36}, {396, 137 * 1584, 1584, 36, 792, 1}, {0}, 0},
      {{19, b2, 37, 1, 30}, {30, 570, b2 * 570, 570, 1}, {3}, 0},
      {{2, b3, 34, 70}, {b3 * 36 * 119, 36 * 119, 119, 1}, {0}, 1},
      {{b4, 7, 2, 5, 97, 4}, {7 * 2 * 5 * 97 * 4, 2 * 5 * 97 * 4, 5 * 97 * 4, 97 * 4, 4, 1}, {2, 3}, 0},
      {{b5, 41, 48}, {41 * 48, 48, 1}, {1}, 2},
      {{2, b6, 96, 83}, {b6 * 96 * 85, 96 * 85, 85, 1}, {0}, 3},
      {{1, b7, 37}, {b7 * 39, 39, 1}, {0}, 0},
      {{b8, 1, 39}, {54, 54, 1}, {1}, 1},
  };
  expect_views_at_end<T>(views, 89, stream.get());
}

// The same plans where each kept index's elements are one stretch of memory, its slab ([B, R,
// C] over R, or a slice of the columns' axis), a few to hundreds of slabs to a tile: read
// through the tile (axis/launch.cuh: wide_tiled_slabs_for), a thread or a group of 2 to 32
// lanes per output. Slabs of 26 rows of 3 columns (f16 753x300x26x3 over {2} of the random
// cases), a slice with gaps between slabs and between a slab's rows (bf16 1112x19x24x17x2
// over {2}: 24 rows of 34 columns 884 apart), 3 rows of 172 columns, 2 rows of 35 columns
// 37 apart, a few outputs of 382 and 500 rows (a group of lanes per output), and 307 rows of
// 6 columns (wide slabs for 1- and 2-byte elements, strided runs for the others). Each view
// ends at its allocation's end, as above.
TYPED_TEST(AxisViews, SmallColumnTilesReadAsWideSlabs) {
  using T = TypeParam;
  owned_stream stream;
  const std::int64_t outer = warpfold_test::quick_mode() ? 3 : 53;
  std::vector<view_at_end> views = {
      {{outer, 300, 26, 3}, {23400, 78, 3, 1}, {2}, 0},
      {{outer, 19, 24, 17, 2}, {18564, 884, 34, 2, 1}, {2}, 3},
      {{outer, 13, 3, 172}, {6708, 516, 172, 1}, {2}, 1},
      {{outer, 307, 2, 35}, {22718, 74, 37, 1}, {2}, 2},
      {{outer, 382, 3}, {1146, 3, 1}, {1}, 0},
      {{outer, 50, 500, 3}, {75000, 1500, 3, 1}, {2}, 1},
      {{outer, 87, 307, 6}, {160254, 1842, 6, 1}, {2}, 0},
      {{outer, 13, 24, 9}, {2808, 216, 9, 1}, {2}, 2},
      {{outer, 40, 25, 6}, {6400, 160, 6, 1}, {2}, 1},
  };
  expect_views_at_end<T>(views, 79, stream.get());
}

// Outputs of several runs, or of one run under kept axes that are not one stride, where the
// runs are not whole vectors ([B, K, R] over {0, 2} with an odd R; a slice of rows): the
// grouped rows kernel reads each run as the aligned 16-byte blocks that hold it. Runs start at
// every shift; runs of fewer elements than a vector (9 int8s) are read element by element.
// Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, OutputsOfSeveralRunsThatAreNotWholeVectors) {
  owned_stream stream;
  const std::int64_t many = 5003;  // enough outputs for the grouped kernel, as above
  expect_views_at_end<TypeParam>(
      {
          {{6, many, 61}, {many * 61, 61, 1}, {0, 2}, 0},            // [B, K, R] over {0, 2}
          {{3, many, 17}, {many * 19, 19, 1}, {0, 2}, 1},            // the same, rows of 17 in a slice
          {{4, many, 9}, {2 * many * 9, 9, 1}, {0, 2}, 3},           // every other B, runs of 9
          {{100, 60, 35}, {62 * 35, 35, 1}, {2}, 35},                // x[:, 1:-1, :]: two kept axes, one run
          {{2, 5, many / 5, 130}, {5 * (many / 5) * 131, 131, 5 * 131, 1}, {0, 3}, 2},  // kept axes swapped
      },
      61, stream.get());
}

// Short runs side by side: each output reduces runs of fewer than four vectors' worth, and
// the kept axis just above the run puts neighbouring outputs' runs back to back ([B, K, L]
// over B and L). These are read as columns of the K x L slab, each output folding its L
// columns at the store (axis/launch.cuh: merged_columns_for; argmin keeps the rows kernels).
// Run lengths from 2 to the longest that merges for 2-, 4- and 8-byte elements, slabs that
// take several column tiles (so that tiles start on whole outputs), enough rows to split
// the rows over blocks, the slab's axis not last in the output (a permuted view), and two
// reduced axes outside it. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, ShortRunsSideBySideAsMergedColumns) {
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 97 : 2311;
  expect_views_at_end<TypeParam>(
      {
          {{41, 37, 5}, {185, 5, 1}, {0, 2}, 0},                        // f32 1409x3939x5 in small
          {{tall, 9, 6}, {54, 6, 1}, {0, 2}, 1},                        // one slab, many rows: split
          {{7, 3000, 5}, {15000, 5, 1}, {0, 2}, 3},                     // several column tiles a slab
          {{33, 5, 43, 2}, {430, 86, 2, 1}, {0, 3}, 1},                 // runs of 2, kept axes that merge
          {{9, 50, 27}, {1350, 27, 1}, {0, 2}, 3},                      // runs of 27
          {{5, 4, 31}, {124, 31, 1}, {0, 2}, 0},                        // runs of 31
          {{6, 11, 15}, {165, 15, 1}, {0, 2}, 2},                       // runs of 15
          {{3, 19, 43, 57, 7}, {5719, 7, 133, 17157, 1}, {3, 4}, 0},    // permuted: slab axis 19 not last
          {{4, 6, 25, 3}, {600, 90, 3, 1}, {0, 1, 3}, 2},               // two reduced axes, the outer sliced
          {{2, tall, 3, 7, 4}, {tall * 84, 84, 28, 4, 1}, {1, 2, 4}, 1},  // kept 2 outside, runs of 4
      },
      67, stream.get());
}

// Longer runs side by side: runs of four vectors' worth and more for every element size, odd
// and prime lengths, 255 to 257, slabs of many column tiles, two outputs over many rows, few
// rows, a kept axis outside, slabs with gaps (a slice), a permuted view. Runs under sixteen
// vectors merge into columns only in inputs of 4 MiB and more (axis/launch.cuh:
// merged_columns_for); these views are smaller and go to the rows kernels, the side of the rule
// that most such views take. (The merged side ran in the benchmark, every answer checked: see
// docs/results/H200/axis_merged_runs_2026-11-29.) Each view ends at its allocation's end, as
// above.
TYPED_TEST(AxisViews, LongerRunsSideBySide) {
  owned_stream stream;
  const std::int64_t tall = warpfold_test::quick_mode() ? 61 : 1201;
  expect_views_at_end<TypeParam>(
      {
          {{tall, 7, 54}, {378, 54, 1}, {0, 2}, 0},                     // bf16 1599x478x54, smaller
          {{23, 11, 87}, {957, 87, 1}, {0, 2}, 1},                      // runs of 87
          {{9, 5, 173}, {865, 173, 1}, {0, 2}, 3},                      // runs of 173 (prime)
          {{5, 3, 256}, {768, 256, 1}, {0, 2}, 0},
          {{5, 3, 255}, {765, 255, 1}, {0, 2}, 2},
          {{4, 3, 257}, {771, 257, 1}, {0, 2}, 1},
          {{tall, 2, 33}, {66, 33, 1}, {0, 2}, 0},                      // two outputs, many rows
          {{6, 40, 64}, {2560, 64, 1}, {0, 2}, 1},                      // slabs of many tiles
          {{3, 4, 9, 120}, {4 * 9 * 120, 9 * 120, 120, 1}, {1, 3}, 0},  // a kept axis outside
          {{7, 6, 47}, {6 * 47 + 5, 47, 1}, {0, 2}, 2},                 // slabs with gaps of 5
          {{47, 13, 10}, {1, 47 * 10, 47}, {0, 1}, 1},                  // permuted: runs of 47, 10 kept
      },
      73, stream.get());
}

// Kept axes whose order in memory is not their order in the output (permuted views): the rows
// kernels walk them in memory order and write each output where the output's order puts it
// (axis/launch.cuh: in_memory_order, for outputs that read 32 bytes or more, or whose axis
// innermost in memory is innermost in the output too). Views that send the walk to each rows
// kernel: rows of 41 through shared memory (a smaller f32 25x29x41x8x530 over {2}), rows of 16
// (whole vectors, which the flat kernel takes only in output order), rows of 300 by groups of
// lanes, a few rows of 20000 by blocks; a broadcast kept axis inside another; several runs an
// output; rows of 5 and of 3 with the outer kept axes swapped and the inner one in place (a
// smaller bf16 4x5x2673x1319 over {1}). Each view ends at its allocation's end.
TYPED_TEST(AxisViews, PermutedKeptAxesAreWalkedInMemoryOrder) {
  owned_stream stream;
  expect_views_at_end<TypeParam>(
      {
          {{5, 7, 41, 3, 11}, {9471, 451, 1, 3157, 41}, {2}, 0},      // parent [5, 3, 7, 11, 41]
          {{5, 7, 16, 3, 11}, {3696, 176, 1, 1232, 16}, {2}, 0},      // parent [5, 3, 7, 11, 16]
          {{3, 5, 300, 7, 45}, {472500, 13500, 1, 67500, 300}, {2}, 2},  // parent [3, 7, 5, 45, 300]
          {{2, 3, 20000, 5}, {60000, 20000, 1, 120000}, {2}, 1},       // parent [5, 2, 3, 20000]
          {{4, 3, 37}, {37, 0, 1}, {2}, 0},                            // a broadcast axis inside
          {{6, 9, 2, 13, 5}, {5, 390, 3510, 30, 1}, {2, 4}, 1},         // parent [2, 9, 13, 6, 5]: two runs of 5
          {{4, 5, 267, 131}, {655, 1, 2620, 5}, {1}, 0},               // parent [267, 4, 131, 5]
          {{3, 301, 37, 3}, {111, 333, 3, 1}, {3}, 1},                 // parent [301, 3, 37, 3]
      },
      71, stream.get());
}

// Few elements per output, in an output whose order is not memory's: the transposed tile
// (axis/transposed_tiles_kernel.cuh). A contiguous slab of small axes below the axis that the
// tile's rows run along, the output's innermost axis far away in memory (rows of the tile
// anywhere), two reduced axes in the slab, reduced axes outside the tile (folded while
// reading), a slice whose gaps break the rows, kept axes around the tile, tiles cut at every
// edge, and reductions of 256 bytes an output (the largest taken for 4-byte types; 2-byte types
// at 128, 8-byte ones go to the other kernels). The planner takes the tiles only where they fill
// the GPU, so the views run once forced through the kernel (a test-only override), then as the
// planner chooses. Each view ends at its allocation's end, as above.
TYPED_TEST(AxisViews, TransposedOutputsThroughTiles) {
  owned_stream stream;
  const bool quick = warpfold_test::quick_mode();
  const std::int64_t w = quick ? 301 : 4099, c = quick ? 1001 : 20011;
  const std::vector<view_at_end> views{
          {{27, w, 3}, {1, 81, 27}, {2}, 0},                            // rows of 3 x 27 slabs along w
          {{27, w, 3}, {1, 83, 27}, {2}, 1},                            // gaps of 2: a slab per row
          {{c, 17, 3}, {1, 3 * c, c}, {2}, 1},                          // 17 rows of the output's innermost axis
          {{2, 9, c / 2, 7}, {9 * 7 * (c / 2), 7 * (c / 2), 1, c / 2}, {0}, 3},  // and a kept axis around
          {{3, 2, 5, 39, w}, {2 * 5 * 39 * w, 5 * 39 * w, 39 * w, 1, 39}, {2}, 2},  // reduced outside the tile
          {{5, w, 3, 2}, {1, 30, 5, 15}, {2, 3}, 1},                    // two reduced axes in the slab
          {{13, w, 4, 3}, {1, 13, 13 * w, 52 * w}, {2}, 0},             // slab, rows along w, 3 rows, 4 outside
          {{27, 5, 3}, {1, 81, 27}, {2}, 3},                            // one small tile
          {{27, w / 4, 64}, {1, 27 * 64, 27}, {2}, 0},                  // 64 elements an output
          {{1, 9, c / 2, 7}, {1, 7 * (c / 2), 1, c / 2}, {0}, 1},       // copies: a transpose under a kept axis
          {{3, 1, 2, 117, 24}, {117 * 24 * 2, 1, 117 * 24, 1, 117}, {1}, 2},  // whole 117-element slabs, 24 of them
          // Slabs that would fit the staging only a few to a tile, a few outputs side by side:
          // tiles of about 32 rows of the output's innermost axis instead, padded when staged.
          {{2, 3, 1, 1171, 124}, {435612, 145204, 145204, 1, 1171}, {2}, 1},  // batches of transposes, copied
          {{1, 1500, 300}, {1, 1, 1500}, {0}, 3},                        // a transpose, copied
          {{644, 300, 3}, {1, 644, 193200}, {2}, 2},                     // slabs of 644 kept: six to a tile
          {{w, 1, 3}, {3, 1, 1}, {1}, 0},                                // memory's order: not a tile
  };
  {
    const warpfold::testing::scoped_transposed_tiles forced(true);
    expect_views_at_end<TypeParam>(views, 79, stream.get());
  }
  expect_views_at_end<TypeParam>(views, 83, stream.get());
}

// Reductions over axes of extent 1 only: copies of the view, converted (a columns plan of one
// row where a kept axis runs along memory). Contiguous, sliced with gaps, and permuted.
TYPED_TEST(AxisViews, ReducingOnlyUnitAxesIsACopy) {
  owned_stream stream;
  expect_views_at_end<TypeParam>(
      {
          {{3, 1, 1031}, {1031, 1031, 1}, {1}, 0},                     // contiguous
          {{3, 9, 1, 67, 33}, {9 * 2212, 2212, 2212, 33, 1}, {2}, 1},  // sliced: 67 x 33 of each slab of 2212
          {{1, 517, 1}, {517, 1, 1}, {0, 2}, 5},                       // two unit axes, unaligned start
          {{41, 1, 29}, {1, 41 * 29, 41}, {1}, 0},                     // permuted: the kept inner axis is not stride 1
      },
      61, stream.get());
}

// The views people make, by name, on shapes that reach each kernel.
TEST_F(AxisViewsNamed, TransposedPermutedSlicedAndBroadcast) {
  owned_stream stream;
  const std::int64_t R = 3001, C = 67;  // odd and prime
  const warpfold_test::device_input<float> m(values_with_ties<float>(R * C, 5));
  // x.T (C, R), reduced along each axis and both.
  for (const std::vector<int>& axes : {std::vector<int>{0}, {1}, {0, 1}}) {
    EXPECT_TRUE((expect_view<op::sum, float>(m, {R * C, 0, {C, R}, {1, C}, axes}, stream.get())));
    EXPECT_TRUE((expect_view<op::argmax, float>(m, {R * C, 0, {C, R}, {1, C}, axes}, stream.get())));
  }
  // x[:, 1:-1] and x[1:-1, :], and x[:, ::2].
  for (const std::vector<int>& axes : {std::vector<int>{0}, {1}}) {
    EXPECT_TRUE((expect_view<op::sum, float>(m, {R * C, 1, {R, C - 2}, {C, 1}, axes}, stream.get())));
    EXPECT_TRUE((expect_view<op::sum, float>(m, {R * C, C, {R - 2, C}, {C, 1}, axes}, stream.get())));
    EXPECT_TRUE((expect_view<op::min, float>(m, {R * C, 0, {R, (C + 1) / 2}, {C, 2}, axes}, stream.get())));
  }
  // A (4, 5, 6, 7) tensor permuted to (2, 0, 3, 1), over two axes each way.
  const warpfold_test::device_input<float> t(values_with_ties<float>(4 * 5 * 6 * 7, 6));
  for (const std::vector<int>& axes : {std::vector<int>{0, 2}, {1, 3}, {0, 1}, {2, 3}, {0, 3}}) {
    EXPECT_TRUE((expect_view<op::sum, float>(t, {840, 0, {6, 4, 7, 5}, {7, 210, 1, 42}, axes}, stream.get())));
    EXPECT_TRUE((expect_view<op::argmin, float>(t, {840, 0, {6, 4, 7, 5}, {7, 210, 1, 42}, axes}, stream.get())));
  }
  // A row broadcast over 1000 rows (torch's expand), and a scalar broadcast to a matrix.
  EXPECT_TRUE((expect_view<op::sum, float>(m, {R * C, 0, {1000, C}, {0, 1}, {0}}, stream.get())));
  EXPECT_TRUE((expect_view<op::max, float>(m, {R * C, 0, {1000, C}, {0, 1}, {1}}, stream.get())));
  EXPECT_TRUE((expect_view<op::argmax, float>(m, {R * C, 7, {30, 40}, {0, 0}, {0, 1}}, stream.get())));
}

TEST_F(AxisViewsNamed, BadStridesAreRefusedAndNothingIsWritten) {
  owned_stream stream;
  const warpfold_test::device_input<float> m(values_with_ties<float>(64, 5));
  const sentinel_output<float> out(8);
  auto expect_refused = [&](const warpfold::shape& in, const warpfold::strides& view, const std::string& words) {
    try {
      warpfold::sum_axes(m.data(), in, view, {1}, out.data(), out.size(), stream.get());
      ADD_FAILURE() << "expected warpfold::invalid_argument";
    } catch (const warpfold::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_refused({8, 8}, {8, -1}, "negative");
  expect_refused({8, 8}, {8}, "1 strides for shape (8, 8)");
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));
  EXPECT_TRUE(out.untouched_from(0));
}

}  // namespace
