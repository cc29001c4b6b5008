/*
 * pda_branch_blocks.c - the basic blocks between a branch stack's
 * entries, and their IPC.
 *
 * With every taken branch recorded (-j any), the code from one entry's
 * `to` to the next newer entry's `from` ran straight through, and the
 * newer entry's cycles (Intel LBR_INFO, ARM BRBE) timed it: perf
 * annotate's basic-block cycles.  A block is counted once per (binary,
 * start, end); capstone counts its instructions in the binary's own
 * architecture, once, and the line table names the source line of each
 * (with --by srcline).  Rows at the level asked are made at the end, so
 * a block's decoding is shared by every level.
 */
#include "pda_branch_int.h"

#include <string.h>

/* A block longer than this is no block: a stack whose entries are not
 * consecutive (a filter, a lost entry) spans functions. */
#define BLOCK_MAX (64u * 1024)

/* A source line's share of a block: n of its instructions. */
struct line_run {
	const char *file; /* NULL: no line information */
	unsigned line;
	unsigned n;
};

struct block_ent {
	const struct pda_dso *dso;
	uint64_t start, end; /* binary addresses */
	struct pda_branch_block pub;
	struct line_run *runs;
	size_t nr_runs, alloc_runs;
	struct block_ent *next_all;
};

/* A row at the level asked: keyed by a block's (dso, start, end), a
 * function or a source line. */
struct unit_key {
	const void *dso;
	const char *name; /* symbol or file */
	uint64_t a, b;
	unsigned line;
};

struct unit_ent {
	struct unit_key k;
	struct pda_branch_block pub;
};

struct block_key {
	const struct pda_dso *dso;
	uint64_t start, end;
};

static bool block_eq(const void *item, const void *key)
{
	const struct block_ent *e = item;
	const struct block_key *k = key;

	return e->dso == k->dso && e->start == k->start && e->end == k->end;
}

static uint64_t block_hash(const struct block_key *k)
{
	return pdc_hash_u64((uint64_t)(uintptr_t)k->dso ^
			    pdc_hash_u64(k->start) ^
			    pdc_hash_u64(k->end + 0x9e3779b97f4a7c15ull));
}

static int add_run(struct pda_branch *b, struct block_ent *e,
		   const char *file, unsigned line)
{
	struct line_run *last = e->nr_runs ? &e->runs[e->nr_runs - 1] : NULL;

	if (last && last->file == file && last->line == line) {
		last->n++;
		return 0;
	}
	if (PDC_GROW(pda_session_alloc(b->s), e->runs, e->alloc_runs,
		     e->nr_runs + 1, BLOCK_MAX) < 0)
		return PD_ERR_NOMEM;
	e->runs[e->nr_runs++] = (struct line_run){file, line, 1};
	return 0;
}

/* Count the block's instructions; with --by srcline, their lines.  A
 * block whose end is not on an instruction boundary from its start
 * (other code than the capture ran, or data) stays undecoded. */
static int decode_block(struct pda_branch *b, struct block_ent *e,
			const struct loc_ent *start)
{
	struct pda_elf *elf = pda_branch_elf(start);
	const bool lines = b->opts.by == PDA_BRANCH_BY_SRCLINE;
	const unsigned char *code;
	const uint8_t *p;
	uint64_t addr, n = 0;
	size_t len;
	int rc;

	if (!elf)
		return 0;
	rc = pda_branch_cs(b, elf, e->start);
	if (rc <= 0)
		return rc;
	/* the end's instruction, up to 16 bytes long, is part of it */
	if (pda_elf_code(elf, e->start, e->end - e->start + 16, &code, &len) <
	    0)
		return 0;
	p = code;
	addr = e->start;
	while (cs_disasm_iter(b->cs.h, &p, &len, &addr, b->cs.insn)) {
		const uint64_t at = b->cs.insn->address;

		if (at > e->end)
			break;
		n++;
		if (lines) {
			const char *file = NULL;
			unsigned line = 0;

			rc = pda_elf_srcline(b->s, elf, at, &file, &line);
			if (rc == PD_ERR_NOMEM)
				return rc;
			if (rc < 0)
				file = NULL;
			rc = add_run(b, e, file, file ? line : 0);
			if (rc < 0)
				return rc;
		}
		if (at == e->end) {
			e->pub.insns = n;
			return 0;
		}
	}
	e->nr_runs = 0;
	return 0;
}

