"""python -m warpfold.bench: times warpfold (through this package), torch.sum and cupy.sum, side
by side in one process, on the axis cases of `warpfold bench --axis`, with --sweep on
full-array sums of 2^10 to 2^30 floats, and with --cases on the strided N-D cases of a
`warpfold bench --axis --random K --csv` file.

  python -m warpfold.bench                          # the axis cases, every implementation
  python -m warpfold.bench --sweep --csv sweep.csv   # full sums
  python -m warpfold.bench --shape 8192x8192 --dims 0 --impl warpfold,torch
  python -m warpfold.bench --cases axis_random.csv --csv axis_random_torch.csv

The axis cases: float32 arrays shaped 8192x8192, 65536x1024, 1024x65536, 4194304x16,
16x4194304, 1048576x64, 64x1048576 and 16777216x4 (2^26 elements, 256 MiB, each), each summed
along dim 1 (row sums) and dim 0 (column sums). The sweep: arrays of 1 x 2^k floats, k = 10,
12, ... 30, summed along dim 1 (one output: a full reduction). The method is the C++ bench's:
- each call writes into an output allocated once (out=), so no allocation is timed;
- CUDA events; 3 warm-up calls, then the median of --trials trials (min and max kept), each a
  batch of back-to-back calls lasting at least --batch-ms, divided by the calls, after one
  untimed call (the GPU idles while answers are checked between trials);
- the trials of the implementations interleaved round robin at each case, on the same inputs
  (cupy reads torch's tensors through DLPack, no copy; warpfold reads them in place), filled
  with varied values in [0, 1);
- calls rotate over at least two input buffers totalling at least 4x L2, so every call reads
  cold data from DRAM;
- every timed answer is checked, output by output, against a float64 sum of the same input,
  within the bench's float tolerance for the reduced length; a wrong answer is FAILED, no time.

The CSV has the columns of `warpfold bench --axis --csv` (impl=warpfold for this package, torch
or cupy), then the case's name. GB/s counts bytes read plus bytes written. ceiling_gbps and
pct_of_ceiling are filled in from the read ceiling of --ceiling-from (a `warpfold bench --axis
--csv` file of the same machine and run), and left empty without it.

Needs torch and/or cupy on a CUDA GPU (warpfold needs one of them to make its arrays); a
missing library is reported and the exit status is non-zero, but the others still run.

--cases FILE: the cases of a `warpfold bench --axis --random K --seed S --csv FILE` run, each
taken once from its warpfold rows (the file's other rows are ignored). A case is the view of
`shape` and `strides` starting `offset` elements into a parent buffer of `parent` elements of
its dtype (f32, f16, bf16 or i32), summed over `dims`. Each rotation buffer is its own parent,
filled with multiples of 1/256 in [-1, 1) (exact in every float dtype, so the only error is
the sum's rounding) or with integers in [-128, 128) (int32); the view is
torch.as_strided(parent, shape, strides, offset), which cupy reads through DLPack (cupy has no
bfloat16: its rows of bf16 cases are left out, with a note) and warpfold in place. Each
library writes its own result type: torch and cupy the input's dtype for floats and int64 for
int32, warpfold float32 for every float and int64 for int32. Float answers are checked against
a float64 sum within the tolerance above plus the rounding of a float16 or bfloat16 result;
int32 sums must be exact. The timing is the same as above; the rotation is sized by the
parent's bytes, as the CLI's is. torch is needed (it builds the views), also when it is not
timed. The CSV has the columns of the random bench's CSV (case, impl, dtype, shape, strides,
offset, parent, dims, the timing columns above, then view; `--cases FILE --columns` prints
them), with impl=torch, cupy or warpfold-python; bytes_in counts the view's elements,
bytes_out the outputs in each library's result type. The read ceiling is the file's
read_ceiling row unless --ceiling-from names another. At the end: the worst and the median
share of the read ceiling (GB/s without one) of each implementation, the CLI's warpfold rows
of the file included, over the cases that read 64 MiB or more.

Exit status: 0 when every requested implementation ran and every answer was right.
"""

import argparse
import contextlib
import csv
import dataclasses
import math
import statistics
import sys

# The columns of `warpfold bench --axis --csv` (so the files plot and check side by side),
# then the case's name.
COLUMNS = [
    "impl", "dtype", "shape", "dims", "bytes_in", "bytes_out", "time_us", "time_min_us", "time_max_us", "gbps",
    "ceiling_gbps", "pct_of_ceiling", "device", "family", "n", "bytes", "launches", "trials", "batch", "buffers",
    "status", "note", "case",
]
SHAPES = [(8192, 8192), (65536, 1024), (1024, 65536), (4194304, 16), (16, 4194304), (1048576, 64), (64, 1048576),
          (16777216, 4)]
DIMS = [1, 0]
IMPLS = ["warpfold", "torch", "cupy"]
SWEEP_SHAPES = [(1, 1 << k) for k in range(10, 31, 2)]
FLOAT_BYTES = 4
FLT_EPSILON = 2.0 ** -23
WARMUP_CALLS = 3
VERIFY_BUFFERS = 4              # buffers reduced once more and checked at the end, as in the bench
MAX_BATCH = 1 << 14
ROTATION_FACTOR = 4             # the input buffers together are >= 4x L2, as in the bench
ASSUMED_L2_BYTES = 64 << 20     # when neither library reports the L2 size

