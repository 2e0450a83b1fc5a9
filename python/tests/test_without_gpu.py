"""What the Python package does before any GPU work: argument rules, layouts, the type table
and the error paths. Runs anywhere the C library is built (no GPU needed)."""
import pytest

import warpfold
from warpfold import _library, _reductions, _statistics, bench


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


@pytest.mark.parametrize("statistic, dtype, result", [
    ("norm_l2", "float16", "float32"), ("norm_l2", "bfloat16", "float32"), ("norm_l1", "float32", "float32"),
    ("norm_linf", "float64", "float64"), ("dot", "bfloat16", "float32"), ("var_mean", "float64", "float64"),
    ("count_nonzero", "int32", "int64"), ("count_nonzero", "float16", "int64"), ("any", "uint8", "bool"),
    ("all", "int64", "bool"), ("any_nonfinite", "float32", "bool"), ("sum", "float16", "float32"),
    ("mean", "int32", None), ("norm_l2", "int8", None), ("any_nonfinite", "uint16", None),
])
def test_statistic_result_types(statistic, dtype, result):
    assert _library.statistic_result_dtype(statistic, dtype) == result


def test_unknown_statistic_codes_are_refused():
    lib = _library.library()
    assert lib.warpfold_statistic_result_dtype(99, _library.DTYPES["float32"]) == -1
    assert lib.warpfold_statistic_result_dtype(_library.STATISTICS["mean"], 42) == -1
    # Refused before any CUDA call: the codes are checked first.
    with pytest.raises(ValueError, match="unknown statistic code 99"):
        _library.check(lib.warpfold_statistic(99, _library.DTYPES["float32"], None, None, 0, 1.0, None, None))
    with pytest.raises(ValueError, match="mean needs a float dtype"):
        _library.statistic("mean", "int32", None, None, 0, 1.0, None, None)
    with pytest.raises(ValueError, match="count_nonzero of many arrays takes float dtypes"):
        _library.statistic_many("count_nonzero", "int32", [0], [0], 1.0, None, None, None)
    with pytest.raises(ValueError, match="dot needs the list of second arrays"):
        _library.statistic_many("dot", "float32", [0], [0], 1.0, None, None, None)
    with pytest.raises(ValueError, match="a negative number of arrays"):
        _library.check(lib.warpfold_statistic_many(_library.STATISTICS["norm_l2"], _library.DTYPES["float32"], None,
                                                   None, None, -1, 1.0, None, None, None))


def test_statistics_along_axes_are_refused_before_any_cuda_call():
    # Which statistics go along axes, and bad shapes or axes: checked with no GPU.
    assert _statistics._dims_of("mean", (0, 1), None, 2, "mean") is None  # every axis: the whole array
    assert _statistics._dims_of("norm_l2", -1, None, 3, "norm") == (2,)
    with pytest.raises(ValueError, match="reduces whole arrays"):
        _statistics._dims_of("count_nonzero", 1, None, 2, "count_nonzero")
    with pytest.raises(ValueError, match="count_nonzero is not taken along axes"):
        _library.statistic_axes("count_nonzero", "float32", None, (4, 5), None, (1,), 1.0, None, 4, None)
    with pytest.raises(ValueError, match="norm_l2 needs a float dtype"):
        _library.statistic_axes("norm_l2", "int32", None, (4, 5), None, (1,), 1.0, None, 4, None)
    with pytest.raises(ValueError, match="rank 9 is not supported"):
        _library.statistic_axes("mean", "float32", None, (1,) * 9, None, (1,), 1.0, None, 1, None)


@pytest.mark.parametrize("shape, strides, expected", [
    ((3, 4), (4, 1), 12),                     # row-major
    ((4, 3), (1, 4), 12),                     # a transpose fills the same block
    ((2, 3, 5), (1, 10, 2), 30),              # a permutation
    ((1, 4, 6), (999, 6, 1), 24),             # an extent-1 axis may have any stride
    ((4, 6), (12, 2), None),                  # x[:, ::2]
    ((4, 6), (8, 1), None),                   # x[:, :6] of a 4x8
    ((4, 6), (0, 1), None),                   # a broadcast row
    ((3, 3), (1, 1), None),                   # overlapping elements
    ((0, 3), (7, 9), 0),                      # empty
    ((), (), 1),                              # a scalar
])
def test_views_that_fill_a_block(shape, strides, expected):
    assert _statistics.dense_elements(shape, strides) == expected


