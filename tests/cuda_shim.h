// A C++ stand-in for the CUDA built-ins the generated kernels use, so that g++ can check the
// generated source's syntax and struct layouts without nvcc (see tests/tests/cuda_source.rs).
#include <cmath>
#include <cstddef>
#include <cstring>
using namespace std;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
struct gt4rs_dim3 { unsigned x, y, z; };
// Per host thread: the host emulation (tests/src/cuda_host.rs) runs kernels from parallel tests.
static thread_local gt4rs_dim3 blockIdx, threadIdx, blockDim, gridDim;
inline int atomicCAS(int* a, int c, int v) { int o = *a; if (o == c) *a = v; return o; }
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long c, unsigned long long v) { unsigned long long o = *a; if (o == c) *a = v; return o; }
inline unsigned long long atomicExch(unsigned long long* a, unsigned long long v) { unsigned long long o = *a; *a = v; return o; }
inline void __threadfence() {}
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, sizeof d); return d; }
inline float __int_as_float(int x) { float f; memcpy(&f, &x, sizeof f); return f; }
