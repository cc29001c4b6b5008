/*
 * pda_branch_rep.c - perf report's branch mode: a row per distinct tuple
 * of branch sort keys, each branch entry one hit (perf's pseudo period
 * of 1, hist.c iter_add_next_branch_entry()).
 *
 * The ends are resolved by pda_branch_resolve(), as `branches` and perf
 * script's brstacksym resolve them (thread__find_symbol_fb()), once per
 * (process, comm, address).  A row keeps the first entry's ends; the
 * keys decide which entries share it, as perf's collapse does.
 */
#include "pda_branch_rep.h"
#include "pda_branch_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct key_info {
	const char *name, *header;
};

/* perf 6.1's sort.c names and headers */
static const struct key_info keys_info[PDA_BREP_NR_KEYS] = {
	[PDA_BREP_COMM] = {"comm", "Command"},
	[PDA_BREP_DSO] = {"dso", "Shared Object"},
	[PDA_BREP_SYM] = {"symbol", "Symbol"},
	[PDA_BREP_DSO_FROM] = {"dso_from", "Source Shared Object"},
	[PDA_BREP_DSO_TO] = {"dso_to", "Target Shared Object"},
	[PDA_BREP_SYM_FROM] = {"symbol_from", "Source Symbol"},
	[PDA_BREP_SYM_TO] = {"symbol_to", "Target Symbol"},
	[PDA_BREP_MISPREDICT] = {"mispredict", "Branch Mispredicted"},
	[PDA_BREP_IN_TX] = {"in_tx", "Branch in transaction"},
	[PDA_BREP_ABORT] = {"abort", "Transaction abort"},
	[PDA_BREP_CYCLES] = {"cycles", "Basic Block Cycles"},
	[PDA_BREP_SRCLINE_FROM] = {"srcline_from", "From Source:Line"},
	[PDA_BREP_SRCLINE_TO] = {"srcline_to", "To Source:Line"},
};

static const enum pda_brep_key default_keys[] = {
	PDA_BREP_COMM, PDA_BREP_DSO_FROM, PDA_BREP_SYM_FROM, PDA_BREP_SYM_TO,
	PDA_BREP_CYCLES,
};

int pda_brep_key_by_name(const char *name, enum pda_brep_key *key)
{
	if (!strcmp(name, "sym"))
		name = "symbol";
	for (unsigned k = 0; k < PDA_BREP_NR_KEYS; k++) {
		if (!strcmp(name, keys_info[k].name)) {
			*key = (enum pda_brep_key)k;
			return 0;
		}
	}
	return -1;
}

const char *pda_brep_key_header(enum pda_brep_key key)
{
	return key < PDA_BREP_NR_KEYS ? keys_info[key].header : "?";
}

const char *pda_brep_key_name(enum pda_brep_key key)
{
	return key < PDA_BREP_NR_KEYS ? keys_info[key].name : "?";
}

struct row {
	struct pda_brep_row pub;
	struct pda_bcyc_sym *to_ipc; /* the target symbol's, with opts.ipc */
	const struct loc_ent *to_loc;
	unsigned event; /* the table's index in r->tables */
	uint64_t seq;	/* the order rows came */
	bool hidden;	/* its first entry's sample was filtered out */
	uint64_t *counts; /* [the table's members] in a group's table: the
			   * first member's is pub.count until finish */
};

struct table {
	struct pda_brep_table pub;
	const struct pd_evsel *evsel; /* the event, a group's leader */
	unsigned lead;		      /* its index in the capture */
	const struct pda_brep_row **rows; /* each a struct row's pub */
	size_t alloc;
	uint64_t *member_entries;     /* [pub.nr_members], in a group */
	const char **member_names;    /* [pub.nr_members], in a group */
	char *name;		      /* a group's title (pub.event) */
};

struct pda_brep {
	struct pda_session *s;
	struct pda_branch *b; /* the resolving and its caches */
	enum pda_brep_key keys[PDA_BREP_MAX_KEYS];
	unsigned nr_keys;
	bool has[PDA_BREP_NR_KEYS];
	struct pdc_hash rows;
	struct pda_bcyc cyc; /* the symbols' cycle histograms */
	bool ipc;
	bool total;		/* opts.total_cycles */
	uint64_t total_cycles;	/* with it: every entry's cycles */
	struct pdc_intern strs;
	/* dso_short()'s last answer: entries come in runs of one binary */
	const char *last_dso, *last_short;
	bool last_module;
	struct table *tables;
	size_t nr_tables, alloc_tables;
	uint64_t nr_rows, nr_entries, nr_resolved;
	uint64_t nr_half; /* BRBE half records: one end not recorded */
	struct pda_brep_stats st;
	bool cur_hidden; /* the sample being added is filtered out */
	struct rep_pair *pairs; /* [PDA_BRANCH_PAIRS], allocated on use */
	bool finished;
	/* the group view (opts.group) */
	enum pda_brep_group group;
	const struct pd_file *file;
	const struct pd_env *groups;
	unsigned cur_m;	       /* the sample's member of its table */
	unsigned sort_members; /* the members of the table being sorted */
};

