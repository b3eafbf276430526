/* Device memory for the replayer's CPU backend, backed only where it is written.
 *
 * New device memory must read as the NaN pattern (all-ones bytes), never zeros, so a kernel that
 * reads memory nothing wrote shows it. Filling a buffer with that pattern touches every page of
 * it: a submission that asks for gigabytes it never uses would take gigabytes of the grader's
 * memory. Here a buffer is instead a private mapping of one small file that holds the pattern,
 * mapped again and again: reading it costs nothing, and a page is copied only when something
 * writes it. Putting the pattern back (before each repetition) maps the file again over the
 * buffer, which also gives the written pages back. */
#ifndef TILELAB_REPLAY_MEMORY_H
#define TILELAB_REPLAY_MEMORY_H

#include <stdint.h>

/* Buffers this large and up are mapped; smaller ones are plain heap memory, filled. */
#define REPLAY_LAZY_MIN_BYTES (UINT64_C(1) << 20)

/* `bytes` of memory holding the pattern, 256-byte aligned as cudaMalloc's; NULL when there is
 * no room. */
void *replay_memory_new(uint64_t bytes);
/* [p + offset, p + offset + bytes) holds the pattern again. */
void replay_memory_poison(void *p, uint64_t size, uint64_t offset, uint64_t bytes);
/* Frees memory of either kind (`size` as it was asked for). */
void replay_memory_free(void *p, uint64_t size);

/* Zeroed memory backed where written (the checks' shadows), and zeros again over a range. */
void *replay_memory_zeroed(uint64_t bytes);
void replay_memory_clear(void *p, uint64_t size, uint64_t offset, uint64_t bytes);

#endif /* TILELAB_REPLAY_MEMORY_H */
