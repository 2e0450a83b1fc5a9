// scripts/merge-random-runs without a GPU: random-case CSVs of two seeds become one, each case
// renumbered seed x 1000 + case, the ceiling rows kept from the first file only; a file whose
// name carries no seed is refused. Skipped where no python3 is found.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string script() { return std::string(WARPFOLD_SOURCE_DIR) + "/scripts/merge-random-runs"; }

bool have_python() { return std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0; }

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(MergeRandomRunsScript, RenumbersCasesBySeedAndKeepsOneCeiling) {
  if (!have_python()) GTEST_SKIP() << "no python3";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "warpfold_merge_random_runs_test";
  std::filesystem::create_directories(dir);
  const std::string header = "case,impl,time_us\n";
  write(dir / "seed3_new.csv", header + ",read_ceiling,100\n7,warpfold,1.5\n12,warpfold,2.5\n");
  write(dir / "seed12_new.csv", header + ",read_ceiling,101\n7,warpfold,3.5\n");
  const std::string command = "python3 '" + script() + "' '" + (dir / "merged.csv").string() + "' '" +
                              (dir / "seed3_new.csv").string() + "' '" + (dir / "seed12_new.csv").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read(dir / "merged.csv"),
            header + ",read_ceiling,100\n3007,warpfold,1.5\n3012,warpfold,2.5\n12007,warpfold,3.5\n");

  write(dir / "no_number.csv", header + "1,warpfold,1.0\n");
  const std::string refused = "python3 '" + script() + "' '" + (dir / "out.csv").string() + "' '" +
                              (dir / "no_number.csv").string() + "' 2>/dev/null";
  EXPECT_NE(std::system(refused.c_str()), 0);
  std::filesystem::remove_all(dir);
}