int pda_brep_new(struct pda_session *s, const struct pda_brep_opts *opts,
		 struct pda_brep **out)
{
	PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);
	const enum pda_brep_key *keys = default_keys;
	unsigned nr = sizeof(default_keys) / sizeof(default_keys[0]);
	struct pda_brep *r;
	int rc;

	*out = NULL;
	if (!opts || opts->sz < sizeof(*opts) ||
	    opts->nr_keys > PDA_BREP_MAX_KEYS || (opts->nr_keys && !opts->keys))
		return PD_ERR_API;
	if (opts->nr_keys) {
		keys = opts->keys;
		nr = opts->nr_keys;
	}
	for (unsigned i = 0; i < nr; i++)
		if (keys[i] >= PDA_BREP_NR_KEYS)
			return PD_ERR_API;
	if (opts->group > PDA_BREP_GROUP_ALL ||
	    (opts->group == PDA_BREP_GROUP_ALL && !opts->file))
		return PD_ERR_API;
	r = pda_zalloc(s, sizeof(*r));
	if (!r)
		return PD_ERR_NOMEM;
	r->s = s;
	r->ipc = opts->ipc;
	r->total = opts->total_cycles;
	r->group = opts->group;
	r->file = opts->file;
	r->groups = opts->file ? opts->groups : NULL;
	rc = pda_branch_new(s, &bo, &r->b);
	if (rc < 0) {
		pda_free(s, r);
		return rc;
	}
	pda_bcyc_init(&r->cyc, r->b, false);
	if (r->total)
		pda_bcyc_counters(&r->cyc, opts->cntr, opts->env);
	for (unsigned i = 0; i < nr; i++) {
		/* perf drops a repeated key (sort_dimension__add: taken) */
		if (r->has[keys[i]])
			continue;
		r->has[keys[i]] = true;
		r->keys[r->nr_keys++] = keys[i];
	}
	pdc_intern_init(&r->strs, 0, 0, 0);
	*out = r;
	return 0;
}

void pda_brep_free(struct pda_brep *r)
{
	size_t pos = 0;
	void *it;

	if (!r)
		return;
	while ((it = pdc_hash_next(&r->rows, &pos))) {
		pda_free(r->s, ((struct row *)it)->counts);
		pda_free(r->s, it);
	}
	pdc_hash_release(pda_session_alloc(r->s), &r->rows);
	pda_bcyc_release(&r->cyc);
	for (size_t i = 0; i < r->nr_tables; i++) {
		pda_free(r->s, (void *)r->tables[i].rows);
		pda_free(r->s, r->tables[i].member_entries);
		pda_free(r->s, (void *)r->tables[i].member_names);
		pda_free(r->s, r->tables[i].name);
	}
	pda_free(r->s, r->tables);
	pdc_intern_release(&r->strs, pda_session_alloc(r->s));
	pda_free(r->s, r->pairs);
	pda_branch_free(r->b);
	pda_free(r->s, r);
}

/* ---- keys ---------------------------------------------------------- */

static int intern(struct pda_brep *r, const char *s, const char **out)
{
	void *e;
	const int rc = pdc_intern_add(&r->strs, pda_session_alloc(r->s), s,
				      strlen(s), &e);

	if (rc < 0)
		return PD_ERR_NOMEM;
	*out = e;
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* perf's dso short name: the path's last part; a kernel module's map
 * "[name]" (the file's name to its first '.', '-' as '_'). */
static int dso_short(struct pda_brep *r, const struct pda_branch_loc *l,
		     const char **out)
{
	char buf[256];
	const char *base;
	size_t n = 0;

	*out = NULL;
	if (!l->dso)
		return 0;
	/* the session interns map names: one pointer, one name */
	if (l->dso == r->last_dso && l->module == r->last_module) {
		*out = r->last_short;
		return 0;
	}
	r->last_dso = NULL;
	if (l->dso[0] == '[' || !l->module) {
		if (intern(r, l->dso[0] == '[' ? l->dso : basename_of(l->dso),
			   out) < 0)
			return PD_ERR_NOMEM;
		r->last_dso = l->dso;
		r->last_module = l->module;
		r->last_short = *out;
		return 0;
	}
	base = basename_of(l->dso);
	buf[n++] = '[';
	for (; *base && *base != '.' && n < sizeof(buf) - 2; base++)
		buf[n++] = *base == '-' ? '_' : *base;
	buf[n++] = ']';
	buf[n] = '\0';
	if (intern(r, buf, out) < 0)
		return PD_ERR_NOMEM;
	r->last_dso = l->dso;
	r->last_module = true;
	r->last_short = *out;
	return 0;
}

/* srcline as perf's map__srcline() gives it (get_srcline() with the
 * symbol and the address): "file:LINE" (basename), "sym+OFF" (decimal),
 * "dso[ADDR]", and "??:0" without a map. */
static int srcline_of(struct pda_brep *r, const struct loc_ent *e,
		      const char *dso, const char **out)
{
	char buf[512];

	if (!e->loc.dso)
		snprintf(buf, sizeof(buf), "??:0");
	else if (e->loc.srcfile && e->loc.line)
		snprintf(buf, sizeof(buf), "%s:%u",
			 basename_of(e->loc.srcfile), e->loc.line);
	else if (e->loc.sym)
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, e->loc.sym,
			 e->loc.sym_off);
	else
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", dso,
			 e->dso_addr);
	return intern(r, buf, out);
}

static int end_of(struct pda_brep *r, const struct loc_ent *e, bool srcline,
		  struct pda_brep_end *end)
{
	int rc;

	memset(end, 0, sizeof(*end));
	if (e->loc.missing) {
		/* interned: the keys compare names by pointer */
		end->missing = true;
		end->level = '?';
		rc = intern(r, "(not recorded)", &end->sym);
		if (rc == 0)
			rc = intern(r, "[not recorded]", &end->dso);
		if (rc == 0 && srcline)
			rc = intern(r, "(not recorded)", &end->srcline);
		return rc;
	}
	rc = dso_short(r, &e->loc, &end->dso);
	if (rc < 0)
		return rc;
	end->sym = e->loc.sym;
	end->sym_start = e->dso_addr - e->loc.sym_off;
	end->addr = e->addr;
	end->map_ip = e->loc.map_ip;
	/* perf tries the address as user, kernel, then guest code: without
	 * a map in any, the guest's level, 'H' (perf_guest off) */
	end->level = !e->loc.dso ? 'H' : e->loc.kernel ? 'k' : '.';
	if (srcline)
		return srcline_of(r, e, end->dso ? end->dso : "[unknown]",
				  &end->srcline);
	return 0;
}

