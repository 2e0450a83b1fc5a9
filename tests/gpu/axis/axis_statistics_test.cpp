// Means, variances and norms along axes (statistics_axes.hpp), for every float type, against a
// CPU reference worked out here from the axis reference's layout (which input elements each
// output reduces; axis_reference.hpp), over shapes chosen to reach every kernel of the axis
// planner, random strided views, empty axes, and in graph capture.
//
// The data are quarters in [-1, 2) (values_with_ties), so most answers are exact and are
// checked bit for bit: every partial sum of quarters, and of their squares (sixteenths) in
// double, is exact, so
//   mean    = R(sum) / R(n)               (the division the library documents, once),
//   norm_l1 = R(sum |x|),  norm_linf = R(max |x|),
//   norm_l2 = R(sqrt(double(sum x^2)))     (bfloat16, float: squares summed in double; half:
//                                           in float, exact while the sum stays below 2^20).
// A missing or doubled element, or a wrong count, changes these bits. The variance (Welford and
// Chan's merges divide), double's L2 norm (Blue's scaled sums) and half's past 2^20 are held to
// bounds that grow with n.
#include <gtest/gtest.h>

#include <warpfold/statistics_axes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "axis_test_util.hpp"

namespace {

using namespace axis_test;

template <typename T>
using R = warpfold::float_result_t<T>;
template <typename T>
using MV = warpfold::mean_var<R<T>>;

// What one output's elements add up to, in long double (exact for these data).
struct output_sums {
  std::int64_t n = 0;
  long double sum = 0, sum_abs = 0, sum_squares = 0, max_abs = 0;
};

template <typename T>
output_sums sums_of(const T* host, const layout& l, std::int64_t o) {
  output_sums s;
  for (std::int64_t r : l.reduced_offset) {
    const long double x = static_cast<long double>(to_real(host[l.output_base[o] + r]));
    ++s.n;
    s.sum += x;
    s.sum_abs += std::fabs(x);
    s.sum_squares += x * x;
    s.max_abs = std::max(s.max_abs, std::fabs(x));
  }
  return s;
}

// Same bits, or both NaN.
template <typename V>
bool same_value(V got, V expected) {
  return (std::isnan(got) && std::isnan(expected)) || got == expected;
}

template <typename V>
::testing::AssertionResult within(V got, long double expected, long double bound, const char* what, std::int64_t o) {
  if (std::isnan(expected) ? std::isnan(got) : std::fabs(static_cast<long double>(got) - expected) <= bound)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << " of output " << o << ": got " << got << ", expected " << expected
                                       << " within " << bound;
}

// One (shape, view, axes) case, through the blocking form or the asynchronous one (whose
// output has slack that must keep the sentinel).
template <typename T>
class statistics_case {
 public:
  statistics_case(const T* d_view, const T* host_view, std::vector<std::int64_t> extents, std::vector<std::int64_t> strides,
                  std::vector<int> axes, cudaStream_t stream, bool async)
      : d_view_(d_view), host_(host_view), extents_(std::move(extents)), strides_(std::move(strides)),
        axes_(std::move(axes)), layout_(make_layout(extents_, axes_, strides_)), stream_(stream), async_(async) {}

  std::string text() const {
    std::string t = layout_.text;
    if (!strides_.empty()) {
      t += " strides (";
      for (std::size_t a = 0; a < strides_.size(); ++a) t += (a ? ", " : "") + std::to_string(strides_[a]);
      t += ")";
    }
    return t + (async_ ? ", async" : ", blocking");
  }

