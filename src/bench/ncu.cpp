#include "bench/ncu.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include "warpfold/error.hpp"
#include "warpfold/ladder/ladder.hpp"

namespace warpfold::bench {

std::string counter_metric_list() {
  return std::string(metric_bank_conflicts_ld) + "," + metric_bank_conflicts_st + "," + metric_branch_uniformity +
         "," + metric_achieved_occupancy + "," + metric_dram_bytes_read + "," + metric_active_threads_per_inst + "," +
         metric_warp_instructions;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) throw invalid_argument("unterminated quote in CSV line: " + line);
  fields.push_back(std::move(field));
  return fields;
}

double parse_metric_value(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c != ',' && c != ' ') digits += c;
  if (digits.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size()) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

std::vector<profiled_kernel> parse_ncu_csv(std::istream& in) {
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) throw invalid_argument("no ncu CSV table found (no line starting with \"ID\")");
  auto column = [&](const char* name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw invalid_argument(std::string("ncu CSV has no column \"") + name + "\"");
  };
  const std::size_t id_col = column("ID"), kernel_col = column("Kernel Name"), metric_col = column("Metric Name"),
                    value_col = column("Metric Value");
  const std::size_t needed = std::max({id_col, kernel_col, metric_col, value_col}) + 1;

  std::vector<profiled_kernel> kernels;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;  // ==PROF== lines, program output
    const std::vector<std::string> fields = split_csv_line(line);
    if (fields.size() < needed) continue;
    char* end = nullptr;
    const long id = std::strtol(fields[id_col].c_str(), &end, 10);
    if (end == fields[id_col].c_str()) continue;  // a repeated header or a stray line
    if (kernels.empty() || kernels.back().id != id) {
      kernels.push_back({static_cast<int>(id), fields[kernel_col], {}});
    }
    kernels.back().metrics[fields[metric_col]] = parse_metric_value(fields[value_col]);
  }
  return kernels;
}

std::string short_kernel_name(const std::string& name) {
  std::string s = name;
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  // Cut at the first '<' or '(' that is not inside the namespace path.
  const std::size_t cut = s.find_first_of("<(");
  if (cut != std::string::npos) s = s.substr(0, cut);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

int ladder_step_of_kernel(const std::string& name) {
  static const std::regex pattern(R"((^|[^A-Za-z0-9])step([0-9])_)");
  std::smatch match;
  if (!std::regex_search(name, match, pattern)) return -1;
  return match[2].str()[0] - '0';
}

namespace {

double metric_or_nan(const profiled_kernel& k, const char* metric) {
  const auto it = k.metrics.find(metric);
  return it == k.metrics.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

// NaN + x stays NaN only if both are missing: a missing finisher value must not erase the
// main kernel's count.
double add_counts(double total, double value) {
  if (std::isnan(value)) return total;
  if (std::isnan(total)) return value;
  return total + value;
}

std::string base_name(const std::string& name) {
  const std::string s = short_kernel_name(name);
  const std::size_t colons = s.rfind("::");
  return colons == std::string::npos ? s : s.substr(colons + 2);
}

}  // namespace

std::vector<step_counters> counters_by_step(const std::vector<profiled_kernel>& kernels) {
  std::map<int, step_counters> by_step;
  int current = -1;
  for (const profiled_kernel& k : kernels) {
    const int step = ladder_step_of_kernel(k.name);
    const bool finisher_kernel = k.name.find("reduce_partials_in_one_block") != std::string::npos;
    if (step >= 0 && step != current) {
      // A new step's main kernel. (The same step again is the relaunch finisher: joins below.)
      current = step;
      step_counters c;
      c.step = step;
      c.step_name = std::string(ladder::steps[step].name);
      c.kernel = base_name(k.name);
      c.bank_conflicts_ld = metric_or_nan(k, metric_bank_conflicts_ld);
      c.bank_conflicts_st = metric_or_nan(k, metric_bank_conflicts_st);
      c.branch_uniformity_pct = metric_or_nan(k, metric_branch_uniformity);
      c.achieved_occupancy_pct = metric_or_nan(k, metric_achieved_occupancy);
      c.dram_bytes_read = metric_or_nan(k, metric_dram_bytes_read);
      c.active_threads_per_inst = metric_or_nan(k, metric_active_threads_per_inst);
      // Not summed with the finishers: their instructions would blur the steps' own difference.
      c.warp_instructions = metric_or_nan(k, metric_warp_instructions);
      by_step[step] = c;
    } else if (current >= 0 && (step == current || finisher_kernel)) {
      step_counters& c = by_step[current];
      if (finisher_kernel && c.kernel.find(base_name(k.name)) == std::string::npos) c.kernel += "+" + base_name(k.name);
      c.bank_conflicts_ld = add_counts(c.bank_conflicts_ld, metric_or_nan(k, metric_bank_conflicts_ld));
      c.bank_conflicts_st = add_counts(c.bank_conflicts_st, metric_or_nan(k, metric_bank_conflicts_st));
      c.dram_bytes_read = add_counts(c.dram_bytes_read, metric_or_nan(k, metric_dram_bytes_read));
    }
  }
  std::vector<step_counters> result;
  for (auto& [step, c] : by_step) result.push_back(c);
  return result;
}

}  // namespace warpfold::bench
