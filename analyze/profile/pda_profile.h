/*
 * pda_profile.h - the structured profile: what fold, flame, diff and the
 * folded-text reader and writer exchange, instead of folded text.
 */
#ifndef PDA_PROFILE_H
#define PDA_PROFILE_H

#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A profile is a set of tables, shaped like pprof's Profile message and
 * the Firefox Profiler's processed format, that refer to one another by
 * 32-bit ids.  Id 0 of every table means "none" (pprof's convention), so
 * a zeroed field is a valid reference.
 *
 *   strings    interned bytes (id 0: "").  Every name below is one.
 *   mappings   a DSO or other mapped object: its path, and where it was
 *              mapped when known (Firefox's resource table, pprof's
 *              Mapping).  Interned by all fields.
 *   functions  a function's name and source file (pprof's Function,
 *              Firefox's func table).  Interned by both.
 *   locations  one frame as it is drawn: its function, its mapping, an
 *              address (absolute, or an offset in the mapping's file
 *              with PDA_LOC_DSO_OFFSET), a source line, flags (kernel,
 *              user, JIT, unknown, inlined, a root pseudo-frame) and its
 *              label: the frame's name as folded text writes it, with
 *              pdtool fold's naming rules ("_[k]", "dso+0x1f",
 *              "func:file:line") applied once when the location was
 *              made.  Interned by all fields (Firefox's frame table).
 *   stacks     a prefix tree: a stack is (prefix, location), its prefix
 *              the stack of its caller (0: the location is a root), so
 *              stacks are stored ROOT FIRST and every stack of a sample
 *              shares its callers' entries (Firefox's stack table).  A
 *              prefix's id is always smaller than its callees' ids.
 *              Interned by (prefix, location).
 *   samples    one row per distinct stack that has values, in the order
 *              the stacks first got values: the stack (0: an empty
 *              stack) and nr_columns values, summed (pprof's Sample
 *              aggregated).
 *   columns    what each value counts: an event name and a unit
 *              ("samples" or "period"), as many as the caller asked for
 *              (perf report shows one pair per event).
 *
 * Invariants: every id stored in a table refers to an earlier entry of
 * its table (or 0); the sample rows' stacks are distinct; a row's values
 * never wrap (an addition that would is refused with PD_ERR_FORMAT).
 *
 * Memory: all tables are arrays grown with PDC_GROW, strings live in
 * the profile's intern table (pdc_intern), hashing is pdc_hash; nothing
 * refers to a session, so a profile outlives the session that resolved
 * it.  Adding allocates only for what is new.  Not thread-safe.
 *
 *	struct pda_profile *p;
 *	PDA_PROFILE_OPTS(o, .nr_columns = 2);
 *	pda_profile_new(&o, &p);
 *	pda_profile_set_column(p, 0, "cycles", "samples");
 *	pda_profile_add_folded(p, "main;work 3\n", 12, 0);
 *	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
 *		row = pda_profile_sample(p, i);
 *		for (uint32_t s = row->stack; s; s = pda_profile_stack(p, s)->prefix)
 *			(leaf to root) pda_profile_loc(p, pda_profile_stack(p, s)->loc);
 *	}
 *	pda_profile_free(p);
 */
struct pda_profile;

#define PDA_PROFILE_MAX_COLUMNS 256
#define PDA_PROFILE_MAX_ITEMS (UINT32_MAX / 2) /* entries of a table */
#define PDA_PROFILE_MAX_DEPTH (1u << 20)	/* frames of a stack */

struct pda_profile_opts {
	size_t sz;		/* by PDA_PROFILE_OPTS */
	unsigned nr_columns;	/* values per sample row, 1..MAX_COLUMNS;
				 * 0: 1 */
	const struct pd_alloc *alloc;
	unsigned max_decimals;	/* pda_profile_add_folded() takes counts
				 * with up to this many decimals ("1.5",
				 * as flamegraph.pl), 0..PDA_PROFILE_MAX_
				 * DECIMALS; 0: whole numbers only */
};

#define PDA_PROFILE_MAX_DECIMALS 9