/* What the keys see of a row: the fields they do not look at zeroed, so
 * that rows compare and hash as bytes of pointers (strings interned) and
 * numbers. */
struct rkey {
	unsigned event;
	const char *comm;
	const char *dso_from, *dso_to, *sym_from, *sym_to;
	uint64_t start_from, start_to, addr_from, addr_to;
	const char *src_from, *src_to;
	char mispred;
	bool in_tx, abort;
	unsigned cycles;
};

/* perf keys an end by its symbol (its start: sort.c _sort__sym_cmp) or,
 * without one, by its address */
static void key_end(const struct pda_brep_end *e, bool dso_key,
		    bool sym_key, const char **dso, const char **sym,
		    uint64_t *start, uint64_t *addr)
{
	if (dso_key)
		*dso = e->dso;
	if (sym_key) {
		*sym = e->sym;
		if (e->sym) {
			*start = e->sym_start;
			if (!dso_key)
				*dso = e->dso;
		} else {
			*addr = e->addr;
		}
	}
}

static void key_of(const struct pda_brep *r, const struct row *w,
		   struct rkey *k)
{
	const struct pda_brep_row *p = &w->pub;

	memset(k, 0, sizeof(*k));
	k->event = w->event;
	if (r->has[PDA_BREP_COMM])
		k->comm = p->comm;
	key_end(&p->from, r->has[PDA_BREP_DSO_FROM], r->has[PDA_BREP_SYM_FROM],
		&k->dso_from, &k->sym_from, &k->start_from, &k->addr_from);
	/* perf's dso and symbol keys are the target's in branch mode, and
	 * so is its ipc_lbr column's (sort_sym_ipc compares as sort_sym):
	 * with it, rows of other targets stay apart */
	key_end(&p->to, r->has[PDA_BREP_DSO_TO] || r->has[PDA_BREP_DSO],
		r->has[PDA_BREP_SYM_TO] || r->has[PDA_BREP_SYM] || r->ipc,
		&k->dso_to, &k->sym_to, &k->start_to, &k->addr_to);
	if (r->has[PDA_BREP_SRCLINE_FROM])
		k->src_from = p->from.srcline;
	if (r->has[PDA_BREP_SRCLINE_TO])
		k->src_to = p->to.srcline;
	if (r->has[PDA_BREP_MISPREDICT])
		k->mispred = p->mispred;
	if (r->has[PDA_BREP_IN_TX])
		k->in_tx = p->in_tx;
	if (r->has[PDA_BREP_ABORT])
		k->abort = p->abort;
	if (r->has[PDA_BREP_CYCLES])
		k->cycles = p->cycles;
}

static bool rkey_eq(const struct rkey *a, const struct rkey *b)
{
	return a->event == b->event && a->comm == b->comm &&
	       a->dso_from == b->dso_from && a->dso_to == b->dso_to &&
	       a->sym_from == b->sym_from && a->sym_to == b->sym_to &&
	       a->start_from == b->start_from && a->start_to == b->start_to &&
	       a->addr_from == b->addr_from && a->addr_to == b->addr_to &&
	       a->src_from == b->src_from && a->src_to == b->src_to &&
	       a->mispred == b->mispred && a->in_tx == b->in_tx &&
	       a->abort == b->abort && a->cycles == b->cycles;
}

static uint64_t rkey_hash(const struct rkey *k)
{
	const uintptr_t ptrs[] = {
		(uintptr_t)k->comm,	(uintptr_t)k->dso_from,
		(uintptr_t)k->dso_to,	(uintptr_t)k->sym_from,
		(uintptr_t)k->sym_to,	(uintptr_t)k->src_from,
		(uintptr_t)k->src_to,
	};
	uint64_t h = pdc_hash_u64(k->event ^ ((uint64_t)k->cycles << 8) ^
				  ((uint64_t)(unsigned char)k->mispred << 32) ^
				  ((uint64_t)k->in_tx << 40) ^
				  ((uint64_t)k->abort << 41));

	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
		h = pdc_hash_u64(h ^ ptrs[i]);
	h = pdc_hash_u64(h ^ k->start_from);
	h = pdc_hash_u64(h ^ k->start_to);
	h = pdc_hash_u64(h ^ k->addr_from);
	return pdc_hash_u64(h ^ k->addr_to);
}

struct find_ctx {
	const struct pda_brep *r;
	const struct rkey *k;
};

static bool row_eq(const void *item, const void *key)
{
	const struct find_ctx *c = key;
	struct rkey k;

	key_of(c->r, item, &k);
	return rkey_eq(&k, c->k);
}

/* ---- adding -------------------------------------------------------- */

/* The recorded group (GROUP_DESC) of more than one event that holds
 * event idx, or NULL. */
static const struct pd_env_group *recorded_group(const struct pda_brep *r,
						 unsigned idx)
{
	for (uint32_t g = 0; r->groups && g < r->groups->nr_groups; g++) {
		const struct pd_env_group *grp = &r->groups->groups[g];

		if (grp->nr_members > 1 && idx >= grp->leader_idx &&
		    idx - grp->leader_idx < grp->nr_members)
			return grp;
	}
	return NULL;
}

/* Table t's title (pub.event) over nr members from lead, as perf's
 * evsel__group_desc() names a group: "NAME { a, b }" as recorded
 * ("anon group" unnamed), "a, b" forced by --group. */
static int name_group(struct pda_brep *r, struct table *t,
		      const struct pd_env_group *grp)
{
	struct pdc_strbuf b;
	char small[256];
	char *name;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	if (grp)
		pdc_strbuf_addf(&b, "%s { ",
				grp->name && strcmp(grp->name, "{anon_group}")
					? grp->name
					: "anon group");
	for (unsigned m = 0; m < t->pub.nr_members; m++) {
		const struct pd_evsel *e = pd_file_evsel(r->file, t->lead + m);

		t->member_names[m] = e ? e->name : "unknown";
		pdc_strbuf_addf(&b, "%s%s", m ? ", " : "", t->member_names[m]);
	}
	if (grp)
		pdc_strbuf_addf(&b, " }");
	name = b.oom ? NULL : pda_zalloc(r->s, b.len + 1);
	if (name)
		memcpy(name, b.p, b.len);
	pdc_strbuf_release(&b);
	t->name = name;
	t->pub.event = name;
	return name ? 0 : PD_ERR_NOMEM;
}

