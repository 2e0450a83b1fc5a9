// scripts/compare_torch (python -m warpfold.bench) without a GPU: its CSV header is the axis
// bench's, then `case` (so the files plot and check side by side), a bad command line is
// refused before anything is imported, and without torch and cupy it says so and fails.
// Skipped where no python3 is found.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/output.hpp"

namespace {

std::string script() { return std::string(WARPFOLD_SOURCE_DIR) + "/scripts/compare_torch"; }

bool have_python() { return std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0; }

// stdout of `python3 scripts/compare_torch ARGS`, and its exit status.
std::string run(const std::string& args, int& status) {
  const std::string command = "python3 '" + script() + "' " + args + " 2>/dev/null";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return output;
  }
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  status = pclose(pipe);
  return output;
}

}  // namespace

TEST(CompareTorchScript, WritesTheAxisBenchsColumns) {
  if (!have_python()) GTEST_SKIP() << "no python3";
  int status = 0;
  const std::string header = run("--columns", status);
  EXPECT_EQ(status, 0);
  std::string wanted;
  for (const std::string& c : warpfold::bench::axis_csv_columns()) wanted += (wanted.empty() ? "" : ",") + c;
  EXPECT_EQ(header, wanted + ",case\n");
}

TEST(CompareTorchScript, RefusesBadCommandLines) {
  if (!have_python()) GTEST_SKIP() << "no python3";
  for (const char* bad : {"--shape 8192", "--shape 2x3x4", "--dims 2", "--impl jax", "--trials 3"}) {
    int status = 0;
    run(bad, status);
    EXPECT_NE(status, 0) << bad;
  }
}

TEST(CompareTorchScript, FailsClearlyWithoutTorchOrCupy) {
  if (!have_python()) GTEST_SKIP() << "no python3";
  if (std::system("python3 -c 'import torch' >/dev/null 2>&1") == 0 ||
      std::system("python3 -c 'import cupy' >/dev/null 2>&1") == 0)
    GTEST_SKIP() << "torch or cupy is installed here";
  const std::string command = "python3 '" + script() + "' --shape 64x64 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  EXPECT_NE(pclose(pipe), 0);
  EXPECT_NE(output.find("torch is not installed"), std::string::npos) << output;
  EXPECT_NE(output.find("neither torch nor cupy"), std::string::npos) << output;
}
