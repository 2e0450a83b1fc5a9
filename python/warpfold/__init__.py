"""warpfold from Python: reductions of torch tensors, CuPy arrays and any CUDA array that
speaks DLPack or __cuda_array_interface__ (JAX, Numba, ...), on the GPU, by the warpfold
library (include/warpfold/c_api.h, loaded with ctypes).

    import torch, warpfold
    x = torch.randn(4096, 1000, device="cuda")
    warpfold.sum(x)                  # a 0-d tensor: the sum of everything
    warpfold.max(x, dim=1)           # 4096 row maxima (values, like torch.amax)
    warpfold.argmax(x, dim=0)        # 1000 int64 indices
    warpfold.sum(x, axis=(0, 1), keepdim=True)

Conventions (torch's and NumPy's):
- dim (or axis, as NumPy spells it): None for every axis, an int, or a tuple; negative dims
  count from the end; an empty tuple reduces nothing.
- The result is the caller's kind of array, on the input's device, made without a copy; its
  dtype follows warpfold's accumulator rules: sums and products of integers of 32 bits or
  fewer in int64 (uint64 for unsigned), float16 and bfloat16 in float32, the rest in their
  own type. dtype= converts the result. bool inputs count as 0/1: sums give int64.
- min and max give values only (torch.amin/amax); argmin/argmax give int64 indices, counted
  row-major over the reduced dims (over the flattened array when dim is None).
- Work is enqueued on the framework's current stream (torch.cuda.current_stream(),
  cupy.cuda.get_current_stream()) with no synchronization, so it can be captured in a CUDA
  graph (torch.cuda.graph).
- The input is read in place, never copied: any strided view with non-negative strides
  (transposed or permuted, sliced as x[:, 1:-1] or x[:, ::2], broadcast by expand or
  broadcast_to). The result is row-major over the kept dims in the view's order, and
  argmin/argmax count in the view's order too, as torch does. Negative strides (CuPy's
  x[::-1]) are refused with a ValueError.
- out= (sum, prod, min, max) writes into the caller's C-contiguous array of the result's dtype
  and element count instead of making one (dtype= and keepdim do not apply then).
- Statistics of whole arrays: norm (ord 1, 2 or inf; the L2 norm never overflows or
  underflows when the norm is representable), dot, mean, var, std, var_mean, std_mean
  (torch's correction, 1 by default: the unbiased variance; NumPy's ddof= is accepted too),
  count_nonzero, any, all, any_nonfinite. Floats give float32 (float64 for float64 input).
  Any view whose elements fill a block of memory (C-contiguous, transposed, permuted) is
  read in place; sliced, stepped or broadcast views are refused.
- Many arrays in one launch: foreach(statistic, arrays) gives the statistic of each array of
  a list and of all of them together; foreach_norm(arrays) the per-array norms and the global
  norm, as gradient clipping needs them; foreach_dot(xs, ys) the dot product of each pair.
- Errors are exceptions with the library's message: TypeError (a CPU array, an unsupported
  dtype), IndexError (a dim out of range), ValueError (a bad argument), WarpfoldError (a CUDA
  failure).
"""
from . import _reductions, _statistics
from ._library import WarpfoldError, library

__all__ = ["sum", "prod", "min", "max", "argmin", "argmax", "bitwise_and", "bitwise_or", "bitwise_xor",
           "reduce_segments", "segment_sum", "norm", "dot", "mean", "var", "std", "var_mean", "std_mean",
           "count_nonzero", "any", "all", "any_nonfinite", "foreach", "foreach_norm", "foreach_dot",
           "release_cached_memory", "WarpfoldError", "version"]


