"""The reductions: from (array, dim) to one call of the C library, on the caller's stream.

An input is any strided view with non-negative strides, read in place by the library from its
shape and element strides: C-contiguous, transposed or permuted, sliced (x[:, 1:-1]), stepped
(x[:, ::2]), broadcast (stride 0), even overlapping. Nothing is copied. The result is made
row-major over the kept dims in the view's logical order, and argmin/argmax indices count
row-major over the reduced dims of the view as it looks, not as it lies in memory. Negative
strides (CuPy's x[::-1]) are refused with a message.
"""
from . import _library
from ._arrays import adapter_for

_ARG_OPS = ("argmin", "argmax")


def normalize_dims(dim, axis, rank, name):
    """dim (torch) or axis (NumPy): None for every axis, an int, or a sequence of ints;
    negative ones count from the end. Returns the sorted tuple of axes, or raises."""
    if dim is not None and axis is not None:
        raise TypeError("warpfold." + name + ": give dim or axis, not both")
    chosen = dim if dim is not None else axis
    if chosen is None:
        return tuple(range(rank))
    if isinstance(chosen, int):
        listed = [chosen]
    else:
        try:
            listed = list(chosen)
        except TypeError:
            raise TypeError("warpfold." + name + ": dims must be ints, got " + repr(chosen)) from None
    result = []
    for d in listed:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError("warpfold." + name + ": dims must be ints, got " + repr(d))
        if d < -rank or d >= rank:
            valid = "valid: " + str(-rank) + " to " + str(rank - 1) if rank else "a scalar has no dims"
            raise IndexError("warpfold." + name + ": dim " + str(d) + " is out of range for an array of rank " +
                             str(rank) + " (" + valid + ")")
        d = d + rank if d < 0 else d
        if d in result:
            raise ValueError("warpfold." + name + ": dim " + str(d) + " is listed twice")
        result.append(d)
    return tuple(sorted(result))


def is_c_contiguous(shape, strides):
    """Whether an array of these extents and element strides is row-major without gaps. An
    extent-1 axis is never stepped along, so its stride does not matter; an empty array holds
    nothing, so any strides will do."""
    if any(e == 0 for e in shape):
        return True
    step = 1
    for extent, stride in zip(reversed(tuple(shape)), reversed(tuple(strides))):
        if extent == 1:
            continue
        if stride != step:
            return False
        step *= extent
    return True


def checked_strides(shape, strides, name):
    """The element strides to hand the library for a view. The library refuses any negative
    stride; one that is never stepped along (an extent-1 axis, or any axis of an empty array,
    as NumPy-style slicing makes them) reads nothing, so it is passed as 0 instead of failing
    the call. A negative stride that moves is refused here, with the shape and strides, which
    say more than the library's message about one axis."""
    empty = any(e == 0 for e in shape)
    result = []
    for extent, stride in zip(shape, strides):
        if stride < 0:
            if not empty and extent != 1:
                raise ValueError("warpfold." + name + ": negative strides are not supported (shape " +
                                 str(tuple(shape)) + ", strides " + str(tuple(strides)) + " in elements); "
                                 "reduce the array that it views, or a copy")
            stride = 0
        result.append(stride)
    return tuple(result)


class _Plan:
    """Everything about a call that depends only on its op, the input's dtype, shape and
    strides and the arguments: worked out once (in Python, and in C as a warpfold_plan), then
    cached, so that a repeated call costs little more than the launch."""
    __slots__ = ("op", "dtype", "prepared", "outputs", "result_type", "kept_shape", "unsqueeze", "bool_cast",
                 "__weakref__")

    def __init__(self, op, info, dims, keepdim, name):
        result_type = _library.result_dtype(op, info.dtype)
        if result_type is None:
            raise TypeError("warpfold." + name + ": needs an integer dtype, got " +
                            ("bool" if info.is_bool else info.dtype))
        strides = checked_strides(info.shape, info.strides, name)
        # The library reads the view in place and writes row-major over the kept dims in their
        # logical order, so the result needs no permuting back.
        self.prepared = _library.PreparedAxes(op, info.dtype, info.shape, strides, dims)
        self.op, self.dtype, self.result_type, self.outputs = op, info.dtype, result_type, self.prepared.outputs
        self.kept_shape = tuple(e for a, e in enumerate(info.shape) if a not in dims)
        self.unsqueeze = tuple(dims) if keepdim else ()
        # A bool input is read as uint8: sums and products count in int64 (as torch does); the
        # other ops give bools.
        self.bool_cast = None
        if info.is_bool and op not in _ARG_OPS:
            self.bool_cast = "int64" if op in ("sum", "prod") else "bool"


