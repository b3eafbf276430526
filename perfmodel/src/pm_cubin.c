/* Registers per thread from a cubin: the .nv.info section holds EIATTR_REGCOUNT attributes,
 * each (symbol index, count); .symtab names the symbol. Read with bounds checks throughout,
 * since the file comes from a submission's build, and at most PM_CUBIN_MAX_BYTES of it. */
#include "perfmodel.h"

#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PM_CUBIN_MAX_BYTES (64u << 20)
#define EIATTR_REGCOUNT 0x2f
#define EIFMT_SVAL 0x04 /* attribute with a 16-bit size and that many bytes of value */
#define EIFMT_HVAL 0x03 /* attribute with a 16-bit value */
#define EIFMT_NVAL 0x01 /* attribute with no value */

typedef struct image {
    const unsigned char *data;
    size_t size;
} image;

static const void *at(const image *im, uint64_t off, uint64_t len)
{
    return off <= im->size && len <= im->size - off ? im->data + off : NULL;
}

/* A copy of `len` bytes at `off` (headers in the file need not be aligned), or false. */
static bool copy_at(const image *im, uint64_t off, void *out, size_t len)
{
    const void *p = at(im, off, len);
    if (p)
        memcpy(out, p, len);
    return p != NULL;
}

static bool section(const image *im, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *out)
{
    return i < eh->e_shnum && eh->e_shentsize == sizeof(Elf64_Shdr) &&
           copy_at(im, eh->e_shoff + (uint64_t)i * sizeof(Elf64_Shdr), out, sizeof *out);
}

/* A NUL-terminated string at offset `off` of string section `strtab`, or NULL. */
static const char *string_at(const image *im, const Elf64_Shdr *strtab, uint64_t off)
{
    if (!strtab || off >= strtab->sh_size)
        return NULL;
    const char *s = at(im, strtab->sh_offset + off, strtab->sh_size - off);
    return s && memchr(s, '\0', strtab->sh_size - off) ? s : NULL;
}

static int fail(char *msg, int size, const char *path, const char *why)
{
    snprintf(msg, (size_t)size, "%s: %s", path, why);
    return -1;
}

static int registers_in(const image *im, const char *kernel, const char *path, char *msg,
                        int msg_size)
{
    Elf64_Ehdr eh;
    if (!copy_at(im, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64)
        return fail(msg, msg_size, path, "not a 64-bit ELF cubin");
    Elf64_Shdr names, info = {0}, symtab = {0}, s;
    bool have_names = section(im, &eh, eh.e_shstrndx, &names);
    bool have_info = false, have_symtab = false;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (!section(im, &eh, i, &s))
            return fail(msg, msg_size, path, "a section header lies outside the file");
        const char *name = have_names ? string_at(im, &names, s.sh_name) : NULL;
        if (name && strcmp(name, ".nv.info") == 0) {
            info = s;
            have_info = true;
        }
        if (s.sh_type == SHT_SYMTAB) {
            symtab = s;
            have_symtab = true;
        }
    }
    if (!have_info || !have_symtab || symtab.sh_entsize != sizeof(Elf64_Sym))
        return 0;
    Elf64_Shdr symnames;
    bool have_symnames = section(im, &eh, symtab.sh_link, &symnames);
    const unsigned char *p = at(im, info.sh_offset, info.sh_size);
    if (!p)
        return fail(msg, msg_size, path, "the .nv.info section lies outside the file");
    uint64_t pos = 0;
    while (pos + 2 <= info.sh_size) {
        unsigned fmt = p[pos], attr = p[pos + 1];
        uint64_t value_at = pos + 4, len = 0;
        if (fmt == EIFMT_SVAL) {
            if (pos + 4 > info.sh_size)
                break;
            len = (uint64_t)p[pos + 2] | (uint64_t)p[pos + 3] << 8;
        } else if (fmt == EIFMT_HVAL) {
            value_at = pos + 2;
            len = 2;
        } else if (fmt == EIFMT_NVAL) {
            value_at = pos + 2;
        } else {
            break; /* an encoding this reader does not know: stop rather than guess */
        }
        if (value_at + len > info.sh_size)
            break;
        if (fmt == EIFMT_SVAL && attr == EIATTR_REGCOUNT && len == 8) {
            uint32_t sym, count;
            memcpy(&sym, p + value_at, 4);
            memcpy(&count, p + value_at + 4, 4);
            Elf64_Sym es;
            const char *name = NULL;
            if (have_symnames &&
                copy_at(im, symtab.sh_offset + (uint64_t)sym * sizeof es, &es, sizeof es))
                name = string_at(im, &symnames, es.st_name);
            if (name && strcmp(name, kernel) == 0)
                return count > 0 && count <= 255 ? (int)count : 0;
        }
        pos = value_at + len;
    }
    return 0;
}

int pm_cubin_registers_in(const void *data, size_t size, const char *kernel, const char *path,
                          char *msg, int msg_size)
{
    image im = {data, size};
    return registers_in(&im, kernel, path, msg, msg_size);
}

int pm_cubin_registers(const char *path, const char *kernel, char *msg, int msg_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(msg, msg_size, path, "cannot be read");
    unsigned char *data = malloc(PM_CUBIN_MAX_BYTES);
    size_t n = data ? fread(data, 1, PM_CUBIN_MAX_BYTES, f) : 0;
    fclose(f);
    if (!data)
        return fail(msg, msg_size, path, "out of memory");
    int rc = pm_cubin_registers_in(data, n, kernel, path, msg, msg_size);
    free(data);
    return rc;
}
