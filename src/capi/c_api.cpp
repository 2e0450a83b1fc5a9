// The C interface (include/warpfold/c_api.h): a switch from (op, dtype) codes to the C++
// templates that src/axis/ instantiates, and exceptions turned into status codes and a
// per-thread message. Plain C++: it only calls the compiled instantiations.
#include "warpfold/c_api.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "warpfold/axes.hpp"
#include "warpfold/error.hpp"
#include "warpfold/many.hpp"
#include "warpfold/reduce.hpp"
#include "warpfold/statistics.hpp"
#include "warpfold/statistics_axes.hpp"

namespace {

thread_local std::string last_error;

template <typename T>
constexpr int dtype_code() {
  if constexpr (std::is_same_v<T, std::int8_t>) return WARPFOLD_INT8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return WARPFOLD_INT16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return WARPFOLD_INT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return WARPFOLD_INT64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return WARPFOLD_UINT8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return WARPFOLD_UINT16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return WARPFOLD_UINT32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return WARPFOLD_UINT64;
  else if constexpr (std::is_same_v<T, __half>) return WARPFOLD_FLOAT16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return WARPFOLD_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>) return WARPFOLD_FLOAT32;
  else if constexpr (std::is_same_v<T, bool>) return WARPFOLD_BOOL;
  else return WARPFOLD_FLOAT64;
}

// Calls visit(T{}) with the element type named by `dtype`; false if there is none.
template <typename Visit>
bool with_element_type(int dtype, Visit&& visit) {
  switch (dtype) {
    case WARPFOLD_INT8: visit(std::int8_t{}); return true;
    case WARPFOLD_INT16: visit(std::int16_t{}); return true;
    case WARPFOLD_INT32: visit(std::int32_t{}); return true;
    case WARPFOLD_INT64: visit(std::int64_t{}); return true;
    case WARPFOLD_UINT8: visit(std::uint8_t{}); return true;
    case WARPFOLD_UINT16: visit(std::uint16_t{}); return true;
    case WARPFOLD_UINT32: visit(std::uint32_t{}); return true;
    case WARPFOLD_UINT64: visit(std::uint64_t{}); return true;
    case WARPFOLD_FLOAT16: visit(__half{}); return true;
    case WARPFOLD_BFLOAT16: visit(__nv_bfloat16{}); return true;
    case WARPFOLD_FLOAT32: visit(float{}); return true;
    case WARPFOLD_FLOAT64: visit(double{}); return true;
    default: return false;
  }
}

template <typename T>
constexpr bool is_integer_v = std::is_integral_v<T>;

// Calls visit(Op{}) with the op named by `op`, if it fits T; false otherwise.
template <typename T, typename Visit>
bool with_op(int op, Visit&& visit) {
  namespace o = warpfold::op;
  switch (op) {
    case WARPFOLD_SUM: visit(o::sum{}); return true;
    case WARPFOLD_PROD: visit(o::prod{}); return true;
    case WARPFOLD_MIN: visit(o::min{}); return true;
    case WARPFOLD_MAX: visit(o::max{}); return true;
    case WARPFOLD_ARGMIN: visit(o::argmin{}); return true;
    case WARPFOLD_ARGMAX: visit(o::argmax{}); return true;
    default: break;
  }
  if constexpr (is_integer_v<T>) {
    switch (op) {
      case WARPFOLD_BIT_AND: visit(o::bit_and{}); return true;
      case WARPFOLD_BIT_OR: visit(o::bit_or{}); return true;
      case WARPFOLD_BIT_XOR: visit(o::bit_xor{}); return true;
      default: break;
    }
  }
  return false;
}

const char* op_name(int op) {
  static const char* const names[] = {"sum", "prod", "min", "max", "argmin", "argmax", "bit_and", "bit_or", "bit_xor"};
  return op >= 0 && op < 9 ? names[op] : "an unknown op";
}

std::string unsupported(int op, int dtype) {
  if (op < 0 || op > WARPFOLD_BIT_XOR) return "warpfold: unknown op code " + std::to_string(op);
  if (dtype < 0 || dtype > WARPFOLD_FLOAT64) return "warpfold: unknown dtype code " + std::to_string(dtype);
  return std::string("warpfold: ") + op_name(op) + " needs an integer dtype";
}

// What the result element of Op over T is, as codes.
template <typename Op, typename T>
void describe_result(int& dtype, int& bytes) {
  using R = warpfold::axis_result_t<Op, T>;
  if constexpr (warpfold::is_arg_op_v<Op>) {
    static_assert(sizeof(R) == 16 && offsetof(R, index) == 8, "the C API promises 16-byte pairs, index at 8");
    dtype = dtype_code<decltype(R::value)>();
  } else {
    dtype = dtype_code<R>();
  }
  bytes = static_cast<int>(sizeof(R));
}

