/*
 * pda_ppcpfx.c - Power ISA 3.1's (Power10's) prefixed loads and stores,
 * which capstone 4 (Debian 12's) does not decode: an 8-byte instruction,
 * a prefix word (primary opcode 1) then a suffix word, whose 34-bit
 * displacement is the prefix's 18 bits over the suffix's 16, and whose
 * R bit makes the address relative to the prefix's own (gcc's
 * -mcpu=power10 code: `pld r9, foo@got@pcrel`, `pla r3, bar@pcrel`,
 * `plwz r4, baz@pcrel`).  Two formats carry them (ISA 3.1 book I,
 * 1.6.3): MLS:D (prefix type 2: the D-form loads and stores of bytes,
 * halfwords, words and floats, and paddi) and 8LS:D (prefix type 0: the
 * doubleword, quadword and vector ones).  Here because both the
 * annotate listing (their text, as objdump prints them) and data-type
 * attribution (their memory operand) decode them.
 */
#include "pda_annotate_int.h"

#include <inttypes.h>
#include <stdio.h>

/* The register files a suffix's RT names, as objdump spells them. */
enum pfx_reg {
	REG_GPR,  /* r5 */
	REG_FPR,  /* f2 */
	REG_VR,	  /* v2: the scalar VSX loads' VRT (VSR 32 + v) */
	REG_VSX,  /* vs33: TX (the opcode's low bit) * 32 + T */
	REG_VSXP, /* vs34: an even pair, TX (RT's low bit) * 32 + Tp * 2 */
};

/* A suffix opcode's operation: its name, bytes moved, store, register. */
struct pfx_op {
	uint8_t opcode;
	uint8_t size;
	bool store;
	uint8_t reg; /* enum pfx_reg */
	const char *name;
};

/* MLS:D's (type 2) loads and stores by suffix opcode. */
static const struct pfx_op mls[] = {
	{32, 4, false, REG_GPR, "plwz"}, {34, 1, false, REG_GPR, "plbz"},
	{36, 4, true, REG_GPR, "pstw"},	 {38, 1, true, REG_GPR, "pstb"},
	{40, 2, false, REG_GPR, "plhz"}, {42, 2, false, REG_GPR, "plha"},
	{44, 2, true, REG_GPR, "psth"},	 {48, 4, false, REG_FPR, "plfs"},
	{50, 8, false, REG_FPR, "plfd"}, {52, 4, true, REG_FPR, "pstfs"},
	{54, 8, true, REG_FPR, "pstfd"},
};

/* 8LS:D's (type 0). */
static const struct pfx_op ls8[] = {
	{41, 4, false, REG_GPR, "plwa"},    {42, 8, false, REG_VR, "plxsd"},
	{43, 4, false, REG_VR, "plxssp"},   {46, 8, true, REG_VR, "pstxsd"},
	{47, 4, true, REG_VR, "pstxssp"},   {50, 16, false, REG_VSX, "plxv"},
	{51, 16, false, REG_VSX, "plxv"},   {54, 16, true, REG_VSX, "pstxv"},
	{55, 16, true, REG_VSX, "pstxv"},   {56, 16, false, REG_GPR, "plq"},
	{57, 8, false, REG_GPR, "pld"},	    {58, 32, false, REG_VSXP, "plxvp"},
	{60, 16, true, REG_GPR, "pstq"},    {61, 8, true, REG_GPR, "pstd"},
	{62, 32, true, REG_VSXP, "pstxvp"},
};

bool pda_ppc_is_prefix(uint32_t word)
{
	return word >> 26 == 1;
}

/* The register out names, in objdump's spelling, into buf. */
static void reg_text(const struct pda_ppc_pfx *x, uint32_t suffix, char *buf,
		     size_t len)
{
	const unsigned t = suffix >> 21 & 31;

	switch ((enum pfx_reg)x->reg) {
	case REG_FPR:
		snprintf(buf, len, "f%u", t);
		break;
	case REG_VR:
		snprintf(buf, len, "v%u", t);
		break;
	case REG_VSX:
		snprintf(buf, len, "vs%u", (suffix >> 26 & 1) * 32 + t);
		break;
	case REG_VSXP:
		snprintf(buf, len, "vs%u", (t & 1) * 32 + (t & ~1u));
		break;
	case REG_GPR:
	default:
		snprintf(buf, len, "r%u", t);
		break;
	}
}

