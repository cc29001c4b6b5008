/*
 * pda_branch_bb.c - the code a branch stack ran, instruction by
 * instruction, as perf 6.1's perf_sample__fprintf_brstackinsn() walks it
 * (`perf script -F brstackinsn`): its grab_bb() reads each block's bytes
 * from the binary, its dump_insn() decodes them one at a time, its
 * ip__fprintf_sym() labels each function the walk enters.  The emitter
 * prints the lines (emit/pde_script.c).
 */
#include "pda_branch_int.h"

#include <string.h>

/* perf's MAXBB and MAXINSN: a block's longest span, an instruction's
 * longest encoding (x86's) */
#define MAXBB 16384u
#define MAXINSN 15u

/* One block's code: len bytes at code, of the binary elf at vaddr. */
struct bb_code {
	struct pda_elf *elf;
	uint64_t vaddr;
	const unsigned char *code;
	size_t len;
};

/* perf's machine__kernel_ip() with the default kernel start */
static bool kernel_ip(uint64_t addr)
{
	return addr >> 63;
}

/*
 * grab_bb(): the bytes from start to end plus an instruction's length in
 * *bc.  @return 1 with bytes, 0 without (no map, no binary, too long, the
 * kernel's code), 2 when the block crosses between kernel and user space
 * (perf's -ENXIO), or a negative pd_err.
 */
static int grab_bb(struct pda_branch *b, const struct pd_sample *s,
		   const char *comm, uint64_t start, uint64_t end,
		   struct bb_code *bc)
{
	const struct loc_ent *e;
	int err = 0;

	memset(bc, 0, sizeof(*bc));
	if (!start || !end)
		return 0;
	if (kernel_ip(start) != kernel_ip(end))
		return 2;
	/* also end before start, as perf's unsigned difference */
	if (end - start > MAXBB - MAXINSN)
		return 0;
	e = pda_branch_resolve(b, s, comm, start, &err);
	if (!e)
		return err;
	/* perf reads the kernel's code from its DSO's file, which with
	 * kallsyms alone it has not */
	bc->elf = e->loc.kernel ? NULL : pda_branch_elf(e);
	if (!bc->elf)
		return 0;
	bc->vaddr = e->dso_addr;
	if (pda_elf_code(bc->elf, e->dso_addr, end - start + MAXINSN,
			 &bc->code, &bc->len) < 0 || !bc->len)
		return 0;
	return 1;
}

/*
 * The instruction at bc's offset off: its length (0: it does not decode,
 * perf's "<bad>"), and whether it is a branch (perf's arch_is_branch()).
 * @return 0 or PD_ERR_NOMEM.
 */
static int decode(struct pda_branch *b, const struct bb_code *bc, size_t off,
		  unsigned *len, bool *branch)
{
	const uint8_t *p = bc->code + off;
	size_t n = off < bc->len ? bc->len - off : 0;
	uint64_t at = bc->vaddr + off;
	int rc;

	*len = 0;
	*branch = false;
	if (!n)
		return 0;
	rc = pda_branch_cs(b, bc->elf, at);
	if (rc <= 0)
		return rc;
	if (cs_disasm_iter(b->cs.h, &p, &n, &at, b->cs.insn)) {
		*len = b->cs.insn->size;
		*branch = pda_branch_insn_type(b, b->cs.insn) != 0;
	}
	return 0;
}

static struct pda_bb_line *add_line(struct pda_branch *b,
				    enum pda_bb_kind kind, uint64_t addr)
{
	struct pda_bb_line *l;

