/*
 * pda_unwind_cfi.c - the libdw backend's fast path: CFI rows cached per
 * address, and a step loop that applies them as libdwfl would.
 *
 * libdwfl unwinds a frame by looking its CFI up again (an FDE search and
 * a row built by running the CIE's and FDE's instructions, allocated and
 * freed) and evaluating every register's rule as a DWARF expression:
 * that is most of the cost of a DWARF capture.  Here the rules of the row
 * that covers an address are turned, once per (DSO, offset in its file),
 * into a compact table: for each register undefined, same value, at CFA
 * + N, CFA + N, or register R + N, and the CFA as register R + N.  Such a
 * row does not depend on where the DSO is loaded, so every process and
 * every thread of the session shares it.  A sample is then stepped
 * through those tables with the same results libdwfl gives
 * (libdwfl/frame_unwind.c: handle_cfi, __libdwfl_frame_unwind, and
 * dwfl_frame_pc for whether a frame is an activation): the same registers
 * set or left unset, the same return addresses, the same end.  Whatever
 * the table cannot express exactly sends the sample back to libdwfl,
 * whole: a rule that is another expression (PLT stubs, signal
 * trampolines), an address without CFI (libdwfl then guesses from the
 * frame pointer), a target other than x86_64 and aarch64 (whose libebl
 * backends adjust registers or return addresses).
 *
 * On aarch64 libebl counts 97 registers; only x0-x30 and sp can matter
 * for the return address, the CFA and the registers rules read, so rows
 * keep those 32 and a rule that reads another register is complex.
 *
 * Two levels: each backend state (a process, on one thread) maps the
 * addresses it has looked up to rows without a lock (struct
 * pda_cfi_cache); the session's store (struct pda_cfi_store) maps (DSO,
 * file offset) to rows and holds the rows, each distinct row once, under
 * its mutex, which is only taken when a process meets an address for the
 * first time.  A row is found by a process's own Dwfl (the module at the
 * address, its .eh_frame, else its .debug_frame), as libdwfl finds it.
 * The store also keeps where each row built holds (struct span): from
 * the address it was built for to the end of the row, so that the other
 * addresses there (a function's body is one row) reuse it without libdw.
 *
 * Invariants: rows are never changed or freed once in the store (they
 * live as long as the session); by_key and by_content are the store's,
 * under mu; by_addr is a cache's own.
 */
#include "pda_unwind_int.h"
#include "pdc_arena.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define CFI_REGS 32		   /* DWARF registers followed at most */
#define CFI_PROBES 8		   /* reads of registers not followed */
#define ROWS_MAX ((size_t)1 << 20) /* keys (and rows) in a map, at most */
#define FRONT 2048 /* direct-mapped slots before by_addr */
#define SPAN_SHIFT 12	   /* a span is filed under each 4 KB it covers */
#define SPAN_CHUNKS 64	   /* and is not kept past 64 of them */

enum rule_kind {
	RULE_UNDEF,  /* unset in the caller: "undefined" */
	RULE_SAME,   /* the callee's value, if it has one */
	RULE_AT_CFA, /* in memory at CFA + off */
	RULE_CFA,    /* CFA + off */
	RULE_REG,    /* register reg + off */
};

struct rule {
	int32_t off;
	uint8_t kind; /* enum rule_kind */
	uint8_t reg;
};

enum row_state {
	ROW_OK,	     /* the table holds */
	ROW_NO_CFI,  /* no CFI covers the address */
	ROW_COMPLEX, /* CFI the table cannot express */
};

