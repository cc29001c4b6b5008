/*
 * pda_annotate_func.c - one function of an annotation: its instructions
 * disassembled by capstone from the DSO's own file, in the architecture
 * of that file's e_machine (so an aarch64 capture annotates on x86_64),
 * each with its samples, source line, inline chain, branch target and
 * loop back-edge, and the sums per source line.
 *
 * The code bytes come from the binary the DSO lookup found (pda_dso.c),
 * never from its separate debug file, whose code sections are NOBITS;
 * source lines and inline chains come from DWARF as symbolization reads
 * them (pda_dwarf.c), the line table's row as eu-addr2line gives it.
 */
#include "pda_annotate_int.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A bigger symbol is damage or hostile: the model takes about 40 bytes
 * per code byte (64 MiB took 2.35 GB), and no compiled function comes
 * near 4 MiB.
 */
#define FUNC_MAX_BYTES ((uint64_t)4 << 20)
#define INSNS_MAX ((size_t)1 << 24)
#define POOL_MAX ((size_t)1 << 30)
#define INLINE_MAX 64

/* A function being built: arrays grow, pointers are set at the end. */
struct build {
	struct pda_annot *a;
	struct pda_annot_func *fn;
	struct pda_annot_insn *insns;
	size_t nr, alloc;
	struct pda_annot_count *counts; /* nr * nr_events */
	size_t counts_alloc;
	size_t *text;			/* nr * 2 pool offsets */
	size_t text_alloc;
	char *pool;
	size_t pool_len, pool_alloc;
	struct pda_inline inl[INLINE_MAX];
};

/* A function and what it owns. */
struct func_mem {
	struct pda_annot_func fn;
	struct pda_annot_insn *insns;
	struct pda_annot_count *counts;
	char *pool;
	struct pda_annot_line *lines;
	struct pda_annot_count *line_counts;
};

static const char *arch_name(const struct pda_elf_arch *ar, bool thumb)
{
	switch (ar->machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return ar->big_endian ? "aarch64_be" : "aarch64";
	case EM_ARM:
		return thumb ? "thumb" : "arm";
	case EM_PPC64:
		return ar->big_endian ? "ppc64" : "ppc64le";
	case EM_PPC:
		return "ppc";
	case EM_S390:
		return ar->is64 ? "s390x" : "s390";
	case EM_RISCV:
		return ar->is64 ? "riscv64" : "riscv32";
	case EM_MIPS:
		return ar->is64 ? "mips64" : "mips";
	case EM_SPARCV9:
		return "sparc64";
	default:
		return "unknown";
	}
}

int pda_annot_cs_use(struct pda_annot_cs *c, cs_arch arch, cs_mode mode)
{
	if (c->open && c->arch == arch && c->mode == mode)
		return 0;
	pda_annot_cs_release(c);
	if (cs_open(arch, mode, &c->h) != CS_ERR_OK)
		return PD_ERR_UNSUPPORTED;
	c->open = true;
	c->arch = arch;
	c->mode = mode;
	cs_option(c->h, CS_OPT_DETAIL, CS_OPT_ON);
	c->insn = cs_malloc(c->h);
	return c->insn ? 0 : PD_ERR_NOMEM;
}

void pda_annot_cs_release(struct pda_annot_cs *c)
{
	if (c->insn)
		cs_free(c->insn, 1);
	c->insn = NULL;
	if (c->open)
		cs_close(&c->h);
	c->open = false;
}

/*
 * capstone's arch and mode for the file; false when capstone (4.0 has no
 * RISC-V) or we do not know it.  *unit is the step over bytes that do
 * not decode.
 */