/* The table of event ev (its group's, in the group view), its index
 * *idx; r->cur_m its member there.  NULL on failure (out of memory). */
static struct table *table_of(struct pda_brep *r, const struct pd_evsel *ev,
			      unsigned *idx)
{
	const struct pd_env_group *grp =
		ev && r->group != PDA_BREP_GROUP_ALL
			? recorded_group(r, ev->idx)
			: NULL;
	unsigned lead = ev ? ev->idx : 0, nr = 1;
	struct table *t;

	if (r->group == PDA_BREP_GROUP_ALL) {
		lead = 0;
		nr = (unsigned)pd_file_nr_evsels(r->file);
	} else if (r->group == PDA_BREP_GROUP_RECORDED && grp) {
		lead = grp->leader_idx;
		nr = grp->nr_members;
	}
	r->cur_m = nr > 1 && ev ? ev->idx - lead : 0;
	for (size_t i = 0; i < r->nr_tables; i++) {
		if (nr > 1 ? r->tables[i].lead == lead
			   : r->tables[i].evsel == ev) {
			*idx = (unsigned)i;
			return &r->tables[i];
		}
	}
	if (PDC_GROW(pda_session_alloc(r->s), r->tables, r->alloc_tables,
		     r->nr_tables + 1, 4096) < 0)
		return NULL;
	t = &r->tables[r->nr_tables];
	memset(t, 0, sizeof(*t));
	t->evsel = nr > 1 ? pd_file_evsel(r->file, lead) : ev;
	t->lead = lead;
	t->pub.nr_members = nr;
	t->pub.event = ev ? ev->name : "unknown";
	/* perf says "events" of a recorded group's leader alone */
	t->pub.leads_group = nr == 1 && grp && grp->leader_idx == lead;
	if (nr > 1) {
		t->pub.event = NULL;
		t->member_entries =
			pda_zalloc(r->s, nr * sizeof(*t->member_entries));
		t->member_names =
			pda_zalloc(r->s, nr * sizeof(*t->member_names));
		if (!t->member_entries || !t->member_names ||
		    name_group(r, t, r->group == PDA_BREP_GROUP_ALL ? NULL
								   : grp) < 0) {
			pda_free(r->s, t->member_entries);
			pda_free(r->s, (void *)t->member_names);
			return NULL;
		}
		t->pub.member_entries = t->member_entries;
		t->pub.member_names = t->member_names;
	}
	*idx = (unsigned)r->nr_tables++;
	return t;
}

/* ---- IPC (perf's ipc_lbr) ------------------------------------------ */

/* annotation__count_insn(): the instructions from the one starting at
 * offset from (none when no instruction starts there) to offset to */
static unsigned count_insns(const uint8_t *starts, uint64_t from, uint64_t to)
{
	unsigned n = 0;

	if (!starts[from])
		return 0;
	for (uint64_t o = from; o <= to; o++)
		n += starts[o];
	return n;
}

/*
 * annotation__compute_ipc() as perf 7.x computes it (perf 6.1 crashes
 * on entries with cycles): from the symbol's end backward, each offset
 * whose slot kept cycles and a start is a block; the instruction there
 * gets the block's IPC unless a later block gave it one, and a block
 * that gave one counts: its instructions (times its executions) and
 * cycles make the symbol's IPC, its one instruction the coverage.
 * (perf's annotation_line cycles exist only where a block ends, and
 * only those already visited: a block covers its own last instruction.)
 */
static int compute_ipc(struct pda_brep *r, struct pda_bcyc_sym *si,
		       const struct loc_ent *e)
{
	struct pda_elf *elf = pda_branch_elf(e);
	const unsigned char *code;
	uint8_t *starts;
	uint64_t hit_insn = 0, hit_cycles = 0, cover = 0, total;
	const uint8_t *p;
	size_t len, left;
	uint64_t addr;
	int rc;

	si->done = true;
	if (!si->ch || !elf)
		return 0;
	rc = pda_branch_cs(r->b, elf, si->start);
	if (rc <= 0)
		return rc;
	if (pda_elf_code(elf, si->start, si->size, &code, &len) < 0 || !len)
		return 0;
	starts = pda_zalloc(r->s, si->size);
	if (!starts)
		return PD_ERR_NOMEM;
	/* the instructions' offsets, as objdump lists them: a linear sweep,
	 * a byte that does not decode one line */
	p = code;
	left = len;
	addr = si->start;
	while (left) {
		starts[addr - si->start] = 1;
		if (!cs_disasm_iter(r->b->cs.h, &p, &left, &addr,
				    r->b->cs.insn)) {
			p++;
			left--;
			addr++;
		}
	}
	total = count_insns(starts, 0, si->size - 1);
	for (uint64_t o = si->size; o-- > 0;) {
		const struct pda_bcyc_slot *ch = &si->ch[o];
		unsigned n;

		if (!ch->cycles || !ch->have_start)
			continue;
		n = count_insns(starts, ch->start, o);
		/* perf hides a slot reset too often */
		if (!n || !ch->num || ch->reset >= 0x7fff || !starts[o])
			continue;
		hit_cycles += ch->cycles;
		hit_insn += (uint64_t)n * ch->num;
		cover++;
	}
	si->ipc = hit_cycles ? (double)hit_insn / (double)hit_cycles : 0.0;
	si->cover = total ? (double)cover * 100.0 / (double)total : 0.0;
	pda_free(r->s, starts);
	return 0;
}

