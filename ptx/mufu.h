/* The approximate f32 instructions as an H100 computes them (mufu.c): ex2.approx, rcp.approx,
 * rsqrt.approx and div.approx/div.full, bit for bit. Arguments and results are float bits;
 * ftz: .ftz was given. */
#ifndef TILELAB_PTX_MUFU_H
#define TILELAB_PTX_MUFU_H

#include <stdbool.h>
#include <stdint.h>

/* Loads the measured tables once (thread-safe); false if they cannot be read. */
bool ptx_mufu_ready(void);
uint32_t ptx_mufu_ex2(uint32_t x, bool ftz);
uint32_t ptx_mufu_rcp(uint32_t x, bool ftz);
uint32_t ptx_mufu_rsqrt(uint32_t x, bool ftz);
/* div.approx: a times rcp.approx.ftz of b, rounded once (so 0 for |b| beyond 2^126; without
 * .ftz a subnormal b is scaled first); full: div.full, which scales a divisor beyond 2^126
 * instead. */
uint32_t ptx_mufu_div(uint32_t a, uint32_t b, bool ftz, bool full);
/* rcp.approx.ftz.f64 and rsqrt.approx.f64, double bits in and out: the unit's estimate from
 * the high word (and, for rsqrt, the H100's refinement of it). */
uint64_t ptx_mufu_rcp64(uint64_t x);
uint64_t ptx_mufu_rsqrt64(uint64_t x);

#endif /* TILELAB_PTX_MUFU_H */
