/*
 * pda_branch_rep.h - perf report's branch mode (perf report
 * --branch-stack): every entry of every branch stack is a row's hit,
 * rows keyed by perf 6.1's branch sort keys, one table an event (or an
 * event group, its members side by side), shares of the event's branch
 * entries.
 *
 *	PDA_BREP_OPTS(o, .keys = keys, .nr_keys = n);
 *	pda_brep_new(s, &o, &r);
 *	(every sample, on the session's thread)
 *		pda_brep_add(r, item->sample, item->comm);
 *	pda_brep_finish(r);
 *	tables and rows
 *	pda_brep_free(r);
 *
 * Where perf 6.1 is wrong, this is right (pdtool-report(1) says so): an
 * entry that says neither mispredicted nor predicted is N/A, not the
 * row above's value (perf's printer keeps the last value in a static);
 * entries that differ only in mispredict never split a row (perf's
 * comparison says only "differ"); the branch statistics count each
 * entry's own type, not its row's first entry's.
 *
 * Not thread-safe: one thread at a time, the session's.
 */
#ifndef PDA_BRANCH_REP_H
#define PDA_BRANCH_REP_H

#include "pda_branch.h"

struct pda_brep;

enum pda_brep_key {
	PDA_BREP_COMM,
	PDA_BREP_DSO,	       /* the target's (perf's al is the target) */
	PDA_BREP_SYM,	       /* the target's */
	PDA_BREP_DSO_FROM,
	PDA_BREP_DSO_TO,
	PDA_BREP_SYM_FROM,
	PDA_BREP_SYM_TO,
	PDA_BREP_MISPREDICT,
	PDA_BREP_IN_TX,
	PDA_BREP_ABORT,
	PDA_BREP_CYCLES,
	PDA_BREP_SRCLINE_FROM,
	PDA_BREP_SRCLINE_TO,
	PDA_BREP_NR_KEYS
};

#define PDA_BREP_MAX_KEYS 16

/* A key by perf 6.1's name ("symbol_from", also "sym" for "symbol"):
 * 0 and *key, or -1. */
int pda_brep_key_by_name(const char *name, enum pda_brep_key *key);
/* perf's column header ("Source Symbol"). */
const char *pda_brep_key_header(enum pda_brep_key key);
const char *pda_brep_key_name(enum pda_brep_key key);

struct pda_brep_opts {
	size_t sz; /* by PDA_BREP_OPTS */
	const enum pda_brep_key *keys; /* NULL: perf 6.1's default, comm,
					* dso_from, symbol_from, symbol_to,
					* cycles */
	unsigned nr_keys;
	/* perf's ipc_lbr column (added when --sort names a "symbol" key):
	 * each row's target symbol's IPC and coverage, as perf 6.1's
	 * annotation counts them from the entries' cycles */
	bool ipc;
	/* perf's --total-cycles: every branch's cycles accounted in the
	 * symbols' cycle histograms for pda_brep_blocks(), with the branch
	 * counters of cntr (NULL or none: not counted), split by env's
	 * groups; both must outlive the report */
	bool total_cycles;
	const struct pda_brcntr *cntr;
	const struct pd_env *env;
	/* perf's group view (report --group): file's events side by side,
	 * a table per group with a column of shares per member (each of
	 * its own entries).  PDA_BREP_GROUP_RECORDED: the groups that
	 * groups (file's GROUP_DESC, NULL: none) records, as perf shows a
	 * capture that recorded groups by default; NONE: a table per event
	 * (--no-group); ALL: every event of file in one (--group on events
	 * recorded apart).  file and groups must outlive the report. */
	enum pda_brep_group { PDA_BREP_GROUP_RECORDED,
			      PDA_BREP_GROUP_NONE,
			      PDA_BREP_GROUP_ALL } group;
	const struct pd_file *file;
	const struct pd_env *groups;
};

#define PDA_BREP_OPTS(name, ...)                                            \
	struct pda_brep_opts name = { .sz = sizeof(struct pda_brep_opts),   \
				      __VA_ARGS__ }

/* One end of a row's branch, as the keys show it. */
struct pda_brep_end {
	const char *dso;     /* short name; NULL: no map ("[unknown]") */
	const char *sym;     /* NULL: no symbol: map_ip is shown */
	uint64_t sym_start;  /* in the DSO's address space */
	uint64_t addr;	     /* as recorded */
	uint64_t map_ip;     /* perf's al_addr, what it shows without a
			      * symbol */
	char level;	     /* 'k' kernel, '.' user, 'H' no map (perf's
			      * level after its guest lookup) */
	const char *srcline; /* with a srcline key */
	bool missing;	     /* a BRBE half record's missing end: sym
			      * "(not recorded)", dso "[not recorded]",
			      * level '?' */
};

struct pda_brep_row {
	const char *comm;
	struct pda_brep_end from, to;
	char mispred;	/* 'Y', 'N'; 0 neither said */
	bool in_tx, abort;
	unsigned cycles;
	uint64_t count; /* entries (of the first member, in a group) */
	/* in a table of several members (pda_brep_table.nr_members): each
	 * member's entries, NULL otherwise */
	const uint64_t *counts;
	/* with opts.ipc, of the target's symbol (0 without one, or without
	 * cycles): instructions per cycle over the basic blocks that end in
	 * it, and the share of its instructions they cover (percent) */
	double ipc, ipc_cover;
};

