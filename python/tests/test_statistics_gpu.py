"""The statistics (norm, dot, mean, var, std, counts, tests) and the many-array forms on a GPU,
against NumPy in float64 on the host: counts and tests exactly, floats within a bound that
grows with n. torch is the main framework here; CuPy is checked where installed. A missing
framework or GPU is a skip with its reason."""
import math
import random

import pytest

import warpfold
from test_gpu import _cupy, _torch, host

numpy = pytest.importorskip("numpy")

FLOATS = ["float32", "float64", "float16", "bfloat16"]
RESULT_EPS = {"float16": 2.0 ** -23, "bfloat16": 2.0 ** -23, "float32": 2.0 ** -23, "float64": 2.0 ** -52}

# The endpoints around a block (256 threads) and a warp, primes, a size past a few vectors per
# thread, and random sizes from a fixed seed.
SIZES = [0, 1, 2, 31, 255, 256, 257, 1021, 65537, 1000003] + random.Random(20261123).sample(range(3, 300000), 4)


def tensor(values, dtype_name):
    torch = _torch()
    t = torch.from_numpy(numpy.ascontiguousarray(values)).cuda()
    return t.to(torch.bfloat16) if dtype_name == "bfloat16" else t


def make(n, dtype_name, seed, shift=0.0):
    g = numpy.random.default_rng(seed)
    values = (g.standard_normal(n) + shift).astype(numpy.float32 if dtype_name == "bfloat16" else dtype_name)
    x = tensor(values, dtype_name)
    return x, host(x).astype(numpy.float64)  # the values as the GPU holds them (bfloat16 rounded)


def bound(n, magnitude, dtype_name):
    """How far a float result of n terms of total magnitude may be from the exact value."""
    return RESULT_EPS[dtype_name] * (2 * math.log2(n + 2) + 2 * math.sqrt(n) + 4) * magnitude + 1e-300


def close(got, expected, n, magnitude, dtype_name):
    got = float(host(got))
    if math.isnan(expected):
        return math.isnan(got)
    return abs(got - expected) <= bound(n, magnitude, dtype_name)


def variance_close(got, expected, n, v, dof, dtype_name):
    """Welford and Chan's variance: its error is about eps * (var * depth + |mean| * std),
    where depth is the merge tree's (log n): a merge multiplies the difference of two means,
    each off by eps * |mean|, by the spread. It does not grow like n, as E[x^2] - E[x]^2's
    error (eps * mean^2 * n / dof) does."""
    got = float(host(got))
    if math.isnan(expected):
        return math.isnan(got)
    std = math.sqrt(expected)
    scale = (expected * (n / max(dof, 1))) + numpy.abs(v).max() * std
    return abs(got - expected) <= RESULT_EPS[dtype_name] * (2 * math.log2(n + 2) + 8) * 4 * scale


@pytest.mark.parametrize("dtype_name", FLOATS)
def test_norms_mean_and_dot_match_numpy(dtype_name):
    torch = _torch()
    for index, n in enumerate(SIZES):
        x, v = make(n, dtype_name, seed=index)
        y, w = make(n, dtype_name, seed=index + 1000)
        before = x.clone()
        a = numpy.abs(v)
        assert close(warpfold.norm(x, 1), a.sum(), n, a.sum(), dtype_name), (n, "l1")
        l2 = math.sqrt((v * v).sum())
        assert close(warpfold.norm(x), l2, n, l2, dtype_name), (n, "l2")
        assert float(host(warpfold.norm(x, math.inf))) == (a.max() if n else 0.0), (n, "inf")
        expected_mean = v.mean() if n else math.nan
        assert close(warpfold.mean(x), expected_mean, n, a.mean() if n else 0.0, dtype_name), (n, "mean")
        assert close(warpfold.dot(x, y), (v * w).sum(), n, numpy.abs(v * w).sum(), dtype_name), (n, "dot")
        result = warpfold.norm(x)
        assert result.shape == () and result.device == x.device
        assert result.dtype == (torch.float64 if dtype_name == "float64" else torch.float32)
        assert torch.equal(x, before)  # the input is never modified


@pytest.mark.parametrize("dtype_name", FLOATS)
def test_var_and_std_match_numpy(dtype_name):
    for index, n in enumerate(SIZES):
        # A large mean against the spread: E[x^2] - E[x]^2 would lose every digit here.
        x, v = make(n, dtype_name, seed=index, shift=0.0 if dtype_name in ("float16", "bfloat16") else 1e4)
        for correction in (0, 1, 2):
            dof = n - correction
            deviations = ((v - v.mean()) ** 2).sum() if n else 0.0
            expected = deviations / dof if n and dof > 0 else math.nan
            var, mean = warpfold.var_mean(x, correction=correction)
            assert variance_close(var, expected, n, v, dof, dtype_name), (n, correction, float(host(var)), expected)
            assert close(mean, v.mean() if n else math.nan, n, numpy.abs(v).mean() if n else 0.0, dtype_name)
            std, _ = warpfold.std_mean(x, correction=correction)
            if not math.isnan(expected):
                assert abs(float(host(std)) - math.sqrt(expected)) <= 1e-3 * math.sqrt(expected) + 1e-6
            assert float(host(warpfold.var(x, ddof=correction))) == float(host(var)) or math.isnan(expected)
        assert math.isnan(float(host(warpfold.var(x[:1])))) or n == 0  # one element: n - 1 = 0


