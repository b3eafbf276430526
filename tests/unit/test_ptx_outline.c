/* The outline reader: parameter sizes and offsets, module variables, and refusals that name the
 * line, whatever instructions the bodies hold. */
#include "ptx.h"

#include <criterion/criterion.h>
#include <string.h>

static ptx_outline *outline(const char *text, ptx_error *err)
{
    return ptx_outline_read("t.ptx", text, strlen(text), err);
}

Test(ptx_outline, parameters_and_variables)
{
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .b8 cache[4096];\n"
        ".const .align 4 .f32 scale[2][3] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".func (.param .b32 r) helper(.param .b32 x) { ret; }\n"
        ".visible .entry _Z2mmPKfS0_Pfi(\n"
        "  .param .u64 .ptr .global .align 4 a,\n  .param .u64 b,\n  .param .u64 c,\n"
        "  .param .u32 n\n)\n.maxntid 256, 1, 1\n"
        "{\n  .reg .b32 %r<3>;\n  shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"
        "  { .reg .b32 inner; }\n  ret;\n}\n"
        ".entry s(.param .align 8 .b8 box[20], .param .u8 flag, .param .f64 x) { ret; }\n";
    ptx_error err;
    ptx_outline *o = outline(text, &err);
    cr_assert_not_null(o, "%s", err.msg);
    cr_assert_eq(o->nentries, 2);
    const ptx_entry_outline *mm = ptx_outline_entry(o, "_Z2mmPKfS0_Pfi");
    cr_assert_not_null(mm);
    cr_expect_eq(mm->nparams, 4);
    cr_expect_eq(mm->param_size[0], 8);
    cr_expect_eq(mm->param_offset[2], 16);
    cr_expect_eq(mm->param_size[3], 4);
    cr_expect_eq(mm->param_bytes, 28);
    const ptx_entry_outline *s = ptx_outline_entry(o, "s");
    cr_assert_not_null(s);
    cr_expect_eq(s->param_size[0], 20);
    cr_expect_eq(s->param_offset[1], 20);
    cr_expect_eq(s->param_offset[2], 24); /* .f64 aligned to 8 after a byte at 20 */
    cr_expect_eq(s->param_bytes, 32);
    cr_expect_null(ptx_outline_entry(o, "helper"));
    cr_assert_eq(o->nvars, 2);
    cr_expect_str_eq(o->vars[0].name, "cache");
    cr_expect_eq(o->vars[0].size, 4096);
    cr_expect(!o->vars[0].constant);
    cr_expect_eq(o->vars[1].size, 24);
    cr_expect(o->vars[1].constant);
    ptx_outline_free(o);
}

Test(ptx_outline, refusals_name_the_line)
{
    static const struct {
        const char *text, *says;
    } cases[] = {
        {".entry k(.param .u64 a\n.param .u64 b) { }", "t.ptx:2: expected \",\" or \")\""},
        {".entry k(.param .pred p) { }", "t.ptx:1: expected a type"},
        {".entry k(.param .b8 big[5000]) { }", "larger than 4096 bytes"},
        {"\n\nmov.u32 %r1, 2;", "t.ptx:3: unexpected \"mov.u32\" at module scope"},
        {".entry k() {\n{\n ret;\n", "t.ptx:1: a body opened here is never closed"},
        {".global .b32 x[99999999999999999999];", "expected a whole number"},
        {".global .b32 x[1099511627776][1099511627776];", "larger than the outline reader"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ptx_error err;
        ptx_outline *o = outline(cases[i].text, &err);
        cr_expect_null(o, "case %zu parsed", i);
        if (!o)
            cr_expect(strstr(err.msg, cases[i].says) != NULL, "case %zu: %s", i, err.msg);
        ptx_outline_free(o);
    }
}
