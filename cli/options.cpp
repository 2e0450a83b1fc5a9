#include "options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

#include "bench/ops.hpp"
#include "bench/output.hpp"
#include "bench/segment_cases.hpp"
#include "bench/sizes.hpp"

namespace warpfold::cli {
namespace {

// What CLI11 fills in; turned into bench_options (with types checked) after parsing.
struct raw_bench_options {
  bool sweep = false;
  bool axis = false;
  bool segments = false;
  bool host = false;
  bool distributed = false;
  std::vector<int> chunk_mib, copy_threads;
  int random_cases = 0;
  std::vector<int> random_only;
  std::uint64_t seed = 1;
  bool seed_given = false;
  std::vector<std::string> impls, dtypes, finishers, sizes, shapes, dims;
  int trials = default_trials;
  double batch_ms = 1.0;
  int block_size = ladder::default_block_size;
  int device = 0;
  bool counters = false;
  bool quiet = false;
  std::string csv_path, json_path, counters_csv_path;
  std::string data;
};

std::string step_names() {
  std::string names;
  for (const auto& s : ladder::steps) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : separator) + w;
  return text;
}

// "arrays of 2^26 floats (256.0 MiB) shaped 8192x8192, ..."
std::string issue_arrays() {
  std::vector<std::string> shapes;
  for (const bench::matrix_shape& s : bench::issue_axis_shapes()) shapes.push_back(bench::format_shape(s));
  const std::int64_t elements = bench::issue_axis_shapes().front().elements();
  return "arrays of " + bench::format_size(elements) + " floats (" + bench::format_bytes(4.0 * double(elements)) +
         ") shaped " + joined(shapes, ", ");
}

// "1, 4, 16, 64, 1024, 65536"
std::string segment_means() {
  std::vector<std::string> means;
  for (std::int64_t mean : bench::segment_mean_lengths()) means.push_back(std::to_string(mean));
  return joined(means, ", ");
}

std::string finisher_names() {
  std::string names;
  for (const auto& f : ladder::finishers) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

void add_bench_options(CLI::App& app, raw_bench_options& o) {
  app.add_flag("--sweep", o.sweep,
               "Measure every selected implementation over n = 2^10, 2^12, ..., 2^30 (sizes that do not fit in "
               "free device memory are skipped, with a note), for --dtype (default i32,f32,f64). Prints a GB/s "
               "table per type; write --csv for scripts/plot.");
  app.add_flag("--axis", o.axis,
               "Measure the axis reductions instead (the 16 standard cases): f32 sums along dim 1 (row sums) and dim 0 (column "
               "sums) of " + issue_arrays() +
                   ": 16 cases. warpfold::sum_axes into a device output for every case, "
                   "cub::DeviceSegmentedReduce::Sum for the dim-1 cases, each checked output by output against a host "
                   "reference. GB/s counts bytes read plus bytes written; the read ceiling is measured in the same "
                   "run. Takes --shape, --dims, --impl, --trials, --batch-ms, --csv and --json.");
  app.add_flag("--segments", o.segments,
               "Measure segmented sums instead: f32 sums of segments laid back to back over --n elements (default " +
                   bench::format_size(bench::default_segment_elements) +
                   "), one output per segment, their offsets in two int64 device arrays (begin and end). Cases: "
                   "lengths drawn uniform in [0, 2L] for mean lengths L = " + segment_means() +
                   " (mean-1 ... mean-65536), " + std::to_string(bench::huge_segment_count) +
                   " segments of n/" + std::to_string(bench::huge_segment_count) + " (huge-16x...), and mix: runs of "
                   "every mean length with " + std::to_string(bench::mix_huge_segments) +
                   " huge segments among them, in one call. warpfold::reduce_segments next to "
                   "cub::DeviceSegmentedReduce::Sum on the same offset arrays, every output checked against a host "
                   "reference. GB/s counts the elements, both offset arrays and the outputs; the read ceiling is "
                   "measured in the same run. --seed picks the lengths. Takes --n (one size), --seed, --impl, "
                   "--trials, --batch-ms, --csv and --json.");
  app.add_flag("--host", o.host,
               "Measure sums of an f32 array in host memory instead (warpfold::sum_host): --n elements (default "
               "2^34, 64 GiB, or 60% of the host's memory if that is less), in pageable memory, on the --device GPU and "
               "then split over every local GPU; also from pinned memory (1 GiB). Next to them: a cudaMemcpy from "
               "pinned memory (the link's bandwidth, the reference), a plain cudaMemcpy from pageable memory, and "
               "pinning the array in place (cudaHostRegister). Every sum is checked against a host reference. Takes "
               "--n (one size), --chunk-mib, --copy-threads, --trials, --csv and --json.");
  app.add_option("--chunk-mib", o.chunk_mib,
                 "With --host: also time warpfold::sum_host on one GPU with these staging chunk sizes (MiB, comma "
                 "list), each with every --copy-threads count (default: the library's choice); rows "
                 "warpfold-<MiB>MiB-<threads>t.")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096))
      ->type_name("LIST");
  app.add_option("--copy-threads", o.copy_threads,
                 "With --host: also time warpfold::sum_host with these numbers of copy threads (comma list), with "
                 "every --chunk-mib size (default: the library's choice).")
      ->delimiter(',')
      ->check(CLI::Range(1, 256))
      ->type_name("LIST");
  app.add_flag("--distributed", o.distributed,
               "Measure sums of an f32 array sharded over every local GPU instead (warpfold::sum_sharded, one thread "
               "and NCCL rank per GPU): --n elements per GPU (default 2^30, 4 GiB). Next to them: one GPU's "
               "warpfold::sum of the same shard (warpfold-local), NCCL's all-reduce of one float (the combine's anchor), and the "
               "sharded call on empty shards (the combine alone). Every sum is checked against a host reference. "
               "Takes --n (one size), --trials, --csv and --json.");
  app.add_option("--shape", o.shapes,
                 "With --axis: the shapes to measure instead of the eight standard ones (comma list of ROWSxCOLS, any 2-D "
                 "shape; each extent as for --n): 8192x8192, 2^24x4.")
      ->delimiter(',')
      ->type_name("SHAPES");
  app.add_option("--random", o.random_cases,
                 "With --axis: measure K random cases instead: N-D arrays of rank 1 to 6 (2^16 to 2^27 elements, "
                 "extents log-uniform with 1s, odd and prime ones), about half of them strided views (transposed, "
                 "permuted or sliced), summed over a random non-empty proper subset of their axes, in f32, f16, bf16 "
                 "and i32. Prints each case's share of the read ceiling, the worst and the median. --seed picks the "
                 "cases; scripts/compare_torch --cases FILE times torch on the same cases from the --csv file.")
      ->type_name("K")
      ->check(CLI::Range(1, 100000));
  app.add_option("--cases", o.random_only,
                 "With --axis --random K: measure only these of the K drawn cases (comma list of case numbers, "
                 "0 to K-1, as the table and the CSV number them): to time again the cases a run singled out.")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option_function<std::uint64_t>(
         "--seed", [&o](const std::uint64_t& s) { o.seed = s, o.seed_given = true; },
         "With --axis --random: the seed of the random cases; with --segments: of the segment lengths (default "
         "1). The same seed gives the same cases.")
      ->type_name("S");
  app.add_option("--dims", o.dims,
                 "With --axis: the dims to reduce along (comma list; 0, 1, or -2, -1 from the end). Default 1,0.")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option("--impl", o.impls,
                 "Implementations to measure (comma list or repeated; default all): ladder steps by name or number (" +
                     step_names() +
                     "), 'ladder' for all steps, 'cub', 'thrust', 'warpfold' (the production API, when built in), "
                     "'baseline', 'production' or 'all'. `warpfold list` shows them.")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option("--dtype", o.dtypes,
                 "Element types (comma list): i32, f32, f64, f16, bf16. Default i32; with --sweep i32,f32,f64. "
                 "Implementations skip types they do not support (the ladder has i32, f32, f64).")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option("--data", o.data,
                 "How float inputs spread (the time of warpfold-exact depends on it): uniform (default: [0, 1) at "
                 "the type's resolution), normal (standard normal), wide (magnitudes log-uniform over 2^-40 .. 2^40, "
                 "both signs), full (every finite exponent, subnormals included, up to 2^32 below the largest, both "
                 "signs: the exact sum's worst case). Integers are always uniform.")
      ->type_name("SPREAD");
  app.add_option("--finisher", o.finishers,
                 "How the ladder steps combine their per-block partial sums (comma list, or 'all'): " +
                     finisher_names() + ". Default last-block (one kernel per call).")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option("--n", o.sizes,
                 "Sizes in elements (comma list): 67108864, 2^26, 64Mi or 1e8. Default 2^27 "
                 "(with --sweep, the sweep's sizes; with --segments one size, default 2^26).")
      ->delimiter(',')
      ->type_name("SIZES");
  app.add_option("--trials", o.trials,
                 "Timed trials per measurement; the median is reported with min and max. At least 7.")
      ->check(CLI::Range(min_trials, 1000))
      ->capture_default_str();
  app.add_option("--batch-ms", o.batch_ms,
                 "Each trial times back-to-back calls for at least this many milliseconds and divides by the "
                 "number of calls, so small sizes report an honest per-call time.")
      ->check(CLI::Range(0.01, 1000.0))
      ->capture_default_str();
  app.add_option("--block-size", o.block_size,
                 "Threads per block for the ladder steps: a power of two, 32..1024. Steps 6-9 are compiled for "
                 "128, 256 and 512 only (others are skipped, with a note).")
      ->capture_default_str();
  app.add_option("--device", o.device, "CUDA device ordinal to run on.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--counters", o.counters,
               "Also run the ladder under Nsight Compute (`ncu --clock-control none`, found on PATH) and add "
               "per-step hardware counters: shared-memory bank conflicts (loads, stores), branch uniformity, "
               "achieved occupancy, DRAM bytes read, active threads per warp instruction (32 = every lane "
               "busy) and warp-level instructions executed. They are taken at the first --dtype the ladder has, "
               "the first --n (2^27 with --sweep) and the first --finisher. Without ncu, says so and runs without "
               "counters.");
  app.add_option("--csv", o.csv_path,
                 "Write one CSV row per measurement (impl,dtype,n,bytes,time_us,time_min_us,time_max_us,gbps,"
                 "ceiling_gbps,device, then pct_of_ceiling,family,finisher,launches,block_size,trials,batch,"
                 "buffers,status,note). FAILED rows have no times. With --axis the columns are " +
                     joined(bench::axis_csv_columns(), ",") + "; with --segments " +
                     joined(bench::segment_csv_columns(), ",") + ".")
      ->type_name("FILE");
  app.add_option("--json", o.json_path,
                 "Write the run as JSON: device, method, one object per measurement, and counters if any.")
      ->type_name("FILE");
  app.add_option("--counters-csv", o.counters_csv_path,
                 "Write the per-step counters as CSV (step,kernel,bank_conflicts_ld,bank_conflicts_st,"
                 "branch_uniformity_pct,achieved_occupancy_pct,dram_bytes_read,active_threads_per_inst,"
                 "warp_instructions). Implies --counters.")
      ->type_name("FILE");
  app.add_flag("-q,--quiet", o.quiet, "No progress lines on stderr.");
}

