"""Loads libwarpfold_c.so (include/warpfold/c_api.h) with ctypes and declares its functions.

Why ctypes over a C interface, not a compiled extension module: an extension is tied to one
Python version (3.11 here, 3.12 on our GPU machine), while one C shared library serves every
Python that can load it, and needs no Python headers or build tools beyond CMake and nvcc.
"""
import ctypes
import os
import pathlib

OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "argmin": 4, "argmax": 5, "bit_and": 6, "bit_or": 7, "bit_xor": 8}

# warpfold_dtype codes, by NumPy-style name.
DTYPES = {
    "int8": 0, "int16": 1, "int32": 2, "int64": 3,
    "uint8": 4, "uint16": 5, "uint32": 6, "uint64": 7,
    "float16": 8, "bfloat16": 9, "float32": 10, "float64": 11,
}
# ...and the names of every code a result may have (bool: any, all, any_nonfinite).
DTYPE_NAMES = {code: name for name, code in DTYPES.items()}
DTYPE_NAMES[12] = "bool"

_STATUS = {1: ValueError, 2: RuntimeError, 3: RuntimeError}

LIBRARY_NAME = "libwarpfold_c.so"


def _candidates():
    """Where the library may be: named by WARPFOLD_LIBRARY, installed beside this file (pip
    install), or built in the source tree (scripts/setup-and-bench builds ./build)."""
    named = os.environ.get("WARPFOLD_LIBRARY")
    if named:
        yield pathlib.Path(named)
        return
    here = pathlib.Path(__file__).resolve().parent
    yield here / LIBRARY_NAME
    source_tree = here.parent.parent
    for build in ("build", "build-gpu"):
        yield source_tree / build / "src" / "capi" / LIBRARY_NAME


class WarpfoldError(RuntimeError):
    """A CUDA failure inside warpfold (out of memory included)."""


def _load():
    tried = []
    for path in _candidates():
        if path.is_file():
            lib = ctypes.CDLL(str(path))
            break
        tried.append(str(path))
    else:
        raise ImportError(
            "warpfold: cannot find " + LIBRARY_NAME + " (looked at " + ", ".join(tried) + "). "
            "Build it with scripts/setup-and-bench or `cmake --build build --target warpfold_c`, "
            "install the package with `pip install .`, or name it in WARPFOLD_LIBRARY.")
    c_int, c_int64, c_void_p = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    lib.warpfold_result_dtype.argtypes = [c_int, c_int]
    lib.warpfold_result_dtype.restype = c_int
    lib.warpfold_result_bytes.argtypes = [c_int, c_int]
    lib.warpfold_result_bytes.restype = c_int
    lib.warpfold_reduce_segments.argtypes = [c_int, c_int, c_void_p, c_void_p, c_void_p, c_int64, c_void_p, c_void_p]
    lib.warpfold_reduce_segments.restype = c_int
    lib.warpfold_sum_mode.argtypes = [c_int, c_int, c_void_p, c_int64, c_void_p, c_void_p]
    lib.warpfold_sum_mode.restype = c_int
    lib.warpfold_statistic_result_dtype.argtypes = [c_int, c_int]
    lib.warpfold_statistic_result_dtype.restype = c_int
    lib.warpfold_statistic.argtypes = [c_int, c_int, c_void_p, c_void_p, c_int64, ctypes.c_double, c_void_p, c_void_p]
    lib.warpfold_statistic.restype = c_int
    lib.warpfold_statistic_axes.argtypes = [c_int, c_int, c_void_p, c_int, ctypes.POINTER(c_int64),
                                            ctypes.POINTER(c_int64), c_int, ctypes.POINTER(c_int), ctypes.c_double,
                                            c_void_p, c_int64, c_void_p]
    lib.warpfold_statistic_axes.restype = c_int
    lib.warpfold_statistic_many.argtypes = [c_int, c_int, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p),
                                            ctypes.POINTER(c_int64), c_int64, ctypes.c_double, c_void_p, c_void_p,
                                            c_void_p]
    lib.warpfold_statistic_many.restype = c_int
    lib.warpfold_plan_axes.argtypes = [c_int, c_int, c_int, ctypes.POINTER(c_int64), ctypes.POINTER(c_int64), c_int,
                                       ctypes.POINTER(c_int), ctypes.POINTER(c_int64)]
    lib.warpfold_plan_axes.restype = c_void_p
    lib.warpfold_plan_run.argtypes = [c_void_p, c_int, c_void_p, c_void_p, c_void_p]
    lib.warpfold_plan_run.restype = c_int
    lib.warpfold_plan_destroy.argtypes = [c_void_p]
    lib.warpfold_plan_destroy.restype = None
    lib.warpfold_release_cached_memory.argtypes = []
    lib.warpfold_release_cached_memory.restype = c_int
    lib.warpfold_last_error.argtypes = []
    lib.warpfold_last_error.restype = ctypes.c_char_p
    lib.warpfold_version.argtypes = []
    lib.warpfold_version.restype = ctypes.c_char_p
    return lib