# --cases: the columns of `warpfold bench --axis --random K --csv` (src/bench/output.cpp: case,
# the axis bench's columns with the view's strides, offset and parent after shape, then view),
# so the files plot and join on case and impl side by side.
CASES_COLUMNS = [
    "case", "impl", "dtype", "shape", "strides", "offset", "parent", "dims", "bytes_in", "bytes_out", "time_us",
    "time_min_us", "time_max_us", "gbps", "ceiling_gbps", "pct_of_ceiling", "device", "family", "n", "bytes",
    "launches", "trials", "batch", "buffers", "status", "note", "view",
]
# The random bench's dtypes: (the NumPy-style name torch, cupy and warpfold know, item bytes).
CASE_DTYPES = {"f32": ("float32", 4), "f16": ("float16", 2), "bf16": ("bfloat16", 2), "i32": ("int32", 4)}
ITEM_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int32": 4, "int64": 8}
# A float16 or bfloat16 result is the float32 sum rounded once more: the check allows one
# epsilon of that type times the answer on top of the float tolerance (which already covers
# the rounding to float32).
RESULT_ROUNDING = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
CASE_IMPL_NAMES = {"warpfold": "warpfold-python"}  # the file's "warpfold" rows are the CLI's
SUMMARY_MIN_BYTES = 64 << 20    # the summary covers the cases that read at least this much


# ---------------------------------------------------------------- command line

def parse_extent(text):
    text = text.strip()
    if text.startswith("2^") and text[2:].isdigit():
        return 1 << int(text[2:])
    for suffix, shift in (("Ki", 10), ("Mi", 20), ("Gi", 30)):
        if text.endswith(suffix) and text[:-2].isdigit():
            return int(text[:-2]) << shift
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise argparse.ArgumentTypeError(f"invalid extent '{text}' (write e.g. 8192, 2^13 or 8Ki)")


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        parts = item.split("x")
        if len(parts) != 2:
            raise argparse.ArgumentTypeError(f"invalid shape '{item}': write ROWSxCOLS, e.g. 8192x8192")
        shape = (parse_extent(parts[0]), parse_extent(parts[1]))
        if shape not in shapes:
            shapes.append(shape)
    return shapes


def parse_dims(text):
    dims = []
    for item in text.split(","):
        if item.strip() not in ("0", "1", "-1", "-2"):
            raise argparse.ArgumentTypeError(f"invalid dim '{item}': a 2-D array has dims 0 and 1 (or -2 and -1)")
        d = int(item) % 2
        if d not in dims:
            dims.append(d)
    return dims


def parse_impls(text):
    impls = [i.strip() for i in text.split(",")]
    for i in impls:
        if i not in IMPLS:
            raise argparse.ArgumentTypeError(f"unknown impl '{i}' (known: {', '.join(IMPLS)})")
    return impls


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", help="write one row per measurement to this file")
    parser.add_argument("--ceiling-from", metavar="AXIS_CSV",
                        help="take the read ceiling from this `warpfold bench --axis --csv` file")
    parser.add_argument("--shape", type=parse_shapes, default=SHAPES, metavar="SHAPES",
                        help="comma list of ROWSxCOLS (default: the eight standard shapes)")
    parser.add_argument("--dims", type=parse_dims, default=DIMS, metavar="LIST", help="comma list of 0, 1 (default 1,0)")
    parser.add_argument("--impl", type=parse_impls, default=IMPLS, metavar="LIST",
                        help="warpfold, torch, cupy (default all three)")
    parser.add_argument("--sweep", action="store_true", help="full sums of 1 x 2^10 ... 2^30 floats, not the axis cases")
    parser.add_argument("--segments", action="store_true",
                        help="segmented sums (2^26 floats, mean lengths 1 to 2^20) instead of the axis cases")
    parser.add_argument("--all", action="store_true", help="the sweep, the axis cases and the segments, one CSV")
    parser.add_argument("--stream", choices=("current", "new"), default="current",
                        help="run on the framework's current stream (default: the legacy default stream) or on a "
                             "new non-blocking stream of the first framework, made current for every library")
    parser.add_argument("--trials", type=int, default=9, help="timed trials per measurement, at least 7 (default 9)")
    parser.add_argument("--batch-ms", type=float, default=1.0, help="minimum length of one timed batch (default 1)")
    parser.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    parser.add_argument("--columns", action="store_true", help="print the CSV header and exit (needs no GPU)")
    parser.add_argument("--cases", metavar="RANDOM_CSV",
                        help="time the cases of this `warpfold bench --axis --random K --csv` file instead "
                             "(strided N-D views in f32, f16, bf16 and i32; needs torch)")
    args = parser.parse_args(argv)
    args.parts = ["axis"]
    if args.cases:
        if args.all or args.sweep or args.segments:
            parser.error("--cases: not with --sweep, --segments or --all")
        if args.shape is not SHAPES or args.dims is not DIMS:
            parser.error("--cases: the file gives every shape and dim; leave out --shape and --dims")
        args.parts = ["cases"]
    elif args.all:
        args.parts = ["sweep", "axis", "segments"]
    elif args.sweep:
        args.parts = ["sweep"]
    elif args.segments:
        args.parts = ["segments"]
    if args.trials < 7:
        parser.error("--trials: at least 7")
    if not args.batch_ms > 0:
        parser.error("--batch-ms: must be positive")
    return args


def ceiling_of(row):
    """(GB/s, device) of a measured read_ceiling row of a bench CSV; None for any other row."""
    if row.get("impl") == "read_ceiling" and row.get("status") == "ok" and row.get("gbps"):
        return float(row["gbps"]), row.get("device", "")
    return None


def read_ceiling(path):
    """The read ceiling (GB/s) and device of a `warpfold bench --axis --csv` file."""
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if ceiling_of(row):
                return ceiling_of(row)
    sys.exit(f"warpfold.bench: {path} has no read_ceiling row (is it a `warpfold bench --axis --csv` file?)")