/* CFI_REGS rules whatever the arch: rows are few (shared by content). */
struct row {
	uint8_t state; /* enum row_state */
	bool signal;   /* the CIE's 'S': a signal trampoline */
	uint8_t ra;    /* the return-address column */
	bool cfa_ok;   /* false: the CFA is undefined */
	uint8_t cfa_reg;
	int32_t cfa_off;
	uint32_t live; /* the registers whose rule is not RULE_UNDEF */
	/* live by kind, for a step that applies each kind at once */
	uint32_t same, at_cfa, cfa, reg;
	struct rule r[CFI_REGS];
	/* libdwfl also reads the registers past those followed (aarch64's
	 * d8-d15) at CFA + probe[i]: read them too, for what a failed
	 * read says (and to load what it would load) */
	uint8_t nr_probes;
	int32_t probe[CFI_PROBES];
};

/* An open-addressing map from a two-word key to a row. */
struct row_key {
	uintptr_t a; /* a DSO, or 0 */
	uint64_t b;  /* an offset, an address or a hash */
};

struct row_map {
	struct row_key *keys;
	const void **vals; /* NULL: empty slot; a row or a span */
	size_t cap, nr;		 /* cap a power of two, or 0 */
};

/*
 * Where one row holds, as dwarf_frame_info gives it ([start, end) of the
 * CFI's addresses), moved to offsets in the DSO's file: every address of
 * the DSO whose offset is in it has that row.  Filed under each chunk of
 * 1 << SPAN_SHIFT offsets it covers, one node per chunk.
 */
struct span {
	uint64_t start, end;
	const struct row *row;
	const struct span *next; /* in the same chunk */
};

struct pda_cfi_store {
	pthread_mutex_t mu;
	struct row_map by_key;	   /* (DSO, file offset) -> row */
	struct row_map by_content; /* (0, hash of the row) -> row */
	struct row_map by_chunk;   /* (DSO, offset >> SPAN_SHIFT) -> span */
	/* the rows and spans: they live as long as the store */
	struct pdc_arena arena;
	size_t nr_spans;
	struct row no_cfi;
};

struct pda_cfi_cache {
	struct pda_cfi_store *store;
	/* the last row found for an address, by the address's bits: most
	 * frames are return addresses met before */
	struct {
		uint64_t addr;
		const struct row *row; /* NULL: empty */
	} front[FRONT];
	unsigned nregs;		   /* registers followed: 17 or 32 */
	unsigned nr_ebl;	   /* registers libdwfl unwinds: 17 or 97 */
	struct row_map by_addr;	   /* (0, address) -> row */
	struct row scratch;	   /* a row when the maps are full */
	uint64_t nr_fast, nr_slow; /* samples unwound here, by libdwfl */
};

static size_t slot_of(const struct row_key *k, size_t cap)
{
	uint64_t h = k->b ^ (uint64_t)k->a * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

/* k's value slot, or NULL when k is not there. */
static const void **map_slot(const struct row_map *m, const struct row_key *k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(k, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i].a == k->a && m->keys[i].b == k->b)
			return &m->vals[i];
	return NULL;
}

static const void *map_get(const struct row_map *m, const struct row_key *k)
{
	const void **v = map_slot(m, k);

	return v ? *v : NULL;
}

/* Add k (not there), unless the map is full.  0, or NOMEM with the map
 * unchanged. */
