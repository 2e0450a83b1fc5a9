#include "bench/output.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <utility>

#include "bench/statistics.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

double measurement::percent_of_ceiling() const { return bench::percent_of(gbps, ceiling_gbps); }

namespace {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Every CSV column a row can have, by name; csv_columns() and axis_csv_columns() pick from
// these, so both files format a value the same way.
struct csv_column {
  const char* name;
  std::string (*field)(const measurement&);
};

const std::vector<csv_column>& every_csv_column() {
  using m_t = const measurement&;
  static const std::vector<csv_column> columns = {
      {"impl", [](m_t m) { return m.impl; }},
      {"dtype", [](m_t m) { return m.dtype; }},
      {"n", [](m_t m) { return std::to_string(m.n); }},
      {"bytes", [](m_t m) { return std::to_string(m.bytes); }},
      {"shape", [](m_t m) { return m.shape; }},
      {"dims", [](m_t m) { return m.dims; }},
      {"bytes_in", [](m_t m) { return std::to_string(m.bytes_in); }},
      {"bytes_out", [](m_t m) { return std::to_string(m.bytes_out); }},
      {"time_us", [](m_t m) { return m.ok ? fixed(m.time_us, 3) : ""; }},
      {"time_min_us", [](m_t m) { return m.ok ? fixed(m.time_min_us, 3) : ""; }},
      {"time_max_us", [](m_t m) { return m.ok ? fixed(m.time_max_us, 3) : ""; }},
      {"gbps", [](m_t m) { return m.has_bandwidth() ? fixed(m.gbps, 2) : ""; }},
      {"ceiling_gbps", [](m_t m) { return m.ceiling_gbps > 0 ? fixed(m.ceiling_gbps, 2) : ""; }},
      {"device", [](m_t m) { return m.device; }},
      {"pct_of_ceiling",
       [](m_t m) { return m.has_bandwidth() && m.ceiling_gbps > 0 ? fixed(m.percent_of_ceiling(), 2) : ""; }},
      {"family", [](m_t m) { return m.family; }},
      {"finisher", [](m_t m) { return m.finisher; }},
      {"launches", [](m_t m) { return m.launches ? std::to_string(*m.launches) : ""; }},
      {"block_size", [](m_t m) { return m.block_size > 0 ? std::to_string(m.block_size) : ""; }},
      {"trials", [](m_t m) { return std::to_string(m.trials); }},
      {"batch", [](m_t m) { return std::to_string(m.batch); }},
      {"buffers", [](m_t m) { return std::to_string(m.buffers); }},
      {"status", [](m_t m) { return std::string(m.ok ? "ok" : "FAILED"); }},
      {"note", [](m_t m) { return m.ok ? m.note : m.error; }},
      {"case", [](m_t m) { return m.case_id; }},
      {"strides", [](m_t m) { return m.strides; }},
      {"offset", [](m_t m) { return m.view.empty() ? std::string() : std::to_string(m.offset); }},
      {"parent", [](m_t m) { return m.view.empty() ? std::string() : std::to_string(m.parent); }},
      {"view", [](m_t m) { return m.view; }},
      {"segments", [](m_t m) { return m.segments > 0 ? std::to_string(m.segments) : std::string(); }},
      {"data", [](m_t m) { return m.data; }},
  };
  return columns;
}

std::string csv_field(const measurement& m, const std::string& column) {
  for (const csv_column& c : every_csv_column())
    if (column == c.name) return c.field(m);
  throw invalid_argument("no CSV column named '" + column + "'");
}

void write_csv_columns(std::ostream& out, const std::vector<measurement>& rows, const std::vector<std::string>& columns) {
  for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << '\n';
  for (const measurement& m : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << csv_escape(csv_field(m, columns[i]));
    out << '\n';
  }
}

template <typename Writer>
void write_file(const std::string& path, Writer writer) {
  std::ofstream out(path);
  if (!out) throw error("cannot open '" + path + "' for writing");
  writer(out);
  out.flush();
  if (!out) throw error("could not write '" + path + "'");
}

// NaN (no value from ncu) becomes an empty CSV field or a JSON null.
std::string counter_field(double value, int decimals) { return std::isnan(value) ? "" : fixed(value, decimals); }
nlohmann::json counter_json(double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); }

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "impl",          "dtype",  "n",        "bytes",      "time_us", "time_min_us", "time_max_us",
      "gbps",          "ceiling_gbps", "device", "pct_of_ceiling", "family", "finisher", "launches",
      "block_size",    "trials", "batch",    "buffers",    "status",  "note",   "data",
  };
  return columns;
}

