#!/usr/bin/env bash
# Installs what tabiya's build and tests need when it is missing, then returns.
# Needs: a Rust toolchain (rustup) with rustfmt and clippy, a C compiler (zstd), libclang
# (bindgen, for the rocksdb crate), for the browser tests (reports and the explorer page
# opened as a person sees them) Chromium with chromedriver, for the Python package's tests
# Python 3.9+ with venv and pip, for the Spark tests (a standalone cluster on 127.0.0.1) Java 17
# and, for the load-balancer test, nginx.
# On Debian/Ubuntu as root (or with sudo) it installs them with apt-get; elsewhere it says what to
# install.
set -euo pipefail

missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
# libclang itself, not libclang-cpp (which some toolchains ship alone).
have_libclang() {
  [ -n "${LIBCLANG_PATH:-}" ] && return 0
  ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so' && return 0
  compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null || compgen -G '/usr/lib/llvm-*/lib/libclang-[0-9]*.so*' >/dev/null
}
have_libclang || missing+=(libclang-dev clang)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium chromium-driver fonts-dejavu-core)
# The Python package's tests: Python 3.9 or later that can make a virtual environment with pip
# (Debian ships venv's pip apart, in python3-venv).
can_make_venv() {
  local dir status
  dir=$(mktemp -d)
  python3 -m venv "$dir/venv" >/dev/null 2>&1 && "$dir/venv/bin/python" -m pip --version >/dev/null 2>&1
  status=$?
  rm -rf "$dir"
  return $status
}
if ! command -v python3 >/dev/null 2>&1; then
  missing+=(python3 python3-venv python3-pip)
elif ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || ! can_make_venv; then
  missing+=(python3-venv python3-pip)
fi

# The replicas' test puts Debian's nginx in front of two servers.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
# Spark 4 runs on Java 17 or later.
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  missing+=(openjdk-17-jre-headless)
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "tabiya: cargo not found: install the Rust toolchain first (https://rustup.rs)" >&2
  exit 1
fi
# The test command checks formatting and lints: rustup's rustfmt and clippy components.
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    echo "tabiya: adding the Rust toolchain's $component component" >&2
    rustup component add "$component" >/dev/null || {
      echo "tabiya: cannot add $component: run 'rustup component add $component'" >&2
      exit 1
    }
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "tabiya: installing build dependencies: ${missing[*]}" >&2
if ! command -v apt-get >/dev/null 2>&1; then
  echo "tabiya: no apt-get here: install ${missing[*]} (or your system's equivalents) and retry" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "tabiya: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "tabiya: build dependencies installed" >&2