static int map_put(struct pda_session *s, struct row_map *m,
		   const struct row_key *k, const void *val)
{
	size_t i;

	if (m->nr >= ROWS_MAX)
		return 0;
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct row_key *keys = pda_malloc(s, cap * sizeof(*keys));
		const void **vals = pda_zalloc(s, cap * sizeof(*vals));

		if (!keys || !vals) {
			pda_free(s, keys);
			pda_free(s, (void *)vals);
			return PD_ERR_NOMEM;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->vals[j])
				continue;
			for (i = slot_of(&m->keys[j], cap); vals[i];
			     i = (i + 1) & (cap - 1))
				;
			keys[i] = m->keys[j];
			vals[i] = m->vals[j];
		}
		pda_free(s, m->keys);
		pda_free(s, (void *)m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	for (i = slot_of(k, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = *k;
	m->vals[i] = val;
	m->nr++;
	return 0;
}

static void map_release(struct pda_session *s, struct row_map *m)
{
	pda_free(s, m->keys);
	pda_free(s, (void *)m->vals);
	memset(m, 0, sizeof(*m));
}

void pda_cfi_store_free(struct pda_session *s, struct pda_cfi_store *st)
{
	if (!st)
		return;
	map_release(s, &st->by_key);
	map_release(s, &st->by_content);
	map_release(s, &st->by_chunk);
	pdc_arena_release(&st->arena, &s->alloc);
	pthread_mutex_destroy(&st->mu);
	pda_free(s, st);
}

int pda_cfi_cache_new(struct pda_session *s, const struct pda_unwind_arch *a,
		      struct pda_cfi_store **store, struct pda_cfi_cache **out)
{
	struct pda_cfi_cache *c;

	*out = NULL;
	/* libebl adjusts nothing on these (no address mask, no register
	 * renumbering, no return-address offset) */
	if (a->e_machine != EM_X86_64 && a->e_machine != EM_AARCH64)
		return 0;
	if (!*store) {
		struct pda_cfi_store *st = pda_zalloc(s, sizeof(*st));

		if (!st)
			return PD_ERR_NOMEM;
		if (pthread_mutex_init(&st->mu, NULL) != 0) {
			pda_free(s, st);
			return PD_ERR_NOMEM;
		}
		st->no_cfi.state = ROW_NO_CFI;
		*store = st;
	}
	c = pda_zalloc(s, sizeof(*c));
	if (!c)
		return PD_ERR_NOMEM;
	c->store = *store;
	/* libebl's frame_nregs (backends/{x86_64,aarch64}_init.c) */
	c->nregs = a->e_machine == EM_X86_64 ? 17 : CFI_REGS;
	c->nr_ebl = a->e_machine == EM_X86_64 ? 17 : 97;
	*out = c;
	return 0;
}

void pda_cfi_cache_clear(struct pda_session *s, struct pda_cfi_cache *c)
{
	if (!c)
		return;
	map_release(s, &c->by_addr);
	memset(c->front, 0, sizeof(c->front));
}

void pda_cfi_cache_free(struct pda_session *s, struct pda_cfi_cache *c)
{
	if (!c)
		return;
	if (c->nr_fast + c->nr_slow)
		pda_logf(s, PD_LOG_DEBUG,
			 "unwind: %llu samples through cached CFI rows, %llu "
			 "through libdwfl; %zu addresses",
			 (unsigned long long)c->nr_fast,
			 (unsigned long long)c->nr_slow, c->by_addr.nr);
	pda_cfi_cache_clear(s, c);
	pda_free(s, c);
}

/* The store's copy of row (an equal one if there is), or NULL on NOMEM;
 * row itself when the store is full.  Under st->mu. */
static const struct row *share(struct pda_session *s, struct pda_cfi_store *st,
			       const struct row *row)
{
	const struct row_key k = {0, pdc_hash_bytes(row, sizeof(*row))};
	const struct row *old = map_get(&st->by_content, &k);
	struct row *copy;

	if (old && !memcmp(old, row, sizeof(*row)))
		return old;
	if (st->by_content.nr >= ROWS_MAX)
		return row;
	copy = pdc_arena_alloc(&st->arena, &s->alloc, sizeof(*copy));
	if (!copy)
		return NULL;
	*copy = *row;
	/* a colliding hash keeps its first row */
	if (!old && map_put(s, &st->by_content, &k, copy) < 0)
		return NULL;
	return copy;
}

/* The row of the span that holds k's offset in k's DSO, or NULL.  Under
 * st->mu. */
static const struct row *span_get(const struct pda_cfi_store *st,
				  const struct row_key *k)
{
	const struct row_key ck = {k->a, k->b >> SPAN_SHIFT};
	const struct span *sp;

	for (sp = map_get(&st->by_chunk, &ck); sp; sp = sp->next)
		if (k->b >= sp->start && k->b < sp->end)
			return sp->row;
	return NULL;
}

/* File [start, end) of dso as row's span, unless it covers more than
 * SPAN_CHUNKS chunks or the store holds ROWS_MAX spans (its addresses
 * then build their rows again).  0 or NOMEM.  Under st->mu. */
static int span_put(struct pda_session *s, struct pda_cfi_store *st,
		    uintptr_t dso, uint64_t start, uint64_t end,
		    const struct row *row)
{
	const uint64_t first = start >> SPAN_SHIFT;
	const uint64_t last = (end - 1) >> SPAN_SHIFT;

	if (end <= start || last - first >= SPAN_CHUNKS ||
	    st->nr_spans >= ROWS_MAX)
		return 0;
	for (uint64_t c = first; c <= last; c++) {
		const struct row_key ck = {dso, c};
		struct span *sp =
			pdc_arena_alloc(&st->arena, &s->alloc, sizeof(*sp));
		const void **head;
		int rc;

		if (!sp)
			return PD_ERR_NOMEM;
		head = map_slot(&st->by_chunk, &ck);
		*sp = (struct span){start, end, row, head ? *head : NULL};
		/* the chunk's list now begins with sp */
		if (head)
			*head = sp;
		else if ((rc = map_put(s, &st->by_chunk, &ck, sp)) < 0)
			return rc;
		st->nr_spans++;
	}
	return 0;
}

/* ---- rows from libdw's CFI ------------------------------------------ */

/* A value an expression computes, as expr_eval would compute it. */
struct sym {
	enum { SYM_CFA, SYM_REG, SYM_CONST } kind;
	unsigned reg;
	uint64_t off;
};

/*
 * The few expressions libdw synthesizes for the common rules (offset,
 * val_offset, register, def_cfa), evaluated symbolically; false for
 * anything else.  *out is the value, *location whether expr_eval would
 * then read memory at it.
 */
static bool eval_sym(const Dwarf_Op *ops, size_t nops, bool cfa_allowed,
		     struct sym *out, bool *location)
{
	struct sym st[3];
	size_t n = 0;

	*location = false;
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		const unsigned atom = op->atom;

		if (atom == DW_OP_nop)
			continue;
		if (atom == DW_OP_stack_value) {
			*location = false;
			continue;
		}
		if (atom == DW_OP_plus_uconst) {
			if (!n)
				return false;
			st[n - 1].off += op->number;
			continue;
		}
		if (n == 3)
			return false;
		if (atom == DW_OP_call_frame_cfa) {
			if (!cfa_allowed)
				return false;
			st[n++] = (struct sym){SYM_CFA, 0, 0};
			*location = true;
		} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			st[n++] = (struct sym){SYM_REG, atom - DW_OP_breg0,
					       op->number};
		} else if (atom == DW_OP_bregx) {
			st[n++] = (struct sym){SYM_REG, (unsigned)op->number,
					       op->number2};
		} else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			st[n++] = (struct sym){SYM_REG, atom - DW_OP_reg0, 0};
		} else if (atom == DW_OP_regx) {
			st[n++] =
				(struct sym){SYM_REG, (unsigned)op->number, 0};
		} else {
			return false;
		}
	}
	if (n != 1)
		return false;
	*out = st[0];
	return true;
}