_lib = None


def library():
    """The loaded library (loaded on first use, so that `import warpfold` never fails)."""
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def check(status):
    """Raises the library's message as a Python exception when a call failed."""
    if status == 0:
        return
    message = library().warpfold_last_error().decode("utf-8", "replace")
    if status == 2:
        raise WarpfoldError(message)
    raise _STATUS.get(status, RuntimeError)(message)


def result_dtype(op, dtype):
    """The warpfold dtype name that `op` over `dtype` elements gives, or None if the op does
    not fit the type."""
    code = library().warpfold_result_dtype(OPS[op], DTYPES[dtype])
    return DTYPE_NAMES.get(code)


class PreparedAxes:
    """A warpfold_plan (c_api.h): an axis reduction decided once, run many times. strides are
    the view's steps in elements, one per axis (None: row-major)."""

    def __init__(self, op, dtype, extents, strides, axes):
        lib = library()
        outputs = ctypes.c_int64(0)
        c_extents = (ctypes.c_int64 * max(len(extents), 1))(*extents)
        if strides is None:
            c_strides = None
        else:
            if len(strides) != len(extents):  # the library reads one stride per extent, past a short list
                raise ValueError("warpfold: " + str(len(strides)) + " strides for " + str(len(extents)) + " extents")
            c_strides = (ctypes.c_int64 * max(len(strides), 1))(*strides)
        c_axes = (ctypes.c_int * max(len(axes), 1))(*axes)
        handle = lib.warpfold_plan_axes(OPS[op], DTYPES[dtype], len(extents), c_extents, c_strides, len(axes), c_axes,
                                        ctypes.byref(outputs))
        if not handle:  # planning makes no CUDA call: its errors are bad arguments
            check(1)
        self.handle, self.outputs = handle, outputs.value
        self._run, self._destroy = lib.warpfold_plan_run, lib.warpfold_plan_destroy

    def run(self, device, in_ptr, out_ptr, stream):
        status = self._run(self.handle, device, in_ptr, out_ptr, stream)
        if status:
            check(status)

    def __del__(self):
        destroy = getattr(self, "_destroy", None)
        if destroy is not None and self.handle:
            destroy(self.handle)
            self.handle = None


def reduce_segments(op, dtype, ptr, begin_ptr, end_ptr, segments, out_ptr, stream):
    check(library().warpfold_reduce_segments(OPS[op], DTYPES[dtype], ptr, begin_ptr, end_ptr, segments, out_ptr, stream))


SUM_MODES = {"default": 0, "reproducible": 1, "exact": 2}


def sum_mode(mode, dtype, ptr, n, out_ptr, stream):
    check(library().warpfold_sum_mode(SUM_MODES[mode], DTYPES[dtype], ptr, n, out_ptr, stream))


# warpfold_statistic codes (c_api.h).
STATISTICS = {"norm_l1": 0, "norm_l2": 1, "norm_linf": 2, "mean": 3, "var_mean": 4, "std_mean": 5, "dot": 6,
              "count_nonzero": 7, "any": 8, "all": 9, "any_nonfinite": 10, "sum": 11, "min": 12, "max": 13}


def statistic_result_dtype(statistic, dtype):
    """The dtype name of `statistic` over `dtype` elements, or None if it does not take them."""
    code = library().warpfold_statistic_result_dtype(STATISTICS[statistic], DTYPES[dtype])
    return DTYPE_NAMES.get(code)


def statistic(name, dtype, x_ptr, y_ptr, n, correction, out_ptr, stream):
    check(library().warpfold_statistic(STATISTICS[name], DTYPES[dtype], x_ptr, y_ptr, n, correction, out_ptr, stream))


def statistic_axes(name, dtype, ptr, extents, strides, axes, correction, out_ptr, out_capacity, stream):
    """The statistic along `axes` of the view (extents, element strides; None: row-major)."""
    c_extents = (ctypes.c_int64 * max(len(extents), 1))(*extents)
    c_strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
    c_axes = (ctypes.c_int * max(len(axes), 1))(*axes)
    check(library().warpfold_statistic_axes(STATISTICS[name], DTYPES[dtype], ptr, len(extents), c_extents, c_strides,
                                            len(axes), c_axes, correction, out_ptr, out_capacity, stream))


def statistic_many(name, dtype, pointers, sizes, correction, per_array_ptr, combined_ptr, stream,
                   second_pointers=None):
    """second_pointers: dot's y arrays, one per x in pointers."""
    count = len(pointers)
    c_pointers = (ctypes.c_void_p * max(count, 1))(*pointers)
    c_second = None if second_pointers is None else (ctypes.c_void_p * max(count, 1))(*second_pointers)
    c_sizes = (ctypes.c_int64 * max(count, 1))(*sizes)
    check(library().warpfold_statistic_many(STATISTICS[name], DTYPES[dtype], c_pointers, c_second, c_sizes, count,
                                            correction, per_array_ptr, combined_ptr, stream))
