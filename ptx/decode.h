/* Decoding of opcode words and names, for the parser. */
#ifndef TILELAB_PTX_DECODE_H
#define TILELAB_PTX_DECODE_H

#include "internal.h"

#include <stdio.h>

/* Fills op, type(s), space, comparison, rounding, modifiers and vector width of `in` from an
 * opcode word. Returns -1 with `why` set for an opcode or modifier it does not know. */
int ptx_decode_opcode(const char *word, ptx_insn *in, char *why, size_t why_size);
/* How many operands an instruction of the bit and warp families takes, as decoded (a member
 * mask and a predicate destination d|p counted); -1 for instructions not checked here. */
int ptx_expected_operands(const ptx_insn *in);
/* cp.async..., mbarrier... and nanosleep words (async.c), as ptx_decode_opcode. */
int ptx_decode_async(const char *word, ptx_insn *in, char *why, size_t why_size);
/* Their operands, once parsed: -1 with `why` set when they do not have the instruction's
 * shape (async.c). */
int ptx_async_check(const ptx_insn *in, char *why, size_t why_size);
/* A special register name (%tid.x, ...) to its ptx_sreg, or -1. */
int ptx_special_register(const char *word);
/* A type directive (.u32, .f32, ...) to its ptx_type, or -1. */
int ptx_type_from_directive(const char *word);
/* Whether the arithmetic unit hands the instruction to a family of its own (vector moves,
 * carries, half precision, the H100's approximate instructions): alu.c's rule, which the
 * parser records as MOD_ALU_SPECIAL so that the common case costs one test. */
bool ptx_alu_special(const ptx_insn *in);
/* setp's comparison `cmp` (CMP_*) of two floating-point values, NaNs as the ISA orders them. */
bool ptx_compare_float(int cmp, double x, double y);
/* A ptx_type's name as PTX writes it (without the dot): "f16", "u32", ...; "?" for none. */
const char *ptx_type_name(int type);

#endif /* TILELAB_PTX_DECODE_H */
