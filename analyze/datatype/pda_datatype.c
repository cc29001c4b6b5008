/*
 * pda_datatype.c - data-type attribution of samples (issue 19): the
 * instruction at the sample's ip decoded with capstone in the binary's
 * architecture (x86_64, i386, aarch64, arm in Thumb or ARM state) for its
 * memory operand, then the
 * type and member at that operand from DWARF (symbols' pda_dwtype.c).
 *
 * As perf >= 6.8: the base register and displacement select the type
 * (the index register selects an element, not the type); a PC-relative
 * operand (x86 RIP-relative, aarch64 literal loads) is a global's
 * address.  Beyond perf, a base register that the function's code
 * before the pc set to an address (aarch64 ADRP, ADRP+ADD; x86 lea of a
 * RIP-relative address), found by a straight walk from the function's
 * start, is a global's address too: perf finds no base register for
 * aarch64 at all.  The walk follows no branches: a register set on one
 * path and changed on another is taken as set.
 *
 * Each distinct instruction (binary, address) is decoded and looked up
 * once; a sample costs its leaf's resolution and a hash lookup.
 */
#include "pda_datatype_int.h"
#include "pda_stack_int.h"
#include "pda_annotate_int.h"
#include "pda_machine_int.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Instructions the walk from a function's start decodes at most. */
#define MAX_WALK 4096
#define NR_DWREGS 32

struct memo {
	struct pda_datatype_res res; /* first: pda_datatype_layout() finds
				      * the memo from it */
	const struct pda_dso *dso;
	uint64_t vaddr;
};

/* A frame as the pipeline resolved it (its DSO's interned name and the
 * address in it) to its instruction's memo. */
struct alias {
	const char *dso;
	uint64_t dso_addr;
	struct memo *m;
};

struct pda_datatype {
	struct pda_session *s;
	struct pdc_hash memo;
	struct pdc_hash aliases;
	struct pda_stack st;
	uint64_t samples[PDA_DATATYPE_NR_WHY];
	uint64_t periods[PDA_DATATYPE_NR_WHY];
	struct pda_annot_cs cs;	/* for the arch and mode last decoded */
	const char *unknown, *stackop, *canary; /* interned pseudo types */
	struct edge *edges;	/* walk_addrs()'s forward branches */
	struct pda_elf *walk_elf; /* the binary walk_addrs() walks: its
				   * callees' code */
	uint64_t toc;		/* its TOC pointer (ppc64), 0 unknown */
	unsigned unit;		/* the step over bytes that do not decode */
	size_t nr_edges, alloc_edges;
	/* the recording x86 CPU's macro-fusion (fused()), from the
	 * capture's CPUID when first needed */
	enum { FUSE_UNKNOWN, FUSE_NONE, FUSE_INTEL, FUSE_AMD } fuse;
	unsigned family, model;
};

/* A decoded memory access. */
struct access {
	enum pda_datatype_kind kind; /* TYPE: look it up; or a pseudo type */
	int reg;		     /* DWARF number of the base; -1 none */
	int index;		     /* of a register added to it (ppc64's
				      * X-form, s390x's index), -1 none:
				      * an element of what the base points
				      * to, or the base of what the index
				      * holds (perf's multi_regs) */
	int addend;		     /* x86's unscaled index, -1 none: what
				      * the walk finds there added when both
				      * it and the base hold addresses
				      * (i386's foo@GOTOFF in a register
				      * plus the GOT's base) */
	int64_t disp;
	bool has_addr;		     /* addr is the address accessed */
	uint64_t addr;
	unsigned size;
	bool store;
};

int pda_datatype_new(struct pda_session *s, struct pda_datatype **out)
{
	struct pda_datatype *dt;

	*out = NULL;
	dt = pda_zalloc(s, sizeof(*dt));
	if (!dt)
		return PD_ERR_NOMEM;
	dt->s = s;
	dt->unknown = pda_intern(s, "(unknown)", 9);
	dt->stackop = pda_intern(s, "(stack operation)", 17);
	dt->canary = pda_intern(s, "(stack canary)", 14);
	if (!dt->unknown || !dt->stackop || !dt->canary) {
		pda_free(s, dt);
		return PD_ERR_NOMEM;
	}
	*out = dt;
	return 0;
}

void pda_datatype_free(struct pda_datatype *dt)
{
	size_t pos = 0;
	void *it;

	if (!dt)
		return;
	while ((it = pdc_hash_next(&dt->memo, &pos)))
		pda_free(dt->s, it);
	pos = 0;
	while ((it = pdc_hash_next(&dt->aliases, &pos)))
		pda_free(dt->s, it);
	pdc_hash_release(pda_session_alloc(dt->s), &dt->memo);
	pdc_hash_release(pda_session_alloc(dt->s), &dt->aliases);
	pda_stack_release(dt->s, &dt->st);
	pda_free(dt->s, dt->edges);
	pda_annot_cs_release(&dt->cs);
	pda_free(dt->s, dt);
}

const uint64_t *pda_datatype_coverage(const struct pda_datatype *dt,
				      const uint64_t **periods)
{
	if (periods)
		*periods = dt->periods;
	return dt->samples;
}

const char *pda_datatype_why_str(enum pda_datatype_why why)
{
	static const char *const words[PDA_DATATYPE_NR_WHY] = {
		[PDA_DATATYPE_FOUND] = "attributed",
		[PDA_DATATYPE_NO_BINARY] = "no binary or symbol",
		[PDA_DATATYPE_NO_ARCH] = "architecture not decoded",
		[PDA_DATATYPE_NO_CODE] = "no code bytes",
		[PDA_DATATYPE_NO_MEMOP] = "no memory operand",
		[PDA_DATATYPE_NO_DWARF] = "no debug info",
		[PDA_DATATYPE_NO_VAR] = "no variable in the base register",
		[PDA_DATATYPE_NO_POINTER] = "variable not a pointer",
		[PDA_DATATYPE_BAD_OFFSET] = "bad offset",
		[PDA_DATATYPE_NO_GLOBAL] = "no global at the address",
	};

	return (unsigned)why < PDA_DATATYPE_NR_WHY ? words[why] : "?";
}

/* ---- registers ------------------------------------------------------ */

/* x86_64's DWARF numbers (System V psABI) for capstone's registers, any
 * width; -1 for others.  i386 numbers its eight differently. */
static int x86_dwreg(unsigned reg, bool is64)
{
	static const unsigned regs[][5] = {
		/* DWARF x86_64 order: rax rdx rcx rbx rsi rdi rbp rsp */
		{X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, 0},
		{X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, 0},
		{X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, 0},
		{X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, 0},
		{X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0},
		{X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0},
		{X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0},
		{X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0},
		{X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0},
		{X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0},
		{X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0},
		{X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0},
		{X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0},
		{X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0},
		{X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0},
		{X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0},
	};
	/* i386: eax ecx edx ebx esp ebp esi edi */
	static const int i386_of[8] = {0, 2, 1, 3, 6, 7, 5, 4};

	for (int i = 0; i < 16; i++)
		for (int w = 0; regs[i][w]; w++)
			if (regs[i][w] == reg)
				return is64 ? i : (i < 8 ? i386_of[i] : -1);
	return -1;
}

/* aarch64's DWARF numbers: x0-x30 and w0-w30 are 0-30, sp 31. */
static int arm64_dwreg(unsigned reg)
{
	if (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28)
		return (int)(reg - ARM64_REG_X0);
	if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
		return (int)(reg - ARM64_REG_W0);
	if (reg == ARM64_REG_X29)
		return 29;
	if (reg == ARM64_REG_X30)
		return 30;
	if (reg == ARM64_REG_SP || reg == ARM64_REG_WSP)
		return 31;
	return -1;
}

/* arm's DWARF numbers: r0-r15 are 0-15 (sp 13, lr 14, pc 15). */
static int arm_dwreg(unsigned reg)
{
	if (reg >= ARM_REG_R0 && reg <= ARM_REG_R12)
		return (int)(reg - ARM_REG_R0);
	if (reg == ARM_REG_SP)
		return 13;
	if (reg == ARM_REG_LR)
		return 14;
	if (reg == ARM_REG_PC)
		return 15;
	return -1;
}

/* reg's place in the run of capstone registers [first, last], which
 * the ABI numbers from 0 in DWARF, or -1. */
static int in_run(unsigned reg, unsigned first, unsigned last)
{
	return reg >= first && reg <= last ? (int)(reg - first) : -1;
}

/* ppc64's DWARF numbers (64-bit ELF ABI): r0-r31 are 0-31 (r1 the
 * stack pointer, r2 the TOC pointer; capstone 4 names r2 X2 in some
 * instructions); s390x's (zSeries ELF ABI): r0-r15 are 0-15 (r15 the
 * stack pointer, r11 the frame pointer), the floating-point registers,
 * 16 on, hold no addresses. */
static int ppc_dwreg(unsigned reg)
{
	return reg == PPC_REG_X2 ? 2 : in_run(reg, PPC_REG_R0, PPC_REG_R31);
}

static int sysz_dwreg(unsigned reg)
{
	return in_run(reg, SYSZ_REG_0, SYSZ_REG_15);
}

static int dwreg(const struct pda_datatype *dt, unsigned reg)
{
	if (dt->cs.arch == CS_ARCH_X86)
		return x86_dwreg(reg, dt->cs.mode == CS_MODE_64);
	if (dt->cs.arch == CS_ARCH_ARM)
		return arm_dwreg(reg);
	if (dt->cs.arch == CS_ARCH_PPC)
		return ppc_dwreg(reg);
	if (dt->cs.arch == CS_ARCH_SYSZ)
		return sysz_dwreg(reg);
	return arm64_dwreg(reg);
}

/* ---- decoding -------------------------------------------------------- */

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static void x86_access(const struct pda_datatype *dt, const cs_insn *in,
		       struct access *a)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_PUSH:
	case X86_INS_POP:
	case X86_INS_CALL:
	case X86_INS_RET:
	case X86_INS_LEAVE:
		a->kind = PDA_DATATYPE_STACKOP;
		return;
	case X86_INS_LEA:
	case X86_INS_NOP:
		return;
	default:
		break;
	}
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		a->size = op->size;
		a->store = (op->access & CS_AC_WRITE) != 0;
		a->disp = op->mem.disp;
		if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS) {
			/* the stack protector's guard: %fs:0x28, %gs:0x14 */
			if (op->mem.base == X86_REG_INVALID &&
			    op->mem.index == X86_REG_INVALID &&
			    op->mem.disp == (dt->cs.mode == CS_MODE_64 ? 0x28 : 0x14))
				a->kind = PDA_DATATYPE_CANARY;
			a->reg = -2; /* thread-local: no variable of ours */
			return;
		}
		if (op->mem.base == X86_REG_RIP) {
			a->has_addr = true;
			a->addr = in->address + in->size + (uint64_t)op->mem.disp;
		} else if (op->mem.base == X86_REG_INVALID) {
			if (op->mem.index == X86_REG_INVALID) {
				a->has_addr = true;
				a->addr = (uint64_t)op->mem.disp;
			}
		} else {
			a->reg = dwreg(dt, op->mem.base);
			if (op->mem.index != X86_REG_INVALID &&
			    op->mem.scale == 1)
				a->addend = dwreg(dt, op->mem.index);
		}
		a->kind = PDA_DATATYPE_TYPE;
		return;
	}
}

/* The bytes an aarch64 load or store moves, from its mnemonic and its
 * first register. */
static unsigned arm64_size(const cs_insn *in, unsigned reg)
{
	const char *m = in->mnemonic;
	const size_t len = strlen(m);
	unsigned size;

	if (len && m[len - 1] == 'b' && !prefix(m, "sub"))
		size = 1;
	else if (len && m[len - 1] == 'h')
		size = 2;
	else if (len > 1 && !strcmp(m + len - 2, "sw"))
		size = 4;
	else if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
		size = 4;
	else if (reg >= ARM64_REG_S0 && reg <= ARM64_REG_S31)
		size = 4;
	else if (reg >= ARM64_REG_Q0 && reg <= ARM64_REG_Q31)
		size = 16;
	else if (reg >= ARM64_REG_H0 && reg <= ARM64_REG_H31)
		size = 2;
	else if (reg >= ARM64_REG_B0 && reg <= ARM64_REG_B31)
		size = 1;
	else
		size = 8;
	/* pairs: ldp, stp, ldnp, stnp, ldaxp, stlxp, ... */
	if (len && m[len - 1] == 'p' && strcmp(m, "prfm"))
		size *= 2;
	return size;
}

static void arm64_access(const struct pda_datatype *dt, const cs_insn *in,
			 struct access *a)
{
	const cs_arm64 *x = &in->detail->arm64;
	const char *m = in->mnemonic;
	unsigned first = x->op_count && x->operands[0].type == ARM64_OP_REG
				 ? x->operands[0].reg
				 : 0;

	if (!(prefix(m, "ld") || prefix(m, "st") || prefix(m, "cas") ||
	      prefix(m, "swp")) ||
	    prefix(m, "prfm"))
		return;
	a->size = arm64_size(in, first);
	a->store = prefix(m, "st") || prefix(m, "cas") || prefix(m, "swp") ||
		   (prefix(m, "ld") && strncmp(m, "ldr", 3) &&
		    strncmp(m, "ldp", 3) && strncmp(m, "ldu", 3) &&
		    strncmp(m, "ldn", 3) && strncmp(m, "lda", 3) &&
		    strncmp(m, "ldx", 3) && strncmp(m, "ldl", 3) &&
		    strncmp(m, "ld1", 3) && strncmp(m, "ld2", 3) &&
		    strncmp(m, "ld3", 3) && strncmp(m, "ld4", 3));
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_arm64_op *op = &x->operands[i];

