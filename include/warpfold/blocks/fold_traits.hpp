// What a thread's fold may assume about the converter that turns an element into an
// accumulator (blocks/vector_fold.cuh). Plain C++, so that the headers that define the
// converters can say so without pulling in device code. Each is false unless a converter's
// own header specializes it.
#pragma once

#include <type_traits>

namespace warpfold::blocks {

// to_acc(x, i).value orders as x itself does (a plain widening, with or without an index
// shift): argmin/argmax may then find a vector's best value on the items themselves.
template <typename ToAcc>
struct keeps_value_order : std::false_type {};

// to_acc(x, i) is the moments of the one element x, {1, x, 0}: var_mean may then compute a
// vector's moments directly.
template <typename ToAcc>
struct makes_unit_moments : std::false_type {};

// to_acc(x, i) is x widened (half -> float, float -> double), nothing else: min and max may
// then compare the items themselves before one of them is widened.
template <typename ToAcc>
struct only_widens : std::false_type {};

// to_acc(x, i) is |x| widened, and it meets only a max that keeps NaN (norm_linf): a vector's
// magnitudes may then meet before one of them is widened.
template <typename ToAcc>
struct folds_largest_magnitude : std::false_type {};

}  // namespace warpfold::blocks
