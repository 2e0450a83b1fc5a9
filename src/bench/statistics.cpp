#include "bench/statistics.hpp"

#include <algorithm>
#include <cmath>

#include "warpfold/error.hpp"

namespace warpfold::bench {

summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  const std::size_t count = samples.size();
  summary s;
  s.min = samples.front();
  s.max = samples.back();
  s.median = count % 2 == 1 ? samples[count / 2] : 0.5 * (samples[count / 2 - 1] + samples[count / 2]);
  return s;
}

double gbps(double bytes, double time_us) {
  if (!(time_us > 0)) return 0.0;
  return bytes / (time_us * 1e-6) / 1e9;
}

double percent_of(double value, double ceiling) {
  if (!(ceiling > 0)) return 0.0;
  return 100.0 * value / ceiling;
}

std::vector<speedup> speedups(const std::vector<std::optional<double>>& times) {
  std::vector<speedup> result(times.size());
  std::optional<double> first, previous;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!times[i] || !(*times[i] > 0)) continue;
    const double t = *times[i];
    if (previous) result[i].step = *previous / t;
    if (first) result[i].cumulative = *first / t;
    else {
      first = t;
      result[i].cumulative = 1.0;
    }
    previous = t;
  }
  return result;
}

int rotation_buffers(std::int64_t buffer_bytes, std::int64_t l2_bytes, int factor) {
  if (buffer_bytes <= 0) throw invalid_argument("rotation_buffers: buffer size must be positive");
  const std::int64_t wanted = std::max<std::int64_t>(0, l2_bytes) * factor;
  const std::int64_t count = (wanted + buffer_bytes - 1) / buffer_bytes;
  return static_cast<int>(std::max<std::int64_t>(2, count));
}

std::int64_t batch_calls(double per_call_us, double min_batch_us, std::int64_t max_calls) {
  if (!(per_call_us > 0)) return max_calls;
  const double wanted = std::ceil(min_batch_us / per_call_us);
  if (wanted >= static_cast<double>(max_calls)) return max_calls;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(wanted));
}

std::vector<trial_slot> interleaved_schedule(int implementations, int trials) {
  std::vector<trial_slot> slots;
  for (int t = 0; t < trials; ++t)
    for (int i = 0; i < implementations; ++i) slots.push_back({i, t});
  return slots;
}

std::int64_t aligned_buffer_bytes(std::int64_t n, int element_bytes) {
  constexpr std::int64_t alignment = 256;
  const std::int64_t bytes = n * element_bytes;
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace warpfold::bench