		if (op->type == ARM64_OP_MEM) {
			a->reg = dwreg(dt, op->mem.base);
			/* pre-index: [x1, #8]! is at x1 + 8; post-index:
			 * [x1], #8 at x1, the #8 a separate operand */
			a->disp = op->mem.disp;
			a->kind = a->reg == 31 && x->writeback
					  ? PDA_DATATYPE_STACKOP
					  : PDA_DATATYPE_TYPE;
			return;
		}
	}
	/* a literal load: ldr x0, <label> */
	if (prefix(m, "ldr") && x->op_count == 2 &&
	    x->operands[1].type == ARM64_OP_IMM) {
		a->has_addr = true;
		a->addr = (uint64_t)x->operands[1].imm;
		a->kind = PDA_DATATYPE_TYPE;
	}
}

/* The value of arm's pc as an instruction at addr reads it: 4 bytes on
 * in Thumb, 8 in ARM state; aligned down to 4 as a literal load
 * addresses. */
static uint64_t arm_pc(const struct pda_datatype *dt, uint64_t addr)
{
	return (addr + ((dt->cs.mode & CS_MODE_THUMB) ? 4 : 8)) & ~(uint64_t)3;
}

/* An arm operand's displacement, its sign applied (capstone keeps
 * "#-8" as 8 with subtracted set). */
static int64_t arm_disp(const cs_arm_op *op)
{
	return op->subtracted && op->mem.disp > 0 ? -(int64_t)op->mem.disp
						  : op->mem.disp;
}

/* The bytes an arm load or store moves, from its mnemonic. */
static unsigned arm_size(const cs_insn *in)
{
	const char *m = in->mnemonic;

	if (prefix(m, "ldrd") || prefix(m, "strd"))
		return 8;
	if (prefix(m, "ldrb") || prefix(m, "strb") || prefix(m, "ldrsb") ||
	    prefix(m, "ldrexb") || prefix(m, "strexb"))
		return 1;
	if (prefix(m, "ldrh") || prefix(m, "strh") || prefix(m, "ldrsh") ||
	    prefix(m, "ldrexh") || prefix(m, "strexh"))
		return 2;
	if (prefix(m, "vldr") || prefix(m, "vstr"))
		return in->detail->arm.operands[0].reg >= ARM_REG_D0 &&
				       in->detail->arm.operands[0].reg <= ARM_REG_D31
			       ? 8
			       : 4;
	return 4;
}

/* arm (Thumb-2 and ARM state): ldr and str with their byte, half,
 * signed, dual, exclusive and acquire/release forms, vldr and vstr; push,
 * pop and sp's writeback forms are stack operations; ldm and stm are not
 * attributed (several words at once). */
static void arm_access(const struct pda_datatype *dt, const cs_insn *in,
		       struct access *a)
{
	const cs_arm *x = &in->detail->arm;
	const char *m = in->mnemonic;

	if (in->id == ARM_INS_PUSH || in->id == ARM_INS_POP ||
	    in->id == ARM_INS_BL || in->id == ARM_INS_BLX) {
		a->kind = in->id == ARM_INS_PUSH || in->id == ARM_INS_POP
				  ? PDA_DATATYPE_STACKOP
				  : PDA_DATATYPE_UNKNOWN;
		return;
	}
	if (!(prefix(m, "ldr") || prefix(m, "str") || prefix(m, "vldr") ||
	      prefix(m, "vstr") || prefix(m, "lda") || prefix(m, "stl")))
		return;
	a->size = arm_size(in);
	a->store = prefix(m, "str") || prefix(m, "vstr") || prefix(m, "stl");
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_arm_op *op = &x->operands[i];

		if (op->type != ARM_OP_MEM)
			continue;
		a->disp = arm_disp(op);
		if (op->mem.base == ARM_REG_PC) {
			/* a literal: ldr r3, [pc, #8] */
			a->has_addr = true;
			a->addr = arm_pc(dt, in->address) + (uint64_t)a->disp;
		} else {
			a->reg = dwreg(dt, op->mem.base);
		}
		a->kind = a->reg == 13 && x->writeback ? PDA_DATATYPE_STACKOP
						       : PDA_DATATYPE_TYPE;
		return;
	}
}

/* The 4-byte word at c in the byte order of dt's mode. */
static uint32_t word_of(const struct pda_datatype *dt, const unsigned char *c)
{
	return (dt->cs.mode & CS_MODE_BIG_ENDIAN)
		       ? (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
				 (uint32_t)c[2] << 8 | c[3]
		       : (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
				 (uint32_t)c[1] << 8 | c[0];
}

/* ppc64's X-form loads and stores (primary opcode 31, RA + RB) by their
 * extended opcode (bits 21-30): perf's list (arch/powerpc/annotate),
 * with lbarx, lharx, stwcx., stdcx., lfsx and stfsx, which it lacks;
 * sorted. */
static const uint16_t ppc_xmem[] = {
	12,  20,  21,  23,  52,  53,  55,  76,  84,  87,  103, 116, 119,
	140, 149, 150, 151, 181, 183, 214, 215, 231, 247, 279, 311, 332,
	341, 343, 373, 375, 407, 439, 524, 532, 533, 534, 535, 567, 588,
	597, 599, 631, 652, 660, 661, 662, 663, 695, 716, 725, 727, 759,
	780, 790, 844, 855, 887, 908, 918, 972, 983,
};

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static bool ppc_xform_mem(uint32_t w)
{
	const uint16_t xo = (uint16_t)((w >> 1) & 0x3ff);

	return w >> 26 == 31 &&
	       bsearch(&xo, ppc_xmem, sizeof(ppc_xmem) / sizeof(*ppc_xmem),
		       sizeof(*ppc_xmem), cmp_u16);
}

/* The bytes a ppc64 load or store moves, from its mnemonic: the letter
 * after l or st (lbz, lhz, lwz, lwa, ld, lq; lfd and lfs; lvx and the
 * VSX lxv forms). */
static unsigned ppc_size(const char *m)
{
	const char *p = m + (m[0] == 'l' ? 1 : 2);

	switch (p[0]) {
	case 'b':
		return 1;
	case 'h':
		return 2;
	case 'w':
	case 'm':
		return 4;
	case 'd':
		return 8;
	case 'q':
	case 'v':
		return 16;
	case 'f':
		return p[1] == 'd' ? 8 : 4;
	case 'x':
		return p[1] != 's' ? 16 : p[2] == 'd' ? 8 : 4;
	default:
		return 0;
	}
}

/* Whether a ppc64 load or store writes its address back to RA (lwzu,
 * ldu, stdu, lbzux, ...). */
static bool ppc_update(const char *m)
{
	size_t len = strlen(m);

	if (len && m[len - 1] == 'x')
		len--;
	return len && m[len - 1] == 'u';
}

/*
 * ppc64, as perf's powerpc rules: D- and DS-form loads and stores (a
 * memory operand: RA plus a displacement; RA 0 is no register but 0)
 * and X-form ones (RA + RB: the base and an index, either the pointer);
 * an update form on r1 (stdu r1, -N(r1): the frame's push) is a stack
 * operation.
 */
static void ppc_access(const struct pda_datatype *dt, const cs_insn *in,
		       struct access *a)
{
	const cs_ppc *x = &in->detail->ppc;
	const uint32_t w = word_of(dt, in->bytes);
	const int ra = (int)(w >> 16 & 31), rb = (int)(w >> 11 & 31);
	const bool xform = ppc_xform_mem(w);

	if (!xform && !(x->op_count == 2 && x->operands[1].type == PPC_OP_MEM))
		return;
	a->size = ppc_size(in->mnemonic);
	a->store = prefix(in->mnemonic, "st");
	a->kind = PDA_DATATYPE_TYPE;
	if (xform) {
		a->reg = ra ? ra : rb;
		a->index = ra ? rb : -1;
	} else if (ra) {
		a->reg = ra;
		a->disp = x->operands[1].mem.disp;
	} else {
		a->has_addr = true;
		a->addr = (uint64_t)(int64_t)x->operands[1].mem.disp;
	}
	if (a->reg == 1 && ppc_update(in->mnemonic))
		a->kind = PDA_DATATYPE_STACKOP;
}

/* Whether the code at c (len bytes) starts with a Power10 prefixed
 * load, store or paddi, into *x (capstone 4 decodes none). */
static bool ppc_pfx_at(const struct pda_datatype *dt, const unsigned char *c,
		       size_t len, struct pda_ppc_pfx *x)
{
	return dt->cs.arch == CS_ARCH_PPC && len >= 8 &&
	       pda_ppc_is_prefix(word_of(dt, c)) &&
	       pda_ppc_prefixed(word_of(dt, c), word_of(dt, c + 4), x);
}

/* A prefixed load or store at vaddr as ppc_access() decodes the D-form
 * ones: RA plus the 34-bit displacement, or PC-relative (R 1): a
 * global's address; paddi accesses nothing. */
static void ppc_pfx_access(const struct pda_ppc_pfx *x, uint64_t vaddr,
			   struct access *a)
{
	if (x->addi)
		return;
	a->kind = PDA_DATATYPE_TYPE;
	a->size = x->size;
	a->store = x->store;
	if (x->pcrel || !x->ra) {
		a->has_addr = true;
		a->addr = (x->pcrel ? vaddr : 0) + (uint64_t)x->disp;
	} else {
		a->reg = x->ra;
		a->disp = x->disp;
	}
}

/* The bytes an s390x storage operand of mnemonic m (length: an SS
 * format's) covers: its long-displacement y and PC-relative rl
 * dropped, the last letter says (lg, stg, ag: 8; lgf, l, st: 4; lh,
 * sth: 2; lb, llgc, stc: 1; ld, std: 8; le, ste: 4); the storage-
 * immediate forms by their letters (mvghi, mvhi, mvhhi, mvi, cli). */
static unsigned sysz_size(const char *m, uint64_t length)
{
	char b[16];
	size_t len;

	if (length)
		return (unsigned)length;
	snprintf(b, sizeof(b), "%s", m);
	len = strlen(b);
	if (len > 2 && !strcmp(b + len - 2, "rl"))
		b[len -= 2] = '\0';
	if (len > 1 && b[len - 1] == 'y')
		b[--len] = '\0';
	if (!len)
		return 0;
	if (b[len - 1] == 'i' || prefix(b, "tm"))
		return strstr(b, "g")	 ? 8
		       : strstr(b, "hh") ? 2
		       : strchr(b, 'h') || strstr(b, "si") ? 4
							  : 1;
	switch (b[len - 1]) {
	case 'g':
	case 'd':
		return 8;
	case 'h':
		return 2;
	case 'b':
	case 'c':
		return 1;
	case 'q':
		return 16;
	default:
		return 4;
	}
}

/* Whether s390x's m is a PC-relative load or store (lgrl, strl, lgfrl,
 * clgrl, ...): its immediate operand is the address. */
static bool sysz_pcrel(const char *m)
{
	const size_t len = strlen(m);

	return len > 2 && !strcmp(m + len - 2, "rl") && strcmp(m, "larl") &&
	       strcmp(m, "exrl") && strcmp(m, "pfdrl");
}

/*
 * s390x: an operand in storage, base + index + displacement (base or
 * index 0 is none), or a PC-relative one; la, lay, lae and larl compute
 * an address (no access), branches and execute take theirs as a target;
 * stm and lm on the stack or frame pointer save and restore registers
 * (stack operations).
 */
static void sysz_access(const cs_insn *in,
			struct access *a)
{
	const cs_sysz *x = &in->detail->sysz;
	const char *m = in->mnemonic;

	if (!strcmp(m, "la") || !strcmp(m, "lay") || !strcmp(m, "lae") ||
	    !strcmp(m, "laey") || m[0] == 'b' || m[0] == 'j' ||
	    prefix(m, "ex") || prefix(m, "pfd"))
		return;
	if (sysz_pcrel(m) && x->op_count == 2 &&
	    x->operands[1].type == SYSZ_OP_IMM) {
		a->kind = PDA_DATATYPE_TYPE;
		a->has_addr = true;
		a->addr = (uint64_t)x->operands[1].imm;
		a->size = sysz_size(m, 0);
		a->store = prefix(m, "st");
		return;
	}
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_sysz_op *op = &x->operands[i];
		int base, index;

		if (op->type != SYSZ_OP_MEM)
			continue;
		base = sysz_dwreg(op->mem.base);
		index = sysz_dwreg(op->mem.index);
		a->kind = PDA_DATATYPE_TYPE;
		a->size = sysz_size(m, op->mem.length);
		a->store = prefix(m, "st") || prefix(m, "mv") || prefix(m, "xc");
		a->disp = op->mem.disp;
		a->reg = base >= 0 ? base : index;
		a->index = base >= 0 ? index : -1;
		if (a->reg < 0) {
			a->has_addr = true;
			a->addr = (uint64_t)op->mem.disp;
		}
		if ((prefix(m, "stm") || prefix(m, "lm")) &&
		    (a->reg == 15 || a->reg == 11))
			a->kind = PDA_DATATYPE_STACKOP;
		return;
	}
}

/*
 * What a register holds at a point of the walk: what register reg held
 * at pc (VAR: DWARF's variables at pc say what that is), an address
 * (ADDR, reg -1: 0, the address in val or loads[0]), or what the
 * function at address pc returned (RET, reg -1: its DWARF return type
 * says what it points to); then the pointers loaded from it, each at
 * loads[k] from the one before (a variable's memory, a global, or a
 * member of the previous pointer's target: p->q->r), and val added to
 * the last.  A register nothing is known of holds "itself here": VAR
 * at the instruction, no loads, val 0.
 */
enum rkind { R_VAR, R_ADDR, R_RET };

/* Pointers loaded in a row that the walk follows: the first and
 * pda_dt_access's path. */
#define MAX_LOADS (PDA_DT_MAX_PATH + 1)

struct rval {
	enum rkind kind;
	int reg;
	uint64_t pc;
	int64_t val;
	bool elem;	/* a register index added to the last value: an
			 * element of what it points to, the offset taken
			 * modulo its size */
	bool scaled;	/* shifted or multiplied (ppc64, s390x): an
			 * index, not the pointer it is added to */
	uint8_t nr_loads;
	uint8_t load_elems; /* bit k: elem, before load k */
	/* R_ADDR: the address of the variable another binary defines
	 * under this name (a GOT slot's symbol), val added; or NULL */
	const char *gname;
	int64_t loads[MAX_LOADS];
	/* A register reloaded from a stack slot as spilled: what it
	 * held is read as a variable at its pc first, else (-O0, where
	 * DWARF places the variable in the slot, not in the register it
	 * came in) as loaded from the slot, VAR alt_reg at alt_pc plus
	 * alt_off: one load more before loads. */
	bool alt;
	int alt_reg;
	uint64_t alt_pc;
	int64_t alt_off;
};

/* Stack slots followed per walk: registers spilled and not yet
 * overwritten. */
#define NR_SLOTS 16

/* A register's value stored at base + off (base the stack or frame
 * pointer), as perf's stack-slot tracking keeps it: a reload gives the
 * register back what was stored. */
struct slot {
	bool used;
	int base;
	int64_t off;
	unsigned size;	/* the spill's bytes: a pointer's */
	struct rval v;
};

struct regs {
	struct rval r[NR_DWREGS];
	struct slot slots[NR_SLOTS];
};

/* The registers at a forward branch's target, as the branch left them. */
struct edge {
	uint64_t target;
	struct regs r;
};

static void forget(struct rval *v, int reg, uint64_t pc)
{
	memset(v, 0, sizeof(*v));
	v->kind = R_VAR;
	v->reg = reg;
	v->pc = pc;
}

static bool rval_eq(const struct rval *a, const struct rval *b)
{
	return a->kind == b->kind && a->val == b->val && a->elem == b->elem &&
	       a->scaled == b->scaled &&
	       (a->kind == R_ADDR || (a->reg == b->reg && a->pc == b->pc)) &&
	       a->nr_loads == b->nr_loads && a->load_elems == b->load_elems &&
	       a->gname == b->gname &&
	       !memcmp(a->loads, b->loads, a->nr_loads * sizeof(*a->loads)) &&
	       a->alt == b->alt &&
	       (!a->alt || (a->alt_reg == b->alt_reg && a->alt_pc == b->alt_pc &&
			    a->alt_off == b->alt_off));
}

static bool slot_eq(const struct slot *a, const struct slot *b)
{
	return a->used == b->used &&
	       (!a->used || (a->base == b->base && a->off == b->off &&
			     rval_eq(&a->v, &b->v)));
}

/* Keep in a what a and b agree on; the rest holds itself at pc. */
static void meet(struct regs *a, const struct regs *b, uint64_t pc)
{
	for (int r = 0; r < NR_DWREGS; r++)
		if (!rval_eq(&a->r[r], &b->r[r]))
			forget(&a->r[r], r, pc);
	for (int i = 0; i < NR_SLOTS; i++)
		if (!slot_eq(&a->slots[i], &b->slots[i]))
			a->slots[i].used = false;
}

static void regs_init(struct regs *st, uint64_t pc)
{
	for (int r = 0; r < NR_DWREGS; r++)
		forget(&st->r[r], r, pc);
	memset(st->slots, 0, sizeof(st->slots));
}

/* The slot at base + off, or NULL. */
static struct slot *slot_find(struct regs *st, int base, int64_t off)
{
	for (int i = 0; i < NR_SLOTS; i++)
		if (st->slots[i].used && st->slots[i].base == base &&
		    st->slots[i].off == off)
			return &st->slots[i];
	return NULL;
}

/* A store of size bytes at base + off: the slots it overlaps are gone. */
static void slot_clobber(struct regs *st, int base, int64_t off,
			 unsigned size)
{
	for (int i = 0; i < NR_SLOTS; i++) {
		struct slot *sl = &st->slots[i];

		if (sl->used && sl->base == base && sl->off < off + (int64_t)size &&
		    off < sl->off + (int64_t)sl->size)
			sl->used = false;
	}
}

/* v spilled to base + off (size bytes), in the slot it replaces or a
 * free one (the first, when all are taken: a deep function's oldest). */
static void slot_store(struct regs *st, int base, int64_t off,
		       unsigned size, const struct rval *v)
{
	struct slot *sl;
	int i;

	slot_clobber(st, base, off, size);
	for (i = 0; i < NR_SLOTS && st->slots[i].used; i++)
		;
	sl = &st->slots[i < NR_SLOTS ? i : 0];
	sl->used = true;
	sl->base = base;
	sl->off = off;
	sl->size = size;
	sl->v = *v;
}

/* A write to register reg: the slots addressed by it are gone. */
static void slots_rebased(struct regs *st, int reg)
{
	for (int i = 0; i < NR_SLOTS; i++)
		if (st->slots[i].base == reg)
			st->slots[i].used = false;
}

/* A jump's target (its immediate operand), or 0. */
static uint64_t jump_target(const struct pda_datatype *dt, const cs_insn *in)
{
	uint64_t t;

	return pda_annot_branch_target(dt->cs.arch, in, &t) ? t : 0;
}

/* Whether ppc64's branch mnemonic m is a call (it sets the link
 * register: bl, bla, bctrl, bcl, ...; bnl and bnla are "not less"),
 * perf's rule. */
static bool ppc_call(const char *m)
{
	char b[16];
	size_t len;

	snprintf(b, sizeof(b), "%s", m);
	len = strlen(b);
	if (len && (b[len - 1] == '+' || b[len - 1] == '-'))
		b[--len] = '\0';
	if (b[0] != 'b' || len < 2 || !strcmp(b, "bnl") || !strcmp(b, "bnla"))
		return false;
	return b[len - 1] == 'l' || (b[len - 1] == 'a' && b[len - 2] == 'l');
}

/* Whether s390x's m is a call: brasl, bras, basr, bas. */
static bool sysz_call(const char *m)
{
	return prefix(m, "bras") || prefix(m, "bas");
}

/* Whether in is a branch within the function, not a call: capstone 4
 * puts no ppc64 and only some s390x branches in CS_GRP_JUMP. */
static bool is_jump(const struct pda_datatype *dt, const cs_insn *in)
{
	const char *m = in->mnemonic;

	if (dt->cs.arch == CS_ARCH_PPC)
		return m[0] == 'b' && !ppc_call(m);
	if (dt->cs.arch == CS_ARCH_SYSZ)
		return m[0] == 'j' || (m[0] == 'b' && !sysz_call(m));
	return cs_insn_group(dt->cs.h, in, CS_GRP_JUMP);
}

/* Whether an arm pop or ldm loads pc: a return. */
static bool arm_writes_pc(const cs_insn *in)
{
	const cs_arm *x = &in->detail->arm;

	if (in->id != ARM_INS_POP && in->id != ARM_INS_LDM)
		return false;
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == ARM_OP_REG &&
		    x->operands[i].reg == ARM_REG_PC)
			return true;
	return false;
}