/* util/branch.c branch_type_count(); a BRBE source-only record (half)
 * counts by its type alone: its direction and pages are unknown */
static void count_type(struct pda_brep_stats *st, const struct pd_branch *br,
		       bool half)
{
	if (!br->type || !br->from)
		return;
	if (br->type == PDA_BR_NR_TYPES - 1) {
		if (br->new_type < PDA_BR_NR_NEW_TYPES)
			st->new_types[br->new_type]++;
	} else {
		st->types[br->type]++;
	}
	if (half)
		return;
	if (br->type == 1) { /* PERF_BR_COND */
		if (br->to > br->from)
			st->cond_fwd++;
		else
			st->cond_bwd++;
	}
	if ((br->from ^ br->to) >> 21)
		st->cross_2m++;
	else if ((br->from ^ br->to) >> 12)
		st->cross_4k++;
}

/*
 * A branch entry seen lately and its row: the same (table, process, comm,
 * from, to, flags) makes the same row every time (the keys read the
 * resolved ends, resolved once per address, and the flags), so a hit
 * skips resolving, keying and probing.  flags: mispred, predicted,
 * in_tx, abort and cycles (flags_raw's low 20 bits).
 */
struct rep_pair {
	const struct table *t;
	const char *comm;
	uint64_t from, to;
	uint32_t pid, flags;
	struct row *row;
	bool resolved; /* both ends have a symbol */
};

/* the flags a pair keys on (pd_branch.flags_raw's low 20 bits) and the
 * type bits, which only TYPE_SAVE captures set */
#define PAIR_FLAGS UINT64_C(0xfffff)
#define TYPE_BITS (UINT64_C(0xf) << 20)

/* The slot of entry (from, to, flags fl) of process pid (r->pairs
 * made). */
static PDA_BRANCH_INLINE struct rep_pair *
pair_slot(struct pda_brep *r, uint32_t pid, uint64_t from, uint64_t to,
	  uint64_t fl)
{
	const uint64_t h = (from ^ (to * 0x9e3779b97f4a7c15ull) ^
			    ((uint64_t)pid << 20) ^ (fl & PAIR_FLAGS)) *
			   0xff51afd7ed558ccdull;

	return &r->pairs[h >> (64 - PDA_BRANCH_PAIRS_BITS)];
}

/* An entry of the sample's member (r->cur_m) counted in row w. */
static inline void row_hit(const struct pda_brep *r, struct row *w)
{
	if (r->cur_m)
		w->counts[r->cur_m]++;
	else
		w->pub.count++;
}

/* Entry i of sample (flags fl) counted in its row's table and the
 * totals. */
static PDA_BRANCH_INLINE void count_entry(struct pda_brep *r, struct table *t,
					  const struct pd_sample *sample,
					  uint64_t i, uint64_t fl,
					  enum pda_branch_half half,
					  bool resolved)
{
	r->nr_entries++;
	t->pub.nr_entries++;
	/* as perf, by the type bits (which TYPE_SAVE has the kernel
	 * fill); none: nothing to count */
	if (fl & TYPE_BITS) {
		struct pd_branch br;

		pd_sample_branch(sample, i, &br);
		count_type(&r->st, &br, half != PDA_BRANCH_COMPLETE);
	}
	if (half)
		r->nr_half++;
	else if (resolved)
		r->nr_resolved++;
}

/*
 * Entry i of sample not in its pair slot ps: its ends resolved, its row
 * keyed and found or made, and the slot set.  Out of line
 * (PDA_BRANCH_COLD): most entries hit their slot (add_entry).
 */
static PDA_BRANCH_COLD int add_miss(struct pda_brep *r, struct table *t,
				    unsigned event,
				    const struct pd_sample *sample,
				    const char *comm, uint64_t i,
				    enum pda_branch_half half,
				    struct rep_pair *ps)
{
	struct pd_branch b, *br = &b;
	const bool src = r->has[PDA_BREP_SRCLINE_FROM] ||
			 r->has[PDA_BREP_SRCLINE_TO];
	struct loc_ent *f, *to;
	struct row w, *nw;
	struct rkey k;
	struct find_ctx fc = {r, &k};
	struct pdc_hash_slot *slot;
	uint64_t h;
	int err = 0;

	pd_sample_branch(sample, i, br);
	f = half == PDA_BRANCH_TARGET_ONLY
		    ? &r->b->missing
		    : pda_branch_resolve(r->b, sample, comm, br->from, &err);
	if (!f)
		return err;
	to = half == PDA_BRANCH_SOURCE_ONLY
		     ? &r->b->missing
		     : pda_branch_resolve(r->b, sample, comm, br->to, &err);
	if (!to)
		return err;
	memset(&w, 0, sizeof(w));
	w.event = event;
	w.pub.comm = comm;
	err = end_of(r, f, src, &w.pub.from);
	if (err == 0)
		err = end_of(r, to, src, &w.pub.to);
	if (err < 0)
		return err;
	w.pub.mispred = br->mispred ? 'Y' : br->predicted ? 'N' : 0;
	w.pub.in_tx = br->in_tx;
	w.pub.abort = br->abort;
	w.pub.cycles = br->cycles;
	count_entry(r, t, sample, i, br->flags_raw, half,
		    f->loc.sym && to->loc.sym);
	*ps = (struct rep_pair){t,
			       comm,
			       br->from,
			       br->to,
			       sample->pid,
			       (uint32_t)(br->flags_raw & 0xfffff),
			       NULL,
			       f->loc.sym && to->loc.sym};
	key_of(r, &w, &k);
	h = rkey_hash(&k);
	if (pdc_hash_reserve(pda_session_alloc(r->s), &r->rows) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&r->rows, h, row_eq, &fc);
	if (slot->item) {
		ps->row = slot->item;
		row_hit(r, ps->row);
		return 0;
	}
	if (PDC_GROW(pda_session_alloc(r->s), t->rows, t->alloc,
		     t->pub.nr_rows + 1, (size_t)1 << 30) < 0)
		return PD_ERR_NOMEM;
	nw = pda_zalloc(r->s, sizeof(*nw));
	if (!nw)
		return PD_ERR_NOMEM;
	*nw = w;
	if (t->pub.nr_members > 1) {
		nw->counts =
			pda_zalloc(r->s, t->pub.nr_members * sizeof(*nw->counts));
		if (!nw->counts) {
			pda_free(r->s, nw);
			return PD_ERR_NOMEM;
		}
	}
	row_hit(r, nw);
	nw->hidden = r->cur_hidden;
	if (r->ipc || r->total) {
		nw->to_ipc = pda_bcyc_sym_of(&r->cyc, to, &err);
		if (err < 0) {
			pda_free(r->s, nw->counts);
			pda_free(r->s, nw);
			return err;
		}
		nw->to_loc = to;
	}
	nw->seq = r->nr_rows++;
	t->rows[t->pub.nr_rows++] = &nw->pub;
	pdc_hash_fill(&r->rows, slot, h, nw);
	ps->row = nw;
	return 0;
}