	if (PDC_GROW(pda_session_alloc(b->s), b->bb, b->alloc_bb,
		     b->nr_bb + 1, SIZE_MAX / sizeof(*b->bb)) < 0)
		return NULL;
	l = &b->bb[b->nr_bb++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->addr = addr;
	return l;
}

/* An instruction's (or a branch's) line: its bytes where it decoded
 * (len > 0).  NULL when out of memory. */
static struct pda_bb_line *add_insn(struct pda_branch *b,
				    enum pda_bb_kind kind,
				    const struct bb_code *bc, size_t off,
				    unsigned len, uint64_t addr)
{
	struct pda_bb_line *l = add_line(b, kind, addr);

	if (l) {
		l->bytes = len ? bc->code + off : NULL;
		l->len = len;
	}
	return l;
}

/* The function last labelled: a label is printed on entering another. */
struct last_sym {
	const char *dso, *sym;
	uint64_t start;
	bool set;
};

/*
 * ip__fprintf_sym(): the label of the function at addr when it is not
 * the last one labelled (none for an address without a symbol).
 */
static int label(struct pda_branch *b, const struct pd_sample *s,
		 const char *comm, uint64_t addr, struct last_sym *last)
{
	const struct loc_ent *e;
	struct pda_bb_line *l;
	int err = 0;

	e = pda_branch_resolve(b, s, comm, addr, &err);
	if (!e)
		return err;
	if (!e->loc.sym)
		return 0;
	if (last->set && last->dso == e->loc.dso && last->sym == e->loc.sym &&
	    last->start == addr - e->loc.sym_off)
		return 0;
	l = add_line(b, PDA_BB_SYM, addr);
	if (!l)
		return PD_ERR_NOMEM;
	l->loc = &e->loc;
	last->dso = e->loc.dso;
	last->sym = e->loc.sym;
	last->start = addr - e->loc.sym_off;
	last->set = true;
	return 0;
}

/* A block's branch, entry's, the block's insns-th instruction. */
static int jump(struct pda_branch *b, const struct bb_code *bc, size_t off,
		uint64_t addr, uint64_t entry, unsigned insns)
{
	struct pda_bb_line *l;
	unsigned len;
	bool br;
	int rc = decode(b, bc, off, &len, &br);

	if (rc < 0)
		return rc;
	l = add_insn(b, PDA_BB_JUMP, bc, off, len, addr);
	if (!l)
		return PD_ERR_NOMEM;
	l->entry = entry;
	l->insns = insns;
	return 0;
}

/* An instruction that is not its block's branch; *len its length. */
static int insn(struct pda_branch *b, const struct bb_code *bc, size_t off,
		uint64_t addr, unsigned *len, bool *branch)
{
	int rc = decode(b, bc, off, len, branch);

	if (rc < 0)
		return rc;
	return add_insn(b, PDA_BB_INSN, bc, off, *len, addr) ? 0
							     : PD_ERR_NOMEM;
}

/* The blocks between entries, oldest first. */
static int middle(struct pda_branch *b, const struct pd_sample *s,
		  const char *comm, uint64_t nr, struct last_sym *last)
{
	for (uint64_t j = nr - 1; j-- > 0;) {
		struct pd_branch older, newer;
		struct bb_code bc;
		uint64_t start, end;
		size_t off = 0;
		unsigned insns = 0;
		int rc;

		pd_sample_branch(s, j + 1, &older);
		pd_sample_branch(s, j, &newer);
		start = older.to;
		end = newer.from;
		rc = grab_bb(b, s, comm, start, end, &bc);
		/* a kernel entry the ring filter left out: the block runs
		 * on to the next entry's branch */
		if (rc == 2 && j > 0) {
			pd_sample_branch(s, --j, &newer);
			end = newer.from;
			rc = grab_bb(b, s, comm, start, end, &bc);
		}
		if (rc < 0)
			return rc;
		if (rc != 1)
			continue;
		while (off < bc.len) {
			const uint64_t ip = start + off;
			unsigned len;
			bool br;

			rc = label(b, s, comm, ip, last);
			if (rc < 0)
				return rc;
			if (ip == end) {
				rc = jump(b, &bc, off, ip, j, ++insns);
				if (rc < 0)
					return rc;
				break;
			}
			rc = insn(b, &bc, off, ip, &len, &br);
			if (rc < 0)
				return rc;
			if (!len)
				break;
			insns++;
			off += len;
		}
		if (off != end - start &&
		    !add_line(b, PDA_BB_MISMATCH, start + off))
			return PD_ERR_NOMEM;
	}
	return 0;
}

/* The block from the newest entry's target toward the sample's ip. */
static int last_block(struct pda_branch *b, const struct pd_sample *s,
		      const char *comm, struct last_sym *last)
{
	struct pd_branch newest;
	struct bb_code bc;
	uint64_t start, end;
	unsigned len;
	bool br;
	int rc;

	pd_sample_branch(s, 0, &newest);
	/* the sample hit the branch: its target has not run yet */
	if (newest.from == s->ip || newest.abort)
		return 0;
	start = newest.to;
	end = s->ip;
	/* a branch the stack missed (pipeline delays): perf scans on
	 * from the target to the next branch */
	if (end < start)
		end = start + 128;
	rc = grab_bb(b, s, comm, start, end, &bc);
	if (rc < 0)
		return rc;
	rc = label(b, s, comm, start, last);
	if (rc < 0)
		return rc;
	if (!bc.len) {
		/* at least the ip's instruction */
		rc = grab_bb(b, s, comm, s->ip, s->ip, &bc);
		if (rc != 1)
			return rc < 0 ? rc : 0;
		return insn(b, &bc, 0, s->ip, &len, &br);
	}
	for (uint64_t off = 0; off <= end - start; off += len) {
		rc = insn(b, &bc, (size_t)off, start + off, &len, &br);
		if (rc < 0)
			return rc;
		if (!len)
			break;
		if (br && start + off != s->ip) {
			if (!add_line(b, PDA_BB_NOT_REACHING, start + off))
				return PD_ERR_NOMEM;
			break;
		}
	}
	return 0;
}

int pda_branch_insns(struct pda_branch *b, const struct pd_sample *sample,
		     const char *comm, const struct pda_bb_line **lines,
		     size_t *nr)
{
	struct last_sym last = {0};
	const uint64_t n = sample->branch.nr;
	int rc;

	b->nr_bb = 0;
	*lines = NULL;
	*nr = 0;
	if (n) {
		/* the oldest entry's branch, whose block's start is not
		 * known */
		struct pd_branch oldest;
		struct bb_code bc;

		pd_sample_branch(sample, n - 1, &oldest);
		rc = grab_bb(b, sample, comm, oldest.from, oldest.from, &bc);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			rc = label(b, sample, comm, oldest.from, &last);
			if (rc == 0)
				rc = jump(b, &bc, 0, oldest.from, n - 1, 0);
			if (rc < 0)
				return rc;
		}
		rc = middle(b, sample, comm, n, &last);
		if (rc == 0)
			rc = last_block(b, sample, comm, &last);
		if (rc < 0)
			return rc;
	}
	*lines = b->bb;
	*nr = b->nr_bb;
	return 0;
}