/* Whether in leaves no way to the next instruction: an unconditional
 * jump or a return. */
static bool ends_flow(const struct pda_datatype *dt, const cs_insn *in)
{
	if (cs_insn_group(dt->cs.h, in, CS_GRP_RET))
		return true;
	if (dt->cs.arch == CS_ARCH_X86)
		return in->id == X86_INS_JMP;
	if (dt->cs.arch == CS_ARCH_ARM)
		return ((in->id == ARM_INS_B || in->id == ARM_INS_BX) &&
			(in->detail->arm.cc == ARM_CC_AL ||
			 in->detail->arm.cc == ARM_CC_INVALID)) ||
		       arm_writes_pc(in);
	/* ppc64: b, blr, bctr; s390x: j, jg, br (a return through r14) */
	if (dt->cs.arch == CS_ARCH_PPC)
		return in->id == PPC_INS_B || in->id == PPC_INS_BA ||
		       in->id == PPC_INS_BLR || in->id == PPC_INS_BCTR;
	if (dt->cs.arch == CS_ARCH_SYSZ)
		return !strcmp(in->mnemonic, "j") ||
		       !strcmp(in->mnemonic, "jg") ||
		       !strcmp(in->mnemonic, "br") ||
		       !strcmp(in->mnemonic, "b");
	return (in->id == ARM64_INS_B &&
		in->detail->arm64.cc == ARM64_CC_INVALID) ||
	       in->id == ARM64_INS_BR;
}

/* Whether in is an alignment filler that changes nothing: nop, and the
 * long no-ops compilers pad with (lea %esi,0(%esi,%eiz,1); xchg %ax,%ax;
 * mov %edi,%edi). */
static bool padding(const struct pda_datatype *dt, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	if (dt->cs.arch == CS_ARCH_ARM64)
		return in->id == ARM64_INS_NOP;
	if (dt->cs.arch == CS_ARCH_ARM)
		return in->id == ARM_INS_NOP;
	if (dt->cs.arch == CS_ARCH_PPC)
		return in->id == PPC_INS_NOP;
	/* s390x: nopr, nop, and bcr 0 (a branch never taken) */
	if (dt->cs.arch == CS_ARCH_SYSZ)
		return prefix(in->mnemonic, "nop") ||
		       (!strcmp(in->mnemonic, "bcr") &&
			in->detail->sysz.op_count &&
			in->detail->sysz.operands[0].type == SYSZ_OP_IMM &&
			!in->detail->sysz.operands[0].imm);
	if (in->id == X86_INS_NOP)
		return true;
	if (x->op_count != 2 || o[0].type != X86_OP_REG)
		return false;
	if (in->id == X86_INS_LEA)
		return o[1].mem.base == o[0].reg && !o[1].mem.disp &&
		       (o[1].mem.index == X86_REG_INVALID ||
			o[1].mem.index == X86_REG_EIZ ||
			o[1].mem.index == X86_REG_RIZ);
	return (in->id == X86_INS_XCHG || in->id == X86_INS_MOV) &&
	       o[1].type == X86_OP_REG && o[1].reg == o[0].reg;
}

/* A register of op, or -1. */
static int x86_reg_op(const struct pda_datatype *dt, const cs_x86_op *op)
{
	return op->type == X86_OP_REG ? dwreg(dt, op->reg) : -1;
}

static int arm64_reg_op(const struct pda_datatype *dt, const cs_arm64_op *op)
{
	return op->type == ARM64_OP_REG ? dwreg(dt, op->reg) : -1;
}

/* Whether DWARF register r is the stack or the frame pointer, whose
 * slots the walk follows. */
static bool frame_reg(const struct pda_datatype *dt, int r)
{
	if (dt->cs.arch == CS_ARCH_ARM64)
		return r == 29 || r == 31;
	if (dt->cs.arch == CS_ARCH_ARM) /* r7 Thumb's, r11 ARM's */
		return r == 7 || r == 11 || r == 13;
	if (dt->cs.arch == CS_ARCH_PPC) /* r1; r31 gcc's frame pointer */
		return r == 1 || r == 31;
	if (dt->cs.arch == CS_ARCH_SYSZ)
		return r == 15 || r == 11;
	return dt->cs.mode == CS_MODE_64 ? r == 6 || r == 7 : r == 4 || r == 5;
}

/* Whether the walk knows more of v than "a register at some pc": an
 * address, a call's result, or a pointer loaded. */
static bool followed(const struct rval *v)
{
	return v->kind != R_VAR || v->nr_loads;
}

/*
 * What a pointer-sized load at pc from the address slot leaves: when
 * slot is a GOT slot (or a ppc64 TOC word) the dynamic linker fills, the
 * variable's address (or, defined by another binary, its name), as if
 * the code had computed it PC-relative: the position-independent way to
 * a global that may be interposed.  false: not such a slot.
 */
static bool got_load(const struct pda_datatype *dt, uint64_t slot,
		     uint64_t pc, struct rval *out)
{
	uint64_t addr;
	const char *name;

	if (!dt->walk_elf ||
	    pda_elf_got_slot(dt->s, dt->walk_elf, slot, &addr, &name))
		return false;
	forget(out, -1, pc);
	out->kind = R_ADDR;
	out->val = (int64_t)addr;
	out->gname = name;
	return true;
}

/* The pointer a load at pc from the address slot leaves (x86's
 * RIP-relative mov, s390x's lgrl): a GOT slot's variable, else the
 * pointer loaded from there. */
