/* The diagnostics collector, as the interpreter feeds it. */
#ifndef TILELAB_PTX_DIAG_H
#define TILELAB_PTX_DIAG_H

#include "exec.h"

/* In order of severity: what crashes a GPU program, what hangs it, what makes it wrong by luck. */
typedef enum diag_kind {
    DK_OOB_GLOBAL = 0,
    DK_HOST_POINTER,
    DK_OOB_SHARED,
    DK_OOB_LOCAL,
    DK_BARRIER_DIVERGENCE,
    DK_RACE,
    DK_UNINIT_SHARED,
    DK_UNINIT_GLOBAL,
    DK_MACHINE_QUERY, /* a clock or a hardware id read: the kernel can tell the checks from a GPU */
    DK_COUNT
} diag_kind;

const char *diag_kind_name(diag_kind k);

/* One occurrence of an error. `in2` (may be NULL) is the other instruction involved (the other
 * side of a race, the other barrier); tid2 is its thread, or -1. Occurrences are counted per
 * (kind, line, line2); the first one's details are kept. */
void diag_finding(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                  const ptx_insn *in2, int tid, int tid2, const char *detail);
/* Counts one more occurrence of a finding already made at these lines and returns true; false
 * when there is none yet (then the caller makes it, with a detail worth building once). */
bool diag_count_known(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                      const ptx_insn *in2);
/* Races: as diag_count_known and diag_finding, except that a finding made for lanes of one
 * warp gives way to a race between warps at the same lines: its count goes on, its detail and
 * threads become the new one's (the __syncthreads() that fixes that fixes both). */
bool diag_race_known(ptx_diag *d, const block_ctx *b, const ptx_insn *in, const ptx_insn *in2,
                     bool within_warp);
void diag_race_finding(ptx_diag *d, const block_ctx *b, const ptx_insn *in, const ptx_insn *in2,
                       int tid, int tid2, bool within_warp, const char *detail);
/* Race and uninitialized-read checks of one lane's access of `size` bytes at shared offset
 * `off`, before it is made (diag_race.c): a read, or a write of the bytes `stored` (NULL: not
 * known). Atomics are not recorded: against each other they never race. */
void diag_shared_history(block_ctx *b, const warp *w, int lane, int pc, uint64_t off,
                         unsigned size, bool write, const uint8_t *stored);
/* Which accesses met: the earlier one's, then the later one's. */
typedef enum race_kind { RACE_WRITE_WRITE = 0, RACE_READ_WRITE, RACE_WRITE_READ } race_kind;
/* A race between two accesses to one shared word, pc1's (by thread tid1) before pc2's (tid2)
 * (diag_race.c): threads of two warps with no barrier between, or lanes of one warp
 * (`within_warp`) with no __syncwarp() either. A finding whose detail names the
 * __syncthreads() or __syncwarp() that is missing, by its lines. */
void diag_shared_race(block_ctx *b, int pc1, int pc2, int tid1, int tid2, race_kind kind,
                      bool within_warp);
/* The longest detail text a finding keeps. */
#define DIAG_DETAIL_MAX 400

/* A launch begins: `blocks_run` of its blocks will run (all, or a sample). */
void diag_launch(ptx_diag *d, const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block,
                 uint64_t dynamic_shared, uint64_t blocks_run);
/* The launch ended, having issued this many warp instructions. */
void diag_launch_done(ptx_diag *d, uint64_t warp_instructions);
/* One warp-level shared access: the byte address of each active lane's access of `size` bytes
 * (vector accesses: the whole vector). Counts bank conflicts. */
void diag_shared_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
                        uint32_t mask, unsigned size);
/* One warp-level global access: counts 32-byte sectors against bytes requested. */
void diag_global_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
                        uint32_t mask, unsigned size);
/* A scalar 4-byte shared load the GPU's compiler would merge with its neighbours (diag_groups.c):
 * the group's width in bytes (8 or 16; 0 when the load stays alone), the offset its first word
 * has from the base register, and the group's first instruction (its leader). */
typedef struct diag_group {
    int32_t leader;
    int32_t first_offset;
    uint8_t width;
} diag_group;
/* One per instruction of e (malloc'd), or NULL when out of memory. */
diag_group *diag_find_groups(const ptx_entry *e);

/* A warp's cp.async of `size` bytes per lane, global `from` to shared `to`: the model's counts
 * of both sides. */
void diag_async_copy(ptx_diag *d, const block_ctx *b, const uint64_t *from, const uint64_t *to,
                     uint32_t mask, unsigned size);
void diag_flops(ptx_diag *d, uint64_t flops, uint64_t fmas);

#endif /* TILELAB_PTX_DIAG_H */