struct pda_brep_table {
	const char *event;   /* "a"; a group's "anon group { a, b }" (as
			      * recorded) or "a, b" (PDA_BREP_GROUP_ALL) */
	uint64_t nr_entries; /* what the shares are of (all members') */
	uint64_t nr_samples; /* samples with a branch stack */
	unsigned nr_members; /* events side by side: 1 but in a group */
	const uint64_t *member_entries; /* each member's entries, what its
					 * column's shares are of */
	const char *const *member_names; /* each member's event name */
	bool leads_group;    /* a recorded group's leader shown alone */
	size_t nr_rows;
	const struct pda_brep_row *const *rows; /* sorted */
};

/* @return 0 and *out, PD_ERR_API (bad opts) or PD_ERR_NOMEM.  Session s
 * must outlive the report (the session's opts.srcline for srcline
 * keys). */
int pda_brep_new(struct pda_session *s, const struct pda_brep_opts *opts,
		 struct pda_brep **out);
/* Accepts NULL. */
void pda_brep_free(struct pda_brep *r);

/* Add a sample's branch stack, its ends resolved in the session's state
 * (from the capture's sample callback; comm the item's).  @return 0 or a
 * negative pd_err. */
int pda_brep_add(struct pda_brep *r, const struct pd_sample *sample,
		 const char *comm);

/*
 * The same for a sample that perf's sample filters (--comms, --dsos,
 * --symbols, --pid, --tid) leave out: its entries count in their rows
 * and the totals, and a row whose first entry came from such a sample
 * is not shown, as perf's hist entry keeps its first sample's filter
 * state (al->filtered).  @return 0 or a negative pd_err.
 */
int pda_brep_add_filtered(struct pda_brep *r, const struct pd_sample *sample,
			  const char *comm, bool filtered);

/* Sort the rows as perf 6.1 prints them: entries, then each key's
 * order, then the order they came.  @return 0 or PD_ERR_NOMEM. */
int pda_brep_finish(struct pda_brep *r);

/* After pda_brep_finish: the tables in the capture's event order,
 * events without branch entries left out.  Valid until pda_brep_free. */
size_t pda_brep_nr_tables(const struct pda_brep *r);
const struct pda_brep_table *pda_brep_table(const struct pda_brep *r,
					    size_t i);
unsigned pda_brep_nr_keys(const struct pda_brep *r);
enum pda_brep_key pda_brep_key(const struct pda_brep *r, unsigned i);
/* perf's "Branch Statistics" (util/branch.c branch_type_count()): the
 * entries with a recorded type (TYPE_SAVE) and a from address, by type
 * and extended type, conditional ones forward and backward, and those
 * crossing a 2 MiB, else a 4 KiB boundary.  perf 6.1 counts each entry
 * with the flags and ends of its row's first entry; these are each
 * entry's own. */
struct pda_brep_stats {
	uint64_t types[PDA_BR_NR_TYPES];
	uint64_t new_types[PDA_BR_NR_NEW_TYPES];
	uint64_t cond_fwd, cond_bwd, cross_4k, cross_2m;
};
const struct pda_brep_stats *pda_brep_stats(const struct pda_brep *r);

/*
 * perf's block view (report --total-cycles, util/block-info.c): each
 * basic block a branch with cycles ended, in the target symbols of a
 * table's rows: where it ends, where it starts (the longest block that
 * ends there, as annotate keeps it; the symbol's start when no entry
 * told it), its cycles summed over the entries that ended it and their
 * average.
 */
struct pda_brep_block {
	const char *sym;      /* the symbol's name */
	const char *dso;      /* its DSO's short name */
	uint64_t start, end;  /* offsets in the symbol */
	/* perf's map__srcline() of both ends: "file:LINE" or "sym+OFF" */
	const char *start_line, *end_line;
	uint64_t cycles;      /* summed over the entries that ended it */
	uint64_t nr;	      /* those entries */
	const uint64_t *cntr; /* with opts.cntr: its counters' sums (one
			       * per column), NULL without */
};

struct pda_brep_blocks {
	uint64_t total_cycles; /* every entry's cycles, of the stacks whose
				* newest entry has cycles: Sampled Cycles%'s
				* whole */
	/* the blocks' average cycles summed once per row of the table
	 * whose target is their symbol (as perf adds them up per hist
	 * entry): Avg Cycles%'s whole */
	uint64_t block_cycles;
	size_t nr;
	struct pda_brep_block *blocks; /* by cycles, as perf sorts them */
};

/*
 * After pda_brep_finish, with opts.total_cycles: the blocks of table i's
 * rows' target symbols into *out (pda_brep_blocks_release() frees them).
 * @return 0, PD_ERR_API or PD_ERR_NOMEM.
 */
int pda_brep_blocks(struct pda_brep *r, size_t i, struct pda_brep_blocks *out);
void pda_brep_blocks_release(struct pda_brep *r, struct pda_brep_blocks *b);

/* Entries of ends that did not resolve to a symbol, of all entries. */
void pda_brep_resolved(const struct pda_brep *r, uint64_t *resolved,
		       uint64_t *entries);

#endif /* PDA_BRANCH_REP_H */