  // Runs the named statistic (a lambda taking the four forms' common arguments) and returns
  // its outputs.
  template <typename Out, typename Blocking, typename Async>
  std::vector<Out> run(Blocking blocking, Async async) const {
    const warpfold::shape in(extents_);
    const warpfold::axes reduce(axes_);
    if (!async_) {
      if (strides_.empty()) return blocking(in, nullptr, reduce);
      const warpfold::strides view(strides_);
      return blocking(in, &view, reduce);
    }
    const std::int64_t outputs = layout_.outputs();
    const sentinel_output<Out> out(outputs + output_slack);
    if (strides_.empty()) {
      async(in, nullptr, reduce, out.data(), out.size());
    } else {
      const warpfold::strides view(strides_);
      async(in, &view, reduce, out.data(), out.size());
    }
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream_));
    EXPECT_TRUE(out.untouched_from(outputs)) << text();
    return out.download(outputs);
  }

  void check_all() const {
    using V = R<T>;
    const T* d = d_view_;
    const cudaStream_t s = stream_;
    const std::int64_t outputs = layout_.outputs();
    std::vector<output_sums> sums(static_cast<std::size_t>(outputs));
    for (std::int64_t o = 0; o < outputs; ++o) sums[o] = sums_of(host_, layout_, o);
    const long double eps = std::numeric_limits<V>::epsilon();

#define WARPFOLD_TEST_FORMS(name)                                                                                    \
  [&](const warpfold::shape& in, const warpfold::strides* view, const warpfold::axes& reduce) {                      \
    return view ? warpfold::name##_axes(d, in, *view, reduce, s) : warpfold::name##_axes(d, in, reduce, s);          \
  },                                                                                                                 \
      [&](const warpfold::shape& in, const warpfold::strides* view, const warpfold::axes& reduce, V* out,            \
          std::int64_t capacity) {                                                                                   \
        view ? warpfold::name##_axes(d, in, *view, reduce, out, capacity, s)                                         \
             : warpfold::name##_axes(d, in, reduce, out, capacity, s);                                               \
      }
    const std::vector<V> mean = run<V>(WARPFOLD_TEST_FORMS(mean));
    const std::vector<V> l1 = run<V>(WARPFOLD_TEST_FORMS(norm_l1));
    const std::vector<V> l2 = run<V>(WARPFOLD_TEST_FORMS(norm_l2));
    const std::vector<V> linf = run<V>(WARPFOLD_TEST_FORMS(norm_linf));
#undef WARPFOLD_TEST_FORMS
    ASSERT_EQ(mean.size(), sums.size()) << text();
    for (std::int64_t o = 0; o < outputs; ++o) {
      const output_sums& e = sums[o];
      const V expected_mean = static_cast<V>(e.sum) / static_cast<V>(e.n);
      EXPECT_TRUE(same_value(mean[o], expected_mean))
          << text() << ": mean of output " << o << " is " << mean[o] << ", expected " << expected_mean;
      EXPECT_EQ(l1[o], static_cast<V>(e.sum_abs)) << text() << ": norm_l1 of output " << o;
      EXPECT_EQ(linf[o], static_cast<V>(e.max_abs)) << text() << ": norm_linf of output " << o;
      const long double norm = std::sqrt(e.sum_squares);
      // Half squares are summed in float: sixteenths are exact there below 2^20, and partial
      // sums of squares never exceed the whole.
      const bool exact_squares = !std::is_same_v<T, __half> || e.sum_squares < 0x1p20L;
      if (std::is_same_v<T, double> || !exact_squares) {
        const long double squares_eps = std::is_same_v<T, double> ? eps : std::numeric_limits<float>::epsilon();
        EXPECT_TRUE(within(l2[o], norm, (e.n + 4) * squares_eps * norm, "norm_l2", o)) << text();
      } else {
        EXPECT_EQ(l2[o], static_cast<V>(std::sqrt(static_cast<double>(e.sum_squares)))) << text() << ": norm_l2 of output " << o;
      }
    }

    for (const double correction : {1.0, 0.0}) {
      for (const bool standard_deviation : {false, true}) {
        const auto blocking = [&](const warpfold::shape& in, const warpfold::strides* view, const warpfold::axes& reduce) {
          if (standard_deviation)
            return view ? warpfold::std_mean_axes(d, in, *view, reduce, correction, s)
                        : warpfold::std_mean_axes(d, in, reduce, correction, s);
          return view ? warpfold::var_mean_axes(d, in, *view, reduce, correction, s)
                      : warpfold::var_mean_axes(d, in, reduce, correction, s);
        };
        const auto async = [&](const warpfold::shape& in, const warpfold::strides* view, const warpfold::axes& reduce,
                               MV<T>* out, std::int64_t capacity) {
          if (standard_deviation) {
            if (view) warpfold::std_mean_axes(d, in, *view, reduce, correction, out, capacity, s);
            else warpfold::std_mean_axes(d, in, reduce, correction, out, capacity, s);
          } else {
            if (view) warpfold::var_mean_axes(d, in, *view, reduce, correction, out, capacity, s);
            else warpfold::var_mean_axes(d, in, reduce, correction, out, capacity, s);
          }
        };
        const std::vector<MV<T>> got = run<MV<T>>(blocking, async);
        ASSERT_EQ(got.size(), sums.size()) << text();
        const char* what = standard_deviation ? "std_mean's standard deviation" : "var_mean's variance";
        for (std::int64_t o = 0; o < outputs; ++o) {
          const output_sums& e = sums[o];
          const long double nan = std::numeric_limits<long double>::quiet_NaN();
          const long double mean_exact = e.n ? e.sum / e.n : nan;
          // Sequential and merged Welford steps: at most about n roundings of the running
          // mean, each within eps of the largest magnitude; of M2, each within eps of sum x^2.
          const long double growth = (e.n + 8) * eps;
          EXPECT_TRUE(within(got[o].mean, mean_exact, growth * e.max_abs, "var_mean's mean", o)) << text();
          const long double dof = e.n - correction;
          const long double m2 = e.n ? e.sum_squares - e.sum * e.sum / e.n : 0;
          const long double var = e.n && dof > 0 ? m2 / dof : nan;
          const long double var_bound = dof > 0 ? growth * e.sum_squares / dof : 0;
          if (standard_deviation) {
            // sqrt is monotone: the bound on the variance carries over.
            const long double low = std::sqrt(std::max<long double>(0, var - var_bound));
            const long double high = std::sqrt(var + var_bound);
            const long double sd = std::sqrt(var);
            EXPECT_TRUE(within(got[o].var, sd, std::max(sd - low, high - sd) + eps * sd, what, o)) << text();
          } else {
            EXPECT_TRUE(within(got[o].var, var, var_bound, what, o)) << text();
          }
        }
      }
    }
  }

 private:
  const T* d_view_;
  const T* host_;
  std::vector<std::int64_t> extents_, strides_;
  std::vector<int> axes_;
  layout layout_;
  cudaStream_t stream_;
  bool async_;
};

