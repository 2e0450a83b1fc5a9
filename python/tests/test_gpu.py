"""The package on a GPU, against independent references computed on the host with NumPy:
integers exactly, floats within a bound that grows with the reduced length. Every framework
that is installed (torch, CuPy, JAX) is checked; a missing one or a missing GPU is a skip with
its reason."""
import math
import os
import random

import pytest

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX would take most of the GPU

import warpfold  # noqa: E402

numpy = pytest.importorskip("numpy")


def _torch():
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA GPU")
    return torch


def _cupy():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # not installed, or no GPU
        pytest.skip("cupy cannot run: " + str(e))
    return cupy


FLOAT_EPS = {"float16": 2.0 ** -23, "bfloat16": 2.0 ** -23, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def host(a):
    """Any result or input as a NumPy array (bfloat16 widened to float32)."""
    module = type(a).__module__
    if module.startswith("torch"):
        import torch
        t = a.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.cpu().numpy()
    if module.startswith("cupy"):
        import cupy
        return cupy.asnumpy(a)
    return numpy.asarray(a)


def reference(op, values, dims):
    """NumPy reference over dims (a tuple), in float64 / int64 / uint64."""
    v = values
    kind = v.dtype.kind
    if op == "sum":
        wide = numpy.float64 if kind == "f" else (numpy.uint64 if kind == "u" else numpy.int64)
        return numpy.sum(v.astype(wide), axis=dims)
    if op == "prod":
        wide = numpy.float64 if kind == "f" else (numpy.uint64 if kind == "u" else numpy.int64)
        return numpy.prod(v.astype(wide), axis=dims)
    if op in ("min", "max"):
        return (numpy.min if op == "min" else numpy.max)(v, axis=dims)
    if op in ("argmin", "argmax"):
        moved = numpy.moveaxis(v, dims, list(range(v.ndim - len(dims), v.ndim)))
        reduced = math.prod(v.shape[d] for d in dims)
        flat = moved.reshape(moved.shape[:v.ndim - len(dims)] + (reduced,))
        return (numpy.argmin if op == "argmin" else numpy.argmax)(flat, axis=-1)
    ufunc = {"bitwise_and": numpy.bitwise_and, "bitwise_or": numpy.bitwise_or, "bitwise_xor": numpy.bitwise_xor}[op]
    return ufunc.reduce(v, axis=dims)


def assert_matches(op, got, values, dims, dtype_name):
    expected = reference(op, values, dims)
    got = host(got)
    assert got.shape == numpy.shape(expected), (got.shape, numpy.shape(expected))
    if dtype_name in FLOAT_EPS and op == "sum":
        reduced = max(1, math.prod(values.shape[d] for d in dims))
        bound = FLOAT_EPS[dtype_name] * (2 * math.log2(reduced) + 2 * math.sqrt(reduced) + 1)
        magnitude = numpy.sum(numpy.abs(values.astype(numpy.float64)), axis=dims)
        assert numpy.all(numpy.abs(got.astype(numpy.float64) - expected) <= bound * magnitude + 1e-30)
    else:
        assert numpy.array_equal(got.astype(expected.dtype if hasattr(expected, "dtype") else got.dtype), expected)


SHAPES_AND_DIMS = [
    ((0,), None), ((1,), None), ((255,), None), ((256,), 0), ((257,), None), ((1000003,), None),
    ((7, 13), 1), ((7, 13), 0), ((64, 1023), -1), ((1023, 64), 0), ((3, 5, 7, 11), (0, 2)),
    ((3, 5, 7, 11), (1, 3)), ((2, 3, 4, 5, 6), (0, 1, 4)), ((5, 0, 3), 1), ((5, 0, 3), 0), ((4, 6), ()),
]


def random_cases(count, seed):
    r = random.Random(seed)
    cases = []
    for _ in range(count):
        rank = r.randint(1, 4)
        shape = tuple(r.choice([1, 2, 3, 5, 8, 17, 31, 64, 129]) for _ in range(rank))
        dims = tuple(sorted(r.sample(range(rank), r.randint(1, rank))))
        cases.append((shape, dims))
    return cases


ALL_CASES = SHAPES_AND_DIMS + random_cases(12, seed=20261122)


def make_values(shape, dtype_name, seed):
    g = numpy.random.default_rng(seed)
    if dtype_name in ("float32", "float64", "float16", "bfloat16"):
        return g.standard_normal(shape).astype(numpy.float32 if dtype_name == "bfloat16" else dtype_name)
    if dtype_name == "bool":
        return g.integers(0, 2, shape).astype(bool)
    info = numpy.iinfo(dtype_name)
    return g.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype_name)


def torch_tensor(values, dtype_name):
    torch = _torch()
    t = torch.from_numpy(numpy.ascontiguousarray(values)).cuda()
    return t.to(torch.bfloat16) if dtype_name == "bfloat16" else t