@pytest.mark.parametrize("ord, statistic", [(1, "norm_l1"), (2, "norm_l2"), (2.0, "norm_l2"),
                                            (float("inf"), "norm_linf")])
def test_norm_orders(ord, statistic):
    assert _statistics.norm_statistic(ord, "norm") == statistic


@pytest.mark.parametrize("ord", [0, 3, -1, float("-inf"), "fro", None, True, [2]])
def test_unsupported_norm_orders(ord):
    with pytest.raises(ValueError, match="ord must be 1, 2 or inf"):
        _statistics.norm_statistic(ord, "norm")


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


# ---------------------------------------------------------------- python -m warpfold.bench --cases

RANDOM_CSV_HEADER = ("case,impl,dtype,shape,strides,offset,parent,dims,bytes_in,bytes_out,time_us,time_min_us,"
                     "time_max_us,gbps,ceiling_gbps,pct_of_ceiling,device,family,n,bytes,launches,trials,batch,"
                     "buffers,status,note,view\n")


def random_csv(tmp_path, *rows):
    path = tmp_path / "axis_random.csv"
    path.write_text(RANDOM_CSV_HEADER + "".join(r + "\n" for r in rows))
    return str(path)


READ_CEILING_ROW = ",read_ceiling,,,,,,,2147483648,0,700.000,,,3067.50,,,NVIDIA H100,ceiling,,,,9,,,ok,,"
CASE_0 = ('0,warpfold,f16,64x128x256x8,262144x2048x8x1,0,16777216,"1,3",33554432,32768,20.000,19.0,21.0,1679.36,'
          '3067.50,54.75,NVIDIA H100,production,16777216,33587200,,9,1,4,ok,,contiguous')
CASE_1 = ("1,warpfold,i32,1000,3,5,3100,0,4000,8,5.000,4.9,5.1,0.80,3067.50,0.03,NVIDIA H100,production,1000,4008,"
          ",9,1,2,ok,,sliced")
CASE_2 = ('2,warpfold,bf16,300x40x7,1x2100x300,0,84000,"0,2",168000,160,,,,,3067.50,,NVIDIA H100,production,84000,'
          '168160,,9,,,FAILED,wrong,permuted')


def test_bench_cases_layouts_and_ceiling(tmp_path):
    found = bench.read_cases(random_csv(tmp_path, READ_CEILING_ROW, CASE_0, CASE_1, CASE_2))
    assert found.ceiling == pytest.approx(3067.5)
    assert found.device == "NVIDIA H100"
    assert [c.number for c in found.cases] == [0, 1, 2]
    c0, c1, c2 = found.cases
    assert (c0.dtype, c0.shape, c0.strides, c0.offset, c0.parent, c0.dims, c0.view) == (
        "f16", (64, 128, 256, 8), (262144, 2048, 8, 1), 0, 16777216, (1, 3), "contiguous")
    assert (c0.dtype_name, c0.itemsize, c0.elements, c0.bytes_in) == ("float16", 2, 16777216, 33554432)
    assert (c0.kept_shape, c0.outputs, c0.reduced) == ((64, 256), 64 * 256, 128 * 8)
    assert (c0.shape_text, c0.strides_text, c0.dims_text) == ("64x128x256x8", "262144x2048x8x1", "1,3")
    assert c0.cli_gbps == pytest.approx(1679.36) and c0.cli_status == "ok"
    assert (c1.dtype_name, c1.shape, c1.strides, c1.offset, c1.dims, c1.is_float) == ("int32", (1000,), (3,), 5, (0,),
                                                                                       False)
    assert (c1.kept_shape, c1.outputs, c1.bytes_in) == ((), 1, 4000)  # a full reduction: one output
    assert (c2.dtype_name, c2.dims, c2.cli_gbps, c2.cli_status) == ("bfloat16", (0, 2), None, "FAILED")


def test_bench_cases_are_taken_once_from_the_warpfold_rows(tmp_path):
    other_impl = CASE_0.replace(",warpfold,", ",cub,").replace("262144x2048x8x1", "1x64x8192x1048576")
    found = bench.read_cases(random_csv(tmp_path, CASE_0, other_impl, CASE_1, CASE_0, READ_CEILING_ROW))
    assert [c.number for c in found.cases] == [0, 1]
    assert found.cases[0].strides == (262144, 2048, 8, 1)  # not the other impl's row
    assert found.ceiling == pytest.approx(3067.5)  # the read_ceiling row counts wherever it is