static struct block_ent *find_block(struct pda_branch *b,
				    const struct loc_ent *start,
				    const struct loc_ent *end, int *err)
{
	struct block_key k = {start->dso, start->dso_addr, end->dso_addr};
	const uint64_t h = block_hash(&k);
	struct block_ent *e = pdc_hash_find(&b->blocks, h, block_eq, &k);

	if (e)
		return e;
	e = pda_zalloc(b->s, sizeof(*e));
	if (!e) {
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	e->dso = k.dso;
	e->start = k.start;
	e->end = k.end;
	e->pub.start = start->loc;
	e->pub.end = end->loc;
	*err = decode_block(b, e, start);
	if (*err < 0 ||
	    pdc_hash_add(pda_session_alloc(b->s), &b->blocks, h, e) < 0) {
		if (!*err)
			*err = PD_ERR_NOMEM;
		pda_free(b->s, e->runs);
		pda_free(b->s, e);
		return NULL;
	}
	e->next_all = b->all_blocks;
	b->all_blocks = e;
	return e;
}

int pda_branch_blocks_add(struct pda_branch *b,
			  const struct pd_sample *sample, const char *comm,
			  bool any)
{
	struct pda_branch_block_totals *t = &b->bt;
	struct pd_branch newer, older;

	if (sample->branch.nr < 2)
		return 0;
	if (!any) {
		t->nr_not_any++;
		return 0;
	}
	/* entries come newest first: entry i's cycles time the code from
	 * entry i+1's `to` to entry i's `from` */
	pd_sample_branch(sample, 0, &newer);
	for (uint64_t i = 1; i < sample->branch.nr; i++, newer = older) {
		struct loc_ent *s, *e;
		struct block_ent *blk;
		int err = 0;

		pd_sample_branch(sample, i, &older);
		t->nr_ranges++;
		/* the older entry's target or the newer's source was not
		 * recorded (BRBE half records): no block to tell */
		if (pda_branch_half(&older, b->brbe) == PDA_BRANCH_SOURCE_ONLY ||
		    pda_branch_half(&newer, b->brbe) == PDA_BRANCH_TARGET_ONLY) {
			t->nr_half++;
			continue;
		}
		s = pda_branch_resolve(b, sample, comm, older.to, &err);
		if (!s)
			return err;
		e = pda_branch_resolve(b, sample, comm, newer.from, &err);
		if (!e)
			return err;
		if (!s->dso || s->dso != e->dso) {
			t->nr_split++;
			continue;
		}
		if (e->dso_addr < s->dso_addr ||
		    e->dso_addr - s->dso_addr >= BLOCK_MAX) {
			t->nr_backward++;
			continue;
		}
		blk = find_block(b, s, e, &err);
		if (!blk)
			return err;
		t->nr_blocks++;
		if (!blk->pub.insns)
			t->nr_undecoded++;
		blk->pub.count++;
		blk->pub.executed += blk->pub.insns;
		if (newer.cycles) {
			blk->pub.with_cycles++;
			blk->pub.cycles += newer.cycles;
			blk->pub.cyc_insns += (double)blk->pub.insns;
		}
	}
	return 0;
}

/* ---- rows at the level asked ---------------------------------------- */

static bool unit_eq(const void *item, const void *key)
{
	const struct unit_ent *u = item;
	const struct unit_key *k = key;

	return u->k.dso == k->dso && u->k.name == k->name && u->k.a == k->a &&
	       u->k.b == k->b && u->k.line == k->line;
}

static struct unit_ent *find_unit(struct pda_branch *b,
				  const struct unit_key *k,
				  const struct block_ent *blk)
{
	const uint64_t h =
		pdc_hash_u64((uint64_t)(uintptr_t)k->dso ^
			     pdc_hash_u64((uint64_t)(uintptr_t)k->name) ^
			     pdc_hash_u64(k->a ^ ((uint64_t)k->line << 40)) ^
			     pdc_hash_u64(k->b + 0x9e3779b97f4a7c15ull));
	struct unit_ent *u = pdc_hash_find(&b->units, h, unit_eq, k);

	if (u)
		return u;
	if (PDC_GROW(pda_session_alloc(b->s), b->bsorted, b->alloc_units,
		     b->nr_units + 1, (size_t)1 << 30) < 0)
		return NULL;
	u = pda_zalloc(b->s, sizeof(*u));
	if (!u)
		return NULL;
	u->k = *k;
	u->pub.start = blk->pub.start;
	if (b->opts.by == PDA_BRANCH_BY_ADDR) {
		u->pub.end = blk->pub.end;
		u->pub.insns = blk->pub.insns;
	}
	if (pdc_hash_add(pda_session_alloc(b->s), &b->units, h, u) < 0) {
		pda_free(b->s, u);
		return NULL;
	}
	b->bsorted[b->nr_units++] = &u->pub;
	return u;
}

/* The block's function: perf keys an address without a symbol by
 * itself. */
static void sym_key(const struct block_ent *blk, struct unit_key *k)
{
	memset(k, 0, sizeof(*k));
	k->dso = blk->dso;
	k->name = blk->pub.start.sym;
	if (!k->name)
		k->a = blk->start;
}

/* Whether run i's line is that of an earlier run of the block. */
static bool seen_before(const struct block_ent *blk, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (blk->runs[j].file == blk->runs[i].file &&
		    blk->runs[j].line == blk->runs[i].line)
			return true;
	return false;
}

static int add_units(struct pda_branch *b, const struct block_ent *blk)
{
	const struct pda_branch_block *p = &blk->pub;
	struct unit_key k;
	struct unit_ent *u;

	if (b->opts.by != PDA_BRANCH_BY_SRCLINE || !blk->nr_runs) {
		if (b->opts.by == PDA_BRANCH_BY_ADDR) {
			memset(&k, 0, sizeof(k));
			k.dso = blk->dso;
			k.a = blk->start;
			k.b = blk->end;
		} else {
			/* by srcline, an undecoded block counts at its
			 * function, as a line without information does */
			sym_key(blk, &k);
		}
		u = find_unit(b, &k, blk);
		if (!u)
			return PD_ERR_NOMEM;
		u->pub.count += p->count;
		u->pub.executed += p->executed;
		u->pub.with_cycles += p->with_cycles;
		u->pub.cycles += p->cycles;
		u->pub.cyc_insns += p->cyc_insns;
		return 0;
	}
	for (size_t i = 0; i < blk->nr_runs; i++) {
		const struct line_run *r = &blk->runs[i];

		if (r->file) {
			memset(&k, 0, sizeof(k));
			k.name = r->file;
			k.line = r->line;
		} else {
			sym_key(blk, &k);
		}
		u = find_unit(b, &k, blk);
		if (!u)
			return PD_ERR_NOMEM;
		u->pub.start.srcfile = r->file;
		u->pub.start.line = r->line;
		/* a line the block comes back to runs once per execution */
		if (!seen_before(blk, i)) {
			u->pub.count += p->count;
			u->pub.with_cycles += p->with_cycles;
		}
		u->pub.executed += p->count * r->n;
		/* the block's cycles, split by its instructions */
		u->pub.cycles += p->cycles * r->n / (double)p->insns;
		u->pub.cyc_insns += (double)(p->with_cycles * r->n);
	}
	return 0;
}

static int cmp_loc(const struct pda_branch_loc *x,
		   const struct pda_branch_loc *y)
{
	int c = strcmp(x->srcfile ? x->srcfile : "", y->srcfile ? y->srcfile
								  : "");

	if (!c && x->line != y->line)
		c = x->line < y->line ? -1 : 1;
	if (!c && x->addr != y->addr)
		c = x->addr < y->addr ? -1 : 1;
	return c;
}

static int cmp_tail(const struct pda_branch_block *x,
		    const struct pda_branch_block *y)
{
	int c = cmp_loc(&x->start, &y->start);

	return c ? c : cmp_loc(&x->end, &y->end);
}

#define DESC(a, b) ((a) != (b) ? ((a) > (b) ? -1 : 1) : 0)

static int cmp_count(const void *p, const void *q)
{
	const struct pda_branch_block *x = *(struct pda_branch_block *const *)p;
	const struct pda_branch_block *y = *(struct pda_branch_block *const *)q;
	int c = DESC(x->count, y->count);

	if (!c)
		c = DESC(x->cycles, y->cycles);
	return c ? c : cmp_tail(x, y);
}

static int cmp_cycles(const void *p, const void *q)
{
	const struct pda_branch_block *x = *(struct pda_branch_block *const *)p;
	const struct pda_branch_block *y = *(struct pda_branch_block *const *)q;
	int c = DESC(x->cycles, y->cycles);

	if (!c)
		c = DESC(x->count, y->count);
	return c ? c : cmp_tail(x, y);
}

int pda_branch_blocks_finish(struct pda_branch *b, enum pda_branch_sort sort)
{
	struct pda_branch_block_totals *t = &b->bt;

	for (const struct block_ent *blk = b->all_blocks; blk;
	     blk = blk->next_all) {
		int rc = add_units(b, blk);

		if (rc < 0)
			return rc;
		t->with_cycles += blk->pub.with_cycles;
		if (blk->pub.insns) {
			t->cycles += blk->pub.cycles;
			t->cyc_insns += blk->pub.cyc_insns;
		}
	}
	if (b->nr_units > 1)
		qsort(b->bsorted, b->nr_units, sizeof(*b->bsorted),
		      sort == PDA_BRANCH_SORT_COUNT ? cmp_count : cmp_cycles);
	t->nr_rows = b->nr_units;
	return 0;
}

void pda_branch_blocks_free(struct pda_branch *b)
{
	struct block_ent *blk = b->all_blocks;

	while (blk) {
		struct block_ent *next = blk->next_all;

		pda_free(b->s, blk->runs);
		pda_free(b->s, blk);
		blk = next;
	}
	b->all_blocks = NULL;
	for (size_t i = 0; i < b->nr_units; i++)
		pda_free(b->s, (char *)b->bsorted[i] -
				       offsetof(struct unit_ent, pub));
	pda_free(b->s, b->bsorted);
	pdc_hash_release(pda_session_alloc(b->s), &b->blocks);
	pdc_hash_release(pda_session_alloc(b->s), &b->units);
}

size_t pda_branch_nr_blocks(const struct pda_branch *b)
{
	return b->nr_units;
}

const struct pda_branch_block *pda_branch_block(const struct pda_branch *b,
						size_t i)
{
	return i < b->nr_units ? b->bsorted[i] : NULL;
}

const struct pda_branch_block_totals *
pda_branch_block_totals(const struct pda_branch *b)
{
	return &b->bt;
}