static bool fits32(uint64_t v)
{
	return (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
}

/* Fill row's table from frame; ROW_COMPLEX where it cannot hold. */
static void fill_row(const struct pda_cfi_cache *c, struct row *row,
		     Dwarf_Frame *frame, int ra)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	struct sym v;
	bool loc;

	row->state = ROW_COMPLEX;
	if (ra < 0 || (unsigned)ra >= c->nregs)
		return;
	row->ra = (uint8_t)ra;
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0)
		return;
	if (nops) {
		/* expr_eval of the CFA: a value, no call_frame_cfa */
		if (!eval_sym(ops, nops, false, &v, &loc) || loc ||
		    v.kind != SYM_REG || v.reg >= c->nregs || !fits32(v.off))
			return;
		row->cfa_ok = true;
		row->cfa_reg = (uint8_t)v.reg;
		row->cfa_off = (int32_t)v.off;
	}
	for (unsigned regno = 0; regno < c->nregs; regno++) {
		struct rule *r = &row->r[regno];

		if (dwarf_frame_register(frame, (int)regno, mem, &ops, &nops) !=
		    0)
			return;
		if (!nops) {
			if (ops == mem)
				r->kind = RULE_UNDEF;
			else if (!ops)
				r->kind = RULE_SAME;
			else
				return;
			continue;
		}
		if (!eval_sym(ops, nops, true, &v, &loc) || !fits32(v.off))
			return;
		r->off = (int32_t)v.off;
		if (v.kind == SYM_CFA) {
			r->kind = loc ? RULE_AT_CFA : RULE_CFA;
		} else if (v.kind == SYM_REG && !loc && v.reg < c->nregs) {
			r->kind = RULE_REG;
			r->reg = (uint8_t)v.reg;
		} else {
			return;
		}
	}
	for (unsigned regno = c->nregs; regno < c->nr_ebl; regno++) {
		if (dwarf_frame_register(frame, (int)regno, mem, &ops, &nops) !=
		    0)
			return;
		if (!nops)
			continue; /* undefined or same value: no read */
		if (!eval_sym(ops, nops, true, &v, &loc) || !fits32(v.off))
			return;
		if (!loc)
			continue; /* a value: no read */
		if (v.kind != SYM_CFA || row->nr_probes == CFI_PROBES)
			return;
		row->probe[row->nr_probes++] = (int32_t)v.off;
	}
	for (unsigned regno = 0; regno < c->nregs; regno++) {
		const uint32_t bit = 1u << regno;

		switch (row->r[regno].kind) {
		case RULE_UNDEF:
			continue;
		case RULE_SAME:
			row->same |= bit;
			break;
		case RULE_AT_CFA:
			row->at_cfa |= bit;
			break;
		case RULE_CFA:
			row->cfa |= bit;
			break;
		default:
			row->reg |= bit;
			break;
		}
		row->live |= bit;
	}
	row->state = ROW_OK;
}

