/*
 * pda_branch.c - branch stacks aggregated by (from, to).
 *
 * Each entry's ends are resolved as a sample at that address would be
 * (pda_addr_leaf on a copy of the sample with ip = the address: not
 * counted as a sample in the session's statistics), once
 * per (process, comm, address): a process's maps change with an exec,
 * which changes its comm, so the cache holds across a capture.  The row
 * an entry adds to is found by the ends' identities at the level asked
 * (symbol, address, source line).  The type is the recorded one where
 * the event has TYPE_SAVE and the entry a type; else capstone decodes
 * the instruction at `from` in the binary's own architecture, once per
 * address.
 */
#include "pda_branch_int.h"
#include "pda_machine_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* PERF_SAMPLE_BRANCH_* of the attr, beyond pd.h's */
#define BR_ANY (1ull << 3)
#define BR_TYPE_SAVE (1ull << 16)

/* PERF_BR_* (include/uapi/linux/perf_event.h) */
enum {
	BR_UNKNOWN = 0,
	BR_COND = 1,
	BR_UNCOND = 2,
	BR_IND = 3,
	BR_CALL = 4,
	BR_IND_CALL = 5,
	BR_RET = 6,
	BR_SYSCALL = 7,
	BR_SYSRET = 8,
	BR_ERET = 11,
};

/* perf's branch_type_name() (util/branch.c) */
static const char *const type_names[PDA_BR_NR_TYPES] = {
	"N/A",	    "COND",	"UNCOND", "IND",      "CALL",	 "IND_CALL",
	"RET",	    "SYSCALL",	"SYSRET", "COND_CALL", "COND_RET", "ERET",
	"IRQ",	    "SERROR",	"NO_TX",  "EXTEND_ABI",
};

const char *pda_branch_type_name(unsigned type)
{
	return type < PDA_BR_NR_TYPES ? type_names[type] : "?";
}

const char *pda_branch_new_type_name(unsigned new_type)
{
	static const char *const new_names[PDA_BR_NR_NEW_TYPES] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1",
		"ARCH_2",     "ARCH_3",	    "ARCH_4",	  "ARCH_5",
	};

	return new_type < PDA_BR_NR_NEW_TYPES ? new_names[new_type] : "(null)";
}

/* Whether the capture is of aarch64, whose branch stacks (BRBE) may
 * hold half records: by the header's e_machine, else the recorder's
 * uname -m. */
static bool capture_is_arm64(struct pda_session *s)
{
	const struct pd_env *env;

	if (pd_file_env(pda_session_file(s), &env) < 0)
		return false;
	if (env->e_machine)
		return env->e_machine == EM_AARCH64;
	return env->arch && (!strcmp(env->arch, "aarch64") ||
			     !strcmp(env->arch, "arm64"));
}

static int count_words(void *arg, const uint64_t *w, size_t nr);

int pda_branch_new(struct pda_session *s, const struct pda_branch_opts *opts,
		   struct pda_branch **out)
{
	struct pda_branch *b;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) ||
	    opts->by > PDA_BRANCH_BY_SRCLINE)
		return PD_ERR_API;
	b = pda_zalloc(s, sizeof(*b));
	if (!b)
		return PD_ERR_NOMEM;
	b->s = s;
	b->opts = *opts;
	b->brbe = capture_is_arm64(s);
	b->missing.loc.missing = true;
	b->missing.type = 0;
	/* the blocks read the rows as they go: counted on this thread */
	if (opts->threaded && !opts->blocks) {
		b->wpairs = pda_zalloc(s, PDA_BRANCH_PAIRS * sizeof(*b->wpairs));
		if (!b->wpairs ||
		    pdc_workq_start(&b->wq, pda_session_alloc(s), count_words,
				    b) < 0) {
			pda_branch_free(b);
			return PD_ERR_NOMEM;
		}
	}
	*out = b;
	return 0;
}

void pda_branch_free(struct pda_branch *b)
{
	size_t pos = 0;
	void *it;

	if (!b)
		return;
	(void)pdc_workq_stop(b->wq);
	pda_free(b->s, b->wpairs);
	while ((it = pdc_hash_next(&b->locs, &pos)))
		pda_free(b->s, it);
	for (size_t i = 0; i < b->nr_rows; i++)
		pda_free(b->s, b->sorted[i]);
	pda_free(b->s, b->sorted);
	pda_free(b->s, b->pairs);
	pdc_hash_release(pda_session_alloc(b->s), &b->locs);
	pdc_hash_release(pda_session_alloc(b->s), &b->rows);
	pda_branch_blocks_free(b);
	pda_free(b->s, b->bb);
	pda_stack_release(b->s, &b->st);
	pda_annot_cs_release(&b->cs);
	pda_free(b->s, b);
}

/* ---- resolving an address ------------------------------------------ */

struct loc_key {
	uint32_t pid;
	const char *comm;
	uint64_t addr;
};

static bool loc_eq(const void *item, const void *key)
{
	const struct loc_ent *e = item;
	const struct loc_key *k = key;

	return e->addr == k->addr && e->pid == k->pid && e->comm == k->comm;
}

static uint64_t loc_hash(const struct loc_key *k)
{
	return pdc_hash_u64(k->addr ^ pdc_hash_u64(k->pid) ^
			    (uint64_t)(uintptr_t)k->comm);
}