def test_l2_norm_neither_overflows_nor_underflows():
    torch = _torch()
    big = torch.tensor([3e30, 4e30], device="cuda")
    small = torch.tensor([3e-30, 4e-30], device="cuda")
    assert float(warpfold.norm(big)) == pytest.approx(5e30, rel=1e-6)
    assert float(warpfold.norm(small)) == pytest.approx(5e-30, rel=1e-6)
    huge = torch.tensor([1e300, 1e300], dtype=torch.float64, device="cuda")
    assert float(warpfold.norm(huge)) == pytest.approx(math.sqrt(2) * 1e300, rel=1e-12)
    sub = torch.tensor([3e-310, 4e-310], dtype=torch.float64, device="cuda")  # subnormals
    assert float(warpfold.norm(sub)) == pytest.approx(5e-310, rel=1e-6)


def test_counts_and_tests():
    torch = _torch()
    g = numpy.random.default_rng(7)
    for n in (0, 1, 257, 100003):
        values = g.integers(-2, 3, n).astype(numpy.int32)
        x = torch.from_numpy(values).cuda()
        assert int(warpfold.count_nonzero(x)) == int(numpy.count_nonzero(values))
        assert bool(warpfold.any(x)) == bool(values.any())
        assert bool(warpfold.all(x)) == bool(values.all())
        b = x != 0
        assert int(warpfold.count_nonzero(b)) == int(numpy.count_nonzero(values))
        assert warpfold.any(b).dtype == torch.bool
        assert bool(warpfold.all(torch.ones(n, dtype=torch.bool, device="cuda")))
        f = torch.randn(n, device="cuda")
        assert not bool(warpfold.any_nonfinite(f))
        if n:
            for bad in (math.inf, -math.inf, math.nan):
                g2 = f.clone()
                g2[n // 2] = bad
                assert bool(warpfold.any_nonfinite(g2))


def test_views_that_fill_memory_are_read_in_place_and_others_refused():
    torch = _torch()
    x = torch.randn(301, 67, device="cuda", dtype=torch.float64)
    v = host(x)
    for view in (x.t(), x.unsqueeze(1).permute(2, 1, 0), x.view(67, 301)):
        assert float(warpfold.norm(view)) == pytest.approx(math.sqrt((v * v).sum()), rel=1e-12)
        assert float(warpfold.mean(view)) == pytest.approx(v.mean(), rel=1e-9, abs=1e-12)
    for view, words in ((x[:, 1:-1], "do not fill"), (x[:, ::2], "do not fill"),
                        (torch.randn(5, device="cuda").expand(4, 5), "do not fill")):
        with pytest.raises(ValueError, match=words):
            warpfold.norm(view)
    with pytest.raises(ValueError, match="whole arrays"):
        warpfold.count_nonzero(x, dim=1)
    assert warpfold.mean(x, dim=(0, 1), keepdim=True).shape == (1, 1)


def _along(values, dims, reduce):
    """numpy's reduction of float64 values along dims (a tuple), or over nothing."""
    return reduce(values, axis=dims) if dims else reduce(values[..., None], axis=-1)


def _elementwise_close(got, expected, n, magnitude, dtype_name):
    got = numpy.asarray(host(got), dtype=numpy.float64)
    expected = numpy.broadcast_to(numpy.asarray(expected, dtype=numpy.float64), got.shape)
    magnitude = numpy.broadcast_to(numpy.asarray(magnitude, dtype=numpy.float64), got.shape)
    both_nan = numpy.isnan(got) & numpy.isnan(expected)
    ok = numpy.abs(got - expected) <= bound(n, 1.0, dtype_name) * magnitude + 1e-300
    return bool((both_nan | ok).all()), (got, expected)


@pytest.mark.parametrize("dtype_name", FLOATS)
def test_statistics_along_dims_match_numpy(dtype_name):
    """mean, var/std (with their means), and the three norms along dims, of contiguous arrays
    and of strided views (transposed, sliced, stepped, broadcast), with and without keepdim,
    against NumPy in float64; result shapes against torch's."""
    torch = _torch()
    cases = [((257, 33), (1,)), ((257, 33), (0,)), ((7, 100003), (1,)), ((4099, 8), (1,)), ((100003, 3), (0,)),
             ((8, 5, 9, 11), (0, 2, 3)), ((3, 1, 5), (1,)), ((2, 3, 4, 5), (1, 3)), ((0, 5), (0,)), ((5, 0), (1,)),
             ((6, 7), ())]
    g = numpy.random.default_rng(31)
    for index, (shape, dims) in enumerate(cases):
        base, _ = make(int(numpy.prod(shape)), dtype_name, seed=100 + index)
        base = base.reshape(shape)
        views = [base]
        if len(shape) >= 2 and min(shape) > 2:
            views += [base.transpose(0, 1), base[:, 1:-1], base[::2]]
        if len(shape) == 2 and shape[0] > 0:
            views.append(base[:1].expand(4, shape[1]))  # a broadcast along dim 0
        for view in views:
            v = host(view).astype(numpy.float64)
            rank = len(view.shape)
            n = int(numpy.prod([view.shape[d] for d in dims])) if dims else 1
            before = view.clone()
            what = (dtype_name, tuple(view.shape), tuple(view.stride()), dims)
            for keepdim in (False, True):
                mean = warpfold.mean(view, dim=dims, keepdim=keepdim)
                # dim=() reduces nothing, as NumPy's axis=() (torch reads it as every dim).
                torch_shape = tuple(view.shape) if not dims else tuple(
                    torch.mean(view.float(), dim=dims, keepdim=keepdim).shape)
                assert tuple(mean.shape) == torch_shape, what
                with numpy.errstate(invalid="ignore", divide="ignore"):
                    expected = _along(v, dims, numpy.mean)
                ok, detail = _elementwise_close(mean.reshape(expected.shape), expected, n,
                                                _along(numpy.abs(v), dims, numpy.max) if n else 0.0, dtype_name)
                assert ok, (what, "mean", detail)
            a = numpy.abs(v)
            for ord, reduce in ((1, numpy.sum), (2, None), (math.inf, numpy.max)):
                got = warpfold.norm(view, ord, dim=dims)
                if ord == 2:
                    expected = numpy.sqrt(_along(v * v, dims, numpy.sum))
                elif n == 0:
                    expected = numpy.zeros(got.shape)
                else:
                    expected = _along(a, dims, reduce)
                ok, detail = _elementwise_close(got, expected, n, expected, dtype_name)
                assert ok, (what, "norm", ord, detail)
            for correction in (0, 1):
                var, var_means = warpfold.var_mean(view, dim=dims, correction=correction)
                std, _ = warpfold.std_mean(view, dim=dims, correction=correction)
                assert tuple(var.shape) == (tuple(view.shape) if not dims else
                                            tuple(torch.var_mean(view.float(), dim=dims, correction=correction)[0].shape))
                dof = n - correction
                with numpy.errstate(invalid="ignore", divide="ignore"):
                    m = _along(v, dims, numpy.mean)
                    keep = numpy.expand_dims(m, dims) if dims else m
                    deviations = _along((v - keep) ** 2, dims, numpy.sum)
                    expected = deviations / dof if dof > 0 else numpy.full(deviations.shape, math.nan)
                magnitude = _along(v * v, dims, numpy.sum) / max(dof, 1) if n else 0.0
                ok, detail = _elementwise_close(var, expected, n, magnitude, dtype_name)
                assert ok, (what, "var", correction, detail)
                ok, detail = _elementwise_close(var_means, m, n, _along(a, dims, numpy.max) if n else 0.0, dtype_name)
                assert ok, (what, "var_mean's mean", detail)
                ok, detail = _elementwise_close(std, numpy.sqrt(expected), n, numpy.sqrt(magnitude), dtype_name)
                assert ok, (what, "std", correction, detail)
            assert torch.equal(view, before)


def test_bad_arguments_are_clear_errors():
    torch = _torch()
    x = torch.randn(10, device="cuda")
    with pytest.raises(ValueError, match="x has 10 elements and y has 9"):
        warpfold.dot(x, torch.randn(9, device="cuda"))
    with pytest.raises(TypeError, match="one dtype"):
        warpfold.dot(x, torch.randn(10, device="cuda", dtype=torch.float64))
    with pytest.raises(ValueError, match="must be 1-D"):
        warpfold.dot(x.view(2, 5), x.view(2, 5))
    with pytest.raises(TypeError, match="host memory"):
        warpfold.norm(torch.randn(10))
    with pytest.raises(TypeError, match="needs a float"):
        warpfold.mean(torch.ones(10, dtype=torch.int32, device="cuda"))
    with pytest.raises(ValueError, match="ord must be 1, 2 or inf"):
        warpfold.norm(x, ord=3)
    with pytest.raises(TypeError, match="correction .* or ddof"):
        warpfold.var(x, correction=0, ddof=1)


def test_foreach_norm_matches_one_norm_per_array():
    torch = _torch()
    g = numpy.random.default_rng(11)
    sizes = [0, 1, 3, 256, 257, 4099, 1000003, 5] + list(g.integers(1, 50000, 40))
    arrays = [torch.randn(int(s), device="cuda") for s in sizes]
    arrays.append(arrays[3])  # a repeated array is counted twice
    arrays.append(torch.randn(33, 17, device="cuda").t())  # a transposed one is read in place
    norms, total = warpfold.foreach_norm(arrays)
    assert norms.shape == (len(arrays),) and total.shape == ()
    values = [host(a).astype(numpy.float64).ravel() for a in arrays]
    for a, got in zip(values, host(norms)):
        expected = math.sqrt((a * a).sum())
        assert abs(got - expected) <= bound(a.size, expected, "float32")
    everything = numpy.concatenate(values)
    expected_total = math.sqrt((everything * everything).sum())
    assert abs(float(total) - expected_total) <= bound(everything.size, expected_total, "float32")
    per, combined = warpfold.foreach("norm_linf", arrays)
    assert float(combined) == numpy.abs(everything).max()
    (vars_, means), (var_all, mean_all) = warpfold.foreach("var_mean", arrays[3:8])
    for a, var, mean in zip(values[3:8], host(vars_), host(means)):
        assert mean == pytest.approx(a.mean(), abs=1e-5 * (numpy.abs(a).mean() + 1))
        if a.size > 1:
            assert var == pytest.approx(a.var(ddof=1), rel=1e-4)


def test_foreach_dot_and_counts():
    torch = _torch()
    g = numpy.random.default_rng(13)
    sizes = [0, 1, 7, 256, 257, 70001] + [int(s) for s in g.integers(1, 20000, 20)]
    xs = [torch.randn(s, device="cuda", dtype=torch.float64) for s in sizes]
    ys = [torch.randn(s, device="cuda", dtype=torch.float64) for s in sizes]
    per, total = warpfold.foreach_dot(xs, ys)
    expected = [float(host(x) @ host(y)) for x, y in zip(xs, ys)]
    for got, want, n in zip(host(per), expected, sizes):
        assert abs(got - want) <= 1e-12 * (n + 1)
    assert float(total) == pytest.approx(sum(expected), abs=1e-9)
    with pytest.raises(ValueError, match="pair 1: x has 1 elements and y has 2"):
        warpfold.foreach_dot(xs[:2], [ys[0], torch.randn(2, device="cuda", dtype=torch.float64)])
    with pytest.raises(ValueError, match="2 x arrays and 1 y arrays"):
        warpfold.foreach_dot(xs[:2], ys[:1])
    flags = [torch.tensor(v, device="cuda", dtype=torch.float32) for v in ([0.0, 1.0, -0.0], [2.0], [], [0.0] * 5)]
    counts, count_all = warpfold.foreach("count_nonzero", flags)
    assert host(counts).tolist() == [1, 1, 0, 0] and int(count_all) == 2
    anys, any_all = warpfold.foreach("any", flags)
    assert host(anys).tolist() == [True, True, False, False] and bool(any_all)
    alls, all_all = warpfold.foreach("all", flags)
    assert host(alls).tolist() == [False, True, True, False] and not bool(all_all)


def test_foreach_bad_arguments():
    torch = _torch()
    x = torch.randn(10, device="cuda")
    with pytest.raises(TypeError, match="one dtype"):
        warpfold.foreach_norm([x, x.double()])
    with pytest.raises(ValueError, match="array 1"):
        warpfold.foreach_norm([x, x[::2]])
    with pytest.raises(ValueError, match="statistic must be one of"):
        warpfold.foreach("dot", [x])
    with pytest.raises(ValueError, match="the list is empty"):
        warpfold.foreach_norm([])
    with pytest.raises(TypeError, match="host memory"):
        warpfold.foreach_norm([x, torch.randn(3)])


def test_cupy_statistics():
    cupy = _cupy()
    g = numpy.random.default_rng(5)
    v = g.standard_normal(100003)
    x = cupy.asarray(v)
    assert float(warpfold.norm(x)) == pytest.approx(numpy.linalg.norm(v), rel=1e-12)
    assert float(warpfold.mean(x)) == pytest.approx(v.mean(), rel=1e-9, abs=1e-12)
    assert float(warpfold.var(x, ddof=0)) == pytest.approx(v.var(), rel=1e-12)
    assert float(warpfold.dot(x, x)) == pytest.approx(float(v @ v), rel=1e-12)
    norms, total = warpfold.foreach_norm([x, x[:7]])
    assert isinstance(norms, cupy.ndarray)
    assert float(total) == pytest.approx(math.sqrt(float(v @ v) + float(v[:7] @ v[:7])), rel=1e-12)