@dataclasses.dataclass(frozen=True)
class StridedSpec:
    """One case of a `warpfold bench --axis --random` CSV: a view of `shape` and `strides` (in
    elements) starting `offset` elements into a parent buffer of `parent` elements, summed over
    `dims`. cli_gbps and cli_status are the CLI's warpfold measurement of it."""
    number: int
    dtype: str          # f32, f16, bf16 or i32, as in the file
    shape: tuple
    strides: tuple
    offset: int
    parent: int
    dims: tuple
    view: str
    cli_gbps: float = None
    cli_status: str = ""

    @property
    def layout(self):  # what must agree between two rows of one case
        return self.dtype, self.shape, self.strides, self.offset, self.parent, self.dims, self.view

    @property
    def dtype_name(self):
        return CASE_DTYPES[self.dtype][0]

    @property
    def itemsize(self):
        return CASE_DTYPES[self.dtype][1]

    @property
    def is_float(self):
        return self.dtype != "i32"

    @property
    def elements(self):
        return math.prod(self.shape)

    @property
    def bytes_in(self):
        return self.elements * self.itemsize

    @property
    def kept_shape(self):
        return tuple(e for d, e in enumerate(self.shape) if d not in self.dims)

    @property
    def outputs(self):
        return math.prod(self.kept_shape)

    @property
    def reduced(self):
        return math.prod(self.shape[d] for d in self.dims)

    @property
    def shape_text(self):
        return "x".join(map(str, self.shape))

    @property
    def strides_text(self):
        return "x".join(map(str, self.strides))

    @property
    def dims_text(self):
        return ",".join(map(str, self.dims))

    @property
    def text(self):
        return (f"{self.dtype} {self.shape_text}, strides {self.strides_text}, offset {self.offset} "
                f"of {self.parent}, dims {self.dims_text} ({self.view}), {self.bytes_in / (1 << 20):.1f} MiB")


@dataclasses.dataclass
class CasesFile:
    cases: list                 # StridedSpec, in the file's order, each case once
    ceiling: float = None       # GB/s of its read_ceiling row, if it has one
    device: str = ""


CASES_FILE_COLUMNS = ("case", "impl", "dtype", "shape", "strides", "offset", "parent", "dims", "view")


def _count(text, what, least):
    """A whole number >= least written in decimal digits, or a ValueError naming `what`."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) < least:
        raise ValueError(f"{what} '{text}' is not a whole number >= {least}")
    return int(text)


def _counts(text, what, least):
    """The 'x'-joined whole numbers of a shape or strides column."""
    if not text.strip():
        raise ValueError(f"{what} is empty (a scalar has nothing to reduce)")
    return tuple(_count(part, f"{what} entry", least) for part in text.split("x"))


def parse_case_row(row):
    """The StridedSpec of one warpfold row of a random-bench CSV; a ValueError says what is wrong."""
    number = _count(row["case"], "case", 0)
    if row["dtype"] not in CASE_DTYPES:
        raise ValueError(f"dtype '{row['dtype']}' is not one of {', '.join(CASE_DTYPES)}")
    shape = _counts(row["shape"], "shape", 1)
    strides = _counts(row["strides"], "strides", 0)
    if len(strides) != len(shape):
        raise ValueError(f"strides '{row['strides']}' has {len(strides)} entries for the {len(shape)} extents "
                         f"of shape '{row['shape']}'")
    offset = _count(row["offset"], "offset", 0)
    parent = _count(row["parent"], "parent", 1)
    last = offset + sum((e - 1) * s for e, s in zip(shape, strides))
    if last >= parent:
        raise ValueError(f"the view reaches element {last}, past its parent of {parent} elements")
    if not row["dims"].strip():
        raise ValueError("dims is empty")
    dims = tuple(_count(d, "dim", 0) for d in row["dims"].split(","))
    for d in dims:
        if d >= len(shape):
            raise ValueError(f"dim {d} is out of range for rank {len(shape)}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"dims '{row['dims']}' lists a dim twice")
    gbps = row.get("gbps") or ""
    return StridedSpec(number, row["dtype"], shape, strides, offset, parent, dims, row["view"].strip(),
                       float(gbps) if gbps.strip() else None, row.get("status") or "")


def read_cases(path):
    """The cases of a `warpfold bench --axis --random K --csv` file: each case once, from its
    warpfold rows (the rows of other implementations are ignored), and the read ceiling of its
    read_ceiling row. A ValueError names the file, the line and what is wrong."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in CASES_FILE_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path} has no column {', '.join(missing)} "
                             "(is it a `warpfold bench --axis --random K --csv` file?)")
        found = CasesFile([])
        by_number = {}
        for row in reader:
            if ceiling_of(row) and found.ceiling is None:
                found.ceiling, found.device = ceiling_of(row)
            if row["impl"] != "warpfold":
                continue
            where = f"{path}, line {reader.line_num}"
            if None in row or None in row.values():  # too many or too few fields
                raise ValueError(f"{where}: {len(reader.fieldnames)} fields expected")
            try:
                spec = parse_case_row(row)
            except ValueError as e:
                raise ValueError(f"{where} (case {row['case'].strip() or '?'}): {e}") from None
            seen = by_number.get(spec.number)
            if seen is None:
                by_number[spec.number] = spec
                found.cases.append(spec)
            elif seen.layout != spec.layout:
                raise ValueError(f"{where}: case {spec.number} again, with another layout ({spec.text}; "
                                 f"first: {seen.text})")
    if not found.cases:
        raise ValueError(f"{path} has no warpfold rows: no cases to time")
    return found


# ---------------------------------------------------------------- the two libraries

