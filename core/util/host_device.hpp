// Annotations that let one function body serve host C++ and CUDA device code.
// Under nvcc (__CUDACC__) a ZKB_HOST_DEVICE function is compiled for both sides;
// under a plain C++ compiler the annotation vanishes.
#pragma once

#if defined(__CUDACC__)
#define ZKB_HOST_DEVICE __host__ __device__
#define ZKB_FORCEINLINE __forceinline__
#else
#define ZKB_HOST_DEVICE
#define ZKB_FORCEINLINE inline __attribute__((always_inline))
#endif

// The field and curve arithmetic is inlined into its callers on the host (the MSM's
// inner loops spend their time in it) and, by default, on the device too: called, the
// MSM kernels run far slower (docs/msm.md#inlined-not-called). Fully inlined, though, a G2
// kernel is hundreds of thousands of instructions that the compiler needs many minutes
// for (msm_g2.cu ~13 minutes, tests/gpu/curve_device_test.cu 19, on 2 cores). Builds
// that only check device code (CI's test build, the device tests) define
// ZKBATCH_CUDA_OUTLINE (CMake option of that name): the operators and point formulas
// are then called functions on the device, the same bits in a fraction of the time.
#if defined(__CUDA_ARCH__) && defined(ZKBATCH_CUDA_OUTLINE)
#define ZKB_INLINE_ON_HOST __noinline__
#define ZKB_CALL_ON_DEVICE __noinline__
#elif defined(__CUDA_ARCH__)
#define ZKB_INLINE_ON_HOST ZKB_FORCEINLINE
#define ZKB_CALL_ON_DEVICE
#else
#define ZKB_INLINE_ON_HOST ZKB_FORCEINLINE
#define ZKB_CALL_ON_DEVICE
#endif

// Fully unroll a fixed-trip loop (the 4-limb loops of the field arithmetic). In the
// host pass of nvcc no spelling is accepted by both nvcc's front end and the host
// compiler, so it is empty there (host builds of the math go through .cpp files).
#if defined(__CUDA_ARCH__)
#define ZKB_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define ZKB_UNROLL
#elif defined(__clang__)
#define ZKB_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define ZKB_UNROLL _Pragma("GCC unroll 8")
#else
#define ZKB_UNROLL
#endif
