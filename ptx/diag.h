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
 * known). `taint` has one origin (taint.c) per word of the access: a write's words take them
 * (NULL: clean values); a read fills them in, a never-written word's origin being this read
 * (NULL: the value leaves shared memory for good, as a copy to global memory does, and such a
 * word is a finding now). Atomics are not recorded: against each other they never race. */
#define DIAG_ACCESS_WORDS 8 /* the most words one access touches: ld.v4.b64 */
void diag_shared_history(block_ctx *b, const warp *w, int lane, int pc, uint64_t off,
                         unsigned size, bool write, const uint8_t *stored, int32_t *taint);
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
/* The current launch was stopped at a busy limit (ptx_env): `why` (its error) goes into its
 * counts as "busy". */
void diag_launch_busy(ptx_diag *d, const char *why);
/* A block of a sampled launch ended: where it is in the grid, the warp instructions it issued
 * and the words of an answer's memory it stored (ptx_region.owner). */
void diag_sample_block(ptx_diag *d, ptx_dim3 block, uint64_t warp_instructions,
                       uint64_t answer_words);

/* The sampled blocks of every launch (diag_sample.c), written as the diagnosis's "samples". */
typedef struct diag_samples diag_samples;
int diag_samples_add(diag_samples **s, int launch, ptx_dim3 block, uint64_t warp_instructions,
                     uint64_t answer_words);
void diag_samples_write(FILE *out, const diag_samples *s);
void diag_samples_free(diag_samples *s);
/* One warp-level shared access: the byte address of each active lane's access of `size` bytes
 * (vector accesses: the whole vector). Counts bank conflicts. This and the two below return
 * the wavefronts they counted (the block's busy count, ptx_env.max_block_wavefronts). */
uint64_t diag_shared_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
                        uint32_t mask, unsigned size);
/* One warp-level global access: counts 32-byte sectors against bytes requested. */
uint64_t diag_global_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
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
uint64_t diag_async_copy(ptx_diag *d, const block_ctx *b, const uint64_t *from, const uint64_t *to,
                     uint32_t mask, unsigned size);
void diag_flops(ptx_diag *d, uint64_t flops, uint64_t fmas);

/* ---- what a launch's instructions cost a GPU beyond one issue slot each (diag_cost.c) -------- */
/* The performance model's counts of one launch that are not plain traffic: each is of the
 * blocks run, written in launch_counts under its field's name (docs/perfmodel.md). */
typedef struct diag_costs {
    uint64_t issue_slots;  /* the instructions as the GPU's compiler emits them (div.rn.f64: ~16) */
    uint64_t fp64_ops;     /* warp instructions on the fp64 pipe (half the fp32 pipe's width) */
    uint64_t xu_ops;       /* on the special-function and conversion pipe (a sixteenth of it) */
    uint64_t local_requests, local_wavefronts; /* ld/st.local: lines of the interleaved layout */
    uint64_t l2_store_sectors; /* sectors of every global store: L1 writes them through to L2 */
    uint64_t atomic_requests, atomic_sectors;  /* global atom/red: sectors sent to L2's units */
    /* The most atomic operations on one global address, among the addresses that one sampled
     * block alone updated, and among those that several did (the whole grid's share of which
     * the sample estimates); on one shared address of one block. */
    uint64_t atomic_address_max_block, atomic_address_max_shared, shared_atomic_address_max;
    uint64_t shared_atomic_requests, shared_atomic_wavefronts; /* passes, same-address lanes apart */
    uint64_t fences_cta, fences_gpu, fences_sys;
    uint64_t sleeps, sleep_ns; /* nanosleep: warp sleeps, and the longest lane's ns summed */
    uint64_t clock_reads;  /* warp reads of %clock, %clock64 or %globaltimer */
    /* Global loads a warp issued after a global store of its own: each waits for the store to
     * reach L2 (a GPU keeps a thread's accesses in order). */
    uint64_t store_load_waits;
    struct diag_atomics *atomics; /* the addresses atomics updated, while the launch runs */
} diag_costs;

/* The current launch's costs (NULL before the first launch), and the launch's L2 count of a
 * sector a block touched (counted once per block, as the L2 sectors of global accesses). */
diag_costs *diag_now_costs(ptx_diag *d);
void diag_l2_sector(ptx_diag *d, const block_ctx *b, uint64_t sector);
/* One warp instruction issued, for the lanes in `exec`: its issue slots and pipes, and a clock
 * read. */
void diag_issue(ptx_diag *d, const ptx_insn *in, uint32_t exec);
/* One warp-level ld/st.local: each lane's offset in its own local memory (`offsets`). */
void diag_local_access(ptx_diag *d, const block_ctx *b, const warp *w, const uint64_t *offsets,
                       uint32_t mask, unsigned size);
/* One warp-level atom/red: each lane's address, in `space` (SP_GLOBAL or SP_SHARED). */
void diag_atomic(ptx_diag *d, const block_ctx *b, const uint64_t *addr, uint32_t mask,
                 unsigned space);
/* A warp's global load (`load`) or store, for the loads that wait for an earlier store. */
void diag_store_order(ptx_diag *d, warp *w, bool load);
/* A nanosleep by the lanes in `mask`. */
void diag_sleep(ptx_diag *d, const block_ctx *b, const warp *w, const ptx_insn *in, uint32_t mask);
/* The launch ended: the busiest atomic addresses into its costs, and their table freed. */
void diag_costs_done(diag_costs *c);
/* The costs as JSON members of a launch's object, each after a comma. */
void diag_costs_write_json(FILE *out, const diag_costs *c);

#endif /* TILELAB_PTX_DIAG_H */
