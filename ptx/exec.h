/* The interpreter's state, shared by the scheduler (exec.c) and the arithmetic (alu.c). */
#ifndef TILELAB_PTX_EXEC_H
#define TILELAB_PTX_EXEC_H

#include "internal.h"

#include <stdio.h>

typedef struct block_ctx {
    const ptx_entry *e;
    ptx_dim3 grid, block, ctaid;
    int nthreads, nwarps;
    uint8_t *params;
    uint8_t *shared;
    uint64_t shared_bytes;  /* static shared memory */
    uint64_t dynamic_bytes; /* at PTX_DYNAMIC_SHARED_BASE */
    uint8_t *local; /* local_bytes for each thread of the block */
    ptx_stats *stats;
    ptx_error *err;
} block_ctx;

typedef struct warp {
    int base;          /* the block's thread index of lane 0 */
    int nlanes;        /* lanes that exist (the last warp may be partial) */
    uint64_t *regs;    /* nregs slots x 32 lanes, slot-major */
    int32_t pc[32];
    uint8_t state[32];
} warp;

uint64_t ptx_operand_value(const block_ctx *b, const warp *w, const ptx_operand *o, int lane);
/* Fills the block's error for an instruction (file:line from .loc) and returns -1. */
int ptx_stop_unsupported(block_ctx *b, const ptx_insn *in, const char *what);
/* Arithmetic, logic, comparisons, conversions and moves, for the lanes in `mask`. */
int ptx_exec_alu(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* A call of vprintf (the only function calls may name). */
int ptx_vprintf(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* One atomic update: the new value from the old one. False for an unsupported combination. */
bool ptx_atomic_apply(const ptx_insn *in, uint64_t old, uint64_t v, uint64_t cmp, uint64_t *out);

#endif /* TILELAB_PTX_EXEC_H */