// --axis measures f32 sums of 2-D arrays; the full reductions' size, ladder and counters
// options mean nothing there, so they are refused rather than ignored.
void resolve_axis(const raw_bench_options& raw, bench_options& o) {
  if (!o.axis) {
    if (!raw.shapes.empty() || !raw.dims.empty()) throw usage_error("--shape and --dims need --axis");
    if (raw.random_cases > 0) throw usage_error("--random needs --axis");
    if (!raw.random_only.empty()) throw usage_error("--cases needs --axis --random");
    if (raw.seed_given && !raw.segments) throw usage_error("--seed needs --axis --random or --segments");
    return;
  }
  if (raw.seed_given && raw.random_cases == 0) throw usage_error("--seed picks the --random cases: give --random K too");
  if (raw.random_cases > 0 && (!raw.shapes.empty() || !raw.dims.empty()))
    throw usage_error("--random draws its own shapes and dims: leave out --shape and --dims");
  if (raw.random_cases > 0 && !raw.dtypes.empty())
    throw usage_error("--random draws its own dtypes (f32, f16, bf16, i32): leave out --dtype");
  if (!raw.random_only.empty() && raw.random_cases == 0)
    throw usage_error("--cases picks among the --random cases: give --random K too");
  for (int c : raw.random_only)
    if (c < 0 || c >= raw.random_cases)
      throw usage_error("--cases: case " + std::to_string(c) + " is not among the " + std::to_string(raw.random_cases) +
                        " drawn (0 to " + std::to_string(raw.random_cases - 1) + ")");
  o.random_cases = raw.random_cases;
  o.random_only = raw.random_only;
  o.seed = raw.seed;
  if (raw.sweep) throw usage_error("--axis and --sweep measure different things: give one of them");
  if (!raw.sizes.empty()) throw usage_error("--axis takes --shape, not --n");
  if (!raw.finishers.empty()) throw usage_error("--finisher is for the ladder, which --axis does not run");
  if (raw.counters || !raw.counters_csv_path.empty()) throw usage_error("--counters is for the ladder, not --axis");
  for (const std::string& text : raw.dtypes)
    if (bench::parse_dtype(text) != bench::dtype::f32) throw usage_error("--axis measures f32 sums only (--dtype f32)");
  o.dtypes = {bench::dtype::f32};

  for (const std::string& text : raw.shapes) {
    try {
      for (const bench::matrix_shape& s : bench::parse_shape_list(text))
        if (std::find(o.shapes.begin(), o.shapes.end(), s) == o.shapes.end()) o.shapes.push_back(s);
    } catch (const invalid_argument& e) {
      throw usage_error(std::string("--shape: ") + e.what());
    }
  }
  if (o.shapes.empty()) o.shapes = bench::issue_axis_shapes();

  for (const std::string& text : raw.dims) {
    try {
      const int d = bench::parse_axis_dim(text);
      if (std::find(o.dims.begin(), o.dims.end(), d) == o.dims.end()) o.dims.push_back(d);
    } catch (const invalid_argument& e) {
      throw usage_error(std::string("--dims: ") + e.what());
    }
  }
  if (o.dims.empty()) o.dims = bench::default_axis_dims();
}

