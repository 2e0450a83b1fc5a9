#include "bench/selection.hpp"

#include <algorithm>

#include "warpfold/error.hpp"

namespace warpfold::bench {

std::vector<std::string> select_impls(const std::vector<std::string>& filters, const std::vector<impl_name>& catalogue) {
  std::vector<bool> chosen(catalogue.size(), filters.empty());
  for (const std::string& filter : filters) {
    bool matched = false;
    for (std::size_t i = 0; i < catalogue.size(); ++i) {
      const impl_name& c = catalogue[i];
      const bool step_number = c.family == "ladder" && c.name.substr(0, c.name.find('-')) == filter;
      if (filter == "all" || filter == c.name || filter == c.family || step_number) {
        chosen[i] = true;
        matched = true;
      }
    }
    if (!matched) {
      std::vector<std::string> names;
      for (const impl_name& c : catalogue)
        if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      throw invalid_argument("unknown implementation '" + filter + "' (known: " + known +
                             "; or a step number, 'ladder', 'baseline', 'production', 'all')");
    }
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < catalogue.size(); ++i)
    if (chosen[i] && std::find(names.begin(), names.end(), catalogue[i].name) == names.end())
      names.push_back(catalogue[i].name);
  return names;
}

}  // namespace warpfold::bench
