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
            got = getattr(warpfold, op)(view, dim=dims)
            d = warpfold._reductions.normalize_dims(dims, None, view.dim(), op)
            assert_matches(op, got, host(view), d, "float32")


def exact_values(shape, seed):
    """float32 multiples of 1/256 in [-1/4, 1/4]: every partial sum of up to 2^16 of them is
    exact, so a sum in any order equals torch's."""
    g = numpy.random.default_rng(seed)
    return (g.integers(-64, 64, shape, endpoint=True) / 256).astype(numpy.float32)


def distinct_values(shape, seed):
    """A random permutation of 0 .. n-1 as float32 (exact below 2^24): no ties, so argmin and
    argmax have one answer."""
    return numpy.random.default_rng(seed).permutation(math.prod(shape)).reshape(shape).astype(numpy.float32)


def arg_reference(module, op, v, dims):
    """argmin/argmax over dims (sorted) of v with the framework's own op: the reduced dims moved
    last and flattened row-major, as warpfold counts them."""
    order = [d for d in range(v.ndim) if d not in dims] + list(dims)
    moved = v.permute(order) if hasattr(v, "permute") else v.transpose(order)
    flat = moved.reshape([v.shape[d] for d in order[:v.ndim - len(dims)]] + [-1])
    return getattr(module, op)(flat, -1)


# Views of a base array, with the dims to reduce over each. Every one is read in place.
VIEWS = [
    ("x[:, 1:-1]", (64, 1031), lambda x: x[:, 1:-1], [0, 1, None, (0, 1)]),
    ("x[1:-1, ::2]", (64, 1031), lambda x: x[1:-1, ::2], [0, 1, None]),
    ("x.T", (64, 1031), lambda x: x.T, [0, 1, None]),
    ("x[:, ::3].T", (37, 300), lambda x: x[:, ::3].T, [0, 1]),
    ("4-D permute", (6, 10, 12, 16), lambda x: x.permute(2, 0, 3, 1), [(1, 2), (0, 3), (1, 3), (0, 2), 1, None]),
    ("4-D permute, sliced", (6, 10, 12, 16), lambda x: x.permute(2, 0, 3, 1)[1:, :, ::2], [(1, 2), (0, 3)]),
    ("x[None] of a column", (64, 1031), lambda x: x[None, :, 7], [1, 0]),
]

# Views whose elements repeat (stride 0, overlapping windows): values and sums, and
# argmin/argmax only along dims where the elements do not repeat.
REPEATING_VIEWS = [
    ("a row, expanded", (8, 1031), lambda x: x[3].expand(40, 1031), [0, 1, None], [1]),
    ("a 0-stride column", (64, 1031), lambda x: x[:, 5:6].expand(64, 300), [0, 1, None], [0]),
    ("broadcast_to", (1, 257), lambda x: x.broadcast_to(3, 129, 257), [(0, 1), 2, None], [2]),
    ("overlapping windows", (64, 1031), lambda x: x.reshape(-1).as_strided((100, 64), (8, 1)), [0, 1, None], []),
]

EMPTY_VIEWS = [
    ("x[:, 5:5]", (64, 1031), lambda x: x[:, 5:5], [0, 1, None]),
    ("x[9:9, ::2]", (64, 1031), lambda x: x[9:9, ::2], [0, 1, None]),
]


def _torch_view_cases():
    for name, shape, make, dims_list in VIEWS:
        for dims in dims_list:
            yield name, shape, make, dims, ("sum", "max", "argmin", "argmax")
    for name, shape, make, dims_list, arg_dims in REPEATING_VIEWS:
        for dims in dims_list:
            yield name, shape, make, dims, ("sum", "min", "max") + (("argmin", "argmax") if dims in arg_dims else ())
    for name, shape, make, dims_list in EMPTY_VIEWS:
        for dims in dims_list:
            yield name, shape, make, dims, ("sum",)


