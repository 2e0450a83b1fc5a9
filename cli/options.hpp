// The command line of `warpfold`, parsed with CLI11 into plain structs. Parsing runs no GPU
// code and prints nothing: --help comes back as a command that carries the help text, and a
// bad command line throws usage_error with CLI11's (or our) message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/axis_cases.hpp"
#include "bench/dtype.hpp"
#include "warpfold/error.hpp"
#include "warpfold/ladder/ladder.hpp"

namespace warpfold::cli {

class usage_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

// The default run's size: 2^27 int32 (512 MiB per buffer), far beyond any L2.
inline constexpr std::int64_t default_bench_size = std::int64_t(1) << 27;
inline constexpr int default_trials = 9;
inline constexpr int min_trials = 7;

struct bench_options {
  bool sweep = false;
  bool axis = false;                              // --axis: the standard sums along one dim (dtype f32)
  std::vector<bench::matrix_shape> shapes;        // --axis: the eight standard shapes by default
  std::vector<int> dims;                          // --axis: 1, 0 by default
  int random_cases = 0;                           // --axis --random K: K random N-D cases instead
  std::vector<int> random_only;                   // --cases: only these of them (empty: all)
  bool segments = false;                          // --segments: variable-length segmented sums (f32)
  bool host = false;                              // --host: f32 sums of an array in host memory
  bool distributed = false;                       // --distributed: f32 sums sharded over every local GPU
  std::vector<int> chunk_mib;                     // --host --chunk-mib: staging chunks to time besides the default
  std::vector<int> copy_threads;                  // --host --copy-threads: copy threads to time besides the default
  std::uint64_t seed = 1;                         // --seed: which random cases, or which segments
  std::vector<std::string> impls;                 // filters (see bench/selection.hpp); empty: all
  std::vector<bench::dtype> dtypes;               // i32 by default; with --sweep i32,f32,f64
  bench::value_spread data = bench::value_spread::uniform;  // --data: how float inputs spread
  std::vector<ladder::finisher> finishers;        // last-block by default
  std::vector<std::int64_t> sizes;                // 2^27 by default; with --sweep 2^10..2^30 step 4x;
                                                  // with --segments one size, 2^26 by default;
                                                  // with --host / --distributed one size (0: default)
  bool sizes_given = false;                       // --n was given
  int trials = default_trials;
  double batch_ms = 1.0;                          // minimum length of one timed batch
  int block_size = ladder::default_block_size;
  int device = 0;
  bool counters = false;
  std::string csv_path;
  std::string json_path;
  std::string counters_csv_path;
  bool quiet = false;                             // no progress on stderr
};

// warpfold ops and warpfold many (ops_command.hpp).
struct ops_options {
  std::vector<std::string> ops;      // empty: all
  std::vector<std::string> dtypes;   // f32 and f16 by default
  std::vector<std::int64_t> sizes;   // 2^10 .. 2^30, step 4x, by default
  std::vector<int> offsets;          // 0 by default, and 1 and 3 at n >= 2^28
  std::vector<std::string> lists;    // `warpfold many`: the lists to time; empty: all
  bool offsets_given = false;
  int trials = 7;
  int device = 0;
  std::string csv_path;
  std::string json_path;
  bool quiet = false;
};

enum class command_kind {
  help,        // print help_text and exit 0
  list,        // warpfold list
  bench,       // warpfold bench
  bits,        // warpfold bits
  accuracy,    // warpfold accuracy
  ops,         // warpfold ops
  many,        // warpfold many
  ncu_target,  // hidden: run each selected ladder step once (what `bench --counters` profiles)
};

struct command {
  command_kind kind = command_kind::help;
  std::string help_text;
  int exit_code = 0;  // help only: 0 for --help, 2 when no command was given
  bench_options bench;
  std::string save_input;  // accuracy: where to write the generated input
  ops_options ops;         // ops and many
};

// argv[0] is the program name, as main() receives it.
command parse_command_line(int argc, const char* const* argv);
// The arguments after the program name.
command parse_command_line(const std::vector<std::string>& args);

}  // namespace warpfold::cli