/*
 * The row for addr, as __libdwfl_frame_unwind finds its CFI: the module
 * at addr, its .eh_frame, else its .debug_frame; first from the cache,
 * then from the store by the DSO mapped at addr (its offset, else a span
 * holding it: FDEs do not overlap, so the FDE libdw would find is the
 * span's).  0, NOMEM or AGAIN.
 */
static int find_row(struct pda_session *s, struct pda_cfi_cache *c,
		    const struct pda_cfi_src *src,
		    const struct pda_unwind_req *req, uint64_t addr,
		    const struct row **out)
{
	struct pda_cfi_store *st = c->store;
	const struct row_key ak = {0, addr};
	const size_t fi = (size_t)(addr ^ addr >> 11) & (FRONT - 1);
	struct row_key dk = {0, 0};
	const struct pda_map *map;
	const struct row *row;
	Dwfl_Module *mod = NULL;
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias = 0, end;
	uint64_t sp_start = 0, sp_end = 0;
	bool signal, spanned = false;
	int rc;

	if (c->front[fi].row && c->front[fi].addr == addr) {
		*out = c->front[fi].row;
		return 0;
	}
	row = map_get(&c->by_addr, &ak);
	if (row) {
		c->front[fi].addr = addr;
		c->front[fi].row = row;
		*out = row;
		return 0;
	}
	/* a row depends on the DSO and the offset in it only */
	map = pda_maps_lookup(req->maps, addr);
	if (map && map->dso &&
	    (map->kind == PDA_MAP_FILE || map->kind == PDA_MAP_VDSO)) {
		dk.a = (uintptr_t)map->dso;
		dk.b = map->pgoff + (addr - map->start);
		pthread_mutex_lock(&st->mu);
		row = map_get(&st->by_key, &dk);
		if (!row)
			row = span_get(st, &dk);
		pthread_mutex_unlock(&st->mu);
		if (row)
			goto found;
	}
	rc = src->module(src->arg, addr, &mod);
	if (rc < 0)
		return rc;
	if (mod) {
		Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);

		/* a .debug_frame row's span may hold addresses .eh_frame
		 * has rows for: a span only when there is no .eh_frame */
		spanned = true;
		if (!cfi ||
		    dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0) {
			spanned = !cfi;
			frame = NULL;
			cfi = dwfl_module_dwarf_cfi(mod, &bias);
			if (cfi &&
			    dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
				frame = NULL;
		}
	}
	row = &st->no_cfi;
	if (frame) {
		/* libdw runs the FDE's program until a row starts past
		 * addr: end is that row's start (or the FDE's end), and
		 * every address in [addr, end) of the FDE stops at the
		 * same instruction with the same rules.  The start libdw
		 * gives is not the row's after a DW_CFA_restore_state
		 * (it is the remembered row's): not used */
		int ra = dwarf_frame_info(frame, NULL, &end, &signal);

		memset(&c->scratch, 0, sizeof(c->scratch));
		c->scratch.signal = ra >= 0 && signal;
		fill_row(c, &c->scratch, frame, ra);
		free(frame); /* libdw's malloc */
		row = &c->scratch;
		/* in file offsets, as dk.b is addr's (one segment maps
		 * both: an FDE is in one) */
		sp_start = dk.b;
		sp_end = dk.b + (end - (addr - bias));
		spanned = spanned && dk.a && end > addr - bias &&
			  sp_end > sp_start;
	} else {
		spanned = false;
	}
	pthread_mutex_lock(&st->mu);
	if (row == &c->scratch)
		row = share(s, st, row);
	rc = row ? 0 : PD_ERR_NOMEM;
	if (row && dk.a && row != &c->scratch)
		rc = map_put(s, &st->by_key, &dk, row);
	if (rc == 0 && spanned && row != &c->scratch)
		rc = span_put(s, st, dk.a, sp_start, sp_end, row);
	pthread_mutex_unlock(&st->mu);
	if (rc < 0)
		return rc;
found:
	if (row != &c->scratch) {
		if ((rc = map_put(s, &c->by_addr, &ak, row)) < 0)
			return rc;
		c->front[fi].addr = addr;
		c->front[fi].row = row;
	}
	*out = row;
	return 0;
}