def host_values_of(t):
    return host(t)  # bfloat16: the rounded values, widened


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "float16", "bfloat16", "int8", "int32", "int64",
                                        "uint8", "bool"])
@pytest.mark.parametrize("op", ["sum", "min", "max", "argmin", "argmax"])
def test_torch_every_case(op, dtype_name):
    torch = _torch()
    for index, (shape, dim) in enumerate(ALL_CASES):
        values = make_values(shape, dtype_name, seed=index)
        x = torch_tensor(values, dtype_name)
        before = x.clone()
        dims = warpfold._reductions.normalize_dims(dim, None, len(shape), op)
        if op in ("min", "max", "argmin", "argmax") and math.prod(shape[d] for d in dims) == 0:
            continue  # an empty reduction gives the identity; torch and NumPy refuse it
        got = getattr(warpfold, op)(x, dim=dim)
        torch.cuda.synchronize()
        assert isinstance(got, torch.Tensor) and got.device == x.device
        assert torch.equal(x, before), "the input was modified"
        assert_matches(op, got, host_values_of(x), dims, dtype_name)


@pytest.mark.parametrize("dtype_name", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("op", ["prod", "bitwise_and", "bitwise_or", "bitwise_xor"])
def test_torch_integer_ops(op, dtype_name):
    torch = _torch()
    if dtype_name == "uint8" and not hasattr(torch, "uint64") and op == "prod":
        pytest.skip("this torch has no uint64 for the result")
    for index, (shape, dim) in enumerate(ALL_CASES[:14]):
        values = make_values(shape, dtype_name, seed=100 + index)
        if op == "prod":
            values = numpy.clip(values, -2, 2).astype(dtype_name)  # products that fit
        x = torch_tensor(values, dtype_name)
        dims = warpfold._reductions.normalize_dims(dim, None, len(shape), op)
        got = getattr(warpfold, op)(x, dim=dim)
        assert_matches(op, got, values, dims, dtype_name)


def test_torch_views_are_read_in_place():
    torch = _torch()
    base = torch.randn(300, 257, device="cuda")
    for view, dims in [(base.t(), 0), (base.t(), 1), (base.t(), None),
                       (base.reshape(3, 100, 257).permute(2, 0, 1), (1,)),
                       (base.reshape(3, 100, 257).permute(2, 0, 1), (0, 2)),
                       (base[None], 1)]:
        for op in ("sum", "max", "argmax"):
            if op == "argmax" and (dims is None or isinstance(dims, tuple) and len(dims) > 1) and \
                    not view.is_contiguous():
                with pytest.raises(ValueError, match="permuted view"):
                    warpfold.argmax(view, dim=dims)
                continue
            got = getattr(warpfold, op)(view, dim=dims)
            d = warpfold._reductions.normalize_dims(dims, None, view.dim(), op)
            assert_matches(op, got, host(view), d, "float32")


def test_torch_keepdim_dtype_axis_and_out():
    torch = _torch()
    x = torch.randn(4, 5, 6, device="cuda", dtype=torch.float64)
    assert warpfold.sum(x, dim=(0, 2), keepdim=True).shape == (1, 5, 1)
    assert warpfold.argmax(x, dim=1, keepdim=True).shape == (4, 1, 6)
    p = x.permute(2, 1, 0)
    assert warpfold.sum(p, dim=0, keepdim=True).shape == (1, 5, 4)
    assert torch.allclose(warpfold.sum(p, dim=0, keepdim=True), p.sum(dim=0, keepdim=True))
    assert torch.allclose(warpfold.max(p, dim=(0, 2)), p.amax(dim=(0, 2)))
    assert torch.allclose(warpfold.sum(x, axis=-1), x.sum(dim=-1))
    assert warpfold.sum(x, dim=1, dtype=torch.float32).dtype == torch.float32
    h = torch.randn(1000, device="cuda", dtype=torch.float16)
    assert warpfold.sum(h).dtype == torch.float32
    out = torch.empty(4, 6, device="cuda", dtype=torch.float64)
    assert warpfold.sum(x, dim=1, out=out) is out
    assert torch.allclose(out, x.sum(dim=1))
    assert warpfold.sum(torch.ones(7, 3, device="cuda", dtype=torch.bool)).item() == 21
    assert warpfold.sum(torch.ones(7, 3, device="cuda", dtype=torch.bool)).dtype == torch.int64
    assert warpfold.max(torch.zeros(7, device="cuda", dtype=torch.bool)).dtype == torch.bool


def test_torch_errors():
    torch = _torch()
    with pytest.raises(TypeError, match="host memory"):
        warpfold.sum(torch.ones(4))
    with pytest.raises(ValueError, match="strided view"):
        warpfold.sum(torch.ones(4, 12, device="cuda")[:, ::2])
    with pytest.raises(ValueError, match="strided view"):
        warpfold.sum(torch.ones(1, 6, device="cuda").expand(4, 6))
    with pytest.raises(IndexError, match="out of range"):
        warpfold.sum(torch.ones(4, device="cuda"), dim=1)
    with pytest.raises(TypeError, match="integer dtype"):
        warpfold.bitwise_and(torch.ones(4, device="cuda"))
    with pytest.raises(TypeError, match="not supported"):
        warpfold.sum(torch.ones(4, device="cuda", dtype=torch.complex64))
    with pytest.raises(ValueError, match="elements"):
        warpfold.sum(torch.ones(4, 6, device="cuda"), dim=1, out=torch.empty(5, device="cuda"))


def test_torch_runs_on_the_current_stream_and_in_a_cuda_graph():
    torch = _torch()
    n = (1 << 22) + 3  # many blocks: the call needs scratch, which the graph then owns
    # The input is made on a non-blocking stream and the result read there, with no
    # synchronization in between: a call on any other stream would race with both.
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        for k in range(1, 4):
            x = torch.full((n,), float(k), device="cuda", dtype=torch.float64)
            total = warpfold.sum(x)
            assert total.item() == k * n

    static_in = torch.zeros(n, device="cuda", dtype=torch.float64)
    warpfold.sum(static_in)  # torch warms up its own kernels before capture; ours need none
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = warpfold.sum(static_in)
    for k in range(1, 4):
        static_in.fill_(float(k))
        graph.replay()
        torch.cuda.synchronize()
        assert static_out.item() == k * n


def test_torch_segments():
    torch = _torch()
    r = random.Random(5)
    lengths = [r.choice([0, 1, 2, 31, 32, 33, 1000]) for _ in range(300)]
    offsets = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
    values = make_values((int(offsets[-1]),), "int32", seed=9)
    x = torch_tensor(values, "int32")
    got = host(warpfold.segment_sum(x, torch.from_numpy(offsets).cuda()))
    expected = [int(values[offsets[i]:offsets[i + 1]].astype(numpy.int64).sum()) for i in range(len(lengths))]
    assert got.tolist() == expected
    maxima = host(warpfold.reduce_segments(x, torch.from_numpy(offsets).cuda(), op="max"))
    for i, length in enumerate(lengths):
        if length:
            assert maxima[i] == values[offsets[i]:offsets[i + 1]].max()


@pytest.mark.parametrize("op", ["sum", "max", "argmin"])
def test_cupy(op):
    cupy = _cupy()
    for index, (shape, dim) in enumerate(ALL_CASES):
        dims = warpfold._reductions.normalize_dims(dim, None, len(shape), op)
        if op != "sum" and math.prod(shape[d] for d in dims) == 0:
            continue
        values = make_values(shape, "float32", seed=200 + index)
        x = cupy.asarray(values)
        got = getattr(warpfold, op)(x, dim=dim)
        assert isinstance(got, cupy.ndarray)
        assert_matches(op, got, values, dims, "float32")
    with pytest.raises(ValueError, match="strided view"):
        warpfold.sum(cupy.ones((4, 12), dtype=cupy.float32)[:, ::2])
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:  # made, reduced and read on one stream, with no synchronization in between
        for k in range(1, 4):
            x = cupy.full(1 << 22, float(k), dtype=cupy.float64)
            total = warpfold.sum(x)
            assert float(total) == k * (1 << 22)


class CudaArrayInterfaceOnly:
    """An array that offers nothing but __cuda_array_interface__ (as Numba's do)."""

    def __init__(self, tensor):
        self.tensor = tensor  # keeps the memory alive
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def test_cuda_array_interface():
    _torch()  # makes the tensors behind the interface
    values = make_values((64, 1023), "float32", seed=400)
    t = torch_tensor(values, "float32")
    got = warpfold.sum(CudaArrayInterfaceOnly(t), dim=1)
    assert_matches("sum", got, values, (1,), "float32")
    got = warpfold.argmax(CudaArrayInterfaceOnly(t.t()), dim=0)  # a transposed view
    assert_matches("argmax", got, values.T, (0,), "float32")
    with pytest.raises(ValueError, match="strided view"):
        warpfold.sum(CudaArrayInterfaceOnly(t[:, ::2]))


def test_jax():
    try:
        import jax
        import jax.numpy as jnp
        if not any(d.platform == "gpu" for d in jax.devices()):
            pytest.skip("JAX sees no GPU")
    except Exception as e:
        pytest.skip("JAX cannot run: " + str(e))
    values = make_values((64, 1023), "float32", seed=300)
    x = jnp.asarray(values)
    got = warpfold.sum(x, dim=1)
    assert isinstance(got, jax.Array)
    assert_matches("sum", got, values, (1,), "float32")
    assert_matches("argmax", warpfold.argmax(x, dim=0), values, (0,), "float32")