// --segments measures f32 sums over one element count; like --axis, it refuses the options
// that mean nothing there.
void resolve_segments(const raw_bench_options& raw, bench_options& o) {
  if (!o.segments) return;
  if (raw.axis) throw usage_error("--segments and --axis measure different things: give one of them");
  if (raw.sweep) throw usage_error("--segments and --sweep measure different things: give one of them");
  if (!raw.finishers.empty()) throw usage_error("--finisher is for the ladder, which --segments does not run");
  if (raw.counters || !raw.counters_csv_path.empty()) throw usage_error("--counters is for the ladder, not --segments");
  for (const std::string& text : raw.dtypes)
    if (bench::parse_dtype(text) != bench::dtype::f32)
      throw usage_error("--segments measures f32 sums only (--dtype f32)");
  o.dtypes = {bench::dtype::f32};
  if (o.sizes.size() > 1) throw usage_error("--segments takes one size (--n N): the cases cover it");
  if (!o.sizes_given) o.sizes = {bench::default_segment_elements};
  o.seed = raw.seed;
}

// --host and --distributed measure f32 sums of one size each; they refuse what means nothing there.
void resolve_scale(const raw_bench_options& raw, bench_options& o) {
  o.host = raw.host;
  o.distributed = raw.distributed;
  if ((!raw.chunk_mib.empty() || !raw.copy_threads.empty()) && !o.host)
    throw usage_error("--chunk-mib and --copy-threads need --host");
  o.chunk_mib = raw.chunk_mib;
  o.copy_threads = raw.copy_threads;
  if (!o.host && !o.distributed) return;
  const std::string flag = o.host ? "--host" : "--distributed";
  if (o.host && o.distributed) throw usage_error("--host and --distributed measure different things: give one of them");
  if (raw.axis || raw.segments || raw.sweep) throw usage_error(flag + " cannot be combined with --axis, --segments or --sweep");
  if (!raw.finishers.empty() || raw.counters || !raw.counters_csv_path.empty() || !raw.impls.empty() || !raw.data.empty())
    throw usage_error(flag + " takes --n, --trials, --csv and --json only");
  for (const std::string& text : raw.dtypes)
    if (bench::parse_dtype(text) != bench::dtype::f32) throw usage_error(flag + " measures f32 sums only (--dtype f32)");
  o.dtypes = {bench::dtype::f32};
  if (o.sizes.size() > 1) throw usage_error(flag + " takes one size (--n N)");
  if (!o.sizes_given) o.sizes = {0};  // the command picks its default (it depends on the machine)
}

