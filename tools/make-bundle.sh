#!/usr/bin/env bash
# Builds a self-contained Release bundle of zkbatch with the CUDA backends, for a GPU
# machine that has the NVIDIA driver but none of our build dependencies:
#
#   tools/make-bundle.sh            -> .bundle/ (git-ignored), about 60 MiB
#   BUNDLE_BUILD_DIR=build tools/make-bundle.sh
#                                   the same from an existing Release tree (without
#                                   ZKBATCH_CUDA_OUTLINE: a bundle is for measuring) configured with
#                                   the CUDA backends (no reconfiguration, so a -Werror tree
#                                   stays one; its targets are built incrementally)
#
#   .bundle/bin/zkbatch             the runner
#   .bundle/plugins/*.so            cpu-ref, cuda-pinned, cuda-pageable (cudart linked statically)
#   .bundle/tests/gpu_tests         the GPU suite (finds ../plugins itself)
#   .bundle/tests/math_tests        the field/NTT/quotient suite (needs nothing else)
#   .bundle/bin/ntt_kernel_bench    the NTT kernel benchmark (bench/ntt_kernel_bench.cu)
#   .bundle/bin/msm_kernel_bench    the MSM kernel benchmark (bench/msm_kernel_bench.cu)
#   .bundle/bin/copy_overlap_bench  whether uploads and downloads overlap (bench/copy_overlap_bench.cu)
#   .bundle/bin/fp_product_bench    Fp products on the integer and FP64 pipes (bench/fp_product_bench.cu)
#   .bundle/lib/                    the shared libraries those need (see below)
#   .bundle/jobs/                   the example manifests
#   .bundle/env.sh                  `source .bundle/env.sh` sets LD_LIBRARY_PATH and ZKBATCH_PLUGIN_PATH
#
# On the GPU host, from the repository root: tools/gpu-bench.sh OUT_DIR [STEP...] (the GPU
# suite, the benchmarks and whole proofs; docs/performance.md).
#
# Libraries: everything `ldd` lists except glibc's own (libc, libm, libpthread, libdl,
# librt, libresolv, ld-linux, linux-vdso): glibc must match the target's loader, and a
# newer glibc (Ubuntu 24.04 has 2.39, we build on 2.36) runs our binaries. libstdc++
# and libgcc_s ARE bundled: our binaries then run with the runtime they were built
# against even on an older target, and on a newer one they are simply preferred to the
# system's (backward-compatible) copies. libcuda is never bundled: cudart_static opens
# the driver's own at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUNDLE_BUILD_DIR:-build-bundle}
bundle=.bundle
jobs=${JOBS:-$(nproc)}

if [ -z "${BUNDLE_BUILD_DIR:-}" ]; then
  # Warnings are not errors here: the warning-free gate is the CI build; GCC 12 at -O3
  # reports false positives (-Wrestrict in std::string) that -O2 does not.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKBATCH_CUDA=ON -DZKBATCH_WERROR=OFF \
    -DZKBATCH_BENCHMARKS=ON >/dev/null
elif ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt" || [ ! -d "$build/gpu" ]; then
  echo "make-bundle: $build is not a Release tree with the CUDA backends" >&2
  exit 1
elif grep -q '^ZKBATCH_CUDA_OUTLINE:BOOL=ON$' "$build/CMakeCache.txt"; then
  # A bundle is for measuring: outlined field products make the MSMs about twice as slow.
  echo "make-bundle: $build has ZKBATCH_CUDA_OUTLINE=ON (slower kernels, for quick builds):" \
    "reconfigure it with -DZKBATCH_CUDA_OUTLINE=OFF, or leave BUNDLE_BUILD_DIR unset" >&2
  exit 1
fi
# An object whose dependency record is empty (its compile was interrupted, say) would not
# be rebuilt when the headers it includes change: a kernel file kept from an older
# revision beside newer code, whose classes then disagree on their layout. Such objects
# are rebuilt.
if [ -f "$build/.ninja_deps" ]; then
  ninja -C "$build" -t deps | awk '/: #deps 0,/ {sub(/:$/, "", $1); print $1}' | while read -r object; do
    echo "make-bundle: $object has no dependency record: rebuilding it" >&2
    rm -f "$build/$object"
  done
fi
ninja -C "$build" -j "$jobs" zkbatch zkbatch-cpu-ref zkbatch-cuda-pinned zkbatch-cuda-pageable gpu_tests math_tests \
  ntt_kernel_bench msm_kernel_bench copy_overlap_bench fp_product_bench

rm -rf "$bundle"
mkdir -p "$bundle"/{bin,plugins,tests,lib}
install -m 755 "$build/zkbatch" "$bundle/bin/"
install -m 755 "$build"/plugins/libzkbatch-*.so "$bundle/plugins/"
install -m 755 "$build/gpu_tests" "$build/math_tests" "$bundle/tests/"
install -m 755 "$build/ntt_kernel_bench" "$build/msm_kernel_bench" "$build/copy_overlap_bench" \
  "$build/fp_product_bench" "$bundle/bin/"
cp -r jobs "$bundle/jobs"
strip --strip-unneeded "$bundle"/bin/* "$bundle"/plugins/*.so "$bundle"/tests/*

# Every non-glibc library any of our binaries needs, resolved on this machine.
glibc='^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux-x86-64)\.so'
for binary in "$bundle"/bin/* "$bundle"/plugins/*.so "$bundle"/tests/*; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ $name =~ $glibc ]]; then continue; fi
  cp -L "$path" "$bundle/lib/$name"
done

cat >"$bundle/env.sh" <<'ENV'
# source .bundle/env.sh: run the bundled zkbatch with its libraries and plugins.
bundle_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH=$bundle_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ZKBATCH_PLUGIN_PATH=$bundle_dir/plugins
ENV

# The bundle must stand on its own: nothing unresolved with only its lib/ added.
missing=$(for binary in "$bundle"/bin/* "$bundle"/plugins/*.so "$bundle"/tests/*; do
  LD_LIBRARY_PATH=$bundle/lib ldd "$binary" | grep 'not found' | sed "s|^|$binary: |" || true
done)
if [ -n "$missing" ]; then
  echo "make-bundle: unresolved libraries:" >&2
  echo "$missing" >&2
  exit 1
fi

size_mib=$(du -sm "$bundle" | cut -f1)
echo "make-bundle: $bundle is ${size_mib} MiB:"
(cd "$bundle" && du -sh bin plugins tests lib jobs)
ls "$bundle/lib"
