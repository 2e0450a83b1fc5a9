"""Norms, dot, mean and variance, counts and tests of whole arrays, and the same over a list of
arrays in one launch: from Python arguments to one call of warpfold_statistic or
warpfold_statistic_many (c_api.h), on the caller's stream.

Over every axis, these statistics do not depend on the order of the elements (up to float
rounding), so an input may be any view whose elements fill a block of memory without gaps:
C-contiguous, or transposed or permuted; the library then reads that block as it lies.
Along some axes (dim= or axis=), the norms, the mean, var/std and var_mean/std_mean take any
strided view with non-negative strides, as the reductions do (_reductions.py), in one launch
of warpfold_statistic_axes. count_nonzero, any, all and any_nonfinite reduce whole arrays.
"""
import math

from . import _library
from ._arrays import adapter_for
from ._reductions import checked_strides, normalize_dims, shaped_scalar

def dense_elements(shape, strides):
    """The number of elements when a view's elements fill a block of memory exactly, in some
    order of its axes (every element once, no gaps), starting at its first element; None when
    they do not. Extent-1 axes never step, so their strides do not matter; an empty array holds
    nothing."""
    if any(e == 0 for e in shape):
        return 0
    moving = sorted((s, e) for s, e in zip(strides, shape) if e != 1)
    step = 1
    for stride, extent in moving:
        if stride != step:
            return None
        step *= extent
    return step


def _whole_array(arrays, name):
    """(pointer, n) of an input read as a block; raises for views with gaps or repeats."""
    info = arrays.info
    n = dense_elements(info.shape, info.strides)
    if n is None:
        raise ValueError("warpfold." + name + ": the input's elements do not fill a block of memory (shape " +
                         str(tuple(info.shape)) + ", strides " + str(tuple(info.strides)) + " in elements: a slice, "
                         "a step or a broadcast); reduce a contiguous copy")
    return info.ptr, n


# The statistics that go along axes (the others reduce whole arrays).
_ALONG_AXES = ("norm_l1", "norm_l2", "norm_linf", "mean", "var_mean", "std_mean")


def _dims_of(statistic, dim, axis, rank, name):
    """The reduced dims, sorted; None when that is every dim (the whole array)."""
    dims = normalize_dims(dim, axis, rank, name)
    if dims == tuple(range(rank)):
        return None
    if statistic not in _ALONG_AXES:
        raise ValueError("warpfold." + name + ": reduces whole arrays; dim= and axis= may only name every axis "
                         "(along axes: norm, mean, var, std, var_mean and std_mean)")
    return dims


def _along_axes(statistic, arrays, dims, keepdim, dtype, correction, result_type, name):
    """The statistic along `dims` of any strided view: the outputs row-major over the kept dims."""
    info = arrays.info
    strides = checked_strides(info.shape, info.strides, name)
    kept_shape = tuple(e for a, e in enumerate(info.shape) if a not in dims)
    outputs = 1
    for e in kept_shape:
        outputs *= e
    pair = statistic in ("var_mean", "std_mean")
    with arrays.on_device():
        out = arrays.empty((outputs, 2) if pair else (outputs,), arrays.dtype(result_type))
        _library.statistic_axes(statistic, info.dtype, info.ptr, tuple(info.shape), strides, dims,
                                float(correction), arrays.pointer(out), outputs, arrays.stream())

        def shaped(values):
            values = arrays.reshape(values, kept_shape)
            if keepdim:
                for a in dims:
                    values = arrays.unsqueeze(values, a)
            if dtype is not None:
                values = arrays.cast(values, dtype)
            return arrays.finish(values)

        if pair:  # the library writes each output's mean first
            return shaped(out[:, 1]), shaped(out[:, 0])
        return shaped(out)


def _result_type(statistic, info, name):
    if info.is_bool and statistic not in ("count_nonzero", "any", "all"):
        raise TypeError("warpfold." + name + ": needs a float dtype, got bool")
    result = _library.statistic_result_dtype(statistic, info.dtype)
    if result is None:
        raise TypeError("warpfold." + name + ": needs a float16, bfloat16, float32 or float64 array, got " +
                        info.dtype)
    return result


def statistic(statistic, x, dim=None, keepdim=False, axis=None, dtype=None, correction=1.0, name=None):
    """One statistic of a whole array, a 0-d result (all-ones with keepdim), or along dims (the
    kept dims' shape); for var_mean and std_mean a pair (variance or standard deviation, mean),
    as torch.var_mean gives."""
    name = name or statistic
    arrays = adapter_for(x)
    info = arrays.info
    rank = len(info.shape)
    dims = _dims_of(statistic, dim, axis, rank, name)
    result_type = _result_type(statistic, info, name)
    if dims is not None:
        return _along_axes(statistic, arrays, dims, keepdim, dtype, correction, result_type, name)
    ptr, n = _whole_array(arrays, name)
    pair = statistic in ("var_mean", "std_mean")
    with arrays.on_device():
        out = arrays.empty((2,) if pair else (1,), arrays.dtype(result_type))
        _library.statistic(statistic, info.dtype, ptr, None, n, float(correction), arrays.pointer(out),
                           arrays.stream())
        if pair:  # the library writes the mean first
            spread = shaped_scalar(arrays, out[1:], rank, keepdim, dtype)
            mean = shaped_scalar(arrays, out[:1], rank, keepdim, dtype)
            return arrays.finish(spread), arrays.finish(mean)
        return arrays.finish(shaped_scalar(arrays, out, rank, keepdim, dtype))


