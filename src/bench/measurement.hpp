// What one bench run produces: the device it ran on, the method it used, one row per
// measurement, and (with --counters) one row per ladder step of hardware counters.
// Plain data, written by output.cpp as CSV and JSON and printed by the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpfold::bench {

struct device_description {
  int ordinal = 0;
  std::string name;                  // "NVIDIA H100 80GB HBM3"
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::string driver_version;        // the kernel driver's release ("580.65.06"), or "unknown"
  int cuda_driver_version = 0;       // cudaDriverGetVersion: 13000 means CUDA 13.0
  int cuda_runtime_version = 0;      // cudaRuntimeGetVersion
};

// "13.0" from 13000.
std::string format_cuda_version(int version);

struct method_description {
  int trials = 0;                    // timed trials per measurement; the median is reported
  int warmup_calls = 0;              // untimed calls before calibration
  double min_batch_us = 0;           // each trial times back-to-back calls for at least this long
  int rotation_factor = 0;           // the input buffers together are >= factor x L2
  int block_size = 0;                // ladder block size
};

// One row: one implementation, type and size, or one ceiling.
struct measurement {
  std::string impl;                  // "3-sequential", "cub", "read_ceiling", ...
  std::string family;                // "ladder", "baseline", "production" or "ceiling"
  std::string dtype;                 // "i32", ...; empty for ceilings
  std::string finisher;              // ladder rows only
  std::int64_t n = 0;                // elements; 0 for ceilings
  std::int64_t bytes = 0;            // bytes one call must read (ceilings: bytes moved)
  bool ok = true;                    // false: FAILED, and no time is reported
  std::string error;                 // why it failed
  double time_us = 0;                // median per call
  double time_min_us = 0;
  double time_max_us = 0;
  double gbps = 0;                   // bytes / time_us
  double ceiling_gbps = 0;           // the read ceiling measured in the same run
  std::optional<int> launches;       // kernel launches per call, where known
  int block_size = 0;                // ladder rows only
  int trials = 0;
  std::int64_t batch = 0;            // calls per timed batch
  int buffers = 0;                   // input buffers rotated over
  std::string device;
  std::string note;                  // e.g. which read-ceiling variant won
  std::string data;                  // full reductions of floats: how the values spread (--data)
  // The axis bench (--axis): n counts the elements, bytes = bytes_in + bytes_out. Ceiling rows
  // fill in bytes_in and bytes_out too (read: all in; copy: half each).
  std::string shape;                 // "8192x8192"; empty for the full reductions
  std::string dims;                  // the reduced dim: "1" or "0"
  std::int64_t bytes_in = 0;         // bytes one call must read
  std::int64_t bytes_out = 0;        // bytes one call must write
  // The case a row belongs to: its number with --axis --random ("7"), its name with
  // --segments ("mean-16"); empty elsewhere.
  std::string case_id;
  // The random axis cases (--axis --random) also name the view: its element strides, first
  // element and parent buffer (elements), and what kind of view it is.
  std::string strides;               // "1024x8x1"
  std::int64_t offset = 0;
  std::int64_t parent = 0;
  std::string view;                  // "contiguous", "transposed", "permuted", "sliced"
  // The segmented sums (--segments): how many segments the case's offsets describe; n
  // counts the elements they cover, bytes_in the elements and both offset arrays.
  std::int64_t segments = 0;         // 0 outside --segments

  bool has_bandwidth() const { return ok && bytes > 0; }
  double percent_of_ceiling() const;
};

// Hardware counters of one ladder step (sums over the step's kernels for counts, the main
// kernel's value for percentages, ratios and warp instructions). NaN where ncu gave no value.
struct step_counters {
  int step = -1;
  std::string step_name;             // "2-strided-index"
  std::string kernel;                // "step2_interleaved_bank_conflicts" (+ finisher kernels)
  double bank_conflicts_ld = 0;
  double bank_conflicts_st = 0;
  double branch_uniformity_pct = 0;
  double achieved_occupancy_pct = 0;
  double dram_bytes_read = 0;
  double active_threads_per_inst = 0;  // average active threads per warp instruction, 0..32
  double warp_instructions = 0;      // warp-level instructions executed by the main kernel only
};

struct run_record {
  device_description device;
  method_description method;
  std::vector<measurement> measurements;
  std::vector<step_counters> counters;
  std::string counters_dtype;        // the type and size the counters were taken at
  std::int64_t counters_n = 0;
};

}  // namespace warpfold::bench
