// What `warpfold bench --axis` measures: float sums along one dim of a row-major
// 2-D array. The default run is the sixteen standard cases: eight shapes, each reduced
// along dim 1 (one output per row) and along dim 0 (one per column). (The issue calls them
// 2^28 elements, but every one of its shapes holds 2^26: 256 MiB of float. The shapes are
// taken as written; --shape measures any others.)
// Shapes and dims as people write them and as the bench prints them. Plain C++: the option
// parser and the CPU tests use it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::bench {

// A row-major ROWS x COLS array.
struct matrix_shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  std::int64_t elements() const { return rows * cols; }
  bool operator==(const matrix_shape& other) const { return rows == other.rows && cols == other.cols; }
  bool operator!=(const matrix_shape& other) const { return !(*this == other); }
};

// "8192x8192"; each extent in any form parse_size takes ("2^13x2^13", "16Mix4"). The element
// count must be at most max_size (sizes.hpp). Throws warpfold::invalid_argument naming the text.
matrix_shape parse_shape(std::string_view text);
// A comma-separated list of shapes, in the order given; duplicates are kept out.
std::vector<matrix_shape> parse_shape_list(std::string_view text);
// "8192x8192": plain decimal extents, as the CSV and torch's shapes show them.
std::string format_shape(const matrix_shape& shape);

// A dim of a 2-D array as written on the command line: 0 or 1, or -2 / -1 counted from the
// end as torch.sum and numpy do. Returns 0 or 1; throws warpfold::invalid_argument otherwise.
int parse_axis_dim(std::string_view text);

// One case: a shape and the dim it is reduced along.
//   dim 1: output r sums row r: `rows` outputs, each of `cols` contiguous elements;
//   dim 0: output c sums column c: `cols` outputs, each of `rows` elements `cols` apart.
struct axis_case {
  matrix_shape shape;
  int dim = 1;

  std::int64_t outputs() const { return dim == 1 ? shape.rows : shape.cols; }
  std::int64_t reduced() const { return dim == 1 ? shape.cols : shape.rows; }  // elements per output
  // The least a call must move: every input element read once, every output written once.
  std::int64_t bytes_in(int element_bytes) const { return shape.elements() * element_bytes; }
  std::int64_t bytes_out(int output_bytes) const { return outputs() * output_bytes; }
  bool operator==(const axis_case& other) const { return shape == other.shape && dim == other.dim; }
};

// "8192x8192 dim 1"
std::string describe(const axis_case& c);

// The eight standard shapes, 2^26 elements each, in their usual order.
const std::vector<matrix_shape>& issue_axis_shapes();
// The default dims, in order: 1 (row sums), then 0 (column sums).
const std::vector<int>& default_axis_dims();

// Every shape with every dim, shape by shape: the order of the bench's table and CSV.
std::vector<axis_case> axis_cases(const std::vector<matrix_shape>& shapes, const std::vector<int>& dims);

}  // namespace warpfold::bench