/* Count entry i of sample (read in place: its ends and flags fl). */
static PDA_BRANCH_INLINE int add_entry(struct pda_brep *r, struct table *t,
				       unsigned event,
				       const struct pd_sample *sample,
				       const char *comm, uint64_t i,
				       uint64_t from, uint64_t to, uint64_t fl)
{
	/* a BRBE half record's missing end is no address 0 (perf 7.2
	 * shows "[H] 0000000000000000" there) */
	const struct pd_branch ends = {.from = from, .to = to};
	const enum pda_branch_half half = pda_branch_half(&ends, r->b->brbe);
	struct rep_pair *ps = pair_slot(r, sample->pid, from, to, fl);

	if (ps->from == from && ps->to == to && ps->row && ps->t == t &&
	    ps->pid == sample->pid && ps->comm == comm &&
	    ps->flags == (uint32_t)(fl & PAIR_FLAGS)) {
		count_entry(r, t, sample, i, fl, half, ps->resolved);
		row_hit(r, ps->row);
		return 0;
	}
	return add_miss(r, t, event, sample, comm, i, half, ps);
}

int pda_brep_add(struct pda_brep *r, const struct pd_sample *sample,
		 const char *comm)
{
	return pda_brep_add_filtered(r, sample, comm, false);
}

int pda_brep_add_filtered(struct pda_brep *r, const struct pd_sample *sample,
			  const char *comm, bool filtered)
{
	struct table *t;
	unsigned event;

	if (r->finished)
		return PD_ERR_API;
	if (!(sample->mask & PD_SAMPLE_BRANCH_STACK) || !sample->branch.nr)
		return 0;
	t = table_of(r, sample->evsel, &event);
	if (!t)
		return PD_ERR_NOMEM;
	t->pub.nr_samples++;
	if (t->member_entries)
		t->member_entries[r->cur_m] += sample->branch.nr;
	r->cur_hidden = filtered;
	if (r->ipc || r->total) {
		const int rc = pda_bcyc_add(&r->cyc, sample, comm ? comm : "");

		if (rc < 0)
			return rc;
	}
	if (r->total) {
		struct pd_branch br;

		/* hist__account_cycles(): stacks whose newest entry has
		 * cycles, every entry's */
		pd_sample_branch(sample, 0, &br);
		for (uint64_t i = 0; br.cycles && i < sample->branch.nr; i++) {
			struct pd_branch e;

			pd_sample_branch(sample, i, &e);
			r->total_cycles += e.cycles;
		}
	}
	if (!r->pairs) {
		r->pairs = pda_zalloc(r->s, PDA_BRANCH_PAIRS * sizeof(*r->pairs));
		if (!r->pairs)
			return PD_ERR_NOMEM;
	}
	if (!comm)
		comm = "";
	for (uint64_t i = 0; i < sample->branch.nr; i++) {
		uint64_t from, to;
		const uint64_t fl = pda_branch_entry(sample, i, &from, &to);
		const int rc = add_entry(r, t, event, sample, comm, i, from, to,
					 fl);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- sorting ------------------------------------------------------- */

static int dso_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return pda_cmp_null(b, a);
	return pda_str_sort(a, b);
}

/* sort.c sort__sym_from_cmp() and _to: the address without symbols,
 * else _sort__sym_cmp() (a missing symbol last, then the start) */
static int end_cmp(const struct pda_brep_end *a, const struct pda_brep_end *b)
{
	if (!a->sym && !b->sym)
		return pda_sgn64((int64_t)(b->addr - a->addr));
	if (!a->sym || !b->sym)
		return pda_cmp_null(a->sym, b->sym);
	if (a->sym_start != b->sym_start)
		return pda_sgn64((int64_t)(b->sym_start - a->sym_start));
	return pda_str_sort(a->sym, b->sym);
}

/* > 0: row a before row b in perf's output */
static int key_cmp(enum pda_brep_key k, const struct pda_brep_row *a,
		   const struct pda_brep_row *b)
{
	switch (k) {
	case PDA_BREP_COMM:
		return pda_str_sort(a->comm, b->comm);
	case PDA_BREP_DSO:
	case PDA_BREP_DSO_TO:
		return dso_cmp(a->to.dso, b->to.dso);
	case PDA_BREP_DSO_FROM:
		return dso_cmp(a->from.dso, b->from.dso);
	case PDA_BREP_SYM:
	case PDA_BREP_SYM_TO:
		return end_cmp(&a->to, &b->to);
	case PDA_BREP_SYM_FROM:
		return end_cmp(&a->from, &b->from);
	case PDA_BREP_MISPREDICT:
		/* perf's sort__mispredict_cmp() says only "differ" (1): the
		 * order the rows came decides, below */
		return 0;
	case PDA_BREP_IN_TX:
		return (int)a->in_tx - (int)b->in_tx;
	case PDA_BREP_ABORT:
		return (int)a->abort - (int)b->abort;
	case PDA_BREP_CYCLES:
		return (a->cycles > b->cycles) - (a->cycles < b->cycles);
	case PDA_BREP_SRCLINE_FROM:
		return pda_str_sort(a->from.srcline, b->from.srcline);
	case PDA_BREP_SRCLINE_TO:
		return pda_str_sort(a->to.srcline, b->to.srcline);
	case PDA_BREP_NR_KEYS:
		break;
	}
	return 0;
}

static int row_cmp(const struct pda_brep *r, const struct row *a,
		   const struct row *b)
{
	int c = (a->pub.count > b->pub.count) - (a->pub.count < b->pub.count);

	/* a group's rows: by the first member's entries, then the next
	 * member's (perf's __hpp__sort() over the group) */
	for (unsigned m = 1; !c && m < r->sort_members; m++)
		c = (a->counts[m] > b->counts[m]) - (a->counts[m] < b->counts[m]);
	for (unsigned i = 0; !c && i < r->nr_keys; i++)
		c = key_cmp(r->keys[i], &a->pub, &b->pub);
	if (c)
		return c;
	/* rows that differ only in mispredict: perf's comparison says
	 * "before" of each row it inserts into its output tree, which it
	 * fills in the order the rows came: the last one first */
	if (r->has[PDA_BREP_MISPREDICT] && a->pub.mispred != b->pub.mispred)
		return (a->seq > b->seq) - (a->seq < b->seq);
	/* full ties keep the order they came */
	return (a->seq < b->seq) - (a->seq > b->seq);
}

static void sort_rows(const struct pda_brep *r, const struct pda_brep_row **v,
		      const struct pda_brep_row **tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_rows(r, v, tmp, mid);
	sort_rows(r, v + mid, tmp, n - mid);
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		tmp[k++] = row_cmp(r, (const struct row *)v[j],
				   (const struct row *)v[i]) > 0
				   ? v[j++]
				   : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static int table_cmp_idx(const struct table *a, const struct table *b)
{
	const unsigned ia = a->evsel ? a->evsel->idx : 0;
	const unsigned ib = b->evsel ? b->evsel->idx : 0;

	return (ia > ib) - (ia < ib);
}

/* The rows whose first entry's sample was filtered out go, in order;
 * their entries stay in the table's total, as perf's. */
static void hide_rows(struct table *t)
{
	size_t n = 0;

	for (size_t j = 0; j < t->pub.nr_rows; j++) {
		/* pub is the row's first member */
		const struct row *w = (const struct row *)(uintptr_t)t->rows[j];

		if (!w->hidden)
			t->rows[n++] = t->rows[j];
	}
	t->pub.nr_rows = n;
}

int pda_brep_finish(struct pda_brep *r)
{
	size_t most = 0;
	const struct pda_brep_row **tmp;

	if (r->finished)
		return 0;
	r->finished = true;
	/* the capture's event order (insertion sort: a few events) */
	for (size_t i = 1; i < r->nr_tables; i++) {
		struct table t = r->tables[i];
		size_t j = i;

		for (; j > 0 && table_cmp_idx(&r->tables[j - 1], &t) > 0; j--)
			r->tables[j] = r->tables[j - 1];
		r->tables[j] = t;
	}
	for (size_t i = 0; i < r->nr_tables; i++)
		if (r->tables[i].pub.nr_rows > most)
			most = r->tables[i].pub.nr_rows;
	tmp = most ? pda_zalloc(r->s, most * sizeof(*tmp)) : NULL;
	if (most && !tmp)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < r->nr_tables; i++) {
		struct table *t = &r->tables[i];

		r->sort_members = t->pub.nr_members;
		for (size_t j = 0; t->pub.nr_members > 1 && j < t->pub.nr_rows;
		     j++) {
			struct row *w = (struct row *)(uintptr_t)t->rows[j];

			w->counts[0] = w->pub.count;
			w->pub.counts = w->counts;
		}
		sort_rows(r, t->rows, tmp, t->pub.nr_rows);
		hide_rows(t);
		for (size_t j = 0; r->ipc && j < t->pub.nr_rows; j++) {
			/* pub is the row's first member */
			struct row *w = (struct row *)(uintptr_t)t->rows[j];
			int rc = 0;

			if (!w->to_ipc)
				continue;
			if (!w->to_ipc->done)
				rc = compute_ipc(r, w->to_ipc, w->to_loc);
			if (rc < 0) {
				pda_free(r->s, (void *)tmp);
				return rc;
			}
			w->pub.ipc = w->to_ipc->ipc;
			w->pub.ipc_cover = w->to_ipc->cover;
		}
		t->pub.rows = t->rows;
	}
	pda_free(r->s, (void *)tmp);
	return 0;
}

size_t pda_brep_nr_tables(const struct pda_brep *r)
{
	return r->finished ? r->nr_tables : 0;
}

const struct pda_brep_table *pda_brep_table(const struct pda_brep *r,
					    size_t i)
{
	return i < r->nr_tables ? &r->tables[i].pub : NULL;
}

unsigned pda_brep_nr_keys(const struct pda_brep *r)
{
	return r->nr_keys;
}

enum pda_brep_key pda_brep_key(const struct pda_brep *r, unsigned i)
{
	return r->keys[i];
}

const struct pda_brep_stats *pda_brep_stats(const struct pda_brep *r)
{
	return &r->st;
}

void pda_brep_resolved(const struct pda_brep *r, uint64_t *resolved,
		       uint64_t *entries)
{
	*resolved = r->nr_resolved;
	/* of the entries with both ends recorded */
	*entries = r->nr_entries - r->nr_half;
}

/* ---- blocks (--total-cycles) ---------------------------------------- */

/* map__srcline() of the symbol's offset off: "file:LINE" (basename) from
 * the line table, else "sym+OFF" */
static int block_line(struct pda_brep *r, const struct pda_bcyc_sym *si,
		      const struct loc_ent *e, uint64_t off, const char **out)
{
	struct pda_elf *elf = pda_branch_elf(e);
	const char *file = NULL;
	unsigned line = 0;
	char buf[512];
	int rc = elf ? pda_elf_srcline(r->s, elf, si->start + off, &file,
				       &line)
		     : PD_ERR_NOTFOUND;

	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc == 0 && file && line)
		snprintf(buf, sizeof(buf), "%s:%u", basename_of(file), line);
	else
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, si->name, off);
	return intern(r, buf, out);
}

