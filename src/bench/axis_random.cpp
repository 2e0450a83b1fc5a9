#include "bench/axis_random.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace warpfold::bench {

std::int64_t view_case::elements() const {
  std::int64_t n = 1;
  for (std::int64_t e : extents) n *= e;
  return n;
}

std::int64_t view_case::reduced() const {
  std::int64_t n = 1;
  for (int d : dims) n *= extents[static_cast<std::size_t>(d)];
  return n;
}

std::int64_t view_case::outputs() const {
  const std::int64_t r = reduced();
  return r == 0 ? 0 : elements() / r;
}

namespace {

constexpr int min_log2_elements = 16, max_log2_elements = 27;
const dtype case_types[] = {dtype::f32, dtype::f16, dtype::bf16, dtype::i32};

bool is_prime(std::int64_t n) {
  if (n < 2) return false;
  for (std::int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// Extents of a parent of about 2^log2 elements over `rank` axes: log-uniform shares of the
// exponent, then nudged now and then to an odd number or a prime, and some axes of 1.
std::vector<std::int64_t> draw_extents(std::mt19937_64& random, int rank, double log2) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> weights(static_cast<std::size_t>(rank));
  for (double& w : weights) w = -std::log(1.0 - unit(random));  // exponential: a uniform split of the exponent
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::int64_t> extents;
  for (double w : weights) {
    std::int64_t e = std::max<std::int64_t>(1, std::llround(std::exp2(log2 * w / total)));
    const double nudge = unit(random);
    if (rank > 1 && nudge < 0.08) e = 1;
    else if (nudge < 0.35) e |= 1;  // odd
    else if (nudge < 0.5) while (!is_prime(e) && e < (std::int64_t{1} << 40)) ++e;  // the next prime
    extents.push_back(e);
  }
  return extents;
}

}  // namespace

std::vector<view_case> random_view_cases(int count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<view_case> cases;
  while (static_cast<int>(cases.size()) < count) {
    view_case c;
    c.index = static_cast<int>(cases.size());
    c.type = case_types[random() % 4];
    const int rank = 1 + static_cast<int>(random() % 6);
    const double log2 = min_log2_elements + unit(random) * (max_log2_elements - min_log2_elements);
    std::vector<std::int64_t> parent = draw_extents(random, rank, log2);
    std::int64_t parent_elements = 1;
    for (std::int64_t e : parent) parent_elements *= e;
    // Keep the parent under 2^28 elements (1 GiB of f32) whatever the nudges did.
    if (parent_elements > (std::int64_t{1} << 28) || parent_elements < 2) continue;

    std::vector<std::int64_t> parent_stride(static_cast<std::size_t>(rank), 1);
    for (int a = rank - 2; a >= 0; --a) parent_stride[a] = parent_stride[a + 1] * parent[a + 1];
    std::vector<int> order(static_cast<std::size_t>(rank));
    std::iota(order.begin(), order.end(), 0);
    c.extents = parent;
    c.strides = parent_stride;
    c.view = "contiguous";
    const double kind = unit(random);
    if (rank >= 2 && kind < 0.15) {
      std::swap(order[rank - 1], order[rank - 2]);
      c.view = "transposed";
    } else if (rank >= 3 && kind < 0.3) {
      while (std::is_sorted(order.begin(), order.end())) std::shuffle(order.begin(), order.end(), random);
      c.view = "permuted";
    } else if (kind < 0.5) {
      c.view = "sliced";
    }
    if (c.view == "transposed" || c.view == "permuted") {
      for (int a = 0; a < rank; ++a) {
        c.extents[a] = parent[order[a]];
        c.strides[a] = parent_stride[order[a]];
      }
    } else if (c.view == "sliced") {
      // Each axis of 3 or more is sliced with probability 1/2: x[1:-1], or a random x[a:b].
      bool sliced = false;
      for (int a = 0; a < rank; ++a) {
        if (parent[a] < 3 || random() % 2) continue;
        std::int64_t first = 1, last = parent[a] - 1;
        if (random() % 2) {
          first = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(parent[a] / 2));
          last = first + 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(parent[a] - first - 1));
        }
        c.offset += first * parent_stride[a];
        c.extents[a] = last - first;
        sliced = true;
      }
      if (!sliced) c.view = "contiguous";
    }
    c.parent = parent_elements;
    if (rank == 1) {
      c.dims = {0};
    } else {
      while (c.dims.empty() || static_cast<int>(c.dims.size()) == rank) {
        c.dims.clear();
        for (int a = 0; a < rank; ++a)
          if (random() % 2) c.dims.push_back(a);
      }
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string join_extents(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "x" : "") + std::to_string(values[i]);
  return text;
}

std::string join_dims(const std::vector<int>& dims) {
  std::string text;
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text;
}

std::string describe(const view_case& c) {
  std::string shape = "(", strides = "(", dims = "{";
  for (std::size_t a = 0; a < c.extents.size(); ++a) {
    shape += (a ? ", " : "") + std::to_string(c.extents[a]);
    strides += (a ? ", " : "") + std::to_string(c.strides[a]);
  }
  for (std::size_t i = 0; i < c.dims.size(); ++i) dims += (i ? ", " : "") + std::to_string(c.dims[i]);
  return "case " + std::to_string(c.index) + ": " + std::string(name(c.type)) + " " + shape +
         (c.extents.size() == 1 ? ",)" : ")") + " strides " + strides + (c.extents.size() == 1 ? ",)" : ")") +
         " over " + dims + "}, " + c.view;
}

}  // namespace warpfold::bench