template <typename T>
void expect_contiguous(const std::vector<std::int64_t>& extents, const std::vector<int>& axes, std::uint64_t seed,
                       cudaStream_t stream, bool async) {
  const warpfold_test::device_input<T> input(values_with_ties<T>(element_count(extents), seed));
  const statistics_case<T> c(input.data(), input.host_values(), extents, {}, axes, stream, async);
  SCOPED_TRACE(c.text());
  c.check_all();
  EXPECT_TRUE(input.unchanged()) << c.text();
}

template <typename T>
class AxisStatistics : public warpfold_test::gpu_test {};
class AxisStatisticsNamed : public warpfold_test::gpu_test {};
using statistic_types = ::testing::Types<__half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(AxisStatistics, statistic_types, type_names);

// Every axis subset of small shapes, with empty and extent-1 axes.
TYPED_TEST(AxisStatistics, EveryAxisSetOfSmallShapes) {
  owned_stream stream;
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {1}, {7}, {0}, {5, 0}, {3, 5, 7}, {1, 13, 1}, {2, 3, 4, 5}};
  std::size_t index = 0;
  for (const auto& extents : shapes)
    for (const auto& axes : every_axis_subset(static_cast<int>(extents.size()))) {
      expect_contiguous<TypeParam>(extents, axes, 11 + index, stream.get(), index % 2 == 1);
      ++index;
    }
}

// Shapes that send the planner to each of its kernels: flat rows (rows of 1 to 32 aligned
// vectors), tiled rows (rows of 3), short rows, row chunks split over blocks (few long rows),
// flat columns, column tiles split along the rows (few wide columns), the full reduction,
// batch-norm's {0, 2, 3}, and short runs side by side (read as merged columns).
TYPED_TEST(AxisStatistics, ShapesForEveryKernel) {
  owned_stream stream;
  const bool quick = warpfold_test::quick_mode();
  struct shape_case {
    std::vector<std::int64_t> extents;
    std::vector<int> axes;
  };
  std::vector<shape_case> cases = {
      {{4099, 8}, {1}},      {{1001, 32}, {1}},       {{517, 3}, {1}},        {{33, 1021}, {1}},
      {{7, 100003}, {1}},    {{3, 5, 20011}, {0, 2}}, {{100003, 7}, {0}},     {{1000, 16}, {0}},
      {{3, 70001}, {0}},     {{64, 4099}, {0}},       {{262147}, {0}},        {{8, 5, 9, 11}, {0, 2, 3}},
      {{1, 1, 65537}, {2}},  {{129, 1}, {0}},         {{41, 37, 5}, {0, 2}},  {{2311, 9, 6}, {0, 2}},
      {{300007, 3}, {0}},    {{9, 7, 171, 3}, {0, 2}},
  };
  if (!quick) cases.push_back({{2, 600011}, {1}});
  for (std::size_t i = 0; i < cases.size(); ++i)
    expect_contiguous<TypeParam>(cases[i].extents, cases[i].axes, 100 + i, stream.get(), i % 2 == 1);
}

