// gt4rs CUDA prelude: integer arithmetic that wraps and never traps (the kernels record a zero
// divisor as an error before dividing; these helpers give 0 for one), and the float helpers
// Rust's semantics need (mirrors the CPU backend).
#ifndef GT4RS_BLOCK_SIZE
#define GT4RS_BLOCK_SIZE 128
#endif
#ifndef GT4RS_K_BLOCK
#define GT4RS_K_BLOCK 8
#endif
// 1: kernels with a large level body keep their column work across levels too
// (`CudaOptions::hoist_column_work`).
#ifndef GT4RS_HOIST_COLUMN_WORK
#define GT4RS_HOIST_COLUMN_WORK 0
#endif
// Hides a value from the optimiser, so work that depends on it stays where it is written (a
// kernel with a large level body recomputes its column work per level instead of keeping it in
// registers across levels). Nothing on the host, where the kernels are emulated.
#ifdef __CUDA_ARCH__
#define GT4RS_OPAQUE(x) asm volatile("" : "+l"(x))
#else
#define GT4RS_OPAQUE(x) ((void)0)
#endif
typedef long long gt4rs_i64;
typedef int gt4rs_i32;
__device__ __forceinline__ gt4rs_i64 gt4rs_add(gt4rs_i64 a, gt4rs_i64 b) { return (gt4rs_i64)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ gt4rs_i32 gt4rs_add(gt4rs_i32 a, gt4rs_i32 b) { return (gt4rs_i32)((unsigned int)a + (unsigned int)b); }
__device__ __forceinline__ gt4rs_i64 gt4rs_sub(gt4rs_i64 a, gt4rs_i64 b) { return (gt4rs_i64)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ gt4rs_i32 gt4rs_sub(gt4rs_i32 a, gt4rs_i32 b) { return (gt4rs_i32)((unsigned int)a - (unsigned int)b); }
__device__ __forceinline__ gt4rs_i64 gt4rs_mul(gt4rs_i64 a, gt4rs_i64 b) { return (gt4rs_i64)((unsigned long long)a * (unsigned long long)b); }
__device__ __forceinline__ gt4rs_i32 gt4rs_mul(gt4rs_i32 a, gt4rs_i32 b) { return (gt4rs_i32)((unsigned int)a * (unsigned int)b); }
__device__ __forceinline__ gt4rs_i64 gt4rs_neg(gt4rs_i64 a) { return (gt4rs_i64)(0ull - (unsigned long long)a); }
__device__ __forceinline__ gt4rs_i32 gt4rs_neg(gt4rs_i32 a) { return (gt4rs_i32)(0u - (unsigned int)a); }
__device__ __forceinline__ gt4rs_i64 gt4rs_abs(gt4rs_i64 a) { return a < 0 ? gt4rs_neg(a) : a; }
__device__ __forceinline__ gt4rs_i32 gt4rs_abs(gt4rs_i32 a) { return a < 0 ? gt4rs_neg(a) : a; }
// Rust's wrapping_div/rem: MIN / -1 wraps to MIN (remainder 0); a zero divisor (reported by
// the kernel before the call) gives 0.
template <typename T> __device__ __forceinline__ T gt4rs_div(T a, T b) { return b == 0 ? (T)0 : (b == (T)-1 ? gt4rs_neg(a) : a / b); }
template <typename T> __device__ __forceinline__ T gt4rs_rem(T a, T b) { return (b == 0 || b == (T)-1) ? (T)0 : a % b; }
template <typename T> __device__ __forceinline__ T gt4rs_div_euclid(T a, T b) {
    if (b == 0) return (T)0;
    T q = gt4rs_div(a, b);
    if (gt4rs_rem(a, b) < 0) return b > 0 ? gt4rs_sub(q, (T)1) : gt4rs_add(q, (T)1);
    return q;
}
template <typename T> __device__ __forceinline__ T gt4rs_rem_euclid(T a, T b) {
    if (b == 0) return (T)0;
    T r = gt4rs_rem(a, b);
    return r < 0 ? gt4rs_add(r, gt4rs_abs(b)) : r;
}
template <typename T> __device__ __forceinline__ T gt4rs_ipow(T base, T exp) {
    T result = 1;
    unsigned int e = (unsigned int)exp;
    while (e > 0) { if (e & 1u) result = gt4rs_mul(result, base); base = gt4rs_mul(base, base); e >>= 1; }
    return result;
}
template <typename T> __device__ __forceinline__ T gt4rs_imin(T a, T b) { return a < b ? a : b; }
template <typename T> __device__ __forceinline__ T gt4rs_imax(T a, T b) { return a > b ? a : b; }
// gt4rs_ir::scalar's float min/max: the operand that is not NaN, if any, and -0.0 below +0.0
// (C's fmin/fmax leave the sign of a zero result to the order of the operands).
__device__ __forceinline__ double gt4rs_fmin(double a, double b) { return a == b ? (signbit(a) ? a : b) : (a < b || b != b ? a : b); }
__device__ __forceinline__ double gt4rs_fmax(double a, double b) { return a == b ? (signbit(a) ? b : a) : (a > b || b != b ? a : b); }
__device__ __forceinline__ float gt4rs_fminf(float a, float b) { return a == b ? (signbit(a) ? a : b) : (a < b || b != b ? a : b); }
__device__ __forceinline__ float gt4rs_fmaxf(float a, float b) { return a == b ? (signbit(a) ? b : a) : (a > b || b != b ? a : b); }
__device__ __forceinline__ double gt4rs_fdiv_euclid(double a, double b) { double q = trunc(a / b); return fmod(a, b) < 0.0 ? (b > 0.0 ? q - 1.0 : q + 1.0) : q; }
__device__ __forceinline__ float gt4rs_fdiv_euclid(float a, float b) { float q = truncf(a / b); return fmodf(a, b) < 0.0f ? (b > 0.0f ? q - 1.0f : q + 1.0f) : q; }
__device__ __forceinline__ double gt4rs_frem_euclid(double a, double b) { double r = fmod(a, b); return r < 0.0 ? r + fabs(b) : r; }
__device__ __forceinline__ float gt4rs_frem_euclid(float a, float b) { float r = fmodf(a, b); return r < 0.0f ? r + fabsf(b) : r; }
// gt4rs_ir::scalar's float-to-integer cast (Rust's `as`): NaN is 0, values beyond the type's
// range saturate at its ends, the rest truncate toward zero. A C cast of a value out of range is
// undefined (x86 gives the minimum for all of them; PTX's cvt saturates): each bound below is a
// power of two, exact in both float types, and the C cast runs only strictly inside them.
__device__ __forceinline__ gt4rs_i32 gt4rs_f2i32(double x) { return x != x ? 0 : x <= -2147483648.0 ? (-2147483647 - 1) : x >= 2147483648.0 ? 2147483647 : (gt4rs_i32)x; }
__device__ __forceinline__ gt4rs_i32 gt4rs_f2i32(float x) { return gt4rs_f2i32((double)x); }
__device__ __forceinline__ gt4rs_i64 gt4rs_f2i64(double x) { return x != x ? 0LL : x <= -9223372036854775808.0 ? (-9223372036854775807LL - 1) : x >= 9223372036854775808.0 ? 9223372036854775807LL : (gt4rs_i64)x; }
__device__ __forceinline__ gt4rs_i64 gt4rs_f2i64(float x) { return gt4rs_f2i64((double)x); }
__device__ __forceinline__ gt4rs_i64 gt4rs_clamp(gt4rs_i64 x, gt4rs_i64 lo, gt4rs_i64 hi) { return x < lo ? lo : (x > hi ? hi : x); }
// Records a failure in the kernel's error record: of the failures its threads meet, the one at
// the least point (its coordinates compared in order; a column's point, without a level, before
// its levels'), as the CPU kernels' error slot keeps it (gt4rs_ir::kernel::ERROR_RECORD_LEN has
// the layout). A failing thread takes the record's lock (word 15), keeps its failure if the
// record is empty or holds a greater point, and writes its code, the values of the message, its
// point, the point's length (word 14) and its first coordinate plus one (word 13); the host
// formats the message (gt4rs_ir::failure). Word 13 only decreases, so a thread whose first
// coordinate is greater skips the lock (a kernel whose every point fails does not queue every
// thread on it). Only failing threads take the lock, each once, so it waits on failures alone
// (the threads of a warp make progress apart from sm_70 on, which every target of gt4rs has).
template <typename... Coordinates>
__device__ __forceinline__ void gt4rs_fail(long long* record, long long code, long long a, long long b, long long c, Coordinates... point) {
    const long long coordinates[] = {0LL, (long long)point...};
    const unsigned n = sizeof...(Coordinates);
    volatile long long* r = record;
    const unsigned long long first_seen = (unsigned long long)r[13];
    if (n > 0 && first_seen != 0ull && coordinates[1] > (long long)(first_seen - 1ull)) return;
    while (atomicCAS((unsigned long long*)(record + 15), 0ull, 1ull) != 0ull) {}
    __threadfence();
    bool lesser = r[0] == 0;
    if (!lesser) {
        const unsigned m = (unsigned)r[14];
        unsigned i = 0;
        while (i < n && i < m && coordinates[i + 1] == r[4 + i]) ++i;
        lesser = (i < n && i < m) ? coordinates[i + 1] < r[4 + i] : n < m;
    }
    if (lesser) {
        r[1] = a; r[2] = b; r[3] = c;
        for (unsigned i = 0; i < n; ++i) r[4 + i] = coordinates[i + 1];
        r[14] = (long long)n;
        r[13] = n > 0 ? (long long)((unsigned long long)coordinates[1] + 1ull) : 0LL;
        r[0] = code;
    }
    __threadfence();
    atomicExch((unsigned long long*)(record + 15), 0ull);
}