static void addr_load(const struct pda_datatype *dt, uint64_t slot,
		      uint64_t pc, struct rval *out)
{
	if (got_load(dt, slot, pc, out))
		return;
	forget(out, -1, pc);
	out->kind = R_ADDR;
	out->nr_loads = 1;
	out->loads[0] = (int64_t)slot;
}

/* The register a pointer-sized load at pc from base + disp leaves: a
 * slot's spilled value, else the pointer loaded there, one more load in
 * a row (the variable in memory there, the global, or the member of
 * what base points to says its type), or unknown past MAX_LOADS. */
static struct rval load(const struct pda_datatype *dt, struct regs *st,
			int base, int64_t disp, uint64_t pc, int dst)
{
	struct rval v;
	const struct slot *sl;

	forget(&v, dst, pc + 1); /* unknown: "itself" past the load */
	if (base < 0 || base >= NR_DWREGS)
		return v;
	if (frame_reg(dt, base) && (sl = slot_find(st, base, disp))) {
		v = sl->v;
		if (!followed(&v) && !v.alt && !followed(&st->r[base])) {
			v.alt = true;
			v.alt_reg = st->r[base].reg;
			v.alt_pc = st->r[base].pc;
			v.alt_off = st->r[base].val + disp;
		}
		return v;
	}
	if (st->r[base].nr_loads >= MAX_LOADS)
		return v;
	if (st->r[base].kind == R_ADDR && !st->r[base].nr_loads &&
	    !st->r[base].elem && !st->r[base].gname &&
	    got_load(dt, (uint64_t)(st->r[base].val + disp), pc, &v))
		return v;
	v = st->r[base];
	if (v.elem)
		v.load_elems |= (uint8_t)(1u << v.nr_loads);
	v.loads[v.nr_loads++] = v.val + disp;
	v.val = 0;
	v.elem = false;
	v.scaled = false;
	return v;
}

/* Of the sum of registers a and b (either -1: none), the one the walk
 * follows (a pointer; the other an index), a first, or NULL. */
static const struct rval *sum_pointer(const struct regs *st, int a, int b)
{
	if (a >= 0 && a < NR_DWREGS && followed(&st->r[a]))
		return &st->r[a];
	if (b >= 0 && b < NR_DWREGS && followed(&st->r[b]))
		return &st->r[b];
	return NULL;
}

/* Of the sum of registers a and b: the one followed (sum_pointer()),
 * else the one not scaled (an index is shifted or multiplied into
 * place), a first: its variable's type decides; or NULL. */
static const struct rval *sum_base(const struct regs *st, int a, int b)
{
	const struct rval *p = sum_pointer(st, a, b);

	if (p)
		return p;
	if (a >= 0 && a < NR_DWREGS && !st->r[a].scaled)
		return &st->r[a];
	if (b >= 0 && b < NR_DWREGS && !st->r[b].scaled)
		return &st->r[b];
	return NULL;
}

/* A register to set, as step() finds it. */
struct set {
	int dst;
	struct rval v;
};

/* x86: what in sets (up to one register) into *out; slots stored. */
static unsigned x86_step(const struct pda_datatype *dt, const cs_insn *in,
			 struct regs *st, struct set *out)
{
	const uint64_t next = in->address + in->size;
	const cs_x86 *x = &in->detail->x86;
	const unsigned psize = dt->cs.mode == CS_MODE_64 ? 8 : 4;
	const cs_x86_op *o0 = &x->operands[0], *o1 = &x->operands[1];
	const struct rval *p;
	int src;

	if (x->op_count != 2)
		return 0;
	if (in->id == X86_INS_LEA && o1->type == X86_OP_MEM &&
	    o1->mem.base == X86_REG_RIP) {
		out->dst = x86_reg_op(dt, o0);
		forget(&out->v, -1, next);
		out->v.kind = R_ADDR;
		out->v.val = (int64_t)(next + (uint64_t)o1->mem.disp);
		return 1;
	}
	if (in->id == X86_INS_LEA && o1->type == X86_OP_MEM &&
	    o0->size == psize && dt->cs.mode == CS_MODE_32 &&
	    o1->mem.base == X86_REG_INVALID &&
	    o1->mem.index == X86_REG_INVALID &&
	    o1->mem.segment == X86_REG_INVALID) {
		/* i386's lea foo@GOTOFF, %reg: an offset from the GOT's
		 * base, which the access adds (add_address()) */
		out->dst = x86_reg_op(dt, o0);
		forget(&out->v, -1, next);
		out->v.kind = R_ADDR;
		out->v.val = (int64_t)(uint32_t)o1->mem.disp;
		return 1;
	}
	if (in->id == X86_INS_LEA && o1->type == X86_OP_MEM &&
	    o0->size == psize && o1->mem.segment == X86_REG_INVALID &&
	    (src = dwreg(dt, o1->mem.base)) >= 0 && src < NR_DWREGS &&
	    (o1->mem.index == X86_REG_INVALID || followed(&st->r[src]))) {
		/* an address computed from a pointer (plus an index: an
		 * element of its target, as add reg, reg) */
		out->dst = x86_reg_op(dt, o0);
		out->v = st->r[src];
		out->v.val += o1->mem.disp;
		out->v.elem |= o1->mem.index != X86_REG_INVALID;
		return 1;
	}
	if (in->id != X86_INS_MOV && in->id != X86_INS_ADD &&
	    in->id != X86_INS_SUB)
		return 0;
	if (in->id == X86_INS_MOV && o0->type == X86_OP_MEM &&
	    o1->type == X86_OP_REG && o0->size == psize &&
	    o0->mem.index == X86_REG_INVALID &&
	    o0->mem.segment == X86_REG_INVALID &&
	    frame_reg(dt, dwreg(dt, o0->mem.base)) &&
	    (src = x86_reg_op(dt, o1)) >= 0 && src < NR_DWREGS) {
		/* a spill */
		slot_store(st, dwreg(dt, o0->mem.base), o0->mem.disp, psize,
			   &st->r[src]);
		return 0;
	}
	if (in->id == X86_INS_MOV && o0->type == X86_OP_REG &&
	    o1->type == X86_OP_MEM && o0->size == psize &&
	    o1->mem.index == X86_REG_INVALID &&
	    o1->mem.segment == X86_REG_INVALID) {
		out->dst = x86_reg_op(dt, o0);
		if (o1->mem.base == X86_REG_RIP) {
			addr_load(dt, next + (uint64_t)o1->mem.disp, next,
				  &out->v);
		} else {
			out->v = load(dt, st, dwreg(dt, o1->mem.base),
				      o1->mem.disp, in->address, out->dst);
		}
		return 1;
	}
	if (o0->size != psize || (src = x86_reg_op(dt, o0 + (in->id ==
			X86_INS_MOV))) < 0 || src >= NR_DWREGS)
		return 0;
	if (in->id == X86_INS_MOV && o0->type == X86_OP_REG) {
		out->dst = x86_reg_op(dt, o0);
		out->v = st->r[src];
		return 1;
	}
	if (in->id == X86_INS_ADD && o1->type == X86_OP_REG &&
	    (p = sum_pointer(st, src, x86_reg_op(dt, o1)))) {
		/* a pointer plus an index register: an element of its
		 * target (a register not followed stays itself) */
		out->dst = src;
		out->v = *p;
		out->v.elem = true;
		return 1;
	}
	if (in->id != X86_INS_MOV && o1->type == X86_OP_IMM) {
		/* pointer arithmetic; the stack pointer's slots move */
		const int64_t d = in->id == X86_INS_ADD ? o1->imm : -o1->imm;

		if (src == (psize == 8 ? 7 : 4))
			for (int i = 0; i < NR_SLOTS; i++)
				if (st->slots[i].base == src)
					st->slots[i].off -= d;
		out->dst = src;
		out->v = st->r[src];
		out->v.val += d;
		return 1;
	}
	return 0;
}

/* aarch64: what in sets (up to two registers) into out; slots stored. */
static unsigned arm64_step(const struct pda_datatype *dt, const cs_insn *in,
			   struct regs *st, struct set *out)
{
	const cs_arm64 *x = &in->detail->arm64;
	const cs_arm64_op *mem = x->op_count ? &x->operands[x->op_count - 1]
					     : NULL;
	const struct rval *p;
	int src;

	if ((in->id == ARM64_INS_ADRP || in->id == ARM64_INS_ADR) &&
	    x->op_count == 2 && x->operands[1].type == ARM64_OP_IMM) {
		out->dst = arm64_reg_op(dt, &x->operands[0]);
		forget(&out->v, -1, in->address);
		out->v.kind = R_ADDR;
		out->v.val = x->operands[1].imm;
		return 1;
	}
	if (in->id == ARM64_INS_MOV && x->op_count == 2 &&
	    (src = arm64_reg_op(dt, &x->operands[1])) >= 0 &&
	    src < NR_DWREGS) {
		out->dst = arm64_reg_op(dt, &x->operands[0]);
		out->v = st->r[src];
		return 1;
	}
	if ((in->id == ARM64_INS_ADD || in->id == ARM64_INS_SUB) &&
	    x->op_count == 3 &&
	    (src = arm64_reg_op(dt, &x->operands[1])) >= 0 &&
	    src < NR_DWREGS && x->operands[2].type == ARM64_OP_IMM &&
	    x->operands[2].shift.type == ARM64_SFT_INVALID) {
		out->dst = arm64_reg_op(dt, &x->operands[0]);
		out->v = st->r[src];
		out->v.val += in->id == ARM64_INS_ADD ? x->operands[2].imm
						      : -x->operands[2].imm;
		return 1;
	}
	if (in->id == ARM64_INS_ADD && x->op_count == 3 &&
	    x->operands[2].type == ARM64_OP_REG &&
	    (p = sum_pointer(st, arm64_reg_op(dt, &x->operands[1]),
			     x->operands[2].shift.type == ARM64_SFT_INVALID
				     ? arm64_reg_op(dt, &x->operands[2])
				     : -1))) {
		/* a pointer plus an index register: an element */
		out->dst = arm64_reg_op(dt, &x->operands[0]);
		out->v = *p;
		out->v.elem = true;
		return 1;
	}
	/* 8-byte loads and stores of x registers at [base, #imm], no
	 * writeback: ldr/str, ldp/stp (two slots) */
	if (!mem || mem->type != ARM64_OP_MEM || x->writeback ||
	    mem->mem.index != ARM64_REG_INVALID ||
	    (x->op_count != 2 && x->op_count != 3))
		return 0;
	for (unsigned k = 0; k + 1 < x->op_count; k++)
		if (x->operands[k].type != ARM64_OP_REG ||
		    x->operands[k].reg < ARM64_REG_X0 ||
		    x->operands[k].reg > ARM64_REG_X28)
			if (x->operands[k].reg != ARM64_REG_X29 &&
			    x->operands[k].reg != ARM64_REG_X30)
				return 0;
	if ((in->id == ARM64_INS_STR && x->op_count == 2) ||
	    (in->id == ARM64_INS_STP && x->op_count == 3)) {
		const int base = dwreg(dt, mem->mem.base);

		if (!frame_reg(dt, base))
			return 0;
		for (unsigned k = 0; k + 1 < x->op_count; k++) {
			src = arm64_reg_op(dt, &x->operands[k]);
			if (src >= 0 && src < NR_DWREGS)
				slot_store(st, base, mem->mem.disp + 8 * k, 8,
					   &st->r[src]);
		}
		return 0;
	}
	if ((in->id == ARM64_INS_LDR && x->op_count == 2) ||
	    (in->id == ARM64_INS_LDP && x->op_count == 3)) {
		for (unsigned k = 0; k + 1 < x->op_count; k++) {
			out[k].dst = arm64_reg_op(dt, &x->operands[k]);
			out[k].v = load(dt, st, dwreg(dt, mem->mem.base),
					mem->mem.disp + 8 * k, in->address,
					out[k].dst);
		}
		return x->op_count - 1;
	}
	return 0;
}

/* The 4-byte word of code or data at vaddr of the walked binary: an arm
 * literal pool's; false when not in the file. */
static bool word_at(const struct pda_datatype *dt, uint64_t vaddr,
		    uint32_t *out)
{
	const unsigned char *c;
	size_t len;

	if (!dt->walk_elf || pda_elf_code(dt->walk_elf, vaddr, 4, &c, &len) ||
	    len < 4)
		return false;
	*out = word_of(dt, c);
	return true;
}

/* The register operand k of a ppc64 or s390x instruction as a DWARF
 * number, or -1. */
static int reg_op(const struct pda_datatype *dt, const cs_insn *in,
		  unsigned k)
{
	if (dt->cs.arch == CS_ARCH_PPC)
		return k < in->detail->ppc.op_count &&
				       in->detail->ppc.operands[k].type ==
					       PPC_OP_REG
			       ? ppc_dwreg(in->detail->ppc.operands[k].reg)
			       : -1;
	return k < in->detail->sysz.op_count &&
			       in->detail->sysz.operands[k].type == SYSZ_OP_REG
		       ? sysz_dwreg(in->detail->sysz.operands[k].reg)
		       : -1;
}

/* A pointer-sized store of register reg at base + disp (a spill, when
 * base is the stack or frame pointer: its slot filled), or a load of it
 * from there (into *out: 1). */
static unsigned spill_or_load(const struct pda_datatype *dt,
			      const cs_insn *in, struct regs *st, bool store,
			      int reg, int base, int64_t disp, unsigned size,
			      struct set *out)
{
	if (store) {
		if (frame_reg(dt, base))
			slot_store(st, base, disp, size, &st->r[reg]);
		return 0;
	}
	out->dst = reg;
	out->v = load(dt, st, base, disp, in->address, reg);
	return 1;
}