// Random strided views: permuted axes, slices x[1:-1], every other element, broadcast axes,
// starting inside a larger parent; random axis sets.
TYPED_TEST(AxisStatistics, RandomViews) {
  using T = TypeParam;
  owned_stream stream;
  std::mt19937_64 random(warpfold_test::seed_for("axis-statistics-views", sizeof(T)));
  const int trials = warpfold_test::quick_mode() ? 6 : 30;
  for (int trial = 0; trial < trials; ++trial) {
    const int rank = 1 + static_cast<int>(random() % 4);
    const warpfold_test::parent_array p = warpfold_test::random_parent(random, rank, 9, 1 << 18, 1);
    const std::vector<std::int64_t>& parent = p.extents;
    const std::vector<std::int64_t>& parent_stride = p.strides;
    const std::int64_t elements = p.elements;
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::int64_t> extents(rank), strides(rank);
    std::int64_t start = 0;
    for (int a = 0; a < rank; ++a) {
      const int from = order[a];
      const int kind = static_cast<int>(random() % 4);
      if (kind == 0 && parent[from] >= 3) {  // x[1:-1]
        extents[a] = parent[from] - 2;
        strides[a] = parent_stride[from];
        start += parent_stride[from];
      } else if (kind == 1 && parent[from] >= 2) {  // x[::2]
        extents[a] = (parent[from] + 1) / 2;
        strides[a] = 2 * parent_stride[from];
      } else if (kind == 2) {  // a broadcast axis
        extents[a] = 1 + static_cast<std::int64_t>(random() % 4);
        strides[a] = 0;
      } else {
        extents[a] = parent[from];
        strides[a] = parent_stride[from];
      }
    }
    std::vector<int> axes;
    for (int a = 0; a < rank; ++a)
      if (random() % 2) axes.push_back(a);
    const warpfold_test::device_input<T> input(values_with_ties<T>(elements, 500 + trial));
    const statistics_case<T> c(input.data() + start, input.host_values() + start, extents, strides, axes, stream.get(),
                               trial % 2 == 1);
    SCOPED_TRACE(c.text());
    c.check_all();
  }
}

// The L2 norm along axes keeps its range: rows of {3e30, 4e30} and {3e-30, 4e-30} in float,
// {3e300, 4e300} and {3e-300, 4e-300} in double.
TYPED_TEST(AxisStatistics, L2NormAlongAxesNeitherOverflowsNorUnderflows) {
  using T = TypeParam;
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    GTEST_SKIP() << "half types cannot hold these magnitudes";
  } else {
    const double big = std::is_same_v<T, float> ? 1e30 : 1e300;
    const double small = std::is_same_v<T, float> ? 1e-30 : 1e-300;
    const std::vector<T> values = {T(3 * big), T(4 * big), T(3 * small), T(4 * small)};
    const warpfold_test::device_input<T> input(values);
    const std::vector<R<T>> rows = warpfold::norm_l2_axes(input.data(), {2, 2}, {1});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_NEAR(rows[0] / (5 * big), 1.0, 4 * std::numeric_limits<R<T>>::epsilon());
    EXPECT_NEAR(rows[1] / (5 * small), 1.0, 4 * std::numeric_limits<R<T>>::epsilon());
  }
}

// Bad input: clear errors, nothing written.
TEST_F(AxisStatisticsNamed, BadInputIsRefusedAndNothingIsWritten) {
  const warpfold_test::device_input<float> input(values_with_ties<float>(64, 3));
  const sentinel_output<float> out(8);
  std::vector<float> host(64, 1.0f);
  EXPECT_THROW(warpfold::mean_axes(host.data(), {8, 8}, {1}), warpfold::invalid_argument);  // a host pointer
  EXPECT_THROW(warpfold::norm_l2_axes(static_cast<const float*>(nullptr), {8, 8}, {1}), warpfold::invalid_argument);
  EXPECT_THROW(warpfold::var_mean_axes(input.data(), {8, 8}, {2}), warpfold::invalid_argument);     // no axis 2
  EXPECT_THROW(warpfold::var_mean_axes(input.data(), {8, 8}, {0, 0}), warpfold::invalid_argument);  // twice
  EXPECT_THROW(warpfold::mean_axes(input.data(), {8, 8}, {1}, out.data(), 7, nullptr),
               warpfold::invalid_argument);  // room for 7 of 8 outputs
  EXPECT_THROW(warpfold::norm_l1_axes(input.data(), {8, 8}, warpfold::strides{8}, {0}),
               warpfold::invalid_argument);  // one stride for two axes
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(out.untouched_from(0));
  EXPECT_TRUE(input.unchanged());
}

// The asynchronous form can be captured in a graph, and replays give the blocking form's bits.
TEST_F(AxisStatisticsNamed, GraphReplayGivesTheBlockingBits) {
  owned_stream stream;
  const warpfold::shape extents{16, 33, 257};
  const warpfold_test::device_input<float> input(values_with_ties<float>(extents.elements(), 21));
  const std::vector<MV<float>> expected = warpfold::var_mean_axes(input.data(), extents, {0, 2});
  const sentinel_output<MV<float>> out(33);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  warpfold::var_mean_axes(input.data(), extents, {0, 2}, 1.0, out.data(), out.size(), stream.get());
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream.get(), &graph));
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream.get()));
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));
    const std::vector<MV<float>> got = out.download(33);
    for (std::size_t o = 0; o < got.size(); ++o) {
      EXPECT_EQ(got[o].mean, expected[o].mean) << "output " << o << ", replay " << replay;
      EXPECT_EQ(got[o].var, expected[o].var) << "output " << o << ", replay " << replay;
    }
  }
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
}

}  // namespace
