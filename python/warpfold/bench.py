"""python -m warpfold.bench: times warpfold (through this package), torch.sum and cupy.sum, side
by side in one process, on the axis cases of `warpfold bench --axis` and, with --sweep, on
full-array sums of 2^10 to 2^30 floats.

  python -m warpfold.bench                          # the axis cases, every implementation
  python -m warpfold.bench --sweep --csv sweep.csv   # full sums
  python -m warpfold.bench --shape 8192x8192 --dims 0 --impl warpfold,torch

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

The CSV has the columns of `warpfold bench --axis --csv` (impl=warpfold-python, torch or
cupy). GB/s counts bytes read plus bytes written. ceiling_gbps and pct_of_ceiling are filled
in from the read ceiling of --ceiling-from (a `warpfold bench --axis --csv` file of the same
machine and run), and left empty without it. Needs torch and/or cupy on a CUDA GPU (warpfold
needs one of them to make its arrays); a missing library is reported and the exit status is
non-zero, but the others still run.
Exit status: 0 when every requested implementation ran and every answer was right.
"""

import argparse
import contextlib
import csv
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
    args = parser.parse_args(argv)
    args.parts = ["axis"]
    if args.all:
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


def read_ceiling(path):
    """The read ceiling (GB/s) and device of a `warpfold bench --axis --csv` file."""
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("impl") == "read_ceiling" and row.get("status") == "ok" and row.get("gbps"):
                return float(row["gbps"]), row.get("device", "")
    sys.exit(f"warpfold.bench: {path} has no read_ceiling row (is it a `warpfold bench --axis --csv` file?)")


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


class Session:
    """One library on one case, stage by stage like the bench's timing_session."""

    def __init__(self, backend, case, trials, batch_ms):
        self.backend, self.case = backend, case
        self.trials, self.min_batch_us = trials, batch_ms * 1000.0
        self.inputs = case.inputs[backend.name]
        self.last = -1  # the buffer of the last call
        self.out = backend.empty(case.outputs)
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
    """CuPy has no segmented reduction with arbitrary offsets: its rows are left out there."""
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
               bytes=bytes_in + bytes_out, trials=len(session.times), batch=session.batch,
               buffers=len(case.buffers))
    if ceiling:
        row["ceiling_gbps"] = f"{ceiling:.2f}"
    if session.error is not None:
        row.update(status="FAILED", note=session.error)
        return row
    median = statistics.median(session.times)
    gbps = (bytes_in + bytes_out) / (median * 1e-6) / 1e9
    row.update(time_us=f"{median:.3f}", time_min_us=f"{min(session.times):.3f}",
               time_max_us=f"{max(session.times):.3f}", gbps=f"{gbps:.2f}", status="ok",
               note=f"{b.name} {b.version}, {case.call_text(b)}, {STREAM_NOTE}")
    if ceiling:
        row["pct_of_ceiling"] = f"{100.0 * gbps / ceiling:.2f}"
    return row


def print_row(row):
    if row["status"] != "ok":
        print(f"{row['case']:>28}  {row['impl']:<8}  FAILED: {row['note']}", flush=True)
        return
    pct = f"  {float(row['pct_of_ceiling']):5.1f}% of read" if row["pct_of_ceiling"] else ""
    print(f"{row['case']:>28}  {row['impl']:<8}  {float(row['time_us']):9.1f} us  "
          f"({float(row['time_min_us']):.1f}-{float(row['time_max_us']):.1f})  {float(row['gbps']):7.1f} GB/s{pct}",
          flush=True)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


STREAM_NOTE = "current stream"


def main(argv):
    global STREAM_NOTE
    args = parse_args(argv)
    STREAM_NOTE = "current stream" if args.stream == "current" else "a new non-blocking stream"
    if args.columns:
        print(",".join(COLUMNS))
        return 0
    ceiling, ceiling_device = read_ceiling(args.ceiling_from) if args.ceiling_from else (None, "")

    backends, problems = load_backends(args.impl, args.device)
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
        print(f"warpfold.bench: read ceiling {ceiling:.1f} GB/s (from {args.ceiling_from})", flush=True)

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
        if args.csv:
            write_csv(args.csv, rows)  # whatever was measured, also when something threw
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        print(f"warpfold.bench: FAILED: {len(failed)} wrong answer(s) (see above); exit status 1", file=sys.stderr)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