bool pda_annot_cs_target(const struct pda_elf_arch *ar, bool thumb,
			cs_arch *arch, cs_mode *mode, unsigned *unit)
{
	cs_mode endian = ar->big_endian ? CS_MODE_BIG_ENDIAN
					: CS_MODE_LITTLE_ENDIAN;

	*unit = 4;
	switch (ar->machine) {
	case EM_X86_64:
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = ar->machine == EM_386 ? CS_MODE_32 : CS_MODE_64;
		*unit = 1;
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = endian;
		return true;
	case EM_ARM:
		*arch = CS_ARCH_ARM;
		*mode = (thumb ? CS_MODE_THUMB : CS_MODE_ARM) | endian;
		*unit = thumb ? 2 : 4;
		return true;
	case EM_PPC64:
	case EM_PPC:
		*arch = CS_ARCH_PPC;
		*mode = (ar->machine == EM_PPC64 ? CS_MODE_64 : CS_MODE_32) |
			endian;
		return true;
	case EM_S390:
		*arch = CS_ARCH_SYSZ;
		*mode = CS_MODE_BIG_ENDIAN;
		*unit = 2;
		return true;
	case EM_MIPS:
		*arch = CS_ARCH_MIPS;
		*mode = (ar->is64 ? CS_MODE_MIPS64 : CS_MODE_MIPS32) | endian;
		return true;
	case EM_SPARCV9:
		*arch = CS_ARCH_SPARC;
		*mode = CS_MODE_V9 | CS_MODE_BIG_ENDIAN;
		return true;
#ifdef CS_ARCH_RISCV
	case EM_RISCV:
		*arch = CS_ARCH_RISCV;
		*mode = ar->is64 ? CS_MODE_RISCV64 : CS_MODE_RISCV32;
		*mode |= CS_MODE_RISCVC;
		*unit = 2;
		return true;
#endif
	default:
		return false;
	}
}

/* Copy str into the pool; its offset in *off.  0 or NOMEM. */
static int pool_add(struct build *b, const char *str, size_t *off)
{
	size_t len = strlen(str) + 1;

	if (PDA_GROW(b->a->s, b->pool, b->pool_alloc, b->pool_len + len,
		     POOL_MAX) < 0)
		return PD_ERR_NOMEM;
	memcpy(b->pool + b->pool_len, str, len);
	*off = b->pool_len;
	b->pool_len += len;
	return 0;
}

/*
 * The direct target of a branch or call, from capstone's operands: an
 * immediate (capstone 4 gives x86, arm, aarch64, ppc, s390, mips and
 * sparc branch targets as absolute addresses).
 */
#define LAST_IMM(ops, nr, imm_type, cast)                                  \
	do {                                                                \
		for (int i_ = (int)(nr) - 1; i_ >= 0; i_--)                 \
			if ((ops)[i_].type == (imm_type)) {                 \
				*target = (cast)(ops)[i_].imm;              \
				return true;                                \
			}                                                   \
		return false;                                               \
	} while (0)

bool pda_annot_branch_target(cs_arch arch, const cs_insn *in, uint64_t *target)
{
	const cs_detail *d = in->detail;

	if (!d)
		return false;
	/* an if chain: -Wswitch-enum would want every arch capstone has */
	if (arch == CS_ARCH_X86) {
		if (d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
			*target = (uint64_t)d->x86.operands[0].imm;
			return true;
		}
		return false;
	}
	if (arch == CS_ARCH_ARM64)
		LAST_IMM(d->arm64.operands, d->arm64.op_count, ARM64_OP_IMM,
			 uint64_t);
	if (arch == CS_ARCH_ARM)
		LAST_IMM(d->arm.operands, d->arm.op_count, ARM_OP_IMM,
			 uint32_t);
	if (arch == CS_ARCH_PPC)
		LAST_IMM(d->ppc.operands, d->ppc.op_count, PPC_OP_IMM,
			 uint64_t);
	if (arch == CS_ARCH_SYSZ)
		LAST_IMM(d->sysz.operands, d->sysz.op_count, SYSZ_OP_IMM,
			 uint64_t);
	if (arch == CS_ARCH_MIPS)
		LAST_IMM(d->mips.operands, d->mips.op_count, MIPS_OP_IMM,
			 uint64_t);
	return false;
}

/*
 * What kind of control transfer in is.  capstone's groups, and for
 * aarch64, whose groups in capstone 4 mark calls and returns as plain
 * jumps, the mnemonics.
 */
