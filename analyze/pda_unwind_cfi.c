/*
 * pda_unwind_cfi.c - the libdw backend's fast path: CFI rows cached per
 * address, and a step loop that applies them as libdwfl would.
 *
 * libdwfl unwinds a frame by looking its CFI up again (an FDE search and
 * a row built by running the CIE's and FDE's instructions, allocated and
 * freed) and evaluating every register's rule as a DWARF expression:
 * that is most of the cost of a DWARF capture.  Here the rules of the row
 * that covers an address are turned, once per (process, address), into a
 * compact table: for each register undefined, same value, at CFA + N,
 * CFA + N, or register R + N, and the CFA as register R + N.  A sample is
 * then stepped through those tables with the same results libdwfl gives
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
 * Invariants: by_addr maps an address looked up to its row (the shared
 * no_cfi row when no CFI covers it); by_range holds each distinct row
 * once, keyed by the start of the address range it covers; rows live in
 * blocks freed together.  Not thread-safe: one per backend state.
 */
#include "pda_unwind.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define CFI_REGS 32		   /* DWARF registers followed at most */
#define ROWS_MAX ((size_t)1 << 20) /* cached rows (and addresses) */
#define ROW_BLOCK 256

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

struct row {
	uint64_t start, end; /* [start, end) it covers, absolute */
	uint8_t state;	     /* enum row_state */
	bool eh;	     /* from .eh_frame, else .debug_frame */
	bool signal;	     /* the CIE's 'S': a signal trampoline */
	uint8_t ra;	     /* the return-address column */
	bool cfa_ok;	     /* false: the CFA is undefined */
	uint8_t cfa_reg;
	int32_t cfa_off;
	struct rule r[]; /* [nregs] */
};

/* An open-addressing map from a 64-bit key to a row. */
struct row_map {
	uint64_t *keys;
	struct row **vals; /* NULL: empty slot */
	size_t cap, nr;	   /* cap a power of two, or 0 */
};

struct row_block {
	struct row_block *next;
	size_t used;
	unsigned char mem[];
};

struct pda_cfi_cache {
	unsigned nregs; /* registers in a row: 17 (x86_64) or 32 */
	size_t row_size;
	struct row_map by_addr, by_range;
	struct row_block *blocks;
	struct row *no_cfi;
	struct row *scratch;	   /* a row when the cache is full */
	uint64_t nr_fast, nr_slow; /* samples unwound here, by libdwfl */
};

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (size_t)key & (cap - 1);
}