def test_torch_strided_views_match_torch():
    torch = _torch()
    for seed, (name, shape, make, dim, ops) in enumerate(_torch_view_cases()):
        for op in ops:
            is_arg = op in ("argmin", "argmax")
            base = torch.from_numpy((distinct_values if is_arg else exact_values)(shape, seed)).cuda()
            view = make(base)
            assert not view.is_contiguous() or view.numel() == 0, name
            dims = warpfold._reductions.normalize_dims(dim, None, view.dim(), op)
            if is_arg:
                expected = arg_reference(torch, op, view, dims)
            elif op == "sum":
                expected = view.sum(dim=dims)
            else:
                expected = getattr(torch, "amin" if op == "min" else "amax")(view, dim=dims)
            for _ in range(2):  # the first call plans; the second takes the cached short way
                got = getattr(warpfold, op)(view, dim=dim)
                assert got.shape == expected.shape and got.dtype == expected.dtype, (name, dim, op)
                assert torch.equal(got, expected), (name, dim, op)


def test_torch_strided_views_with_keepdim_dtype_and_out():
    torch = _torch()
    base = torch.from_numpy(exact_values((6, 10, 12, 16), seed=7)).cuda()
    view = base.permute(2, 0, 3, 1)[:, 1:-1, ::2]  # (12, 4, 8, 10)
    assert torch.equal(warpfold.sum(view, dim=(1, 3), keepdim=True), view.sum(dim=(1, 3), keepdim=True))
    assert torch.equal(warpfold.sum(view, dim=2, dtype=torch.float64), view.sum(dim=2, dtype=torch.float64))
    out = torch.empty(12, 8, device="cuda")
    assert warpfold.sum(view, dim=(1, 3), out=out) is out
    assert torch.equal(out, view.sum(dim=(1, 3)))
    distinct = torch.from_numpy(distinct_values((6, 10, 12, 16), seed=8)).cuda().permute(3, 1, 0, 2)
    got = warpfold.argmax(distinct, dim=(0, 2), keepdim=True)
    assert torch.equal(got, arg_reference(torch, "argmax", distinct, (0, 2)).reshape(1, 10, 1, 12))
    flags = torch.from_numpy(exact_values((64, 1031), seed=9) > 0).cuda()[:, ::3].T
    assert torch.equal(warpfold.sum(flags, dim=1), flags.sum(dim=1))


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
    with pytest.raises(IndexError, match="out of range"):
        warpfold.sum(torch.ones(4, device="cuda"), dim=1)
    with pytest.raises(TypeError, match="integer dtype"):
        warpfold.bitwise_and(torch.ones(4, device="cuda"))
    with pytest.raises(TypeError, match="not supported"):
        warpfold.sum(torch.ones(4, device="cuda", dtype=torch.complex64))
    with pytest.raises(ValueError, match="elements"):
        warpfold.sum(torch.ones(4, 6, device="cuda"), dim=1, out=torch.empty(5, device="cuda"))
    with pytest.raises(ValueError, match="out= must be C-contiguous"):
        warpfold.sum(torch.ones(4, 6, device="cuda"), dim=1, out=torch.empty(4, 2, device="cuda")[:, 0])


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
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:  # made, reduced and read on one stream, with no synchronization in between
        for k in range(1, 4):
            x = cupy.full(1 << 22, float(k), dtype=cupy.float64)
            total = warpfold.sum(x)
            assert float(total) == k * (1 << 22)


def test_cupy_strided_views():
    cupy = _cupy()
    for seed, (name, shape, make, dims_list) in enumerate([
            ("x[:, 1:-1]", (64, 1031), lambda x: x[:, 1:-1], [0, 1, None]),
            ("x[1:-1, ::2]", (64, 1031), lambda x: x[1:-1, ::2], [0, 1, (0, 1)]),
            ("x.T", (64, 1031), lambda x: x.T, [0, 1]),
            ("4-D transpose", (6, 10, 12, 16), lambda x: x.transpose(2, 0, 3, 1), [(1, 2), (0, 3), 1]),
            ("x[:1][::-1]", (64, 1031), lambda x: x[:1][::-1], [0, 1]),  # a negative stride that never moves
            ("x[:, 5:5]", (64, 1031), lambda x: x[:, 5:5], [0, 1])]):
        for dim in dims_list:
            view = make(cupy.asarray(exact_values(shape, seed)))
            dims = warpfold._reductions.normalize_dims(dim, None, view.ndim, "sum")
            assert cupy.array_equal(warpfold.sum(view, dim=dim), view.sum(axis=dims)), (name, dim)
            if view.size:
                distinct = make(cupy.asarray(distinct_values(shape, seed)))
                got = warpfold.argmax(distinct, dim=dim)
                assert cupy.array_equal(got, arg_reference(cupy, "argmax", distinct, dims)), (name, dim)
    broadcast = cupy.broadcast_to(cupy.asarray(exact_values((1, 257), seed=50)), (129, 257))
    assert cupy.array_equal(warpfold.sum(broadcast, dim=0), broadcast.sum(axis=0))
    with pytest.raises(ValueError, match=r"negative strides are not supported \(shape \(4, 12\), strides \(12, -1\)"):
        warpfold.sum(cupy.ones((4, 12), dtype=cupy.float32)[:, ::-1])


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
    got = warpfold.sum(CudaArrayInterfaceOnly(t[1:, ::2]), dim=0)  # a stepped slice, from the interface's strides
    assert_matches("sum", got, values[1:, ::2], (0,), "float32")


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