static unsigned insn_kind(csh h, cs_arch arch, const cs_insn *in)
{
	const char *m = in->mnemonic;

	if (arch == CS_ARCH_ARM64) {
		if (!strcmp(m, "bl") || !strcmp(m, "blr"))
			return PDA_INSN_CALL;
		if (!strcmp(m, "ret") || !strcmp(m, "eret"))
			return PDA_INSN_RET;
	}
	if (cs_insn_group(h, in, CS_GRP_CALL))
		return PDA_INSN_CALL;
	if (cs_insn_group(h, in, CS_GRP_RET) ||
	    cs_insn_group(h, in, CS_GRP_IRET))
		return PDA_INSN_RET;
	if (cs_insn_group(h, in, CS_GRP_JUMP))
		return PDA_INSN_JUMP;
	return 0;
}

static const char *demangle(struct pda_annot *a, const char *name)
{
	if (pda_session_opts(a->s)->no_demangle)
		return name;
	return pda_demangle(a->s, name);
}

/* "sym+0xOFF" for a target address, interned, in *out (NULL unknown).
 * @return 0 or PD_ERR_NOMEM: a failure is no unknown target (E5). */
static int target_name(struct pda_annot *a, struct pda_elf *e,
		       const struct pda_annot_sym *self, uint64_t size,
		       uint64_t target, const char **out)
{
	const char *name;
	uint64_t start, sz;
	char buf[1024];
	int n, rc;

	*out = NULL;
	if (target >= self->start && target - self->start < size) {
		name = self->name;
		start = self->start;
	} else {
		rc = pda_elf_symbol(a->s, e, target, &name, &start, &sz);
		if (rc < 0)
			return rc == PD_ERR_NOMEM ? rc : 0;
		name = demangle(a, name);
		if (!name)
			return PD_ERR_NOMEM;
	}
	if (target == start)
		n = snprintf(buf, sizeof(buf), "%s", name);
	else
		n = snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, name,
			     target - start);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0;
	*out = pda_intern(a->s, buf, (size_t)n);
	return *out ? 0 : PD_ERR_NOMEM;
}

static int cmp_addr(const void *x, const void *y)
{
	const struct annot_addr *a = *(const struct annot_addr *const *)x;
	const struct annot_addr *b = *(const struct annot_addr *const *)y;

	return a->vaddr < b->vaddr ? -1 : a->vaddr > b->vaddr;
}

/* Append one instruction (its text into the pool).  0 or NOMEM. */
static int push_insn(struct build *b, uint64_t addr, unsigned size,
		     const char *mnemonic, const char *operands, unsigned flags)
{
	const size_t nr_ev = b->a->opts.nr_events;
	struct pda_annot_insn *in;

	if (PDA_GROW(b->a->s, b->insns, b->alloc, b->nr + 1, INSNS_MAX) < 0 ||
	    PDA_GROW(b->a->s, b->text, b->text_alloc, 2 * (b->nr + 1),
		     2 * INSNS_MAX) < 0 ||
	    PDA_GROW(b->a->s, b->counts, b->counts_alloc,
		     (b->nr + 1) * nr_ev, INSNS_MAX * nr_ev) < 0)
		return PD_ERR_NOMEM;
	in = &b->insns[b->nr];
	memset(in, 0, sizeof(*in));
	memset(&b->counts[b->nr * nr_ev], 0, nr_ev * sizeof(*b->counts));
	in->addr = addr;
	in->size = size;
	in->flags = flags;
	if (pool_add(b, mnemonic, &b->text[2 * b->nr]) < 0 ||
	    pool_add(b, operands, &b->text[2 * b->nr + 1]) < 0)
		return PD_ERR_NOMEM;
	b->nr++;
	return 0;
}

/*
 * objdump's name of a PC-relative operand's address, into *out: "foo@got"
 * for the GOT slot the dynamic linker fills with foo's address, else the
 * symbol starting there (objdump names no address inside one); NULL
 * none.  @return 0 or PD_ERR_NOMEM.
 */
