#!/bin/bash
# compile.sh NAME DEFINES...: msm_g2.cu of /tmp/exp/srcL with the experiment's defines
name=$1; shift
cd /work/wt/build-bundle
/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -I/tmp/exp/srcL -I/work/wt/core/cuda/include -I/work/wt/core/include -O3 -DNDEBUG --generate-code=arch=compute_90,code=[sm_90] -Xcompiler=-fPIC -Xcompiler=-fvisibility=hidden -lineinfo --compress-mode=size -Xcompiler=-Wall,-Wextra -std=c++20 -Xptxas=-v "$@" -x cu -c /tmp/exp/srcL/msm_g2.cu -o /tmp/exp/msm_g2_$name.o > /tmp/exp/$name.log 2>&1
echo "rc=$?" >> /tmp/exp/$name.log