def sum(x, dim=None, keepdim=False, dtype=None, *, axis=None, out=None, mode="default"):  # noqa: A001 (the name users expect)
    """The sum over dim (every axis by default).

    mode="reproducible": the same bits on every GPU (a fixed order of additions);
    mode="exact": the exact sum, rounded once. Both for whole C-contiguous float16, bfloat16,
    float32 and float64 arrays (a float32 result, float64 for float64), without out=."""
    if mode != "default":
        if out is not None:
            raise ValueError("warpfold.sum: out= is not supported with mode=" + repr(mode))
        return _reductions.sum_in_mode(x, mode, dim, keepdim, dtype, axis)
    return _reductions.reduce("sum", x, dim, keepdim, dtype, axis, out=out)


def prod(x, dim=None, keepdim=False, dtype=None, *, axis=None, out=None):
    """The product over dim."""
    return _reductions.reduce("prod", x, dim, keepdim, dtype, axis, out=out)


def min(x, dim=None, keepdim=False, dtype=None, *, axis=None, out=None):  # noqa: A001
    """The smallest value over dim (NaN wins, as in torch and NumPy)."""
    return _reductions.reduce("min", x, dim, keepdim, dtype, axis, out=out)


def max(x, dim=None, keepdim=False, dtype=None, *, axis=None, out=None):  # noqa: A001
    """The largest value over dim (NaN wins)."""
    return _reductions.reduce("max", x, dim, keepdim, dtype, axis, out=out)


def argmin(x, dim=None, keepdim=False, *, axis=None):
    """The index of the first smallest value over dim, as int64."""
    return _reductions.reduce("argmin", x, dim, keepdim, None, axis)


def argmax(x, dim=None, keepdim=False, *, axis=None):
    """The index of the first largest value over dim, as int64."""
    return _reductions.reduce("argmax", x, dim, keepdim, None, axis)


def bitwise_and(x, dim=None, keepdim=False, *, axis=None):
    """The bitwise AND over dim, for integer arrays."""
    return _reductions.reduce("bit_and", x, dim, keepdim, None, axis, name="bitwise_and")


def bitwise_or(x, dim=None, keepdim=False, *, axis=None):
    """The bitwise OR over dim, for integer arrays."""
    return _reductions.reduce("bit_or", x, dim, keepdim, None, axis, name="bitwise_or")


def bitwise_xor(x, dim=None, keepdim=False, *, axis=None):
    """The bitwise XOR over dim, for integer arrays."""
    return _reductions.reduce("bit_xor", x, dim, keepdim, None, axis, name="bitwise_xor")


_SEGMENT_OPS = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "argmin": "argmin", "argmax": "argmax",
                "bitwise_and": "bit_and", "bitwise_or": "bit_or", "bitwise_xor": "bit_xor"}


def reduce_segments(x, offsets, op="sum"):
    """out[s] = op over x[offsets[s]:offsets[s + 1]], for a contiguous x (read flat) and a 1-D
    int64 GPU array of boundaries (CSR style; a segment may be empty, giving op's identity)."""
    if op not in _SEGMENT_OPS:
        raise ValueError("warpfold.reduce_segments: op must be one of " + ", ".join(_SEGMENT_OPS) + "; got " + repr(op))
    return _reductions.reduce_segments(_SEGMENT_OPS[op], x, offsets)


def segment_sum(x, offsets):
    """reduce_segments(x, offsets, "sum")."""
    return _reductions.reduce_segments("sum", x, offsets, name="segment_sum")


def norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, axis=None):
    """The vector norm (torch.linalg.vector_norm) of the whole array, or along dim (any strided
    view): ord 1 (sum |x|), 2 (sqrt(sum x^2), with no overflow or underflow when the norm is
    representable) or inf (max |x|)."""
    statistic = _statistics.norm_statistic(ord, "norm")
    return _statistics.statistic(statistic, x, dim, keepdim, axis, dtype, name="norm")


def dot(x, y):
    """sum x[i] * y[i] of two 1-D contiguous float arrays of one dtype and length."""
    return _statistics.dot(x, y)


def mean(x, dim=None, keepdim=False, *, dtype=None, axis=None):
    """The mean of the whole array, or along dim (any strided view); NaN for no elements."""
    return _statistics.statistic("mean", x, dim, keepdim, axis, dtype)


