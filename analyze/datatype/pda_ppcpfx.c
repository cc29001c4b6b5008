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
 * doubleword, quadword and vector ones).
 */
#include "pda_datatype_int.h"

/* A suffix opcode's operation: bytes moved, store, to or from a GPR. */
struct pfx_op {
	uint8_t opcode;
	uint8_t size;
	bool store;
	bool gpr;
};

/* MLS:D's (type 2) loads and stores by suffix opcode. */
static const struct pfx_op mls[] = {
	{32, 4, false, true},  /* plwz */
	{34, 1, false, true},  /* plbz */
	{36, 4, true, true},   /* pstw */
	{38, 1, true, true},   /* pstb */
	{40, 2, false, true},  /* plhz */
	{42, 2, false, true},  /* plha */
	{44, 2, true, true},   /* psth */
	{48, 4, false, false}, /* plfs */
	{50, 8, false, false}, /* plfd */
	{52, 4, true, false},  /* pstfs */
	{54, 8, true, false},  /* pstfd */
};

/* 8LS:D's (type 0). */
static const struct pfx_op ls8[] = {
	{41, 4, false, true},	/* plwa */
	{42, 8, false, false},	/* plxsd */
	{43, 4, false, false},	/* plxssp */
	{46, 8, true, false},	/* pstxsd */
	{47, 4, true, false},	/* pstxssp */
	{50, 16, false, false}, /* plxv (TX 0) */
	{51, 16, false, false}, /* plxv (TX 1) */
	{54, 16, true, false},	/* pstxv (TX 0) */
	{55, 16, true, false},	/* pstxv (TX 1) */
	{56, 16, false, true},	/* plq */
	{57, 8, false, true},	/* pld */
	{58, 32, false, false}, /* plxvp */
	{60, 16, true, true},	/* pstq */
	{61, 8, true, true},	/* pstd */
	{62, 32, true, false},	/* pstxvp */
};

bool pda_ppc_is_prefix(uint32_t word)
{
	return word >> 26 == 1;
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
	if (type == 2 && opcode == 14) { /* paddi (pla, pli) */
		out->addi = true;
		out->size = 0;
		out->store = false;
		out->gpr = true;
		return !out->pcrel || !out->ra;
	}
	for (size_t i = 0; i < nr; i++)
		if (ops[i].opcode == opcode) {
			out->size = ops[i].size;
			out->store = ops[i].store;
			out->gpr = ops[i].gpr;
			/* R 1 with RA nonzero is an invalid form */
			return !out->pcrel || !out->ra;
		}
	return false;
}