#define PDA_PROFILE_OPTS(name, ...)                                         \
	struct pda_profile_opts name = { .sz = sizeof(struct pda_profile_opts), \
					 __VA_ARGS__ }

/* @return 0 and *out, or PD_ERR_API (bad opts) or PD_ERR_NOMEM with
 * *out = NULL.  Free with pda_profile_free(). */
int pda_profile_new(const struct pda_profile_opts *opts,
		    struct pda_profile **out);
/* Accepts NULL. */
void pda_profile_free(struct pda_profile *p);

unsigned pda_profile_nr_columns(const struct pda_profile *p);
/* The last error's detail.  Never NULL. */
const char *pda_profile_errmsg(const struct pda_profile *p);

/* ---- strings -------------------------------------------------------- */

/* The id of len bytes of s (need not be NUL-terminated), added if new.
 * @return 0 or PD_ERR_NOMEM (*id unchanged). */
int pda_profile_intern(struct pda_profile *p, const char *s, size_t len,
		       uint32_t *id);
/* Strings, "" included: ids run 0 .. nr - 1. */
size_t pda_profile_nr_strs(const struct pda_profile *p);
/* String id's bytes, NUL-terminated, and its length in *len (may be
 * NULL); "" for an unknown id.  Valid until pda_profile_free(). */
const char *pda_profile_str(const struct pda_profile *p, uint32_t id,
			    size_t *len);

/* ---- columns --------------------------------------------------------- */

struct pda_profile_column {
	uint32_t event;		/* string: "cycles"; 0 unknown */
	uint32_t unit;		/* string: "samples" or "period" */
};

/* Name column col.  @return 0, PD_ERR_API (col out of range) or
 * PD_ERR_NOMEM. */
int pda_profile_set_column(struct pda_profile *p, unsigned col,
			   const char *event, const char *unit);
/* Column col, or NULL out of range.  Valid until the next call on p. */
const struct pda_profile_column *
pda_profile_column(const struct pda_profile *p, unsigned col);

/* ---- mappings, functions, locations ---------------------------------- */

struct pda_profile_mapping {
	uint32_t name;		/* string: the path as recorded,
				 * "[kernel.kallsyms]" */
	uint32_t build_id;	/* string: hex; 0 unknown */
	uint64_t start, limit;	/* mapped address range; 0, 0 unknown */
	uint64_t offset;	/* file offset of start */
};

struct pda_profile_func {
	uint32_t name;		/* string: the function's name as
				 * resolved (demangled unless asked not
				 * to), without fold's suffixes */
	uint32_t file;		/* string: its source file; 0 unknown */
};

enum pda_loc_flags {
	PDA_LOC_KERNEL = 1u << 0,	/* a kernel address */
	PDA_LOC_USER = 1u << 1,		/* a user-space address */
	PDA_LOC_JIT = 1u << 2,		/* JIT code (a perf-PID.map) */
	PDA_LOC_UNKNOWN = 1u << 3,	/* no symbol, or no map */
	PDA_LOC_INLINED = 1u << 4,	/* an inlined call, from DWARF */
	PDA_LOC_ROOT = 1u << 5,		/* a pseudo-frame naming the
					 * process or thread ("comm-PID") */
	PDA_LOC_DSO_OFFSET = 1u << 6,	/* address is an offset in the
					 * mapping's file, not an ip */
};

struct pda_profile_loc {
	uint32_t label;		/* string: the frame as folded text
				 * writes it */
	uint32_t func;		/* function id; 0 none */
	uint32_t mapping;	/* mapping id; 0 none (no map) */
	uint32_t line;		/* source line; 0 unknown */
	uint64_t address;	/* see PDA_LOC_DSO_OFFSET; 0 unknown */
	unsigned flags;		/* pda_loc_flags */
};

/* Find or add.  @return 0 and *id (>= 1), or PD_ERR_NOMEM (the profile
 * unchanged) or PD_ERR_API (an id that is not in its table). */
int pda_profile_add_mapping(struct pda_profile *p,
			    const struct pda_profile_mapping *m, uint32_t *id);