/* ---- stepping ------------------------------------------------------- */

enum pc_state { PC_ERROR, PC_SET, PC_UNDEFINED };

/*
 * Where a saved register's word may be read from the stack dump as
 * pda_unwind_read would read it, without the call (a sixth of the
 * unwinding worker's instructions on the bench's x86_64 DWARF capture:
 * 3.1M reads, nearly all from the dump): a 64-bit little-endian target
 * other than arm64 (no pointer authentication to strip).  Set once a
 * sample.
 */
struct dump {
	const unsigned char *stack;
	uint64_t sp;
	uint64_t span; /* the last word's offset in the dump */
	bool direct;   /* false: ask pda_unwind_read */
};

static void dump_init(struct dump *d, const struct pda_unwind_req *req)
{
	const uint64_t end = req->sp + req->stack_size;

	d->stack = req->stack;
	d->sp = req->sp;
	/* a dump that wraps around or holds no word has nothing direct */
	d->direct = req->arch->is64 && !req->arch->big_endian &&
		    req->arch->e_machine != EM_AARCH64 &&
		    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
		    end >= req->sp && req->stack_size >= 8;
	d->span = d->direct ? req->stack_size - 8 : 0;
}

/*
 * The word at addr the dump does not hold, from pda_unwind_read (apart,
 * so that the step's words, whose address it would take, stay in
 * registers): 1 read, 0 not (*fault says why), or NOMEM/AGAIN.
 */
