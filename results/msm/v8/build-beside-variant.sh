#!/usr/bin/env bash
# The "beside" arm of call R: c11cc2d's backend.cpp and proof_msms.cpp (B2 on its own
# stream beside A and B1) with their headers, over this tree's everything else, linked as
# a cuda-pinned plugin in .exp/plugins. Run from the repository root after a Release
# build in build-bundle (tools/make-bundle.sh) of 344ea5a.
set -euo pipefail
root=$PWD exp=/tmp/exp
mkdir -p $exp/include/zkbatch/cuda $exp/src $exp/members .exp/plugins
for f in backend.hpp proof_msms.hpp; do git show c11cc2d:core/cuda/include/zkbatch/cuda/$f >$exp/include/zkbatch/cuda/$f; done
for f in backend.cpp proof_msms.cpp; do git show c11cc2d:core/cuda/src/$f >$exp/src/$f; done
cp plugins/cuda-pinned/plugin.cpp $exp/src/plugin.cpp
flags=(-DZKBATCH_VERSION='"0.1.0"' -I$exp/include -I$root/plugins/cuda-pinned -I$root/core/cuda/include
       -I$root/core/include -isystem /usr/local/cuda/include -O2 -DNDEBUG -fPIC -fvisibility=hidden
       -fvisibility-inlines-hidden -std=c++20)
for f in backend proof_msms plugin; do c++ "${flags[@]}" -o $exp/members/$f.cpp.o -c $exp/src/$f.cpp; done
cd build-bundle
cp core/cuda/libzkbatch_cuda.a $exp/libzkbatch_cuda.a
ar r $exp/libzkbatch_cuda.a $exp/members/backend.cpp.o $exp/members/proof_msms.cpp.o
c++ -fPIC -O2 -DNDEBUG -Wl,--no-undefined -Wl,--exclude-libs,ALL -shared -o $root/.exp/plugins/libzkbatch-cuda-pinned.so \
  $exp/members/plugin.cpp.o plugins/cuda-pinned/CMakeFiles/zkbatch-cuda-pinned.dir/pinned_pool.cpp.o \
  -L/usr/local/cuda/targets/x86_64-linux/lib core/libzkbatch_core.a $exp/libzkbatch_cuda.a core/libzkbatch_core.a \
  /usr/local/cuda/lib/libcudart_static.a /usr/lib/x86_64-linux-gnu/librt.a -ldl -lcudadevrt -lcudart_static -lrt -lpthread -ldl
strip --strip-unneeded $root/.exp/plugins/libzkbatch-cuda-pinned.so