/* perf's block_info__cmp(): the order blocks enter perf's tree, by
 * name, then start and end; perf's tree puts a new entry left of one
 * that compares below it, so its walk runs backward by name */
static int block_tree_cmp(const struct pda_brep_block *a,
			  const struct pda_brep_block *b)
{
	const int c = strcmp(a->sym, b->sym);

	if (c)
		return -c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int block_tree_qcmp(const void *a, const void *b)
{
	return block_tree_cmp(a, b);
}

/* A block and its share in hundred-thousandths, cut, as perf's
 * block_total_cycles_pct_sort() compares them. */
struct block_rank {
	int64_t key;
	size_t idx;
};

static int block_rank_cmp(const void *a, const void *b)
{
	const struct block_rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int add_block(struct pda_brep *r, struct pda_brep_blocks *out,
		     size_t *alloc, const struct pda_brep_block *nb)
{
	if (PDC_GROW(pda_session_alloc(r->s), out->blocks, *alloc,
		     out->nr + 1, (size_t)1 << 30) < 0)
		return PD_ERR_NOMEM;
	out->blocks[out->nr++] = *nb;
	return 0;
}

/* perf's two trees: blocks of one symbol name, start and end are one
 * (its hists__add_entry_block() merges them), walked in tree order into
 * the output tree by share, a tie after the blocks before it. */
static int order_blocks(struct pda_brep *r, struct pda_brep_blocks *out)
{
	struct pda_brep_block *sorted;
	struct block_rank *rk;
	size_t n = 0;

	if (!out->nr)
		return 0;
	qsort(out->blocks, out->nr, sizeof(*out->blocks), block_tree_qcmp);
	for (size_t j = 0; j < out->nr; j++)
		if (!n || block_tree_cmp(&out->blocks[n - 1],
					 &out->blocks[j]) != 0)
			out->blocks[n++] = out->blocks[j];
	out->nr = n;
	rk = pda_zalloc(r->s, n * sizeof(*rk));
	sorted = pda_zalloc(r->s, n * sizeof(*sorted));
	if (!rk || !sorted) {
		pda_free(r->s, rk);
		pda_free(r->s, sorted);
		return PD_ERR_NOMEM;
	}
	for (size_t j = 0; j < n; j++) {
		const double share = out->total_cycles
					     ? (double)out->blocks[j].cycles /
						       (double)out->total_cycles
					     : 0.0;

		rk[j].key = (int64_t)(share * 100000.0);
		rk[j].idx = j;
	}
	qsort(rk, n, sizeof(*rk), block_rank_cmp);
	for (size_t j = 0; j < n; j++)
		sorted[j] = out->blocks[rk[j].idx];
	pda_free(r->s, out->blocks);
	pda_free(r->s, rk);
	out->blocks = sorted;
	return 0;
}

/* block_info__process_sym(): a row's target symbol's blocks; *avg their
 * average cycles summed */
static int sym_blocks(struct pda_brep *r, struct pda_brep_blocks *out,
		      size_t *alloc, const struct row *w, uint64_t *avg)
{
	const struct pda_bcyc_sym *si = w->to_ipc;
	const unsigned nc = r->cyc.cntr ? r->cyc.cntr->nr : 0;

	*avg = 0;
	if (!si || !si->ch || !w->pub.to.sym)
		return 0;
	for (uint64_t o = 0; o < si->size; o++) {
		const struct pda_bcyc_slot *ch = &si->ch[o];
		struct pda_brep_block nb = {
			.sym = si->name, .dso = w->pub.to.dso,
			.start = ch->start, .end = o,
			.cycles = ch->cycles_aggr, .nr = ch->num_aggr,
			.cntr = nc && si->cntr ? &si->cntr[o * nc] : NULL};
		int rc;

		if (!ch->num_aggr)
			continue;
		*avg += ch->cycles_aggr / ch->num_aggr;
		if (!nb.dso)
			nb.dso = "[unknown]";
		rc = block_line(r, si, w->to_loc, nb.start, &nb.start_line);
		if (rc == 0)
			rc = block_line(r, si, w->to_loc, o, &nb.end_line);
		if (rc == 0)
			rc = add_block(r, out, alloc, &nb);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pda_brep_blocks(struct pda_brep *r, size_t i, struct pda_brep_blocks *out)
{
	const struct table *t;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	if (!r->finished || !r->total || i >= r->nr_tables)
		return PD_ERR_API;
	t = &r->tables[i];
	out->total_cycles = r->total_cycles;
	for (size_t j = 0; j < t->pub.nr_rows; j++) {
		/* pub is the row's first member */
		const struct row *w = (const struct row *)(uintptr_t)t->rows[j];
		uint64_t avg;
		const int rc = sym_blocks(r, out, &alloc, w, &avg);

		if (rc < 0) {
			pda_brep_blocks_release(r, out);
			return rc;
		}
		out->block_cycles += avg;
	}
	{
		const int rc = order_blocks(r, out);

		if (rc < 0)
			pda_brep_blocks_release(r, out);
		return rc;
	}
}

void pda_brep_blocks_release(struct pda_brep *r, struct pda_brep_blocks *b)
{
	pda_free(r->s, b->blocks);
	memset(b, 0, sizeof(*b));
}
