#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (CUDA toolkit in /usr/local/cuda optional):
#   tools/setup.sh run    install what is missing, build, run jobs/default.toml
#   tools/setup.sh test   install what is missing, build, run every test
# Extra arguments after `run` go to `zkbatch run` (e.g. --set job.partitions=2).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  run|test) shift ;;
  *) echo "usage: tools/setup.sh run|test [zkbatch run arguments]" >&2; exit 2 ;;
esac

# Debian packages zkbatch builds and tests with. Keep in step with the README.
packages=(
  build-essential cmake ninja-build pkg-config git python3
  libsqlite3-dev sqlite3 libboost-dev libboost-filesystem-dev libtomlplusplus-dev
  libspdlog-dev libfmt-dev libcli11-dev libxxhash-dev libssl-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgmp-dev
  # tests/report opens `zkbatch report`'s page in a real headless browser
  chromium
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir=${ZKBATCH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKBATCH_WERROR=ON
cmake --build "$build_dir" --parallel "$(nproc)"

if [ "$mode" = run ]; then
  exec "$build_dir/zkbatch" run jobs/default.toml "$@"
else
  ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)"
fi
