/* See replay_memory.h: buffers as private mappings of one file of the NaN pattern. */
#define _GNU_SOURCE /* memfd_create, MAP_NORESERVE */
#include "replay_memory.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The pattern file's size: each mapping of it covers this much of a buffer. */
#define PATTERN_BYTES (UINT64_C(2) << 20)
#define PATTERN_BYTE 0xff

static int pattern_fd = -1;
static pthread_once_t pattern_once = PTHREAD_ONCE_INIT;

static void make_pattern(void)
{
    int fd = memfd_create("tilelab-nan-pattern", MFD_CLOEXEC);
    if (fd < 0)
        return;
    static uint8_t chunk[1 << 16];
    memset(chunk, PATTERN_BYTE, sizeof chunk);
    for (uint64_t at = 0; at < PATTERN_BYTES; at += sizeof chunk) {
        if (pwrite(fd, chunk, sizeof chunk, (off_t)at) != (ssize_t)sizeof chunk) {
            close(fd);
            return;
        }
    }
    pattern_fd = fd;
}

static bool lazy(uint64_t size)
{
    return size >= REPLAY_LAZY_MIN_BYTES;
}

static uint64_t pages(uint64_t bytes)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

/* Maps the pattern over [from, to) of the mapping at p (page-aligned ends, `to` may be the
 * mapping's rounded end). */
static int map_pattern(uint8_t *p, uint64_t from, uint64_t to)
{
    for (uint64_t at = from; at < to; at += PATTERN_BYTES - (at % PATTERN_BYTES)) {
        uint64_t in_file = at % PATTERN_BYTES;
        uint64_t n = PATTERN_BYTES - in_file < to - at ? PATTERN_BYTES - in_file : to - at;
        if (mmap(p + at, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, pattern_fd,
                 (off_t)in_file) == MAP_FAILED)
            return -1;
    }
    return 0;
}

void *replay_memory_new(uint64_t bytes)
{
    if (!lazy(bytes)) {
        void *p = NULL;
        if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0)
            return NULL;
        memset(p, PATTERN_BYTE, bytes);
        return p;
    }
    pthread_once(&pattern_once, make_pattern);
    if (pattern_fd < 0)
        return NULL;
    uint64_t span = pages(bytes);
    uint8_t *p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (map_pattern(p, 0, span) != 0) {
        munmap(p, span);
        return NULL;
    }
    return p;
}

void replay_memory_poison(void *p, uint64_t size, uint64_t offset, uint64_t bytes)
{
    uint8_t *base = p;
    if (!lazy(size)) {
        memset(base + offset, PATTERN_BYTE, bytes);
        return;
    }
    /* Whole pages get the file again; the pieces of pages at either end are filled. */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t from = (offset + page - 1) / page * page, to = (offset + bytes) / page * page;
    if (offset + bytes == size)
        to = pages(size);
    if (from >= to || map_pattern(base, from, to) != 0) {
        memset(base + offset, PATTERN_BYTE, bytes);
        return;
    }
    memset(base + offset, PATTERN_BYTE, from - offset);
    if (offset + bytes > to)
        memset(base + to, PATTERN_BYTE, offset + bytes - to);
}

void replay_memory_free(void *p, uint64_t size)
{
    if (!p)
        return;
    if (lazy(size))
        munmap(p, pages(size));
    else
        free(p);
}

void *replay_memory_zeroed(uint64_t bytes)
{
    if (!lazy(bytes))
        return calloc(1, bytes ? bytes : 1);
    void *p = mmap(NULL, pages(bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void replay_memory_clear(void *p, uint64_t size, uint64_t offset, uint64_t bytes)
{
    uint8_t *base = p;
    if (!lazy(size)) {
        memset(base + offset, 0, bytes);
        return;
    }
    /* Whole pages are given back (they read as zeros again); the ends are cleared. */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t from = (offset + page - 1) / page * page, to = (offset + bytes) / page * page;
    if (from >= to || madvise(base + from, to - from, MADV_DONTNEED) != 0) {
        memset(base + offset, 0, bytes);
        return;
    }
    memset(base + offset, 0, from - offset);
    memset(base + to, 0, offset + bytes - to);
}