static int pcrel_name(struct pda_annot *a, struct pda_elf *e, uint64_t addr,
		      const char **out)
{
	const char *name;
	uint64_t var, start, size;
	bool got = true;
	char buf[1024];
	int n, rc;

	*out = NULL;
	rc = pda_elf_got_slot(a->s, e, addr, &var, &name);
	if (rc == PD_ERR_NOTFOUND) {
		var = addr;
		got = false;
	}
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (!name) {
		rc = pda_elf_symbol(a->s, e, var, &name, &start, &size);
		if (rc < 0 || start != var)
			return rc == PD_ERR_NOMEM ? rc : 0;
	}
	name = demangle(a, name);
	if (!name)
		return PD_ERR_NOMEM;
	n = snprintf(buf, sizeof(buf), "%s%s", name, got ? "@got" : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0;
	*out = pda_intern(a->s, buf, (size_t)n);
	return *out ? 0 : PD_ERR_NOMEM;
}

/*
 * A Power10 prefixed instruction at p (at), which capstone 4 does not
 * know, pushed as one 8-byte instruction in objdump's text, with its
 * PC-relative address's name as its target's; false
 * (nothing pushed) when the 8 bytes are none.  *rc: 0 or PD_ERR_NOMEM.
 */
static bool ppc_prefixed(struct build *b, struct pda_elf *e,
			 const struct pda_elf_arch *ar, const uint8_t *p,
			 uint64_t at, int *rc)
{
	struct pda_ppc_pfx x;
	uint32_t w[2];
	char ops[96];

	for (int i = 0; i < 2; i++)
		w[i] = ar->big_endian
			       ? (uint32_t)p[4 * i] << 24 |
					 (uint32_t)p[4 * i + 1] << 16 |
					 (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3]
			       : (uint32_t)p[4 * i + 3] << 24 |
					 (uint32_t)p[4 * i + 2] << 16 |
					 (uint32_t)p[4 * i + 1] << 8 | p[4 * i];
	if (!pda_ppc_is_prefix(w[0]) ||
	    !pda_ppc_prefixed_text(w[0], w[1], at, &x, ops, sizeof(ops)))
		return false;
	*rc = push_insn(b, at, 8, x.name, ops, 0);
	if (*rc == 0 && x.pcrel) {
		struct pda_annot_insn *pi = &b->insns[b->nr - 1];

		pi->flags |= PDA_INSN_DATA_REF;
		pi->target = at + (uint64_t)x.disp;
		*rc = pcrel_name(b->a, e, pi->target, &pi->target_name);
	}
	return true;
}

static int disassemble(struct build *b, struct pda_elf *e,
		       const struct pda_elf_arch *ar, bool thumb,
		       const unsigned char *code, size_t len, uint64_t start)
{
	struct pda_annot *a = b->a;
	cs_arch arch;
	cs_mode mode;
	unsigned unit;
	cs_insn *in;
	csh h;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = start;
	int rc = 0;

	if (!pda_annot_cs_target(ar, thumb, &arch, &mode, &unit)) {
		b->fn->error = "capstone cannot disassemble this architecture";
		return 0;
	}
	if (cs_open(arch, mode, &h) != CS_ERR_OK) {
		b->fn->error = "capstone was built without this architecture";
		return 0;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	if (arch == CS_ARCH_X86 && a->opts.syntax == PDA_SYNTAX_ATT)
		cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	in = cs_malloc(h);
	if (!in) {
		cs_close(&h);
		return PD_ERR_NOMEM;
	}
	while (left && rc == 0) {
		uint64_t at = addr;

		if (arch == CS_ARCH_PPC && left >= 8 &&
		    ppc_prefixed(b, e, ar, p, at, &rc)) {
			p += 8;
			left -= 8;
			addr += 8;
		} else if (cs_disasm_iter(h, &p, &left, &addr, in)) {
			unsigned kind = insn_kind(h, arch, in);
			uint64_t target;

			rc = push_insn(b, at, in->size, in->mnemonic, in->op_str,
				       kind);
			if (rc == 0 && (kind & (PDA_INSN_JUMP | PDA_INSN_CALL)) &&
			    pda_annot_branch_target(arch, in, &target)) {
				struct pda_annot_insn *pi = &b->insns[b->nr - 1];

				pi->target = target;
				rc = target_name(a, e, b->fn->sym, b->fn->size,
						 target, &pi->target_name);
				if ((kind & PDA_INSN_JUMP) &&
				    target >= b->fn->sym->start && target <= at)
					pi->flags |= PDA_INSN_BACK_EDGE;
			}
		} else {
			/* bytes that do not decode: shown as objdump's
			 * .byte, one unit skipped */
			char ops[64];
			size_t n = unit < left ? unit : left, o = 0;

			for (size_t i = 0; i < n; i++)
				o += (size_t)snprintf(ops + o, sizeof(ops) - o,
						      "%s0x%02x", i ? ", " : "",
						      p[i]);
			rc = push_insn(b, at, (unsigned)n, ".byte", ops,
				       PDA_INSN_BAD);
			p += n;
			left -= n;
			addr += n;
		}
	}
	cs_free(in, 1);
	cs_close(&h);
	return rc;
}

/* An instruction's index by address, or nr when none starts there. */
static size_t insn_at(const struct build *b, uint64_t addr)
{
	size_t lo = 0, hi = b->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->insns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nr && b->insns[lo].addr == addr ? lo : b->nr;
}

/* Samples, loop heads, source lines and inline chains. */
static int place(struct build *b, struct pda_elf *e, struct annot_sym *sym)
{
	struct pda_annot *a = b->a;
	const size_t nr_ev = a->opts.nr_events;
	struct annot_addr **addrs = NULL;
	const char *prev_file = NULL, *prev_func = NULL;
	unsigned prev_line = 0, prev_depth = 0;
	size_t n = 0, j = 0;
	int rc = 0;

	if (sym->nr_addrs) {
		addrs = pda_malloc(a->s, sym->nr_addrs * sizeof(*addrs));
		if (!addrs)
			return PD_ERR_NOMEM;
		for (struct annot_addr *x = sym->addrs; x; x = x->next_in_sym)
			addrs[n++] = x;
		qsort(addrs, n, sizeof(*addrs), cmp_addr);
	}
	for (size_t i = 0; i < b->nr && rc == 0; i++) {
		struct pda_annot_insn *in = &b->insns[i];
		struct pda_annot_count *c = &b->counts[i * nr_ev];
		const char *file = NULL;
		unsigned line = 0;
		size_t nr_inl = 0;

		while (j < n && addrs[j]->vaddr < in->addr)
			j++; /* before the first instruction: none */
		for (; j < n && addrs[j]->vaddr - in->addr < in->size; j++)
			for (size_t ev = 0; ev < nr_ev; ev++) {
				c[ev].hits += addrs[j]->counts[ev].hits;
				c[ev].period += addrs[j]->counts[ev].period;
			}
		if ((in->flags & PDA_INSN_BACK_EDGE)) {
			size_t t = insn_at(b, in->target);

			if (t < b->nr)
				b->insns[t].flags |= PDA_INSN_LOOP_HEAD;
		}
		rc = pda_elf_srcline(a->s, e, in->addr, &file, &line);
		if (rc == PD_ERR_NOMEM)
			break;
		rc = 0;
		in->srcfile = file;
		in->line = file ? line : 0;
		if (i == 0 || file != prev_file || in->line != prev_line)
			in->flags |= PDA_INSN_LINE_START;
		prev_file = file;
		prev_line = in->line;
		rc = pda_elf_inlines(a->s, e, in->addr, b->inl, INLINE_MAX,
				     &nr_inl);
		if (rc < 0)
			break;
		if (nr_inl > 1) {
			in->inline_depth = (unsigned)(nr_inl - 1);
			in->inline_func = demangle(a, b->inl[0].func);
			if (!in->inline_func) {
				rc = PD_ERR_NOMEM;
				break;
			}
			in->call_file = b->inl[1].file;
			in->call_line = b->inl[1].file ? b->inl[1].line : 0;
		}
		if ((i == 0 && in->inline_depth) ||
		    (i > 0 && (in->inline_depth != prev_depth ||
			       in->inline_func != prev_func)))
			in->flags |= PDA_INSN_INLINE_START;
		prev_depth = in->inline_depth;
		prev_func = in->inline_func;
	}
	pda_free(a->s, addrs);
	return rc;
}

/* ---- source line sums ---------------------------------------------- */

static int cmp_line_key(const void *x, const void *y)
{
	const struct pda_annot_line *a = x, *b = y;

	if (a->file != b->file) {
		if (!a->file || !b->file)
			return a->file ? -1 : 1;
		return strcmp(a->file, b->file);
	}
	return a->line < b->line ? -1 : a->line > b->line;
}

/* A line's weight: its share of the function, summed over the events. */
static double line_weight(const struct pda_annot_line *l,
			  const struct pda_annot_count *func, size_t nr_ev)
{
	double w = 0;

	for (size_t ev = 0; ev < nr_ev; ev++) {
		if (func[ev].period)
			w += (double)l->counts[ev].period /
			     (double)func[ev].period;
		else if (func[ev].hits)
			w += (double)l->counts[ev].hits / (double)func[ev].hits;
	}
	return w;
}

struct hot {
	double weight;
	struct pda_annot_line line;
};

static int cmp_hot(const void *x, const void *y)
{
	const struct hot *a = x, *b = y;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return cmp_line_key(&a->line, &b->line);
}

/* Sort lines[0..nr) hottest first.  0 or NOMEM. */
static int sort_hot(struct pda_annot *a, struct pda_annot_line *lines,
		    size_t nr, const struct pda_annot_count *func)
{
	struct hot *h;

	if (nr < 2)
		return 0;
	h = pda_malloc(a->s, nr * sizeof(*h));
	if (!h)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < nr; i++) {
		h[i].line = lines[i];
		h[i].weight = line_weight(&lines[i], func, a->opts.nr_events);
	}
	qsort(h, nr, sizeof(*h), cmp_hot);
	for (size_t i = 0; i < nr; i++)
		lines[i] = h[i].line;
	pda_free(a->s, h);
	return 0;
}

static int sum_lines(struct build *b, struct func_mem *m)
{
	struct pda_annot *a = b->a;
	const size_t nr_ev = a->opts.nr_events;
	struct pda_annot_line *lines;
	struct pda_annot_count *lc;
	size_t nr = 0;

	if (!b->nr)
		return 0;
	lines = pda_malloc(a->s, b->nr * sizeof(*lines));
	lc = pda_zalloc(a->s, b->nr * nr_ev * sizeof(*lc));
	if (!lines || !lc) {
		pda_free(a->s, lines);
		pda_free(a->s, lc);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < b->nr; i++) {
		lines[i].file = b->insns[i].srcfile;
		lines[i].line = b->insns[i].line;
		lines[i].nr_insns = i; /* the instruction, until merged */
	}
	qsort(lines, b->nr, sizeof(*lines), cmp_line_key);
	for (size_t i = 0; i < b->nr; i++) {
		const struct pda_annot_count *c =
			&b->counts[lines[i].nr_insns * nr_ev];

		if (!lines[i].file)
			continue;
		if (!nr || cmp_line_key(&lines[nr - 1], &lines[i]) != 0) {
			lines[nr].file = lines[i].file;
			lines[nr].line = lines[i].line;
			lines[nr].nr_insns = 0;
			lines[nr].counts = &lc[nr * nr_ev];
			nr++;
		}
		for (size_t ev = 0; ev < nr_ev; ev++) {
			lc[(nr - 1) * nr_ev + ev].hits += c[ev].hits;
			lc[(nr - 1) * nr_ev + ev].period += c[ev].period;
		}
		lines[nr - 1].nr_insns++;
	}
	m->lines = lines;
	m->line_counts = lc;
	b->fn->lines = lines;
	b->fn->nr_lines = nr;
	return sort_hot(a, lines, nr, b->fn->sym->counts);
}

/* ---- the function -------------------------------------------------- */

static int build_func(struct build *b, struct annot_sym *sym)
{
	struct pda_annot *a = b->a;
	struct pda_dso *dso = sym->dso;
	struct pda_elf *e = dso->state == PDA_DSO_FOUND ? dso->elf : NULL;
	const unsigned char *code;
	struct pda_elf_arch ar;
	const char *name;
	uint64_t start, size;
	size_t len;
	bool thumb;
	int rc;

	if (!e) {
		/* its size as the session knows it (perf's objdump range
		 * of a perf-PID.map symbol is its line's size) */
		b->fn->size = sym->size;
		b->fn->error = sym->pub.kernel
				       ? "no kernel image with code (kernel "
					 "symbols came from kallsyms; give "
					 "--vmlinux)"
				       : "binary not found";
		return 0;
	}
	pda_elf_arch(e, &ar);
	thumb = pda_elf_arm_thumb(e, sym->pub.start);
	b->fn->arch = arch_name(&ar, thumb);
	rc = pda_elf_symbol(a->s, e, sym->pub.start, &name, &start, &size);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0 || start != sym->pub.start) {
		b->fn->error = "the symbol is no longer in the binary";
		return 0;
	}
	if (size > FUNC_MAX_BYTES) {
		b->fn->error = "the symbol is too big to disassemble (over "
			       "4 MiB: a damaged symbol table?)";
		return 0;
	}
	b->fn->size = size;
	if (pda_elf_code(e, start, size, &code, &len) < 0) {
		b->fn->error = "no code bytes in the file found (a separate "
			       "debug file has none: give the binary with "
			       "--symfs)";
		return 0;
	}
	rc = disassemble(b, e, &ar, thumb, code, len, start);
	if (rc < 0 || b->fn->error)
		return rc;
	return place(b, e, sym);
}