bool pda_ppc_prefixed(uint32_t prefix, uint32_t suffix,
		      struct pda_ppc_pfx *out)
{
	const unsigned type = prefix >> 24 & 3, opcode = suffix >> 26;
	const struct pfx_op *ops = type == 2 ? mls : ls8;
	const size_t nr = type == 2 ? sizeof(mls) / sizeof(*mls)
				    : sizeof(ls8) / sizeof(*ls8);
	/* d0:d1, 34 bits, sign-extended */
	const uint64_t d = (uint64_t)(prefix & 0x3ffff) << 16 | (suffix & 0xffff);

	/* ST (prefix bit 8) 0: the forms above; 8RR and MMIRR (types 1
	 * and 3) are register-only */
	if (!pda_ppc_is_prefix(prefix) || (type != 0 && type != 2) ||
	    (prefix >> 23 & 1))
		return false;
	out->rt = (int)(suffix >> 21 & 31);
	out->ra = (int)(suffix >> 16 & 31);
	out->pcrel = prefix >> 20 & 1;
	out->disp = (int64_t)(d ^ (1ull << 33)) - (int64_t)(1ull << 33);
	out->addi = false;
	out->reg = REG_GPR;
	if (type == 2 && opcode == 14) { /* paddi (pla, pli) */
		out->addi = true;
		out->size = 0;
		out->store = false;
		out->gpr = true;
		out->name = out->pcrel ? "pla" : out->ra ? "paddi" : "pli";
		return !out->pcrel || !out->ra;
	}
	for (size_t i = 0; i < nr; i++)
		if (ops[i].opcode == opcode) {
			out->size = ops[i].size;
			out->store = ops[i].store;
			out->gpr = ops[i].reg == REG_GPR;
			out->reg = ops[i].reg;
			out->name = ops[i].name;
			/* R 1 with RA nonzero is an invalid form */
			return !out->pcrel || !out->ra;
		}
	return false;
}

/*
 * The register-only prefixed instructions gcc -mcpu=power10 emits for
 * constants (8RR:D, prefix type 1, suffix opcode 32: the 32-bit
 * immediate is the prefix's low 16 bits over the suffix's; ISA 3.1 book
 * I, 7.6.1.4) and pnop, in objdump's text; false for the others (8RR's
 * XX4 forms, MMIRR's matrix ones), which stay undecoded.
 */
static bool reg_only_text(uint32_t prefix, uint32_t suffix,
			  struct pda_ppc_pfx *out, char *ops, size_t len)
{
	const uint32_t imm = (prefix & 0xffff) << 16 | (suffix & 0xffff);
	const unsigned xt = (suffix >> 16 & 1) * 32 + (suffix >> 21 & 31);

	*out = (struct pda_ppc_pfx){.reg = REG_VSX};
	if (prefix == 0x07000000 && suffix == 0) {
		out->name = "pnop";
		ops[0] = 0;
		return true;
	}
	if ((prefix >> 24 & 3) != 1 || (prefix >> 20 & 15) || suffix >> 26 != 32)
		return false;
	if ((suffix >> 18 & 7) == 0) {
		out->name = "xxsplti32dx";
		snprintf(ops, len, "vs%u, %u, %" PRIu32, xt, suffix >> 17 & 1,
			 imm);
		return true;
	}
	if ((suffix >> 17 & 15) != 2 && (suffix >> 17 & 15) != 3)
		return false;
	out->name = (suffix >> 17 & 15) == 2 ? "xxspltidp" : "xxspltiw";
	snprintf(ops, len, "vs%u, %" PRIu32, xt, imm);
	return true;
}

bool pda_ppc_prefixed_text(uint32_t prefix, uint32_t suffix, uint64_t addr,
			   struct pda_ppc_pfx *out, char *ops, size_t len)
{
	char rt[8];

	if (!pda_ppc_prefixed(prefix, suffix, out))
		return reg_only_text(prefix, suffix, out, ops, len);
	reg_text(out, suffix, rt, sizeof(rt));
	/* objdump's operands: the displacement in decimal, "(rA)" for a
	 * base, nothing for R 1, whose address follows as a comment */
	if (out->pcrel)
		snprintf(ops, len, "%s, %" PRId64 "\t# %" PRIx64, rt, out->disp,
			 addr + (uint64_t)out->disp);
	else if (out->addi && out->ra)
		snprintf(ops, len, "%s, r%d, %" PRId64, rt, out->ra, out->disp);
	else if (out->addi)
		snprintf(ops, len, "%s, %" PRId64, rt, out->disp);
	else
		snprintf(ops, len, "%s, %" PRId64 "(r%d)", rt, out->disp,
			 out->ra);
	return true;
}
