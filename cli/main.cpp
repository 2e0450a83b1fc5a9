// warpfold: the command-line tool. The only place that catches: library code throws, and
// here an exception becomes one line on stderr and a non-zero exit code.
//   0  success            1  a wrong answer (FAILED), or an error while running
//   2  a bad command line

#include <exception>
#include <iostream>

#include "bench/device.hpp"
#include "bench_command.hpp"
#include "accuracy_command.hpp"
#include "bits_command.hpp"
#include "counters.hpp"
#include "ops_command.hpp"
#include "options.hpp"

int main(int argc, char** argv) {
  using namespace warpfold::cli;
  try {
    const command cmd = parse_command_line(argc, argv);
    switch (cmd.kind) {
      case command_kind::help:
        (cmd.exit_code == 0 ? std::cout : std::cerr) << cmd.help_text;
        return cmd.exit_code;
      case command_kind::list:
        print_list(std::cout);
        return 0;
      case command_kind::bench:
        return run_bench(cmd.bench);
      case command_kind::accuracy:
        return run_accuracy(cmd.bench, cmd.save_input);
      case command_kind::bits:
        return run_bits(cmd.bench);
      case command_kind::ops:
        return run_ops(cmd.ops);
      case command_kind::many:
        return run_many(cmd.ops);
      case command_kind::ncu_target:
        return run_ncu_target(cmd.bench);
    }
  } catch (const usage_error& e) {
    std::cerr << "warpfold: " << e.what() << " (see warpfold --help)\n";
    return 2;
  } catch (const warpfold::bench::no_device_error& e) {
    std::cerr << "warpfold: " << e.what() << "; `warpfold bench` needs one\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "warpfold: error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
