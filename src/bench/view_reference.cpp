#include "bench/view_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

namespace warpfold::bench {
namespace {

double element(dtype type, const void* data, std::int64_t i) {
  switch (type) {
    case dtype::i32: return static_cast<const std::int32_t*>(data)[i];
    case dtype::f32: return static_cast<const float*>(data)[i];
    case dtype::f64: return static_cast<const double*>(data)[i];
    case dtype::f16: return half_bits_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case dtype::bf16: return bfloat16_bits_to_float(static_cast<const std::uint16_t*>(data)[i]);
  }
  return 0;
}

// The offsets of the kept (or reduced) axes' multi-index number `index`, row-major.
std::int64_t offset_of(std::int64_t index, const std::vector<std::int64_t>& extents,
                       const std::vector<std::int64_t>& strides) {
  std::int64_t offset = 0;
  for (int a = static_cast<int>(extents.size()) - 1; a >= 0; --a) {
    offset += (index % extents[a]) * strides[a];
    index /= extents[a];
  }
  return offset;
}

}  // namespace

view_reference compute_view_reference(const view_case& c, const void* parent) {
  std::vector<std::int64_t> kept_e, kept_s, red_e, red_s;
  for (std::size_t a = 0; a < c.extents.size(); ++a) {
    const bool reduced = std::find(c.dims.begin(), c.dims.end(), static_cast<int>(a)) != c.dims.end();
    (reduced ? red_e : kept_e).push_back(c.extents[a]);
    (reduced ? red_s : kept_s).push_back(c.strides[a]);
  }
  const std::int64_t outputs = c.outputs(), reduced = c.reduced();
  // Work items of (output, piece of its reduced elements): few outputs still use every core.
  const std::int64_t pieces = std::max<std::int64_t>(1, std::min<std::int64_t>(256, reduced / (1 << 16)));
  const std::int64_t items = outputs * pieces;
  std::vector<double> sum(static_cast<std::size_t>(items)), abs_sum(sum.size());
  std::vector<std::int64_t> exact(c.type == dtype::i32 ? sum.size() : 0);
  const unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  auto work = [&](unsigned t) {
    for (std::int64_t item = t; item < items; item += threads) {
      const std::int64_t o = item / pieces, piece = item % pieces;
      const std::int64_t base = c.offset + offset_of(o, kept_e, kept_s);
      const std::int64_t begin = reduced * piece / pieces, end = reduced * (piece + 1) / pieces;
      // An odometer over the reduced axes from index `begin`.
      std::vector<std::int64_t> index(red_e.size());
      std::int64_t rest = begin;
      for (int a = static_cast<int>(red_e.size()) - 1; a >= 0; --a) {
        index[a] = rest % red_e[a];
        rest /= red_e[a];
      }
      std::int64_t at = base + offset_of(begin, red_e, red_s);
      double s = 0, m = 0;
      std::int64_t e = 0;
      for (std::int64_t r = begin; r < end; ++r) {
        if (c.type == dtype::i32) e += static_cast<const std::int32_t*>(parent)[at];
        else {
          const double x = element(c.type, parent, at);
          s += x;
          m += std::fabs(x);
        }
        for (int a = static_cast<int>(red_e.size()) - 1; a >= 0; --a) {
          at += red_s[a];
          if (++index[a] < red_e[a]) break;
          at -= index[a] * red_s[a];
          index[a] = 0;
        }
      }
      sum[item] = s;
      abs_sum[item] = m;
      if (!exact.empty()) exact[item] = e;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& t : pool) t.join();

  view_reference r;
  r.sum.assign(static_cast<std::size_t>(outputs), 0.0);
  r.abs_sum.assign(r.sum.size(), 0.0);
  if (!exact.empty()) r.exact.assign(r.sum.size(), 0);
  for (std::int64_t item = 0; item < items; ++item) {
    r.sum[item / pieces] += sum[item];
    r.abs_sum[item / pieces] += abs_sum[item];
    if (!exact.empty()) r.exact[item / pieces] += exact[item];
  }
  return r;
}

check_outcome check_view_outputs(const view_case& c, const view_reference& reference, const std::vector<double>& got) {
  check_outcome outcome;
  if (got.size() != reference.sum.size()) {
    outcome.detail = std::to_string(got.size()) + " outputs, expected " + std::to_string(reference.sum.size());
    return outcome;
  }
  const bool integer = c.type == dtype::i32;
  const double scale = integer ? 0 : float_tolerance_scale(result_kind::float32, c.reduced());
  std::int64_t wrong = 0;
  std::ostringstream first;
  for (std::size_t o = 0; o < got.size(); ++o) {
    const double expected = integer ? static_cast<double>(reference.exact[o]) : reference.sum[o];
    const double tolerance = integer ? 0 : scale * reference.abs_sum[o] + 1e-37;
    if (std::isfinite(got[o]) && std::fabs(got[o] - expected) <= tolerance) continue;
    if (wrong++ == 0)
      first << "output " << o << ": got " << got[o] << ", expected " << expected << " +- " << tolerance;
  }
  outcome.ok = wrong == 0;
  outcome.detail = outcome.ok ? std::string("every output within tolerance")
                              : std::to_string(wrong) + " of " + std::to_string(got.size()) + " outputs wrong; " + first.str();
  return outcome;
}

}  // namespace warpfold::bench