_plans = {}
_MAX_PLANS = 4096


def _remember(cache, key, value):
    if len(cache) >= _MAX_PLANS:
        cache.clear()
    cache[key] = value


def _plan_for(op, arrays, dim, keepdim, axis, name):
    key = arrays.key()
    if key is not None:
        key = (op, key, dim if not isinstance(dim, list) else tuple(dim),
               axis if not isinstance(axis, list) else tuple(axis), keepdim)
        plan = _plans.get(key)
        if plan is not None:
            return plan
    info = arrays.info
    plan = _Plan(op, info, normalize_dims(dim, axis, len(info.shape), name), keepdim, name)
    if key is not None:
        _remember(_plans, key, plan)
    return plan


def reduce(op, x, dim=None, keepdim=False, dtype=None, axis=None, name=None, out=None):
    if _torch_tensor is not None and isinstance(x, _torch_tensor) and x.is_cuda:
        try:
            key = (op, x.dtype, x.shape, x.stride(), dim, axis, keepdim, dtype,
                   None if out is None else (type(out), out.dtype, out.shape, out.stride(), out.is_cuda))
            fast = _torch_calls.get(key)
        except (TypeError, AttributeError):  # an unhashable dim (a list), an out= that is not a tensor
            key = fast = None
        if fast is not None:
            return fast(x, out)
    else:
        key = None
    name = name or op
    arrays = adapter_for(x)
    plan = _plan_for(op, arrays, dim, keepdim, axis, name)
    if out is not None:
        result = _reduce_into(plan, arrays, out, name)
    else:
        result = _reduce_new(plan, arrays, dtype)
    if key is not None:  # checked and done once: the next such call takes the short way
        _remember(_torch_calls, key, _torch_call(plan, arrays, out is not None, dtype))
    return result


def _reduce_new(plan, arrays, dtype):
    is_arg = plan.op in _ARG_OPS
    with arrays.on_device():
        result = arrays.empty((plan.outputs * 2,) if is_arg else (plan.outputs,),
                              arrays.dtype("int64" if is_arg else plan.result_type))
        plan.prepared.run(-1, arrays.ptr(), arrays.pointer(result), arrays.stream())
        if is_arg:
            result = arrays.indices_of_pairs(result, plan.kept_shape)
        else:
            result = arrays.reshape(result, plan.kept_shape)
        for a in plan.unsqueeze:
            result = arrays.unsqueeze(result, a)
        if plan.bool_cast is not None:
            result = arrays.cast(result, arrays.dtype(plan.bool_cast))
        if dtype is not None:
            result = arrays.cast(result, dtype)
    return arrays.finish(result)


def _reduce_into(plan, arrays, out, name):
    """out=: the caller's C-contiguous array of the result's dtype and element count (the
    outputs in row-major order of the kept dims)."""
    if plan.op in _ARG_OPS or plan.bool_cast is not None:
        raise ValueError("warpfold." + name + ": out= is not supported for argmin, argmax or bool inputs")
    target = adapter_for(out)
    t = target.info
    elements = 1
    for e in t.shape:
        elements *= e
    if t.dtype != plan.result_type or t.is_bool:
        raise TypeError("warpfold." + name + ": out= must have the result's dtype " + plan.result_type + ", not " +
                        ("bool" if t.is_bool else t.dtype))
    if elements != plan.outputs:
        raise ValueError("warpfold." + name + ": out= holds " + str(elements) + " elements; the result has " +
                         str(plan.outputs))
    if not is_c_contiguous(t.shape, t.strides):  # the library writes the outputs densely, row-major
        raise ValueError("warpfold." + name + ": out= must be C-contiguous (shape " + str(t.shape) + ", strides " +
                         str(t.strides) + " in elements)")
    with arrays.on_device():
        plan.prepared.run(-1, arrays.ptr(), target.ptr(), arrays.stream())
    return out


# The short way for torch tensors: per (op, dtype, shape, strides, arguments), once a call has
# been checked and planned, a function that does only what each call must: allocate the
# result, launch on the tensor's device and current stream, shape the result.
_torch_tensor = None
_torch_calls = {}


def _note_torch(torch):
    global _torch_tensor
    _torch_tensor = torch.Tensor