const std::vector<std::string>& axis_csv_columns() {
  static const std::vector<std::string> columns = {
      "impl",    "dtype",   "shape",  "dims",    "bytes_in", "bytes_out", "time_us", "time_min_us",
      "time_max_us", "gbps", "ceiling_gbps", "pct_of_ceiling", "device", "family", "n", "bytes",
      "launches", "trials", "batch",  "buffers", "status",   "note",
  };
  return columns;
}

const std::vector<std::string>& random_axis_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"case"};
    for (const std::string& name : axis_csv_columns()) {
      c.push_back(name);
      if (name == "shape") c.insert(c.end(), {"strides", "offset", "parent"});
    }
    c.push_back("view");
    return c;
  }();
  return columns;
}

const std::vector<std::string>& segment_csv_columns() {
  static const std::vector<std::string> columns = {
      "case",    "impl",        "segments",       "n",        "bytes",    "time_us", "time_min_us",
      "time_max_us", "gbps",    "ceiling_gbps",   "pct_of_ceiling", "bytes_in", "bytes_out", "dtype",
      "device",  "family",      "launches",       "trials",   "batch",    "buffers", "status",
      "note",
  };
  return columns;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void write_csv(std::ostream& out, const std::vector<measurement>& rows) { write_csv_columns(out, rows, csv_columns()); }

void write_axis_csv(std::ostream& out, const std::vector<measurement>& rows) {
  write_csv_columns(out, rows, axis_csv_columns());
}

void write_json(std::ostream& out, const run_record& run) {
  using nlohmann::json;
  const device_description& d = run.device;
  json doc;
  doc["device"] = {
      {"ordinal", d.ordinal},
      {"name", d.name},
      {"sm_count", d.sm_count},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"l2_bytes", d.l2_bytes},
      {"memory_bytes", d.memory_bytes},
      {"driver_version", d.driver_version},
      {"cuda_driver_version", format_cuda_version(d.cuda_driver_version)},
      {"cuda_runtime_version", format_cuda_version(d.cuda_runtime_version)},
  };
  doc["method"] = {
      {"timer", "cudaEvent"},
      {"trials", run.method.trials},
      {"statistic", "median, with min and max"},
      {"warmup_calls", run.method.warmup_calls},
      {"min_batch_us", run.method.min_batch_us},
      {"rotation_factor_of_l2", run.method.rotation_factor},
      {"block_size", run.method.block_size},
      {"regime", "back to back: each trial times a batch of calls between two events and divides"},
      {"trial_order", "interleaved: at each type and size, one trial of each implementation in turn"},
  };
  json rows = json::array();
  for (const measurement& m : run.measurements) {
    const json no_value = nullptr;
    json row = {
        {"impl", m.impl},
        {"family", m.family},
        {"dtype", m.dtype},
        {"n", m.n},
        {"bytes", m.bytes},
        {"time_us", m.ok ? json(m.time_us) : no_value},
        {"time_min_us", m.ok ? json(m.time_min_us) : no_value},
        {"time_max_us", m.ok ? json(m.time_max_us) : no_value},
        {"gbps", m.has_bandwidth() ? json(m.gbps) : no_value},
        {"ceiling_gbps", m.ceiling_gbps > 0 ? json(m.ceiling_gbps) : no_value},
        {"pct_of_ceiling", m.has_bandwidth() && m.ceiling_gbps > 0 ? json(m.percent_of_ceiling()) : no_value},
        {"device", m.device},
        {"finisher", m.finisher.empty() ? no_value : json(m.finisher)},
        {"launches", m.launches ? json(*m.launches) : no_value},
        {"block_size", m.block_size > 0 ? json(m.block_size) : no_value},
        {"trials", m.trials},
        {"batch", m.batch},
        {"buffers", m.buffers},
        {"status", m.ok ? "ok" : "FAILED"},
    };
    if (!m.shape.empty()) {
      row["shape"] = m.shape;
      row["dims"] = m.dims;
    }
    if (!m.shape.empty() || m.segments > 0) {
      row["bytes_in"] = m.bytes_in;
      row["bytes_out"] = m.bytes_out;
    }
    if (!m.case_id.empty()) row["case"] = m.case_id;
    if (m.segments > 0) row["segments"] = m.segments;
    if (!m.ok) row["error"] = m.error;
    if (!m.note.empty()) row["note"] = m.note;
    if (!m.data.empty()) row["data"] = m.data;
    rows.push_back(std::move(row));
  }
  doc["measurements"] = std::move(rows);
  if (!run.counters.empty()) {
    json counters = json::array();
    for (const step_counters& c : run.counters)
      counters.push_back({
          {"step", c.step_name},
          {"kernel", c.kernel},
          {"bank_conflicts_ld", counter_json(c.bank_conflicts_ld)},
          {"bank_conflicts_st", counter_json(c.bank_conflicts_st)},
          {"branch_uniformity_pct", counter_json(c.branch_uniformity_pct)},
          {"achieved_occupancy_pct", counter_json(c.achieved_occupancy_pct)},
          {"dram_bytes_read", counter_json(c.dram_bytes_read)},
          {"active_threads_per_inst", counter_json(c.active_threads_per_inst)},
          {"warp_instructions", counter_json(c.warp_instructions)},
      });
    doc["counters"] = {{"dtype", run.counters_dtype}, {"n", run.counters_n}, {"steps", std::move(counters)}};
  }
  out << doc.dump(2) << '\n';
}

