# Sourced by the other scripts: finds the CUDA toolkit and picks build settings.
# shellcheck shell=bash

# nvcc is often not on PATH (CUDA lives in /usr/local/cuda); CMake needs it.
warpfold_cuda_env() {
  if ! command -v nvcc >/dev/null 2>&1; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
      if [ -x "$dir/nvcc" ]; then
        export PATH="$dir:$PATH"
        break
      fi
    done
  fi
  if ! command -v nvcc >/dev/null 2>&1; then
    echo "error: nvcc not found (install the CUDA toolkit, or put its bin/ on PATH)" >&2
    return 1
  fi
  export CUDACXX="${CUDACXX:-$(command -v nvcc)}"
}

# Ninja when it is installed, else CMake's default generator.
warpfold_generator_args() {
  if command -v ninja >/dev/null 2>&1; then echo "-G Ninja"; fi
}

warpfold_jobs() { nproc 2>/dev/null || echo 2; }

# Installs the Debian/Ubuntu packages of scripts/apt-packages (with sudo unless root),
# skipping apt entirely when they are all installed already.
warpfold_install_packages() {
  local root list missing=()
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  mapfile -t list < <(grep -v '^[[:space:]]*\(#\|$\)' "$root/scripts/apt-packages")
  for p in "${list[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "packages: all installed"
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "packages: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# On the GPU machine: scripts/build-gpu-bundle ships its binaries gzipped (.gpu/NAME.gz), to
# keep what is copied there small; this restores .gpu/NAME from each, once.
warpfold_unpack_bundle() {
  local root gz
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  for gz in "$root"/.gpu/*.gz; do
    [ -e "$gz" ] || continue
    [ -x "${gz%.gz}" ] || { gunzip -c "$gz" >"${gz%.gz}" && chmod +x "${gz%.gz}"; } || return 1
  done
}
