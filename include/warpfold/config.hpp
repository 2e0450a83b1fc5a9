// Portability macros shared by every header. Kept tiny on purpose.
#pragma once

#if defined(__CUDACC__)
#define WARPFOLD_HOST_DEVICE __host__ __device__ __forceinline__
#define WARPFOLD_DEVICE __device__ __forceinline__
#else
#define WARPFOLD_HOST_DEVICE inline
#define WARPFOLD_DEVICE inline
#endif
