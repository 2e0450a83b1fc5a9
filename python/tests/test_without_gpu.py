"""What the Python package does before any GPU work: argument rules, layouts, the type table
and the error paths. Runs anywhere the C library is built (no GPU needed)."""
import pytest

import warpfold
from warpfold import _library, _reductions


@pytest.mark.parametrize("dim, axis, rank, expected", [
    (None, None, 3, (0, 1, 2)),
    (1, None, 3, (1,)),
    (-1, None, 3, (2,)),
    ((0, -1), None, 3, (0, 2)),
    ([2, 0], None, 3, (0, 2)),
    ((), None, 3, ()),
    (None, 0, 2, (0,)),
    (None, (-2, -1), 2, (0, 1)),
    (None, None, 0, ()),
])
def test_dims_follow_torch_and_numpy(dim, axis, rank, expected):
    assert _reductions.normalize_dims(dim, axis, rank, "sum") == expected


@pytest.mark.parametrize("dim, axis, rank, error, words", [
    (3, None, 3, IndexError, "out of range"),
    (-4, None, 3, IndexError, "valid: -3 to 2"),
    (0, None, 0, IndexError, "a scalar has no dims"),
    ((0, 0), None, 2, ValueError, "listed twice"),
    ((1, -1), None, 2, ValueError, "listed twice"),
    (1.0, None, 2, TypeError, "must be ints"),
    (True, None, 2, TypeError, "must be ints"),
    (0, 0, 2, TypeError, "not both"),
])
def test_bad_dims_are_clear_errors(dim, axis, rank, error, words):
    with pytest.raises(error, match=words):
        _reductions.normalize_dims(dim, axis, rank, "sum")


@pytest.mark.parametrize("shape, strides, expected", [
    ((3, 4), (4, 1), True),                   # row-major
    ((4, 3), (1, 4), False),                  # a transpose
    ((1, 4, 6), (999, 6, 1), True),           # an extent-1 axis may have any stride
    ((4, 1, 6), (6, -5, 1), True),
    ((5, 1), (1, 7), True),
    ((4, 6), (12, 2), False),                 # x[:, ::2] of a 4x12
    ((4, 6), (8, 1), False),                  # x[:, :6] of a 4x8
    ((4, 6), (0, 1), False),                  # a broadcast row
    ((4, 6), (-6, 1), False),
    ((0, 3), (7, 9), True),                   # empty: nothing lies in memory
    ((3, 0), (-1, -1), True),
    ((7,), (1,), True),
    ((7,), (2,), False),
    ((), (), True),                           # a scalar
])
def test_c_contiguous(shape, strides, expected):
    assert _reductions.is_c_contiguous(shape, strides) is expected


@pytest.mark.parametrize("shape, strides, expected", [
    ((4, 3), (1, 4), (1, 4)),                 # any view is passed as it is: a transpose,
    ((4, 6), (12, 2), (12, 2)),               # a stepped slice,
    ((4, 6), (0, 1), (0, 1)),                 # a broadcast,
    ((3, 3), (1, 1), (1, 1)),                 # overlapping elements
    ((1, 3), (-3, 1), (0, 1)),                # a negative stride that never moves reads nothing
    ((0, 3), (-3, -1), (0, 0)),
    ((), (), ()),
])
def test_strides_handed_to_the_library(shape, strides, expected):
    assert _reductions.checked_strides(shape, strides, "sum") == expected


def test_negative_strides_are_refused_with_the_layout():
    with pytest.raises(ValueError, match=r"warpfold\.argmax: negative strides are not supported "
                                         r"\(shape \(4, 6\), strides \(-6, 1\) in elements\)"):
        _reductions.checked_strides((4, 6), (-6, 1), "argmax")


@pytest.mark.parametrize("op, dtype, result", [
    ("sum", "int8", "int64"), ("sum", "int32", "int64"), ("sum", "int64", "int64"),
    ("sum", "uint16", "uint64"), ("prod", "uint32", "uint64"),
    ("sum", "float16", "float32"), ("sum", "bfloat16", "float32"), ("max", "float16", "float32"),
    ("sum", "float32", "float32"), ("sum", "float64", "float64"),
    ("min", "int8", "int8"), ("bit_xor", "uint8", "uint8"),
    ("argmax", "float32", "float32"), ("argmin", "int16", "int16"),
    ("bit_and", "float32", None), ("bit_or", "bfloat16", None),
])
def test_result_types_follow_the_accumulator_rules(op, dtype, result):
    assert _library.result_dtype(op, dtype) == result


def test_arg_results_are_16_byte_pairs():
    for dtype in _library.DTYPES:
        assert _library.library().warpfold_result_bytes(_library.OPS["argmax"], _library.DTYPES[dtype]) == 16


def test_library_errors_become_exceptions_with_its_message():
    # A bitwise op of floats is refused before anything touches a GPU.
    with pytest.raises(ValueError, match="bit_and needs an integer dtype"):
        _library.PreparedAxes("bit_and", "float32", [4], [1], [0])
    with pytest.raises(ValueError, match="rank 9 is not supported"):
        _library.PreparedAxes("sum", "float32", [1] * 9, [0] * 9, [0])
    with pytest.raises(ValueError, match="out of range"):
        _library.PreparedAxes("sum", "float32", [3, 4], [4, 1], [2])
    assert _library.PreparedAxes("sum", "float32", [3, 4], [4, 1], [1]).outputs == 3


@pytest.mark.parametrize("extents, strides, axes, outputs", [
    ([3, 4], None, [1], 3),                   # row-major, strides not given
    ([4, 3], [1, 4], [0], 3),                 # a transposed 3x4
    ([4, 6], [12, 2], [1], 4),                # x[:, ::2] of a 4x12
    ([4, 6], [0, 1], [0], 6),                 # a broadcast row
    ([2, 3, 5, 7], [105, 1, 21, 3], [1, 3], 10),  # a permutation
    ([5, 0, 3], [0, 3, 1], [0], 0),
    ([], [], [], 1),                          # a scalar
])
def test_plans_of_strided_views(extents, strides, axes, outputs):
    assert _library.PreparedAxes("sum", "float32", extents, strides, axes).outputs == outputs


def test_one_stride_per_extent():
    with pytest.raises(ValueError, match="1 strides for 2 extents"):
        _library.PreparedAxes("sum", "float32", [3, 4], [1], [0])


def test_host_arrays_are_refused():
    numpy = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match="host memory"):
        warpfold.sum(numpy.ones(4, dtype=numpy.float32))


def test_things_that_are_not_arrays_are_refused():
    with pytest.raises(TypeError, match="expected a CUDA array"):
        warpfold.sum([1.0, 2.0])


def test_unknown_segment_op():
    with pytest.raises(ValueError, match="op must be one of"):
        warpfold.reduce_segments(None, None, op="mean")


def test_version():
    assert warpfold.version() == warpfold.__version__