/* arm: what in sets (up to one register) into out; slots stored.  A
 * literal load gives the word in the pool (an address, or a PC-relative
 * offset that `add rN, pc` then makes one: position-independent code's
 * globals); mov, add and sub of an immediate, a pointer plus an index,
 * 4-byte ldr and str at [base, #imm] as aarch64's 8-byte ones. */
/*
 * ldr rN, [rB, rI] with both holding addresses (no loads): the GOT's
 * base and a literal pool's foo(GOT), as arm PIC reaches foo; the load
 * of the slot at their sum into out->v (addr_load()).  false: another
 * load.
 */
static bool arm_got_load(const struct pda_datatype *dt, const cs_insn *in,
			 const struct regs *st, struct set *out)
{
	const cs_arm *x = &in->detail->arm;
	const cs_arm_op *m = &x->operands[1];
	const struct rval *b, *i;
	int base, index;

	if (in->id != ARM_INS_LDR || x->op_count != 2 ||
	    m->type != ARM_OP_MEM || x->writeback || m->subtracted ||
	    m->shift.type != ARM_SFT_INVALID ||
	    (base = arm_dwreg(m->mem.base)) < 0 || base >= 15 ||
	    (index = arm_dwreg(m->mem.index)) < 0 || index >= 15)
		return false;
	b = &st->r[base];
	i = &st->r[index];
	if (b->kind != R_ADDR || i->kind != R_ADDR || b->nr_loads ||
	    i->nr_loads || b->gname || i->gname)
		return false;
	addr_load(dt, (uint32_t)(b->val + i->val + arm_disp(m)), in->address,
		  &out->v);
	return true;
}

static unsigned arm_step(const struct pda_datatype *dt, const cs_insn *in,
			 struct regs *st, struct set *out)
{
	const cs_arm *x = &in->detail->arm;
	const cs_arm_op *o = x->operands;
	const bool three = x->op_count == 3;
	const struct rval *p;
	uint32_t word;
	int src, dst;

	if (!x->op_count || o[0].type != ARM_OP_REG ||
	    (dst = arm_dwreg(o[0].reg)) < 0 || dst >= 15)
		dst = -1;
	if (in->id == ARM_INS_LDR && x->op_count == 2 && dst >= 0 &&
	    o[1].type == ARM_OP_MEM && o[1].mem.base == ARM_REG_PC &&
	    o[1].mem.index == ARM_REG_INVALID &&
	    word_at(dt, arm_pc(dt, in->address) + (uint64_t)arm_disp(&o[1]),
		    &word)) {
		out->dst = dst;
		forget(&out->v, -1, in->address);
		out->v.kind = R_ADDR;
		out->v.val = word;
		return 1;
	}
	if (dst < 0)
		return 0;
	if (in->id == ARM_INS_MOV && x->op_count == 2 &&
	    o[1].type == ARM_OP_REG && (src = arm_dwreg(o[1].reg)) >= 0 &&
	    src < 15 && o[1].shift.type == ARM_SFT_INVALID) {
		out->dst = dst;
		out->v = st->r[src];
		return 1;
	}
	if ((in->id == ARM_INS_ADD || in->id == ARM_INS_SUB) &&
	    o[1 + three].type == ARM_OP_IMM &&
	    (src = arm_dwreg(three ? o[1].reg : o[0].reg)) >= 0 &&
	    (!three || o[1].type == ARM_OP_REG) && src < 15) {
		out->dst = dst;
		out->v = st->r[src];
		out->v.val += in->id == ARM_INS_ADD ? o[1 + three].imm
						    : -(int64_t)o[1 + three].imm;
		return 1;
	}
	if (in->id == ARM_INS_ADD && o[1 + three].type == ARM_OP_REG &&
	    (!three || o[1].type == ARM_OP_REG)) {
		const int a = arm_dwreg(three ? o[1].reg : o[0].reg),
			  b = arm_dwreg(o[1 + three].reg),
			  off = b == 15 ? a : a == 15 ? b : -1;

		if (off >= 0 && off < 15 && st->r[off].kind == R_ADDR &&
		    !st->r[off].nr_loads) {
			/* add rN, pc (Thumb) or add rN, pc, rN (ARM): a
			 * PC-relative offset made an address */
			out->dst = dst;
			out->v = st->r[off];
			out->v.val = (int64_t)(uint32_t)(st->r[off].val +
				     (int64_t)in->address +
				     ((dt->cs.mode & CS_MODE_THUMB) ? 4 : 8));
			return 1;
		}
		if ((p = sum_pointer(st, a, o[1 + three].shift.type ==
							ARM_SFT_INVALID
						? b
						: -1))) {
			out->dst = dst;
			out->v = *p;
			out->v.elem = true;
			return 1;
		}
		return 0;
	}
	if (in->id == ARM_INS_MLA && x->op_count == 4 &&
	    o[3].type == ARM_OP_REG &&
	    (p = sum_pointer(st, arm_dwreg(o[3].reg), -1))) {
		/* mla rd, rn, rm, ra: a pointer ra plus an index times a
		 * size, an element */
		out->dst = dst;
		out->v = *p;
		out->v.elem = true;
		return 1;
	}
	if (arm_got_load(dt, in, st, out)) {
		out->dst = dst;
		return 1;
	}
	if ((in->id != ARM_INS_LDR && in->id != ARM_INS_STR) ||
	    x->op_count != 2 || o[1].type != ARM_OP_MEM || x->writeback ||
	    o[1].mem.index != ARM_REG_INVALID)
		return 0;
	return spill_or_load(dt, in, st, in->id == ARM_INS_STR, dst,
			     arm_dwreg(o[1].mem.base), arm_disp(&o[1]), 4, out);
}

/* ppc64: what in sets (up to one register) into out; slots stored.  mr
 * copies, addi and addis add (the TOC pointer's addis r2, r12 at a
 * global entry; addis and addi from r2 to a global far in the TOC), add
 * of two registers is a pointer plus an index, ld (not an update form)
 * loads and std to r1 or r31 spills as aarch64's ldr and str. */
static unsigned ppc_step(const struct pda_datatype *dt, const cs_insn *in,
			 struct regs *st, struct set *out)
{
	const cs_ppc *x = &in->detail->ppc;
	const cs_ppc_op *o = x->operands;
	const int dst = reg_op(dt, in, 0), src = reg_op(dt, in, 1);
	const struct rval *p;
	int base;

	if (dst < 0)
		return 0;
	/* mr; ori rN, rN, 0 (a no-op, the nops ending a dispatch group:
	 * ori r2, r2, 0 keeps the TOC pointer) */
	if ((in->id == PPC_INS_MR && x->op_count == 2 && src >= 0) ||
	    (in->id == PPC_INS_ORI && x->op_count == 3 && src >= 0 &&
	     o[2].type == PPC_OP_IMM && !o[2].imm)) {
		out->dst = dst;
		out->v = st->r[src];
		return 1;
	}
	if ((in->id == PPC_INS_ADDI || in->id == PPC_INS_ADDIS) &&
	    x->op_count == 3 && src >= 0 && o[2].type == PPC_OP_IMM) {
		/* capstone 4 gives the 16-bit immediate unsigned */
		const int64_t imm = (int16_t)(uint16_t)o[2].imm;

		out->dst = dst;
		out->v = st->r[src];
		out->v.val += in->id == PPC_INS_ADDIS ? imm * 65536 : imm;
		return 1;
	}
	if (in->id == PPC_INS_ADD && x->op_count == 3 &&
	    (p = sum_base(st, src, reg_op(dt, in, 2)))) {
		/* a pointer plus an index: an element */
		out->dst = dst;
		out->v = *p;
		out->v.elem = true;
		return 1;
	}
	if (prefix(in->mnemonic, "sld") || prefix(in->mnemonic, "rldicr") ||
	    prefix(in->mnemonic, "mull")) {
		/* an index scaled */
		out->dst = dst;
		forget(&out->v, dst, in->address + in->size);
		out->v.scaled = true;
		return 1;
	}
	if ((in->id != PPC_INS_LD && in->id != PPC_INS_STD) ||
	    x->op_count != 2 || o[1].type != PPC_OP_MEM ||
	    (base = ppc_dwreg(o[1].mem.base)) <= 0)
		return 0;
	if (in->id == PPC_INS_LD && dst == 2 && dt->toc) {
		/* the TOC pointer restored after a call through a PLT
		 * stub (ld r2, 24(r1); ELFv1's 40(r1)) */
		out->dst = dst;
		forget(&out->v, -1, in->address);
		out->v.kind = R_ADDR;
		out->v.val = (int64_t)dt->toc;
		return 1;
	}
	return spill_or_load(dt, in, st, in->id == PPC_INS_STD, dst, base,
			     o[1].mem.disp, 8, out);
}

/* s390x: what in sets (up to one register) into out; slots stored.
 * larl loads an address, lgrl the pointer at one, lgr copies, la and
 * lay add a displacement (and an index: an element), aghi, agfi and
 * aghik add an immediate, agr and agrk a pointer and an index, ag a
 * pointer and an index from memory; lg loads and stg to r15 or r11
 * spills as aarch64's ldr and str. */
static unsigned sysz_step(const struct pda_datatype *dt, const cs_insn *in,
			  struct regs *st, struct set *out)
{
	const cs_sysz *x = &in->detail->sysz;
	const cs_sysz_op *o = x->operands;
	const char *m = in->mnemonic;
	const int dst = reg_op(dt, in, 0), src = reg_op(dt, in, 1);
	const struct rval *p;
	int base;

	if (dst < 0 || x->op_count < 2)
		return 0;
	if ((!strcmp(m, "larl") || !strcmp(m, "lgrl")) &&
	    o[1].type == SYSZ_OP_IMM) {
		out->dst = dst;
		if (m[1] == 'g') {
			addr_load(dt, (uint64_t)o[1].imm, in->address,
				  &out->v);
		} else {
			forget(&out->v, -1, in->address);
			out->v.kind = R_ADDR;
			out->v.val = o[1].imm;
		}
		return 1;
	}
	if (!strcmp(m, "lgr") && src >= 0) {
		out->dst = dst;
		out->v = st->r[src];
		return 1;
	}
	if ((!strcmp(m, "aghi") || !strcmp(m, "agfi")) &&
	    o[1].type == SYSZ_OP_IMM) {
		out->dst = dst;
		out->v = st->r[dst];
		out->v.val += o[1].imm;
		return 1;
	}
	if (!strcmp(m, "aghik") && src >= 0 && x->op_count == 3 &&
	    o[2].type == SYSZ_OP_IMM) {
		out->dst = dst;
		out->v = st->r[src];
		out->v.val += o[2].imm;
		return 1;
	}
	if ((!strcmp(m, "agr") && (p = sum_base(st, dst, src))) ||
	    (!strcmp(m, "agrk") && x->op_count == 3 &&
	     (p = sum_base(st, src, reg_op(dt, in, 2))))) {
		/* a pointer plus an index: an element */
		out->dst = dst;
		out->v = *p;
		out->v.elem = true;
		return 1;
	}
	if (prefix(m, "sll") || prefix(m, "msg") || prefix(m, "mgh")) {
		/* an index scaled */
		out->dst = dst;
		forget(&out->v, dst, in->address + in->size);
		out->v.scaled = true;
		return 1;
	}
	if (o[1].type != SYSZ_OP_MEM)
		return 0;
	base = sysz_dwreg(o[1].mem.base);
	if ((!strcmp(m, "la") || !strcmp(m, "lay")) && base >= 0) {
		/* an address from a pointer, plus an index: an element */
		const int index = sysz_dwreg(o[1].mem.index);

		p = index >= 0 ? sum_pointer(st, base, index) : &st->r[base];
		if (!p)
			return 0;
		out->dst = dst;
		out->v = *p;
		out->v.val += o[1].mem.disp;
		out->v.elem |= index >= 0;
		return 1;
	}
	if ((strcmp(m, "lg") && strcmp(m, "stg") && strcmp(m, "ag")) ||
	    base < 0 || sysz_dwreg(o[1].mem.index) >= 0)
		return 0;
	if (!strcmp(m, "ag")) {
		/* an index plus a pointer from memory (-O0's v + i) or a
		 * pointer plus an index from memory: an element */
		out->dst = dst;
		out->v = followed(&st->r[dst])
				 ? st->r[dst]
				 : load(dt, st, base, o[1].mem.disp, in->address,
					dst);
		out->v.elem = true;
		return 1;
	}
	return spill_or_load(dt, in, st, m[0] == 's', dst, base, o[1].mem.disp,
			     8, out);
}

/* The DWARF registers in writes (up to NR_DWREGS) into wr, for the
 * architectures whose capstone 4 has no cs_regs_access(): ppc64's and
 * s390x's first register operand but in stores, compares, branches,
 * traps and moves to special registers; an update form's base; lm's and
 * lmg's range.  Calls' clobbers are step()'s. */