def dot(x, y):
    """sum x[i] * y[i] of two 1-D arrays of one float dtype, length and device."""
    xa, ya = adapter_for(x), adapter_for(y)
    xi, yi = xa.info, ya.info
    for which, info in (("x", xi), ("y", yi)):
        if len(info.shape) != 1:
            raise ValueError("warpfold.dot: " + which + " must be 1-D, got shape " + str(tuple(info.shape)))
        if info.shape[0] > 1 and info.strides[0] != 1:
            raise ValueError("warpfold.dot: " + which + " must be contiguous, got stride " + str(info.strides[0]))
    if xi.shape[0] != yi.shape[0]:
        raise ValueError("warpfold.dot: x has " + str(xi.shape[0]) + " elements and y has " + str(yi.shape[0]))
    if xi.dtype != yi.dtype or xi.is_bool != yi.is_bool:
        raise TypeError("warpfold.dot: x and y must have one dtype, got " + xi.dtype + " and " + yi.dtype)
    if xi.device is not None and yi.device is not None and xi.device != yi.device:
        raise ValueError("warpfold.dot: x is on device " + str(xi.device) + " and y on device " + str(yi.device))
    result_type = _result_type("dot", xi, "dot")
    with xa.on_device():
        out = xa.empty((1,), xa.dtype(result_type))
        _library.statistic("dot", xi.dtype, xi.ptr, yi.ptr, xi.shape[0], 1.0, xa.pointer(out), xa.stream())
        return xa.finish(xa.reshape(out, ()))


_ORDS = {1: "norm_l1", 2: "norm_l2", math.inf: "norm_linf"}


def norm_statistic(ord, name):
    """The statistic of a vector norm's ord: 1, 2 or inf."""
    try:
        chosen = _ORDS.get(ord)
    except TypeError:  # an unhashable ord
        chosen = None
    if chosen is None or isinstance(ord, bool):
        raise ValueError("warpfold." + name + ": ord must be 1, 2 or inf, got " + repr(ord))
    return chosen


_MANY = ("sum", "min", "max", "norm_l1", "norm_l2", "norm_linf", "mean", "var_mean", "std_mean", "any_nonfinite",
         "count_nonzero", "any", "all")


def _list_of(arrays, name, what="arrays"):
    if isinstance(arrays, (str, bytes)) or not hasattr(arrays, "__iter__"):
        raise TypeError("warpfold." + name + ": expected a list of GPU " + what)
    return [adapter_for(a) for a in arrays]


def _pointers_and_sizes(adapters, first, name):
    """Every array of a list as (pointer, n), checked to share the first one's dtype and device."""
    pointers, sizes = [], []
    for i, a in enumerate(adapters):
        info = a.info
        if info.dtype != first.dtype or info.is_bool != first.is_bool:
            raise TypeError("warpfold." + name + ": every array must have one dtype; array 0 is " + first.dtype +
                            ", array " + str(i) + " is " + info.dtype)
        if info.device is not None and first.device is not None and info.device != first.device:
            raise ValueError("warpfold." + name + ": every array must be on one device; array 0 is on device " +
                             str(first.device) + ", array " + str(i) + " on device " + str(info.device))
        ptr, n = _whole_array(a, name + " (array " + str(i) + ")")
        pointers.append(ptr)
        sizes.append(n)
    return pointers, sizes


def many(statistic, arrays, correction=1.0, name=None, second=None):
    """`statistic` of each array in a list, and of all their elements together, in one launch
    (two kernels, whatever the list): (per_array, combined). per_array is a 1-D array with one
    value per array, combined a 0-d array; for var_mean and std_mean each is a pair
    (variance or standard deviation, mean). For "dot", `second` is the list of y arrays, one
    per array of `arrays` and of its size."""
    name = name or "many"
    allowed = _MANY if second is None else ("dot",)  # dot of lists: foreach_dot(xs, ys)
    if statistic not in allowed:
        raise ValueError("warpfold." + name + ": statistic must be one of " + ", ".join(allowed) + "; got " +
                         repr(statistic))
    adapters = _list_of(arrays, name)
    if not adapters:
        raise ValueError("warpfold." + name + ": the list is empty (its result would have no array kind or device)")
    first = adapters[0].info
    pointers, sizes = _pointers_and_sizes(adapters, first, name)
    second_pointers = None
    if statistic == "dot":
        ys = _list_of(second, name)
        if len(ys) != len(adapters):
            raise ValueError("warpfold." + name + ": " + str(len(adapters)) + " x arrays and " + str(len(ys)) +
                             " y arrays")
        second_pointers, second_sizes = _pointers_and_sizes(ys, first, name + " (y)")
        for i, (nx, ny) in enumerate(zip(sizes, second_sizes)):
            if nx != ny:
                raise ValueError("warpfold." + name + ": pair " + str(i) + ": x has " + str(nx) + " elements and y has " +
                                 str(ny))
    result_type = _result_type(statistic, first, name)
    lead = adapters[0]
    count = len(adapters)
    pair = statistic in ("var_mean", "std_mean")
    width = 2 if pair else 1
    with lead.on_device():
        out = lead.empty((count + 1, width), lead.dtype(result_type))  # per array, then combined
        per_array_ptr = lead.pointer(out)
        combined_ptr = per_array_ptr + count * width * _itemsize(result_type)
        _library.statistic_many(statistic, first.dtype, pointers, sizes, float(correction), per_array_ptr,
                                combined_ptr, lead.stream(), second_pointers)
        if pair:  # mean first, then the spread
            return ((lead.finish(out[:count, 1]), lead.finish(out[:count, 0])),
                    (lead.finish(lead.reshape(out[count, 1:], ())), lead.finish(lead.reshape(out[count, :1], ()))))
        return lead.finish(lead.reshape(out[:count], (count,))), lead.finish(lead.reshape(out[count], ()))


def _itemsize(dtype):
    return {"float32": 4, "float64": 8, "bool": 1, "int64": 8}[dtype]