int pda_annot_func_new(struct pda_annot *a, size_t i,
		       struct pda_annot_func **out)
{
	const size_t nr_ev = a->opts.nr_events;
	struct build b;
	struct func_mem *m;
	int rc;

	*out = NULL;
	if (!a->finished || i >= a->nr_syms)
		return PD_ERR_API;
	m = pda_zalloc(a->s, sizeof(*m));
	if (!m)
		return PD_ERR_NOMEM;
	memset(&b, 0, sizeof(b));
	b.a = a;
	b.fn = &m->fn;
	m->fn.sym = &a->sorted[i]->pub;
	m->fn.nr_events = nr_ev;
	m->fn.arch = "unknown";
	rc = build_func(&b, a->sorted[i]);
	if (rc == 0)
		rc = sum_lines(&b, m);
	if (rc < 0) {
		pda_free(a->s, b.insns);
		pda_free(a->s, b.counts);
		pda_free(a->s, b.pool);
		pda_free(a->s, b.text);
		pda_free(a->s, m->lines);
		pda_free(a->s, m->line_counts);
		pda_free(a->s, m);
		return rc;
	}
	for (size_t k = 0; k < b.nr; k++) {
		b.insns[k].mnemonic = b.pool + b.text[2 * k];
		b.insns[k].operands = b.pool + b.text[2 * k + 1];
		b.insns[k].counts = &b.counts[k * nr_ev];
	}
	pda_free(a->s, b.text);
	m->insns = b.insns;
	m->counts = b.counts;
	m->pool = b.pool;
	m->fn.insns = b.insns;
	m->fn.nr_insns = b.nr;
	*out = &m->fn;
	return 0;
}

void pda_annot_func_free(struct pda_annot *a, struct pda_annot_func *fn)
{
	struct func_mem *m = (struct func_mem *)fn;

	if (!fn)
		return;
	pda_free(a->s, m->insns);
	pda_free(a->s, m->counts);
	pda_free(a->s, m->pool);
	pda_free(a->s, m->lines);
	pda_free(a->s, m->line_counts);
	pda_free(a->s, m);
}
