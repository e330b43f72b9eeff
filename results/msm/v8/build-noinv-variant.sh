#!/usr/bin/env bash
# The "no inversion" ceiling of call R: msm_kernel_bench with G2's msm_g2.cu.o compiled
# from a copy of msm_steps.hpp whose affine_round skips the round's inversion (its sums
# are wrong; only its times count), linked in place of the tree's object. Run from the
# repository root after a Release build in build-bundle (tools/make-bundle.sh).
set -euo pipefail
exp=/tmp/exp2
mkdir -p $exp/include/zkbatch/cuda $exp/m .exp
sed 's|    ff::Fp inverse = product.inverse();|    ff::Fp inverse = product;  // NO INVERSION (timing ceiling only)|' \
  core/cuda/include/zkbatch/cuda/msm_steps.hpp >$exp/include/zkbatch/cuda/msm_steps.hpp
cd build-bundle
ninja -t commands msm_kernel_bench | grep "msm_g2.cu" | head -1 |
  sed "s|-I$PWD/../core/cuda/include|-I$exp/include -I$PWD/../core/cuda/include|; s|-o core/cuda/CMakeFiles/zkbatch_cuda_msm.dir/src/msm_g2.cu.o|-o $exp/m/msm_g2.cu.o|; s|-MD -MT [^ ]* -MF [^ ]*||" >$exp/compile.sh
bash $exp/compile.sh
cp core/cuda/libzkbatch_cuda.a $exp/lib.a
ar r $exp/lib.a $exp/m/msm_g2.cu.o
c++ -O2 -DNDEBUG bench/CMakeFiles/msm_kernel_bench.dir/msm_kernel_bench.cu.o -o ../.exp/msm_kernel_bench_noinv \
  -L/usr/local/cuda/targets/x86_64-linux/lib $exp/lib.a core/libzkbatch_core.a /usr/local/cuda/lib/libcudart_static.a \
  /usr/lib/x86_64-linux-gnu/librt.a -ldl -lcudadevrt -lcudart_static -lrt -lpthread -ldl
strip ../.exp/msm_kernel_bench_noinv