// Runs `body`, turning what it throws into a status code and this thread's message.
template <typename Body>
int guarded(Body&& body) {
  last_error.clear();
  try {
    return body();
  } catch (const warpfold::cuda_error& e) {
    last_error = e.what();
    return WARPFOLD_CUDA_ERROR;
  } catch (const warpfold::invalid_argument& e) {
    last_error = e.what();
    return WARPFOLD_INVALID_ARGUMENT;
  } catch (const std::exception& e) {
    last_error = e.what();
    return WARPFOLD_INTERNAL_ERROR;
  } catch (...) {
    last_error = "warpfold: unknown error";
    return WARPFOLD_INTERNAL_ERROR;
  }
}

cudaStream_t as_stream(void* stream) {
  // The library is compiled with the legacy default stream; a caller's 0 means that stream.
  return stream == nullptr ? cudaStreamLegacy : static_cast<cudaStream_t>(stream);
}

// Makes `device` current for the lifetime of this object (when it is not already), as the
// Python frameworks expect of a call on an array of another device.
class device_for_call {
 public:
  explicit device_for_call(int device) {
    if (device < 0) return;
    WARPFOLD_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) {
      WARPFOLD_CUDA_CHECK(cudaSetDevice(device));
      restore_ = true;
    }
  }
  ~device_for_call() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  device_for_call(const device_for_call&) = delete;
  device_for_call& operator=(const device_for_call&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

}  // namespace

namespace {

// What one output element of op over dtype is: {-1, -1} when the op does not fit the type.
struct result_description {
  int dtype = -1;
  int bytes = -1;
};

result_description result_of(int op, int dtype) {
  result_description d;
  with_element_type(dtype, [&](auto t) {
    using T = decltype(t);
    with_op<T>(op, [&](auto o) { describe_result<decltype(o), T>(d.dtype, d.bytes); });
  });
  return d;
}

}  // namespace

namespace {

// The statistics of one whole array, or of many: a switch from the statistic code to the
// templates of statistics.hpp and many.hpp, for element type T.

constexpr bool is_statistic(int statistic) { return statistic >= WARPFOLD_NORM_L1 && statistic <= WARPFOLD_STAT_MAX; }

// Calls visit(Stat) with the statistic's definition for T (var_mean and std_mean with
// `correction`); false when the statistic does not take T.
template <typename T, typename Visit>
bool with_statistic(int statistic, double correction, Visit&& visit) {
  namespace s = warpfold::stat;
  if constexpr (warpfold::is_float_element_v<T>) {
    switch (statistic) {
      case WARPFOLD_NORM_L1: visit(s::norm_l1<T>{}); return true;
      case WARPFOLD_NORM_L2: visit(s::norm_l2<T>{}); return true;
      case WARPFOLD_NORM_LINF: visit(s::norm_linf<T>{}); return true;
      case WARPFOLD_MEAN: visit(s::mean<T>{}); return true;
      case WARPFOLD_VAR_MEAN: visit(s::var_mean<T>{correction, false}); return true;
      case WARPFOLD_STD_MEAN: visit(s::var_mean<T>{correction, true}); return true;
      case WARPFOLD_DOT: visit(s::dot<T>{}); return true;
      case WARPFOLD_ANY_NONFINITE: visit(s::any_nonfinite<T>{}); return true;
      case WARPFOLD_STAT_SUM: visit(s::sum<T>{}); return true;
      case WARPFOLD_STAT_MIN: visit(s::min<T>{}); return true;
      case WARPFOLD_STAT_MAX: visit(s::max<T>{}); return true;
      default: break;
    }
  }
  switch (statistic) {
    case WARPFOLD_COUNT_NONZERO: visit(s::count_nonzero<T>{}); return true;
    case WARPFOLD_ANY: visit(s::any<T>{}); return true;
    case WARPFOLD_ALL: visit(s::all<T>{}); return true;
    default: return false;
  }
}

const char* statistic_name(int statistic) {
  static const char* const names[] = {"norm_l1", "norm_l2", "norm_linf", "mean", "var_mean", "std_mean", "dot",
                                      "count_nonzero", "any", "all", "any_nonfinite", "sum", "min", "max"};
  return is_statistic(statistic) ? names[statistic] : "an unknown statistic";
}

std::string api_name(int statistic) { return std::string("warpfold::") + statistic_name(statistic); }

std::string unsupported_statistic(int statistic, int dtype) {
  if (!is_statistic(statistic)) return "warpfold: unknown statistic code " + std::to_string(statistic);
  if (dtype < 0 || dtype > WARPFOLD_FLOAT64) return "warpfold: unknown dtype code " + std::to_string(dtype);
  return std::string("warpfold: ") + statistic_name(statistic) + " needs a float dtype";
}

// What a statistic writes: mean_var<R> is two R's, the mean first.
template <typename R>
struct value_of {
  using type = R;
};
template <typename R>
struct value_of<warpfold::mean_var<R>> {
  using type = R;
};

template <typename Stat>
constexpr bool is_single_array_statistic = true;  // every statistic but sum, min and max
template <typename T, typename Op>
constexpr bool is_single_array_statistic<warpfold::stat::plain<T, Op>> = false;

}  // namespace

