#!/usr/bin/env python3
"""scripts/compare-bits on the committed H100 and H200 runs (they must match), and on copies
changed in one result's bits or one input's hash (it must fail)."""
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

root = Path(sys.argv[1])
script = root / "scripts" / "compare-bits"
h100, h200 = root / "docs/results/H100/bits.csv", root / "docs/results/H200/bits.csv"


def run(a, b):
    return subprocess.run([sys.executable, str(script), str(a), str(b)], capture_output=True, text=True).returncode


def changed_copy(directory, column, mode):
    rows = list(csv.DictReader(open(h200, newline="")))
    row = next(r for r in rows if r["mode"] == mode and r["n"] != "1")
    row[column] = format(int(row[column], 16) ^ 1, "0%dx" % len(row[column]))
    path = Path(directory) / f"changed-{column}-{mode}.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


failures = []
if run(h100, h200) != 0:
    failures.append("the committed H100 and H200 bits differ")
with tempfile.TemporaryDirectory() as d:
    for column, mode in [("bits", "exact"), ("bits", "reproducible"), ("input_hash", "exact")]:
        if run(h100, changed_copy(d, column, mode)) != 1:
            failures.append(f"a change of {column} in a {mode} row was not reported")
    if run(h100, changed_copy(d, "bits", "default")) != 0:
        failures.append("a difference in the default sum failed the comparison (it may differ across GPUs)")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
