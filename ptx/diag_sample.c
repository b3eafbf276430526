/* The blocks a sampled launch ran (ptx_env.sample_blocks), each with what it cost and how much
 * of an answer's memory it stored: the grader checks from these that every sampled block did
 * its share of the work, and the model sees how even the blocks' costs are. */
#include "diag.h"

#include <stdlib.h>

typedef struct sample_block {
    int launch; /* index into the diagnosis's launches */
    ptx_dim3 block;
    uint64_t warp_instructions, answer_words;
} sample_block;

struct diag_samples {
    sample_block *blocks;
    size_t n, cap;
};

void diag_samples_free(diag_samples *s)
{
    if (!s)
        return;
    free(s->blocks);
    free(s);
}

int diag_samples_add(diag_samples **s, int launch, ptx_dim3 block, uint64_t warp_instructions,
                     uint64_t answer_words)
{
    if (!*s && !(*s = calloc(1, sizeof **s)))
        return -1;
    diag_samples *d = *s;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        sample_block *grown = realloc(d->blocks, cap * sizeof *grown);
        if (!grown)
            return -1;
        d->blocks = grown;
        d->cap = cap;
    }
    d->blocks[d->n++] = (sample_block){launch, block, warp_instructions, answer_words};
    return 0;
}

void diag_samples_write(FILE *out, const diag_samples *s)
{
    fprintf(out, "[");
    for (size_t i = 0; s && i < s->n; i++) {
        const sample_block *b = &s->blocks[i];
        fprintf(out, "%s\n    {\"launch\": %d, \"block\": [%u, %u, %u], \"warp_instructions\": "
                "%llu, \"answer_words\": %llu}", i ? "," : "", b->launch, b->block.x, b->block.y,
                b->block.z, (unsigned long long)b->warp_instructions,
                (unsigned long long)b->answer_words);
    }
    fprintf(out, "\n  ]");
}