def _correction(correction, ddof, name):
    if ddof is None:
        return correction
    if correction != 1:
        raise TypeError("warpfold." + name + ": give correction (torch) or ddof (NumPy), not both")
    return ddof


def var(x, dim=None, *, correction=1, keepdim=False, axis=None, ddof=None):
    """The variance of the whole array, or along dim, in one pass (Welford and Chan, never
    E[x^2] - E[x]^2): the sum of squared deviations divided by n - correction (1 by default,
    as torch: the unbiased estimate; NumPy's ddof= is the same number, 0 by default there).
    NaN where n - correction <= 0."""
    return _statistics.statistic("var_mean", x, dim, keepdim, axis, None, _correction(correction, ddof, "var"),
                                 name="var")[0]


def std(x, dim=None, *, correction=1, keepdim=False, axis=None, ddof=None):
    """The standard deviation of the whole array, or along dim (as var)."""
    return _statistics.statistic("std_mean", x, dim, keepdim, axis, None, _correction(correction, ddof, "std"),
                                 name="std")[0]


def var_mean(x, dim=None, *, correction=1, keepdim=False, axis=None, ddof=None):
    """(variance, mean) of the whole array, or along dim, in one pass, as torch.var_mean."""
    return _statistics.statistic("var_mean", x, dim, keepdim, axis, None, _correction(correction, ddof, "var_mean"),
                                 name="var_mean")


def std_mean(x, dim=None, *, correction=1, keepdim=False, axis=None, ddof=None):
    """(standard deviation, mean) of the whole array, or along dim, in one pass, as
    torch.std_mean."""
    return _statistics.statistic("std_mean", x, dim, keepdim, axis, None, _correction(correction, ddof, "std_mean"),
                                 name="std_mean")


def count_nonzero(x, dim=None, *, axis=None):
    """The number of elements that are not zero (NaN counts, -0.0 does not), as int64."""
    return _statistics.statistic("count_nonzero", x, dim, False, axis)


def any(x, dim=None, keepdim=False, *, axis=None):  # noqa: A001
    """Whether any element is not zero (False for no elements), as a bool."""
    return _statistics.statistic("any", x, dim, keepdim, axis)


def all(x, dim=None, keepdim=False, *, axis=None):  # noqa: A001
    """Whether every element is not zero (True for no elements), as a bool."""
    return _statistics.statistic("all", x, dim, keepdim, axis)


def any_nonfinite(x):
    """Whether any element is inf or NaN (the loss-scaling check), as a bool."""
    return _statistics.statistic("any_nonfinite", x)


def foreach(statistic, arrays, *, correction=1):
    """A statistic of each array of a list, and of all their elements together, in one launch
    whatever the list: returns (per_array, combined), a 1-D array of one value per array and a
    0-d array. statistic: "sum", "min", "max", "norm_l1", "norm_l2", "norm_linf", "mean",
    "var_mean", "std_mean" (then each is a pair (spread, mean)), "any_nonfinite",
    "count_nonzero", "any" or "all". The arrays share one float dtype and device; each may
    have any size, 0 included."""
    return _statistics.many(statistic, arrays, correction, name="foreach")


def foreach_dot(xs, ys):
    """The dot product of each pair xs[i], ys[i] (arrays of one size each) and of all pairs
    together, in one launch: (per_pair, total)."""
    return _statistics.many("dot", xs, name="foreach_dot", second=ys)


def foreach_norm(arrays, ord=2):
    """The norm of each array of a list and the norm of all of them together (the global norm
    of gradient clipping), in one launch: (norms, total)."""
    return _statistics.many(_statistics.norm_statistic(ord, "foreach_norm"), arrays, name="foreach_norm")


def release_cached_memory():
    """Frees the scratch memory that warpfold caches on every device."""
    from ._library import check
    check(library().warpfold_release_cached_memory())


def version():
    """The C library's version."""
    return library().warpfold_version().decode()


__version__ = "0.3.0"