void write_counters_csv(std::ostream& out, const std::vector<step_counters>& rows) {
  // New columns go at the end, so that scripts reading the older columns by position still work.
  out << "step,kernel,bank_conflicts_ld,bank_conflicts_st,branch_uniformity_pct,achieved_occupancy_pct,dram_bytes_read,"
         "active_threads_per_inst,warp_instructions\n";
  for (const step_counters& c : rows) {
    out << csv_escape(c.step_name) << ',' << csv_escape(c.kernel) << ',' << counter_field(c.bank_conflicts_ld, 0) << ','
        << counter_field(c.bank_conflicts_st, 0) << ',' << counter_field(c.branch_uniformity_pct, 2) << ','
        << counter_field(c.achieved_occupancy_pct, 2) << ',' << counter_field(c.dram_bytes_read, 0) << ','
        << counter_field(c.active_threads_per_inst, 2) << ',' << counter_field(c.warp_instructions, 0) << '\n';
  }
}

void write_csv_file(const std::string& path, const std::vector<measurement>& rows) {
  write_file(path, [&](std::ostream& out) { write_csv(out, rows); });
}
void write_axis_csv_file(const std::string& path, const std::vector<measurement>& rows) {
  write_file(path, [&](std::ostream& out) { write_axis_csv(out, rows); });
}
void write_random_axis_csv_file(const std::string& path, const std::vector<measurement>& rows) {
  write_file(path, [&](std::ostream& out) { write_csv_columns(out, rows, random_axis_csv_columns()); });
}
void write_segment_csv(std::ostream& out, const std::vector<measurement>& rows) {
  write_csv_columns(out, rows, segment_csv_columns());
}
void write_segment_csv_file(const std::string& path, const std::vector<measurement>& rows) {
  write_file(path, [&](std::ostream& out) { write_segment_csv(out, rows); });
}
void write_json_file(const std::string& path, const run_record& run) {
  write_file(path, [&](std::ostream& out) { write_json(out, run); });
}
void write_counters_csv_file(const std::string& path, const std::vector<step_counters>& rows) {
  write_file(path, [&](std::ostream& out) { write_counters_csv(out, rows); });
}

row_table::row_table(std::vector<std::string> columns, const std::string& csv_path, std::string json_path)
    : columns_(std::move(columns)), csv_(&std::cout), json_path_(std::move(json_path)) {
  if (!csv_path.empty()) {
    file_.open(csv_path);
    if (!file_) throw error("cannot open '" + csv_path + "' for writing");
    csv_ = &file_;
  }
  if (!json_path_.empty()) {  // fail now, not after the run
    std::ofstream probe(json_path_);
    if (!probe) throw error("cannot open '" + json_path_ + "' for writing");
  }
  for (std::size_t i = 0; i < columns_.size(); ++i) *csv_ << (i ? "," : "") << columns_[i];
  *csv_ << "\n" << std::flush;
}

void row_table::add(const std::vector<cell>& cells) {
  if (cells.size() != columns_.size())
    throw error("row_table: " + std::to_string(cells.size()) + " cells for " + std::to_string(columns_.size()) +
                " columns");
  std::ostringstream line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) line << ',';
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::string>) line << csv_escape(v);
          else if constexpr (!std::is_same_v<V, std::monostate>) line << v;
        },
        cells[i]);
  }
  *csv_ << line.str() << '\n' << std::flush;
  rows_.push_back(cells);
}

void row_table::finish() const {
  if (json_path_.empty()) return;
  nlohmann::json rows = nlohmann::json::array();
  for (const std::vector<cell>& cells : rows_) {
    nlohmann::json object = nlohmann::json::object();
    for (std::size_t i = 0; i < cells.size(); ++i)
      std::visit(
          [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::monostate>) object[columns_[i]] = nullptr;
            else if constexpr (std::is_same_v<V, double>) object[columns_[i]] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
            else object[columns_[i]] = v;
          },
          cells[i]);
    rows.push_back(std::move(object));
  }
  write_file(json_path_, [&](std::ostream& out) { out << rows.dump(2) << '\n'; });
}

}  // namespace warpfold::bench
