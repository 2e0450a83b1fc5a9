/* warpfold's C interface: the axis and segmented reductions (and through them the full
 * reduction) for every op and element type that the library compiles, callable from C and
 * from any language with a C foreign-function interface. The Python package (python/) uses
 * it through ctypes, which is why it exists: one shared library serves every Python version.
 *
 * Every function returns WARPFOLD_OK (0) or an error code; on error nothing was launched or
 * written, and warpfold_last_error() gives the library's message (per calling thread, valid
 * until that thread's next call). Nothing here prints or exits.
 *
 * Semantics are those of the C++ API (<warpfold/axes.hpp>): row-major input on the current
 * device, the accumulator rules of <warpfold/accumulator.hpp>, asynchronous on `stream`
 * (NULL is the legacy default stream), safe from any number of threads, streams and graphs. */
#ifndef WARPFOLD_C_API_H
#define WARPFOLD_C_API_H

#include <stdint.h>

#if defined(__GNUC__)
#define WARPFOLD_C_EXPORT __attribute__((visibility("default")))
#else
#define WARPFOLD_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum warpfold_op {
  WARPFOLD_SUM = 0,
  WARPFOLD_PROD = 1,
  WARPFOLD_MIN = 2,
  WARPFOLD_MAX = 3,
  WARPFOLD_ARGMIN = 4,
  WARPFOLD_ARGMAX = 5,
  WARPFOLD_BIT_AND = 6,
  WARPFOLD_BIT_OR = 7,
  WARPFOLD_BIT_XOR = 8
};

enum warpfold_dtype {
  WARPFOLD_INT8 = 0,
  WARPFOLD_INT16 = 1,
  WARPFOLD_INT32 = 2,
  WARPFOLD_INT64 = 3,
  WARPFOLD_UINT8 = 4,
  WARPFOLD_UINT16 = 5,
  WARPFOLD_UINT32 = 6,
  WARPFOLD_UINT64 = 7,
  WARPFOLD_FLOAT16 = 8,
  WARPFOLD_BFLOAT16 = 9,
  WARPFOLD_FLOAT32 = 10,
  WARPFOLD_FLOAT64 = 11,
  WARPFOLD_BOOL = 12 /* one byte, 0 or 1: the result of any, all and any_nonfinite */
};

enum warpfold_status {
  WARPFOLD_OK = 0,
  WARPFOLD_INVALID_ARGUMENT = 1, /* bad shape, axis, pointer, op for the type, ... */
  WARPFOLD_CUDA_ERROR = 2,       /* a CUDA call failed (out of memory included) */
  WARPFOLD_INTERNAL_ERROR = 3
};

/* The type each output element holds for `op` over `dtype` elements: a warpfold_dtype, or -1
 * when the op does not fit the type (a bitwise op of floats) or either code is unknown. For
 * argmin and argmax it is the type of the value half of the 16-byte (value, int64 index)
 * pair that each output is; the index is the 8 bytes at offset 8. */
WARPFOLD_C_EXPORT int warpfold_result_dtype(int op, int dtype);

/* Bytes per output element (16 for argmin and argmax), or -1 as above. */
WARPFOLD_C_EXPORT int warpfold_result_bytes(int op, int dtype);

/* Reduces the axes `axes[0..axis_count)` of the array `in` of `rank` extents (rank 0 to 8;
 * negative axes count from the end) into `out`, which holds `out_capacity` elements of
 * warpfold_result_bytes(op, dtype) bytes each, row-major over the kept axes. `strides` gives
 * each axis's step in elements (a strided view read in place: transposed, permuted, sliced,
 * broadcast with stride 0; negative strides are refused), or is NULL for a row-major array. */
WARPFOLD_C_EXPORT int warpfold_reduce_axes(int op, int dtype, const void* in, int rank, const int64_t* extents,
                                           const int64_t* strides, int axis_count, const int* axes, void* out,
                                           int64_t out_capacity, void* stream);

/* out[s] = the reduction of in[begin[s] .. end[s]), s < segments (offsets in elements). */
WARPFOLD_C_EXPORT int warpfold_reduce_segments(int op, int dtype, const void* in, const int64_t* begin,
                                               const int64_t* end, int64_t segments, void* out, void* stream);

/* The float sum modes (<warpfold/sum_modes.hpp>) of a whole contiguous array. */
enum warpfold_sum_mode {
  WARPFOLD_SUM_DEFAULT = 0,      /* warpfold::sum: bits fixed on one GPU */
  WARPFOLD_SUM_REPRODUCIBLE = 1, /* warpfold::sum_reproducible: the same bits on every GPU */
  WARPFOLD_SUM_EXACT = 2         /* warpfold::sum_exact: the exact sum, rounded once */
};
/* *out = the sum of in[0 .. n) in `mode`: a float for FLOAT16, BFLOAT16 and FLOAT32 input, a
 * double for FLOAT64; other dtypes are refused. */
WARPFOLD_C_EXPORT int warpfold_sum_mode(int mode, int dtype, const void* in, int64_t n, void* out, void* stream);