def _torch_call(plan, arrays, into_out, dtype):
    torch = arrays.torch
    run = _library.library().warpfold_plan_run
    handle = plan.prepared.handle
    prepared = plan.prepared  # keeps the C plan alive as long as this function
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw_stream is None:
        def raw_stream(device):
            return torch.cuda.current_stream(device).cuda_stream
    check = _library.check

    if into_out:
        def call(x, out):
            device = x.get_device()
            status = run(handle, device, x.data_ptr(), out.data_ptr(), raw_stream(device))
            if status:
                check(status)
            return out
        call.prepared = prepared
        return call

    empty = torch.empty
    is_arg = plan.op in _ARG_OPS
    simple = not is_arg and not plan.unsqueeze and plan.bool_cast is None and dtype is None
    if simple:  # the result is allocated in its final shape
        shape, result_dtype = plan.kept_shape, getattr(torch, plan.result_type)

        def call(x, out):
            device = x.get_device()
            result = empty(shape, dtype=result_dtype, device=device)
            status = run(handle, device, x.data_ptr(), result.data_ptr(), raw_stream(device))
            if status:
                check(status)
            return result
        call.prepared = prepared
        return call

    def call(x, out):
        a = adapter_for(x)
        return _reduce_new(plan, a, dtype)
    return call


def reduce_segments(op, x, offsets, name=None):
    name = name or "reduce_segments"
    arrays = adapter_for(x)
    info = arrays.info
    bounds = adapter_for(offsets)
    if bounds.info.dtype != "int64" or len(bounds.info.shape) != 1 or (bounds.info.shape[0] > 1 and
                                                                       bounds.info.strides[0] != 1):
        raise TypeError("warpfold." + name + ": offsets must be a contiguous 1-D int64 GPU array of segments + 1 "
                        "boundaries")
    if bounds.info.shape[0] < 1:
        raise ValueError("warpfold." + name + ": offsets needs at least one boundary")
    if not is_c_contiguous(info.shape, info.strides):  # segments are offsets into the flat array
        raise ValueError("warpfold." + name + ": the input must be C-contiguous (shape " + str(info.shape) +
                         ", strides " + str(info.strides) + " in elements)")
    result_type = _library.result_dtype(op, info.dtype)
    if result_type is None:
        raise TypeError("warpfold." + name + ": needs an integer dtype, got " + info.dtype)
    segments = bounds.info.shape[0] - 1
    with arrays.on_device():
        stream = arrays.stream()
        out = arrays.empty((segments * 2,) if op in _ARG_OPS else (segments,),
                           arrays.dtype("int64" if op in _ARG_OPS else result_type))
        _library.reduce_segments(op, info.dtype, info.ptr, bounds.info.ptr, bounds.info.ptr + 8, segments,
                                 arrays.pointer(out), stream)
        result = arrays.indices_of_pairs(out, (segments,)) if op in _ARG_OPS else out
    return arrays.finish(result)


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def sum_in_mode(x, mode, dim, keepdim, dtype, axis):
    """warpfold.sum(x, mode="reproducible" or "exact"): a whole C-contiguous float array, in
    the library's float sum modes. The result is float32 (float64 for float64 input), as
    0-d (or all-ones with keepdim)."""
    if mode not in _library.SUM_MODES:
        raise ValueError("warpfold.sum: mode must be 'default', 'reproducible' or 'exact', not " + repr(mode))
    arrays = adapter_for(x)
    info = arrays.info
    rank = len(info.shape)
    dims = normalize_dims(dim, axis, rank, "sum")
    if dims != tuple(range(rank)):
        raise ValueError("warpfold.sum: mode=" + repr(mode) + " sums every axis; dim= and axis= other than all "
                         "axes are not supported with it")
    if info.is_bool or info.dtype not in _FLOATS:
        raise TypeError("warpfold.sum: mode=" + repr(mode) + " needs float16, bfloat16, float32 or float64 input, "
                        "not " + ("bool" if info.is_bool else info.dtype))
    if not is_c_contiguous(info.shape, info.strides):
        raise ValueError("warpfold.sum: mode=" + repr(mode) + " needs a C-contiguous array (shape " +
                         str(tuple(info.shape)) + ", strides " + str(tuple(info.strides)) + " in elements); "
                         "sum a contiguous copy")
    n = 1
    for e in info.shape:
        n *= e
    result_type = "float64" if info.dtype == "float64" else "float32"
    with arrays.on_device():
        result = arrays.empty((1,), arrays.dtype(result_type))
        _library.sum_mode(mode, info.dtype, arrays.ptr(), n, arrays.pointer(result), arrays.stream())
        result = shaped_scalar(arrays, result, rank, keepdim, dtype)
    return arrays.finish(result)


def shaped_scalar(arrays, result, rank, keepdim, dtype):
    """A one-element result of a whole-array reduction as 0-d (all-ones of the input's rank
    with keepdim), converted to dtype if given."""
    result = arrays.reshape(result, ())
    if keepdim:
        for a in range(rank):
            result = arrays.unsqueeze(result, a)
    if dtype is not None:
        result = arrays.cast(result, dtype)
    return result
