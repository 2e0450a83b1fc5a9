"""What warpfold needs to know about a caller's GPU array, and how to make the result in the
caller's own kind of array: torch tensors and CuPy arrays directly; anything else that speaks
__cuda_array_interface__ or DLPack (JAX, Numba, ...) through a torch or CuPy buffer that is
handed back through DLPack, without a copy."""
import contextlib
import ctypes
import sys

from ._library import DTYPES

_TORCH_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "bfloat16", "float32", "float64")


class ArrayInfo:
    """ptr, shape, strides (in elements), dtype (a warpfold dtype name) and device of an array."""

    def __init__(self, ptr, shape, strides, dtype, device, is_bool=False):
        self.ptr, self.shape, self.strides, self.dtype, self.device = ptr, tuple(shape), tuple(strides), dtype, device
        self.is_bool = is_bool


def _unsupported_dtype(name):
    return TypeError("warpfold: dtype " + str(name) + " is not supported (int8..int64, uint8..uint64, float16, "
                     "bfloat16, float32, float64, and bool as uint8)")


def _cpu_error(kind):
    return TypeError("warpfold: the input is a " + kind + " in host memory; warpfold reduces GPU arrays "
                     "(move it to the GPU first, e.g. x.cuda() or cupy.asarray(x))")


_torch = None


class TorchArrays:
    """A torch tensor. Everything a call needs per call is cheap here (the layout is read only
    when the call's plan is not cached yet: see _reductions)."""
    name = "torch"

    def __init__(self, x):
        global _torch
        if _torch is None:
            import torch
            _torch = torch
            from . import _reductions
            _reductions._note_torch(torch)
        self.torch = _torch
        if not x.is_cuda:
            raise _cpu_error("torch CPU tensor")
        self.x = x
        self.device = x.device
        self._index = x.get_device()
        raw = getattr(_torch._C, "_cuda_getCurrentRawStream", None)
        self._raw_stream = raw

    def key(self):
        x = self.x
        return (x.dtype, x.shape, x.stride())

    @property
    def info(self):
        x = self.x
        dtype = str(x.dtype).replace("torch.", "")
        is_bool = dtype == "bool"
        if is_bool:
            dtype = "uint8"
        if dtype not in _TORCH_DTYPES:
            raise _unsupported_dtype(x.dtype)
        return ArrayInfo(x.data_ptr(), x.shape, x.stride(), dtype, self._index, is_bool)

    def ptr(self):
        return self.x.data_ptr()

    def on_device(self):
        if self.torch.cuda.current_device() == self._index:
            return contextlib.nullcontext()
        return self.torch.cuda.device(self._index)

    def stream(self):
        if self._raw_stream is not None:
            return self._raw_stream(self._index)
        return self.torch.cuda.current_stream(self.device).cuda_stream

    def dtype(self, name):
        return getattr(self.torch, name)

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=dtype if not isinstance(dtype, str) else getattr(self.torch, dtype),
                                device=self.device)

    def pointer(self, a):
        return a.data_ptr()

    def cast(self, a, dtype):
        return a.to(dtype)

    def indices_of_pairs(self, pairs, shape):
        """argmin/argmax outputs are 16-byte (value, int64 index) pairs: the index column, as
        a view of the buffer (no copy)."""
        return pairs.view(-1, 2)[:, 1].reshape(shape)

    def reshape(self, a, shape):
        return a.view(shape)

    def unsqueeze(self, a, axis):
        return a.unsqueeze(axis)

    def finish(self, a):
        return a