static struct row *map_get(const struct row_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

/* Add key (not there).  0, or NOMEM with the map unchanged. */
static int map_put(struct pda_session *s, struct row_map *m, uint64_t key,
		   struct row *val)
{
	size_t i;

	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		uint64_t *keys = pda_malloc(s, cap * sizeof(*keys));
		struct row **vals = pda_zalloc(s, cap * sizeof(*vals));

		if (!keys || !vals) {
			pda_free(s, keys);
			pda_free(s, vals);
			return PD_ERR_NOMEM;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->vals[j])
				continue;
			for (i = slot_of(m->keys[j], cap); vals[i];
			     i = (i + 1) & (cap - 1))
				;
			keys[i] = m->keys[j];
			vals[i] = m->vals[j];
		}
		pda_free(s, m->keys);
		pda_free(s, m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		;
	m->keys[i] = key;
	m->vals[i] = val;
	m->nr++;
	return 0;
}

static void map_release(struct pda_session *s, struct row_map *m)
{
	pda_free(s, m->keys);
	pda_free(s, m->vals);
	memset(m, 0, sizeof(*m));
}

static struct row *row_alloc(struct pda_session *s, struct pda_cfi_cache *c)
{
	struct row_block *b = c->blocks;
	struct row *r;

	if (!b || b->used == ROW_BLOCK) {
		b = pda_malloc(s, sizeof(*b) + ROW_BLOCK * c->row_size);
		if (!b)
			return NULL;
		b->next = c->blocks;
		b->used = 0;
		c->blocks = b;
	}
	r = (struct row *)(void *)(b->mem + b->used++ * c->row_size);
	memset(r, 0, c->row_size);
	return r;
}

int pda_cfi_cache_new(struct pda_session *s, const struct pda_unwind_arch *a,
		      struct pda_cfi_cache **out)
{
	struct pda_cfi_cache *c;

	*out = NULL;
	/* libebl adjusts nothing on these (no address mask, no register
	 * renumbering, no return-address offset) */
	if (a->e_machine != EM_X86_64 && a->e_machine != EM_AARCH64)
		return 0;
	c = pda_zalloc(s, sizeof(*c));
	if (!c)
		return PD_ERR_NOMEM;
	c->nregs = a->e_machine == EM_X86_64 ? 17 : CFI_REGS;
	c->row_size =
		(sizeof(struct row) + c->nregs * sizeof(struct rule) + 7) &
		~(size_t)7;
	c->no_cfi = row_alloc(s, c);
	c->scratch = row_alloc(s, c);
	if (!c->no_cfi || !c->scratch) {
		pda_free(s, c->blocks);
		pda_free(s, c);
		return PD_ERR_NOMEM;
	}
	c->no_cfi->state = ROW_NO_CFI;
	*out = c;
	return 0;
}

void pda_cfi_cache_clear(struct pda_session *s, struct pda_cfi_cache *c)
{
	struct row_block *b, *next;

	if (!c)
		return;
	map_release(s, &c->by_addr);
	map_release(s, &c->by_range);
	/* the oldest block holds no_cfi and scratch: keep it */
	for (b = c->blocks; b && b->next; b = next) {
		next = b->next;
		pda_free(s, b);
	}
	c->blocks = b;
	if (b)
		b->used = 2;
}

void pda_cfi_cache_free(struct pda_session *s, struct pda_cfi_cache *c)
{
	if (!c)
		return;
	pda_cfi_cache_clear(s, c);
	pda_free(s, c->blocks);
	if (c->nr_fast + c->nr_slow)
		pda_logf(s, PD_LOG_DEBUG,
			 "unwind: %llu samples through cached CFI rows, %llu "
			 "through libdwfl",
			 (unsigned long long)c->nr_fast,
			 (unsigned long long)c->nr_slow);
	pda_free(s, c);
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
	row->state = ROW_OK;
}

/*
 * The row for addr, as __libdwfl_frame_unwind finds its CFI: the module
 * at addr, its .eh_frame, else its .debug_frame.  0, NOMEM or AGAIN.
 */
static int find_row(struct pda_session *s, struct pda_cfi_cache *c,
		    const struct pda_cfi_src *src, uint64_t addr,
		    struct row **out)
{
	Dwfl_Module *mod = NULL;
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias = 0, start, end;
	struct row *row;
	bool eh = true, signal;
	uint64_t key;
	int rc, ra;

	row = map_get(&c->by_addr, addr);
	if (row) {
		*out = row;
		return 0;
	}
	rc = src->module(src->arg, addr, &mod);
	if (rc < 0)
		return rc;
	if (mod) {
		Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);

		if (!cfi ||
		    dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0) {
			eh = false;
			frame = NULL;
			cfi = dwfl_module_dwarf_cfi(mod, &bias);
			if (cfi &&
			    dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
				frame = NULL;
		}
	}
	row = c->no_cfi;
	if (frame) {
		ra = dwarf_frame_info(frame, &start, &end, &signal);
		key = (start + bias) << 1 | eh;
		row = map_get(&c->by_range, key);
		if (!row || row->end != end + bias) {
			/* a full cache: a row for this step only */
			row = c->by_range.nr < ROWS_MAX ? row_alloc(s, c)
							: c->scratch;
			if (!row) {
				free(frame); /* libdw's malloc */
				return PD_ERR_NOMEM;
			}
			memset(row, 0, c->row_size);
			row->start = start + bias;
			row->end = end + bias;
			row->eh = eh;
			row->signal = signal;
			fill_row(c, row, frame, ra);
			if (row != c->scratch && !map_get(&c->by_range, key) &&
			    map_put(s, &c->by_range, key, row) < 0) {
				free(frame);
				return PD_ERR_NOMEM;
			}
		}
		free(frame);
	}
	if (row != c->scratch && c->by_addr.nr < ROWS_MAX &&
	    map_put(s, &c->by_addr, addr, row) < 0)
		return PD_ERR_NOMEM;
	*out = row;
	return 0;
}

/* ---- stepping ------------------------------------------------------- */

enum pc_state { PC_ERROR, PC_SET, PC_UNDEFINED };

/*
 * The caller's registers from the callee's by row, as handle_cfi sets
 * them: registers in register order, a rule that cannot be evaluated
 * (an unset register, a read that failed) leaves its register unset, and
 * the return-address column gives the pc.  0 or a read's NOMEM/AGAIN.
 */
static int step(struct pda_session *s, const struct pda_cfi_cache *c,
		const struct pda_unwind_req *req, const struct row *row,
		const uint64_t *regs, uint64_t set, uint64_t *next,
		uint64_t *next_set, uint64_t *pc, enum pc_state *state)
{
	const unsigned size = req->arch->is64 ? 8 : 4;
	uint64_t cfa = 0, val;
	bool cfa_ok = row->cfa_ok && (set >> row->cfa_reg & 1);
	unsigned why;
	int rc;

	if (cfa_ok)
		cfa = regs[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
	*next_set = 0;
	*state = PC_ERROR;
	for (unsigned regno = 0; regno < c->nregs; regno++) {
		const struct rule *r = &row->r[regno];
		const uint64_t off = (uint64_t)(int64_t)r->off;

		switch (r->kind) {
		case RULE_UNDEF:
			if (regno == row->ra)
				*state = PC_UNDEFINED;
			continue;
		case RULE_SAME:
			if (!(set >> regno & 1))
				continue;
			val = regs[regno];
			break;
		case RULE_AT_CFA:
			if (!cfa_ok)
				continue;
			rc = pda_unwind_read(s, req, cfa + off, size, &val,
					     &why);
			if (rc < 0)
				return rc;
			if (rc == 0)
				continue;
			break;
		case RULE_CFA:
			if (!cfa_ok)
				continue;
			val = cfa + off;
			break;
		case RULE_REG:
		default:
			if (!(set >> r->reg & 1))
				continue;
			val = regs[r->reg] + off;
			break;
		}
		next[regno] = val;
		*next_set |= 1ull << regno;
	}
	if (*state == PC_ERROR) {
		/* set, or undefined: the end of the stack */
		*state = PC_UNDEFINED;
		if (*next_set >> row->ra & 1) {
			*pc = next[row->ra];
			if (*pc)
				*state = PC_SET;
		}
	}
	return 0;
}

int pda_cfi_unwind(struct pda_session *s, struct pda_cfi_cache *c,
		   const struct pda_cfi_src *src,
		   const struct pda_unwind_req *req, struct pda_unwind_res *res,
		   bool *done)
{
	const struct pda_unwind_arch *a = req->arch;
	uint64_t regs[CFI_REGS], next[CFI_REGS], set = 0, next_set, v;
	uint64_t pc = req->pc, next_pc = 0;
	bool initial = true, signal = false;
	int rc;

	*done = false;
	res->nr = 0;
	if (!c || !pc)
		return 0;
	for (unsigned i = 0; i < c->nregs && i < a->nr_dwarf; i++) {
		if (a->perf_of_dwarf[i] >= 0 &&
		    pda_unwind_reg(req->regs, (unsigned)a->perf_of_dwarf[i],
				   &v)) {
			regs[i] = v;
			set |= 1ull << i;
		}
	}
	for (;;) {
		/* the caller's pc is a return address: its call is before */
		const uint64_t addr = initial || signal ? pc : pc - 1;
		enum pc_state state = PC_ERROR;
		struct row *row;
		bool activation;
		uint64_t last;

		rc = find_row(s, c, src, addr, &row);
		if (rc < 0)
			return rc;
		if (row->state == ROW_OK) {
			rc = step(s, c, req, row, regs, set, next, &next_set,
				  &next_pc, &state);
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
			res->stop = PDA_UNWIND_END;
			*done = true;
			break;
		}
		memcpy(regs, next, sizeof(regs[0]) * c->nregs);
		set = next_set;
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