struct loc_ent *pda_branch_resolve(struct pda_branch *b,
				   const struct pd_sample *sample,
				   const char *comm, uint64_t addr, int *err)
{
	struct loc_key k = {sample->pid, comm, addr};
	const uint64_t h = loc_hash(&k);
	struct loc_ent *e = pdc_hash_find(&b->locs, h, loc_eq, &k);
	struct pd_sample at;
	const struct pda_frame *out, *in;
	int rc;

	if (e)
		return e;
	/* perf looks a branch address up in the space its address says */
	at = *sample;
	at.ip = addr;
	at.mask &= ~(uint64_t)PD_SAMPLE_CALLCHAIN;
	at.callchain.nr = 0;
	at.misc = (uint16_t)((sample->misc & ~PD_MISC_CPUMODE_MASK) |
			     (addr >> 63 ? PD_MISC_KERNEL : PD_MISC_USER));
	e = pda_zalloc(b->s, sizeof(*e));
	if (!e) {
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	e->pid = k.pid;
	e->comm = comm;
	e->addr = addr;
	e->type = -1;
	e->loc.addr = addr;
	e->loc.kernel = addr >> 63;
	rc = pda_addr_leaf_map(b->s, &at, &b->st, &e->dso, &e->loc.map_ip,
			       &e->loc.map_start);
	if (rc < 0 && rc != PD_ERR_NOMEM)
		rc = 0; /* an address that does not resolve is [unknown] */
	if (rc < 0) {
		pda_free(b->s, e);
		*err = rc;
		return NULL;
	}
	if (b->st.nr) {
		/* the out-of-line function is the last frame; the source
		 * line is the innermost's */
		out = &b->st.frames[b->st.nr - 1];
		in = &b->st.frames[0];
		e->loc.dso = out->dso;
		e->loc.sym = (out->flags & PDA_FRAME_NO_SYMBOL) ? NULL
								: out->sym;
		e->loc.sym_off = out->sym_off;
		e->loc.srcfile = in->srcfile;
		e->loc.line = in->line;
		e->dso_addr = out->dso_addr;
		e->loc.kernel = (out->flags & PDA_FRAME_KERNEL) != 0;
		e->loc.module = (out->flags & PDA_FRAME_MODULE) != 0;
	}
	e->loc.found = !e->loc.kernel && pda_branch_elf(e) != NULL;
	if (pdc_hash_add(pda_session_alloc(b->s), &b->locs, h, e) < 0) {
		pda_free(b->s, e);
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	return e;
}

/* ---- decoding a branch's type -------------------------------------- */

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* The PERF_BR_* type of a decoded instruction; 0 when it is no branch
 * or one we do not tell. */
unsigned pda_branch_insn_type(const struct pda_branch *b, const cs_insn *in)
{
	const char *m = in->mnemonic;
	/* a direct target is an immediate: capstone prints it as 0x... or
	 * #0x... */
	const bool direct = in->op_str[0] == '0' || in->op_str[0] == '#';

	if (b->cs.arch == CS_ARCH_X86) {
		/* "bnd jmp", "notrack jmp" */
		const char *sp = strrchr(m, ' ');

		if (sp)
			m = sp + 1;
		if (prefix(m, "ret"))
			return BR_RET;
		if (prefix(m, "iret") || prefix(m, "sysret") ||
		    prefix(m, "sysexit"))
			return BR_SYSRET;
		if (!strcmp(m, "syscall") || !strcmp(m, "sysenter") ||
		    !strcmp(m, "int") || !strcmp(m, "int3"))
			return BR_SYSCALL;
		if (prefix(m, "call"))
			return direct ? BR_CALL : BR_IND_CALL;
		if (prefix(m, "jmp") || prefix(m, "ljmp"))
			return direct ? BR_UNCOND : BR_IND;
		if (m[0] == 'j' || prefix(m, "loop"))
			return BR_COND;
		return BR_UNKNOWN;
	}
	if (b->cs.arch == CS_ARCH_ARM64) {
		if (!strcmp(m, "ret") || prefix(m, "reta"))
			return BR_RET;
		if (!strcmp(m, "eret") || prefix(m, "ereta"))
			return BR_ERET;
		if (!strcmp(m, "svc") || !strcmp(m, "hvc") ||
		    !strcmp(m, "smc"))
			return BR_SYSCALL;
		if (!strcmp(m, "bl"))
			return BR_CALL;
		if (prefix(m, "blr"))
			return BR_IND_CALL;
		if (prefix(m, "br"))
			return BR_IND;
		if (!strcmp(m, "b"))
			return BR_UNCOND;
		if (prefix(m, "b.") || prefix(m, "bc.") || prefix(m, "cb") ||
		    prefix(m, "tb"))
			return BR_COND;
		return BR_UNKNOWN;
	}
	return BR_UNKNOWN;
}

int pda_branch_cs(struct pda_branch *b, struct pda_elf *elf,
		  uint64_t vaddr)
{
	struct pda_elf_arch ar;
	cs_arch arch;
	cs_mode mode;
	unsigned unit;
	int rc;

	pda_elf_arch(elf, &ar);
	if (!pda_annot_cs_target(&ar, pda_elf_arm_thumb(elf, vaddr), &arch,
				 &mode, &unit))
		return 0;
	rc = pda_annot_cs_use(&b->cs, arch, mode);
	if (rc == PD_ERR_NOMEM)
		return rc;
	return rc < 0 ? 0 : 1;
}

/* Decode the instruction at e's address, once (out of line: the
 * callers' hot paths need its type only the first time). */
static PDA_BRANCH_COLD int decode_type(struct pda_branch *b, struct loc_ent *e)
{
	struct pda_elf *elf;
	const unsigned char *code;
	const uint8_t *p;
	size_t len;
	uint64_t addr;
	int rc;

	if (e->type >= 0)
		return e->type;
	e->type = BR_UNKNOWN;
	elf = pda_branch_elf(e);
	if (!elf)
		return e->type;
	rc = pda_branch_cs(b, elf, e->dso_addr);
	if (rc <= 0)
		return rc < 0 ? rc : e->type;
	if (pda_elf_code(elf, e->dso_addr, 16, &code, &len) < 0 || !len)
		return e->type;
	p = code;
	addr = e->dso_addr;
	if (cs_disasm_iter(b->cs.h, &p, &len, &addr, b->cs.insn))
		e->type = (int)pda_branch_insn_type(b, b->cs.insn);
	return e->type;
}

int pda_branch_locate(struct pda_branch *b, const struct pd_sample *sample,
		      const char *comm, uint64_t addr,
		      const struct pda_branch_loc **loc)
{
	int err = 0;
	const struct loc_ent *e = pda_branch_resolve(b, sample, comm, addr,
						     &err);

	*loc = e ? &e->loc : NULL;
	return e ? 0 : err;
}

int pda_branch_insn_len(struct pda_branch *b, const struct pd_sample *sample,
			const char *comm, uint64_t addr, unsigned *len)
{
	unsigned char bytes[16];

	return pda_branch_insn(b, sample, comm, addr, bytes, len);
}

int pda_branch_insn(struct pda_branch *b, const struct pd_sample *sample,
		    const char *comm, uint64_t addr, unsigned char bytes[16],
		    unsigned *len)
{
	struct pda_elf_arch ar;
	struct pda_elf *elf;
	const struct loc_ent *e;
	const unsigned char *code;
	const uint8_t *p;
	size_t n;
	uint64_t at;
	int err = 0, rc;

	*len = 0;
	e = pda_branch_resolve(b, sample, comm, addr, &err);
	if (!e)
		return err;
	/* perf reads the kernel's code from its DSO's file, which with
	 * kallsyms alone it has not: its decoder gets no bytes */
	elf = e->loc.kernel ? NULL : pda_branch_elf(e);
	if (!elf)
		return 0;
	pda_elf_arch(elf, &ar);
	if (ar.machine != EM_X86_64 && ar.machine != EM_386)
		return 0;
	rc = pda_branch_cs(b, elf, e->dso_addr);
	if (rc <= 0)
		return rc;
	/* perf decodes the 16 bytes at the address (fewer at the end) */
	if (pda_elf_code(elf, e->dso_addr, 16, &code, &n) < 0 || !n)
		return 0;
	p = code;
	at = e->dso_addr;
	if (cs_disasm_iter(b->cs.h, &p, &n, &at, b->cs.insn) &&
	    b->cs.insn->size <= 16) {
		*len = b->cs.insn->size;
		memcpy(bytes, code, *len);
	}
	return 0;
}

/* ---- rows ---------------------------------------------------------- */

/* What a row is keyed by: one end at the level asked. */
struct ident {
	const char *dso, *sym, *file;
	uint64_t a;
	unsigned line;
};

struct row_ent {
	struct ident from, to;
	struct pda_branch_row row;
};

/* the key of a half record's missing end, apart from any address */
static const char missing_key[] = "(not recorded)";

static void ident_of(const struct pda_branch *b, const struct loc_ent *e,
		     struct ident *id)
{
	memset(id, 0, sizeof(*id));
	if (e->loc.missing) {
		id->file = missing_key;
		return;
	}
	id->dso = e->loc.dso;
	switch (b->opts.by) {
	case PDA_BRANCH_BY_SYM:
		id->sym = e->loc.sym;
		/* perf keys an address without a symbol by itself */
		if (!id->sym)
			id->a = e->loc.dso ? e->dso_addr : e->addr;
		break;
	case PDA_BRANCH_BY_ADDR:
		id->sym = e->loc.sym;
		id->a = e->loc.dso ? e->dso_addr : e->addr;
		break;
	case PDA_BRANCH_BY_SRCLINE:
		id->file = e->loc.srcfile;
		id->line = e->loc.line;
		if (!id->file) {
			id->sym = e->loc.sym;
			id->a = e->loc.dso ? e->dso_addr : e->addr;
		} else {
			id->dso = NULL;
		}
		break;
	}
}

static bool ident_same(const struct ident *x, const struct ident *y)
{
	return x->dso == y->dso && x->sym == y->sym && x->file == y->file &&
	       x->a == y->a && x->line == y->line;
}

static uint64_t ident_hash(const struct ident *id)
{
	return pdc_hash_u64((uint64_t)(uintptr_t)id->dso ^
			    pdc_hash_u64((uint64_t)(uintptr_t)id->sym) ^
			    pdc_hash_u64((uint64_t)(uintptr_t)id->file ^
					 ((uint64_t)id->line << 32)) ^
			    pdc_hash_u64(id->a + 0x9e3779b97f4a7c15ull));
}

struct row_key {
	struct ident from, to;
};

static bool row_eq(const void *item, const void *key)
{
	const struct row_ent *r = item;
	const struct row_key *k = key;

	return ident_same(&r->from, &k->from) && ident_same(&r->to, &k->to);
}

static struct row_ent *find_row(struct pda_branch *b, const struct loc_ent *f,
				const struct loc_ent *t)
{
	struct row_key k;
	uint64_t h;
	struct row_ent *r;

	ident_of(b, f, &k.from);
	ident_of(b, t, &k.to);
	h = ident_hash(&k.from) ^ pdc_hash_u64(ident_hash(&k.to));
	r = pdc_hash_find(&b->rows, h, row_eq, &k);
	if (r)
		return r;
	if (PDC_GROW(pda_session_alloc(b->s), b->sorted, b->alloc_rows,
		     b->nr_rows + 1, (size_t)1 << 30) < 0)
		return NULL;
	r = pda_zalloc(b->s, sizeof(*r));
	if (!r)
		return NULL;
	r->from = k.from;
	r->to = k.to;
	r->row.from = f->loc;
	r->row.to = t->loc;
	r->row.cyc_min = UINT32_MAX;
	/* the ends say which half a row's records are (its key) */
	r->row.half = t->loc.missing	? PDA_BRANCH_SOURCE_ONLY
		      : f->loc.missing ? PDA_BRANCH_TARGET_ONLY
				       : PDA_BRANCH_COMPLETE;
	if (pdc_hash_add(pda_session_alloc(b->s), &b->rows, h, r) < 0) {
		pda_free(b->s, r);
		return NULL;
	}
	b->sorted[b->nr_rows++] = r;
	return r;
}

/* Add what pair p counted (pair_ent) to its row and the totals. */
static void pair_flush(struct pda_branch *b, struct pair_ent *p)
{
	struct pda_branch_totals *t = &b->t;
	struct pda_branch_row *r;

	if (!p->row || !p->n)
		return;
	r = &p->row->row;
	r->count += p->n;
	t->nr_entries += p->n;
	if (p->half == PDA_BRANCH_SOURCE_ONLY)
		t->nr_source_only += p->n;
	else if (p->half == PDA_BRANCH_TARGET_ONLY)
		t->nr_target_only += p->n;
	else if (p->resolved)
		t->nr_resolved += p->n;
	/* direction and pages need both ends */
	if (p->half == PDA_BRANCH_COMPLETE) {
		r->forward += p->fwd ? p->n : 0;
		r->cross_4k += p->c4k ? p->n : 0;
		r->cross_2m += p->c2m ? p->n : 0;
	}
	if (p->kernel)
		r->kernel += p->n_nopriv;
	else
		r->user += p->n_nopriv;
	if (p->n_dec) {
		r->by_type[(unsigned)p->dtype % PDA_BR_NR_TYPES] += p->n_dec;
		if (p->dtype)
			t->nr_decoded += p->n_dec;
		else
			t->nr_undecoded += p->n_dec;
	}
	p->n = p->n_dec = p->n_nopriv = 0;
}

/* The flags word of an entry in the usual layout (pd_branch.flags_raw):
 * the fields the counting reads */
#define FL_MASK PDA_BRANCH_FL_MASK
#define FL_MISPRED UINT64_C(1)
#define FL_PREDICTED UINT64_C(2)
#define FL_CYCLES(fl) ((unsigned)((fl) >> 4) & 0xffffu)
#define FL_TYPE(fl) ((unsigned)((fl) >> 20) & 0xfu)
#define FL_SPEC(fl) ((unsigned)((fl) >> 24) & 3u)
#define FL_PRIV(fl) ((unsigned)((fl) >> 30) & 7u)
/* the bits that few entries set: in_tx, abort, type, spec and priv */
#define RARE_FLAGS                                                           \
	((UINT64_C(3) << 2) | (UINT64_C(0xf) << 20) | (UINT64_C(3) << 24) |  \
	 (UINT64_C(7) << 30))

/* The slot of the pair (from, to) of process pid in the pair cache. */
static inline uint64_t pair_slot(uint32_t pid, uint64_t from, uint64_t to)
{
	/* one multiply: the slot is the product's top bits */
	return ((from ^ (to * 0x9e3779b97f4a7c15ull) ^ pid) *
		0xff51afd7ed558ccdull) >>
	       (64 - PDA_BRANCH_PAIRS_BITS);
}

static void hand_def(struct pda_branch *b, const struct pair_ent *p,
		     uint64_t slot);

/*
 * A pair not in the cache, slot its place: its ends resolved (a half
 * record's missing end is no address 0 but b->missing), its row found,
 * and cached in its slot (whose pair is flushed).  Out of line
 * (PDA_BRANCH_COLD), so that the entries' loop stays small.  NULL and
 * *err on failure.
 */
static PDA_BRANCH_COLD struct pair_ent *
pair_miss(struct pda_branch *b, const struct pd_sample *sample,
	  const char *comm, uint64_t from, uint64_t to, uint64_t slot,
	  int *err)
{
	const struct pd_branch br = {.from = from, .to = to};
	const enum pda_branch_half half = pda_branch_half(&br, b->brbe);
	struct pair_ent *p;
	struct loc_ent *f, *t;
	struct row_ent *re;

	f = half == PDA_BRANCH_TARGET_ONLY
		    ? &b->missing
		    : pda_branch_resolve(b, sample, comm, from, err);
	if (!f)
		return NULL;
	t = half == PDA_BRANCH_SOURCE_ONLY
		    ? &b->missing
		    : pda_branch_resolve(b, sample, comm, to, err);
	if (!t)
		return NULL;
	re = find_row(b, f, t);
	if (!re) {
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	p = &b->pairs[slot];
	pair_flush(b, p);
	*p = (struct pair_ent){
		.pid = sample->pid,
		.comm = comm,
		.from = from,
		.to = to,
		.row = re,
		.f = f,
		.t = t,
		.dtype = -1,
		.half = (uint8_t)half,
		.resolved = f->loc.sym && t->loc.sym,
		.kernel = f->loc.kernel,
		.fwd = to > from,
		.c4k = ((to ^ from) >> 12) != 0,
		.c2m = ((to ^ from) >> 21) != 0,
	};
	if (b->wq)
		hand_def(b, p, slot);
	return p;
}

/* The pair (from, to) of sample (comm interned), cached in slot or
 * made there (b->pairs made). */
static PDA_BRANCH_INLINE struct pair_ent *
pair_of(struct pda_branch *b, const struct pd_sample *sample,
	const char *comm, uint64_t from, uint64_t to, uint64_t slot, int *err)
{
	struct pair_ent *p = &b->pairs[slot];

	if (p->from == from && p->to == to && p->row &&
	    p->pid == sample->pid && p->comm == comm)
		return p;
	return pair_miss(b, sample, comm, from, to, slot, err);
}

static unsigned cyc_bucket(unsigned c)
{
	/* floor(log2(c)), at most the last bucket */
	const unsigned i = c > 1 ? 31u - (unsigned)__builtin_clz(c) : 0;

	return i < PDA_BRANCH_CYC_BUCKETS - 1 ? i : PDA_BRANCH_CYC_BUCKETS - 1;
}

/* Add the branch counters value of an entry of a sample of ev to r:
 * apart from count_entry, whose frame then needs no array (nor its stack
 * guard). */
static PDA_BRANCH_NOINLINE void add_counters(struct pda_branch *b,
					     const struct pd_evsel *ev,
					     uint64_t value,
					     struct pda_branch_row *r)
{
	uint64_t counts[PDA_BR_CNTR_MAX];
	const unsigned cols =
		pda_brcntr_split(b->cntr, ev, b->env, value, counts);

	if (cols) {
		r->with_cntr++;
		pda_brcntr_add(b->cntr, counts, cols, r->cntr);
	}
}

/* The type of an entry of pair p when no type was saved: decoded (once
 * per pair, counted at pair_flush), none for a target-only record. */
static inline int count_decoded(struct pda_branch *b, struct pair_ent *p,
				struct pda_branch_row *r)
{
	if (p->half == PDA_BRANCH_TARGET_ONLY) {
		r->by_type[0]++; /* no source instruction to decode */
		return 0;
	}
	if (p->dtype < 0) {
		int d = p->f->type >= 0 ? p->f->type : decode_type(b, p->f);

		if (d < 0)
			return d;
		p->dtype = d;
	}
	p->n_dec++;
	return 0;
}

/* What an entry of pair p with flags fl records in RARE_FLAGS,
 * counted. */
static PDA_BRANCH_NOINLINE int count_rare(struct pda_branch *b,
					  struct pair_ent *p,
					  struct pda_branch_row *r,
					  uint64_t fl, bool type_save)
{
	struct pda_branch_totals *t = &b->t;

	if (type_save && FL_TYPE(fl)) {
		r->by_type[FL_TYPE(fl) % PDA_BR_NR_TYPES]++;
		r->type_saved = true;
	} else {
		int rc = count_decoded(b, p, r);

		if (rc < 0)
			return rc;
	}
	if (FL_PRIV(fl)) {
		r->by_priv[FL_PRIV(fl)]++;
		t->nr_priv++;
	} else {
		p->n_nopriv++;
	}
	if (FL_SPEC(fl)) {
		r->by_spec[FL_SPEC(fl)]++;
		t->nr_spec++;
	}
	r->in_tx += (fl >> 2) & 1;
	r->abort += (fl >> 3) & 1;
	return 0;
}

/* Count an entry of pair p with flags fl (has_cntr: its branch counters'
 * value cntr, of a sample of ev) into p and its row: inline, as the loop
 * over a stack's entries is the hot path.  On the counting thread
 * (opts.threaded) p's decoded type is known whenever the entry needs
 * it. */
static inline int count_entry(struct pda_branch *b, struct pair_ent *p,
			      uint64_t fl, bool type_save,
			      const struct pd_evsel *ev, bool has_cntr,
			      uint64_t cntr)
{
	struct pda_branch_totals *t = &b->t;
	struct pda_branch_row *r = &p->row->row;
	const unsigned cycles = FL_CYCLES(fl);
	int err;

	p->n++;
	/* mispred = predicted = 0: the hardware said nothing (AMD BRS,
	 * perf inject's branch stacks), which is not "predicted" */
	if (fl & (FL_MISPRED | FL_PREDICTED)) {
		r->with_pred++;
		t->with_pred++;
		if (fl & FL_MISPRED) {
			r->mispred++;
			t->mispred++;
		}
	}
	if (cycles) {
		r->with_cycles++;
		r->cycles += cycles;
		t->with_cycles++;
		t->cycles += cycles;
		if (cycles < r->cyc_min)
			r->cyc_min = cycles;
		if (cycles > r->cyc_max)
			r->cyc_max = cycles;
		r->cyc_hist[cyc_bucket(cycles)]++;
	}
	if (fl & RARE_FLAGS) {
		err = count_rare(b, p, r, fl, type_save);
		if (err < 0)
			return err;
	} else {
		err = count_decoded(b, p, r);
		if (err < 0)
			return err;
		p->n_nopriv++;
	}
	if (has_cntr)
		add_counters(b, ev, cntr, r);
	return 0;
}

/* ---- counting on a thread of its own (opts.threaded) ----------------
 *
 * The caller's thread finds each entry's pair (resolving a new one in
 * the session's maps at the sample) and decodes its type where an entry
 * needs it, as the direct path does, then hands the entry over as a
 * word; the counter counts it into its own copy of the pair's slot
 * (wpairs) and the row: the counting, the flags and the counters, leaves
 * the reading thread.  Words, the kind in the top two bits:
 *   W_ENTRY: flags (FL_MASK), slot << W_SLOT_SHIFT, decoded type + 1
 *	<< W_DTYPE_SHIFT (0: none sent), W_CNTR (its counters' value is
 *	the next word), W_TYPE_SAVE;
 *   W_DEF: slot, half << 16, the pair's facts (W_RESOLVED ...); the row
 *	next: the slot's pair from now on (the one before flushed);
 *   W_EVSEL: the entries' event is the next word's (for the counters).
 */
enum {
	W_ENTRY = 0, W_DEF = 1, W_EVSEL = 2,
	W_SLOT_SHIFT = 34, W_DTYPE_SHIFT = 50,
};
_Static_assert(PDA_BRANCH_PAIRS_BITS <= 16, "a slot fits its 16 bits");
#define W_KIND(w) ((unsigned)((w) >> 62))
#define W_CNTR (UINT64_C(1) << 55)
#define W_TYPE_SAVE (UINT64_C(1) << 56)
#define W_RESOLVED (1u << 18)
#define W_KERNEL (1u << 19)
#define W_FWD (1u << 20)
#define W_C4K (1u << 21)
#define W_C2M (1u << 22)
/* the words an entry takes at most: its pair's definition, its event's,
 * itself and its counters' value */
#define W_MAX_PER_ENTRY 6

/* A pair's definition for the counter, at the caller's b->hw. */
static void hand_def(struct pda_branch *b, const struct pair_ent *p,
		     uint64_t slot)
{
	b->hw[0] = (uint64_t)W_DEF << 62 | slot | (uint64_t)p->half << 16 |
		   (p->resolved ? W_RESOLVED : 0) |
		   (p->kernel ? W_KERNEL : 0) | (p->fwd ? W_FWD : 0) |
		   (p->c4k ? W_C4K : 0) | (p->c2m ? W_C2M : 0);
	b->hw[1] = (uint64_t)(uintptr_t)p->row;
	b->hw += 2;
}

/* The counter: the words of one block (pdc_workq_fn). */
static int count_words(void *arg, const uint64_t *w, size_t nr)
{
	struct pda_branch *b = arg;

	for (size_t i = 0; i < nr;) {
		const uint64_t x = w[i++];
		struct pair_ent *p;
		uint64_t cntr = 0;
		unsigned dt;
		int rc;

		switch (W_KIND(x)) {
		case W_DEF:
			p = &b->wpairs[x & 0xffff];
			pair_flush(b, p);
			*p = (struct pair_ent){
				.row = (struct row_ent *)(uintptr_t)w[i++],
				.dtype = -1,
				.half = (uint8_t)((x >> 16) & 3),
				.resolved = (x & W_RESOLVED) != 0,
				.kernel = (x & W_KERNEL) != 0,
				.fwd = (x & W_FWD) != 0,
				.c4k = (x & W_C4K) != 0,
				.c2m = (x & W_C2M) != 0,
			};
			continue;
		case W_EVSEL:
			b->w_ev = (const struct pd_evsel *)(uintptr_t)w[i++];
			continue;
		default:
			break;
		}
		p = &b->wpairs[(x >> W_SLOT_SHIFT) & 0xffff];
		dt = (unsigned)(x >> W_DTYPE_SHIFT) & 0x1f;
		if (dt)
			p->dtype = (int)dt - 1;
		if (x & W_CNTR)
			cntr = w[i++];
		rc = count_entry(b, p, x & FL_MASK, (x & W_TYPE_SAVE) != 0,
				 b->w_ev, (x & W_CNTR) != 0, cntr);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Hand an entry of pair p (in slot) with flags fl over at *hw (ts:
 * W_TYPE_SAVE or 0): its pair's type decoded first when the entry needs
 * it (count_decoded's rule). */
static PDA_BRANCH_INLINE int hand_entry(struct pda_branch *b,
					struct pair_ent *p, uint64_t slot,
					uint64_t fl, uint64_t ts,
					const struct pd_evsel *ev,
					bool has_cntr, uint64_t cntr,
					uint64_t **hw)
{
	uint64_t x = fl | slot << W_SLOT_SHIFT | ts;
	uint64_t *w = *hw;

	if (p->dtype < 0 && p->half != PDA_BRANCH_TARGET_ONLY &&
	    !(ts && FL_TYPE(fl))) {
		const int d =
			p->f->type >= 0 ? p->f->type : decode_type(b, p->f);

		if (d < 0)
			return d;
		p->dtype = d;
		x |= (uint64_t)(d + 1) << W_DTYPE_SHIFT;
	}
	if (has_cntr) {
		if (ev != b->hw_ev) {
			*w++ = (uint64_t)W_EVSEL << 62;
			*w++ = (uint64_t)(uintptr_t)ev;
			b->hw_ev = ev;
		}
		*w++ = x | W_CNTR;
		*w++ = cntr;
	} else {
		*w++ = x;
	}
	*hw = w;
	return 0;
}

/* Room for n entries handed over: *start, the first word.  @return 0,
 * or PD_ERR_NOMEM when there is none (or the counter failed). */
static int hand_begin(struct pda_branch *b, uint64_t n, uint64_t **start)
{
	*start = NULL;
	if (n > SIZE_MAX / W_MAX_PER_ENTRY)
		return PD_ERR_NOMEM;
	*start = pdc_workq_reserve(b->wq, (size_t)n * W_MAX_PER_ENTRY);
	return *start ? 0 : PD_ERR_NOMEM;
}

/* The pair (from, to) of sample in slot when cached, else made (its
 * definition handed over at *hw); NULL and *err on failure. */
static PDA_BRANCH_INLINE struct pair_ent *
hand_pair(struct pda_branch *b, const struct pd_sample *sample,
	  const char *comm, uint64_t from, uint64_t to, uint64_t slot,
	  uint64_t **hw, int *err)
{
	struct pair_ent *p = &b->pairs[slot];

	if (p->from == from && p->to == to && p->row &&
	    p->pid == sample->pid && p->comm == comm)
		return p;
	b->hw = *hw;
	p = pair_miss(b, sample, comm, from, to, slot, err);
	*hw = b->hw;
	return p;
}

/* Hand sample's stack over to the counter (b->pairs made): its words
 * written through a local cursor, the loop's invariants out of it. */
static int hand_stack(struct pda_branch *b, const struct pd_sample *sample,
		      const char *comm, bool type_save)
{
	const uint64_t nr = sample->branch.nr;
	const uint64_t nr_cntr = b->cntr ? sample->branch.counters.nr : 0;
	const uint64_t ts = type_save ? W_TYPE_SAVE : 0;
	uint64_t *start, *hw;
	int rc = hand_begin(b, nr, &start);

	hw = start;
	for (uint64_t i = 0; i < nr && rc == 0; i++) {
		uint64_t from, to;
		const uint64_t fl = pda_branch_entry(sample, i, &from, &to);
		const uint64_t slot = pair_slot(sample->pid, from, to);
		const bool has_cntr = i < nr_cntr;
		struct pair_ent *p =
			hand_pair(b, sample, comm, from, to, slot, &hw, &rc);

		if (p)
			rc = hand_entry(
				b, p, slot, fl, ts, sample->evsel, has_cntr,
				has_cntr ? pd_u64s_get(&sample->branch.counters,
						       i)
					 : 0,
				&hw);
	}
	if (start)
		pdc_workq_commit(b->wq, (size_t)(hw - start));
	return rc;
}

/* Count the entry (from, to, flags fl) of sample (has_cntr: its
 * counters' value cntr) on this thread. */
static PDA_BRANCH_INLINE int add_entry(struct pda_branch *b,
				       const struct pd_sample *sample,
				       const char *comm, uint64_t from,
				       uint64_t to, uint64_t fl,
				       bool type_save, bool has_cntr,
				       uint64_t cntr)
{
	const uint64_t slot = pair_slot(sample->pid, from, to);
	int err = 0;
	struct pair_ent *p = pair_of(b, sample, comm, from, to, slot, &err);

	if (!p)
		return err;
	return count_entry(b, p, fl, type_save, sample->evsel, has_cntr,
			   cntr);
}

/* The pair cache, made on first use.  @return 0 or PD_ERR_NOMEM. */
static int pairs_ready(struct pda_branch *b)
{
	if (!b->pairs)
		b->pairs = pda_zalloc(b->s,
				      PDA_BRANCH_PAIRS * sizeof(*b->pairs));
	return b->pairs ? 0 : PD_ERR_NOMEM;
}

/* comm, interned: the cache keys on the pointer, and a run of samples
 * of one comm is the rule */
static const char *intern_comm(struct pda_branch *b, const char *comm)
{
	if (!comm)
		comm = "";
	if (b->last_comm && strcmp(comm, b->last_comm) == 0)
		return b->last_comm;
	comm = pda_intern(b->s, comm, strlen(comm));
	if (comm)
		b->last_comm = comm;
	return comm;
}

void pda_branch_counters(struct pda_branch *b, const struct pda_brcntr *c,
			 const struct pd_env *env)
{
	b->cntr = c && c->nr ? c : NULL;
	b->env = env;
}

const struct pda_brcntr *pda_branch_counters_of(const struct pda_branch *b)
{
	return b->cntr;
}

int pda_branch_add(struct pda_branch *b, const struct pd_sample *sample,
		   const char *comm)
{
	const uint64_t bst = sample->evsel ? sample->evsel->attr.branch_sample_type
					   : 0;
	const bool type_save = bst & BR_TYPE_SAVE;
	const uint64_t nr_cntr = b->cntr ? sample->branch.counters.nr : 0;
	int rc = 0;

	if (b->finished)
		return PD_ERR_API;
	b->t.nr_samples++;
	if (!(sample->mask & PD_SAMPLE_BRANCH_STACK)) {
		b->t.nr_no_stack++;
		return 0;
	}
	b->t.type_save |= type_save;
	b->t.hw_index |= (bst & PD_BRANCH_SAMPLE_HW_INDEX) != 0;
	b->t.counters |= (bst & PD_BRANCH_SAMPLE_COUNTERS) != 0;
	if (!sample->branch.nr)
		return 0;
	b->t.nr_stacks++;
	comm = intern_comm(b, comm);
	if (!comm || pairs_ready(b) < 0)
		return PD_ERR_NOMEM;
	if (b->wq)
		return hand_stack(b, sample, comm, type_save);
	for (uint64_t i = 0; i < sample->branch.nr && rc == 0; i++) {
		uint64_t from, to;
		const uint64_t fl = pda_branch_entry(sample, i, &from, &to);
		const bool has_cntr = i < nr_cntr;

		rc = add_entry(b, sample, comm, from, to, fl, type_save,
			       has_cntr,
			       has_cntr ? pd_u64s_get(&sample->branch.counters,
						      i)
					: 0);
	}
	if (rc == 0 && b->opts.blocks)
		return pda_branch_blocks_add(b, sample, comm,
					     (bst & BR_ANY) != 0);
	return rc;
}

int pda_branch_add_sampled(struct pda_branch *b, const struct pd_sample *sample,
			   const char *comm, bool mispred)
{
	/* one entry of no stack, no counters; its type is decoded from the
	 * instruction at ip, as for a stack recorded without TYPE_SAVE */
	const uint64_t from = sample->ip, to = sample->addr;
	const uint64_t fl = mispred ? FL_MISPRED : 0;
	const uint64_t slot = pair_slot(sample->pid, from, to);
	uint64_t *start, *hw;
	struct pair_ent *p;
	int rc;

	if (b->finished)
		return PD_ERR_API;
	b->t.nr_samples++;
	b->t.nr_stacks++;
	comm = intern_comm(b, comm);
	if (!comm || pairs_ready(b) < 0)
		return PD_ERR_NOMEM;
	if (!b->wq)
		return add_entry(b, sample, comm, from, to, fl, false, false, 0);
	rc = hand_begin(b, 1, &start);
	if (rc < 0)
		return rc;
	hw = start;
	p = hand_pair(b, sample, comm, from, to, slot, &hw, &rc);
	if (p)
		rc = hand_entry(b, p, slot, fl, 0, sample->evsel, false, 0,
				&hw);
	pdc_workq_commit(b->wq, (size_t)(hw - start));
	return rc;
}

/* ---- sorting ------------------------------------------------------- */

static int cmp_str(const char *x, const char *y)
{
	if (x == y)
		return 0;
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_names(const struct pda_branch_row *x,
		     const struct pda_branch_row *y)
{
	int c = cmp_str(x->from.sym, y->from.sym);

	if (!c)
		c = cmp_str(x->to.sym, y->to.sym);
	if (!c && x->from.addr != y->from.addr)
		c = x->from.addr < y->from.addr ? -1 : 1;
	if (!c && x->to.addr != y->to.addr)
		c = x->to.addr < y->to.addr ? -1 : 1;
	if (!c)
		c = cmp_str(x->from.dso, y->from.dso);
	if (!c)
		c = cmp_str(x->to.dso, y->to.dso);
	if (!c)
		c = cmp_str(x->from.srcfile, y->from.srcfile);
	if (!c && x->from.line != y->from.line)
		c = x->from.line < y->from.line ? -1 : 1;
	if (!c)
		c = cmp_str(x->to.srcfile, y->to.srcfile);
	if (!c && x->to.line != y->to.line)
		c = x->to.line < y->to.line ? -1 : 1;
	return c;
}

#define DESC(a, b) ((a) != (b) ? ((a) > (b) ? -1 : 1) : 0)

static int cmp_mispred(const void *p, const void *q)
{
	const struct pda_branch_row *x = &(*(struct row_ent *const *)p)->row;
	const struct pda_branch_row *y = &(*(struct row_ent *const *)q)->row;
	int c = DESC(x->mispred, y->mispred);

	if (!c)
		c = DESC(x->count, y->count);
	return c ? c : cmp_names(x, y);
}

static int cmp_count(const void *p, const void *q)
{
	const struct pda_branch_row *x = &(*(struct row_ent *const *)p)->row;
	const struct pda_branch_row *y = &(*(struct row_ent *const *)q)->row;
	int c = DESC(x->count, y->count);

	if (!c)
		c = DESC(x->mispred, y->mispred);
	return c ? c : cmp_names(x, y);
}

static int cmp_cycles(const void *p, const void *q)
{
	const struct pda_branch_row *x = &(*(struct row_ent *const *)p)->row;
	const struct pda_branch_row *y = &(*(struct row_ent *const *)q)->row;
	int c = DESC(x->cycles, y->cycles);

	if (!c)
		c = DESC(x->count, y->count);
	return c ? c : cmp_names(x, y);
}

int pda_branch_finish(struct pda_branch *b, enum pda_branch_sort sort)
{
	int (*cmp)(const void *, const void *) =
		sort == PDA_BRANCH_SORT_COUNT	 ? cmp_count
		: sort == PDA_BRANCH_SORT_CYCLES ? cmp_cycles
						 : cmp_mispred;

	if (b->wq) {
		/* every entry counted: the counter's pairs are the ones */
		const int rc = pdc_workq_stop(b->wq);

		b->wq = NULL;
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < PDA_BRANCH_PAIRS; i++)
			pair_flush(b, &b->wpairs[i]);
	}
	if (b->pairs)
		for (size_t i = 0; i < PDA_BRANCH_PAIRS; i++)
			pair_flush(b, &b->pairs[i]);
	for (size_t i = 0; i < b->nr_rows; i++) {
		struct pda_branch_row *r = &b->sorted[i]->row;
		uint64_t best = 0;

		if (!r->with_cycles)
			r->cyc_min = 0;
		for (unsigned k = 0; k < PDA_BR_NR_TYPES; k++)
			if (r->by_type[k] > best && k) {
				best = r->by_type[k];
				r->type = k;
			}
	}
	if (b->nr_rows > 1)
		qsort(b->sorted, b->nr_rows, sizeof(*b->sorted), cmp);
	b->t.nr_rows = b->nr_rows;
	b->finished = true;
	return b->opts.blocks ? pda_branch_blocks_finish(b, sort) : 0;
}

size_t pda_branch_nr_rows(const struct pda_branch *b)
{
	return b->nr_rows;
}

const struct pda_branch_row *pda_branch_row(const struct pda_branch *b,
					    size_t i)
{
	return i < b->nr_rows ? &b->sorted[i]->row : NULL;
}

const struct pda_branch_totals *pda_branch_totals(const struct pda_branch *b)
{
	return &b->t;
}