class CupyArrays:
    name = "cupy"

    def __init__(self, x):
        import cupy
        self.cupy = cupy
        dtype = str(x.dtype)
        is_bool = dtype == "bool"
        if is_bool:
            dtype = "uint8"
        if dtype not in DTYPES:
            raise _unsupported_dtype(x.dtype)
        itemsize = x.dtype.itemsize
        strides = [s // itemsize for s in x.strides]
        if any(s % itemsize for s in x.strides):
            raise ValueError("warpfold: strides that are not a whole number of elements are not supported")
        self.info = ArrayInfo(x.data.ptr, x.shape, strides, dtype, x.device.id, is_bool)
        self.device = x.device
        self.x = x

    def key(self):
        return (self.x.dtype, self.x.shape, self.x.strides)

    def ptr(self):
        return self.x.data.ptr

    def dtype(self, name):
        return name

    def on_device(self):
        return self.device

    def stream(self):
        return self.cupy.cuda.get_current_stream().ptr

    def empty(self, shape, dtype):
        if dtype == "bfloat16":
            raise _unsupported_dtype("bfloat16 (CuPy has no bfloat16 arrays)")
        return self.cupy.empty(shape, dtype=dtype)

    def pointer(self, a):
        return a.data.ptr

    def cast(self, a, dtype):
        return a.astype(dtype)

    def indices_of_pairs(self, pairs, shape):
        return pairs.reshape(-1, 2)[:, 1].reshape(shape)

    def reshape(self, a, shape):
        return a.reshape(shape)

    def unsqueeze(self, a, axis):
        return self.cupy.expand_dims(a, axis)

    def finish(self, a):
        return a


# DLPack, enough to read a tensor's description (dlpack.h, version 0.8 layout).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}


def _row_major_strides(shape):
    strides, step = [], 1
    for e in reversed(shape):
        strides.insert(0, step)
        step *= e
    return strides


def _dlpack_info(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = ctypes.cast(get(capsule, b"dltensor"), ctypes.POINTER(_DLTensor)).contents
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise _cpu_error("DLPack tensor (device type " + str(t.device.device_type) + ")")
    kind = _DL_CODES.get(t.dtype.code)
    if kind is None or t.dtype.lanes != 1:
        raise _unsupported_dtype("DLPack code " + str(t.dtype.code))
    name = "uint8" if kind == "bool" else kind + str(t.dtype.bits)
    if name not in DTYPES:
        raise _unsupported_dtype(name)
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else _row_major_strides(shape)
    return ArrayInfo(t.data + t.byte_offset, shape, strides, name, t.device.device_id, kind == "bool")


class ForeignArrays:
    """Any other CUDA array: described through __cuda_array_interface__ or DLPack; the result
    is made by torch or CuPy (whichever is installed) and converted back with the framework's
    from_dlpack (jax.dlpack.from_dlpack for JAX), which shares the memory."""

    def __init__(self, x):
        self.x = x
        if not (hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")):
            raise TypeError("warpfold: expected a CUDA array (torch, CuPy, JAX, or any object with "
                            "__cuda_array_interface__ or __dlpack__), got " + type(x).__module__ + "." +
                            type(x).__name__)
        try:
            import torch  # noqa: F401
            self.maker_name = "torch"
        except ImportError:
            try:
                import cupy  # noqa: F401
                self.maker_name = "cupy"
            except ImportError:
                raise TypeError("warpfold: an array of " + type(x).__module__ + " needs torch or CuPy installed, to "
                                "make the result") from None
        if hasattr(x, "__cuda_array_interface__") and not type(x).__module__.startswith("jax"):
            cai = x.__cuda_array_interface__
            if cai.get("mask") is not None:
                raise ValueError("warpfold: masked arrays are not supported")
            import numpy
            dt = numpy.dtype(cai["typestr"])
            is_bool = dt == numpy.bool_
            name = "uint8" if is_bool else str(dt)
            if name not in DTYPES:
                raise _unsupported_dtype(dt)
            shape = cai["shape"]
            if cai.get("strides") is None:
                strides = _row_major_strides(shape)
            else:
                if any(s % dt.itemsize for s in cai["strides"]):
                    raise ValueError("warpfold: strides that are not a whole number of elements are not supported")
                strides = [s // dt.itemsize for s in cai["strides"]]
            # CAI does not name the device: the array is taken to be on the current one.
            self.info = ArrayInfo(cai["data"][0], shape, strides, name, None, is_bool)
        else:
            dev_type, dev_id = x.__dlpack_device__()
            if dev_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
                raise _cpu_error(type(x).__module__ + " array")
            self._capsule = x.__dlpack__(stream=self._our_stream(dev_id))  # the producer orders its work before ours
            self.info = _dlpack_info(self._capsule)
        self.maker = None

    def key(self):
        return None  # not cached: the description came with this very object

    def ptr(self):
        return self.info.ptr

    def dtype(self, name):
        return self._maker().dtype(name)

    def _maker(self):
        if self.maker is None:
            if self.maker_name == "torch":
                import torch
                device = self.info.device if self.info.device is not None else torch.cuda.current_device()
                self.maker = TorchArrays(torch.empty(0, device="cuda:" + str(device)))
            else:
                import cupy
                with cupy.cuda.Device(self.info.device if self.info.device is not None else cupy.cuda.Device().id):
                    self.maker = CupyArrays(cupy.empty(0))
        return self.maker

    def _our_stream(self, device):
        if self.maker_name == "torch":
            import torch
            return torch.cuda.current_stream(device).cuda_stream or 1  # DLPack: 1 is the legacy default stream
        import cupy
        return cupy.cuda.get_current_stream().ptr or 1

    def on_device(self):
        return self._maker().on_device()

    def stream(self):
        return self._maker().stream()

    def empty(self, shape, dtype):
        return self._maker().empty(shape, dtype)

    def pointer(self, a):
        return self._maker().pointer(a)

    def cast(self, a, dtype):
        return self._maker().cast(a, dtype)

    def indices_of_pairs(self, pairs, shape):
        return self._maker().indices_of_pairs(pairs, shape)

    def reshape(self, a, shape):
        return self._maker().reshape(a, shape)

    def unsqueeze(self, a, axis):
        return self._maker().unsqueeze(a, axis)

    def finish(self, a):
        """The result as the caller's kind of array."""
        module = type(self.x).__module__.split(".")[0]
        framework = sys.modules.get(module)
        if module.startswith("jax"):  # jax, jaxlib
            import jax.dlpack
            # JAX takes only compact arrays: an argmin/argmax result (the index half of the
            # (value, index) pairs, a strided view) is copied first.
            if self.maker_name == "torch":
                a = a.contiguous()
            else:
                import cupy
                a = cupy.ascontiguousarray(a)
            return jax.dlpack.from_dlpack(a)
        from_dlpack = getattr(framework, "from_dlpack", None)
        return from_dlpack(a) if from_dlpack is not None else a


def adapter_for(x):
    module = type(x).__module__
    if module.startswith("torch"):
        return TorchArrays(x)
    if module.startswith("cupy"):
        return CupyArrays(x)
    if module.startswith("numpy"):
        raise _cpu_error("NumPy array")
    return ForeignArrays(x)

