// The --impl filter.
#include <gtest/gtest.h>

#include "bench/selection.hpp"
#include "warpfold/error.hpp"

namespace wb = warpfold::bench;

namespace {
const std::vector<wb::impl_name> catalogue = {
    {"0-global", "ladder"}, {"1-interleaved", "ladder"}, {"9-vector-loads", "ladder"},
    {"cub", "baseline"},    {"thrust", "baseline"},      {"warpfold", "production"},
};
using names = std::vector<std::string>;
}  // namespace

TEST(SelectImpls, NoFilterMeansAll) {
  EXPECT_EQ(wb::select_impls({}, catalogue),
            (names{"0-global", "1-interleaved", "9-vector-loads", "cub", "thrust", "warpfold"}));
  EXPECT_EQ(wb::select_impls({"all"}, catalogue).size(), 6u);
}

TEST(SelectImpls, ByNameNumberAndFamilyInCatalogueOrder) {
  EXPECT_EQ(wb::select_impls({"cub", "9"}, catalogue), (names{"9-vector-loads", "cub"}));
  EXPECT_EQ(wb::select_impls({"ladder"}, catalogue), (names{"0-global", "1-interleaved", "9-vector-loads"}));
  EXPECT_EQ(wb::select_impls({"baseline", "production"}, catalogue), (names{"cub", "thrust", "warpfold"}));
  EXPECT_EQ(wb::select_impls({"0-global", "0"}, catalogue), (names{"0-global"}));
}

TEST(SelectImpls, UnknownNamesAreAnError) {
  EXPECT_THROW(wb::select_impls({"cub", "nope"}, catalogue), warpfold::invalid_argument);
  EXPECT_THROW(wb::select_impls({"5"}, catalogue), warpfold::invalid_argument);  // not in this catalogue
  EXPECT_THROW(wb::select_impls({"global"}, catalogue), warpfold::invalid_argument);
  try {
    wb::select_impls({"nope"}, catalogue);
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: 0-global, 1-interleaved, 9-vector-loads, cub"), std::string::npos)
        << e.what();
  }
}