int pda_profile_add_func(struct pda_profile *p,
			 const struct pda_profile_func *f, uint32_t *id);
int pda_profile_add_loc(struct pda_profile *p,
			const struct pda_profile_loc *l, uint32_t *id);

/* Entry id of a table, or NULL (0 or out of range).  Valid until the
 * next call that adds to p. */
const struct pda_profile_mapping *
pda_profile_mapping(const struct pda_profile *p, uint32_t id);
const struct pda_profile_func *pda_profile_func(const struct pda_profile *p,
						uint32_t id);
const struct pda_profile_loc *pda_profile_loc(const struct pda_profile *p,
					      uint32_t id);
/* Entries per table, 0 included: ids run 1 .. nr - 1. */
size_t pda_profile_nr_mappings(const struct pda_profile *p);
size_t pda_profile_nr_funcs(const struct pda_profile *p);
size_t pda_profile_nr_locs(const struct pda_profile *p);

/*
 * The location for a frame known only by its folded name (folded text):
 * the label is name, the function name without fold's "_[k]" (kernel),
 * "_[j]" (JIT) or "_[i]" (inlined) suffix, which also gives the flags;
 * "[unknown]" (with a suffix or not) is PDA_LOC_UNKNOWN.  Cached by
 * name, so a name costs one lookup after its first.  Same returns.
 */
int pda_profile_name_loc(struct pda_profile *p, const char *name, size_t len,
			 uint32_t *id);

/* ---- stacks and samples ---------------------------------------------- */

struct pda_profile_stack {
	uint32_t prefix;	/* the caller's stack; 0: loc is a root */
	uint32_t loc;		/* location id */
	uint32_t depth;		/* frames, this one included (>= 1) */
};

/* The stack of loc called from prefix (0: loc is a root), found or
 * added.  @return 0 and *id (>= 1), PD_ERR_NOMEM or PD_ERR_API (an id
 * not in its table, or deeper than PDA_PROFILE_MAX_DEPTH). */
int pda_profile_add_stack(struct pda_profile *p, uint32_t prefix,
			  uint32_t loc, uint32_t *id);
/*
 * The same for a stack the caller knows is not in p yet (a builder that
 * walks stacks in an order that tells it, as pda_fold_profile() does):
 * appended without a lookup.  Adding a stack that is there already
 * breaks the table's uniqueness.  The lookup table is rebuilt on the
 * next pda_profile_add_stack().  Same returns.
 */
int pda_profile_append_stack(struct pda_profile *p, uint32_t prefix,
			     uint32_t loc, uint32_t *id);

/*
 * Room for nr_stacks stacks and nr_rows sample rows in all, exactly, for
 * a builder that knows how many it adds (pda_fold_profile()): a big
 * profile then takes what it holds, not up to twice that.  Adding past
 * it grows as before.  @return 0 or PD_ERR_NOMEM (p unchanged).
 */
int pda_profile_reserve(struct pda_profile *p, size_t nr_stacks,
			size_t nr_rows);

/* Stack id, or NULL (0 or out of range).  Valid until the next call
 * that adds to p. */
const struct pda_profile_stack *
pda_profile_stack(const struct pda_profile *p, uint32_t id);
size_t pda_profile_nr_stacks(const struct pda_profile *p);

/*
 * Add values[0 .. nr_columns) to stack's sample row (0: the empty
 * stack), making the row when the stack has none.  @return 0,
 * PD_ERR_NOMEM, PD_ERR_API (a bad stack id) or PD_ERR_FORMAT (a column's
 * total would pass 64 bits); on error nothing is added.
 */
int pda_profile_add_sample(struct pda_profile *p, uint32_t stack,
			   const uint64_t *values);

/*
 * The same for nr columns from first: values[0 .. nr) go to columns
 * first .. first + nr - 1, the others unchanged (a sample of one event
 * among many).  Same returns; PD_ERR_API also for columns out of range.
 */
int pda_profile_add_values(struct pda_profile *p, uint32_t stack,
			   unsigned first, unsigned nr, const uint64_t *values);

