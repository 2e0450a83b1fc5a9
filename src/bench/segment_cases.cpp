#include "bench/segment_cases.hpp"

#include <algorithm>
#include <random>

#include "bench/sizes.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

// The mix's runs each cover about this share of n (2^18 elements at the default n): small
// enough that every mean length comes back many times along the array, large enough that a
// run of the longest mean still holds a few segments.
constexpr std::int64_t mix_runs_per_n = 256;

// A different, well-spread seed for each case of one --seed (splitmix64's finalizer).
std::uint64_t case_seed(std::uint64_t seed, std::size_t index) {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ull * (index + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Appends segments back to back; the last one that would pass n is trimmed to end there.
class segment_writer {
 public:
  segment_writer(std::int64_t n, segment_offsets& out) : n_(n), out_(out) {}
  bool covered() const { return at_ >= n_; }
  std::int64_t at() const { return at_; }
  void append(std::int64_t length) {
    const std::int64_t end = std::min(at_ + length, n_);
    out_.begin.push_back(at_);
    out_.end.push_back(end);
    at_ = end;
  }

 private:
  std::int64_t n_;
  segment_offsets& out_;
  std::int64_t at_ = 0;
};

// Uniform in [0, 2 * mean]. The modulo, not std::uniform_int_distribution, whose draws differ
// between standard libraries: the same seed must give the same segments everywhere. (Its
// bias is below 2^-47 for these ranges.)
std::int64_t draw_length(std::mt19937_64& random, std::int64_t mean) {
  return static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(2 * mean + 1));
}

void lay_out_uniform(const segment_case& c, std::mt19937_64& random, segment_offsets& out) {
  out.begin.reserve(static_cast<std::size_t>(c.n / c.mean_length + 64));
  out.end.reserve(out.begin.capacity());
  segment_writer writer(c.n, out);
  while (!writer.covered()) writer.append(draw_length(random, c.mean_length));
}

// The last segment takes what n / huge_segment_count leaves over, so they cover n exactly.
void lay_out_huge(const segment_case& c, segment_offsets& out) {
  segment_writer writer(c.n, out);
  for (int s = 0; s < huge_segment_count; ++s)
    writer.append(s + 1 < huge_segment_count ? c.mean_length : c.n - writer.at());
}

// Runs of segments, each run of one mean length drawn from the list and covering about
// n / mix_runs_per_n elements; each time the covered elements pass another
// 1 / (mix_huge_segments + 1) of n, one huge segment (n / huge_segment_count) comes first.
void lay_out_mix(const segment_case& c, std::mt19937_64& random, segment_offsets& out) {
  const std::vector<std::int64_t>& means = segment_mean_lengths();
  const std::int64_t run_elements = std::max<std::int64_t>(1, c.n / mix_runs_per_n);
  const std::int64_t huge_length = std::max<std::int64_t>(1, c.n / huge_segment_count);
  const std::int64_t huge_every = c.n / (mix_huge_segments + 1);
  segment_writer writer(c.n, out);
  int huge_laid = 0;
  while (!writer.covered()) {
    if (huge_laid < mix_huge_segments && writer.at() >= (huge_laid + 1) * huge_every) {
      writer.append(huge_length);
      ++huge_laid;
      continue;
    }
    const std::int64_t mean = means[random() % means.size()];
    const std::int64_t run_end = writer.at() + run_elements;
    while (!writer.covered() && writer.at() < run_end) writer.append(draw_length(random, mean));
  }
}

}  // namespace

segment_traffic traffic_of(std::int64_t n, std::int64_t segments) {
  constexpr std::int64_t float_bytes = 4, offset_bytes = 8;
  return {n * float_bytes + 2 * offset_bytes * segments, float_bytes * segments};
}

const std::vector<std::int64_t>& segment_mean_lengths() {
  static const std::vector<std::int64_t> means = {1, 4, 16, 64, 1024, 65536};
  return means;
}

std::vector<segment_case> segment_cases(std::int64_t n, std::uint64_t seed) {
  if (n < 1) throw invalid_argument("segment_cases: n must be at least 1");
  std::vector<segment_case> cases;
  for (std::int64_t mean : segment_mean_lengths())
    cases.push_back({"mean-" + std::to_string(mean), segment_layout::uniform, n, mean, 0});
  const std::int64_t huge = n / huge_segment_count;
  cases.push_back({"huge-" + std::to_string(huge_segment_count) + "x" + std::to_string(huge), segment_layout::huge, n,
                   huge, 0});
  cases.push_back({"mix", segment_layout::mix, n, 0, 0});
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i].seed = case_seed(seed, i);
  return cases;
}

segment_offsets lay_out_segments(const segment_case& c) {
  if (c.n < 1) throw invalid_argument("lay_out_segments: " + c.name + " covers no elements");
  segment_offsets out;
  std::mt19937_64 random(c.seed);
  switch (c.layout) {
    case segment_layout::uniform:
      if (c.mean_length < 1) throw invalid_argument("lay_out_segments: " + c.name + " has no mean length");
      lay_out_uniform(c, random, out);
      break;
    case segment_layout::huge:
      lay_out_huge(c, out);
      break;
    case segment_layout::mix:
      lay_out_mix(c, random, out);
      break;
  }
  return out;
}

std::string describe(const segment_case& c) { return c.name + " (" + format_size(c.n) + " elements)"; }

}  // namespace warpfold::bench
