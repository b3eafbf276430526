/* How the interpreter names things to people: a kernel by the name its source gave it, a source
 * line by its file's own name (where it was compiled is nobody's business). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (Itanium C++ ABI, section 3.4), from the C++ runtime the toolkit's
 * compiler already needs (libstdc++, the same code as binutils' demangler): no parser of
 * mangled names to keep in step with the compiler here. Its header, cxxabi.h, is C++ only. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *length, int *status);

/* Strips the parameter list that ends a demangled function name: "K(float*, int)" -> "K". */
static void strip_parameters(char *name)
{
    size_t n = strlen(name);
    if (n == 0 || name[n - 1] != ')')
        return;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
        if (depth == 0) {
            if (i > 0)
                name[i] = '\0';
            return;
        }
    }
}

void ptx_kernel_name(const char *mangled, char *out, size_t size)
{
    static const char returns[] = "void "; /* a template instance's name encodes its return type */
    if (size == 0)
        return;
    snprintf(out, size, "%s", mangled);
    if (strncmp(mangled, "_Z", 2) != 0)
        return; /* extern "C", or not C++ at all */
    int status = -1;
    char *plain = __cxa_demangle(mangled, NULL, NULL, &status);
    if (!plain || status != 0) {
        free(plain);
        return;
    }
    char *name = plain;
    if (strncmp(name, returns, sizeof returns - 1) == 0)
        name += sizeof returns - 1;
    strip_parameters(name);
    snprintf(out, size, "%s", name);
    free(plain);
}

const char *ptx_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *ptx_source_file(const ptx_module *m, const ptx_insn *in)
{
    const char *path = in && in->file > 0 && in->file < m->nfiles && m->files[in->file]
                           ? m->files[in->file]
                           : m->name;
    return ptx_base_name(path);
}