static __attribute__((noinline)) int
read_word(struct pda_session *s, const struct pda_unwind_req *req,
	  uint64_t addr, uint64_t *val, unsigned *fault)
{
	unsigned why;
	int rc = pda_unwind_read(s, req, addr, req->arch->is64 ? 8 : 4, val,
				 &why);

	if (rc == 0)
		*fault = why;
	return rc;
}

/*
 * The caller's registers from the callee's by row, as handle_cfi sets
 * them: a rule that cannot be evaluated (an unset register, a read that
 * failed) leaves its register unset, and the return-address column
 * gives the pc.  regs and *set are replaced in place, each kind of rule
 * at once: same-value rules keep their registers, and register rules
 * (which read the callee's registers) are evaluated before anything is
 * replaced.  Reads go in register order, so the last failed read gives
 * *fault as when every rule went in register order.  0 or a read's
 * NOMEM/AGAIN.
 */
static int step(struct pda_session *s, const struct pda_unwind_req *req,
		const struct dump *d, const struct row *row, uint64_t *regs,
		uint64_t *set, uint64_t *pc, enum pc_state *state,
		unsigned *fault)
{
	const uint64_t old = *set;
	const bool cfa_ok = row->cfa_ok && (old >> row->cfa_reg & 1);
	/* the dump in locals: stores to regs could alias d's fields */
	const bool direct = d->direct;
	const unsigned char *const stack = d->stack;
	const uint64_t sp = d->sp, span = d->span;
	uint64_t cfa = 0, now = old & row->same, by_reg = 0;
	uint64_t tmp[CFI_REGS];
	int rc;

	if (cfa_ok)
		cfa = regs[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
	*state = PC_ERROR;
	for (uint32_t m = row->reg; m; m &= m - 1) {
		const unsigned regno = (unsigned)__builtin_ctz(m);
		const struct rule *r = &row->r[regno];

		if (!(old >> r->reg & 1))
			continue;
		tmp[regno] = regs[r->reg] + (uint64_t)(int64_t)r->off;
		by_reg |= 1ull << regno;
	}
	for (uint32_t m = cfa_ok ? row->at_cfa : 0; m; m &= m - 1) {
		const unsigned regno = (unsigned)__builtin_ctz(m);
		const uint64_t addr = cfa + (uint64_t)(int64_t)row->r[regno].off;
		uint64_t val, got;

		if (!PD_UNLIKELY(!direct || addr - sp > span)) {
			memcpy(&val, stack + (addr - sp), 8);
		} else {
			rc = read_word(s, req, addr, &got, fault);
			if (rc < 0)
				return rc;
			if (rc == 0)
				continue;
			val = got;
		}
		regs[regno] = val;
		now |= 1ull << regno;
	}
	for (uint32_t m = cfa_ok ? row->cfa : 0; m; m &= m - 1) {
		const unsigned regno = (unsigned)__builtin_ctz(m);

		regs[regno] = cfa + (uint64_t)(int64_t)row->r[regno].off;
		now |= 1ull << regno;
	}
	for (uint64_t m = by_reg; m; m &= m - 1) {
		const unsigned regno = (unsigned)__builtin_ctzll(m);

		regs[regno] = tmp[regno];
	}
	now |= by_reg;
	*set = now;
	if (row->r[row->ra].kind == RULE_UNDEF)
		*state = PC_UNDEFINED;
	for (unsigned i = 0; cfa_ok && i < row->nr_probes; i++) {
		const uint64_t addr = cfa + (uint64_t)(int64_t)row->probe[i];
		uint64_t got;

		if (direct && addr - sp <= span)
			continue;
		rc = read_word(s, req, addr, &got, fault);
		if (rc < 0)
			return rc;
	}
	if (*state == PC_ERROR) {
		/* set, or undefined: the end of the stack */
		*state = PC_UNDEFINED;
		if (now >> row->ra & 1) {
			*pc = regs[row->ra];
			if (*pc)
				*state = PC_SET;
		}
	}
	return 0;
}

/*
 * The sample's registers in DWARF numbering, as pda_unwind_reg gives
 * each: the perf registers' values found in one pass over the mask (not
 * a count of the bits below each register, register by register).
 */
static uint64_t initial_regs(const struct pda_cfi_cache *c,
			     const struct pda_unwind_req *req, uint64_t *regs)
{
	const struct pda_unwind_arch *a = req->arch;
	const struct pd_regs *pr = req->regs;
	const bool strip = a->e_machine == EM_AARCH64;
	uint64_t perf[64], have = 0, set = 0;
	unsigned idx = 0;

	if (!pr->abi)
		return 0;
	for (uint64_t m = pr->mask; m && idx < pr->regs.nr; m &= m - 1) {
		const unsigned reg = (unsigned)__builtin_ctzll(m);

		perf[reg] = pd_u64s_get(&pr->regs, idx++);
		have |= 1ull << reg;
	}
	for (unsigned i = 0; i < c->nregs && i < a->nr_dwarf; i++) {
		const int p = a->perf_of_dwarf[i];

		if (p < 0 || p >= 64 || !(have >> p & 1))
			continue;
		regs[i] = strip ? pda_unwind_strip(req, perf[p]) : perf[p];
		set |= 1ull << i;
	}
	return set;
}

int pda_cfi_unwind(struct pda_session *s, struct pda_cfi_cache *c,
		   const struct pda_cfi_src *src,
		   const struct pda_unwind_req *req, struct pda_unwind_res *res,
		   bool *done)
{
	uint64_t regs[CFI_REGS], set, pc = req->pc, next_pc = 0;
	bool initial = true, signal = false;
	struct dump d;
	int rc;

	*done = false;
	res->nr = 0;
	if (!c || !pc)
		return 0;
	set = initial_regs(c, req, regs);
	dump_init(&d, req);
	for (;;) {
		/* the caller's pc is a return address: its call is before */
		const uint64_t addr = initial || signal ? pc : pc - 1;
		enum pc_state state = PC_ERROR;
		unsigned fault = PDA_UNWIND_NR_STOPS;
		const struct row *row;
		bool activation;
		uint64_t last;

		rc = find_row(s, c, src, req, addr, &row);
		if (rc < 0)
			return rc;
		if (row->state == ROW_OK) {
			rc = step(s, req, &d, row, regs, &set, &next_pc,
				  &state, &fault);
			if (rc < 0)
				return rc;
		}
		/* dwfl_frame_pc's isactivation: the first frame, one a
		 * signal frame unwound to, or a signal frame itself; a
		 * frame without CFI is unwound by libebl, never a signal
		 * frame */
		activation = initial || signal ||
			     (row->state == ROW_OK && state == PC_SET &&
			      row->signal);
		if (row->state == ROW_COMPLEX)
			break;
		/* as frame_cb records it */
		last = activation ? pc : pc - 1;
		res->ips[res->nr++] = last;
		res->stop_pc = last;
		if (res->nr >= req->max_frames) {
			res->stop = PDA_UNWIND_MAX_FRAMES;
			*done = true;
			break;
		}
		if (row->state != ROW_OK)
			break; /* libebl's guess, or the end: libdwfl says */
		if (state != PC_SET) {
			/* libdwfl ends the stack where the return address
			 * cannot be read: the backend says why */
			res->stop = fault != PDA_UNWIND_NR_STOPS
					    ? fault
					    : PDA_UNWIND_END;
			*done = true;
			break;
		}
		pc = next_pc;
		initial = false;
		signal = row->signal;
	}
	if (*done)
		c->nr_fast++;
	else
		c->nr_slow++;
	return 0;
}