bench_options resolve(const raw_bench_options& raw) {
  bench_options o;
  o.sweep = raw.sweep;
  o.axis = raw.axis;
  o.segments = raw.segments;
  o.impls = raw.impls;
  o.trials = raw.trials;
  o.batch_ms = raw.batch_ms;
  o.device = raw.device;
  o.counters = raw.counters || !raw.counters_csv_path.empty();
  o.csv_path = raw.csv_path;
  o.json_path = raw.json_path;
  o.counters_csv_path = raw.counters_csv_path;
  o.quiet = raw.quiet;

  if (!raw.data.empty()) {
    const auto spread = bench::parse_value_spread(raw.data);
    if (!spread) throw usage_error("--data: unknown spread '" + raw.data + "' (known: uniform, normal, wide, full)");
    if (o.axis || o.segments) throw usage_error("--data is for the full reductions, not --axis or --segments");
    o.data = *spread;
  }
  for (const std::string& text : raw.dtypes) {
    const auto t = bench::parse_dtype(text);
    if (!t) throw usage_error("--dtype: unknown type '" + text + "' (known: i32, f32, f64, f16, bf16)");
    bool seen = false;
    for (bench::dtype d : o.dtypes) seen = seen || d == *t;
    if (!seen) o.dtypes.push_back(*t);
  }
  if (o.dtypes.empty()) {
    if (o.sweep) o.dtypes = {bench::dtype::i32, bench::dtype::f32, bench::dtype::f64};
    else o.dtypes = {bench::dtype::i32};
  }

  for (const std::string& text : raw.finishers) {
    if (text == "all") {
      for (const auto& f : ladder::finishers) o.finishers.push_back(f.id);
      continue;
    }
    const auto f = ladder::parse_finisher(text);
    if (!f) throw usage_error("--finisher: unknown finisher '" + text + "' (known: " + finisher_names() + ", all)");
    o.finishers.push_back(*f);
  }
  std::vector<ladder::finisher> unique;
  for (ladder::finisher f : o.finishers) {
    bool seen = false;
    for (ladder::finisher u : unique) seen = seen || u == f;
    if (!seen) unique.push_back(f);
  }
  o.finishers = unique.empty() ? std::vector<ladder::finisher>{ladder::finisher::last_block} : unique;

  for (const std::string& text : raw.sizes) {
    try {
      for (std::int64_t n : bench::parse_size_list(text)) {
        bool seen = false;
        for (std::int64_t s : o.sizes) seen = seen || s == n;
        if (!seen) o.sizes.push_back(n);
      }
    } catch (const invalid_argument& e) {
      throw usage_error(std::string("--n: ") + e.what());
    }
  }
  o.sizes_given = !o.sizes.empty();
  if (o.sizes.empty()) o.sizes = o.sweep ? bench::sweep_sizes() : std::vector<std::int64_t>{default_bench_size};

  const int b = raw.block_size;
  if (b < 32 || b > 1024 || (b & (b - 1)) != 0)
    throw usage_error("--block-size: " + std::to_string(b) + " is not a power of two from 32 to 1024");
  o.block_size = b;
  resolve_axis(raw, o);
  resolve_segments(raw, o);
  resolve_scale(raw, o);
  return o;
}

}  // namespace

command parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"warpfold: GPU sum reduction, from the classic ten-step ladder to a production kernel, "
               "measured against the hardware's ceilings.",
               "warpfold"};
  app.footer(
      "Run `warpfold bench --help` for the bench's options.\n"
      "Exit codes: 0 success; 1 a wrong answer (FAILED) or an error, such as no CUDA GPU; 2 a bad command line.");
  app.require_subcommand(0, 1);

  CLI::App* list = app.add_subcommand("list", "Print every ladder step, finisher and baseline with a one-line "
                                              "description. Needs no GPU.");
  raw_bench_options raw;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Time reductions on the GPU. The default run (under a minute on an H100) measures the read and copy "
      "ceilings and the launch floor, then every ladder step (finisher last-block), cub::DeviceReduce::Sum and "
      "thrust::reduce on 2^27 int32, and prints time, GB/s, share of the read ceiling and speedups. --axis "
      "measures the axis reductions instead (sums along one dim of 2-D arrays, 16 cases), --segments the "
      "segmented sums (segments of varied lengths, 8 cases), --host sums of arrays in host memory, and "
      "--distributed sums of arrays sharded over every local GPU.");
  bench->footer(
      "Method: CUDA events; warm-up calls; the median of --trials trials (min and max shown). Each trial times a "
      "batch of back-to-back calls lasting at least --batch-ms and divides by the calls. Trials are interleaved "
      "across implementations: at each type and size, every implementation is warmed up, then trial 1 of each "
      "runs, then trial 2 of each, and so on, so that a passing disturbance of the machine does not land on the "
      "trials of one implementation alone. Calls rotate over input buffers filled with varied values, together "
      "at least 4x the L2 size, so every call reads cold data. Every timed result is checked against a host "
      "reference (integers exactly, floats within a tolerance growing with n); a wrong answer prints FAILED and "
      "the exit code is non-zero.\n\n"
      "Examples:\n"
      "  warpfold bench\n"
      "  warpfold bench --impl 7,8,9,cub --dtype f32,f64 --n 2^20,2^28\n"
      "  warpfold bench --sweep --csv sweep.csv && scripts/plot sweep.csv --out plots/\n"
      "  warpfold bench --counters --counters-csv counters.csv\n"
      "  warpfold bench --axis --csv axis.csv && scripts/plot axis.csv --out plots/\n"
      "  warpfold bench --axis --shape 8192x8192,16777216x4 --dims 0 --impl warpfold\n"
      "  warpfold bench --segments --csv segments.csv && scripts/plot segments.csv --out plots/\n"
      "  warpfold bench --segments --n 2^24 --seed 7\n"
      "  warpfold bench --host --n 2^32 --csv host.csv\n"
      "  warpfold bench --distributed --csv sharded.csv");
  add_bench_options(*bench, raw);

  bench_options bits_options;
  CLI::App* bits = app.add_subcommand(
      "bits",
      "Print the bit patterns of the reproducible and exact sums (and of the default sum) of generated "
      "inputs, every float type, sizes 1 to 10^8 + 7, every --data spread, with a hash of each input, as CSV "
      "(mode,dtype,n,data,bits,input_hash). Run it on two GPUs and compare with scripts/compare-bits: the "
      "reproducible and exact rows must match bit for bit.");
  bits->add_option("--csv", bits_options.csv_path, "Write the CSV to FILE instead of stdout.")->type_name("FILE");
  bits->add_option("--device", bits_options.device, "CUDA device ordinal to run on.");
  bits->add_flag("-q,--quiet", bits_options.quiet, "No progress on stderr.");

  bench_options accuracy_options;
  std::string save_input;
  std::string accuracy_n;
  CLI::App* accuracy = app.add_subcommand(
      "accuracy",
      "Sum an ill-conditioned float32 input (pairs x and -x with a few small values: the exact sum is about "
      "1e-10 of the sum of magnitudes, known by construction) with warpfold's default, reproducible and exact "
      "sums, CUB, and a plain and a Kahan float sum on the CPU; print each one's relative error as CSV "
      "(impl,dtype,n,result,exact,relative_error,condition,device).");
  accuracy->add_option("--n", accuracy_n, "Elements (default 10^8), as for bench --n.")->type_name("SIZE");
  accuracy->add_option("--seed", accuracy_options.seed, "Seed of the input (default 1).");
  accuracy->add_option("--csv", accuracy_options.csv_path, "Write the CSV to FILE instead of stdout.")->type_name("FILE");
  accuracy->add_option("--save-input", save_input,
                       "Also write the input as raw float32 to FILE (for scripts/accuracy_torch).")
      ->type_name("FILE");
  accuracy->add_option("--device", accuracy_options.device, "CUDA device ordinal to run on.");

  ops_options ops_opts;
  std::string ops_sizes;
  CLI::App* ops = app.add_subcommand(
      "ops",
      "Time every op and statistic (sum, prod, min, max, argmin, argmax, norm_l1, norm_l2, norm_linf, dot, mean, "
      "var_mean) next to CUB's DeviceReduce and cuBLAS (dot, nrm2, asum), at sizes 2^10 to 2^30 (4x apart), "
      "offsets 0 and, from 2^28, 1 and 3 elements; every answer checked against a host reference (a wrong one "
      "is reported, never timed). CSV: impl,op,dtype,n,offset,time_us,min_us,max_us,gbps,ceiling_gbps,"
      "percent_of_ceiling,check,device,date. gbps counts every input byte (both arrays of dot).");
  ops->add_option("--op", ops_opts.ops, "Ops to time (default: all).")->delimiter(',');
  ops->add_option("--dtype", ops_opts.dtypes, "Element types: f16, bf16, f32, f64 (default f32,f16).")->delimiter(',');
  ops->add_option("--n", ops_sizes, "Sizes, as for bench --n.")->type_name("SIZES");
  ops->add_option("--offset", ops_opts.offsets, "Offsets in elements from an aligned start (default 0; 0,1,3 from 2^28).")
      ->delimiter(',');
  ops->add_option("--trials", ops_opts.trials, "Timed trials per candidate (default 7).");
  ops->add_option("--csv", ops_opts.csv_path, "Write the CSV to FILE instead of stdout.")->type_name("FILE");
  ops->add_option("--json", ops_opts.json_path, "Also write the rows to FILE as JSON (an array of objects).")
      ->type_name("FILE");
  ops->add_option("--device", ops_opts.device, "CUDA device ordinal to run on.");
  ops->add_flag("-q,--quiet", ops_opts.quiet, "No progress on stderr.");

  ops_options many_opts;
  CLI::App* many = app.add_subcommand(
      "many",
      "Time per-array L2 norms plus the combined norm of lists of float32 device arrays (a GPT-2-small "
      "parameter list, 5,000 small arrays, a random mix of 1,000): warpfold::norm_l2_many with the list in "
      "device memory (timed as stream calls, and replayed as a CUDA graph), with a host list, and a loop of "
      "per-array calls, next to the memory limit (the bytes at the read ceiling plus one launch). CSV: impl,list,"
      "arrays,elements,time_us,gbps,ceiling_gbps,limit_us,ratio_to_limit,check,device,date.");
  many->add_option("--list", many_opts.lists, "Lists to time: gpt2-small, small-5000, mix-1000, tiny-20000 (default: all).")
      ->delimiter(',')
      ->check(CLI::IsMember({"gpt2-small", "small-5000", "mix-1000", "tiny-20000"}));
  many->add_option("--trials", many_opts.trials, "Timed trials per candidate (default 7).");
  many->add_option("--csv", many_opts.csv_path, "Write the CSV to FILE instead of stdout.")->type_name("FILE");
  many->add_option("--json", many_opts.json_path, "Also write the rows to FILE as JSON (an array of objects).")
      ->type_name("FILE");
  many->add_option("--device", many_opts.device, "CUDA device ordinal to run on.");
  many->add_flag("-q,--quiet", many_opts.quiet, "No progress on stderr.");

  raw_bench_options raw_target;
  CLI::App* target = app.add_subcommand("ncu-target", "Internal: what `bench --counters` runs under ncu.");
  target->group("");  // hidden from --help
  add_bench_options(*target, raw_target);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {command_kind::help, app.help(), 0, {}};
  } catch (const CLI::CallForAllHelp&) {
    return {command_kind::help, app.help("", CLI::AppFormatMode::All), 0, {}};
  } catch (const CLI::ParseError& e) {
    throw usage_error(e.what());
  }

  if (list->parsed()) return {command_kind::list, "", 0, {}};
  if (bench->parsed()) return {command_kind::bench, "", 0, resolve(raw)};
  if (bits->parsed()) return {command_kind::bits, "", 0, bits_options};
  if (accuracy->parsed()) {
    if (!accuracy_n.empty()) {
      try {
        accuracy_options.sizes = {bench::parse_size(accuracy_n)};
      } catch (const invalid_argument& e) {
        throw usage_error(std::string("--n: ") + e.what());
      }
      accuracy_options.sizes_given = true;
    }
    command c{command_kind::accuracy, "", 0, accuracy_options};
    c.save_input = save_input;
    return c;
  }
  if (ops->parsed()) {
    if (!ops_sizes.empty()) {
      try {
        ops_opts.sizes = bench::parse_size_list(ops_sizes);
      } catch (const invalid_argument& e) {
        throw usage_error(std::string("--n: ") + e.what());
      }
    }
    ops_opts.offsets_given = ops->count("--offset") > 0;
    for (const std::string& name : ops_opts.ops)
      if (!bench::ops::parse_op(name)) throw usage_error("--op: unknown op '" + name + "' (see warpfold ops --help)");
    for (const std::string& name : ops_opts.dtypes) {
      const auto t = bench::parse_dtype(name);
      if (!t || *t == bench::dtype::i32) throw usage_error("--dtype: warpfold ops takes f16, bf16, f32, f64, not '" + name + "'");
    }
    for (int offset : ops_opts.offsets)
      if (offset < 0) throw usage_error("--offset: offsets are elements from an aligned start, not negative");
    command c{command_kind::ops, "", 0, {}};
    c.ops = ops_opts;
    return c;
  }
  if (many->parsed()) {
    command c{command_kind::many, "", 0, {}};
    c.ops = many_opts;
    return c;
  }
  if (target->parsed()) return {command_kind::ncu_target, "", 0, resolve(raw_target)};
  return {command_kind::help, app.help(), 2, {}};  // no command: show what there is, and fail
}

command parse_command_line(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"warpfold"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

}  // namespace warpfold::cli