struct warpfold_plan {
  std::int64_t outputs = 0;
  // in, out, the output's capacity (checked against the outputs by the C++ API), stream
  std::function<void(const void*, void*, std::int64_t, cudaStream_t)> run;
};

namespace {

// An axis call's shape, view and axes, from the C arguments (checked where C can go wrong:
// counts and null lists; the C++ API checks the rest).
struct axis_arguments {
  warpfold::shape shape;
  warpfold::axes reduced;
  warpfold::strides view;
  bool strided = false;
};
axis_arguments axis_arguments_of(int rank, const int64_t* extents, const int64_t* strides, int axis_count,
                                 const int* axes) {
  if (rank < 0 || rank > warpfold::max_rank)
    throw warpfold::invalid_argument("warpfold: rank " + std::to_string(rank) + " is not supported (0 to " +
                                     std::to_string(warpfold::max_rank) + ")");
  if (axis_count < 0) throw warpfold::invalid_argument("warpfold: a negative number of axes");
  if ((rank > 0 && extents == nullptr) || (axis_count > 0 && axes == nullptr))
    throw warpfold::invalid_argument("warpfold: null extents or axes");
  axis_arguments a;
  a.shape = warpfold::shape(std::vector<std::int64_t>(extents, extents + rank));
  a.reduced = warpfold::axes(std::vector<int>(axes, axes + axis_count));
  a.strided = strides != nullptr && rank > 0;
  if (a.strided) a.view = warpfold::strides(std::vector<std::int64_t>(strides, strides + rank));
  return a;
}

// The checked shape and axes, and the call for (op, dtype) bound to them.
std::unique_ptr<warpfold_plan> make_plan(int op, int dtype, int rank, const int64_t* extents, const int64_t* strides,
                                         int axis_count, const int* axes) {
  const axis_arguments arguments = axis_arguments_of(rank, extents, strides, axis_count, axes);
  const warpfold::shape& shape = arguments.shape;
  const warpfold::axes& reduced = arguments.reduced;
  const warpfold::strides& view = arguments.view;
  const bool strided = arguments.strided;
  auto plan = std::make_unique<warpfold_plan>();
  bool fits = false;
  with_element_type(dtype, [&](auto t) {
    using T = decltype(t);
    fits = with_op<T>(op, [&](auto o) {
      using Op = decltype(o);
      plan->run = [shape, view, strided, reduced](const void* in, void* out, std::int64_t capacity,
                                                 cudaStream_t stream) {
        auto* to = static_cast<warpfold::axis_result_t<Op, T>*>(out);
        if (strided)
          warpfold::reduce_axes<Op, T, false>(static_cast<const T*>(in), shape, view, reduced, to, capacity, stream);
        else
          warpfold::reduce_axes<Op, T, false>(static_cast<const T*>(in), shape, reduced, to, capacity, stream);
      };
    });
  });
  if (!fits) throw warpfold::invalid_argument(unsupported(op, dtype));
  // The shape and axes are checked now, with the output count, by the reduced shape.
  plan->outputs = warpfold::reduced_shape(shape, reduced, false).elements();
  return plan;
}

}  // namespace

