"""The build backend behind `pip install .` (PEP 517, named in pyproject.toml).

Why a backend of our own: pip fetches a project's build requirements from a package index,
and none is reachable on the machines we build on. This backend needs nothing beyond the
standard library: it builds libwarpfold_c.so with CMake (or takes one already built in
./build), and writes a wheel holding the Python package and that library.
"""
import base64
import hashlib
import os
import pathlib
import subprocess
import zipfile

NAME = "warpfold"
VERSION = "0.3.0"
ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = "libwarpfold_c.so"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def _library():
    named = os.environ.get("WARPFOLD_LIBRARY")
    if named:
        return pathlib.Path(named)
    # The project's own build (scripts/setup-and-bench makes ./build) if there is one, so the
    # kernels are not compiled twice; otherwise a build of the library alone.
    build = pathlib.Path(os.environ.get("WARPFOLD_BUILD_DIR", ROOT / "build"))
    if not (build / "CMakeCache.txt").is_file():
        build = ROOT / "build-python"
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DWARPFOLD_BUILD_CLI=OFF", "-DWARPFOLD_BUILD_TESTS=OFF"], check=True)
    subprocess.run(["cmake", "--build", str(build), "--target", "warpfold_c", "-j", str(os.cpu_count() or 2)],
                   check=True)
    return build / "src" / "capi" / LIBRARY


def _metadata():
    readme = (ROOT / "python" / "README.md").read_text()
    return ("Metadata-Version: 2.1\nName: " + NAME + "\nVersion: " + VERSION + "\n"
            "Summary: GPU reductions for torch, CuPy, JAX and any CUDA array\n"
            "Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n" + readme)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return name + ",sha256=" + digest + "," + str(len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tag = "py3-none-linux_x86_64"
    wheel_name = NAME + "-" + VERSION + "-" + tag + ".whl"
    dist_info = NAME + "-" + VERSION + ".dist-info"
    files = {}
    for source in sorted((ROOT / "python" / NAME).glob("*.py")):
        files[NAME + "/" + source.name] = source.read_bytes()
    files[NAME + "/" + LIBRARY] = _library().read_bytes()
    files[dist_info + "/METADATA"] = _metadata().encode()
    files[dist_info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: warpfold_build\nRoot-Is-Purelib: false\nTag: " + tag +
                                   "\n").encode()
    record = [_record_line(name, data) for name, data in files.items()] + [dist_info + "/RECORD,,"]
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    path = pathlib.Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    raise NotImplementedError("warpfold: build from the source tree (pip install .); there is no source distribution")