static unsigned written(const struct pda_datatype *dt, const cs_insn *in,
			int *wr)
{
	const char *m = in->mnemonic;
	unsigned n = 0;
	int r0;

	if (dt->cs.arch == CS_ARCH_PPC) {
		const cs_ppc *x = &in->detail->ppc;

		r0 = reg_op(dt, in, 0);
		if (r0 >= 0 && !prefix(m, "st") && !prefix(m, "cmp") &&
		    m[0] != 'b' && !prefix(m, "mt") && !prefix(m, "tw") &&
		    !prefix(m, "td") && !prefix(m, "dcb") && !prefix(m, "icb"))
			wr[n++] = r0;
		if (ppc_update(m) && x->op_count == 2 &&
		    x->operands[1].type == PPC_OP_MEM &&
		    ppc_dwreg(x->operands[1].mem.base) >= 0)
			wr[n++] = ppc_dwreg(x->operands[1].mem.base);
		return n;
	}
	r0 = reg_op(dt, in, 0);
	if ((prefix(m, "lm") || prefix(m, "stm")) && r0 >= 0) {
		const int r1 = reg_op(dt, in, 1);

		if (m[0] == 'l')
			for (int r = r0; r1 >= r0 && r <= r1; r++)
				wr[n++] = r;
		return n;
	}
	if (r0 >= 0 && !prefix(m, "st") && m[0] != 'c' && m[0] != 'j' &&
	    !prefix(m, "tm") && (m[0] != 'b' || prefix(m, "brct")))
		wr[n++] = r0;
	return n;
}

/* The register an i386 thunk at target loads its return address into
 * (`mov (%esp), REG; ret`: how position-independent code finds its
 * GOT), or -1.  i386's DWARF numbers are the encoding's. */
static int pc_thunk(const struct pda_datatype *dt, uint64_t target)
{
	const unsigned char *c;
	size_t len;
	int reg;

	if (!dt->walk_elf || pda_elf_code(dt->walk_elf, target, 4, &c, &len) ||
	    len < 4 || c[0] != 0x8b || (c[1] & 0xc7) != 0x04 || c[2] != 0x24 ||
	    c[3] != 0xc3)
		return -1;
	reg = (c[1] >> 3) & 7;
	return reg == 4 ? -1 : reg;
}

/* After a direct call, the return register (DWARF 0: rax, eax, x0, r0;
 * ppc64's r3, s390x's r2)
 * holds what the callee returned, as perf's tracking of calls takes it;
 * an indirect call's callee is not known, its result stays "itself".
 * A call to an i386 PC thunk leaves an address instead: the call's
 * next one, the GOT's base once the add that follows moves it. */
static void ret_of_call(const struct pda_datatype *dt, const cs_insn *in,
			struct regs *st)
{
	int64_t target;
	int reg;

	int rr = 0; /* the return register */

	if (dt->cs.arch == CS_ARCH_ARM64) {
		const cs_arm64 *x = &in->detail->arm64;

		if (in->id != ARM64_INS_BL || x->op_count != 1 ||
		    x->operands[0].type != ARM64_OP_IMM)
			return;
		target = x->operands[0].imm;
	} else if (dt->cs.arch == CS_ARCH_PPC || dt->cs.arch == CS_ARCH_SYSZ) {
		/* bl f, the result in r3 (bl's target an ELFv2 local entry
		 * point, inside its function as the callee's DWARF takes
		 * it); brasl %r14, f, the result in r2 */
		const bool ppc = dt->cs.arch == CS_ARCH_PPC;
		uint64_t t;

		if ((ppc ? in->id != PPC_INS_BL : !sysz_call(in->mnemonic)) ||
		    !pda_annot_branch_target(dt->cs.arch, in, &t))
			return;
		target = (int64_t)t;
		rr = ppc ? 3 : 2;
	} else if (dt->cs.arch == CS_ARCH_ARM) {
		const cs_arm *x = &in->detail->arm;

		if ((in->id != ARM_INS_BL && in->id != ARM_INS_BLX) ||
		    x->op_count != 1 || x->operands[0].type != ARM_OP_IMM)
			return;
		target = (uint32_t)x->operands[0].imm;
	} else {
		const cs_x86 *x = &in->detail->x86;

		if (in->id != X86_INS_CALL || x->op_count != 1 ||
		    x->operands[0].type != X86_OP_IMM)
			return;
		target = x->operands[0].imm;
		if (dt->cs.mode == CS_MODE_32 &&
		    (reg = pc_thunk(dt, (uint64_t)target)) >= 0) {
			forget(&st->r[reg], reg, in->address + in->size);
			st->r[reg].kind = R_ADDR;
			st->r[reg].val = (int64_t)(in->address + in->size);
			return;
		}
	}
	forget(&st->r[rr], -1, (uint64_t)target);
	st->r[rr].kind = R_RET;
}

/*
 * What in does to the registers: x86 lea of a RIP-relative address and
 * aarch64 adr and adrp load an address; a register move copies what the
 * source holds, an add of an immediate adds to it (pointer arithmetic);
 * a pointer-sized store to a stack slot spills a register (perf's stack
 * slot tracking), and a load gives back what was spilled there, or
 * what the memory holds (LOAD, GLOAD); any other write, a call's
 * clobbers and a store over a slot leave registers holding "itself"
 * after the instruction and the slot empty.
 */
static void step(const struct pda_datatype *dt, const cs_insn *in,
		 struct regs *st)
{
	const uint64_t next = in->address + in->size;
	struct set sets[2];
	unsigned nr_sets;
	cs_regs rd, wr;
	uint8_t nr_rd, nr_wr;
	int dw[sizeof(cs_regs) / sizeof(uint16_t)];

	if (dt->cs.arch == CS_ARCH_ARM64) {
		const cs_arm64 *x = &in->detail->arm64;

		nr_sets = arm64_step(dt, in, st, sets);
		if (in->id == ARM64_INS_BL || in->id == ARM64_INS_BLR)
			for (int r = 0; r <= 18; r++)
				forget(&st->r[r], r, next);
		/* stores over slots */
		if (!nr_sets && x->op_count &&
		    x->operands[x->op_count - 1].type == ARM64_OP_MEM &&
		    prefix(in->mnemonic, "st")) {
			const cs_arm64_op *m = &x->operands[x->op_count - 1];

			slot_clobber(st, dwreg(dt, m->mem.base), m->mem.disp,
				     16);
		}
	} else if (dt->cs.arch == CS_ARCH_ARM) {
		const cs_arm *x = &in->detail->arm;

		nr_sets = arm_step(dt, in, st, sets);
		/* the AAPCS's caller-saved r0-r3, r12 (and lr) */
		if (in->id == ARM_INS_BL || in->id == ARM_INS_BLX)
			for (int r = 0; r <= 14; r++)
				if (r <= 3 || r >= 12)
					forget(&st->r[r], r, next);
		/* stores over slots (a spill stored its own) */
		if (!(in->id == ARM_INS_STR && x->op_count == 2) &&
		    prefix(in->mnemonic, "st"))
			for (unsigned i = 0; i < x->op_count; i++)
				if (x->operands[i].type == ARM_OP_MEM)
					slot_clobber(st,
						     dwreg(dt, x->operands[i].mem.base),
						     arm_disp(&x->operands[i]), 8);
	} else if (dt->cs.arch == CS_ARCH_PPC ||
		   dt->cs.arch == CS_ARCH_SYSZ) {
		const bool ppc = dt->cs.arch == CS_ARCH_PPC;
		struct access a = {.reg = -1, .index = -1, .addend = -1};

		nr_sets = ppc ? ppc_step(dt, in, st, sets)
			      : sysz_step(dt, in, st, sets);
		/* calls: the ELF ABIs' volatile r0, r3-r12 (ppc64: r2 the
		 * TOC pointer restored after the call) and r0-r5, r14
		 * (s390x) */
		if (ppc ? ppc_call(in->mnemonic) : sysz_call(in->mnemonic))
			for (int r = 0; r <= 14; r++)
				if (ppc ? r == 0 || (r >= 3 && r <= 12)
					: r <= 5 || r == 14)
					forget(&st->r[r], r, next);
		/* stores over slots (a spill stored its own) */
		if (ppc)
			ppc_access(dt, in, &a);
		else
			sysz_access(in, &a);
		if (a.store && a.reg >= 0 && !(nr_sets == 0 &&
		    (ppc ? in->id == PPC_INS_STD : !strcmp(in->mnemonic, "stg"))))
			slot_clobber(st, a.reg, a.disp, a.size ? a.size : 8);
	} else {
		const cs_x86 *x = &in->detail->x86;

		nr_sets = x86_step(dt, in, st, sets);
		if (in->id == X86_INS_CALL) {
			static const int clobbered[] = {0, 1, 2, 4, 5,
							8, 9, 10, 11};

			for (size_t i = 0;
			     i < sizeof(clobbered) / sizeof(*clobbered); i++)
				forget(&st->r[clobbered[i]], clobbered[i],
				       next);
		} else if (in->id == X86_INS_PUSH || in->id == X86_INS_POP) {
			/* the stack pointer moves: its slots with it */
			const int sp = dt->cs.mode == CS_MODE_64 ? 7 : 4;
			const int64_t d = dt->cs.mode == CS_MODE_64 ? 8 : 4;

			for (int i = 0; i < NR_SLOTS; i++)
				if (st->slots[i].base == sp)
					st->slots[i].off +=
						in->id == X86_INS_PUSH ? d : -d;
		}
		for (unsigned i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type == X86_OP_MEM &&
			    (op->access & CS_AC_WRITE) && !(nr_sets == 0 &&
			    in->id == X86_INS_MOV && op->size == (dt->cs.mode ==
			    CS_MODE_64 ? 8 : 4)))
				slot_clobber(st, dwreg(dt, op->mem.base),
					     op->mem.disp, op->size);
		}
	}
	if (dt->cs.arch == CS_ARCH_PPC || dt->cs.arch == CS_ARCH_SYSZ) {
		nr_wr = (uint8_t)written(dt, in, dw);
	} else if (cs_regs_access(dt->cs.h, in, rd, &nr_rd, wr, &nr_wr) == 0) {
		for (unsigned i = 0; i < nr_wr; i++)
			dw[i] = dwreg(dt, wr[i]);
	} else {
		nr_wr = 0;
	}
	for (unsigned i = 0; i < nr_wr; i++) {
		const int r = dw[i];

		if (r < 0 || r >= NR_DWREGS)
			continue;
		forget(&st->r[r], r, next);
		/* the stack pointer's moves were followed above;
		 * a call returns it as it was */
		if (frame_reg(dt, r) &&
		    !(dt->cs.arch == CS_ARCH_X86 &&
		      (in->id == X86_INS_CALL || in->id == X86_INS_PUSH ||
		       in->id == X86_INS_POP ||
		       ((in->id == X86_INS_ADD || in->id == X86_INS_SUB) &&
			nr_sets))))
			slots_rebased(st, r);
	}
	for (unsigned i = 0; i < nr_sets; i++)
		if (sets[i].dst >= 0 && sets[i].dst < NR_DWREGS)
			st->r[sets[i].dst] = sets[i].v;
	ret_of_call(dt, in, st);
}

/* The prefixed instruction x at addr (ppc_step()'s rules for it): pla
 * and paddi set RT to an address, pld loads (a PC-relative one from a
 * GOT slot gives the variable's address), pstd to r1 or r31 spills;
 * any other load writes RT, any other store clobbers its slot. */
static void ppc_pfx_step(const struct pda_datatype *dt,
			 const struct pda_ppc_pfx *x, uint64_t addr,
			 struct regs *st)
{
	struct set set;
	const int base = x->pcrel ? -1 : x->ra;

	if (x->store) {
		if (x->gpr && x->size == 8 && base > 0 && frame_reg(dt, base))
			slot_store(st, base, x->disp, 8, &st->r[x->rt]);
		else if (base > 0)
			slot_clobber(st, base, x->disp, x->size);
		return;
	}
	if (!x->gpr)
		return;
	set.dst = x->rt;
	if (x->addi && (x->pcrel || !x->ra)) {
		/* pla, pli: an address (or a constant) */
		forget(&set.v, -1, addr);
		set.v.kind = R_ADDR;
		set.v.val = (int64_t)((x->pcrel ? addr : 0) + (uint64_t)x->disp);
	} else if (x->addi) {
		set.v = st->r[x->ra];
		set.v.val += x->disp;
	} else if (x->size == 8 && x->pcrel) {
		addr_load(dt, addr + (uint64_t)x->disp, addr, &set.v);
	} else if (x->size == 8 && base > 0) {
		set.v = load(dt, st, base, x->disp, addr, x->rt);
	} else {
		forget(&set.v, x->rt, addr + 8);
	}
	if (x->size == 16) /* plq: RT and RT + 1 */
		forget(&st->r[(x->rt + 1) & 31], (x->rt + 1) & 31, addr + 8);
	st->r[set.dst] = set.v;
}

/*
 * What the registers hold at pc, in *st, from the function's start: a walk in address order that carries the registers
 * along forward branches (an instruction's registers are what every way
 * to it agrees on; after a jump or return, only what jumped to it), and
 * knows nothing where a backward branch alone leads.
 */
/*
 * Registers holding "themselves" at pc, but what the ABI fixes: ppc64's
 * r2, the TOC pointer, which every function keeps (or restores after a
 * call) and ld sets to .got + 0x8000; at a function's start (entry),
 * r12, ELFv2's global entry point's address, from which its addis r2,
 * r12 computes the same.
 */