/*
 * Add nr columns after the last one, 0 in every row (an event first
 * seen after rows were added: events arrive with the data in a pipe).
 * @return 0 and *first, the first new column's index; PD_ERR_API (nr 0,
 * or past PDA_PROFILE_MAX_COLUMNS) or PD_ERR_NOMEM, p unchanged.  Rows'
 * values and pda_profile_totals() move: earlier pointers are invalid.
 */
int pda_profile_add_columns(struct pda_profile *p, unsigned nr,
			    unsigned *first);

/* Each column's sum over the rows (nr_columns of them), so that no sum
 * of a column's values can wrap.  Valid until the next call on p. */
const uint64_t *pda_profile_totals(const struct pda_profile *p);

struct pda_profile_sample {
	uint32_t stack;		/* 0: the empty stack */
	const uint64_t *values;	/* nr_columns of them */
};

/* The rows in the order their stacks first got values.  Row i, or NULL
 * out of range; valid until the next call that adds to p. */
size_t pda_profile_nr_samples(const struct pda_profile *p);
const struct pda_profile_sample *
pda_profile_sample(const struct pda_profile *p, size_t i);

/*
 * Stack's locations root first into locs (room for the stack's depth,
 * pda_profile_stack()->depth), @return how many (0 for stack 0).
 */
size_t pda_profile_stack_locs(const struct pda_profile *p, uint32_t stack,
			      uint32_t *locs);

/* ---- folded text ------------------------------------------------------ */

/*
 * The folded-text reader: one line, "frame;frame;... COUNT" (root first,
 * a trailing newline allowed, the count a whole number after the last
 * blank, as stackcollapse-perf.pl, perf script report stackcollapse and
 * pdtool fold write it), added as a sample of count in column col (the
 * other columns 0): each frame a location by pda_profile_name_loc().  An
 * empty stack (" 5") is the empty stack's row.  A count of 0 counts
 * nothing: the stack is made, but no row (so the rows keep the order in
 * which stacks were first counted, as the flame and diff readers did).
 * @return 0 (added), 1 (blank or not a folded line: nothing added) or a
 * negative pd_err as pda_profile_add_sample() (PD_ERR_NOMEM also for a
 * stack of more than PDA_PROFILE_MAX_DEPTH frames), with the detail in
 * pda_profile_errmsg().
 */
int pda_profile_add_folded(struct pda_profile *p, const char *line,
			   size_t len, unsigned col);

/*
 * With max_decimals, the counts pda_profile_add_folded() added are in
 * units of 10^-decimals: the most decimals a line had (digits past
 * max_decimals are dropped).  A line with more decimals than the lines
 * before multiplies the values already added; a total past 64 bits is
 * PD_ERR_FORMAT, as in pda_profile_add_values().
 */
unsigned pda_profile_decimals(const struct pda_profile *p);

/*
 * The one folded-line splitter, for the readers that take frames as
 * strings (pda_flame_add_folded, pda_diff_add_folded): splits line into
 * names root first in sp->frames/sp->lens (pointing into line) and its
 * count.  Init with PDA_FOLDED_SPLIT_INIT, release with
 * pda_folded_split_release().
 * @return 0, 1 (not a folded line) or PD_ERR_NOMEM (too_many set when
 * the line has more than PDA_PROFILE_MAX_DEPTH frames).
 */
struct pda_folded_split {
	const char **frames;
	size_t *lens;
	size_t nr, alloc;
	uint64_t count;		/* in units of 10^-decimals */
	bool too_many;
	unsigned max_decimals;	/* set by the caller: a count may have
				 * up to this many decimals ("1.5", or
				 * "2." with none); 0: whole numbers only */
	unsigned decimals;	/* the count's decimals */
};

#define PDA_FOLDED_SPLIT_INIT { NULL, NULL, 0, 0, 0, false, 0, 0 }

int pda_folded_split(const struct pd_alloc *alloc,
		     struct pda_folded_split *sp, const char *line, size_t len);
void pda_folded_split_release(const struct pd_alloc *alloc,
			      struct pda_folded_split *sp);

#ifdef __cplusplus
}
#endif

#endif /* PDA_PROFILE_H */