def test_bench_cases_without_a_ceiling_row(tmp_path):
    found = bench.read_cases(random_csv(tmp_path, CASE_1))
    assert found.ceiling is None and [c.number for c in found.cases] == [1]


@pytest.mark.parametrize("row, words", [
    (CASE_1.replace(",3,5,3100,", ",3x1,5,3100,"), r"line 3 \(case 1\): strides '3x1' has 2 entries for the 1 "
                                                    r"extents of shape '1000'"),
    (CASE_1.replace(",3,5,3100,", ",3,5,2000,"), r"the view reaches element 3002, past its parent of 2000 elements"),
    (CASE_1.replace(",i32,", ",f64,"), r"dtype 'f64' is not one of f32, f16, bf16, i32"),
    (CASE_1.replace(",i32,1000,", ",i32,10x-4,"), r"shape entry '-4' is not a whole number >= 1"),
    (CASE_1.replace(",i32,1000,", ",i32,0,"), r"shape entry '0' is not a whole number >= 1"),
    (CASE_1.replace(",3100,0,", ",3100,1,"), r"dim 1 is out of range for rank 1"),
    (CASE_0.replace('"1,3"', '"1,1"'), r"dims '1,1' lists a dim twice"),
    (CASE_0.replace('"1,3"', '""'), r"dims is empty"),
    (CASE_1.replace("1,warpfold", "x,warpfold"), r"case 'x' is not a whole number >= 0"),
    (CASE_1 + ",extra", r"line 3: 27 fields expected"),
    (CASE_0.replace("0,16777216", "0,99"), r"case 0\): the view reaches element"),
])
def test_bench_cases_bad_rows_are_clear_errors(tmp_path, row, words):
    path = random_csv(tmp_path, READ_CEILING_ROW, row)
    with pytest.raises(ValueError, match=words) as caught:
        bench.read_cases(path)
    assert str(caught.value).startswith(path)


def test_bench_cases_a_case_with_two_layouts_is_an_error(tmp_path):
    with pytest.raises(ValueError, match=r"line 3: case 1 again, with another layout"):
        bench.read_cases(random_csv(tmp_path, CASE_1, CASE_1.replace(",3,5,3100,", ",2,5,3100,")))


@pytest.mark.parametrize("text, words", [
    ("case,impl,dtype,shape,dims\n", r"has no column strides, offset, parent, view"),
    (RANDOM_CSV_HEADER + READ_CEILING_ROW + "\n", r"has no warpfold rows"),
    ("", r"has no column case"),
])
def test_bench_cases_files_that_are_not_random_bench_csvs(tmp_path, text, words):
    path = tmp_path / "other.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=words):
        bench.read_cases(str(path))


def test_bench_cases_summary_of_the_large_cases():
    big, small = 64 << 20, (64 << 20) - 1
    rows = [
        {"impl": "torch", "bytes_in": big, "gbps": "1500", "status": "ok"},
        {"impl": "torch", "bytes_in": big * 2, "gbps": "2400", "status": "ok"},
        {"impl": "torch", "bytes_in": big, "gbps": "2700", "status": "ok"},
        {"impl": "torch", "bytes_in": small, "gbps": "10", "status": "ok"},     # too small to count
        {"impl": "torch", "bytes_in": big, "gbps": "", "status": "FAILED"},
        {"impl": "cupy", "bytes_in": small, "gbps": "900", "status": "ok"},
    ]
    assert bench.summary_lines(rows, 3000.0) == [
        "the cases that read 64 MiB or more:",
        "  torch: worst 50.0%, median 80.0% of the read ceiling (3 cases, 1 FAILED left out)",
        "  cupy: none measured",
    ]
    assert bench.summary_lines(rows[:2], None)[1] == "  torch: worst 1500.0 GB/s, median 1950.0 GB/s (2 cases)"


def test_bench_cases_command_line():
    assert bench.parse_args(["--cases", "f.csv"]).parts == ["cases"]
    for bad in (["--cases", "f.csv", "--sweep"], ["--cases", "f.csv", "--shape", "64x64"],
                ["--cases", "f.csv", "--dims", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)
