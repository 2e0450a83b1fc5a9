// Which implementations a bench run measures, from the --impl filter. Plain C++.
#pragma once

#include <string>
#include <vector>

namespace warpfold::bench {

struct impl_name {
  std::string name;    // "3-sequential", "cub"
  std::string family;  // "ladder", "baseline", "production"
};

// The names chosen by `filters`, in catalogue order and each once. A filter is a name
// ("3-sequential", "cub"), a ladder step number ("3"), a family ("ladder", "baseline",
// "production") or "all". No filters means all. Throws warpfold::invalid_argument for a
// filter that matches nothing, listing the known names.
std::vector<std::string> select_impls(const std::vector<std::string>& filters, const std::vector<impl_name>& catalogue);

}  // namespace warpfold::bench
