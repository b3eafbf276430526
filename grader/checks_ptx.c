/* plain_cuda's reading of the PTX the grader's own build made of a submission (checks_plain.c
 * has the whole rule): its tensor-core instructions, and how many inline-assembly blocks it has.
 *
 * Tensor cores are found in the compiler's output, not in the source: a macro, token pasting or
 * a header can hide `wmma` from a regular expression, but a tensor-core operation can only reach
 * the GPU as one of the opcodes below, whoever wrote it (the toolkit's mma.h included). The fp32
 * error bound cannot stand in for this check: TF32 or BF16 inputs with fp32 accumulation stay
 * within it at every size the kit ships. nvcc marks every inline-assembly block with a comment
 * it writes itself; which file wrote the block is not read here: the PTX's line information can
 * be forged from the source (checks_plain.c). */
#define _GNU_SOURCE /* memmem */
#include "grader.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Opcode prefixes of the tensor-core instructions (PTX ISA: mma, wmma, wgmma for sm_90,
 * tcgen05 for later architectures). */
static const char *const tensor_ops[] = {"mma.", "wmma.", "wgmma.", "tcgen05."};
/* nvcc's own marker around an asm() statement's text in the PTX. */
#define INLINE_ASM_MARK "// begin inline asm"

/* "_Z15MatrixMulKernelPKfS0_Pfiii" -> "MatrixMulKernel": the name students wrote. */
static void kernel_name(const char *mangled, size_t len, char *out, size_t size)
{
    const char *p = mangled;
    if (len > 2 && p[0] == '_' && p[1] == 'Z' && isdigit((unsigned char)p[2])) {
        size_t n = 0, i = 2;
        while (i < len && isdigit((unsigned char)p[i]))
            n = n * 10 + (size_t)(p[i++] - '0');
        if (i + n <= len) {
            snprintf(out, size, "%.*s", (int)n, p + i);
            return;
        }
    }
    snprintf(out, size, "%.*s", (int)len, mangled);
}

/* The opcode of an instruction line: after blanks and a guard predicate (@%p1, @!%p1). */
static size_t opcode(const char *line, size_t len, const char **start)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i < len && line[i] == '@') {
        while (i < len && line[i] != ' ' && line[i] != '\t')
            i++;
        while (i < len && (line[i] == ' ' || line[i] == '\t'))
            i++;
    }
    size_t j = i;
    while (j < len && !isspace((unsigned char)line[j]) && line[j] != ';')
        j++;
    *start = line + i;
    return j - i;
}

int ptx_plain_cuda_findings(const char *ptx, int *asm_blocks, char *detail, size_t size)
{
    int found = 0, lineno = 0;
    *asm_blocks = 0;
    char kernel[128] = "", first[400] = "";
    for (const char *line = ptx; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        lineno++;
        const char *entry = memmem(line, len, ".entry ", 7);
        if (entry) {
            const char *name = entry + 7;
            size_t n = 0;
            while (name + n < line + len && name[n] != '(' && !isspace((unsigned char)name[n]))
                n++;
            kernel_name(name, n, kernel, sizeof kernel);
        }
        const char *what = NULL, *op;
        size_t oplen = opcode(line, len, &op);
        if (memmem(line, len, INLINE_ASM_MARK, strlen(INLINE_ASM_MARK))) {
            ++*asm_blocks;
            oplen = 0; /* the marker, not an instruction */
        }
        for (size_t t = 0; !what && t < sizeof tensor_ops / sizeof tensor_ops[0]; t++)
            if (oplen > strlen(tensor_ops[t]) && strncmp(op, tensor_ops[t], strlen(tensor_ops[t])) == 0)
                what = "a tensor-core instruction";
        if (what && found++ == 0)
            snprintf(first, sizeof first, "%s in %s (PTX line %d: %.*s)", what,
                     kernel[0] ? kernel : "a device function", lineno,
                     (int)(oplen < 60 ? oplen : 60), op);
        line = end ? end + 1 : line + len;
    }
    if (found)
        snprintf(detail, size, "%s%s", first, found > 1 ? ", and more" : "");
    else
        snprintf(detail, size, "no tensor-core instruction in the compiled PTX");
    return found;
}