def _round_exactly(total, dtype_name):
    """The float32 or float64 nearest to the Fraction `total` (ties to even): the exact
    sum's correct rounding, with no double rounding on the way."""
    from fractions import Fraction
    np_type = numpy.float64 if dtype_name == "float64" else numpy.float32
    guess = np_type(float(total))
    candidates = [numpy.nextafter(guess, np_type(-numpy.inf)), guess, numpy.nextafter(guess, np_type(numpy.inf))]

    def key(c):
        mantissa_even = (int(numpy.asarray(c).view(numpy.uint32 if np_type == numpy.float32 else numpy.uint64)) & 1) == 0
        return (abs(Fraction(float(c)) - total), not mantissa_even)
    return min(candidates, key=key)


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16", "float32", "float64"])
def test_torch_sum_modes(dtype_name):
    from fractions import Fraction
    torch = _torch()
    rng = numpy.random.default_rng(11)
    n = 100003
    spread = 10 if dtype_name == "float16" else 20  # float16 stops at 65504
    magnitudes = numpy.ldexp(rng.uniform(-1, 1, n), rng.integers(-spread, spread, n))
    x = torch.tensor(magnitudes, dtype=getattr(torch, dtype_name), device="cuda")
    values = host(x).astype(numpy.float64)
    total = sum(Fraction(float(v)) for v in values)
    exact = warpfold.sum(x, mode="exact")
    result_name = "float64" if dtype_name == "float64" else "float32"
    assert str(exact.dtype) == "torch." + result_name and exact.shape == ()
    assert host(exact).tobytes() == numpy.asarray(_round_exactly(total, result_name)).tobytes()
    reproducible = warpfold.sum(x, mode="reproducible")
    moved = torch.empty(n + 3, dtype=x.dtype, device="cuda")[3:]  # another address, another alignment
    moved.copy_(x)
    assert host(warpfold.sum(moved, mode="reproducible")).tobytes() == host(reproducible).tobytes()
    assert host(warpfold.sum(moved, mode="exact")).tobytes() == host(exact).tobytes()
    assert abs(float(host(reproducible)) - float(total)) <= 1e-3 * float(numpy.abs(values).sum())
    assert warpfold.sum(x.view(7, -1) if n % 7 == 0 else x[None, :], mode="exact", keepdim=True).dim() == 2


def test_torch_sum_mode_errors():
    torch = _torch()
    x = torch.ones(64, 64, device="cuda")
    with pytest.raises(ValueError, match="mode"):
        warpfold.sum(x, mode="fast")
    with pytest.raises(ValueError, match="every axis"):
        warpfold.sum(x, dim=0, mode="exact")
    with pytest.raises(ValueError, match="C-contiguous"):
        warpfold.sum(x.t()[:, :3], mode="reproducible")
    with pytest.raises(TypeError, match="float16, bfloat16, float32 or float64"):
        warpfold.sum(torch.ones(5, dtype=torch.int32, device="cuda"), mode="exact")
    with pytest.raises(ValueError, match="out="):
        warpfold.sum(x, mode="exact", out=torch.empty((), device="cuda"))


def test_cupy_sum_modes():
    from fractions import Fraction
    cupy = _cupy()
    rng = numpy.random.default_rng(5)
    values = numpy.ldexp(rng.uniform(-1, 1, 65537), rng.integers(-30, 30, 65537))
    x = cupy.asarray(values)
    total = sum(Fraction(float(v)) for v in values)
    assert float(warpfold.sum(x, mode="exact")) == float(_round_exactly(total, "float64"))
    assert warpfold.sum(x, mode="reproducible").dtype == cupy.float64