class TorchBackend:
    name = "torch"

    def __init__(self, torch, device):
        self.torch = torch
        torch.cuda.set_device(device)
        self.version = torch.__version__
        self.device_name = torch.cuda.get_device_name(device)
        self.l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", None)

    def new_stream_context(self):
        return self.torch.cuda.stream(self.torch.cuda.Stream())

    def make_input(self, rows, cols, seed):
        g = self.torch.Generator(device="cuda").manual_seed(seed)
        return self.torch.rand((rows, cols), dtype=self.torch.float32, device="cuda", generator=g)

    def view(self, x):  # an array of the other library, zero copy
        return self.torch.from_dlpack(x)

    def empty(self, count):
        return self.torch.empty(count, dtype=self.torch.float32, device="cuda")

    def empty_of(self, shape, dtype):
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype), device="cuda")

    def sum_dtype(self, dtype):
        """The dtype torch.sum gives for elements of `dtype` (asked of torch itself, on the CPU)."""
        t = self.torch
        return str(t.sum(t.zeros(1, dtype=getattr(t, dtype))).dtype).replace("torch.", "")

    def make_parent(self, elements, dtype, seed):
        """A parent buffer of a --cases view: floats k/256 for integers k in [-256, 256), exact in
        float16 and bfloat16 too, or int32 in [-128, 128)."""
        t = self.torch
        g = t.Generator(device="cuda").manual_seed(seed)
        if dtype == "int32":
            return t.randint(-128, 128, (elements,), dtype=t.int32, device="cuda", generator=g)
        steps = t.randint(-256, 256, (elements,), dtype=t.int16, device="cuda", generator=g)
        return steps.to(getattr(t, dtype)).mul_(1.0 / 256)

    def strided(self, parent, shape, strides, offset):
        return self.torch.as_strided(parent, shape, strides, offset)

    def sum_into(self, x, dim, out):
        self.torch.sum(x, dim=dim, out=out)

    def call_text(self, dim):
        return f"torch.sum(x, dim={dim}, out=out)"

    def segments(self, x, offsets):
        return self.torch.segment_reduce(x, "sum", offsets=offsets)

    segments_text = 'torch.segment_reduce(x, "sum", offsets=offsets)'

    def segment_offsets(self, n, mean_length, seed):
        """Boundaries of segments whose lengths are uniform in [0, 2 * mean_length], covering
        at most n elements."""
        g = self.torch.Generator().manual_seed(seed)
        count = max(1, n // max(mean_length, 1))
        lengths = self.torch.randint(0, 2 * mean_length + 1, (count,), generator=g, dtype=self.torch.int64)
        offsets = self.torch.zeros(count + 1, dtype=self.torch.int64)
        offsets[1:] = self.torch.cumsum(lengths, 0)
        keep = int(self.torch.searchsorted(offsets, self.torch.tensor(n)).item())
        return offsets[:max(keep, 1)].cuda()

    def segment_reference(self, x, offsets):
        t = self.torch
        return (t.segment_reduce(x.double(), "sum", offsets=offsets),
                t.segment_reduce(x.double().abs(), "sum", offsets=offsets))

    def reference(self, x, dim):  # (sum, sum of magnitudes) in float64
        t = self.torch
        return t.sum(x, dim=dim, dtype=t.float64), t.sum(x.abs(), dim=dim, dtype=t.float64)

    def wrong_outputs(self, got, expected, tolerance):
        """(count of wrong outputs, index of the first, its expected value, its value)."""
        t = self.torch
        g = got.to(t.float64)
        bad = ~t.isfinite(g) | ((g - expected).abs() > tolerance)
        count = int(bad.sum().item())
        if count == 0:
            return 0, -1, 0.0, 0.0
        first = int(t.nonzero(bad)[0, 0].item())
        return count, first, float(expected[first].item()), float(g[first].item())

    def timer(self):
        return self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True)

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return start.elapsed_time(stop)

    def free(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class CupyBackend:
    name = "cupy"

    def __init__(self, cupy, device):
        self.cupy = cupy
        cupy.cuda.Device(device).use()
        self.version = cupy.__version__
        properties = cupy.cuda.runtime.getDeviceProperties(device)
        name = properties["name"]
        self.device_name = name.decode() if isinstance(name, bytes) else str(name)
        self.l2_bytes = properties.get("l2CacheSize")

    def new_stream_context(self):
        return self.cupy.cuda.Stream(non_blocking=True)

    def make_input(self, rows, cols, seed):
        return self.cupy.random.default_rng(seed).random((rows, cols), dtype=self.cupy.float32)

    def view(self, x):
        return self.cupy.from_dlpack(x)

    def empty(self, count):
        return self.cupy.empty(count, dtype=self.cupy.float32)

    def empty_of(self, shape, dtype):
        return self.cupy.empty(shape, dtype=dtype)

    def sum_dtype(self, dtype):
        """The dtype cupy.sum gives for elements of `dtype` (a TypeError for one cupy lacks)."""
        return self.cupy.sum(self.cupy.zeros(1, dtype=dtype)).dtype.name

    def sum_into(self, x, dim, out):
        self.cupy.sum(x, axis=dim, out=out)

    def call_text(self, dim):
        return f"cupy.sum(x, axis={dim}, out=out)"

    def reference(self, x, dim):
        cp = self.cupy
        return cp.sum(x, axis=dim, dtype=cp.float64), cp.sum(cp.abs(x), axis=dim, dtype=cp.float64)

    def wrong_outputs(self, got, expected, tolerance):
        cp = self.cupy
        g = got.astype(cp.float64)
        bad = ~cp.isfinite(g) | (cp.abs(g - expected) > tolerance)
        count = int(bad.sum())
        if count == 0:
            return 0, -1, 0.0, 0.0
        first = int(cp.flatnonzero(bad)[0])
        return count, first, float(expected[first]), float(g[first])

    def timer(self):
        return self.cupy.cuda.Event(), self.cupy.cuda.Event()

    def elapsed_ms(self, start, stop):
        stop.synchronize()
        return self.cupy.cuda.get_elapsed_time(start, stop)

    def free(self):
        self.cupy.cuda.runtime.deviceSynchronize()
        self.cupy.get_default_memory_pool().free_all_blocks()


class WarpfoldBackend:
    """warpfold through this package, on the arrays of a framework backend (torch or cupy),
    which also makes its outputs and times it."""
    name = "warpfold"

    def __init__(self, framework):
        from . import sum as warpfold_sum, version
        self.framework, self.sum = framework, warpfold_sum
        self.version = version()
        self.device_name, self.l2_bytes = framework.device_name, framework.l2_bytes

    def view(self, x):
        return x

    def empty(self, count):
        return self.framework.empty(count)

    def empty_of(self, shape, dtype):
        return self.framework.empty_of(shape, dtype)

    def sum_dtype(self, dtype):
        from ._library import result_dtype
        return result_dtype("sum", dtype)

    def sum_into(self, x, dim, out):
        self.sum(x, dim=dim, out=out)

    def call_text(self, dim):
        return f"warpfold.sum(x, dim={dim}, out=out) on {self.framework.name} arrays"

    def segments(self, x, offsets):
        from . import segment_sum
        return segment_sum(x, offsets)

    segments_text = "warpfold.segment_sum(x, offsets)"

    def timer(self):
        return self.framework.timer()

    def elapsed_ms(self, start, stop):
        return self.framework.elapsed_ms(start, stop)

    def free(self):
        self.framework.free()


def load_backends(impls, device):
    """The requested libraries that import and see a GPU, and a message for each that does not.
    The frameworks come first: the first one makes the inputs and checks every answer."""
    backends, problems = [], []
    for impl in [i for i in impls if i != "warpfold"]:
        try:
            module = __import__(impl)
        except ImportError as e:
            problems.append(f"{impl} is not installed ({e}); its rows are left out")
            continue
        try:
            backend = TorchBackend(module, device) if impl == "torch" else CupyBackend(module, device)
        except Exception as e:  # no CUDA build, no GPU, bad ordinal: whatever the library says
            problems.append(f"{impl} cannot use CUDA device {device} ({type(e).__name__}: {e}); its rows are left out")
            continue
        backends.append(backend)
    if "warpfold" in impls:
        if not backends:
            frameworks = [f for f in ("torch", "cupy") if f not in impls]
            more, _ = load_backends(frameworks, device) if frameworks else ([], [])
            framework = more[0] if more else None
        else:
            framework = backends[0]
        if framework is None:
            problems.append("warpfold needs torch or cupy to make its arrays; its rows are left out")
        else:
            try:
                backend = WarpfoldBackend(framework)
                if not backends:
                    backends.append(framework)  # checks answers; its own rows are left out
                    framework.hidden = True
                backends.append(backend)
            except Exception as e:  # the C library is missing, say
                problems.append(f"warpfold cannot run ({type(e).__name__}: {e}); its rows are left out")
    return backends, problems


# ---------------------------------------------------------------- measuring

def tolerance_scale(reduced):
    """The bench's float tolerance per unit of the sum of magnitudes (src/bench/reference.cpp)."""
    size = max(reduced, 1)
    return FLT_EPSILON * (2.0 * math.log2(size) + 2.0 * math.sqrt(size)) + FLT_EPSILON


def rotation_buffers(buffer_bytes, l2_bytes):
    """As the bench's: enough buffers for >= 4x L2 together, and never fewer than 2."""
    return max(2, -(-ROTATION_FACTOR * l2_bytes // buffer_bytes))


class Case:
    """One shape and dim: its input buffers (shared by every library), and for each buffer the
    reference and tolerance of every output. Calls take the buffers round robin."""

    def __init__(self, primary, backends, rows, cols, dim, l2_bytes):
        self.rows, self.cols, self.dim = rows, cols, dim
        self.primary = primary
        count = rotation_buffers(rows * cols * FLOAT_BYTES, l2_bytes)
        self.buffers = [primary.make_input(rows, cols, seed=(rows * 1000003 + cols) * 16 + k) for k in range(count)]
        self.inputs = {b.name: [x if b is primary else b.view(x) for x in self.buffers] for b in backends}
        self.expected, self.tolerance = [], []
        scale = tolerance_scale(self.reduced)
        for x in self.buffers:
            expected, abs_sum = primary.reference(x, dim)
            self.expected.append(expected)
            self.tolerance.append(abs_sum * scale)
        self.cursor = 0

    def call(self, backend, x, out):
        backend.sum_into(x, self.dim, out)

    def call_text(self, backend):
        return backend.call_text(self.dim)

    def empty(self, backend):  # the output every call of `backend` writes
        return backend.empty(self.outputs)

    @property
    def case_text(self):
        return f"sum {self.shape_text}" if self.rows == 1 else f"{self.shape_text} dim {self.dim}"

    def next_index(self):
        index = self.cursor
        self.cursor = (self.cursor + 1) % len(self.buffers)
        return index

    @property
    def outputs(self):
        return self.rows if self.dim == 1 else self.cols

    @property
    def reduced(self):
        return self.cols if self.dim == 1 else self.rows

    @property
    def shape_text(self):
        return f"{self.rows}x{self.cols}"

    def check(self, backend, out, buffer):
        """None when every output of `out`, a sum of buffer `buffer`, is right; else what is wrong."""
        got = out if backend is self.primary else self.primary.view(out)
        count, first, want, value = self.primary.wrong_outputs(got, self.expected[buffer], self.tolerance[buffer])
        if count == 0:
            return None
        return (f"{count} of {self.outputs} outputs wrong on buffer {buffer}; first, output {first}: "
                f"expected {want:.9g}, got {value:.9g}")


class SegmentCase:
    """Segmented sums of 2^26 floats whose lengths are uniform in [0, 2 * mean]: CSR offsets, one
    output per segment. The calls allocate their result (neither torch.segment_reduce nor
    warpfold.segment_sum takes out=); the same inputs and checks as Case otherwise."""

    def __init__(self, primary, backends, mean_length, l2_bytes, n=1 << 26):
        self.primary, self.mean_length = primary, mean_length
        self.offsets = primary.segment_offsets(n, mean_length, seed=mean_length)
        self.rows, self.cols, self.dim = 1, n, "-"
        self.segments = self.offsets.numel() - 1
        count = rotation_buffers(n * FLOAT_BYTES, l2_bytes)
        self.buffers = [primary.make_input(1, n, seed=977 * mean_length + k).view(-1) for k in range(count)]
        self.inputs = {b.name: self.buffers for b in backends}
        self.expected, self.tolerance = [], []
        scale = tolerance_scale(2 * mean_length)
        for x in self.buffers:
            expected, abs_sum = primary.segment_reference(x, self.offsets)
            self.expected.append(expected)
            self.tolerance.append(abs_sum * scale)
        self.cursor = 0

    def call(self, backend, x, out):
        return backend.segments(x, self.offsets)

    def call_text(self, backend):
        return backend.segments_text

    next_index = Case.next_index
    check = Case.check
    empty = Case.empty

    @property
    def outputs(self):
        return self.segments

    @property
    def shape_text(self):
        return f"segments mean {self.mean_length}"

    @property
    def case_text(self):
        return f"segments, mean length {self.mean_length}"

    @property
    def offset_bytes(self):  # the boundaries are read too
        return 8 * (self.segments + 1)


SEGMENT_MEANS = [1, 16, 64, 1024, 8192, 16384, 65536, 1048576]


class StridedCase:
    """A --cases case: its view (StridedSpec) into each of its own parent buffers, summed over
    its dims by every library into a result of that library's own dtype and of the kept dims'
    shape. The same rotation and checks as Case; the primary backend must be torch (it builds
    the views with as_strided). A library that cannot read the view's dtype (cupy has no
    bfloat16) is left out, with the reason in left_out."""

    def __init__(self, primary, backends, spec, l2_bytes):
        self.primary, self.spec, self.dim = primary, spec, spec.dims
        # Sized by the parent, as the CLI's pool is, so both rotate over the same buffers: and,
        # as there, one allocation with the parents 256 bytes apart, since a tiny parent needs
        # hundreds of thousands of them to fill 4x L2.
        pitch_bytes = -(-spec.parent * spec.itemsize // 256) * 256
        count = rotation_buffers(pitch_bytes, l2_bytes)
        pitch = pitch_bytes // spec.itemsize
        pool = primary.make_parent(count * pitch, spec.dtype_name, seed=spec.number * 1000003)
        self.buffers = [primary.strided(pool, spec.shape, spec.strides, k * pitch + spec.offset) for k in range(count)]
        self.inputs, self.result_dtypes, self.left_out = {}, {}, {}
        for b in backends:
            if getattr(b, "hidden", False):
                continue
            try:
                self.result_dtypes[b.name] = b.sum_dtype(spec.dtype_name)
                self.inputs[b.name] = [x if b is primary else b.view(x) for x in self.buffers]
            except Exception as e:  # whatever the library says about the dtype or the layout
                self.result_dtypes.pop(b.name, None)
                self.left_out[b.name] = f"{type(e).__name__}: {e}"
        self.scale = tolerance_scale(spec.reduced)
        self.references = {}  # buffer -> (expected, tolerance), made when a check first needs it
        self.cursor = 0

    def reference(self, buffer):
        if buffer not in self.references:
            # The float64 sum of int32 elements in [-128, 128) is exact: integer checks are exact.
            expected, abs_sum = self.primary.reference(self.buffers[buffer], self.dim)
            tolerance = abs_sum.reshape(-1) * self.scale if self.spec.is_float else 0.0
            self.references[buffer] = (expected.reshape(-1), tolerance)
        return self.references[buffer]

    def call(self, backend, x, out):
        backend.sum_into(x, self.dim, out)

    def call_text(self, backend):
        return backend.call_text(self.dim)

    def empty(self, backend):
        return backend.empty_of(self.spec.kept_shape, self.result_dtypes[backend.name])

    next_index = Case.next_index

    @property
    def outputs(self):
        return self.spec.outputs

    def check(self, backend, out, buffer):
        """None when every output of `out`, a sum of buffer `buffer`, is right; else what is wrong."""
        got = out if backend is self.primary else self.primary.view(out)
        expected, tolerance = self.reference(buffer)
        rounding = RESULT_ROUNDING.get(self.result_dtypes[backend.name])
        if rounding:
            tolerance = tolerance + rounding * abs(expected)
        count, first, want, value = self.primary.wrong_outputs(got.reshape(-1), expected, tolerance)
        if count == 0:
            return None
        return (f"{count} of {self.outputs} outputs wrong on buffer {buffer}; first, output {first} (row-major "
                f"over the kept dims): expected {want:.9g}, got {value:.9g}")


class Session:
    """One library on one case, stage by stage like the bench's timing_session."""

    def __init__(self, backend, case, trials, batch_ms):
        self.backend, self.case = backend, case
        self.trials, self.min_batch_us = trials, batch_ms * 1000.0
        self.inputs = case.inputs[backend.name]
        self.last = -1  # the buffer of the last call
        self.out = case.empty(backend)
        self.start_event, self.stop_event = backend.timer()
        self.batch = 0
        self.times = []
        self.error = None
        self.checks = 0

    def _call(self, buffer):
        self.last = buffer
        result = self.case.call(self.backend, self.inputs[buffer], self.out)
        if result is not None:
            self.out = result

    def _time(self, calls):
        self.start_event.record()
        for _ in range(calls):
            self._call(self.case.next_index())
        self.stop_event.record()
        return self.backend.elapsed_ms(self.start_event, self.stop_event) * 1000.0

    def _check(self):
        self.checks += 1
        self.error = self.case.check(self.backend, self.out, self.last)
        return self.error is None

    @staticmethod
    def _batch_for(per_call_us, min_batch_us):
        if not per_call_us > 0:
            return MAX_BATCH
        return max(1, min(MAX_BATCH, math.ceil(min_batch_us / per_call_us)))

    def start(self):
        for _ in range(WARMUP_CALLS):
            self._time(1)
            if not self._check():
                return False
        batch = self._batch_for(self._time(1), self.min_batch_us)
        if batch > 1:
            batch = self._batch_for(self._time(batch) / batch, self.min_batch_us)
        self.batch = batch
        return self._check()

    def trial(self):
        # One untimed call first: the GPU idled while the last answer was checked, and a batch
        # that starts on an idle GPU runs slower (up to 5% at 2^28-2^30 floats, H100).
        self._call(self.case.next_index())
        self.times.append(self._time(self.batch) / self.batch)
        return self._check()

    def finish(self):
        """One more call on up to VERIFY_BUFFERS buffers spread over the rotation, each checked."""
        count = len(self.inputs)
        verify = min(VERIFY_BUFFERS, count)
        for v in range(verify):
            self._call(v * count // verify)
            if not self._check():
                return False
        return True


def cases(args, primary, backends, l2_bytes):
    """The cases of the requested parts, made one at a time (each holds its inputs)."""
    for part in args.parts:
        if part == "segments":
            if not hasattr(primary, "segment_offsets"):
                print("warpfold.bench: segments need torch (for the offsets and the reference); left out",
                      file=sys.stderr)
                continue
            for mean in SEGMENT_MEANS:
                yield SegmentCase(primary, backends, mean, l2_bytes)
            continue
        shapes, dims = (SWEEP_SHAPES, [1]) if part == "sweep" else (args.shape, args.dims)
        for rows_, cols in shapes:
            for dim in dims:
                yield Case(primary, backends, rows_, cols, dim, l2_bytes)


def case_fits(case, backend):
    """CuPy has no segmented reduction with arbitrary offsets: its rows are left out there. A
    --cases case times only the libraries that can read its view, and not the framework that
    only makes warpfold's arrays."""
    if isinstance(case, StridedCase):
        return backend.name in case.inputs
    return not isinstance(case, SegmentCase) or hasattr(backend, "segments")


def measure_case(backends, case, args):
    """Every library on one case, trials interleaved round robin. Returns {name: Session}."""
    sessions = {}
    running = []
    for b in backends:
        s = Session(b, case, args.trials, args.batch_ms)
        sessions[b.name] = s
        if run_stage(s, s.start):
            running.append(s)
    for _ in range(args.trials):
        for s in list(running):
            if not run_stage(s, s.trial):
                running.remove(s)
    for s in list(running):
        run_stage(s, s.finish)
    return sessions


def run_stage(session, stage):
    try:
        return stage()
    except Exception as e:
        session.error = f"{type(e).__name__}: {e}"
        return False


def row_of(session, ceiling):
    case, b = session.case, session.backend
    bytes_in = case.rows * case.cols * FLOAT_BYTES + getattr(case, "offset_bytes", 0)
    bytes_out = case.outputs * FLOAT_BYTES
    row = dict.fromkeys(COLUMNS, "")
    row.update(impl=b.name, case=case.case_text, dtype="f32", shape=case.shape_text, dims=str(case.dim), bytes_in=bytes_in,
               bytes_out=bytes_out, device=b.device_name, family="framework", n=case.rows * case.cols,
               bytes=bytes_in + bytes_out, buffers=len(case.buffers))
    return with_measurement(row, session, ceiling)


def with_measurement(row, session, ceiling):
    """`row`, whose bytes are filled in, with the timing columns of `session` and its status."""
    case, b = session.case, session.backend
    row.update(trials=len(session.times), batch=session.batch)
    if ceiling:
        row["ceiling_gbps"] = f"{ceiling:.2f}"
    if session.error is not None:
        row.update(status="FAILED", note=session.error)
        return row
    median = statistics.median(session.times)
    gbps = row["bytes"] / (median * 1e-6) / 1e9
    row.update(time_us=f"{median:.3f}", time_min_us=f"{min(session.times):.3f}",
               time_max_us=f"{max(session.times):.3f}", gbps=f"{gbps:.2f}", status="ok",
               note=f"{b.name} {b.version}, {case.call_text(b)}, {STREAM_NOTE}")
    if ceiling:
        row["pct_of_ceiling"] = f"{100.0 * gbps / ceiling:.2f}"
    return row


def strided_row(spec, backend, result_dtype, ceiling, buffers=""):
    """The identity and byte columns of a --cases row: bytes_out counts the outputs in the result
    dtype of `backend` (unknown, so left empty, where it cannot read the case)."""
    row = dict.fromkeys(CASES_COLUMNS, "")
    row.update(case=spec.number, impl=CASE_IMPL_NAMES.get(backend.name, backend.name), dtype=spec.dtype,
               shape=spec.shape_text, strides=spec.strides_text, offset=spec.offset, parent=spec.parent,
               dims=spec.dims_text, view=spec.view, bytes_in=spec.bytes_in, device=backend.device_name,
               family="framework", n=spec.elements, buffers=buffers)
    if result_dtype:
        row["bytes_out"] = spec.outputs * ITEM_BYTES[result_dtype]
        row["bytes"] = spec.bytes_in + row["bytes_out"]
    if ceiling:
        row["ceiling_gbps"] = f"{ceiling:.2f}"
    return row


def strided_row_of(session, ceiling):
    case, b = session.case, session.backend
    row = strided_row(case.spec, b, case.result_dtypes[b.name], ceiling, buffers=len(case.buffers))
    return with_measurement(row, session, ceiling)


def print_row(row, label=None, impl_width=8):
    label = row["case"] if label is None else label
    if row["status"] != "ok":
        print(f"{label:>28}  {row['impl']:<{impl_width}}  FAILED: {row['note']}", flush=True)
        return
    pct = f"  {float(row['pct_of_ceiling']):5.1f}% of read" if row["pct_of_ceiling"] else ""
    print(f"{label:>28}  {row['impl']:<{impl_width}}  {float(row['time_us']):9.1f} us  "
          f"({float(row['time_min_us']):.1f}-{float(row['time_max_us']):.1f})  {float(row['gbps']):7.1f} GB/s{pct}",
          flush=True)


def summary_lines(rows, ceiling, min_bytes=SUMMARY_MIN_BYTES):
    """A heading, then the worst and median share of the read ceiling (GB/s without one) of each
    impl, in the order of first appearance, over its ok rows that read at least min_bytes."""
    unit, of = ("%", " of the read ceiling") if ceiling else (" GB/s", "")
    lines = [f"the cases that read {min_bytes >> 20} MiB or more:"]
    for impl in dict.fromkeys(r["impl"] for r in rows):
        big = [r for r in rows if r["impl"] == impl and int(r["bytes_in"]) >= min_bytes]
        values = [float(r["gbps"]) * (100.0 / ceiling if ceiling else 1.0) for r in big if r["status"] == "ok"]
        failed = f", {len(big) - len(values)} FAILED left out" if len(big) > len(values) else ""
        if not values:
            lines.append(f"  {impl}: none measured{failed}")
            continue
        lines.append(f"  {impl}: worst {min(values):.1f}{unit}, median {statistics.median(values):.1f}{unit}{of} "
                     f"({len(values)} case{'' if len(values) == 1 else 's'}{failed})")
    return lines


def write_csv(path, rows, columns=None):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns or COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def measure_strided_cases(found, args, primary, backends, l2_bytes, ceiling, rows):
    """--cases: every case of `found` (a CasesFile) on every library; its rows go to `rows`."""
    shown = [b for b in backends if not getattr(b, "hidden", False)]
    width = max(len(CASE_IMPL_NAMES.get(b.name, b.name)) for b in shown)
    for spec in found.cases:
        label = f"case {spec.number}"
        print(f"{label}: {spec.text}", flush=True)
        try:
            case = StridedCase(primary, backends, spec, l2_bytes)
        except Exception as e:  # out of memory, say: every library's row says so
            for b in shown:
                try:
                    result_dtype = b.sum_dtype(spec.dtype_name)
                except Exception:
                    result_dtype = None
                row = strided_row(spec, b, result_dtype, ceiling)
                row.update(status="FAILED", note=f"setting the case up: {type(e).__name__}: {e}")
                print_row(row, label, width)
                rows.append(row)
            for b in backends:
                b.free()
            continue
        for name, why in case.left_out.items():
            print(f"{label:>28}  {CASE_IMPL_NAMES.get(name, name):<{width}}  left out: it cannot read this view ({why})",
                  flush=True)
        sessions = measure_case([b for b in backends if case_fits(case, b)], case, args)
        for b in shown:
            if b.name in sessions:
                row = strided_row_of(sessions[b.name], ceiling)
                print_row(row, label, width)
                rows.append(row)
        del case, sessions
        for b in backends:
            b.free()


STREAM_NOTE = "current stream"


def main(argv):
    global STREAM_NOTE
    args = parse_args(argv)
    STREAM_NOTE = "current stream" if args.stream == "current" else "a new non-blocking stream"
    if args.columns:
        print(",".join(CASES_COLUMNS if args.cases else COLUMNS))
        return 0
    found = None
    if args.cases:
        try:
            found = read_cases(args.cases)
        except (OSError, ValueError) as e:
            sys.exit(f"warpfold.bench: {e}")
    ceiling, ceiling_device = read_ceiling(args.ceiling_from) if args.ceiling_from else (None, "")
    ceiling_source = args.ceiling_from
    if found and not ceiling and found.ceiling:
        ceiling, ceiling_device, ceiling_source = found.ceiling, found.device, args.cases

    impls = args.impl
    if found:  # torch builds the views: it comes first, and only makes them when not asked for
        impls = ["torch"] + [i for i in args.impl if i != "torch"]
    backends, problems = load_backends(impls, args.device)
    if found:
        if not backends or backends[0].name != "torch":
            for problem in problems:
                print(f"warpfold.bench: {problem}", file=sys.stderr)
            print("warpfold.bench: --cases needs torch on a CUDA GPU (it builds the views with torch.as_strided)",
                  file=sys.stderr)
            return 1
        if "torch" not in args.impl:
            backends[0].hidden = True
    for b in backends:
        print(f"warpfold.bench: {b.name} {b.version} on {b.device_name}", flush=True)
    for problem in problems:
        print(f"warpfold.bench: {problem}", file=sys.stderr)
    if not backends:
        print("warpfold.bench: neither torch nor cupy can run here: needs python3 with torch or cupy on a CUDA GPU "
              "(warpfold from Python needs one of them too)",
              file=sys.stderr)
        return 1
    if ceiling and ceiling_device and ceiling_device != backends[0].device_name:
        print(f"warpfold.bench: note: the ceiling comes from {ceiling_device}, this is {backends[0].device_name}",
              file=sys.stderr)
    if ceiling:
        print(f"warpfold.bench: read ceiling {ceiling:.1f} GB/s (from {ceiling_source})", flush=True)

    primary = backends[0]
    l2_bytes = next((b.l2_bytes for b in backends if b.l2_bytes), None)
    if not l2_bytes:
        l2_bytes = ASSUMED_L2_BYTES
        print(f"warpfold.bench: note: the L2 size is unknown; rotating inputs as if it were {l2_bytes >> 20} MiB",
              file=sys.stderr)
    rows = []
    stream_context = primary.new_stream_context() if args.stream == "new" else contextlib.nullcontext()
    try:
        with stream_context:
            if found:
                measure_strided_cases(found, args, primary, backends, l2_bytes, ceiling, rows)
            else:
                for case in cases(args, primary, backends, l2_bytes):
                    sessions = measure_case([b for b in backends if case_fits(case, b)], case, args)
                    for b in backends:
                        if getattr(b, "hidden", False) or b.name not in sessions:
                            continue
                        row = row_of(sessions[b.name], ceiling)
                        print_row(row)
                        rows.append(row)
                    del case, sessions
                    for b in backends:
                        b.free()
    finally:
        if args.csv:  # whatever was measured, also when something threw
            write_csv(args.csv, rows, CASES_COLUMNS if found else COLUMNS)
    if found:
        # The CLI's own warpfold rows of the file, beside this run's, against the same ceiling.
        cli = [{"impl": "warpfold (the CLI, from the file)", "bytes_in": spec.bytes_in, "gbps": spec.cli_gbps,
                "status": "ok" if spec.cli_status == "ok" and spec.cli_gbps is not None else "FAILED"}
               for spec in found.cases]
        for line in summary_lines(rows + cli, ceiling):
            print(f"warpfold.bench: {line}", flush=True)
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        print(f"warpfold.bench: FAILED: {len(failed)} wrong answer(s) (see above); exit status 1", file=sys.stderr)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
