#include "bench/axis_cases.hpp"

#include "bench/sizes.hpp"
#include "warpfold/error.hpp"

namespace warpfold::bench {
namespace {

[[noreturn]] void bad_shape(std::string_view text, const std::string& why) {
  throw invalid_argument("invalid shape '" + std::string(text) + "': " + why +
                         " (write ROWSxCOLS, e.g. 8192x8192 or 2^24x4)");
}

}  // namespace

matrix_shape parse_shape(std::string_view text) {
  const std::size_t x = text.find('x');
  if (x == std::string_view::npos) bad_shape(text, "no 'x' between the two extents");
  if (text.find('x', x + 1) != std::string_view::npos) bad_shape(text, "the axis bench takes 2-D shapes only");
  matrix_shape shape;
  try {
    shape.rows = parse_size(text.substr(0, x));
    shape.cols = parse_size(text.substr(x + 1));
  } catch (const invalid_argument& e) {
    bad_shape(text, e.what());
  }
  // Both are at most 2^36, so the product cannot overflow int64 before this check.
  if (shape.elements() > max_size) bad_shape(text, "more than 2^36 elements");
  return shape;
}

std::vector<matrix_shape> parse_shape_list(std::string_view text) {
  std::vector<matrix_shape> shapes;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const matrix_shape s = parse_shape(text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin));
    bool seen = false;
    for (const matrix_shape& t : shapes) seen = seen || t == s;
    if (!seen) shapes.push_back(s);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return shapes;
}

std::string format_shape(const matrix_shape& shape) {
  return std::to_string(shape.rows) + "x" + std::to_string(shape.cols);
}

int parse_axis_dim(std::string_view text) {
  if (text == "0" || text == "-2") return 0;
  if (text == "1" || text == "-1") return 1;
  throw invalid_argument("invalid dim '" + std::string(text) + "': a 2-D array has dims 0 and 1 (or -2 and -1)");
}

std::string describe(const axis_case& c) { return format_shape(c.shape) + " dim " + std::to_string(c.dim); }

const std::vector<matrix_shape>& issue_axis_shapes() {
  static const std::vector<matrix_shape> shapes = {
      {8192, 8192},   {65536, 1024},  {1024, 65536},  {4194304, 16},
      {16, 4194304},  {1048576, 64},  {64, 1048576},  {16777216, 4},
  };
  return shapes;
}

const std::vector<int>& default_axis_dims() {
  static const std::vector<int> dims = {1, 0};
  return dims;
}

std::vector<axis_case> axis_cases(const std::vector<matrix_shape>& shapes, const std::vector<int>& dims) {
  std::vector<axis_case> cases;
  for (const matrix_shape& s : shapes)
    for (int d : dims) cases.push_back({s, d});
  return cases;
}

}  // namespace warpfold::bench