/* The statistics of <warpfold/statistics.hpp> and <warpfold/many.hpp> over whole contiguous
 * arrays. Their result is FLOAT32 for FLOAT16, BFLOAT16 and FLOAT32 input and FLOAT64 for
 * FLOAT64 input, except: count_nonzero gives INT64; any, all and any_nonfinite give BOOL.
 * var_mean and std_mean give two values, the mean first, then the variance (or standard
 * deviation), which divides by n - correction. */
enum warpfold_statistic {
  WARPFOLD_NORM_L1 = 0,
  WARPFOLD_NORM_L2 = 1, /* never overflows or underflows when the norm is representable */
  WARPFOLD_NORM_LINF = 2,
  WARPFOLD_MEAN = 3,
  WARPFOLD_VAR_MEAN = 4,
  WARPFOLD_STD_MEAN = 5,
  WARPFOLD_DOT = 6, /* of two arrays, x and y */
  WARPFOLD_COUNT_NONZERO = 7, /* also of integers (and of bools, given as UINT8) */
  WARPFOLD_ANY = 8,           /* also of integers */
  WARPFOLD_ALL = 9,           /* also of integers */
  WARPFOLD_ANY_NONFINITE = 10,
  WARPFOLD_STAT_SUM = 11, /* sum, min and max as statistics: for warpfold_statistic_many only */
  WARPFOLD_STAT_MIN = 12,
  WARPFOLD_STAT_MAX = 13
};

/* The dtype of `statistic`'s result over `dtype` elements (a warpfold_dtype, BOOL included),
 * or -1 when it does not take that type or either code is unknown. */
WARPFOLD_C_EXPORT int warpfold_statistic_result_dtype(int statistic, int dtype);

/* out = the statistic of x[0 .. n) (of the pairs x[i], y[i] for DOT; y is ignored otherwise):
 * one value in device memory (two for VAR_MEAN and STD_MEAN). `correction` is used by
 * VAR_MEAN and STD_MEAN only (1: unbiased, torch's default). */
WARPFOLD_C_EXPORT int warpfold_statistic(int statistic, int dtype, const void* x, const void* y, int64_t n,
                                         double correction, void* out, void* stream);

/* The statistic along axes: NORM_L1, NORM_L2, NORM_LINF, MEAN, VAR_MEAN and STD_MEAN of the
 * array `in`, given as for warpfold_reduce_axes (rank, extents, optional element strides, the
 * axes to reduce), into `out`, row-major over the kept axes, which holds `out_capacity`
 * outputs: one value each, of warpfold_statistic_result_dtype's type, or two (the mean first)
 * for VAR_MEAN and STD_MEAN. One launch; see <warpfold/statistics_axes.hpp>. */
WARPFOLD_C_EXPORT int warpfold_statistic_axes(int statistic, int dtype, const void* in, int rank, const int64_t* extents,
                                              const int64_t* strides, int axis_count, const int* axes,
                                              double correction, void* out, int64_t out_capacity, void* stream);

/* Many arrays in one launch: for the `count` arrays arrays[i] of sizes[i] elements (the lists
 * in host memory, the arrays on the device), per_array[i] = the statistic of array i and
 * *combined = that of all their elements together; either output may be NULL, not both.
 * DOT takes the pairs arrays[i], second_arrays[i] (second_arrays is ignored otherwise; the
 * combined result is the dot product of all pairs together). Every statistic, of float
 * dtypes. */
WARPFOLD_C_EXPORT int warpfold_statistic_many(int statistic, int dtype, const void* const* arrays,
                                              const void* const* second_arrays, const int64_t* sizes,
                                              int64_t count, double correction, void* per_array, void* combined,
                                              void* stream);

/* A prepared axis reduction: the same call as warpfold_reduce_axes, with everything but the
 * pointers, the device and the stream checked and decided once. For callers that repeat a
 * call many times (the Python package caches one per op, dtype, shape and dims): a run then
 * costs little more than the launch. warpfold_plan_axes returns NULL on error (see
 * warpfold_last_error) and stores the number of outputs in *outputs. */
typedef struct warpfold_plan warpfold_plan;
WARPFOLD_C_EXPORT warpfold_plan* warpfold_plan_axes(int op, int dtype, int rank, const int64_t* extents,
                                                    const int64_t* strides, int axis_count, const int* axes,
                                                    int64_t* outputs);
/* Runs `plan` on device `device` (made current for the call, then restored; -1: the current
 * device) from `in` into `out` (the plan's outputs) on `stream`. */
WARPFOLD_C_EXPORT int warpfold_plan_run(const warpfold_plan* plan, int device, const void* in, void* out,
                                        void* stream);
WARPFOLD_C_EXPORT void warpfold_plan_destroy(warpfold_plan* plan);

/* Frees the library's cached scratch memory (warpfold::release_cached_memory). */
WARPFOLD_C_EXPORT int warpfold_release_cached_memory(void);

/* The message of this thread's last failed call ("" if none). */
WARPFOLD_C_EXPORT const char* warpfold_last_error(void);

/* "0.3.0": the project version */
WARPFOLD_C_EXPORT const char* warpfold_version(void);

#ifdef __cplusplus
}
#endif

#endif /* WARPFOLD_C_API_H */
