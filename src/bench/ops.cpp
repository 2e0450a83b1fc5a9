// Names of the ops that `warpfold ops` times (bench/ops.hpp).
#include "bench/ops.hpp"

namespace warpfold::bench::ops {

const std::vector<op_kind>& all_ops() {
  static const std::vector<op_kind> ops = {op_kind::sum,     op_kind::prod,    op_kind::min,     op_kind::max,
                                           op_kind::argmin,  op_kind::argmax,  op_kind::norm_l1, op_kind::norm_l2,
                                           op_kind::norm_linf, op_kind::dot,   op_kind::mean,    op_kind::var_mean};
  return ops;
}

std::string name(op_kind op) {
  switch (op) {
    case op_kind::sum: return "sum";
    case op_kind::prod: return "prod";
    case op_kind::min: return "min";
    case op_kind::max: return "max";
    case op_kind::argmin: return "argmin";
    case op_kind::argmax: return "argmax";
    case op_kind::norm_l1: return "norm_l1";
    case op_kind::norm_l2: return "norm_l2";
    case op_kind::norm_linf: return "norm_linf";
    case op_kind::dot: return "dot";
    case op_kind::mean: return "mean";
    case op_kind::var_mean: return "var_mean";
  }
  return "?";
}

std::optional<op_kind> parse_op(const std::string& text) {
  for (op_kind op : all_ops())
    if (name(op) == text) return op;
  return std::nullopt;
}

}  // namespace warpfold::bench::ops