static void regs_abi(const struct pda_datatype *dt, struct regs *st,
		     uint64_t pc, bool entry)
{
	regs_init(st, pc);
	if (dt->cs.arch != CS_ARCH_PPC)
		return;
	if (dt->toc) {
		forget(&st->r[2], -1, pc);
		st->r[2].kind = R_ADDR;
		st->r[2].val = (int64_t)dt->toc;
	}
	if (entry) {
		forget(&st->r[12], -1, pc);
		st->r[12].kind = R_ADDR;
		st->r[12].val = (int64_t)pc;
	}
}

/* The ways to the instruction at addr: the branches to it, met with the
 * way from the one before when that one goes on (*live). */
static void enter(const struct pda_datatype *dt, struct regs *st,
		  uint64_t addr, bool *live)
{
	for (size_t i = 0; i < dt->nr_edges; i++) {
		if (dt->edges[i].target != addr)
			continue;
		if (*live)
			meet(st, &dt->edges[i].r, addr);
		else
			*st = dt->edges[i].r;
		*live = true;
	}
}

static int walk_addrs(struct pda_datatype *dt, const unsigned char *code,
		      size_t len, uint64_t start, uint64_t pc, struct regs *st)
{
	const uint8_t *p = code;
	uint64_t addr = start;
	bool live = true;

	dt->nr_edges = 0;
	regs_abi(dt, st, start, true);
	for (int n = 0; n < MAX_WALK && addr < pc; n++) {
		const cs_insn *in = dt->cs.insn;
		struct pda_ppc_pfx x;
		uint64_t t;

		if (ppc_pfx_at(dt, p, len, &x)) {
			/* Power10's prefixed: 8 bytes, no branch */
			enter(dt, st, addr, &live);
			if (!live)
				regs_abi(dt, st, addr, false);
			live = true;
			ppc_pfx_step(dt, &x, addr, st);
			p += 8;
			len -= 8;
			addr += 8;
			continue;
		}
		if (!cs_disasm_iter(dt->cs.h, &p, &len, &addr, dt->cs.insn)) {
			/* an instruction capstone does not know (capstone
			 * 4 has no ppc64 mfvsrd): past it, any register
			 * may hold anything */
			if (len < dt->unit)
				break;
			p += dt->unit;
			len -= dt->unit;
			addr += dt->unit;
			regs_abi(dt, st, addr, false);
			continue;
		}
		enter(dt, st, in->address, &live);
		/* a filler after a jump or a return is no way in: the
		 * branches past it say what the registers hold */
		if (!live && padding(dt, in))
			continue;
		if (!live)
			regs_abi(dt, st, in->address, false);
		live = true;
		step(dt, in, st);
		if (is_jump(dt, in) &&
		    (t = jump_target(dt, in)) > in->address && t <= pc) {
			if (PDC_GROW(pda_session_alloc(dt->s), dt->edges,
				     dt->alloc_edges, dt->nr_edges + 1,
				     MAX_WALK) < 0)
				return PD_ERR_NOMEM;
			dt->edges[dt->nr_edges].target = t;
			dt->edges[dt->nr_edges].r = *st;
			dt->nr_edges++;
		}
		if (ends_flow(dt, in))
			live = false;
	}
	if (addr == pc)
		enter(dt, st, pc, &live);
	if (!live || addr != pc)
		regs_abi(dt, st, pc, false);
	return 0;
}

static enum pda_datatype_why why_of(enum pda_dt_why w)
{
	switch (w) {
	case PDA_DT_FOUND:
		return PDA_DATATYPE_FOUND;
	case PDA_DT_NO_DWARF:
		return PDA_DATATYPE_NO_DWARF;
	case PDA_DT_NO_VAR:
		return PDA_DATATYPE_NO_VAR;
	case PDA_DT_NO_POINTER:
		return PDA_DATATYPE_NO_POINTER;
	case PDA_DT_BAD_OFFSET:
		return PDA_DATATYPE_BAD_OFFSET;
	case PDA_DT_NO_GLOBAL:
		return PDA_DATATYPE_NO_GLOBAL;
	}
	return PDA_DATATYPE_NO_VAR;
}

/* The lookup of access a through a base register that holds v, into
 * *q (q->pc the instruction's). */
static void to_access(const struct rval *v, const struct access *a,
		      struct pda_dt_access *q)
{
	unsigned first = 0;

	q->disp = a->disp + v->val;
	q->elem = v->elem || a->index >= 0;
	q->gname = NULL;
	if (v->kind == R_ADDR) {
		/* an address (plus disp), or a pointer loaded from one */
		q->reg = -1;
		q->addr = v->nr_loads ? (uint64_t)v->loads[0]
				      : (uint64_t)q->disp;
		q->deref = v->nr_loads > 0;
		q->gname = v->gname;
		first = 1;
	} else if (v->kind == R_RET) {
		/* a call's result: the loads are in its target */
		q->reg = -1;
		q->callee = v->pc;
	} else {
		/* the variable at v->pc in the register (or in memory at
		 * it), what was loaded from there: a reload from a stack
		 * slot, a pointer member */
		q->pc = v->pc;
		q->reg = v->reg;
		if (v->nr_loads) {
			q->deref = true;
			q->slot = v->loads[0];
			first = 1;
		} else {
			q->elem = v->val != 0 || a->index >= 0;
		}
	}
	q->nr_path = 0;
	q->path_elems = 0;
	for (unsigned k = first; k < v->nr_loads; k++) {
		if (v->load_elems >> k & 1)
			q->path_elems |= 1u << q->nr_path;
		q->path[q->nr_path++] = v->loads[k];
	}
}

/* The lookup of q; an address no DWARF variable holds, as perf >= 6.8
 * takes it, by the data object symbol there, whose declaration in the
 * unit names its type (a PIE's copy of a shared library's variable). */
static int data_type(struct pda_datatype *dt, struct pda_elf *elf,
		     struct pda_dt_access *q, struct pda_dt_type *t,
		     enum pda_dt_why *w)
{
	const char *name;
	uint64_t start, size, addr = q->addr;
	bool object;
	int rc = pda_elf_data_type(dt->s, elf, q, t, w);

	if (rc || *w != PDA_DT_NO_GLOBAL || q->reg >= 0 || q->gname ||
	    q->callee)
		return rc;
	rc = pda_elf_symbol_typed(dt->s, elf, addr, &name, &start, &size,
				  &object);
	if (rc == PD_ERR_NOTFOUND || (!rc && (!object || addr >= start + size)))
		return 0;
	if (rc)
		return rc;
	q->gname = name;
	q->addr = addr - start;
	rc = pda_elf_data_type(dt->s, elf, q, t, w);
	q->gname = NULL;
	q->addr = addr;
	return rc;
}

/* An address the walk found in the base v, plus one in a's addend
 * register: their sum in v (i386's GOT base plus a foo@GOTOFF, in
 * either). */
static void add_address(const struct regs *st, const struct access *a,
			struct rval *v)
{
	const struct rval *x;

	if (a->addend < 0 || a->addend >= NR_DWREGS || a->addend == a->reg)
		return;
	x = &st->r[a->addend];
	if (v->kind != R_ADDR || x->kind != R_ADDR || v->nr_loads ||
	    x->nr_loads || v->gname || x->gname || v->elem || x->elem)
		return;
	v->val += x->val;
}

/* The type of access a of the instruction at vaddr, in the function
 * starting at start: the variable in its base register at vaddr, else
 * what the walk from start finds the register holds.  ppc64: elf's TOC
 * pointer is known (.got's). */
static int lookup(struct pda_datatype *dt, struct pda_elf *elf, bool ppc64,
		  uint64_t start, uint64_t vaddr, const struct access *a,
		  struct pda_dt_type *t, enum pda_dt_why *w)
{
	struct pda_dt_access q = {0};
	const unsigned char *code;
	size_t len;
	int rc;