extern "C" {

int warpfold_result_dtype(int op, int dtype) { return result_of(op, dtype).dtype; }

int warpfold_result_bytes(int op, int dtype) { return result_of(op, dtype).bytes; }

int warpfold_reduce_axes(int op, int dtype, const void* in, int rank, const int64_t* extents, const int64_t* strides,
                         int axis_count, const int* axes, void* out, int64_t out_capacity, void* stream) {
  return guarded([&] {
    make_plan(op, dtype, rank, extents, strides, axis_count, axes)->run(in, out, out_capacity, as_stream(stream));
    return WARPFOLD_OK;
  });
}

int warpfold_reduce_segments(int op, int dtype, const void* in, const int64_t* begin, const int64_t* end,
                             int64_t segments, void* out, void* stream) {
  return guarded([&] {
    bool ran = false;
    with_element_type(dtype, [&](auto t) {
      using T = decltype(t);
      ran = with_op<T>(op, [&](auto o) {
        using Op = decltype(o);
        warpfold::reduce_segments<Op, T, false>(static_cast<const T*>(in), begin, end, segments,
                                                static_cast<warpfold::axis_result_t<Op, T>*>(out), as_stream(stream));
      });
    });
    if (!ran) throw warpfold::invalid_argument(unsupported(op, dtype));
    return WARPFOLD_OK;
  });
}

int warpfold_sum_mode(int mode, int dtype, const void* in, int64_t n, void* out, void* stream) {
  return guarded([&] {
    if (mode < WARPFOLD_SUM_DEFAULT || mode > WARPFOLD_SUM_EXACT)
      throw warpfold::invalid_argument("warpfold_sum_mode: unknown mode " + std::to_string(mode) +
                                       " (0 default, 1 reproducible, 2 exact)");
    bool ran = false;
    with_element_type(dtype, [&](auto t) {
      using T = decltype(t);
      if constexpr (warpfold::is_summable_float_v<T>) {
        const T* x = static_cast<const T*>(in);
        auto* result = static_cast<warpfold::float_sum_t<T>*>(out);
        if (mode == WARPFOLD_SUM_REPRODUCIBLE) warpfold::sum_reproducible<T, false>(x, n, result, as_stream(stream));
        else if (mode == WARPFOLD_SUM_EXACT) warpfold::sum_exact<T, false>(x, n, result, as_stream(stream));
        else warpfold::sum<T, false>(x, n, result, as_stream(stream));
        ran = true;
      }
    });
    if (!ran)
      throw warpfold::invalid_argument("warpfold_sum_mode: the sum modes take float16, bfloat16, float32 or float64 "
                                       "elements (dtype " + std::to_string(dtype) + ")");
    return WARPFOLD_OK;
  });
}

warpfold_plan* warpfold_plan_axes(int op, int dtype, int rank, const int64_t* extents, const int64_t* strides,
                                  int axis_count, const int* axes, int64_t* outputs) {
  warpfold_plan* made = nullptr;
  const int status = guarded([&] {
    std::unique_ptr<warpfold_plan> plan = make_plan(op, dtype, rank, extents, strides, axis_count, axes);
    if (outputs != nullptr) *outputs = plan->outputs;
    made = plan.release();
    return WARPFOLD_OK;
  });
  return status == WARPFOLD_OK ? made : nullptr;
}

int warpfold_plan_run(const warpfold_plan* plan, int device, const void* in, void* out, void* stream) {
  return guarded([&] {
    if (plan == nullptr) throw warpfold::invalid_argument("warpfold: a null plan");
    device_for_call on(device);
    plan->run(in, out, plan->outputs, as_stream(stream));
    return WARPFOLD_OK;
  });
}

void warpfold_plan_destroy(warpfold_plan* plan) { delete plan; }

int warpfold_release_cached_memory(void) {
  return guarded([] {
    warpfold::release_cached_memory();
    return WARPFOLD_OK;
  });
}

int warpfold_statistic_result_dtype(int statistic, int dtype) {
  int code = -1;
  with_element_type(dtype, [&](auto t) {
    using T = decltype(t);
    with_statistic<T>(statistic, 1, [&](auto stat) {
      code = dtype_code<typename value_of<typename decltype(stat)::result>::type>();
    });
  });
  return code;
}

int warpfold_statistic(int statistic, int dtype, const void* x, const void* y, int64_t n, double correction, void* out,
                       void* stream) {
  return guarded([&] {
    bool ran = false;
    with_element_type(dtype, [&](auto t) {
      using T = decltype(t);
      ran = with_statistic<T>(statistic, correction, [&](auto stat) {
        using Stat = decltype(stat);
        if constexpr (is_single_array_statistic<Stat>) {
          const T* second = statistic == WARPFOLD_DOT ? static_cast<const T*>(y) : nullptr;
          warpfold::detail::statistic_into(stat, static_cast<const T*>(x), second, n,
                                           static_cast<typename Stat::result*>(out), as_stream(stream),
                                           nullptr, api_name(statistic).c_str());
        } else {
          throw warpfold::invalid_argument(std::string("warpfold_statistic: ") + statistic_name(statistic) +
                                           " of one array is warpfold_reduce_axes' op; the statistic is for "
                                           "warpfold_statistic_many");
        }
      });
    });
    if (!ran) throw warpfold::invalid_argument(unsupported_statistic(statistic, dtype));
    return WARPFOLD_OK;
  });
}

int warpfold_statistic_axes(int statistic, int dtype, const void* in, int rank, const int64_t* extents,
                            const int64_t* strides, int axis_count, const int* axes, double correction, void* out,
                            int64_t out_capacity, void* stream) {
  return guarded([&] {
    const axis_arguments a = axis_arguments_of(rank, extents, strides, axis_count, axes);
    bool ran = false;
    with_element_type(dtype, [&](auto t) {
      using T = decltype(t);
      ran = with_statistic<T>(statistic, correction, [&](auto stat) {
        using Stat = decltype(stat);
        namespace s = warpfold::stat;
        constexpr bool along_axes = std::is_same_v<Stat, s::norm_l1<T>> || std::is_same_v<Stat, s::norm_l2<T>> ||
                                    std::is_same_v<Stat, s::norm_linf<T>> || std::is_same_v<Stat, s::mean<T>> ||
                                    std::is_same_v<Stat, s::var_mean<T>>;
        if constexpr (along_axes) {
          // Along axes every output reduces the same number of elements: the mean takes
          // that count from the plan (statistics_axes.cuh).
          const auto along = [&] {
            if constexpr (std::is_same_v<Stat, s::mean<T>>) return s::mean_of_known_count<T>{};
            else return stat;
          }();
          using Axes = std::remove_const_t<decltype(along)>;
          const std::string api = "warpfold::" + std::string(statistic_name(statistic)) + "_axes";
          warpfold::detail::statistic_axes_into(along, static_cast<const T*>(in), a.shape, a.strided ? &a.view : nullptr,
                                                a.reduced, static_cast<typename Axes::result*>(out), out_capacity,
                                                as_stream(stream), api.c_str());
        } else {
          throw warpfold::invalid_argument(std::string("warpfold_statistic_axes: ") + statistic_name(statistic) +
                                           " is not taken along axes (norms, mean, var_mean and std_mean are)");
        }
      });
    });
    if (!ran) throw warpfold::invalid_argument(unsupported_statistic(statistic, dtype));
    return WARPFOLD_OK;
  });
}

int warpfold_statistic_many(int statistic, int dtype, const void* const* arrays, const void* const* second_arrays,
                            const int64_t* sizes, int64_t count, double correction, void* per_array, void* combined,
                            void* stream) {
  return guarded([&] {
    if (count < 0) throw warpfold::invalid_argument("warpfold_statistic_many: a negative number of arrays");
    if (count > 0 && (arrays == nullptr || sizes == nullptr))
      throw warpfold::invalid_argument("warpfold_statistic_many: null array or size list");
    if (statistic == WARPFOLD_DOT && count > 0 && second_arrays == nullptr)
      throw warpfold::invalid_argument("warpfold_statistic_many: dot needs the list of second arrays (y)");
    bool ran = false;
    with_element_type(dtype, [&](auto t) {
      using T = decltype(t);
      ran = with_statistic<T>(statistic, correction, [&](auto stat) {
        using Stat = decltype(stat);
        if constexpr (warpfold::is_float_element_v<T>) {  // the many-array forms take float arrays (many.hpp)
          using Entry = warpfold::detail::many_entry_t<Stat, T>;
          std::vector<Entry> list(static_cast<std::size_t>(count));
          for (std::int64_t i = 0; i < count; ++i) {
            if constexpr (warpfold::detail::takes_pairs<Stat>::value)
              list[i] = {static_cast<const T*>(arrays[i]), static_cast<const T*>(second_arrays[i]), sizes[i]};
            else
              list[i] = {static_cast<const T*>(arrays[i]), sizes[i]};
          }
          using R = typename Stat::result;
          warpfold::detail::many_into<Stat, T>(stat, nullptr, list.data(), count, static_cast<R*>(per_array),
                                               static_cast<R*>(combined), nullptr, as_stream(stream), nullptr,
                                               (api_name(statistic) + "_many").c_str());
        } else {
          throw warpfold::invalid_argument(std::string("warpfold_statistic_many: ") + statistic_name(statistic) +
                                           " of many arrays takes float dtypes");
        }
      });
    });
    if (!ran) throw warpfold::invalid_argument(unsupported_statistic(statistic, dtype));
    return WARPFOLD_OK;
  });
}

const char* warpfold_last_error(void) { return last_error.c_str(); }

const char* warpfold_version(void) { return WARPFOLD_VERSION_STRING; }

}  // extern "C"