	q.pc = vaddr;
	q.reg = a->has_addr ? -1 : a->reg;
	q.disp = a->disp;
	q.addr = a->addr;
	q.elem = a->index >= 0;
	rc = data_type(dt, elf, &q, t, w);
	if (rc)
		return rc;
	/* not in a variable: an address the function put in the register */
	if (*w != PDA_DT_FOUND && *w != PDA_DT_NO_DWARF && !a->has_addr &&
	    a->reg >= 0 && a->reg < NR_DWREGS && start <= vaddr &&
	    pda_elf_code(elf, start, vaddr - start, &code, &len) == 0) {
		struct regs st;
		struct rval *v = &st.r[a->reg];
		uint64_t got, off, size;

		dt->walk_elf = elf;
		dt->toc = 0;
		if (ppc64 &&
		    pda_elf_section_at(elf, ".got", &got, &off, &size) == 0)
			dt->toc = got + 0x8000;
		rc = walk_addrs(dt, code, len, start, vaddr, &st);
		dt->walk_elf = NULL;
		if (rc)
			return rc;
		add_address(&st, a, v);
		to_access(v, a, &q);
		if (followed(v) || v->pc != vaddr || v->reg != a->reg ||
		    v->val) {
			rc = data_type(dt, elf, &q, t, w);
			if (rc)
				return rc;
		}
		if (*w != PDA_DT_FOUND && v->alt && v->nr_loads < MAX_LOADS) {
			struct rval alt = *v;

			alt.reg = v->alt_reg;
			alt.pc = v->alt_pc;
			alt.nr_loads++;
			alt.load_elems = (uint8_t)(v->load_elems << 1);
			alt.loads[0] = v->alt_off;
			memcpy(alt.loads + 1, v->loads,
			       v->nr_loads * sizeof(*v->loads));
			q.deref = false;
			to_access(&alt, a, &q);
			rc = data_type(dt, elf, &q, t, w);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Whether the word at vaddr of elf is a prefixed instruction's suffix:
 * the word before it a prefix (no suffix has primary opcode 1), and no
 * 64-byte boundary between them (none crosses one). */
static bool ppc_suffix(const struct pda_datatype *dt, struct pda_elf *elf,
		       uint64_t vaddr)
{
	const unsigned char *c;
	size_t len;

	return vaddr % 64 && pda_elf_code(elf, vaddr - 4, 4, &c, &len) == 0 &&
	       len >= 4 && pda_ppc_is_prefix(word_of(dt, c));
}

/* The attribution of the instruction at vaddr of elf, in the function
 * starting at start. */
static int attribute(struct pda_datatype *dt, struct pda_elf *elf,
		     uint64_t vaddr, uint64_t start,
		     struct pda_datatype_res *res)
{
	struct pda_elf_arch ar;
	cs_arch arch;
	cs_mode mode;
	unsigned unit;
	const unsigned char *code;
	const uint8_t *p;
	size_t len;
	uint64_t addr = vaddr;
	struct access a = {.kind = PDA_DATATYPE_UNKNOWN, .reg = -1,
			   .index = -1, .addend = -1};
	struct pda_dt_type t;
	struct pda_ppc_pfx x;
	enum pda_dt_why w;
	int rc;

	pda_elf_arch(elf, &ar);
	if ((ar.machine != EM_X86_64 && ar.machine != EM_386 &&
	     ar.machine != EM_AARCH64 && ar.machine != EM_ARM &&
	     ar.machine != EM_PPC64 &&
	     !(ar.machine == EM_S390 && ar.is64)) ||
	    !pda_annot_cs_target(&ar, pda_elf_arm_thumb(elf, vaddr), &arch,
				 &mode, &unit)) {
		res->why = PDA_DATATYPE_NO_ARCH;
		return 0;
	}
	dt->unit = unit;
	rc = pda_annot_cs_use(&dt->cs, arch, mode);
	if (rc == PD_ERR_UNSUPPORTED) {
		res->why = PDA_DATATYPE_NO_ARCH;
		return 0;
	}
	if (rc)
		return rc;
	if (pda_elf_code(elf, vaddr, 16, &code, &len) < 0 || !len) {
		res->why = PDA_DATATYPE_NO_CODE;
		return 0;
	}
	p = code;
	if (ppc_pfx_at(dt, code, len, &x)) {
		ppc_pfx_access(&x, vaddr, &a);
	} else if (arch == CS_ARCH_PPC && ppc_suffix(dt, elf, vaddr)) {
		/* the second word of a prefixed instruction, which a
		 * listing that does not know them shows apart */
		res->why = PDA_DATATYPE_NO_CODE;
		return 0;
	} else if (!cs_disasm_iter(dt->cs.h, &p, &len, &addr, dt->cs.insn)) {
		res->why = PDA_DATATYPE_NO_CODE;
		return 0;
	} else if (arch == CS_ARCH_X86)
		x86_access(dt, dt->cs.insn, &a);
	else if (arch == CS_ARCH_ARM)
		arm_access(dt, dt->cs.insn, &a);
	else if (arch == CS_ARCH_PPC)
		ppc_access(dt, dt->cs.insn, &a);
	else if (arch == CS_ARCH_SYSZ)
		sysz_access(dt->cs.insn, &a);
	else
		arm64_access(dt, dt->cs.insn, &a);
	res->size = a.size;
	res->store = a.store;
	if (a.kind != PDA_DATATYPE_TYPE) {
		res->kind = a.kind;
		res->why = a.kind == PDA_DATATYPE_UNKNOWN ? PDA_DATATYPE_NO_MEMOP
							  : PDA_DATATYPE_FOUND;
		res->type = a.kind == PDA_DATATYPE_STACKOP  ? dt->stackop
			    : a.kind == PDA_DATATYPE_CANARY ? dt->canary
							    : dt->unknown;
		return 0;
	}
	if (!a.has_addr && a.reg < 0) {
		res->why = PDA_DATATYPE_NO_VAR;
		return 0;
	}
	rc = lookup(dt, elf, ar.machine == EM_PPC64, start, vaddr, &a, &t, &w);
	if (!rc && w != PDA_DT_FOUND && w != PDA_DT_NO_DWARF && a.index >= 0) {
		/* base + index: the index the pointer (perf's multi_regs) */
		struct access b = a;
		struct pda_dt_type t2;
		enum pda_dt_why w2;

		b.reg = a.index;
		b.index = a.reg;
		rc = lookup(dt, elf, ar.machine == EM_PPC64, start, vaddr, &b,
			    &t2, &w2);
		if (!rc && w2 == PDA_DT_FOUND) {
			t = t2;
			w = w2;
		}
	}
	if (rc)
		return rc;
	res->why = why_of(w);
	if (w != PDA_DT_FOUND)
		return 0;
	res->kind = PDA_DATATYPE_TYPE;
	res->type = t.type;
	res->member = t.member;
	res->var = t.var;
	res->global = t.global;
	res->offset = t.offset;
	res->type_die = t.die;
	return 0;
}

/* A result set to (unknown) for a reason not found yet. */
static void res_init(const struct pda_datatype *dt, struct pda_datatype_res *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = PDA_DATATYPE_UNKNOWN;
	r->type = dt->unknown;
	r->why = PDA_DATATYPE_NO_BINARY;
}

/* A lookup that found no type is (unknown), whatever it decoded. */
static void res_done(const struct pda_datatype *dt, struct pda_datatype_res *r)
{
	if (r->kind == PDA_DATATYPE_TYPE && r->why != PDA_DATATYPE_FOUND) {
		r->kind = PDA_DATATYPE_UNKNOWN;
		r->type = dt->unknown;
	}
}

int pda_datatype_at(struct pda_datatype *dt, struct pda_elf *elf,
		    uint64_t vaddr, uint64_t start, struct pda_datatype_res *out)
{
	int rc;

	res_init(dt, out);
	rc = attribute(dt, elf, vaddr, start, out);
	res_done(dt, out);
	return rc;
}

struct pda_session *pda_datatype_session(const struct pda_datatype *dt)
{
	return dt->s;
}

int pda_datatype_layout(struct pda_datatype *dt,
			const struct pda_datatype_res *res,
			struct pda_dt_member **rows, size_t *nr)
{
	const struct memo *m = (const struct memo *)res;

	*rows = NULL;
	*nr = 0;
	if (!m->dso || !m->dso->elf || res->kind != PDA_DATATYPE_TYPE)
		return PD_ERR_NOTFOUND;
	return pda_elf_type_layout(dt->s, m->dso->elf, res->type_die, rows,
				   nr);
}

int pda_datatype_insn(struct pda_datatype *dt, const struct pda_annot_func *fn,
		      size_t i, struct pda_datatype_res *out)
{
	const struct pda_dso *dso = pda_annot_sym_dso(fn->sym);
	int rc;

	res_init(dt, out);
	if (i >= fn->nr_insns || !dso || !dso->elf)
		return 0;
	rc = pda_datatype_at(dt, dso->elf, fn->insns[i].addr, fn->sym->start,
			     out);
	out->dso = dso->name;
	return rc;
}

static bool memo_eq(const void *item, const void *key)
{
	const struct memo *a = item, *b = key;

	return a->dso == b->dso && a->vaddr == b->vaddr;
}

static bool alias_eq(const void *item, const void *key)
{
	const struct alias *a = item, *b = key;

	return a->dso == b->dso && a->dso_addr == b->dso_addr;
}

/* The recording CPU as perf's x86 annotate reads CPUID
 * ("GenuineIntel,6,167,1": vendor, family, model, stepping). */
static void fuse_init(struct pda_datatype *dt)
{
	struct pd_file *f = pda_session_file(dt->s);
	const struct pd_env *env;

	dt->fuse = FUSE_NONE;
	if (f && pd_file_env(f, &env) == 0 && env->cpuid &&
	    sscanf(env->cpuid, "%*[^,],%u,%u,%*u", &dt->family, &dt->model) ==
		    2)
		dt->fuse = prefix(env->cpuid, "AuthenticAMD") ? FUSE_AMD
							      : FUSE_INTEL;
}

/* The mnemonic's first word into out (a prefix as lock or rep is the
 * instruction's name in objdump's listing, which perf reads). */
static void first_word(const char *mn, char *out, size_t size)
{
	const size_t n = strcspn(mn, " ");

	snprintf(out, size, "%.*s", (int)n, mn);
}

/*
 * perf's ins__is_fused() for x86 (arch/x86/annotate/instructions.c):
 * whether ins1, then ins2, are fused, so that a sample on ins2 belongs
 * to ins1's memory access.  Intel from Nehalem (family 6, model 0x1e:
 * cmp and test; later models add, sub, and, inc, dec, as substrings);
 * AMD from family 0x15 (cmp, test) and 0x19 (add, sub, and, inc, dec,
 * or, xor, as prefixes); never before a jmp.  perf applies it to any
 * ins2 (not only a conditional jump): a timer sample's skid puts it
 * after the access, and perf's answer is the one users compare with.
 */
static bool fused(const struct pda_datatype *dt, const char *ins1,
		  const char *ins2)
{
	static const char *const intel[] = {"add", "sub", "and", "inc",
					    "dec"};
	static const char *const amd[] = {"add", "sub", "and", "inc",
					  "dec", "or",	"xor"};
	const bool cmp = strstr(ins1, "cmp") && !strstr(ins1, "xchg");

	if (strstr(ins2, "jmp"))
		return false;
	if (dt->fuse == FUSE_INTEL) {
		if (dt->family != 6 || dt->model < 0x1e)
			return false;
		if (cmp || strstr(ins1, "test"))
			return true;
		for (size_t i = 0; dt->model != 0x1e && i < 5; i++)
			if (strstr(ins1, intel[i]))
				return true;
		return false;
	}
	if (dt->fuse != FUSE_AMD || dt->family < 0x15)
		return false;
	if (prefix(ins1, "test") || (prefix(ins1, "cmp") && cmp))
		return true;
	for (size_t i = 0; dt->family >= 0x19 && i < 7; i++)
		if (prefix(ins1, amd[i]))
			return true;
	return false;
}

/*
 * The instruction before vaddr in the x86 function at start, as a
 * linear listing from start has it, into *prev when it and vaddr's are
 * fused() and vaddr's has no memory operand; false otherwise (vaddr the
 * first, not on the listing's way, or another architecture).  The
 * capstone handle is attribute()'s.
 */
static bool fused_prev(struct pda_datatype *dt, struct pda_elf *elf,
		       uint64_t start, uint64_t vaddr, uint64_t *prev)
{
	struct pda_elf_arch ar;
	const unsigned char *code;
	const uint8_t *p;
	size_t len;
	uint64_t addr = start;
	char ins1[32] = "", ins2[32];
	bool have = false;

	pda_elf_arch(elf, &ar);
	if ((ar.machine != EM_X86_64 && ar.machine != EM_386) ||
	    vaddr <= start ||
	    pda_elf_code(elf, start, vaddr - start + 16, &code, &len) < 0)
		return false;
	if (dt->fuse == FUSE_UNKNOWN)
		fuse_init(dt);
	if (dt->fuse == FUSE_NONE)
		return false;
	p = code;
	for (int n = 0; n < MAX_WALK && addr <= vaddr &&
			cs_disasm_iter(dt->cs.h, &p, &len, &addr, dt->cs.insn);
	     n++) {
		const cs_insn *in = dt->cs.insn;

		if (in->address == vaddr) {
			/* perf retries only an instruction without a
			 * memory operand: lea's (no access) ends it */
			for (unsigned i = 0; i < in->detail->x86.op_count; i++)
				if (in->detail->x86.operands[i].type ==
				    X86_OP_MEM)
					return false;
			first_word(in->mnemonic, ins2, sizeof(ins2));
			return have && fused(dt, ins1, ins2);
		}
		first_word(in->mnemonic, ins1, sizeof(ins1));
		*prev = in->address;
		have = true;
	}
	return false;
}

/*
 * A sample's attribution: its instruction's, or, when that accesses no
 * memory, the previous one's where the two are fused (and so on back),
 * as perf's hist_entry__get_data_type() retries (annotate
 * --code-with-type marks each instruction alone, as perf's does).
 */
static int sample_attribute(struct pda_datatype *dt, struct pda_elf *elf,
			    uint64_t vaddr, uint64_t start,
			    struct pda_datatype_res *res)
{
	const char *dso = res->dso;
	uint64_t prev = 0;
	int rc = attribute(dt, elf, vaddr, start, res);

	while (!rc && res->why == PDA_DATATYPE_NO_MEMOP &&
	       fused_prev(dt, elf, start, vaddr, &prev)) {
		vaddr = prev;
		res_init(dt, res);
		res->dso = dso;
		rc = attribute(dt, elf, vaddr, start, res);
	}
	return rc;
}

/* The memo of sample's instruction, resolving its leaf; counted: the
 * pipeline resolved (and counted) the sample already, so the session's
 * sample counts are left as they are. */
static int leaf_memo(struct pda_datatype *dt, const struct pd_sample *sample,
		     bool counted, struct memo **out)
{
	const struct pda_frame *fr;
	struct pda_dso *dso;
	struct memo key, *m;
	uint64_t h, al_addr; /* unused: the frame's address is the key */
	int rc;

	rc = counted ? pda_addr_leaf(dt->s, sample, &dt->st, &dso, &al_addr)
		     : pda_sample_leaf(dt->s, sample, &dt->st, &dso);
	if (rc < 0)
		return rc;
	fr = dt->st.nr ? &dt->st.frames[dt->st.nr - 1] : NULL;
	/* a kernel found by its kallsyms alone has no code to decode */
	key.dso = fr && dso && dso->state == PDA_DSO_FOUND && dso->elf ? dso
									 : NULL;
	key.vaddr = key.dso ? fr->dso_addr : 0;
	h = pdc_hash_u64((uintptr_t)key.dso ^ pdc_hash_u64(key.vaddr));
	m = pdc_hash_find(&dt->memo, h, memo_eq, &key);
	if (!m) {
		m = pda_zalloc(dt->s, sizeof(*m));
		if (!m)
			return PD_ERR_NOMEM;
		*m = key;
		res_init(dt, &m->res);
		m->res.dso = key.dso ? key.dso->name : NULL;
		rc = key.dso && !(fr->flags & PDA_FRAME_NO_SYMBOL)
			     ? sample_attribute(dt, key.dso->elf, key.vaddr,
						fr->dso_addr - fr->sym_off,
						&m->res)
			     : 0;
		if (!rc)
			rc = pdc_hash_add(pda_session_alloc(dt->s), &dt->memo,
					  h, m);
		if (rc) {
			pda_free(dt->s, m);
			return rc;
		}
		res_done(dt, &m->res);
	}
	*out = m;
	return 0;
}

int pda_datatype_sample(struct pda_datatype *dt, const struct pd_sample *sample,
			const struct pda_stack *st,
			const struct pda_datatype_res **out)
{
	struct alias key = {NULL, 0, NULL}, *al = NULL;
	struct memo *m = NULL;
	uint64_t h = 0;
	int rc;

	/* the pipeline's leaf frame (the out-of-line one of the ip): a
	 * hash lookup instead of resolving the leaf again */
	if (st && st->nr) {
		size_t i = 0;

		while (i + 1 < st->nr &&
		       (st->frames[i].flags & PDA_FRAME_INLINED))
			i++;
		key.dso = st->frames[i].flags & PDA_FRAME_NO_MAP
				  ? NULL
				  : st->frames[i].dso;
		key.dso_addr = key.dso ? st->frames[i].dso_addr
				       : st->frames[i].ip;
		h = pdc_hash_u64((uintptr_t)key.dso ^
				 pdc_hash_u64(key.dso_addr));
		al = pdc_hash_find(&dt->aliases, h, alias_eq, &key);
	}
	if (al) {
		m = al->m;
	} else {
		rc = leaf_memo(dt, sample, st != NULL, &m);
		if (rc < 0)
			return rc;
		if (st && st->nr) {
			al = pda_malloc(dt->s, sizeof(*al));
			if (!al)
				return PD_ERR_NOMEM;
			*al = key;
			al->m = m;
			rc = pdc_hash_add(pda_session_alloc(dt->s),
					  &dt->aliases, h, al);
			if (rc) {
				pda_free(dt->s, al);
				return rc;
			}
		}
	}
	pda_datatype_count(dt, sample, &m->res);
	*out = &m->res;
	return 0;
}

const char *pda_datatype_typeoff(struct pda_datatype *dt,
				 const struct pda_datatype_res *res)
{
	char buf[1024];
	int n;

	if (res->kind != PDA_DATATYPE_TYPE)
		return res->type;
	n = snprintf(buf, sizeof(buf), "%s +%s%" PRIx64 " (%s)", res->type,
		     res->offset ? "0x" : "", (uint64_t)res->offset,
		     res->member ? res->member : "no field");
	if (n < 0)
		return NULL;
	return pda_intern(dt->s, buf,
			  (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void pda_datatype_count(struct pda_datatype *dt, const struct pd_sample *sample,
			const struct pda_datatype_res *res)
{
	dt->samples[res->why]++;
	dt->periods[res->why] += sample->period;
}
