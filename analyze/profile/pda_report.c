/*
 * pda_report.c - perf report's histogram (pda_report.h).
 *
 * The per-sample path: a sample's stack becomes a summary, the list of
 * entries it adds to (its own first, then the distinct entries of its
 * callchain), made once per pipeline memo slot and reused for every
 * later sample of the slot; adding is then a few additions per entry.
 * With the cpu or parallelism key a summary lists entries without a cpu
 * and parallelism, which each sample maps to its own entry through a
 * hash: neither is the stack's, so a memo slot cannot keep them.
 *
 * Entries are found by their key (struct ekey), compared as bytes: its
 * strings are interned in the report, so their pointers stand for them,
 * and the fields of keys not asked for stay zero.  The key is what perf
 * merges hist entries by (each key's collapse comparison, or its cmp
 * without one: sort.c); what perf shows of an entry that is no part of
 * its key (the level, a thread's comm under the pid key) comes from the
 * entry's first sample.
 */
#include "pda_base_int.h"
#include "pda_profile.h"
#include "pda_report.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default parent pattern, as perf's sort.c. */
#define DEFAULT_PARENT "^sys_|^do_page_fault"
/* The ips make_summary() remembers of one stack (a power of 2). */
#define SEEN_SLOTS 1024
#define SEEN_PROBES 4
/* A cpu not yet given: the entries a summary lists with the cpu key. */
#define NO_CPU INT32_MIN

#define PERF_TYPE_TRACEPOINT 2 /* perf_event.h */

/* A sample's memory key values: the bits perf's memory keys compare
 * (0 for keys not asked for).  Compared as bytes. */
struct mkey {
	const char *ddso;	/* DADDR_DSO: the data object, NULL none */
	uint64_t weight;	/* LOCAL_WEIGHT, WEIGHT */
	uint64_t lvl, snoop, tlb, lock, blk; /* data_src's fields */
	uint64_t daddr;		/* DADDR_SYM */
	uint64_t phys;		/* PHYS_DADDR */
	uint32_t ins_lat;	/* LOCAL_INS_LAT, INS_LAT */
	/* DCACHELINE: perf's sort__dcacheline_cmp() fields, compared in
	 * this order: the cpumode (and no map) in dcl_mode, the map's DSO
	 * id, the process (private anonymous user memory only), the line */
	uint32_t dcl_pid;
	uint32_t dcl_mode;	/* cpumode << 1 | no map */
	uint32_t dcl_maj, dcl_min;
	int32_t socket;		/* SOCKET */
	uint64_t dcl_ino, dcl_gen;
	uint64_t dcl;		/* the line of the map_ip'd address */
	uint64_t time;		/* TIME: cut to the quantum */
	uint64_t txn;		/* TRANSACTION */
	uint64_t code_page, data_page; /* CODE_PAGE, DATA_PAGE */
	uint64_t cgroup;	/* CGROUP: PERF_SAMPLE_CGROUP's id */
	const char *trace;	/* TRACE: a tracepoint's text, NULL none */
	struct pda_nsid cgns;	/* CGROUP_ID: the thread's namespace */
};

_Static_assert(sizeof(struct mkey) == 2 * sizeof(void *) + 168,
	       "a memory key is compared as bytes: no padding");

/* What a row made by a sample shows of its memory keys. */
struct mshow {
	uint64_t data_src, daddr_off;
	const char *daddr_sym;
	bool object;		/* daddr_sym is a data object's */
	char level;		/* the sample's cpumode's, as perf's al->level */
	char dcl_level;		/* dcacheline's: level, 's' or 'X' */
	uint64_t dcl_off;	/* dcacheline's offset in daddr_sym */
};

struct ekey {
	const char *comm;	/* COMM: the comm as shown */
	const char *dso;	/* DSO */
	const char *sym;	/* SYM: the symbol; NULL none */
	const char *sym_dso;	/* SYM with a symbol: its DSO */
	const char *srcline;	/* SRCLINE */
	const char *srcfile;	/* SRCFILE */
	const char *parent;	/* PARENT; NULL "[other]" */
	const char *type;	/* TYPE, TYPEOFF */
	const char *typeoff;	/* TYPEOFF: type, offset and member */
	const char *typecln;	/* TYPECLN: type and cache line */
	uint64_t sym_start;	/* SYM with a symbol */
	uint64_t ip;		/* SYM without a symbol */
	uint64_t symoff;	/* SYMOFF with a symbol: the offset */
	uint64_t addr;		/* ADDR: perf's unmapped he->ip */
	uint64_t iaddr;		/* IADDR: the sample's ip (own entry) */
	uint64_t sym_size;	/* SYM_SIZE: the symbol's, 0 none */
	uint64_t dso_size;	/* DSO_SIZE: the map's, 0 no map */
	int32_t tid;		/* PID */
	int32_t cpu;		/* CPU; NO_CPU in a summary's entries */
	uint32_t inlined;	/* SYM: an inlined function's frame */
	uint32_t par;		/* PARALLELISM; 0 in a summary's entries */
	struct mkey m;		/* the memory keys; 0 in a summary's */
};

_Static_assert(sizeof(struct ekey) == 12 * sizeof(void *) + 240,
	       "an entry key is compared as bytes: no padding");

/* A sample's place in time (PDA_REPORT_ANY_ORDER): perf's ordered
 * events' order, then idx, the place in the sample of what it made (an
 * entry's in its summary, a DSO's in its chain), the order one sample
 * makes them in. */
struct okey {
	uint64_t time, seq;
	uint32_t idx;
};

#define PEND_SLOTS 1024 /* struct pda_report's pend */
#define ENT_FRONT 4096 /* struct pda_report's ent_front */

static const struct okey OKEY_LAST = {UINT64_MAX, UINT64_MAX, UINT32_MAX};

/* What a row shows of the sample that made it and no key compares
 * (PDA_REPORT_ANY_ORDER: kept per summary entry, for the earliest
 * sample to set).  Compared as bytes. */
struct look {
	const char *comm, *dso, *dso_path, *sym;
	uint64_t addr, sym_start;
	uint32_t pid;
	int32_t tid;
	uint32_t level;		/* a char, widened */
	uint32_t inlined;
};

_Static_assert(sizeof(struct look) == 4 * sizeof(void *) + 32,
	       "a look is compared as bytes: no padding");

struct lookent {
	struct look l;
	uint32_t id;
};

struct ent {
	struct ekey k;
	struct pda_report_entry pub;
	uint64_t sym_start;	/* the symbol's start, whatever the keys */
	uint32_t id;
	uint32_t rank;		/* the order of first samples: id, or with
				 * any order by first */
	bool shown;		/* its memory values set (mem_show) */
	/* any order: its earliest sample's place and look */
	uint32_t look;
	struct okey first;
};

/*
 * The entries a stack adds to: ents[0] its own, the rest its callers'.
 * With call graphs, chain is the stack's frames in the report's order
 * (cframe ids) and entry i's graph gets chain[start[i]...]; term[i] is
 * the node that ends it in the graph of event cache_ev (0: not yet
 * walked), so that a later sample of the memo slot adds its period to
 * one node per entry.
 *
 * The arrays follow the summary in data, each cap long but the chain,
 * which comes last (struct sumlay): ents, start, then as the report
 * needs them look (any order: per entry, what it shows), again
 * (cum_again: per entry, whether it came before in the summary, added
 * again only for a sample whose he_tmp_equal() is false) and term
 * (graphs made as samples come: per-sample rows).  A kept summary
 * whose values all fit 16 bits (narrow) holds them so: a capture's
 * summaries are hundreds of thousands, their chains tens of frames.
 */
struct summary {
	uint32_t nr, cap;
	uint32_t nr_chain;
	/* graphs made as samples come: the event of term's nodes;
	 * deferred graphs: the slot's weight record in its first event's
	 * recs (UINT32_MAX: none yet), other events' by by_rec */
	union {
		uint32_t cache_ev;
		uint32_t rec_ev;
	};
	uint32_t rec;
	bool truncated;
	bool tid_comm;		/* its comm is ":TID" (none known) */
	bool out;		/* the sample's own frame is outside opts'
				 * dsos (its callers' entries keep that) */
	bool narrow;		/* data is uint16_t */
	/* any order: its earliest sample's place (time, seq) */
	uint64_t first_time, first_seq;
	uint32_t data[];
};

/* Where a summary's arrays start, in caps: the same for every summary
 * of a report (ents at 0, start at 1). */
struct sumlay {
	uint32_t look, again, term, chain;
};

/* Element k of summary s's data. */
static inline uint32_t sum_get(const struct summary *s, size_t k)
{
	return s->narrow ? ((const uint16_t *)(const void *)s->data)[k]
			 : s->data[k];
}

/* Where element k of summary s's data is. */
static inline const void *sum_addr(const struct summary *s, size_t k)
{
	return s->narrow ? (const void *)((const uint16_t *)(const void *)
						  s->data +
					  k)
			 : (const void *)(s->data + k);
}

/* Element k of a wide summary's data, to write. */
static inline uint32_t *sum_at(struct summary *s, size_t k)
{
	return &s->data[k];
}


/* A call graph frame's identity, perf's match_chain() by function: a
 * symbol by its DSO and start, an inlined one by its name, an address
 * without one by its DSO and ip.  Compared as bytes. */
struct ckey {
	const char *dso;
	const char *name;	/* inlined: the function's name */
	uint64_t addr;
	uint32_t kind;		/* CF_ADDR, CF_SYM, CF_INLINED */
	uint32_t pad;
};

_Static_assert(sizeof(struct ckey) == 2 * sizeof(void *) + 16,
	       "a frame key is compared as bytes: no padding");

enum { CF_ADDR, CF_SYM, CF_INLINED };

/* A symbol frame's name, shared by the frames of that name: perf's
 * match_chain() finds an inlined frame equal to any symbol frame of
 * its name. */
struct cname {
	const char *name;
	uint32_t id;
	bool inlined;	/* an inlined frame has the name */
};

struct cframe {
	struct ckey k;
	const char *disp;	/* as perf's callchain_list__sym_name() */
	struct cname *cname;	/* a symbol's: its name, else NULL */
	uint64_t ip;		/* the first seen */
	uint32_t dso_rank;	/* the DSO's order of first sight */
	uint32_t id;
};

/* A call graph node; the hash finds a node's child by its frame. */
struct cnode {
	struct pda_report_cnode pub;
	uint32_t frame;
};

struct cchild {
	uint32_t parent, frame, id;
};

/* A node's first children (by id) of a name (struct cname's id): any,
 * and an inlined frame's (0: none), what child_by_name() answers. */
struct cbyname {
	uint32_t parent, name, any, inl;
};

/* Deferred graphs: what the samples of one summary with a callchain
 * added in one event, in the order each first came (which decides the
 * order nodes are made in, and so the order of siblings perf's
 * match_chain() finds equal). */
struct rec {
	const struct summary *s;
	uint64_t period, count;
	uint64_t first_time, first_seq; /* any order: its earliest
					 * sample's place */
};

/* A summary's record in an event not its first. */
struct recref {
	const struct summary *s;
	uint32_t member, idx;
};

/* One chain of a deferred graph while it is built: record rec's
 * summary's chain from a row's frame on, len frames (ITEM_NARROW set:
 * uint16_t frames). */
struct item {
	const void *chain;
	uint32_t len, rec;
};

#define ITEM_NARROW 0x80000000u

/* Where frame d of item it's chain is. */
static inline const void *item_addr(const struct item *it, uint32_t d)
{
	return it->len & ITEM_NARROW ? (const void *)((const uint16_t *)it->chain + d)
				     : (const void *)((const uint32_t *)it->chain + d);
}

/* Frame d of item it's chain. */
static inline uint32_t item_frame(const struct item *it, uint32_t d)
{
	return it->len & ITEM_NARROW ? ((const uint16_t *)it->chain)[d]
				     : ((const uint32_t *)it->chain)[d];
}

/* The report's copies of a frame's names, by the session's pointers
 * (interned there: equal strings are one pointer), so that a stack not
 * seen before costs no string hashing for the names seen before. */
struct names {
	const char *sym_in, *dso_in;	/* the session's */
	const char *sym, *dso, *dso_path; /* the report's */
};

/* An entry of a summary with a sample's cpu and parallelism. */
struct cpuent {
	uint32_t proto;
	int32_t cpu;
	uint32_t par;
	uint32_t id;
	struct mkey m;
};

struct event {
	const struct pd_evsel *evsel;	/* NULL: not seen */
	struct pda_report_val *v;	/* by entry id */
	size_t nr_v, alloc_v;
	uint64_t nr_samples, total_period, total_latency;
	unsigned member;		/* its index in rep->events */
	struct rec *recs;		/* deferred graphs: by first sample */
	size_t nr_recs, alloc_recs;
	/* any order with opts' dsos: each value's earliest sample, whose
	 * dso_filtered it keeps */
	struct okey *vfirst;
	size_t nr_vfirst, alloc_vfirst;
};

struct table {
	struct pda_report_table pub;
	unsigned *members;
	uint32_t *rows;
	char *name;
};

struct pda_report {
	struct pd_alloc mem;
	enum pda_report_key keys[PDA_REPORT_MAX_KEYS];
	unsigned nr_keys;
	bool has[PDA_REPORT_NR_KEYS];
	unsigned flags, max_stack;
	const char *const *comms, *const *symbols;
	/* symbols as perf's --symbols (the sample's own symbol), or NULL;
	 * as rows' symbols (PDA_REPORT_SYM_ROWS), or NULL */
	const char *const *sample_syms;
	const char *const *row_syms;
	const char *const *dso_list;	/* opts' dsos */
	const char *elided[PDA_REPORT_MAX_KEYS]; /* pda_report_key_elided */
	const uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	const char *(*thread_comm)(void *arg, uint32_t pid, uint32_t tid);
	void *thread_comm_arg;
	const char *(*cgroup_path)(void *arg, uint64_t id);
	void *cgroup_path_arg;
	int (*trace_text)(void *arg, const struct pd_sample *sample,
			  const char **text, size_t *len);
	void *trace_text_arg;
	int (*data_type)(void *arg, const struct pd_sample *sample,
			 const char **type, int64_t *offset,
			 const char **member);
	void *data_type_arg;
	int (*data_addr)(void *arg, const struct pd_sample *sample,
			 struct pda_daddr *out);
	void *data_addr_arg;
	uint64_t time_quantum;	/* the time key's (ns) */
	bool time_ns;
	bool mem_keys;		/* a memory key: struct mkey per sample */
	bool cum_again;		/* a key perf's cumulative he_tmp lacks */
	unsigned nr_shown;	/* keys but opts' ipc_null's */
	const struct pd_file *file;
	const struct pd_env *env; /* its GROUP_DESC, or NULL */
	regex_t parent_re;
	bool parent_set;
	bool done;
	struct pdc_intern strs;
	struct pdc_arena arena;	/* entries, summaries, cpu entries */
	struct pdc_hash by_key;	/* struct ent */
	struct pdc_hash by_cpu;	/* struct cpuent */
	bool per_sample;	/* the cpu or parallelism key: by_cpu */
	struct pdc_hash by_names; /* struct names */
	struct ent **ents;	/* by id */
	size_t nr_ents, alloc_ents;
	struct event *events;	/* by evsel idx */
	size_t nr_events, alloc_events;
	struct summary *scratch; /* a summary not kept (no memo slot) */
	size_t alloc_scratch;
	struct table *tables;
	size_t nr_tables;
	struct pda_report_stats st;
	/* call graphs */
	bool root_first;	/* the callchain's order: caller first */
	/* Deferred graphs (not per_sample): samples only add to their
	 * summary's record, and pda_report_finish() builds each graph
	 * from the records, leaving out the nodes the threshold would not
	 * print (see build_graphs()). */
	bool deferred;
	struct sumlay lay;	/* its summaries' arrays */
	bool graph_rel;		/* the threshold is a share of the parent */
	double graph_min;	/* the threshold, percent */
	struct pdc_hash by_rec;	/* struct recref */
	struct pdc_hash by_cframe; /* struct cframe */
	struct cframe **cframes; /* by id */
	size_t nr_cframes, alloc_cframes;
	struct pdc_hash by_cname; /* struct cname */
	uint32_t nr_cnames;
	struct pdc_hash by_child; /* struct cchild */
	struct pdc_hash by_cbyname; /* struct cbyname */
	struct cnode *cnodes;	/* by id; 0 is no node */
	size_t nr_cnodes, alloc_cnodes;
	const char **dsos;	/* DSOs in the order first seen */
	size_t nr_dsos, alloc_dsos;
	/* any order (PDA_REPORT_ANY_ORDER): the next sample's place, each
	 * DSO's first sight (by dsos' index), the looks (by id) */
	bool any_order;
	struct okey at;
	uint64_t count;		/* pda_report_count()'s, for the next add */
	struct pda_nsid cgns; /* pda_report_cgroup_ns()'s */
	const struct pda_stack *ip_leaf; /* pda_report_ip_leaf()'s */
	struct okey *dso_first;
	size_t alloc_dso_first;
	struct pdc_hash by_look; /* struct lookent */
	struct lookent **looks;
	size_t nr_looks, alloc_looks;
	uint32_t *by_rank;	/* after finish: entry ids by rank */
	/* the mapped, not inlined frames' ips of the stack make_summary()
	 * is on (seen_gen's): a recursion's frames repeat them */
	struct seen {
		uint64_t ip;
		uint32_t gen, kernel;
	} seen[SEEN_SLOTS];
	uint32_t seen_gen;
	/* Hits counted later (batch: any order, the values' sums only):
	 * by summary and event, direct-mapped, the occupant added when
	 * another comes (add_pending) and all by pda_report_finish(). */
	/* the entries frame_entry() found last, by a few of their key's
	 * fields: a stack's frames find the same few hundred */
	struct ent *ent_front[ENT_FRONT];
	bool batch;
	struct pending {
		struct summary *s;	/* NULL: free */
		size_t ev;		/* its index (events may move) */
		uint64_t n, period;
		struct okey at;		/* the earliest's place */
	} pend[PEND_SLOTS];
};

static const struct {
	const char *name, *alias, *header;
} key_info[PDA_REPORT_NR_KEYS] = {
	[PDA_REPORT_COMM] = {"comm", NULL, "Command"},
	[PDA_REPORT_PID] = {"pid", NULL, "    Pid:Command"},
	[PDA_REPORT_DSO] = {"dso", NULL, "Shared Object"},
	[PDA_REPORT_SYM] = {"sym", "symbol", "Symbol"},
	[PDA_REPORT_SRCLINE] = {"srcline", NULL, "Source:Line"},
	[PDA_REPORT_SRCFILE] = {"srcfile", NULL, "Source File"},
	[PDA_REPORT_CPU] = {"cpu", NULL, "CPU"},
	[PDA_REPORT_PARENT] = {"parent", NULL, "Parent symbol"},
	[PDA_REPORT_TYPE] = {"type", NULL, "Data Type"},
	[PDA_REPORT_TYPEOFF] = {"typeoff", NULL, "Data Type Offset"},
	[PDA_REPORT_TYPECLN] = {"typecln", NULL, "Data Type Cacheline"},
	[PDA_REPORT_PARALLELISM] = {"parallelism", NULL, "Parallelism"},
	[PDA_REPORT_SYMOFF] = {"symoff", NULL, "Symbol Offset"},
	[PDA_REPORT_LOCAL_WEIGHT] = {"local_weight", NULL, "Local Weight"},
	[PDA_REPORT_MEM] = {"mem", NULL, "Memory access"},
	[PDA_REPORT_SNOOP] = {"snoop", NULL, "Snoop"},
	[PDA_REPORT_TLB] = {"tlb", NULL, "TLB access"},
	[PDA_REPORT_LOCKED] = {"locked", NULL, "Locked"},
	[PDA_REPORT_BLOCKED] = {"blocked", NULL, "Blocked"},
	[PDA_REPORT_DADDR_SYM] = {"symbol_daddr", NULL, "Data Symbol"},
	[PDA_REPORT_DADDR_DSO] = {"dso_daddr", NULL, "Data Object"},
	[PDA_REPORT_PHYS_DADDR] = {"phys_daddr", NULL, "Data Physical Address"},
	[PDA_REPORT_LOCAL_INS_LAT] = {"local_ins_lat", NULL,
				      "Local INSTR Latency"},
	[PDA_REPORT_WEIGHT] = {"weight", NULL, "Weight"},
	[PDA_REPORT_INS_LAT] = {"ins_lat", NULL, "INSTR Latency"},
	[PDA_REPORT_DCACHELINE] = {"dcacheline", NULL, "Data Cacheline"},
	[PDA_REPORT_TIME] = {"time", NULL, "Time"},
	[PDA_REPORT_SOCKET] = {"socket", NULL, "Socket"},
	[PDA_REPORT_TRANSACTION] = {"transaction", NULL,
				    "Transaction                "},
	[PDA_REPORT_CODE_PAGE] = {"code_page_size", NULL, "Code Page Size"},
	[PDA_REPORT_DATA_PAGE] = {"data_page_size", NULL, "Data Page Size"},
	[PDA_REPORT_ADDR] = {"addr", NULL, "Address"},
	[PDA_REPORT_IADDR] = {"symbol_iaddr", NULL, "Code Symbol"},
	[PDA_REPORT_SYM_SIZE] = {"symbol_size", NULL, "Symbol size"},
	[PDA_REPORT_DSO_SIZE] = {"dso_size", NULL, "DSO size"},
	[PDA_REPORT_CGROUP] = {"cgroup", NULL, "Cgroup"},
	[PDA_REPORT_TRACE] = {"trace", NULL, "Trace output"},
	[PDA_REPORT_CGROUP_ID] = {"cgroup_id", NULL, "cgroup id (dev/inode)"},
};

int pda_report_key_by_name(const char *name, enum pda_report_key *key)
{
	for (unsigned k = 0; k < PDA_REPORT_NR_KEYS; k++)
		if (!strcmp(name, key_info[k].name) ||
		    (key_info[k].alias && !strcmp(name, key_info[k].alias))) {
			*key = (enum pda_report_key)k;
			return 0;
		}
	return -1;
}

const char *pda_report_key_name(enum pda_report_key key)
{
	return (unsigned)key < PDA_REPORT_NR_KEYS ? key_info[key].name : "?";
}

const char *pda_report_key_header(enum pda_report_key key)
{
	return (unsigned)key < PDA_REPORT_NR_KEYS ? key_info[key].header : "?";
}

static bool ent_eq(const void *item, const void *key)
{
	return memcmp(&((const struct ent *)item)->k, key,
		      sizeof(struct ekey)) == 0;
}

/* Without memory keys the last part (struct mkey, a third of the key) is
 * zero in every key: not hashed (hashing is most of a report's adding
 * where few samples repeat a stack). */
static uint64_t ekey_hash(const struct pda_report *rep, const struct ekey *k)
{
	return pdc_hash_bytes(k, rep->mem_keys ? sizeof(*k)
					       : offsetof(struct ekey, m));
}

static bool cpuent_eq(const void *item, const void *key)
{
	const struct cpuent *a = item, *b = key;

	return a->proto == b->proto && a->cpu == b->cpu && a->par == b->par &&
	       !memcmp(&a->m, &b->m, sizeof(a->m));
}

/* A filter list's value when it names one (perf's strlist: a name
 * given twice is one), else NULL. */
static const char *one_name(const char *const *names)
{
	if (!names)
		return NULL;
	for (size_t i = 1; names[0] && names[i]; i++)
		if (strcmp(names[i], names[0]))
			return NULL;
	return names[0];
}

/* perf's sort__setup_elide(): the comm, dso and sym keys whose filter
 * names one value; none when that would be every key. */
static void set_elided(struct pda_report *rep)
{
	unsigned nr = 0;

	for (unsigned i = 0; i < rep->nr_keys; i++) {
		const enum pda_report_key k = rep->keys[i];

		rep->elided[i] = k == PDA_REPORT_COMM	? one_name(rep->comms)
				 : k == PDA_REPORT_DSO	? one_name(rep->dso_list)
				 : k == PDA_REPORT_SYM	? one_name(rep->symbols)
							: NULL;
		nr += rep->elided[i] != NULL;
	}
	if (nr == rep->nr_keys)
		memset(rep->elided, 0, sizeof(rep->elided));
}

const char *pda_report_key_elided(const struct pda_report *rep, unsigned i)
{
	return i < rep->nr_keys ? rep->elided[i] : NULL;
}

int pda_report_new(const struct pda_report_opts *opts,
		   struct pda_report **out)
{
	static const enum pda_report_key def[] = {
		PDA_REPORT_COMM, PDA_REPORT_DSO, PDA_REPORT_SYM};
	struct pda_report_opts o;
	struct pda_report *rep;
	struct pd_alloc m = {NULL, NULL, NULL, NULL};
	const enum pda_report_key *keys;
	unsigned nr_keys;
	int rc;

	*out = NULL;
	if (!opts || pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	keys = o.keys ? o.keys : def;
	nr_keys = o.keys ? o.nr_keys : 3;
	if (!nr_keys || nr_keys > PDA_REPORT_MAX_KEYS ||
	    (o.flags & ~(unsigned)(PDA_REPORT_CHILDREN | PDA_REPORT_GROUP |
				   PDA_REPORT_NR_SAMPLES | PDA_REPORT_PERIOD |
				   PDA_REPORT_LATENCY | PDA_REPORT_CALLCHAIN |
				   PDA_REPORT_CALLER | PDA_REPORT_CALLEE |
				   PDA_REPORT_NO_GROUP |
				   PDA_REPORT_GRAPH_REL |
				   PDA_REPORT_ANY_ORDER | PDA_REPORT_SYM_ROWS)) ||
	    !(o.graph_min_percent >= 0 && o.graph_min_percent <= 100) ||
	    ((o.flags & PDA_REPORT_CALLER) && (o.flags & PDA_REPORT_CALLEE)))
		return PD_ERR_API;
	for (unsigned i = 0; i < nr_keys; i++) {
		if ((unsigned)keys[i] >= PDA_REPORT_NR_KEYS)
			return PD_ERR_API;
		/* a type is the sample's own instruction's: no callers' */
		if ((keys[i] == PDA_REPORT_TYPE ||
		     keys[i] == PDA_REPORT_TYPEOFF ||
		     keys[i] == PDA_REPORT_TYPECLN) &&
		    (!o.data_type || (o.flags & PDA_REPORT_CHILDREN)))
			return PD_ERR_API;
	}
	if (o.alloc)
		m = *o.alloc;
	rep = pdc_zalloc(&m, sizeof(*rep));
	if (!rep)
		return PD_ERR_NOMEM;
	rep->mem = m;
	for (unsigned i = 0; i < nr_keys; i++) {
		rep->keys[i] = keys[i];
		rep->has[keys[i]] = true;
	}
	rep->nr_keys = nr_keys;
	rep->nr_shown = nr_keys;
	rep->count = 1;
	if (o.ipc_null && !rep->has[PDA_REPORT_SYM] &&
	    nr_keys < PDA_REPORT_MAX_KEYS) {
		rep->keys[rep->nr_keys++] = PDA_REPORT_SYM;
		rep->has[PDA_REPORT_SYM] = true;
	}
	/* the keys each sample has its own value of: per_sample */
	for (unsigned k = PDA_REPORT_LOCAL_WEIGHT; k <= PDA_REPORT_DATA_PAGE;
	     k++)
		rep->mem_keys |= rep->has[k];
	rep->mem_keys |= rep->has[PDA_REPORT_CGROUP] ||
			 rep->has[PDA_REPORT_CGROUP_ID] ||
			 rep->has[PDA_REPORT_TRACE];
	if (rep->has[PDA_REPORT_TRACE] && !o.trace_text) {
		pdc_free(&m, rep);
		return PD_ERR_API;
	}
	if ((rep->has[PDA_REPORT_DADDR_SYM] || rep->has[PDA_REPORT_DADDR_DSO] ||
	     rep->has[PDA_REPORT_DCACHELINE]) &&
	    !o.data_addr) {
		pdc_free(&m, rep);
		return PD_ERR_API;
	}
	rep->cum_again = rep->has[PDA_REPORT_TIME] ||
			 rep->has[PDA_REPORT_SOCKET] ||
			 rep->has[PDA_REPORT_TRANSACTION] ||
			 rep->has[PDA_REPORT_CODE_PAGE] ||
			 rep->has[PDA_REPORT_CGROUP] ||
			 rep->has[PDA_REPORT_CGROUP_ID];
	rep->per_sample = rep->has[PDA_REPORT_CPU] ||
			  rep->has[PDA_REPORT_PARALLELISM] || rep->mem_keys;
	rep->flags = o.flags;
	rep->deferred = (o.flags & PDA_REPORT_CALLCHAIN) && !rep->per_sample;
	/* a per-sample row (cpu, parallelism, memory keys) is made from
	 * its summary's row as it is then, a type from the sample */
	rep->any_order = (o.flags & PDA_REPORT_ANY_ORDER) &&
			 !rep->per_sample && !rep->has[PDA_REPORT_TYPE] &&
			 !rep->has[PDA_REPORT_TYPEOFF] &&
			 !rep->has[PDA_REPORT_TYPECLN];
	rep->lay.look = 2;
	rep->lay.again = rep->lay.look + rep->any_order;
	rep->lay.term = rep->lay.again + rep->cum_again;
	rep->lay.chain = rep->lay.term + ((o.flags & PDA_REPORT_CALLCHAIN) &&
					  !rep->deferred);
	rep->graph_rel = o.flags & PDA_REPORT_GRAPH_REL;
	rep->graph_min = o.graph_min_percent;
	rep->root_first = (o.flags & PDA_REPORT_CALLER) ||
			  (!(o.flags & PDA_REPORT_CALLEE) &&
			   (o.flags & PDA_REPORT_CHILDREN));
	rep->max_stack = o.max_stack ? o.max_stack : PDA_MAX_STACK;
	/* borrowed: the caller keeps the lists while adding */
	rep->comms = o.comms;
	rep->symbols = o.symbols;
	if (o.flags & PDA_REPORT_SYM_ROWS)
		rep->row_syms = o.symbols;
	else
		rep->sample_syms = o.symbols;
	rep->dso_list = o.dsos;
	rep->pids = o.pids;
	rep->nr_pids = o.pids ? o.nr_pids : 0;
	rep->tids = o.tids;
	rep->nr_tids = o.tids ? o.nr_tids : 0;
	rep->thread_comm = o.thread_comm;
	rep->thread_comm_arg = o.thread_comm_arg;
	rep->cgroup_path = o.cgroup_path;
	rep->cgroup_path_arg = o.cgroup_path_arg;
	rep->trace_text = o.trace_text;
	rep->trace_text_arg = o.trace_text_arg;
	rep->data_type = o.data_type;
	rep->data_type_arg = o.data_type_arg;
	rep->data_addr = o.data_addr;
	rep->data_addr_arg = o.data_addr_arg;
	/* perf's symbol_conf.time_quantum: 100 ms unless --time-quantum */
	rep->time_quantum = o.time_quantum ? o.time_quantum : 100000000;
	rep->time_ns = o.time_ns;
	rep->file = o.file;
	rep->env = o.env;
	set_elided(rep);
	pdc_intern_init(&rep->strs, 0, 0, 0);
	if (rep->has[PDA_REPORT_PARENT]) {
		rc = regcomp(&rep->parent_re, o.parent ? o.parent : DEFAULT_PARENT,
			     REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			if (o.errbuf && o.errbuf_size) {
				char why[128];

				regerror(rc, &rep->parent_re, why, sizeof(why));
				snprintf(o.errbuf, o.errbuf_size,
					 "parent pattern '%s': %s", o.parent,
					 why);
			}
			pdc_free(&m, rep);
			return PD_ERR_API;
		}
		rep->parent_set = true;
	}
	/* a hit adds to its summary's entries, its record and the totals
	 * only: sums, in any order (no key of its own fields, no filter
	 * state of the first sample, graphs deferred) */
	rep->batch = pda_report_takes_counts(rep) && !rep->dso_list &&
		     !rep->sample_syms;
	*out = rep;
	return 0;
}

void pda_report_free(struct pda_report *rep)
{
	struct pd_alloc m;

	if (!rep)
		return;
	m = rep->mem;
	if (rep->parent_set)
		regfree(&rep->parent_re);
	for (size_t i = 0; i < rep->nr_events; i++) {
		pdc_free(&m, rep->events[i].v);
		pdc_free(&m, rep->events[i].recs);
		pdc_free(&m, rep->events[i].vfirst);
	}
	for (size_t i = 0; i < rep->nr_tables; i++) {
		pdc_free(&m, rep->tables[i].members);
		pdc_free(&m, rep->tables[i].rows);
		pdc_free(&m, rep->tables[i].name);
	}
	pdc_free(&m, rep->tables);
	pdc_free(&m, rep->events);
	pdc_free(&m, rep->ents);
	pdc_free(&m, rep->scratch);
	pdc_hash_release(&m, &rep->by_key);
	pdc_hash_release(&m, &rep->by_cpu);
	pdc_hash_release(&m, &rep->by_names);
	pdc_hash_release(&m, &rep->by_cframe);
	pdc_hash_release(&m, &rep->by_cname);
	pdc_hash_release(&m, &rep->by_child);
	pdc_hash_release(&m, &rep->by_cbyname);
	pdc_hash_release(&m, &rep->by_rec);
	pdc_hash_release(&m, &rep->by_look);
	pdc_free(&m, rep->looks);
	pdc_free(&m, rep->by_rank);
	pdc_free(&m, rep->dso_first);
	pdc_free(&m, rep->cframes);
	pdc_free(&m, rep->cnodes);
	pdc_free(&m, rep->dsos);
	pdc_arena_release(&rep->arena, &m);
	pdc_intern_release(&rep->strs, &m);
	pdc_free(&m, rep);
}

bool pda_report_any_order(const struct pda_report *rep)
{
	return rep->any_order;
}

bool pda_report_takes_counts(const struct pda_report *rep)
{
	/* rows by what the summary holds (its stack, comm, pid), each
	 * keeping its earliest sample by place, not by arrival; no key
	 * reads a sample's own fields; graphs deferred (a callchain's
	 * record is counted n times) */
	return rep->any_order && !rep->per_sample && !rep->mem_keys &&
	       !rep->cum_again &&
	       (rep->deferred || !(rep->flags & PDA_REPORT_CALLCHAIN)) &&
	       !(rep->flags & PDA_REPORT_LATENCY);
}

void pda_report_count(struct pda_report *rep, uint64_t n)
{
	rep->count = n ? n : 1;
}

void pda_report_at(struct pda_report *rep, uint64_t time, uint64_t seq)
{
	rep->at = (struct okey){.time = time, .seq = seq};
}

void pda_report_cgroup_ns(struct pda_report *rep, struct pda_nsid ns)
{
	rep->cgns = ns;
}

void pda_report_ip_leaf(struct pda_report *rep, const struct pda_stack *leaf)
{
	rep->ip_leaf = leaf;
}

bool pda_report_needs_tid(const struct pda_report *rep)
{
	return rep->has[PDA_REPORT_PID];
}

/* s (NULL stays NULL) as the report's own copy. */
static int intern(struct pda_report *rep, const char *s, size_t len,
		  const char **out)
{
	void *e;

	if (!s) {
		*out = NULL;
		return 0;
	}
	if (pdc_intern_add(&rep->strs, &rep->mem, s, len, &e) < 0)
		return PD_ERR_NOMEM;
	*out = e;
	return 0;
}

static int internf(struct pda_report *rep, const char **out, const char *fmt,
		   ...) PD_PRINTF(3, 4);

static int internf(struct pda_report *rep, const char **out, const char *fmt,
		   ...)
{
	char buf[512], *big;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return PD_ERR_NOMEM;
	if ((size_t)n < sizeof(buf))
		return intern(rep, buf, (size_t)n, out);
	/* a long C++ name, "(inlined)" after it */
	big = pdc_malloc(&rep->mem, (size_t)n + 1);
	if (!big)
		return PD_ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = intern(rep, big, (size_t)n, out);
	pdc_free(&rep->mem, big);
	return rc;
}

/* The DSO's short name, as perf's: the path's last part; "[kernel.
 * kallsyms]", "[vdso]" and the like as they are. */
static int dso_short(struct pda_report *rep, const char *dso,
		     const char **out)
{
	const char *slash;
	char buf[32];

	if (!dso) {
		*out = NULL;
		return 0;
	}
	if (pda_jit_short_name(dso, buf, sizeof(buf)))
		return intern(rep, buf, strlen(buf), out);
	slash = dso[0] == '[' ? NULL : strrchr(dso, '/');
	if (slash && slash[1])
		dso = slash + 1;
	return intern(rep, dso, strlen(dso), out);
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A frame without a symbol or a map. */
static bool no_sym(const struct pda_frame *fr)
{
	return !fr->sym || (fr->flags & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP));
}

static bool no_map(const struct pda_frame *fr)
{
	return !fr->dso || (fr->flags & PDA_FRAME_NO_MAP);
}

/*
 * srcline and srcfile of a frame as perf's get_srcline() gives them:
 * "file:line" (the file's basename), else "sym+OFF" (decimal), else
 * "dso[ADDR]", and "??:0" without a map; srcfile is the file, or "".
 */
static int src_names(struct pda_report *rep, const struct pda_frame *fr,
		     const char *dso, struct ekey *k)
{
	int rc = 0;

	if (rep->has[PDA_REPORT_SRCLINE]) {
		if (no_map(fr))
			rc = intern(rep, "??:0", 4, &k->srcline);
		else if (fr->srcfile && fr->line)
			rc = internf(rep, &k->srcline, "%s:%u",
				     basename_of(fr->srcfile), fr->line);
		else if (!no_sym(fr))
			rc = internf(rep, &k->srcline, "%s+%" PRIu64, fr->sym,
				     fr->sym_off);
		else
			rc = internf(rep, &k->srcline, "%s[%" PRIx64 "]", dso,
				     fr->dso_addr);
	}
	if (rc == 0 && rep->has[PDA_REPORT_SRCFILE]) {
		const char *f = !no_map(fr) && fr->srcfile && fr->line
					? basename_of(fr->srcfile)
					: "";

		rc = intern(rep, f, strlen(f), &k->srcfile);
	}
	return rc;
}

static bool names_eq(const void *item, const void *key)
{
	const struct names *a = item, *b = key;

	return a->sym_in == b->sym_in && a->dso_in == b->dso_in;
}

/* fr's symbol (NULL: none), DSO short name and path (NULL: no map), as
 * the report's strings. */
static int frame_names(struct pda_report *rep, const struct pda_frame *fr,
		       const char **sym, const char **dso,
		       const char **dso_path)
{
	struct names key = {.sym_in = no_sym(fr) ? NULL : fr->sym,
			    .dso_in = no_map(fr) ? NULL : fr->dso};
	const uint64_t h = pdc_hash_u64((uintptr_t)key.sym_in ^
					pdc_hash_u64((uintptr_t)key.dso_in));
	struct pdc_hash_slot *slot;
	struct names *n;
	int rc = 0;

	if (pdc_hash_reserve(&rep->mem, &rep->by_names) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_names, h, names_eq, &key);
	if (!slot->item) {
		if (key.dso_in)
			rc = dso_short(rep, key.dso_in, &key.dso);
		if (rc == 0 && key.dso_in)
			rc = intern(rep, key.dso_in, strlen(key.dso_in),
				    &key.dso_path);
		if (rc == 0 && key.sym_in)
			rc = intern(rep, key.sym_in, strlen(key.sym_in),
				    &key.sym);
		n = rc == 0 ? pdc_arena_alloc(&rep->arena, &rep->mem,
					      sizeof(*n))
			    : NULL;
		if (!n)
			return PD_ERR_NOMEM;
		*n = key;
		/* nothing above touched by_names: slot holds */
		pdc_hash_fill(&rep->by_names, slot, h, n);
	}
	n = slot->item;
	*sym = n->sym;
	*dso = n->dso;
	*dso_path = n->dso_path;
	return 0;
}

/* Entry e shows look l. */
static void look_show(struct ent *e, const struct look *l)
{
	e->pub.comm = l->comm;
	e->pub.pid = l->pid;
	e->pub.tid = l->tid;
	e->pub.dso = l->dso;
	e->pub.dso_path = l->dso_path;
	e->pub.sym = l->sym;
	e->pub.addr = l->addr;
	e->pub.level = (char)l->level;
	e->pub.inlined = l->inlined;
	e->sym_start = l->sym_start;
}

/* What a thread gives every entry of its samples. */
struct thread_key {
	const char *comm;	/* as shown */
	uint32_t pid;
	int32_t tid;
	const char *parent;
	const char *type, *typeoff, *typecln; /* the sample's own entry's */
	int64_t type_off;
};

/*
 * The entry of frame fr (NULL: a sample without frames, at ip) for a
 * thread, found or made: self says whether it is the sample's own entry
 * (a map-relative address without a symbol) or a caller's (the ip, as
 * perf's callchain nodes keep it); src is the frame whose source line
 * it shows (the innermost inlined one of the sample's own entry); base
 * the start of the function an inlined frame is in.  *lk is what the
 * entry shows of this sample, *made whether the sample made it.
 */
static int frame_entry(struct pda_report *rep, const struct thread_key *t,
		       const struct pda_frame *fr, const struct pda_frame *src,
		       uint64_t ip, bool self, uint64_t base, char *level,
		       uint32_t *id, struct look *lk, bool *made)
{
	struct ekey k;
	struct pdc_hash_slot *slot;
	struct ent **front;
	const char *dso = NULL, *dso_path = NULL, *sym = NULL;
	/* perf's new_inline_sym(): a callchain frame DWARF names other
	 * than the symbol table is a symbol of its own, inlined (the
	 * out-of-line function's too: a clone, an alias); the sample's own
	 * entry is its addr_location's, never inlined */
	bool inlined = !self && fr && (fr->flags & PDA_FRAME_DWARF_NAMED);
	uint64_t start = 0, addr = ip;
	struct ent *e;
	uint64_t h;
	int rc = 0;

	memset(&k, 0, sizeof(k));
	/* a frame without a map keeps the level of the frame perf
	 * resolved before it (fill_callchain_info() leaves al->level) */
	if (fr && !no_map(fr))
		*level = fr->flags & PDA_FRAME_KERNEL ? 'k' : '.';
	if (fr) {
		rc = frame_names(rep, fr, &sym, &dso, &dso_path);
		if (rc < 0)
			return rc;
		start = inlined && base ? base : fr->dso_addr - fr->sym_off;
		addr = self && dso ? fr->map_ip : fr->ip;
	}
	if (rep->has[PDA_REPORT_COMM])
		k.comm = t->comm;
	if (rep->has[PDA_REPORT_PID])
		k.tid = t->tid;
	if (rep->has[PDA_REPORT_DSO])
		k.dso = dso;
	/* perf's map->unmap_ip(he->ip): he->ip is map_ip'd for the
	 * sample's own entry only, but unmapped for every entry */
	if (rep->has[PDA_REPORT_ADDR])
		k.addr = fr ? addr + (fr->ip - fr->map_ip) : addr;
	/* perf's mem_info->iaddr.addr: the sample's ip (memory mode has
	 * no callers' entries) */
	if (rep->has[PDA_REPORT_IADDR] && self)
		k.iaddr = ip;
	/* perf's symbol__size() of he->ms.sym and map__size() of
	 * he->ms.map (0 without either) */
	if (rep->has[PDA_REPORT_SYM_SIZE] && sym)
		k.sym_size = fr->sym_size;
	if (rep->has[PDA_REPORT_DSO_SIZE] && dso)
		k.dso_size = fr->map_size;
	if (rep->has[PDA_REPORT_SYM] || rep->has[PDA_REPORT_SYMOFF]) {
		k.sym = sym;
		if (sym) {
			k.sym_dso = dso;
			k.sym_start = start;
			k.inlined = inlined;
		} else {
			k.ip = addr;
		}
		/* perf's he->ip less the symbol's start; a caller's is its
		 * call site's (perf 7.2 subtracts a map-relative start from
		 * the unmapped ip there, a bug: symoff.test judges it) */
		if (sym && rep->has[PDA_REPORT_SYMOFF])
			k.symoff = fr->dso_addr - start;
	}
	if (rep->has[PDA_REPORT_PARENT])
		k.parent = t->parent;
	if (self) {
		k.type = t->type;
		k.typeoff = t->typeoff;
		k.typecln = t->typecln;
	}
	if (rep->has[PDA_REPORT_CPU])
		k.cpu = NO_CPU;
	if (src && (rep->has[PDA_REPORT_SRCLINE] || rep->has[PDA_REPORT_SRCFILE])) {
		rc = src_names(rep, src, dso, &k);
		if (rc < 0)
			return rc;
	} else {
		if (rep->has[PDA_REPORT_SRCLINE])
			k.srcline = "??:0";
		if (rep->has[PDA_REPORT_SRCFILE])
			k.srcfile = "";
		/* interned like the others, so the key compares as bytes */
		if ((k.srcline && intern(rep, k.srcline, 4, &k.srcline) < 0) ||
		    (k.srcfile && intern(rep, "", 0, &k.srcfile) < 0))
			return PD_ERR_NOMEM;
	}
	memset(lk, 0, sizeof(*lk));
	lk->comm = t->comm;
	lk->dso = dso;
	lk->dso_path = dso_path;
	lk->sym = sym;
	lk->addr = addr;
	lk->sym_start = start;
	lk->pid = t->pid;
	lk->tid = t->tid;
	lk->level = (unsigned char)*level;
	lk->inlined = inlined && sym;
	*made = false;
	front = &rep->ent_front[pdc_hash_u64((uintptr_t)k.sym ^ k.sym_start ^
					     k.ip ^ (uintptr_t)k.comm * 31 ^
					     (uintptr_t)k.dso * 7 ^
					     (uint64_t)(uint32_t)k.tid << 40) &
				(ENT_FRONT - 1)];
	if (*front && ent_eq(*front, &k)) {
		*id = (*front)->id;
		return 0;
	}
	h = ekey_hash(rep, &k);
	if (pdc_hash_reserve(&rep->mem, &rep->by_key) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_key, h, ent_eq, &k);
	if (slot->item) {
		*front = slot->item;
		*id = (*front)->id;
		return 0;
	}
	if (rep->nr_ents >= PDA_PROFILE_MAX_ITEMS ||
	    PDC_GROW(&rep->mem, rep->ents, rep->alloc_ents, rep->nr_ents + 1,
		     PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	e = pdc_arena_zalloc(&rep->arena, &rep->mem, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	e->k = k;
	e->id = (uint32_t)rep->nr_ents;
	e->rank = e->id;
	e->first = OKEY_LAST;
	*made = true;
	look_show(e, lk);
	e->pub.cpu = k.cpu;
	e->pub.parallelism = k.par;
	e->pub.sym_off = k.symoff;
	e->pub.srcline = k.srcline;
	e->pub.srcfile = k.srcfile;
	e->pub.parent = k.parent;
	e->pub.type = k.type;
	e->pub.typeoff = k.typeoff;
	e->pub.typecln = k.typecln;
	e->pub.type_off = self ? t->type_off : 0;
	e->pub.address = k.addr;
	e->pub.iaddr = k.iaddr;
	e->pub.sym_size = k.sym_size;
	e->pub.dso_size = k.dso_size;
	e->pub.time_ns = rep->time_ns;
	rep->ents[rep->nr_ents++] = e;
	rep->st.nr_entries = rep->nr_ents;
	pdc_hash_fill(&rep->by_key, slot, h, e);
	*front = e;
	*id = e->id;
	return 0;
}

/* A new row's memory values: the sample's that made it. */
static void mem_show(struct ent *e, const struct mkey *mk,
		     const struct mshow *show)
{
	e->shown = true;
	e->pub.weight = mk->weight;
	e->pub.ins_lat = mk->ins_lat;
	e->pub.data_src = show->data_src;
	e->pub.daddr = mk->daddr;
	e->pub.phys_daddr = mk->phys;
	e->pub.daddr_sym = show->daddr_sym;
	e->pub.daddr_off = show->daddr_off;
	e->pub.daddr_object = show->object;
	e->pub.daddr_dso = mk->ddso;
	e->pub.daddr_level = show->level;
	e->pub.dcacheline = mk->dcl;
	e->pub.dcl_off = show->dcl_off;
	e->pub.dcl_level = show->dcl_level;
	e->pub.time = mk->time;
	e->pub.socket = mk->socket;
	e->pub.transaction = mk->txn;
	e->pub.code_page = mk->code_page;
	e->pub.data_page = mk->data_page;
	e->pub.cgroup = mk->cgroup;
	e->pub.cgroup_ns = mk->cgns;
	e->pub.trace = mk->trace;
}

/* The entry of proto (an entry without a cpu and parallelism) with cpu
 * (0 without the key, as frame_entry() leaves it) and parallelism par
 * (0 without the key). */
static int sample_entry(struct pda_report *rep, uint32_t proto,
			const struct pd_sample *sample, int32_t cpu,
			uint32_t par, const struct mkey *mk,
			const struct mshow *show, uint32_t *id)
{
	const struct cpuent key = {
		.proto = proto, .cpu = cpu, .par = par, .m = *mk};
	const uint64_t h = pdc_hash_u64(((uint64_t)proto << 32 |
					 (uint32_t)cpu) ^
					pdc_hash_u64(par)) ^
			   (rep->mem_keys ? pdc_hash_bytes(mk, sizeof(*mk)) : 0);
	struct pdc_hash_slot *slot;
	struct cpuent *ce;
	struct ent *e;
	struct ekey k;

	if (pdc_hash_reserve(&rep->mem, &rep->by_cpu) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_cpu, h, cpuent_eq, &key);
	if (slot->item) {
		*id = ((const struct cpuent *)slot->item)->id;
		return 0;
	}
	ce = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*ce));
	if (!ce)
		return PD_ERR_NOMEM;
	k = rep->ents[proto]->k;
	k.cpu = cpu;
	k.par = par;
	k.m = *mk;
	{
		/* made as frame_entry() makes entries, from the proto's */
		const uint64_t hk = ekey_hash(rep, &k);
		struct pdc_hash_slot *s2;

		if (pdc_hash_reserve(&rep->mem, &rep->by_key) < 0)
			return PD_ERR_NOMEM;
		s2 = pdc_hash_probe(&rep->by_key, hk, ent_eq, &k);
		if (s2->item) {
			/* a sample whose memory keys are all 0 finds the
			 * proto itself, made without them */
			e = s2->item;
			if (rep->mem_keys && !e->shown)
				mem_show(e, mk, show);
		} else {
			if (rep->nr_ents >= PDA_PROFILE_MAX_ITEMS ||
			    PDC_GROW(&rep->mem, rep->ents, rep->alloc_ents,
				     rep->nr_ents + 1,
				     PDA_PROFILE_MAX_ITEMS) < 0)
				return PD_ERR_NOMEM;
			e = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*e));
			if (!e)
				return PD_ERR_NOMEM;
			*e = *rep->ents[proto];
			e->k = k;
			/* perf's he->thread is the sample's that made it (the
			 * proto's may be another thread's): the caller above
			 * callee rule compares it */
			e->pub.pid = sample->pid;
			e->pub.tid = (int32_t)sample->tid;
			e->pub.cpu = cpu;
			e->pub.parallelism = par;
			mem_show(e, mk, show);
			e->id = (uint32_t)rep->nr_ents;
			e->rank = e->id;
			rep->ents[rep->nr_ents++] = e;
			rep->st.nr_entries = rep->nr_ents;
			pdc_hash_fill(&rep->by_key, s2, hk, e);
		}
	}
	ce->proto = proto;
	ce->cpu = cpu;
	ce->par = par;
	ce->m = *mk;
	ce->id = e->id;
	/* the by_key insertion above did not touch by_cpu: slot holds */
	pdc_hash_fill(&rep->by_cpu, slot, h, ce);
	*id = ce->id;
	return 0;
}

/* The function the inlined frames before frame i are in: the next
 * frame that is not inlined, or NULL. */
static const struct pda_frame *inline_base(const struct pda_stack *st,
					   size_t i)
{
	for (; i < st->nr; i++)
		if (!(st->frames[i].flags & PDA_FRAME_INLINED))
			return &st->frames[i];
	return NULL;
}

static bool in_ids(const uint32_t *ids, size_t nr, uint32_t id)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool in_list(const char *const *list, const char *s)
{
	for (; s && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* perf's --dsos (machine__resolve()): whether a frame's map is one of
 * opts' dsos, by its short name or its path; no frame or map is in
 * none. */
static bool in_dsos(const struct pda_report *rep, const struct pda_frame *fr)
{
	const char *path = fr ? fr->dso : NULL;
	const char *slash;

	if (!path)
		return false;
	slash = strrchr(path, '/');
	return in_list(rep->dso_list, slash ? slash + 1 : path) ||
	       in_list(rep->dso_list, path);
}

/* Whether the filters hide entry e (perf's hists__filter_by_*). */
static bool hidden(const struct pda_report *rep, const struct ent *e)
{
	const struct pda_report_entry *p = &e->pub;

	if ((rep->nr_pids && !in_ids(rep->pids, rep->nr_pids, p->pid)) ||
	    (rep->nr_tids &&
	     !in_ids(rep->tids, rep->nr_tids, (uint32_t)p->tid)))
		return true;
	if (rep->comms && !in_list(rep->comms, p->comm))
		return true;
	return rep->row_syms && (!p->sym || !in_list(rep->row_syms, p->sym));
}

static bool listed(const struct summary *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nr; i++)
		if (sum_get(s, i) == id)
			return true;
	return false;
}

/* The callchain frames perf uses: [lo, hi) of a stack but [gap_lo,
 * gap_hi). */
struct kept {
	size_t lo, hi, gap_lo, gap_hi;
};

static bool kept_has(const struct kept *k, size_t i)
{
	return i < k->gap_lo || i >= k->gap_hi;
}

/*
 * The callchain frames perf uses of st: max_stack callchain entries
 * (each with the inlined frames it expands to), from the leaf, or, in
 * caller order (perf report's default with children), from the root.
 * A DWARF-unwound stack (dwarf) is two chains for perf, each cut at
 * max_stack: the kernel's (the sample's callchain: from the leaf, in
 * caller order from its root end) and the unwinder's user frames
 * (always from the leaf), so that in callee order the kernel frames
 * past max_stack are a gap.
 */
static void kept_range(const struct pda_report *rep, const struct pda_stack *st,
		       bool dwarf, struct kept *k)
{
	size_t counted = 0, i, nk = 0;

	*k = (struct kept){.hi = st ? st->nr : 0};
	if (!st)
		return;
	if (dwarf) {
		size_t kk;

		while (nk < st->nr && (st->frames[nk].flags & PDA_FRAME_KERNEL))
			nk++;
		kk = nk < rep->max_stack ? nk : rep->max_stack;
		k->hi = nk + pda_stack_kept_in(st, nk, st->nr, rep->max_stack);
		if (rep->root_first)
			k->lo = nk - kk;
		else
			k->gap_lo = kk, k->gap_hi = nk;
		return;
	}
	if (!rep->root_first) {
		k->hi = pda_stack_kept(st, rep->max_stack);
		return;
	}
	for (i = st->nr; i > 0; i--) {
		if (st->frames[i - 1].flags & PDA_FRAME_INLINED)
			continue;
		if (counted == rep->max_stack)
			break;
		counted++;
	}
	/* i frames are left out from the leaf; the inlined frames of the
	 * first one kept go with it */
	while (i > 0 && (st->frames[i - 1].flags & PDA_FRAME_INLINED))
		i--;
	k->lo = i;
}

/* The first frame of [lo, hi) whose symbol matches the parent pattern,
 * from the leaf, or the root in caller order (the order perf resolves
 * the callchain in). */
static int find_parent(struct pda_report *rep, const struct pda_stack *st,
		       const struct kept *k, const char **out)
{
	const bool from_root = rep->root_first;

	*out = NULL;
	for (size_t n = k->lo; n < k->hi; n++) {
		const size_t i = from_root ? k->hi - 1 - (n - k->lo) : n;
		const struct pda_frame *fr = &st->frames[i];

		if (kept_has(k, i) && !no_sym(fr) && regexec(&rep->parent_re, fr->sym, 0, NULL,
					   0) == 0)
			return intern(rep, fr->sym, strlen(fr->sym), out);
	}
	return 0;
}

/* perf's cacheline_size() where the host does not say: 64 bytes */
#define CACHE_LINE 64

/* The type keys of sample's own entry, from the data_type callback, as
 * perf 7.2's hist_entry__typeoff_snprintf() and
 * hist_entry__typecln_snprintf() write them: a pseudo type ("(unknown)",
 * "(stack operation)") has no offset. */
static int data_type(struct pda_report *rep, const struct pd_sample *sample,
		     struct thread_key *t)
{
	const char *type = NULL, *member = NULL;
	int64_t off = 0;
	int rc = rep->data_type(rep->data_type_arg, sample, &type, &off,
				&member);
	bool pseudo;

	if (rc < 0)
		return rc;
	if (!type)
		return PD_ERR_API;
	pseudo = type[0] == '(' && !member;
	if (pseudo)
		off = 0;
	t->type_off = off;
	rc = intern(rep, type, strlen(type), &t->type);
	if (rc == 0 && rep->has[PDA_REPORT_TYPEOFF] && pseudo)
		rc = intern(rep, type, strlen(type), &t->typeoff);
	else if (rc == 0 && rep->has[PDA_REPORT_TYPEOFF] && off)
		rc = internf(rep, &t->typeoff, "%s +%#" PRIx64 " (%s)", type,
			     (uint64_t)off, member ? member : "no field");
	else if (rc == 0 && rep->has[PDA_REPORT_TYPEOFF])
		rc = internf(rep, &t->typeoff, "%s +0 (%s)", type,
			     member ? member : "no field");
	if (rc == 0 && rep->has[PDA_REPORT_TYPECLN])
		rc = internf(rep, &t->typecln, "%s: cache-line %" PRId64, type,
			     off / CACHE_LINE);
	return rc;
}

static bool cframe_eq(const void *item, const void *key)
{
	return memcmp(&((const struct cframe *)item)->k, key,
		      sizeof(struct ckey)) == 0;
}

/* The rank of DSO dso (the report's string) in the order first seen. */
static int dso_rank(struct pda_report *rep, const char *dso, uint32_t *rank)
{
	size_t i;

	for (i = rep->nr_dsos; i > 0; i--)
		if (rep->dsos[i - 1] == dso) {
			*rank = (uint32_t)i;
			return 0;
		}
	if (PDC_GROW(&rep->mem, rep->dsos, rep->alloc_dsos, rep->nr_dsos + 1,
		     PDA_PROFILE_MAX_ITEMS) < 0 ||
	    (rep->any_order &&
	     PDC_GROW(&rep->mem, rep->dso_first, rep->alloc_dso_first,
		      rep->nr_dsos + 1, PDA_PROFILE_MAX_ITEMS) < 0))
		return PD_ERR_NOMEM;
	if (rep->any_order)
		rep->dso_first[rep->nr_dsos] = OKEY_LAST;
	rep->dsos[rep->nr_dsos++] = dso;
	*rank = (uint32_t)rep->nr_dsos;
	return 0;
}

static bool cname_eq(const void *item, const void *key)
{
	return ((const struct cname *)item)->name == key;
}

/* The name name (the report's string) of a symbol frame, found or made
 * (NULL: out of memory); inlined: the frame is an inlined one. */
static struct cname *cname_of(struct pda_report *rep, const char *name,
			      bool inlined)
{
	const uint64_t h = pdc_hash_u64((uintptr_t)name);
	struct pdc_hash_slot *slot;
	struct cname *n;

	if (pdc_hash_reserve(&rep->mem, &rep->by_cname) < 0)
		return NULL;
	slot = pdc_hash_probe(&rep->by_cname, h, cname_eq, name);
	n = slot->item;
	if (!n) {
		n = pdc_arena_zalloc(&rep->arena, &rep->mem, sizeof(*n));
		if (!n)
			return NULL;
		n->name = name;
		n->id = rep->nr_cnames++;
		pdc_hash_fill(&rep->by_cname, slot, h, n);
	}
	n->inlined |= inlined;
	return n;
}

/* The call graph frame of fr (base: the function an inlined frame is
 * in), found or made. */
static int cframe_of(struct pda_report *rep, const struct pda_frame *fr,
		     const struct pda_frame *base, uint32_t *id)
{
	const char *sym, *dso, *dso_path;
	struct pdc_hash_slot *slot;
	struct cframe *cf;
	struct ckey k;
	uint64_t h;
	int rc;

	rc = frame_names(rep, fr, &sym, &dso, &dso_path);
	if (rc < 0)
		return rc;
	memset(&k, 0, sizeof(k));
	k.dso = dso;
	if (!sym) {
		k.kind = CF_ADDR;
		k.addr = fr->ip;
	} else if (fr->flags & PDA_FRAME_DWARF_NAMED) {
		/* perf's new_inline_sym(): DWARF's name, not the symbol
		 * table's for the address: a symbol of its own, inlined
		 * (else the frame is the symbol table's function) */
		k.kind = CF_INLINED;
		k.dso = NULL;
		k.name = sym;
	} else {
		const struct pda_frame *f =
			(fr->flags & PDA_FRAME_INLINED) && base ? base : fr;

		k.kind = CF_SYM;
		k.addr = f->dso_addr - f->sym_off;
	}
	h = pdc_hash_bytes(&k, sizeof(k));
	if (pdc_hash_reserve(&rep->mem, &rep->by_cframe) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_cframe, h, cframe_eq, &k);
	if (slot->item) {
		*id = ((const struct cframe *)slot->item)->id;
		return 0;
	}
	if (rep->nr_cframes >= PDA_PROFILE_MAX_ITEMS ||
	    PDC_GROW(&rep->mem, rep->cframes, rep->alloc_cframes,
		     rep->nr_cframes + 1, PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	cf = pdc_arena_zalloc(&rep->arena, &rep->mem, sizeof(*cf));
	if (!cf)
		return PD_ERR_NOMEM;
	cf->k = k;
	cf->ip = fr->ip;
	if (k.kind != CF_ADDR) {
		cf->cname = cname_of(rep, sym, k.kind == CF_INLINED);
		if (!cf->cname)
			return PD_ERR_NOMEM;
	}
	if (k.kind == CF_ADDR)
		rc = internf(rep, &cf->disp, "%#" PRIx64, fr->ip);
	else if (k.kind == CF_INLINED)
		rc = internf(rep, &cf->disp, "%s (inlined)", sym);
	else
		cf->disp = sym;
	if (rc == 0 && dso)
		rc = dso_rank(rep, dso, &cf->dso_rank);
	if (rc < 0)
		return rc;
	cf->id = (uint32_t)rep->nr_cframes;
	rep->cframes[rep->nr_cframes++] = cf;
	/* the interning above did not touch by_cframe: slot holds */
	pdc_hash_fill(&rep->by_cframe, slot, h, cf);
	*id = cf->id;
	return 0;
}

/* ---- any order: each row's earliest sample ---------------------------- */

static int okey_cmp(const struct okey *a, const struct okey *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static bool look_eq(const void *item, const void *key)
{
	return memcmp(&((const struct lookent *)item)->l, key,
		      sizeof(struct look)) == 0;
}

/* The id of look l, found or made. */
static int look_id(struct pda_report *rep, const struct look *l, uint32_t *id)
{
	const uint64_t h = pdc_hash_bytes(l, sizeof(*l));
	struct pdc_hash_slot *slot;
	struct lookent *le;

	if (pdc_hash_reserve(&rep->mem, &rep->by_look) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_look, h, look_eq, l);
	if (slot->item) {
		*id = ((const struct lookent *)slot->item)->id;
		return 0;
	}
	if (PDC_GROW(&rep->mem, rep->looks, rep->alloc_looks,
		     rep->nr_looks + 1, (size_t)UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	le = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*le));
	if (!le)
		return PD_ERR_NOMEM;
	le->l = *l;
	le->id = (uint32_t)rep->nr_looks;
	rep->looks[rep->nr_looks++] = le;
	pdc_hash_fill(&rep->by_look, slot, h, le);
	*id = le->id;
	return 0;
}

/* Entry id, index i of a summary of the sample at rep->at, shows look
 * lk there: *look its id; made (the sample made the entry) or earlier
 * than the entry's first sample, it is the entry's. */
static int note_look(struct pda_report *rep, uint32_t id, uint32_t i,
		     const struct look *lk, bool made, uint32_t *look)
{
	struct ent *e = rep->ents[id];
	struct okey k = rep->at;
	int rc;

	k.idx = i;
	/* most samples show what the entry does: no hashing */
	if (!made && !memcmp(lk, &rep->looks[e->look]->l, sizeof(*lk)))
		*look = e->look;
	else if ((rc = look_id(rep, lk, look)) < 0)
		return rc;
	if (made || okey_cmp(&k, &e->first) < 0) {
		e->first = k;
		e->look = *look;
	}
	return 0;
}

/* The DSO of call graph frame cf, at place pos of the chain of the
 * sample at rep->at: its first sight, if earlier. */
static void note_dso(struct pda_report *rep, const struct cframe *cf,
		     uint32_t pos)
{
	struct okey k = rep->at;

	k.idx = pos;
	if (cf->dso_rank &&
	    okey_cmp(&k, &rep->dso_first[cf->dso_rank - 1]) < 0)
		rep->dso_first[cf->dso_rank - 1] = k;
}

/* A sample at rep->at of summary s (a memo slot's, made by another),
 * earlier than any before: each entry's look as this sample shows it
 * (the slot's samples differ in their tid alone, and the comm ":TID"
 * without one known), and the chain's DSOs. */
static int summary_earlier(struct pda_report *rep, struct summary *s,
			   const struct pd_sample *sample)
{
	const int32_t tid = (int32_t)sample->tid;

	s->first_time = rep->at.time;
	s->first_seq = rep->at.seq;
	for (uint32_t i = 0; i < s->nr; i++) {
		struct ent *e = rep->ents[sum_get(s, i)];
		struct okey k = rep->at;
		struct look l =
			rep->looks[sum_get(s, rep->lay.look * s->cap + i)]->l;
		int rc;

		k.idx = i;
		if (okey_cmp(&k, &e->first) >= 0)
			continue;
		if (l.tid != tid) {
			l.tid = tid;
			if (s->tid_comm &&
			    (rc = internf(rep, &l.comm, ":%d", tid)) < 0)
				return rc;
		}
		if ((rc = look_id(rep, &l, &e->look)) < 0)
			return rc;
		e->first = k;
	}
	for (uint32_t n = 0; n < s->nr_chain; n++)
		note_dso(rep,
			 rep->cframes[sum_get(s, rep->lay.chain * s->cap + n)],
			 n);
	return 0;
}

/* A summary for nr_ents entries and nr_chain chain frames: in the
 * arena (keep; narrow: 16-bit values) or the scratch buffer. */
static struct summary *summary_alloc(struct pda_report *rep, size_t nr_ents,
				     size_t nr_chain, bool keep, bool narrow)
{
	const size_t nr_val = rep->lay.chain * nr_ents + nr_chain;
	const size_t want =
		sizeof(struct summary) +
		nr_val * (narrow ? sizeof(uint16_t) : sizeof(uint32_t));
	struct summary *s;

	if (keep) {
		s = pdc_arena_alloc(&rep->arena, &rep->mem, want);
	} else {
		if (PDC_GROW(&rep->mem, rep->scratch, rep->alloc_scratch, want,
			     (size_t)1 << 30) < 0)
			return NULL;
		s = (struct summary *)(void *)rep->scratch;
	}
	if (!s)
		return NULL;
	s->nr = 0;
	s->cap = (uint32_t)nr_ents;
	s->nr_chain = 0;
	s->cache_ev = UINT32_MAX;
	s->narrow = narrow;
	s->tid_comm = false;
	s->out = false;
	s->first_time = s->first_seq = UINT64_MAX;
	return s;
}

/* Whether wide summary s's values all fit 16 bits: its entry ids,
 * looks, chain places and frames (a node id of term may not). */
static bool summary_narrow(const struct pda_report *rep,
			   const struct summary *s)
{
	return rep->lay.chain == rep->lay.term && rep->nr_ents <= UINT16_MAX &&
	       rep->nr_looks <= UINT16_MAX && rep->nr_cframes <= UINT16_MAX &&
	       s->nr_chain <= UINT16_MAX;
}

/* A copy of wide summary s in the arena, its arrays to size; NULL: out
 * of memory. */
static struct summary *summary_copy(struct pda_report *rep,
				    const struct summary *s)
{
	const bool narrow = summary_narrow(rep, s);
	struct summary *c = summary_alloc(rep, s->nr, s->nr_chain, true,
					  narrow);
	const size_t arrays[] = {0, 1, rep->lay.look, rep->lay.again};
	const bool has[] = {true, true, rep->any_order, rep->cum_again};
	uint16_t *c16;

	if (!c)
		return NULL;
	c16 = (uint16_t *)(void *)c->data;
	c->nr = s->nr;
	c->truncated = s->truncated;
	c->nr_chain = s->nr_chain;
	c->tid_comm = s->tid_comm;
	c->out = s->out;
	c->first_time = s->first_time;
	c->first_seq = s->first_seq;
	for (size_t a = 0; a < sizeof(arrays) / sizeof(*arrays); a++) {
		const uint32_t *from = s->data + arrays[a] * s->cap;

		if (!has[a])
			continue;
		if (!narrow) {
			memcpy(c->data + arrays[a] * c->cap, from,
			       s->nr * sizeof(*from));
			continue;
		}
		for (uint32_t i = 0; i < s->nr; i++)
			c16[arrays[a] * c->cap + i] = (uint16_t)from[i];
	}
	if (rep->lay.chain != rep->lay.term)
		memset(c->data + rep->lay.term * c->cap, 0,
		       s->nr * sizeof(*c->data));
	if (narrow) {
		for (uint32_t n = 0; n < s->nr_chain; n++)
			c16[rep->lay.chain * c->cap + n] =
				(uint16_t)s->data[rep->lay.chain * s->cap + n];
	} else {
		memcpy(c->data + rep->lay.chain * c->cap,
		       s->data + rep->lay.chain * s->cap,
		       s->nr_chain * sizeof(*c->data));
	}
	return c;
}

/* Whether a mapped frame at fr's ip was seen in this stack (its entry
 * then is one the summary lists: the same ip in one process at one
 * time resolves the same); else remembered, where a slot is free. */
static bool seen_ip(struct pda_report *rep, const struct pda_frame *fr)
{
	const uint32_t kernel = (fr->flags & PDA_FRAME_KERNEL) != 0;
	const size_t h = (size_t)pdc_hash_u64(fr->ip ^ kernel);

	for (size_t p = 0; p < SEEN_PROBES; p++) {
		struct seen *e = &rep->seen[(h + p) & (SEEN_SLOTS - 1)];

		if (e->gen != rep->seen_gen) {
			*e = (struct seen){.ip = fr->ip, .gen = rep->seen_gen,
					   .kernel = kernel};
			return false;
		}
		if (e->ip == fr->ip && e->kernel == kernel)
			return true;
	}
	return false;
}

/* The summary of a sample's stack: its own entry, then (children, with a
 * callchain) each distinct entry of its kept frames, and with call
 * graphs the chain each adds to its graph. */
static int make_summary(struct pda_report *rep, const struct pd_sample *sample,
			const struct pda_stack *st, const char *comm,
			bool keep, struct summary **out)
{
	const size_t nr = st ? st->nr : 0;
	const bool has_chain =
		sample->evsel &&
		(sample->evsel->attr.sample_type & (PD_SAMPLE_CALLCHAIN |
						    PD_SAMPLE_STACK_USER));
	const bool chain = (rep->flags & PDA_REPORT_CHILDREN) && has_chain;
	const bool graph = (rep->flags & PDA_REPORT_CALLCHAIN) && has_chain;
	/* the frames of the sample's own entry: the ip's when given
	 * (perf's entry from the sample's addr_location: a callchain
	 * that gave none, a leaf DWARF names otherwise), in no graph */
	const struct pda_stack *own = rep->ip_leaf ? rep->ip_leaf : st;
	const size_t own_nr = own ? own->nr : 0;
	struct kept k;
	size_t lo, hi;
	struct thread_key t = {.pid = sample->pid,
			       .tid = (int32_t)sample->tid};
	struct summary *s;
	size_t self = 0;
	char level;
	struct look lk;
	bool made;
	uint32_t id;
	int rc;

	kept_range(rep, st, pda_sample_unwinds(sample), &k);
	lo = k.lo;
	hi = k.hi;
	/* made in the scratch buffer, room for every frame's entry: a
	 * kept one is copied to its size, a few distinct entries */
	s = summary_alloc(rep, 1 + (chain ? hi - lo : 0), graph ? hi - lo : 0,
			  false, false);
	if (!s)
		return PD_ERR_NOMEM;
	s->truncated = hi - lo - (k.gap_hi - k.gap_lo) < nr;
	s->first_time = rep->at.time;
	s->first_seq = rep->at.seq;
	s->tid_comm = !(comm && *comm);
	if (comm && *comm)
		rc = intern(rep, comm, strlen(comm), &t.comm);
	else
		rc = internf(rep, &t.comm, ":%d", (int32_t)sample->tid);
	if (rc == 0 && rep->has[PDA_REPORT_PARENT])
		rc = find_parent(rep, st, &k, &t.parent);
	if (rc == 0 &&
	    (rep->has[PDA_REPORT_TYPE] || rep->has[PDA_REPORT_TYPEOFF] ||
	     rep->has[PDA_REPORT_TYPECLN]))
		rc = data_type(rep, sample, &t);
	if (rc < 0)
		return rc;
	/* a new stack: no ip seen (a generation wrapped clears them) */
	if (++rep->seen_gen == 0) {
		memset(rep->seen, 0, sizeof(rep->seen));
		rep->seen_gen = 1;
	}
	/* the chain, in the report's order: the frames perf's cursor has */
	for (size_t n = lo; graph && n < hi; n++) {
		const size_t i = rep->root_first ? hi - 1 - (n - lo) : n;
		uint32_t *cf = sum_at(s, rep->lay.chain * s->cap + s->nr_chain);

		if (!kept_has(&k, i))
			continue;
		rc = cframe_of(rep, &st->frames[i], inline_base(st, i), cf);
		if (rc < 0)
			return rc;
		if (rep->any_order)
			note_dso(rep, rep->cframes[*cf], s->nr_chain);
		s->nr_chain++;
	}
	/* the sample's own entry: the function the ip is in (not an
	 * inlined one), with the innermost source line */
	while (self < own_nr && (own->frames[self].flags & PDA_FRAME_INLINED))
		self++;

	level = (sample->misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL ? 'k' : '.';
	if (own_nr == 0)
		rc = frame_entry(rep, &t, NULL, NULL, sample->ip, true, 0,
				 &level, &id, &lk, &made);
	else
		rc = frame_entry(rep, &t,
				 &own->frames[self < own_nr ? self : 0],
				 nr ? &st->frames[0] : &own->frames[0],
				 sample->ip, true, 0, &level, &id, &lk, &made);
	if (rc == 0 && rep->any_order)
		rc = note_look(rep, id, 0, &lk, made,
			       sum_at(s, rep->lay.look * s->cap));
	if (rc < 0)
		return rc;
	*sum_at(s, s->cap) = 0;
	if (rep->cum_again)
		*sum_at(s, rep->lay.again * s->cap) = 0;
	/* perf's --dsos and --symbols test the sample's own map and
	 * symbol (machine__resolve()), and every entry the sample makes
	 * keeps that (its callers' too) */
	s->out = (rep->dso_list &&
		  !in_dsos(rep, own_nr ? own->frames : NULL)) ||
		 (rep->sample_syms &&
		  !(self < own_nr && own->frames[self].sym &&
		    in_list(rep->sample_syms, own->frames[self].sym)));
	*sum_at(s, s->nr++) = id;
	/* the callers' entries keep the sample's filter state: perf fills
	 * their addr_location from the callchain but not its filtered */
	/* each frame's entry in the order of perf's cursor, the first
	 * time it comes (perf's he_cache), with its graph from there */
	for (size_t n = lo; chain && n < hi; n++) {
		const size_t i = rep->root_first ? hi - 1 - (n - lo) : n;
		const struct pda_frame *fr = &st->frames[i];

		const struct pda_frame *base;

		if (!kept_has(&k, i))
			continue;

		/* a repeated ip (recursion): listed, its level the same */
		if (!rep->cum_again && !(fr->flags & PDA_FRAME_INLINED) &&
		    !no_map(fr) && seen_ip(rep, fr)) {
			level = fr->flags & PDA_FRAME_KERNEL ? 'k' : '.';
			continue;
		}
		base = inline_base(st, i);
		rc = frame_entry(rep, &t, fr, fr, fr->ip, false,
				 base ? base->dso_addr - base->sym_off : 0,
				 &level, &id, &lk, &made);
		if (rc < 0)
			return rc;
		/* perf's he_cache check compares a callchain entry made
		 * without the sample's time, socket, transaction and code
		 * page size (its he_tmp has none) with the cached ones:
		 * with those keys an entry comes again for each frame
		 * unless they are all 0 (again, add_summary) */
		if (!listed(s, id) || rep->cum_again) {
			if (rep->any_order &&
			    (rc = note_look(rep, id, s->nr, &lk, made,
					    sum_at(s, rep->lay.look * s->cap +
							      s->nr))) < 0)
				return rc;
			*sum_at(s, s->cap + s->nr) = (uint32_t)(n - lo);
			if (rep->cum_again)
				*sum_at(s, rep->lay.again * s->cap + s->nr) =
					listed(s, id);
			*sum_at(s, s->nr++) = id;
		}
	}
	*out = keep ? summary_copy(rep, s) : s;
	return *out ? 0 : PD_ERR_NOMEM;
}

static bool cbyname_eq(const void *item, const void *key)
{
	const struct cbyname *a = item, *b = key;

	return a->parent == b->parent && a->name == b->name;
}

static uint64_t cbyname_hash(uint32_t parent, uint32_t name)
{
	return pdc_hash_u64((uint64_t)parent << 32 | name);
}

/*
 * The child of node a frame cf not its own matches by name (the first
 * made), or 0 (a child of cf's own frame is by_child's): perf's
 * match_chain() finds two frames equal by name when either is an
 * inlined function's, else by DSO and start (or ip).  By the node's
 * children by name (note_child), not a walk of its children: a node
 * can have thousands.
 */
static uint32_t child_by_name(const struct pda_report *rep, uint32_t node,
			      const struct cframe *cf)
{
	const struct cbyname key = {.parent = node,
				    .name = cf->cname ? cf->cname->id : 0};
	const struct cbyname *b;

	if (!cf->cname || !(cf->k.kind == CF_INLINED || cf->cname->inlined))
		return 0;
	b = pdc_hash_find(&rep->by_cbyname, cbyname_hash(node, key.name),
			  cbyname_eq, &key);
	if (!b)
		return 0;
	/* an inlined frame matches any of its name, a symbol's only an
	 * inlined one */
	return cf->k.kind == CF_INLINED ? b->any : b->inl;
}

/* Child id of node parent, just made for frame cf, in child_by_name's
 * index: the first of its name, or of an inlined frame's.  0 or NOMEM. */
static int note_child(struct pda_report *rep, uint32_t parent, uint32_t id,
		      const struct cframe *cf)
{
	const bool inl = cf->k.kind == CF_INLINED;
	struct cbyname key = {.parent = parent};
	struct pdc_hash_slot *slot;
	struct cbyname *b;
	uint64_t h;

	if (!cf->cname)
		return 0;
	key.name = cf->cname->id;
	h = cbyname_hash(parent, key.name);
	if (pdc_hash_reserve(&rep->mem, &rep->by_cbyname) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&rep->by_cbyname, h, cbyname_eq, &key);
	if (slot->item) {
		b = slot->item;
		if (inl && !b->inl)
			b->inl = id;
		return 0;
	}
	b = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*b));
	if (!b)
		return PD_ERR_NOMEM;
	*b = key;
	b->any = id;
	b->inl = inl ? id : 0;
	pdc_hash_fill(&rep->by_cbyname, slot, h, b);
	return 0;
}

static bool cchild_eq(const void *item, const void *key)
{
	const struct cchild *a = item, *b = key;

	return a->parent == b->parent && a->frame == b->frame;
}

/* A new call graph node: its id, or 0 (out of memory). */
static uint32_t cnode_new(struct pda_report *rep, uint32_t parent,
			  uint32_t frame)
{
	struct cnode *n;

	if (rep->nr_cnodes == 0)
		rep->nr_cnodes = 1;	/* id 0: no node */
	if (rep->nr_cnodes >= UINT32_MAX ||
	    PDC_GROW(&rep->mem, rep->cnodes, rep->alloc_cnodes,
		     rep->nr_cnodes + 1, (size_t)UINT32_MAX) < 0)
		return 0;
	n = &rep->cnodes[rep->nr_cnodes];
	memset(n, 0, sizeof(*n));
	n->pub.parent = parent;
	n->frame = frame;
	if (parent) {
		/* the children's order is made in pda_report_finish() */
		n->pub.next = rep->cnodes[parent].pub.child;
		rep->cnodes[parent].pub.child = (uint32_t)rep->nr_cnodes;
	}
	return (uint32_t)rep->nr_cnodes++;
}

/* The node of chain[0..nr) under root, made as needed: 0 out of memory. */
static uint32_t graph_walk(struct pda_report *rep, uint32_t root,
			   const uint32_t *chain, size_t nr)
{
	uint32_t node = root;

	for (size_t i = 0; i < nr; i++) {
		const struct cchild key = {.parent = node, .frame = chain[i]};
		const uint64_t h = pdc_hash_u64((uint64_t)node << 32 | chain[i]);
		struct pdc_hash_slot *slot;
		struct cchild *c;

		if (pdc_hash_reserve(&rep->mem, &rep->by_child) < 0)
			return 0;
		slot = pdc_hash_probe(&rep->by_child, h, cchild_eq, &key);
		if (slot->item) {
			node = ((const struct cchild *)slot->item)->id;
			continue;
		}
		c = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*c));
		if (!c)
			return 0;
		*c = key;
		c->id = child_by_name(rep, node, rep->cframes[chain[i]]);
		if (!c->id &&
		    (!(c->id = cnode_new(rep, node, chain[i])) ||
		     note_child(rep, node, c->id, rep->cframes[chain[i]]) < 0))
			return 0;
		pdc_hash_fill(&rep->by_child, slot, h, c);
		node = c->id;
	}
	return node;
}

/* Add period to entry i of summary s's graph in event ev (v its values). */
static int graph_add(struct pda_report *rep, struct event *ev,
		     struct summary *s, uint32_t i, struct pda_report_val *v,
		     uint64_t period)
{
	const uint32_t member = (uint32_t)(ev - rep->events);
	/* graphs made as samples come: a wide summary with term */
	uint32_t *term = sum_at(s, rep->lay.term * s->cap);
	const uint32_t start = sum_get(s, s->cap + i);
	struct cnode *n;

	/* perf's callchain_append() adds nothing for an empty cursor */
	if (!s->nr_chain)
		return 0;
	if (s->cache_ev != member) {
		memset(term, 0, s->nr * sizeof(*term));
		s->cache_ev = member;
	}
	if (!v->chain) {
		v->chain = cnode_new(rep, 0, UINT32_MAX);
		if (!v->chain)
			return PD_ERR_NOMEM;
		term[i] = 0;
	}
	/* a cached node is in this entry's graph: the cpu and parallelism
	 * keys map one summary entry to several, whose graphs are walked
	 * each time */
	if (!term[i] || rep->per_sample) {
		const uint32_t t = graph_walk(
			rep, v->chain,
			s->data + rep->lay.chain * s->cap + start,
			s->nr_chain - start);

		if (!t)
			return PD_ERR_NOMEM;
		term[i] = t;
	}
	n = &rep->cnodes[term[i]];
	n->pub.hit += period;
	n->pub.count++;
	if (s->nr_chain - start > v->max_depth)
		v->max_depth = s->nr_chain - start;
	return 0;
}

static bool recref_eq(const void *item, const void *key)
{
	const struct recref *a = item, *b = key;

	return a->s == b->s && a->member == b->member;
}

/* A new record of summary s in event ev: its index, or -1. */
static int64_t rec_new(struct pda_report *rep, struct event *ev,
		       const struct summary *s)
{
	if (PDC_GROW(&rep->mem, ev->recs, ev->alloc_recs, ev->nr_recs + 1,
		     (size_t)UINT32_MAX) < 0)
		return -1;
	ev->recs[ev->nr_recs] = (struct rec){
		.s = s, .first_time = UINT64_MAX, .first_seq = UINT64_MAX};
	return (int64_t)ev->nr_recs++;
}

/* Deferred graphs: add a sample of summary s to its record in event ev
 * (a summary's first event's is at hand, the others' hashed). */
static int rec_add(struct pda_report *rep, struct event *ev,
		   struct summary *s, uint64_t period)
{
	const uint32_t member = (uint32_t)(ev - rep->events);
	int64_t idx;

	if (s->rec_ev == member) {
		idx = s->rec;
	} else if (s->rec_ev == UINT32_MAX) {
		idx = rec_new(rep, ev, s);
		if (idx < 0)
			return PD_ERR_NOMEM;
		s->rec_ev = member;
		s->rec = (uint32_t)idx;
	} else {
		const struct recref key = {.s = s, .member = member};
		const uint64_t h =
			pdc_hash_u64((uint64_t)(uintptr_t)s ^ member);
		struct pdc_hash_slot *slot;
		struct recref *r;

		if (pdc_hash_reserve(&rep->mem, &rep->by_rec) < 0)
			return PD_ERR_NOMEM;
		slot = pdc_hash_probe(&rep->by_rec, h, recref_eq, &key);
		if (slot->item) {
			idx = ((const struct recref *)slot->item)->idx;
		} else {
			r = pdc_arena_alloc(&rep->arena, &rep->mem, sizeof(*r));
			idx = r ? rec_new(rep, ev, s) : -1;
			if (idx < 0)
				return PD_ERR_NOMEM;
			*r = key;
			r->idx = (uint32_t)idx;
			pdc_hash_fill(&rep->by_rec, slot, h, r);
		}
	}
	ev->recs[idx].period += period;
	ev->recs[idx].count++;
	if (rep->any_order &&
	    okey_cmp(&rep->at,
		     &(struct okey){.time = ev->recs[idx].first_time,
				    .seq = ev->recs[idx].first_seq}) < 0) {
		ev->recs[idx].first_time = rep->at.time;
		ev->recs[idx].first_seq = rep->at.seq;
	}
	return 0;
}

/* The values of event ev for entries up to id, zeroed as they are made. */
static struct pda_report_val *val_at(struct pda_report *rep, struct event *ev,
				     uint32_t id)
{
	if (id >= ev->nr_v) {
		const size_t want = rep->nr_ents > (size_t)id + 1
					    ? rep->nr_ents
					    : (size_t)id + 1;

		if (PDC_GROW(&rep->mem, ev->v, ev->alloc_v, want,
			     PDA_PROFILE_MAX_ITEMS) < 0)
			return NULL;
		memset(ev->v + ev->nr_v, 0,
		       (want - ev->nr_v) * sizeof(*ev->v));
		ev->nr_v = want;
	}
	return &ev->v[id];
}

/* Any order with opts' dsos: the place of event ev's first sample of
 * entry id, OKEY_LAST before it has one; NULL: out of memory. */
static struct okey *val_first(struct pda_report *rep, struct event *ev,
			      uint32_t id)
{
	if (id >= ev->nr_vfirst) {
		const size_t want = ev->nr_v > (size_t)id + 1 ? ev->nr_v
							      : (size_t)id + 1;

		if (PDC_GROW(&rep->mem, ev->vfirst, ev->alloc_vfirst, want,
			     PDA_PROFILE_MAX_ITEMS) < 0)
			return NULL;
		for (size_t i = ev->nr_vfirst; i < want; i++)
			ev->vfirst[i] = OKEY_LAST;
		ev->nr_vfirst = want;
	}
	return &ev->vfirst[id];
}

static struct event *event_of(struct pda_report *rep,
			      const struct pd_evsel *evsel)
{
	const size_t idx = evsel ? evsel->idx : 0;

	if (idx >= rep->nr_events) {
		if (PDC_GROW(&rep->mem, rep->events, rep->alloc_events, idx + 1,
			     (size_t)1 << 16) < 0)
			return NULL;
		memset(rep->events + rep->nr_events, 0,
		       (idx + 1 - rep->nr_events) * sizeof(*rep->events));
		rep->nr_events = idx + 1;
	}
	if (!rep->events[idx].evsel)
		rep->events[idx].evsel = evsel;
	return &rep->events[idx];
}

/* data_src's fields as union perf_mem_data_src lays them out */
#define DS_LVL(d) (((d) >> 5) & 0x3fff)
#define DS_SNOOP(d) (((d) >> 19) & 0x1f)
#define DS_LOCK(d) (((d) >> 24) & 0x3)
#define DS_TLB(d) (((d) >> 26) & 0x7f)
#define DS_BLK(d) (((d) >> 40) & 0x7)

/* perf's al->socket: the topology's socket_id of the sample's CPU, -1
 * without a CPU or per-CPU ids (perf reads the ids without checking
 * the CPU against them: a CPU past them is -1 here) */
static int32_t socket_of(const struct pda_report *rep,
			 const struct pd_sample *sample)
{
	const struct pd_env *env = rep->env;

	if (!(sample->mask & PD_SAMPLE_CPU) || !env ||
	    !env->cpu_topology.has_cpu_ids ||
	    sample->cpu >= env->cpu_topology.nr_cpus)
		return -1;
	return (int32_t)env->cpu_topology.cpus[sample->cpu].socket_id;
}

#define MAP_SHARED_FLAG 0x01u /* MAP_SHARED, in MMAP2 flags */
#define PROT_EXEC_FLAG 0x4u   /* PROT_EXEC, in MMAP2 prot */
#define DCACHE_LINE 64u	      /* perf's cacheline_size() on x86 and arm64 */

/* The dcacheline key of a sample whose data address addr resolved to
 * d, as perf 6.1's sort__dcacheline_cmp() and
 * hist_entry__dcacheline_snprintf() take it. */
static void dcl_key(const struct pd_sample *sample, uint64_t addr,
		    const struct pda_daddr *d, struct mkey *mk,
		    struct mshow *show)
{
	const unsigned mode = sample->misc & PD_MISC_CPUMODE_MASK;
	const struct pda_map_id *id = &d->map;
	const bool no_id = !id->maj && !id->min && !id->ino &&
			   !id->ino_generation;

	mk->dcl = d->al_addr & ~(uint64_t)(DCACHE_LINE - 1);
	mk->dcl_mode = mode << 1 | !id->found;
	mk->dcl_maj = id->maj;
	mk->dcl_min = id->min;
	mk->dcl_ino = id->ino;
	mk->dcl_gen = id->ino_generation;
	/* "addresses with no major/minor numbers are assumed to be
	 * anonymous in userspace": their lines are the process's own */
	if (id->found && mode != PD_MISC_KERNEL &&
	    !(id->flags & MAP_SHARED_FLAG) && no_id)
		mk->dcl_pid = sample->pid;
	show->dcl_level = show->level;
	if (!id->found)
		show->dcl_level = 'X';
	else if (mode != PD_MISC_KERNEL && !(id->prot & PROT_EXEC_FLAG) &&
		 (id->flags & MAP_SHARED_FLAG) && !no_id)
		show->dcl_level = 's';
	/* perf prints the line less the symbol's address: the line is
	 * map-relative, the symbol's address is not */
	show->dcl_off = mk->dcl - (addr - d->off);
}

/* The sample's memory key values, as perf 6.1's hist entry takes them
 * (evsel__parse_sample, mem_info): a WEIGHT_STRUCT's var1 is the
 * weight and var2 ins_lat, except on a trace's synthesized samples
 * (perf 6.1's arm_spe sets the weight alone); without a data_src every
 * field is its N/A (perf's mem_info of zeroes prints "N/A"). */
static int mem_key(struct pda_report *rep, const struct pd_sample *sample,
		   struct mkey *mk, struct mshow *show)
{
	const uint64_t ds =
		sample->mask & PD_SAMPLE_DATA_SRC ? sample->data_src : 0;
	const bool synth = sample->evsel && sample->evsel->synth;

	if (sample->mask & PD_SAMPLE_WEIGHT_STRUCT) {
		mk->weight = sample->weight_var1;
		mk->ins_lat = synth ? 0 : sample->weight_var2;
	} else if (sample->mask & PD_SAMPLE_WEIGHT) {
		mk->weight = sample->weight;
	}
	if (!rep->has[PDA_REPORT_LOCAL_WEIGHT] && !rep->has[PDA_REPORT_WEIGHT])
		mk->weight = 0;
	if (!rep->has[PDA_REPORT_LOCAL_INS_LAT] && !rep->has[PDA_REPORT_INS_LAT])
		mk->ins_lat = 0;
	show->data_src = ds;
	show->level = (sample->misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL
			      ? 'k'
			      : '.';
	if (rep->has[PDA_REPORT_MEM])
		mk->lvl = DS_LVL(ds);
	if (rep->has[PDA_REPORT_SNOOP])
		mk->snoop = DS_SNOOP(ds);
	if (rep->has[PDA_REPORT_TLB])
		mk->tlb = DS_TLB(ds);
	if (rep->has[PDA_REPORT_LOCKED])
		mk->lock = DS_LOCK(ds);
	if (rep->has[PDA_REPORT_BLOCKED])
		mk->blk = DS_BLK(ds);
	/* perf's hist_time(): the time less its remainder by the
	 * quantum */
	if (rep->has[PDA_REPORT_TIME])
		mk->time = sample->time - sample->time % rep->time_quantum;
	if (rep->has[PDA_REPORT_SOCKET])
		mk->socket = socket_of(rep, sample);
	if (rep->has[PDA_REPORT_TRANSACTION] &&
	    (sample->mask & PD_SAMPLE_TRANSACTION))
		mk->txn = sample->transaction;
	if (rep->has[PDA_REPORT_CODE_PAGE] &&
	    (sample->mask & PD_SAMPLE_CODE_PAGE_SIZE))
		mk->code_page = sample->code_page_size;
	if (rep->has[PDA_REPORT_DATA_PAGE] &&
	    (sample->mask & PD_SAMPLE_DATA_PAGE_SIZE))
		mk->data_page = sample->data_page_size;
	if (rep->has[PDA_REPORT_PHYS_DADDR] &&
	    (sample->mask & PD_SAMPLE_PHYS_ADDR))
		mk->phys = sample->phys_addr;
	if (rep->has[PDA_REPORT_CGROUP] && (sample->mask & PD_SAMPLE_CGROUP))
		mk->cgroup = sample->cgroup;
	/* perf's hist entry takes its thread's namespaces as they are
	 * when the sample is processed (thread__namespaces()) */
	if (rep->has[PDA_REPORT_CGROUP_ID])
		mk->cgns = rep->cgns;
	/* perf's get_trace_output(), a tracepoint event's only */
	if (rep->has[PDA_REPORT_TRACE] &&
	    sample->evsel->attr.type == PERF_TYPE_TRACEPOINT) {
		const char *text;
		size_t len;
		int rc = rep->trace_text(rep->trace_text_arg, sample, &text,
					 &len);

		if (rc < 0)
			return rc;
		if (intern(rep, text ? text : "", text ? len : 0,
			   &mk->trace) < 0)
			return PD_ERR_NOMEM;
	}
	if (rep->has[PDA_REPORT_DADDR_SYM] || rep->has[PDA_REPORT_DADDR_DSO] ||
	    rep->has[PDA_REPORT_DCACHELINE]) {
		const uint64_t addr =
			sample->mask & PD_SAMPLE_ADDR ? sample->addr : 0;
		struct pda_daddr d;
		int rc = rep->data_addr(rep->data_addr_arg, sample, &d);

		if (rc < 0)
			return rc;
		if (d.dso && dso_short(rep, d.dso, &d.dso) < 0)
			return PD_ERR_NOMEM;
		if (d.sym && intern(rep, d.sym, strlen(d.sym), &d.sym) < 0)
			return PD_ERR_NOMEM;
		if (rep->has[PDA_REPORT_DADDR_DSO])
			mk->ddso = d.dso;
		if (rep->has[PDA_REPORT_DADDR_SYM])
			mk->daddr = addr;
		show->daddr_sym = d.sym;
		show->daddr_off = d.off;
		show->object = d.object;
		if (rep->has[PDA_REPORT_DCACHELINE])
			dcl_key(sample, addr, &d, mk, show);
	}
	return 0;
}

/* Whether perf's he_tmp, a callchain entry made without the sample's
 * time, socket, transaction, code page size, cgroup and cgroup
 * namespace, equals the sample's entry: those keys' values all 0. */
static bool he_tmp_equal(const struct mkey *mk)
{
	return !mk->time && !mk->socket && !mk->txn && !mk->code_page &&
	       !mk->cgroup && !mk->cgns.dev && !mk->cgns.ino;
}

static int add_summary(struct pda_report *rep, const struct pd_sample *sample,
		       struct summary *s, uint64_t latency, unsigned level,
		       uint64_t n)
{
	struct event *ev = event_of(rep, sample->evsel);
	const uint64_t period = sample->period;
	struct mkey mk;
	struct mshow show;

	if (!ev)
		return PD_ERR_NOMEM;
	memset(&mk, 0, sizeof(mk));
	memset(&show, 0, sizeof(show));
	if (rep->mem_keys) {
		int rc = mem_key(rep, sample, &mk, &show);

		if (rc < 0)
			return rc;
	}
	for (uint32_t i = 0; i < s->nr; i++) {
		struct pda_report_val *v;
		uint32_t id = sum_get(s, i);

		if (rep->cum_again &&
		    sum_get(s, rep->lay.again * s->cap + i) &&
		    he_tmp_equal(&mk))
			continue;
		if (rep->per_sample) {
			/* perf's al->cpu is -1 when the event does not
			 * sample it */
			const int32_t cpu =
				!rep->has[PDA_REPORT_CPU] ? 0
				: sample->mask & PD_SAMPLE_CPU
					? (int32_t)sample->cpu
					: -1;
			int rc = sample_entry(
				rep, id, sample, cpu,
				rep->has[PDA_REPORT_PARALLELISM] ? level : 0,
				&mk, &show, &id);

			if (rc < 0)
				return rc;
		}
		v = val_at(rep, ev, id);
		if (!v)
			return PD_ERR_NOMEM;
		/* perf's hist entry keeps the filter state of the sample
		 * that made it (hists__findnew_entry) */
		if (rep->any_order && (rep->dso_list || rep->sample_syms)) {
			struct okey *f = val_first(rep, ev, id);

			if (!f)
				return PD_ERR_NOMEM;
			if (okey_cmp(&rep->at, f) < 0) {
				*f = rep->at;
				v->dso_filtered = s->out;
			}
		} else if (!v->acc_samples) {
			v->dso_filtered = s->out;
		}
		if (i == 0) {
			v->samples += n;
			v->period += period * n;
			v->latency += latency * n;
		}
		v->acc_latency += latency * n;
		v->acc_samples += n;
		v->acc_period += period * n;
		if (rep->deferred) {
			const uint32_t len =
				s->nr_chain - sum_get(s, s->cap + i);

			if (s->nr_chain && len > v->max_depth)
				v->max_depth = len;
		} else if (rep->flags & PDA_REPORT_CALLCHAIN) {
			int rc = graph_add(rep, ev, s, i, v, period);

			if (rc < 0)
				return rc;
		}
	}
	/* perf's callchain_append() adds nothing for an empty cursor */
	for (uint64_t k = 0; rep->deferred && s->nr_chain && k < n; k++) {
		int rc = rec_add(rep, ev, s, period);

		if (rc < 0)
			return rc;
	}
	ev->nr_samples += n;
	ev->total_period += period * n;
	ev->total_latency += latency * n;
	rep->st.nr_samples += n;
	rep->st.nr_truncated += s->truncated * n;
	return 0;
}

int pda_report_add_latency(struct pda_report *rep,
			   const struct pd_sample *sample,
			   const struct pda_stack *st, const char *comm,
			   uint64_t *cookie, uint64_t latency, unsigned level)
{
	struct summary *s = NULL;
	const uint64_t n = rep->count;
	int rc;

	rep->count = 1;
	if (rep->done)
		return PD_ERR_API;
	/* deferred graphs read every summary again at the end */
	rc = make_summary(rep, sample, st, comm, cookie || rep->deferred, &s);
	rep->ip_leaf = NULL;
	if (rc < 0)
		return rc;
	if (cookie)
		*cookie = (uint64_t)(uintptr_t)s;
	return add_summary(rep, sample, s, latency, level, n);
}

int pda_report_add_total(struct pda_report *rep,
			 const struct pd_sample *sample, uint64_t latency)
{
	struct event *ev;

	rep->ip_leaf = NULL;
	if (rep->done)
		return PD_ERR_API;
	ev = event_of(rep, sample->evsel);
	if (!ev)
		return PD_ERR_NOMEM;
	ev->nr_samples++;
	ev->total_period += sample->period;
	ev->total_latency += latency;
	rep->st.nr_samples++;
	return 0;
}

int pda_report_set_env(struct pda_report *rep, const struct pd_env *env)
{
	if (rep->done)
		return PD_ERR_API;
	rep->env = env;
	return 0;
}

int pda_report_add(struct pda_report *rep, const struct pd_sample *sample,
		   const struct pda_stack *st, const char *comm,
		   uint64_t *cookie)
{
	return pda_report_add_latency(rep, sample, st, comm, cookie, 0, 0);
}

/* What add_summary() adds for pending p's samples (rep->batch). */
static void add_pending(struct pda_report *rep, struct pending *p)
{
	struct summary *s = p->s;
	struct event *ev = &rep->events[p->ev];

	for (uint32_t i = 0; i < s->nr; i++) {
		/* made by the summary's first sample */
		struct pda_report_val *v = &ev->v[sum_get(s, i)];

		if (i == 0) {
			v->samples += p->n;
			v->period += p->period;
		}
		v->acc_samples += p->n;
		v->acc_period += p->period;
	}
	if (rep->deferred && s->nr_chain) {
		struct rec *r = &ev->recs[s->rec];

		r->period += p->period;
		r->count += p->n;
		if (okey_cmp(&p->at, &(struct okey){.time = r->first_time,
						    .seq = r->first_seq}) < 0) {
			r->first_time = p->at.time;
			r->first_seq = p->at.seq;
		}
	}
	ev->nr_samples += p->n;
	ev->total_period += p->period;
	rep->st.nr_samples += p->n;
	rep->st.nr_truncated += s->truncated * p->n;
	p->s = NULL;
}

/* Every pending hit added. */
static void add_all_pending(struct pda_report *rep)
{
	for (size_t i = 0; rep->batch && i < PEND_SLOTS; i++)
		if (rep->pend[i].s)
			add_pending(rep, &rep->pend[i]);
}

/*
 * A hit of summary s counted later, where that adds as add_summary()
 * would: its event's values and its record made already (by the
 * summary's first sample of that event), no latency.  @return whether
 * it was.
 */
static bool batched(struct pda_report *rep, const struct pd_sample *sample,
		    struct summary *s, uint64_t latency, uint64_t n)
{
	const size_t idx = sample->evsel ? sample->evsel->idx : 0;
	struct event *ev;
	struct pending *p;

	if (!rep->batch || latency || idx >= rep->nr_events)
		return false;
	ev = &rep->events[idx];
	if (!ev->evsel ||
	    (rep->deferred && s->nr_chain && s->rec_ev != (uint32_t)idx))
		return false;
	p = &rep->pend[pdc_hash_u64((uintptr_t)s ^ idx) & (PEND_SLOTS - 1)];
	if (p->s != s || p->ev != idx) {
		/* each entry counted in this event before: the first add
		 * set what it keeps of its first sample */
		for (uint32_t i = 0; i < s->nr; i++) {
			const uint32_t id = sum_get(s, i);

			if (id >= ev->nr_v || !ev->v[id].acc_samples)
				return false;
		}
		if (p->s)
			add_pending(rep, p);
		*p = (struct pending){.s = s, .ev = idx, .at = rep->at};
	} else if (okey_cmp(&rep->at, &p->at) < 0) {
		p->at = rep->at;
	}
	p->n += n;
	p->period += sample->period * n;
	return true;
}

int pda_report_add_again_latency(struct pda_report *rep,
				 const struct pd_sample *sample,
				 uint64_t cookie, uint64_t latency,
				 unsigned level)
{
	struct summary *s = (struct summary *)(uintptr_t)cookie;
	const uint64_t n = rep->count;

	rep->ip_leaf = NULL;
	rep->count = 1;
	if (rep->done || !cookie)
		return PD_ERR_API;
	if (rep->any_order &&
	    okey_cmp(&rep->at, &(struct okey){.time = s->first_time,
					      .seq = s->first_seq}) < 0) {
		int rc = summary_earlier(rep, s, sample);

		if (rc < 0)
			return rc;
	}
	if (batched(rep, sample, s, latency, n))
		return 0;
	return add_summary(rep, sample, s, latency, level, n);
}

int pda_report_add_again(struct pda_report *rep,
			 const struct pd_sample *sample, uint64_t cookie)
{
	return pda_report_add_again_latency(rep, sample, cookie, 0, 0);
}

/* ---- sorting ---------------------------------------------------------- */

/* What a table's comparison looks at. */
struct sort_ctx {
	const struct pda_report *rep;
	const struct table *t;
};

/* perf's sign convention throughout: > 0 puts a before b. */
static int field_cmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* sort.c sort__dso_cmp(a, b) */
static int dso_cmp(const struct ent *a, const struct ent *b)
{
	if (!a->pub.dso || !b->pub.dso)
		return pda_cmp_null(a->pub.dso, b->pub.dso);
	return pda_str_sort(a->pub.dso, b->pub.dso);
}

/* sort.c sort__sym_cmp(a, b): perf's merge order for symbols. */
static int sym_collapse(const struct ent *a, const struct ent *b)
{
	int c;

	if (!a->pub.sym && !b->pub.sym)
		return pda_sgn64((int64_t)(b->pub.addr - a->pub.addr));
	c = dso_cmp(a, b);
	if (c)
		return c;
	if (!a->pub.sym || !b->pub.sym)
		return pda_cmp_null(a->pub.sym, b->pub.sym);
	if (a->pub.inlined || b->pub.inlined) {
		c = strcmp(a->pub.sym, b->pub.sym);
		if (c)
			return (c > 0) - (c < 0);
	}
	if (a->sym_start != b->sym_start)
		return pda_sgn64((int64_t)(b->sym_start - a->sym_start));
	return pda_str_sort(a->pub.sym, b->pub.sym);
}

/* Key k's comparison: its output sort (collapse false) or merge order. */
/* perf 6.1's sort__dcacheline_cmp(): each field, the larger first */
static int dcl_cmp(const struct mkey *a, const struct mkey *b)
{
	const uint64_t l[] = {a->dcl_mode, a->dcl_maj, a->dcl_min, a->dcl_ino,
			      a->dcl_gen, a->dcl_pid, a->dcl};
	const uint64_t r[] = {b->dcl_mode, b->dcl_maj, b->dcl_min, b->dcl_ino,
			      b->dcl_gen, b->dcl_pid, b->dcl};

	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (l[i] != r[i])
			return l[i] > r[i] ? -1 : 1;
	return 0;
}

static int key_cmp(enum pda_report_key k, const struct ent *a,
		   const struct ent *b, bool collapse)
{
	switch (k) {
	case PDA_REPORT_COMM:
		return pda_str_sort(a->pub.comm, b->pub.comm);
	case PDA_REPORT_PID:
		return pda_sgn64((int64_t)b->pub.tid - a->pub.tid);
	case PDA_REPORT_DSO:
		return dso_cmp(a, b);
	case PDA_REPORT_SYM:
		if (collapse)
			return sym_collapse(a, b);
		if (!a->pub.sym || !b->pub.sym)
			return pda_cmp_null(a->pub.sym, b->pub.sym);
		return pda_str_sort(a->pub.sym, b->pub.sym);
	case PDA_REPORT_SYMOFF: {
		/* perf >= 6.10: the sym key's comparison, then
		 * left->ip - right->ip */
		const int c = key_cmp(PDA_REPORT_SYM, a, b, collapse);

		if (c)
			return c;
		if (!a->pub.sym || !b->pub.sym)
			return pda_sgn64((int64_t)(a->pub.addr - b->pub.addr));
		return pda_sgn64((int64_t)(a->pub.sym_off - b->pub.sym_off));
	}
	case PDA_REPORT_SRCLINE:
		return pda_str_sort(a->pub.srcline, b->pub.srcline);
	case PDA_REPORT_SRCFILE:
		return pda_str_sort(a->pub.srcfile, b->pub.srcfile);
	case PDA_REPORT_CPU:
		return pda_sgn64((int64_t)b->pub.cpu - a->pub.cpu);
	case PDA_REPORT_PARALLELISM:
		/* perf >= 6.15's sort__parallelism_cmp(): right - left */
		return pda_sgn64((int64_t)b->pub.parallelism - a->pub.parallelism);
	case PDA_REPORT_PARENT:
		if (!a->pub.parent || !b->pub.parent)
			return pda_cmp_null(a->pub.parent, b->pub.parent);
		return pda_str_sort(a->pub.parent, b->pub.parent);
	case PDA_REPORT_TYPE:
		/* perf >= 6.8's sort__type_sort(): strcmp(left, right) */
		return -pda_str_sort(a->pub.type, b->pub.type);
	case PDA_REPORT_TYPEOFF: {
		const int c = -pda_str_sort(a->pub.type, b->pub.type);

		return c ? c : pda_sgn64(a->pub.type_off - b->pub.type_off);
	}
	case PDA_REPORT_TYPECLN: {
		/* perf's sort__typecln_sort(): the type, then the line */
		const int c = -pda_str_sort(a->pub.type, b->pub.type);

		return c ? c
			 : pda_sgn64(a->pub.type_off / CACHE_LINE -
				     b->pub.type_off / CACHE_LINE);
	}
	case PDA_REPORT_LOCAL_WEIGHT:
	case PDA_REPORT_WEIGHT:
		/* sort__weight_cmp(): left - right, as int64 */
		return pda_sgn64((int64_t)(a->pub.weight - b->pub.weight));
	case PDA_REPORT_LOCAL_INS_LAT:
	case PDA_REPORT_INS_LAT:
		return pda_sgn64((int64_t)a->pub.ins_lat - b->pub.ins_lat);
	/* sort__lvl_cmp() and the others: right's field - left's */
	case PDA_REPORT_MEM:
		return pda_sgn64((int64_t)b->k.m.lvl - (int64_t)a->k.m.lvl);
	case PDA_REPORT_SNOOP:
		return pda_sgn64((int64_t)b->k.m.snoop - (int64_t)a->k.m.snoop);
	case PDA_REPORT_TLB:
		return pda_sgn64((int64_t)b->k.m.tlb - (int64_t)a->k.m.tlb);
	case PDA_REPORT_LOCKED:
		return pda_sgn64((int64_t)b->k.m.lock - (int64_t)a->k.m.lock);
	case PDA_REPORT_BLOCKED:
		return pda_sgn64((int64_t)b->k.m.blk - (int64_t)a->k.m.blk);
	case PDA_REPORT_DADDR_SYM:
		return pda_sgn64((int64_t)(b->pub.daddr - a->pub.daddr));
	case PDA_REPORT_PHYS_DADDR:
		return pda_sgn64(
			(int64_t)(b->pub.phys_daddr - a->pub.phys_daddr));
	case PDA_REPORT_DCACHELINE:
		return dcl_cmp(&a->k.m, &b->k.m);
	case PDA_REPORT_TRANSACTION:
		/* sort__transaction_cmp(): left - right */
		return pda_sgn64((int64_t)(a->k.m.txn - b->k.m.txn));
	case PDA_REPORT_CODE_PAGE:
		return pda_sgn64((int64_t)(b->k.m.code_page - a->k.m.code_page));
	case PDA_REPORT_DATA_PAGE:
		return pda_sgn64((int64_t)(b->k.m.data_page - a->k.m.data_page));
	case PDA_REPORT_SOCKET:
		/* sort__socket_cmp(): right - left */
		return pda_sgn64((int64_t)b->k.m.socket - a->k.m.socket);
	case PDA_REPORT_TIME:
		/* sort__time_cmp(): right - left */
		return pda_sgn64((int64_t)(b->k.m.time - a->k.m.time));
	case PDA_REPORT_IADDR:
		/* sort__iaddr_cmp(): right - left */
		return pda_sgn64((int64_t)(b->k.iaddr - a->k.iaddr));
	case PDA_REPORT_ADDR:
		/* _sort__addr_cmp(): right - left */
		return pda_sgn64((int64_t)(b->k.addr - a->k.addr));
	case PDA_REPORT_SYM_SIZE:
		/* _sort__sym_size_cmp(right, left) on int64_t sizes */
		return pda_cmp_i64((int64_t)b->k.sym_size, (int64_t)a->k.sym_size);
	case PDA_REPORT_DSO_SIZE:
		return pda_cmp_i64((int64_t)b->k.dso_size, (int64_t)a->k.dso_size);
	case PDA_REPORT_TRACE:
		/* sort__trace_cmp(): 0 but for a tracepoint's rows, there
		 * strcmp(right, left) */
		if (!a->k.m.trace || !b->k.m.trace)
			return 0;
		return pda_str_sort(a->k.m.trace, b->k.m.trace);
	case PDA_REPORT_CGROUP:
		/* sort__cgroup_cmp(): right - left */
		return pda_sgn64((int64_t)(b->k.m.cgroup - a->k.m.cgroup));
	case PDA_REPORT_CGROUP_ID:
		/* sort__cgroup_id_cmp() swaps its arguments and its helpers
		 * swap them back: left - right, the device, then the inode */
		if (a->k.m.cgns.dev != b->k.m.cgns.dev)
			return pda_sgn64(
				(int64_t)(a->k.m.cgns.dev - b->k.m.cgns.dev));
		return pda_sgn64((int64_t)(a->k.m.cgns.ino - b->k.m.cgns.ino));
	case PDA_REPORT_DADDR_DSO:
		/* _sort__dso_cmp() of the data maps */
		if (!a->pub.daddr_dso || !b->pub.daddr_dso)
			return pda_cmp_null(b->pub.daddr_dso, a->pub.daddr_dso);
		return pda_str_sort(a->pub.daddr_dso, b->pub.daddr_dso);
	case PDA_REPORT_NR_KEYS:
		break;
	}
	return 0;
}

enum val_field {
	F_ACC_PERIOD,
	F_PERIOD,
	F_SAMPLES,
	F_LATENCY,
	F_ACC_LATENCY
};

/* pda_report_val(), inlined where the sort compares rows. */
static const struct pda_report_val *val_of(const struct pda_report *rep,
					   unsigned member, uint32_t id)
{
	static const struct pda_report_val zero;
	const struct event *ev;

	if (member >= rep->nr_events)
		return &zero;
	ev = &rep->events[member];
	return id < ev->nr_v ? &ev->v[id] : &zero;
}

static uint64_t val_field(const struct sort_ctx *c, unsigned m, uint32_t id,
			  enum val_field f)
{
	const struct pda_report_val *v = val_of(c->rep, c->t->members[m], id);

	switch (f) {
	case F_ACC_PERIOD:
		return v->acc_period;
	case F_PERIOD:
		return v->period;
	case F_SAMPLES:
		return v->samples;
	case F_LATENCY:
		return v->latency;
	case F_ACC_LATENCY:
		return v->acc_latency;
	}
	return 0;
}

/* hpp's __hpp__sort: the leader's field, then (group) the members'. */
static int hpp_sort(const struct sort_ctx *c, uint32_t a, uint32_t b,
		    enum val_field f)
{
	for (unsigned m = 0; m < c->t->pub.nr_members; m++) {
		const int r = field_cmp(val_field(c, m, a, f),
					val_field(c, m, b, f));

		if (r)
			return r;
	}
	return 0;
}

/* A children column's order (f: F_ACC_PERIOD or F_ACC_LATENCY), as
 * perf's __hpp__sort_acc(). */
static int acc_cmp(const struct sort_ctx *c, uint32_t a, uint32_t b,
		   enum val_field f)
{
	const struct pda_report *rep = c->rep;
	const struct ent *ea = rep->ents[a], *eb = rep->ents[b];
	int r = field_cmp(val_field(c, 0, a, f), val_field(c, 0, b, f));

	/* "put caller above callee when they have equal period", by their
	 * graphs' depths */
	if (!r && (rep->flags & PDA_REPORT_CALLCHAIN) &&
	    ea->pub.tid == eb->pub.tid &&
	    ea->pub.pid == eb->pub.pid) {
		const unsigned m = c->t->members[0];

		r = field_cmp(pda_report_val(rep, m, a)->max_depth,
			      pda_report_val(rep, m, b)->max_depth);
		if (!rep->root_first)
			r = -r;
	}
	return r ? r : hpp_sort(c, a, b, f);
}

/* row_cmp() past the overhead columns: the keys, then the samples and
 * period columns. */
static int row_keys_cmp(const struct sort_ctx *c, const struct ent *ea,
			const struct ent *eb, uint32_t a, uint32_t b)
{
	const struct pda_report *rep = c->rep;
	int r = 0;

	/* an elided key does not sort (perf_hpp__should_skip) */
	for (unsigned i = 0; !r && i < rep->nr_keys; i++)
		if (!rep->elided[i])
			r = key_cmp(rep->keys[i], ea, eb, false);
	if (!r && (rep->flags & PDA_REPORT_NR_SAMPLES))
		r = hpp_sort(c, a, b, F_SAMPLES);
	if (!r && (rep->flags & PDA_REPORT_PERIOD))
		r = hpp_sort(c, a, b, F_PERIOD);
	return r;
}

/* > 0: row a sorts before row b by perf's hist_entry__sort(), which
 * leaves full ties (0) to the order of insertion (make_order). */
static int row_cmp(const struct sort_ctx *c, uint32_t a, uint32_t b)
{
	const struct pda_report *rep = c->rep;
	const struct ent *ea = rep->ents[a], *eb = rep->ents[b];
	const bool children = rep->flags & PDA_REPORT_CHILDREN;
	const bool latency = rep->flags & PDA_REPORT_LATENCY;
	int r = 0;

	/* perf >= 6.15's setup_overhead() with --latency: the columns,
	 * which are the first sort keys, latency_children,
	 * overhead_children, latency, overhead */
	if (latency && children)
		r = acc_cmp(c, a, b, F_ACC_LATENCY);
	if (!r && children)
		r = acc_cmp(c, a, b, F_ACC_PERIOD);
	if (!r && latency)
		r = hpp_sort(c, a, b, F_LATENCY);
	if (!r)
		r = hpp_sort(c, a, b, F_PERIOD);
	return r ? r : row_keys_cmp(c, ea, eb, a, b);
}

/* > 0: row a comes before row b in perf's collapsed tree (a total
 * order: the keys' collapse comparisons, then the order rows were
 * made in). */
static int collapsed_cmp(const struct sort_ctx *c, uint32_t a, uint32_t b)
{
	const struct pda_report *rep = c->rep;
	const struct ent *ea = rep->ents[a], *eb = rep->ents[b];
	int r = 0;

	for (unsigned i = 0; !r && i < rep->nr_keys; i++)
		r = key_cmp(rep->keys[i], ea, eb, true);
	return r ? r : field_cmp(eb->rank, ea->rank);
}

/* A stable merge sort of ids[0..n) (tmp as long), before(ctx, a, b)
 * saying whether id a goes before id b (C11 has no qsort with a
 * context); halves already in order are left so. */
static void sort_ids(uint32_t *ids, uint32_t *tmp, size_t n,
		     bool (*before)(const void *ctx, uint32_t a, uint32_t b),
		     const void *ctx)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_ids(ids, tmp, mid, before, ctx);
	sort_ids(ids + mid, tmp, n - mid, before, ctx);
	if (!before(ctx, ids[mid], ids[mid - 1]))
		return;
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		tmp[k++] = before(ctx, ids[j], ids[i]) ? ids[j++] : ids[i++];
	while (i < mid)
		tmp[k++] = ids[i++];
	while (j < n)
		tmp[k++] = ids[j++];
	memcpy(ids, tmp, n * sizeof(*ids));
}

/*
 * perf's output tree (hists__output_resort): the rows, taken in the
 * collapsed tree's order, each inserted into a red-black tree by
 * row_cmp(), left of a node it sorts before, else right.  row_cmp() is
 * not transitive (caller above callee only between rows of one
 * thread; across threads the keys decide), so the order of its rows is
 * not a sort's but this tree's, which depends on the order of the
 * insertions and on how each one rebalances: replayed here, insertion
 * fixups as in Cormen et al. chapter 13, whose cases make the kernel
 * lib/rbtree.c's decisions (see pda_symtree.c).  Nodes are positions
 * in rows.
 */
#define ONIL UINT32_MAX

/* Whether perf keeps a collapsed tree apart from hists->entries_in:
 * a sort key with an se_collapse (comm; the data type keys of newer
 * perf). */
static bool need_collapse(const struct pda_report *rep)
{
	for (unsigned i = 0; i < rep->nr_keys; i++)
		if (rep->keys[i] == PDA_REPORT_COMM ||
		    rep->keys[i] == PDA_REPORT_TYPE ||
		    rep->keys[i] == PDA_REPORT_TYPEOFF ||
		    rep->keys[i] == PDA_REPORT_TYPECLN)
			return true;
	return false;
}

/* A node's links; in a tree of records, the record follows them (the
 * descent's comparison reads the line its links are in). */
struct onode {
	uint32_t kid[2], up; /* kid[0] left, kid[1] right */
	uint32_t red;
};

struct otree {
	unsigned char *base;
	size_t stride; /* bytes from a node to the next */
	uint32_t root;
};

static inline struct onode *onode(const struct otree *o, uint32_t x)
{
	return (struct onode *)(void *)(o->base + (size_t)x * o->stride);
}

/* Rotate x down to side dir: its child on the other side takes its
 * place. */
static void orotate(struct otree *o, uint32_t x, int dir)
{
	struct onode *nx = onode(o, x);
	const uint32_t y = nx->kid[!dir], p = nx->up;
	struct onode *ny = onode(o, y);

	nx->kid[!dir] = ny->kid[dir];
	if (ny->kid[dir] != ONIL)
		onode(o, ny->kid[dir])->up = x;
	ny->up = p;
	if (p == ONIL)
		o->root = y;
	else
		onode(o, p)->kid[onode(o, p)->kid[1] == x] = y;
	ny->kid[dir] = x;
	nx->up = y;
}

/* Insert node z: left of a node n when left(ctx, z, n). */
static void oinsert(struct otree *o, uint32_t z,
		    bool (*left)(const void *ctx, uint32_t z, uint32_t n),
		    const void *ctx)
{
	uint32_t p = ONIL, n = o->root;
	int dir = 0;

	while (n != ONIL) {
		p = n;
		dir = left(ctx, z, n) ? 0 : 1;
		n = onode(o, n)->kid[dir];
	}
	onode(o, z)->up = p;
	onode(o, z)->kid[0] = onode(o, z)->kid[1] = ONIL;
	onode(o, z)->red = 1;
	if (p == ONIL)
		o->root = z;
	else
		onode(o, p)->kid[dir] = z;
	while (z != o->root && onode(o, onode(o, z)->up)->red) {
		const uint32_t zp = onode(o, z)->up, g = onode(o, zp)->up;
		const int side = onode(o, g)->kid[1] == zp; /* zp's side */
		const uint32_t uncle = onode(o, g)->kid[!side];

		if (uncle != ONIL && onode(o, uncle)->red) {
			onode(o, zp)->red = onode(o, uncle)->red = 0;
			onode(o, g)->red = 1;
			z = g;
			continue;
		}
		if (onode(o, zp)->kid[!side] == z) {
			z = zp;
			orotate(o, z, side);
		}
		onode(o, onode(o, z)->up)->red = 0;
		onode(o, g)->red = 1;
		orotate(o, g, !side);
	}
	onode(o, o->root)->red = 0;
}

/* Nodes 0..n at base, stride bytes apart, inserted in turn (left(ctx,
 * z, n): z goes left of n) into order, in order: leftmost first. */
static void otree_order_in(uint32_t n,
			   bool (*left)(const void *ctx, uint32_t z, uint32_t n),
			   const void *ctx, void *base, size_t stride,
			   uint32_t *order)
{
	struct otree o = {.base = base, .stride = stride, .root = ONIL};
	size_t k = 0;

	for (uint32_t z = 0; z < n; z++)
		oinsert(&o, z, left, ctx);
	for (uint32_t x = o.root; x != ONIL;) {
		while (onode(&o, x)->kid[0] != ONIL)
			x = onode(&o, x)->kid[0];
		for (;;) {
			order[k++] = x;
			if (onode(&o, x)->kid[1] != ONIL) {
				x = onode(&o, x)->kid[1];
				break;
			}
			while (onode(&o, x)->up != ONIL &&
			       onode(&o, onode(&o, x)->up)->kid[1] == x)
				x = onode(&o, x)->up;
			x = onode(&o, x)->up;
			if (x == ONIL)
				break;
		}
	}
}

/* otree_order_in() with links of OTREE_LINKS(n) bytes (4 n ids). */
static void otree_order(uint32_t n,
			bool (*left)(const void *ctx, uint32_t z, uint32_t n),
			const void *ctx, uint32_t *links, uint32_t *order)
{
	otree_order_in(n, left, ctx, links, sizeof(struct onode), order);
}

#define OTREE_LINKS(n) ((size_t)(n) * sizeof(struct onode))

/* Key k's value by which key_cmp() orders it as the sign of a 64-bit
 * difference (*dir 1: a's less b's, -1: b's less a's), for the keys
 * that are one number; false for the others. */
static bool key_number(enum pda_report_key k, const struct ent *e,
		       uint64_t *v, int *dir)
{
	*dir = -1;
	if (k == PDA_REPORT_LOCAL_WEIGHT || k == PDA_REPORT_WEIGHT) {
		*v = e->pub.weight;
		*dir = 1;
	} else if (k == PDA_REPORT_MEM) {
		/* fields of a few bits: right - left never wraps */
		*v = e->k.m.lvl;
	} else if (k == PDA_REPORT_SNOOP) {
		*v = e->k.m.snoop;
	} else if (k == PDA_REPORT_TLB) {
		*v = e->k.m.tlb;
	} else if (k == PDA_REPORT_LOCKED) {
		*v = e->k.m.lock;
	} else if (k == PDA_REPORT_BLOCKED) {
		*v = e->k.m.blk;
	} else if (k == PDA_REPORT_DADDR_SYM) {
		*v = e->pub.daddr;
	} else {
		return false;
	}
	return true;
}

struct rows_ctx {
	const struct sort_ctx *c;
	const uint32_t *rows;
	/* the first key's values by position when key_number() has them
	 * (the trees' comparisons mostly end there, without reaching the
	 * rows' entries scattered in memory); else NULL */
	const uint64_t *first;
	int first_dir;
	/* a table of one event without children or latency columns:
	 * each row's period by position, its only overhead column (the
	 * output tree's every comparison starts there); else NULL */
	const uint64_t *period;
};

/* key_cmp() of the first key of the rows at positions z and n, from
 * r->first. */
static int first_cmp(const struct rows_ctx *r, uint32_t z, uint32_t n)
{
	const uint64_t d = r->first_dir > 0 ? r->first[z] - r->first[n]
					    : r->first[n] - r->first[z];

	return pda_sgn64((int64_t)d);
}

static bool row_left(const void *ctx, uint32_t z, uint32_t n)
{
	const struct rows_ctx *r = ctx;
	const uint32_t a = r->rows[z], b = r->rows[n];
	int c;

	if (r->period) {
		const uint64_t pa = r->period[z], pb = r->period[n];

		if (pa != pb)
			return pa > pb;
		c = r->first ? first_cmp(r, z, n) : 0;
		if (c)
			return c > 0;
		return row_keys_cmp(r->c, r->c->rep->ents[a],
				    r->c->rep->ents[b], a, b) > 0;
	}
	return row_cmp(r->c, a, b) > 0;
}

static bool collapsed_left(const void *ctx, uint32_t z, uint32_t n)
{
	const struct rows_ctx *r = ctx;
	const int c = r->first ? first_cmp(r, z, n) : 0;

	if (c)
		return c > 0;
	return collapsed_cmp(r->c, r->rows[z], r->rows[n]) > 0;
}

/*
 * The trees' comparisons from a compact record per position: at 1.1M
 * rows the replay is bound by cache misses when each comparison reaches
 * two entries scattered in memory (and their strings), which a
 * comparison of equal weights mostly does.  Each key becomes fields of
 * the record, compared in the key's order with the key's result:
 *
 * - an ORD field is a number compared as an unsigned one: strings as
 *   the rank of their sort order, small and signed numbers mapped so
 *   that the order is kept, and the keys perf compares by a 64-bit
 *   difference whose values lie less than 2^63 apart over the table
 *   (there the difference's sign is the order).  ORD fields in a row
 *   are packed into one word, the first in the highest bits, each less
 *   its least value (a field that never changes takes no bits);
 * - a DIFF field keeps perf's sign of a 64-bit difference (addresses
 *   2^63 apart: not transitive, so never ranked);
 * - SYMC is sym_collapse() where it is not a plain sequence of fields
 *   (rows without a symbol, inlined frames).
 *
 * The result of every comparison is the one key_cmp() and the trees'
 * tie breaks give, so that the replayed trees are the same.
 */
enum cf_kind {
	CF_ORD,		/* val_of() is the ordered value */
	CF_NUM,		/* ORD or DIFF: sgn((int64_t)(a - b)) * dir */
	CF_STR,		/* a string: ranked, then ORD */
	CF_RAW,		/* a word of its own for SYMC */
	CF_SYMC		/* the step over the next four CF_RAW words */
};

/* A string field's order: perf's pda_str_sort() with a missing one
 * after (cmp_null), strcmp() itself (the type keys) or pda_str_sort()
 * with a missing one first (the data object's). */
enum cf_str { STR_ASC, STR_DESC, STR_NULL_FIRST };

enum cf_src {
	CS_COMM, CS_DSO, CS_SYM, CS_SRCLINE, CS_SRCFILE, CS_PARENT, CS_TYPE,
	CS_DADDR_DSO, /* the strings, then the numbers */
	CS_TID, CS_CPU, CS_PAR, CS_TYPE_OFF, CS_TYPE_CLN, CS_WEIGHT,
	CS_INS_LAT, CS_LVL, CS_SNOOP, CS_TLB, CS_LOCK, CS_BLK, CS_DADDR,
	CS_PHYS, CS_DCL_MODE, CS_DCL_MAJ, CS_DCL_MIN, CS_DCL_INO, CS_DCL_GEN,
	CS_DCL_PID, CS_DCL, CS_TXN, CS_CODE_PAGE, CS_DATA_PAGE, CS_SOCKET,
	CS_TIME, CS_IADDR, CS_ADDR, CS_SYM_SIZE, CS_DSO_SIZE, CS_CGROUP,
	CS_CG_DEV, CS_CG_INO, CS_RANK, CS_SAMPLES, CS_PERIOD, CS_SYM_START,
	CS_PUB_ADDR, CS_HAS_SYM, CS_SYM_AT
};

#define CS_NR_STR (CS_DADDR_DSO + 1)
#define CF_MAX 48

/* A string's rank: the strings of a source by pointer (open
 * addressing), each with its rank in strcmp() order, 1 the least. */
struct crank {
	const char **p;
	uint32_t *rank;
	uint32_t cap, nr;
};

struct cfield {
	uint8_t kind, src, str;
	int8_t dir;		/* CF_NUM */
	uint8_t word, shift, width;
	bool diff;		/* CF_NUM kept as a DIFF word */
	uint64_t min, max;
};

enum cstep_kind { CST_ORD, CST_DIFF, CST_SYMC };

struct cstep {
	uint8_t kind, word;
};

/* A tree's comparison from records of stride words. */
struct cprog {
	struct cfield f[CF_MAX];
	struct cstep st[CF_MAX];
	unsigned nr_f, nr_st, words, stride;
	struct crank rk[CS_NR_STR];
	/* by position, stride words apart: the node's links (CREC_HEAD
	 * words), then the record; in rec_mem, aligned to a cache line */
	uint64_t *rec;
	void *rec_mem;
};

#define CREC_HEAD (sizeof(struct onode) / sizeof(uint64_t))

static int cprog_add(struct cprog *p, enum cf_kind kind, enum cf_src src,
		     int dir_or_str)
{
	if (p->nr_f == CF_MAX)
		return -1;
	p->f[p->nr_f++] = (struct cfield){
		.kind = (uint8_t)kind,
		.src = (uint8_t)src,
		.str = kind == CF_STR ? (uint8_t)dir_or_str : 0,
		.dir = kind == CF_NUM ? (int8_t)dir_or_str : 0,
	};
	return 0;
}

/* Field src of row id (entry e): a string's pointer, a CF_NUM's
 * number, a CF_ORD's ordered value. */
static uint64_t csrc_val(const struct sort_ctx *c, enum cf_src src,
			 const struct ent *e, uint32_t id)
{
	const struct pda_report_entry *u = &e->pub;

	switch (src) {
	case CS_COMM: return (uintptr_t)u->comm;
	case CS_DSO: return (uintptr_t)u->dso;
	case CS_SYM: return (uintptr_t)u->sym;
	case CS_SRCLINE: return (uintptr_t)u->srcline;
	case CS_SRCFILE: return (uintptr_t)u->srcfile;
	case CS_PARENT: return (uintptr_t)u->parent;
	case CS_TYPE: return (uintptr_t)u->type;
	case CS_DADDR_DSO: return (uintptr_t)u->daddr_dso;
	/* int32 right - left: the smaller first */
	case CS_TID: return (uint64_t)((int64_t)INT32_MAX - u->tid);
	case CS_CPU: return (uint64_t)((int64_t)INT32_MAX - u->cpu);
	case CS_SOCKET: return (uint64_t)((int64_t)INT32_MAX - e->k.m.socket);
	case CS_PAR: return UINT32_MAX - (uint64_t)u->parallelism;
	case CS_TYPE_OFF: return (uint64_t)u->type_off;
	case CS_TYPE_CLN: return (uint64_t)(u->type_off / CACHE_LINE);
	case CS_WEIGHT: return u->weight;
	case CS_INS_LAT: return u->ins_lat;
	case CS_LVL: return e->k.m.lvl;
	case CS_SNOOP: return e->k.m.snoop;
	case CS_TLB: return e->k.m.tlb;
	case CS_LOCK: return e->k.m.lock;
	case CS_BLK: return e->k.m.blk;
	case CS_DADDR: return u->daddr;
	case CS_PHYS: return u->phys_daddr;
	/* dcl_cmp(): the smaller first */
	case CS_DCL_MODE: return ~(uint64_t)e->k.m.dcl_mode;
	case CS_DCL_MAJ: return ~(uint64_t)e->k.m.dcl_maj;
	case CS_DCL_MIN: return ~(uint64_t)e->k.m.dcl_min;
	case CS_DCL_INO: return ~e->k.m.dcl_ino;
	case CS_DCL_GEN: return ~e->k.m.dcl_gen;
	case CS_DCL_PID: return ~(uint64_t)e->k.m.dcl_pid;
	case CS_DCL: return ~e->k.m.dcl;
	case CS_TXN: return e->k.m.txn;
	case CS_CODE_PAGE: return e->k.m.code_page;
	case CS_DATA_PAGE: return e->k.m.data_page;
	case CS_TIME: return e->k.m.time;
	case CS_IADDR: return e->k.iaddr;
	case CS_ADDR: return e->k.addr;
	/* pda_cmp_i64(right, left): the smaller signed first */
	case CS_SYM_SIZE: return ~(e->k.sym_size ^ (UINT64_C(1) << 63));
	case CS_DSO_SIZE: return ~(e->k.dso_size ^ (UINT64_C(1) << 63));
	case CS_CGROUP: return e->k.m.cgroup;
	case CS_CG_DEV: return e->k.m.cgns.dev;
	case CS_CG_INO: return e->k.m.cgns.ino;
	case CS_RANK: return UINT32_MAX - (uint64_t)e->rank;
	case CS_SAMPLES: return val_field(c, 0, id, F_SAMPLES);
	case CS_PERIOD: return val_field(c, 0, id, F_PERIOD);
	case CS_SYM_START: return e->sym_start;
	case CS_PUB_ADDR: return u->addr;
	case CS_HAS_SYM: return u->sym != NULL;
	case CS_SYM_AT: return u->sym ? e->sym_start : u->addr;
	}
	return 0;
}

/* A key's comparison field: kind, source, and a CF_NUM's direction or a
 * CF_STR's order (cprog_add's dir_or_str). */
struct cprog_kfield {
	uint8_t kind, src;
	int8_t arg;
};

#define CPROG_KEY_FIELDS 7 /* PDA_REPORT_DCACHELINE's */

/* The fields of each key that compares the same way in every view (the
 * symbol's, collapsed, is cprog_key's own); nr 0: no record (the
 * comparison reads the entries). */
static const struct cprog_kfields {
	uint8_t nr;
	struct cprog_kfield f[CPROG_KEY_FIELDS];
} cprog_keys[PDA_REPORT_NR_KEYS] = {
#define K1(key, kind, src, arg) [key] = {1, {{kind, src, arg}}}
#define K2(key, k1, s1, a1, k2, s2, a2) \
	[key] = {2, {{k1, s1, a1}, {k2, s2, a2}}}
	K1(PDA_REPORT_COMM, CF_STR, CS_COMM, STR_ASC),
	K1(PDA_REPORT_PID, CF_ORD, CS_TID, 0),
	K1(PDA_REPORT_DSO, CF_STR, CS_DSO, STR_ASC),
	K1(PDA_REPORT_SYM, CF_STR, CS_SYM, STR_ASC),
	K1(PDA_REPORT_SRCLINE, CF_STR, CS_SRCLINE, STR_ASC),
	K1(PDA_REPORT_SRCFILE, CF_STR, CS_SRCFILE, STR_ASC),
	K1(PDA_REPORT_CPU, CF_ORD, CS_CPU, 0),
	K1(PDA_REPORT_PARALLELISM, CF_ORD, CS_PAR, 0),
	K1(PDA_REPORT_PARENT, CF_STR, CS_PARENT, STR_ASC),
	K1(PDA_REPORT_TYPE, CF_STR, CS_TYPE, STR_DESC),
	K2(PDA_REPORT_TYPEOFF, CF_STR, CS_TYPE, STR_DESC, CF_NUM, CS_TYPE_OFF,
	   1),
	K2(PDA_REPORT_TYPECLN, CF_STR, CS_TYPE, STR_DESC, CF_NUM, CS_TYPE_CLN,
	   1),
	K1(PDA_REPORT_LOCAL_WEIGHT, CF_NUM, CS_WEIGHT, 1),
	K1(PDA_REPORT_WEIGHT, CF_NUM, CS_WEIGHT, 1),
	K1(PDA_REPORT_LOCAL_INS_LAT, CF_ORD, CS_INS_LAT, 0),
	K1(PDA_REPORT_INS_LAT, CF_ORD, CS_INS_LAT, 0),
	K1(PDA_REPORT_MEM, CF_NUM, CS_LVL, -1),
	K1(PDA_REPORT_SNOOP, CF_NUM, CS_SNOOP, -1),
	K1(PDA_REPORT_TLB, CF_NUM, CS_TLB, -1),
	K1(PDA_REPORT_LOCKED, CF_NUM, CS_LOCK, -1),
	K1(PDA_REPORT_BLOCKED, CF_NUM, CS_BLK, -1),
	K1(PDA_REPORT_DADDR_SYM, CF_NUM, CS_DADDR, -1),
	K1(PDA_REPORT_PHYS_DADDR, CF_NUM, CS_PHYS, -1),
	[PDA_REPORT_DCACHELINE] = {7, {{CF_ORD, CS_DCL_MODE, 0},
				      {CF_ORD, CS_DCL_MAJ, 0},
				      {CF_ORD, CS_DCL_MIN, 0},
				      {CF_ORD, CS_DCL_INO, 0},
				      {CF_ORD, CS_DCL_GEN, 0},
				      {CF_ORD, CS_DCL_PID, 0},
				      {CF_ORD, CS_DCL, 0}}},
	K1(PDA_REPORT_TRANSACTION, CF_NUM, CS_TXN, 1),
	K1(PDA_REPORT_CODE_PAGE, CF_NUM, CS_CODE_PAGE, -1),
	K1(PDA_REPORT_DATA_PAGE, CF_NUM, CS_DATA_PAGE, -1),
	K1(PDA_REPORT_SOCKET, CF_ORD, CS_SOCKET, 0),
	K1(PDA_REPORT_TIME, CF_NUM, CS_TIME, -1),
	K1(PDA_REPORT_IADDR, CF_NUM, CS_IADDR, -1),
	K1(PDA_REPORT_ADDR, CF_NUM, CS_ADDR, -1),
	K1(PDA_REPORT_SYM_SIZE, CF_ORD, CS_SYM_SIZE, 0),
	K1(PDA_REPORT_DSO_SIZE, CF_ORD, CS_DSO_SIZE, 0),
	K1(PDA_REPORT_CGROUP, CF_NUM, CS_CGROUP, -1),
	K2(PDA_REPORT_CGROUP_ID, CF_NUM, CS_CG_DEV, 1, CF_NUM, CS_CG_INO, 1),
	K1(PDA_REPORT_DADDR_DSO, CF_STR, CS_DADDR_DSO, STR_NULL_FIRST),
#undef K1
#undef K2
};

/* Key k's fields (collapse: its merge order); false: no record for
 * it (the comparison reads the entries). */
static bool cprog_key(struct cprog *p, enum pda_report_key k, bool collapse,
		      bool plain_syms)
{
	const struct cprog_kfields *ck;
	int r = 0;

	if (k == PDA_REPORT_SYM && collapse && plain_syms) {
		r |= cprog_add(p, CF_STR, CS_DSO, STR_ASC);
		r |= cprog_add(p, CF_ORD, CS_HAS_SYM, 0);
		r |= cprog_add(p, CF_NUM, CS_SYM_AT, -1);
		r |= cprog_add(p, CF_STR, CS_SYM, STR_ASC);
		return !r;
	}
	if (k == PDA_REPORT_SYM && collapse) {
		r |= cprog_add(p, CF_SYMC, CS_SYM, 0);
		r |= cprog_add(p, CF_RAW, CS_SYM, 0);
		r |= cprog_add(p, CF_RAW, CS_DSO, 0);
		r |= cprog_add(p, CF_RAW, CS_PUB_ADDR, 0);
		r |= cprog_add(p, CF_RAW, CS_SYM_START, 0);
		return !r;
	}
	if ((unsigned)k >= PDA_REPORT_NR_KEYS)
		return false;
	ck = &cprog_keys[k];
	for (unsigned i = 0; i < ck->nr; i++)
		r |= cprog_add(p, (enum cf_kind)ck->f[i].kind,
			       (enum cf_src)ck->f[i].src, ck->f[i].arg);
	return ck->nr && !r;
}

static uint32_t crank_slot(const struct crank *rk, const char *s)
{
	uint32_t i = (uint32_t)pdc_hash_u64((uintptr_t)s) & (rk->cap - 1);

	while (rk->p[i] && rk->p[i] != s)
		i = (i + 1) & (rk->cap - 1);
	return i;
}

static int crank_grow(struct pd_alloc *mem, struct crank *rk)
{
	struct crank n = {.cap = rk->cap ? rk->cap * 2 : 64, .nr = rk->nr};

	n.p = pdc_zalloc(mem, n.cap * sizeof(*n.p));
	n.rank = pdc_zalloc(mem, n.cap * sizeof(*n.rank));
	if (!n.p || !n.rank) {
		pdc_free(mem, n.p);
		pdc_free(mem, n.rank);
		return PD_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < rk->cap; i++)
		if (rk->p[i])
			n.p[crank_slot(&n, rk->p[i])] = rk->p[i];
	pdc_free(mem, rk->p);
	pdc_free(mem, rk->rank);
	*rk = n;
	return 0;
}

static int crank_add(struct pd_alloc *mem, struct crank *rk, const char *s)
{
	uint32_t i;

	if (!s)
		return 0;
	if ((rk->nr + 1) * 2 > rk->cap && crank_grow(mem, rk))
		return PD_ERR_NOMEM;
	i = crank_slot(rk, s);
	if (!rk->p[i]) {
		rk->p[i] = s;
		rk->nr++;
	}
	return 0;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each string's rank in strcmp() order: equal strings one rank. */
static int crank_rank(struct pd_alloc *mem, struct crank *rk)
{
	const char **s;
	uint32_t k = 0, r = 0;

	if (!rk->nr)
		return 0;
	s = pdc_malloc(mem, rk->nr * sizeof(*s));
	if (!s)
		return PD_ERR_NOMEM;
	for (uint32_t i = 0; i < rk->cap; i++)
		if (rk->p[i])
			s[k++] = rk->p[i];
	qsort(s, k, sizeof(*s), cmp_strp);
	for (uint32_t i = 0; i < k; i++) {
		if (!i || strcmp(s[i - 1], s[i]))
			r++;
		rk->rank[crank_slot(rk, s[i])] = r;
	}
	pdc_free(mem, s);
	return 0;
}

static uint32_t crank_of(const struct crank *rk, const char *s)
{
	return s ? rk->rank[crank_slot(rk, s)] : 0;
}

/* Field f's value of row id as its record holds it (a DIFF's and a
 * RAW's whole; an ORD's less its least). */
static uint64_t cfield_val(const struct cprog *p, const struct sort_ctx *c,
			   const struct cfield *f, const struct ent *e,
			   uint32_t id)
{
	const uint64_t v = csrc_val(c, (enum cf_src)f->src, e, id);
	const struct crank *rk = f->src < CS_NR_STR ? &p->rk[f->src] : NULL;
	uint32_t r, nr;

	switch ((enum cf_kind)f->kind) {
	case CF_ORD:
		return v;
	case CF_NUM:
		if (f->diff)
			return f->dir > 0 ? v : -v;
		return f->dir > 0 ? v - f->min : f->max - v;
	case CF_STR:
		r = crank_of(rk, (const char *)(uintptr_t)v);
		nr = rk->nr + 1;
		switch ((enum cf_str)f->str) {
		case STR_ASC:
			return r ? (uint64_t)nr - r : 0;
		case STR_DESC:
			return r;
		case STR_NULL_FIRST:
			return r ? (uint64_t)nr - r : nr;
		}
		return 0;
	case CF_RAW:
		if (f->src == CS_SYM)
			return crank_of(rk, (const char *)(uintptr_t)v) |
			       (uint64_t)e->pub.inlined << 32;
		if (f->src == CS_DSO) /* dso_cmp() as STR_ASC */
			return v ? (uint64_t)rk->nr + 1 -
					   crank_of(rk, (const char *)(uintptr_t)v)
				 : 0;
		return v;
	case CF_SYMC:
		break;
	}
	return 0;
}

static unsigned bit_len(uint64_t v)
{
	unsigned n = 0;

	for (; v; v >>= 1)
		n++;
	return n;
}

/* Whether sym_collapse() of every two rows is the sequence dso, has a
 * symbol, the symbol's start (the address without one), the name: no
 * row inlined, and the rows without a symbol of one DSO (two of them
 * compare by address alone, before the DSOs). */
static bool plain_syms(const struct pda_report *rep, const uint32_t *rows,
		       size_t n)
{
	const char *dso = NULL;
	bool none = false;

	for (size_t k = 0; k < n; k++) {
		const struct ent *e = rep->ents[rows[k]];

		if (e->pub.inlined)
			return false;
		if (e->pub.sym)
			continue;
		if (none && e->pub.dso != dso &&
		    (!dso || !e->pub.dso || strcmp(dso, e->pub.dso)))
			return false;
		none = true;
		dso = e->pub.dso;
	}
	return true;
}

static void cprog_free(struct pd_alloc *mem, struct cprog *p)
{
	for (unsigned s = 0; s < CS_NR_STR; s++) {
		pdc_free(mem, p->rk[s].p);
		pdc_free(mem, p->rk[s].rank);
	}
	pdc_free(mem, p->rec_mem);
}

/* The fields' places in a record and the steps that compare them. */
static void cprog_layout(struct cprog *p)
{
	unsigned used = 64; /* bits of word p->words - 1 taken */

	p->words = 0;
	p->nr_st = 0;
	for (unsigned i = 0; i < p->nr_f; i++) {
		struct cfield *f = &p->f[i];

		if (f->kind == CF_SYMC) {
			p->st[p->nr_st++] = (struct cstep){CST_SYMC,
							   (uint8_t)p->words};
			used = 64;
			continue;
		}
		if (f->kind == CF_RAW || (f->kind == CF_NUM && f->diff)) {
			f->word = (uint8_t)p->words++;
			f->shift = 0;
			f->width = 64;
			if (f->kind == CF_NUM)
				p->st[p->nr_st++] =
					(struct cstep){CST_DIFF, f->word};
			used = 64;
			continue;
		}
		if (!f->width)
			continue;
		if (used + f->width > 64) {
			p->st[p->nr_st++] =
				(struct cstep){CST_ORD, (uint8_t)p->words++};
			used = 0;
		}
		f->word = (uint8_t)(p->words - 1);
		used += f->width;
		f->shift = (uint8_t)(64 - used);
	}
	/* a node within one cache line where it fits in one */
	p->stride = CREC_HEAD + p->words;
	while (p->stride < 8 && (p->stride & (p->stride - 1)))
		p->stride++;
}

/* Tree's fields (collapsed: the collapsed tree's, else the output
 * tree's): each key's in turn, then the tree's tie breaks; false: a
 * key the records do not hold (the comparisons read the entries). */
static bool cprog_fields(const struct sort_ctx *c, const uint32_t *rows,
			 size_t n, bool collapsed, struct cprog *p)
{
	const struct pda_report *rep = c->rep;
	bool plain = false;

	if (collapsed) {
		for (unsigned i = 0; i < rep->nr_keys; i++)
			plain |= rep->keys[i] == PDA_REPORT_SYM;
		plain = plain && plain_syms(rep, rows, n);
	} else {
		if (c->t->pub.nr_members != 1 ||
		    (rep->flags & (PDA_REPORT_CHILDREN | PDA_REPORT_LATENCY)))
			return false;
		cprog_add(p, CF_ORD, CS_PERIOD, 0);
	}
	for (unsigned i = 0; i < rep->nr_keys; i++)
		if ((collapsed || !rep->elided[i]) &&
		    !cprog_key(p, rep->keys[i], collapsed, plain))
			return false;
	if (collapsed)
		return !cprog_add(p, CF_ORD, CS_RANK, 0);
	if ((rep->flags & PDA_REPORT_NR_SAMPLES) &&
	    cprog_add(p, CF_ORD, CS_SAMPLES, 0))
		return false;
	return !(rep->flags & PDA_REPORT_PERIOD) ||
	       !cprog_add(p, CF_ORD, CS_PERIOD, 0);
}

/* Row id's (entry e) strings into the ranks, its numbers into the
 * ranges. */
static int cprog_scan(struct cprog *p, struct pd_alloc *mem,
		      const struct sort_ctx *c, const struct ent *e,
		      uint32_t id)
{
	for (unsigned i = 0; i < p->nr_f; i++) {
		struct cfield *f = &p->f[i];
		uint64_t v;

		if (f->kind == CF_SYMC)
			continue;
		v = csrc_val(c, (enum cf_src)f->src, e, id);
		if (f->src < CS_NR_STR) {
			if (crank_add(mem, &p->rk[f->src],
				      (const char *)(uintptr_t)v))
				return PD_ERR_NOMEM;
			continue;
		}
		f->min = v < f->min ? v : f->min;
		f->max = v > f->max ? v : f->max;
	}
	return 0;
}

/* Zeroed records for n positions. */
static int crec_alloc(struct cprog *p, struct pd_alloc *mem, size_t n)
{
	const size_t size = n * p->stride * sizeof(uint64_t) + 64;

	p->rec_mem = pdc_zalloc(mem, size);
	if (!p->rec_mem)
		return PD_ERR_NOMEM;
	p->rec = (uint64_t *)(void *)((unsigned char *)p->rec_mem +
				       (64 - (uintptr_t)p->rec_mem % 64) % 64);
	return 0;
}

/* After the scan: the ranks, the fields' widths and places, the
 * records (n). */
static int cprog_place(struct cprog *p, struct pd_alloc *mem, size_t n)
{
	for (unsigned s = 0; s < CS_NR_STR; s++)
		if (crank_rank(mem, &p->rk[s]))
			return PD_ERR_NOMEM;
	for (unsigned i = 0; i < p->nr_f; i++) {
		struct cfield *f = &p->f[i];
		uint64_t span = 0;

		if (f->kind == CF_STR) {
			/* values 0 (a missing one) to nr + 1 */
			span = p->rk[f->src].nr + 1;
			f->min = 0;
		} else if (f->kind == CF_NUM) {
			span = f->max - f->min;
			f->diff = span >= UINT64_C(1) << 63;
		} else if (f->kind == CF_ORD) {
			span = f->max - f->min;
		}
		f->width = (uint8_t)bit_len(span);
	}
	cprog_layout(p);
	return crec_alloc(p, mem, n);
}

/* Row id's (entry e) record at position k. */
static void cprog_fill(struct cprog *p, const struct sort_ctx *c,
		       const struct ent *e, uint32_t id, size_t k)
{
	uint64_t *w = p->rec + k * p->stride + CREC_HEAD;

	for (unsigned i = 0; i < p->nr_f; i++) {
		const struct cfield *f = &p->f[i];
		uint64_t v;

		if (f->kind == CF_SYMC || !f->width)
			continue;
		v = cfield_val(p, c, f, e, id);
		if (f->kind == CF_ORD)
			v -= f->min;
		w[f->word] |= f->width == 64 ? v : v << f->shift;
	}
}

/* The records of rows (n) for the collapsed tree (pc) and the output
 * tree (po), in one walk of the entries; a tree whose keys they do not
 * hold gets none (rec NULL: its comparisons read the entries).  Freed
 * by cprog_free() whatever the result. */
static int cprogs_make(const struct sort_ctx *c, struct pd_alloc *mem,
		       const uint32_t *rows, size_t n, struct cprog *pc,
		       struct cprog *po)
{
	struct cprog *ps[2] = {pc, po};
	unsigned nr = 0;
	int rc = 0;

	memset(pc, 0, sizeof(*pc));
	memset(po, 0, sizeof(*po));
	for (unsigned t = 0; t < 2; t++) {
		if (!cprog_fields(c, rows, n, t == 0, ps[t]))
			continue;
		for (unsigned i = 0; i < ps[t]->nr_f; i++) {
			ps[t]->f[i].min = UINT64_MAX;
			ps[t]->f[i].max = 0;
		}
		ps[nr++] = ps[t];
	}
	for (size_t k = 0; k < n && !rc; k++)
		for (unsigned t = 0; t < nr && !rc; t++)
			rc = cprog_scan(ps[t], mem, c, c->rep->ents[rows[k]],
					rows[k]);
	for (unsigned t = 0; t < nr && !rc; t++)
		rc = cprog_place(ps[t], mem, n);
	for (size_t k = 0; k < n && !rc; k++)
		for (unsigned t = 0; t < nr; t++)
			cprog_fill(ps[t], c, c->rep->ents[rows[k]], rows[k],
				   k);
	return rc;
}

/* p's records into the order of positions order (n): the record at k
 * the one at order[k]. */
static int cprog_permute(struct cprog *p, struct pd_alloc *mem,
			 const uint32_t *order, size_t n)
{
	struct cprog old = *p;

	if (!p->rec)
		return 0;
	if (crec_alloc(p, mem, n)) {
		p->rec_mem = old.rec_mem;
		p->rec = old.rec;
		return PD_ERR_NOMEM;
	}
	for (size_t k = 0; k < n; k++)
		memcpy(p->rec + k * p->stride,
		       old.rec + (size_t)order[k] * p->stride,
		       p->stride * sizeof(*p->rec));
	pdc_free(mem, old.rec_mem);
	return 0;
}

/* sym_collapse() from a record's words: the symbol's rank (0 none)
 * and inlined bit, the DSO's ordered value, the address, the start. */
static int symc_cmp(const uint64_t *a, const uint64_t *b)
{
	const uint64_t sa = a[0] & UINT32_MAX, sb = b[0] & UINT32_MAX;

	if (!sa && !sb)
		return pda_sgn64((int64_t)(b[2] - a[2]));
	if (a[1] != b[1])
		return a[1] > b[1] ? 1 : -1;
	if (!sa || !sb)
		return sa ? 1 : -1;
	if (((a[0] | b[0]) >> 32) && sa != sb)
		return sa > sb ? 1 : -1;
	if (a[3] != b[3])
		return pda_sgn64((int64_t)(b[3] - a[3]));
	return (sb > sa) - (sb < sa);
}

/* > 0: the row at a goes left of the row at b. */
static int crec_cmp(const struct cprog *p, const uint64_t *a,
		    const uint64_t *b)
{
	for (unsigned i = 0; i < p->nr_st; i++) {
		const struct cstep s = p->st[i];
		const uint64_t x = a[s.word], y = b[s.word];
		int r;

		if (s.kind == CST_ORD) {
			if (x != y)
				return x > y ? 1 : -1;
			continue;
		}
		r = s.kind == CST_DIFF ? pda_sgn64((int64_t)(x - y))
				       : symc_cmp(a + s.word, b + s.word);
		if (r)
			return r;
	}
	return 0;
}

static bool crec_left(const void *ctx, uint32_t z, uint32_t n)
{
	const struct cprog *p = ctx;

	return crec_cmp(p, p->rec + (size_t)z * p->stride + CREC_HEAD,
			p->rec + (size_t)n * p->stride + CREC_HEAD) > 0;
}

/* rows (n) into the order of a red-black tree they are inserted into
 * in turn, left(ctx, z, n) putting z left of n, or the comparison of
 * records p where p has them; tmp holds n ids.  The records of p (when
 * again: compared again) and of other (unless NULL) follow the rows
 * into their new order. */
static int make_order(const struct sort_ctx *c, struct pd_alloc *mem,
		      uint32_t *rows, uint32_t *tmp, size_t n,
		      bool (*left)(const void *ctx, uint32_t z, uint32_t n),
		      struct cprog *p, bool again, struct cprog *other)
{
	const struct pda_report *rep = c->rep;
	struct rows_ctx r = {.c = c, .rows = rows};
	uint64_t *period = NULL, *first = NULL, v;
	uint32_t *links;
	int rc;

	if (n < 2)
		return 0;
	if (p->rec) {
		otree_order_in((uint32_t)n, crec_left, p, p->rec,
			       p->stride * sizeof(*p->rec), tmp);
		goto done;
	}
	links = pdc_malloc(mem, OTREE_LINKS(n));
	if (!links)
		return PD_ERR_NOMEM;
	/* the first key sorts first in both trees (not an elided one in
	 * the output tree's) */
	if (rep->nr_keys && (left == collapsed_left || !rep->elided[0]) &&
	    key_number(rep->keys[0], rep->ents[rows[0]], &v, &r.first_dir) &&
	    (first = pdc_malloc(mem, n * sizeof(*first)))) {
		for (size_t k = 0; k < n; k++)
			key_number(rep->keys[0], rep->ents[rows[k]], &first[k],
				   &r.first_dir);
		r.first = first;
	}
	if (left == row_left && c->t->pub.nr_members == 1 &&
	    !(c->rep->flags & (PDA_REPORT_CHILDREN | PDA_REPORT_LATENCY)) &&
	    (period = pdc_malloc(mem, n * sizeof(*period)))) {
		for (size_t k = 0; k < n; k++)
			period[k] = val_field(c, 0, rows[k], F_PERIOD);
		r.period = period;
	}
	otree_order((uint32_t)n, left, &r, links, tmp);
	pdc_free(mem, period);
	pdc_free(mem, first);
	pdc_free(mem, links);
done:
	rc = again ? cprog_permute(p, mem, tmp, n) : 0;
	if (!rc && other)
		rc = cprog_permute(other, mem, tmp, n);
	for (size_t k = 0; k < n; k++)
		tmp[k] = rows[tmp[k]];
	memcpy(rows, tmp, n * sizeof(*rows));
	return rc;
}

static bool touched(const struct event *ev, uint32_t id)
{
	return id < ev->nr_v && (ev->v[id].samples || ev->v[id].acc_samples);
}

/* Whether --dsos hides row id of the table over members: the filter
 * state its first member's entry was made with (perf's group output
 * walks the leader's entries). */
static bool dso_hidden(const struct pda_report *rep, const unsigned *members,
		       unsigned nr, uint32_t id)
{
	if (!rep->dso_list && !rep->sample_syms)
		return false;
	for (unsigned m = 0; m < nr; m++)
		if (touched(&rep->events[members[m]], id))
			return rep->events[members[m]].v[id].dso_filtered;
	return false;
}

/* Whether the filters hide row id of the table over members. */
static bool row_hidden(const struct pda_report *rep, const unsigned *members,
		       unsigned nr, uint32_t id)
{
	return hidden(rep, rep->ents[id]) || dso_hidden(rep, members, nr, id);
}

/* The name of the group the capture recorded (GROUP_DESC) whose events
 * are exactly members, in order, or NULL: perf 6.1's evsel__group_desc
 * names such a table "NAME { a, b }", a group forced by --group on
 * events recorded apart "a, b". */
static const char *recorded_group(const struct pda_report *rep,
				  const unsigned *members, unsigned nr)
{
	const struct pd_env *env = rep->env;

	if (!rep->file || !env)
		return NULL;
	for (uint32_t g = 0; g < env->nr_groups; g++) {
		const struct pd_env_group *grp = &env->groups[g];
		bool same = grp->nr_members == nr;

		for (unsigned m = 0; same && m < nr; m++)
			same = rep->events[members[m]].evsel ==
			       pd_file_evsel(rep->file, grp->leader_idx + m);
		if (same)
			return grp->name ? grp->name : "{anon_group}";
	}
	return NULL;
}

/* Table t over members (event indexes): its rows sorted. */
static int make_table(struct pda_report *rep, struct table *t,
		      const unsigned *members, unsigned nr, bool i_first)
{
	const char *group;
	struct pdc_strbuf b;
	char small[256];
	uint32_t *tmp;
	size_t nr_rows = 0;
	struct sort_ctx c = {.rep = rep, .t = t};
	struct cprog pc, po;
	int rc;

	memset(t, 0, sizeof(*t));
	t->members = pdc_malloc(&rep->mem, nr * sizeof(*t->members));
	t->rows = pdc_malloc(&rep->mem, (rep->nr_ents + 1) * sizeof(uint32_t));
	tmp = pdc_malloc(&rep->mem, (rep->nr_ents + 1) * sizeof(uint32_t));
	if (!t->members || !t->rows || !tmp) {
		pdc_free(&rep->mem, tmp);
		return PD_ERR_NOMEM;
	}
	pdc_strbuf_init(&b, &rep->mem, small, sizeof(small));
	group = nr > 1 ? recorded_group(rep, members, nr) : NULL;
	if (group)
		pdc_strbuf_addf(&b, "%s { ",
				strcmp(group, "{anon_group}") ? group
							      : "anon group");
	for (unsigned m = 0; m < nr; m++) {
		const struct event *ev = &rep->events[members[m]];

		t->members[m] = members[m];
		t->pub.nr_samples += ev->nr_samples;
		t->pub.total_period += ev->total_period;
		pdc_strbuf_addf(&b, "%s%s", m ? ", " : "",
				ev->evsel ? ev->evsel->name : "unknown");
	}
	if (group)
		pdc_strbuf_addf(&b, " }");
	t->name = b.oom ? NULL : pdc_strndup(&rep->mem, b.p, b.len);
	pdc_strbuf_release(&b);
	if (!t->name) {
		pdc_free(&rep->mem, tmp);
		return PD_ERR_NOMEM;
	}
	/* in the order rows were made (ranks): perf's sort of ties is
	 * not total (caller above callee within a thread).  The rows the
	 * filters hide are in perf's output tree too (output_resort()
	 * inserts its filtered entries, only not printed): they shape
	 * the order of the others, and leave it after. */
	for (uint32_t r = 0; r < rep->nr_ents; r++) {
		const uint32_t id = rep->by_rank ? rep->by_rank[r] : r;
		bool any = false;

		for (unsigned m = 0; m < nr && !any; m++)
			any = touched(&rep->events[members[m]], id);
		if (!any)
			continue;
		if (row_hidden(rep, members, nr, id))
			rep->st.nr_hidden += i_first;
		t->rows[nr_rows++] = id;
	}
	t->pub.event = t->name;
	t->pub.nr_members = nr;
	if (nr == 1 && rep->env) {
		for (uint32_t g = 0; g < rep->env->nr_groups; g++)
			if (rep->env->groups[g].leader_idx == members[0] &&
			    rep->env->groups[g].nr_members > 1)
				t->pub.leads_group = true;
	}
	/* perf's --no-group where none was recorded still makes the first
	 * event the leader of all (evlist__set_leader): its title says
	 * "events"; a pipe's events come after that, none */
	if (nr == 1 && members[0] == 0 && (rep->flags & PDA_REPORT_NO_GROUP) &&
	    rep->file && pd_file_header(rep->file)->kind != PD_KIND_PIPE &&
	    pd_file_nr_evsels(rep->file) > 1 &&
	    !(rep->env && rep->env->nr_groups))
		t->pub.leads_group = true;
	t->pub.members = t->members;
	t->pub.rows = t->rows;
	t->pub.nr_rows = nr_rows;
	/* perf's hists->entries_in: each row inserted as its first sample
	 * came (rank order) by the keys' comparisons; then, where a key
	 * collapses, the collapsed tree, inserted in that tree's order;
	 * then the output tree.  The comparisons are not transitive where
	 * addresses lie more than 2^63 apart (garbage frames of a -g
	 * stack: perf subtracts them), so that each order is the tree's,
	 * not a sort's */
	rc = cprogs_make(&c, &rep->mem, t->rows, nr_rows, &pc, &po);
	if (!rc)
		rc = make_order(&c, &rep->mem, t->rows, tmp, nr_rows,
				collapsed_left, &pc, need_collapse(rep), &po);
	if (!rc && need_collapse(rep))
		rc = make_order(&c, &rep->mem, t->rows, tmp, nr_rows,
				collapsed_left, &pc, false, &po);
	cprog_free(&rep->mem, &pc);
	if (!rc)
		rc = make_order(&c, &rep->mem, t->rows, tmp, nr_rows, row_left,
				&po, false, NULL);
	cprog_free(&rep->mem, &po);
	pdc_free(&rep->mem, tmp);
	t->pub.nr_rows = 0;
	for (size_t r = 0; r < nr_rows; r++)
		if (!row_hidden(rep, members, nr, t->rows[r]))
			t->rows[t->pub.nr_rows++] = t->rows[r];
	return rc;
}

/* perf's match_chain() of a node (l, there) and a frame (r, new):
 * < 0 when l sorts before r (MATCH_LT). */
static int cframe_cmp(const struct cframe *l, const struct cframe *r)
{
	if (l->k.kind != CF_ADDR && r->k.kind != CF_ADDR &&
	    (l->k.kind == CF_INLINED || r->k.kind == CF_INLINED)) {
		const char *a = l->k.kind == CF_INLINED ? l->k.name : l->disp;
		const char *b = r->k.kind == CF_INLINED ? r->k.name : r->disp;
		const int c = strcmp(a, b);

		return (c > 0) - (c < 0);
	}
	/* perf compares its dso pointers: the order pdtool first saw them
	 * stands for the order perf made them in */
	if (l->dso_rank != r->dso_rank)
		return l->dso_rank < r->dso_rank ? -1 : 1;
	if (l->k.kind == CF_ADDR || r->k.kind == CF_ADDR)
		/* without a symbol on one side perf compares the ips (the
		 * node's first one for a symbol's frame) */
		return (l->ip > r->ip) - (l->ip < r->ip);
	return (l->k.addr > r->k.addr) - (l->k.addr < r->k.addr);
}

struct sib_ctx {
	const struct pda_report *rep;
	const uint32_t *kids;	/* in the order made */
};

/* perf's append_chain_children(): a new node goes left of one it is
 * MATCH_LT to. */
static bool sib_left(const void *ctx, uint32_t z, uint32_t n)
{
	const struct sib_ctx *c = ctx;
	const struct cnode *cn = c->rep->cnodes;

	return cframe_cmp(c->rep->cframes[cn[c->kids[n]].frame],
			  c->rep->cframes[cn[c->kids[z]].frame]) < 0;
}

/* Order the children of node p as perf's rb_root_in has them: each
 * inserted, in the order made, into a red-black tree by cframe_cmp(),
 * which is not transitive (names for inlined frames, else DSOs and
 * addresses), so that the order is the tree's; in order, from the
 * greatest.  sc holds room for *alloc_sc ids. */
static int sort_siblings(struct pda_report *rep, struct cnode *p,
			 uint32_t **sc, size_t *alloc_sc)
{
	struct sib_ctx c = {.rep = rep};
	uint32_t n = 0, *kids, *order, *links;

	for (uint32_t k = p->pub.child; k; k = rep->cnodes[k].pub.next)
		n++;
	if (n < 2)
		return 0;
	/* kids, order and the links: 5 n ids and n bytes */
	if (PDC_GROW(&rep->mem, *sc, *alloc_sc, 6 * (size_t)n,
		     (size_t)UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	kids = *sc;
	order = kids + n;
	links = order + n;
	/* the list is newest first */
	for (uint32_t k = p->pub.child, i = n; k; k = rep->cnodes[k].pub.next)
		kids[--i] = k;
	c.kids = kids;
	otree_order(n, sib_left, &c, links, order);
	p->pub.child = kids[order[0]];
	for (uint32_t i = 1; i < n; i++)
		rep->cnodes[kids[order[i - 1]]].pub.next = kids[order[i]];
	rep->cnodes[kids[order[n - 1]]].pub.next = 0;
	return 0;
}

/*
 * Deferred graphs.  perf builds every row's whole graph and prints the
 * parts over the threshold; the whole graphs of a capture with deep
 * stacks are hundreds of MB.  Here each graph is built at the end, top
 * down from the chains (struct item) its records give: a node's chains
 * are grouped by their next frame, each group a child with its periods
 * summed, and only a child the threshold would print (the emitter's
 * rule: a share of the event's period, or with graph_rel of the
 * parent's children) gets children of its own.  The others stay, as
 * leaves with their true periods, so that their parent keeps its true
 * number of children (a printed run ends at a fork).  The groups come
 * in the order of their chains' first records, the order eager walks
 * make the nodes in.
 */
struct grp {
	uint32_t frame;
	size_t lo, nr;		/* its chains in the items */
	uint64_t hit, count, cum, cum_count;
	bool more;		/* chains go on below it */
};

struct gtask {
	uint32_t node;
	size_t lo, hi;
	uint32_t depth;
};

struct gbuild {
	struct pda_report *rep;
	const struct event *ev;
	struct item *items;
	size_t base;		/* the row's first item: tmp's and gi's 0 */
	struct item *tmp;	/* room for a row's items */
	uint32_t *gi;		/* by item: its group, UINT32_MAX none */
	uint32_t *mark;		/* by cframe: its group + 1 */
	/* by cname: the first group of a symbol frame of the name, of an
	 * inlined one (+ 1): a frame without a group of its own joins one
	 * by name as perf's match_chain() (child_by_name()) */
	uint32_t *by_name, *by_name_inl;
	struct grp *grp;
	size_t alloc_grp;
	struct gtask *task;
	size_t nr_task, alloc_task;
	uint64_t abs_min;	/* the threshold of the event's period */
};

/* The threshold of node id's children, as the emitter's child_min(). */
static uint64_t graph_min_of(const struct gbuild *b, uint32_t id)
{
	const struct pda_report *rep = b->rep;

	if (rep->graph_rel)
		return (uint64_t)ceil(
			(double)rep->cnodes[id].pub.children_hit *
			(rep->graph_min / 100.0));
	return b->abs_min;
}

/* The group (+ 1) frame f without a group of its own joins, or 0. */
static uint32_t group_by_name(const struct gbuild *b, uint32_t f)
{
	const struct cframe *cf = b->rep->cframes[f];

	if (!cf->cname)
		return 0;
	return cf->k.kind == CF_INLINED ? b->by_name[cf->cname->id]
					: b->by_name_inl[cf->cname->id];
}

/* Note group gid (+ 1) of frame f by its name, or (gid 0) forget it. */
static void group_names(struct gbuild *b, uint32_t f, uint32_t gid)
{
	const struct cframe *cf = b->rep->cframes[f];
	uint32_t *any, *inl;

	if (!cf->cname)
		return;
	any = &b->by_name[cf->cname->id];
	inl = &b->by_name_inl[cf->cname->id];
	if (!gid || !*any)
		*any = gid;
	if (cf->k.kind == CF_INLINED && (!gid || !*inl))
		*inl = gid;
}

/* Make the children of task t's node from its chains [lo, hi), and the
 * tasks of those to expand. */
static int graph_expand(struct gbuild *b, struct gtask t)
{
	struct pda_report *rep = b->rep;
	const struct rec *recs = b->ev->recs;
	size_t nr_grp = 0, at = t.lo;
	uint64_t min;

	for (size_t k = t.lo; k < t.hi; k++) {
		const struct item *it = &b->items[k];
		struct grp *g;
		uint32_t f, gid;

		/* the frames are far apart in the arena: ask ahead (the
		 * line of a 16-bit frame or the next) */
		if (k + 16 < t.hi &&
		    (b->items[k + 16].len & ~ITEM_NARROW) > t.depth)
			__builtin_prefetch(item_addr(&b->items[k + 16],
						     t.depth));
		b->gi[k - b->base] = UINT32_MAX;
		if ((it->len & ~ITEM_NARROW) <= t.depth)
			continue;	/* ends at the node: in its hit */
		f = item_frame(it, t.depth);
		gid = b->mark[f] ? b->mark[f] : group_by_name(b, f);
		if (!gid) {
			if (PDC_GROW(&rep->mem, b->grp, b->alloc_grp,
				     nr_grp + 1, (size_t)UINT32_MAX) < 0)
				return PD_ERR_NOMEM;
			b->grp[nr_grp] = (struct grp){.frame = f};
			gid = b->mark[f] = (uint32_t)++nr_grp;
			group_names(b, f, gid);
		}
		b->gi[k - b->base] = gid - 1;
		g = &b->grp[gid - 1];
		g->nr++;
		g->cum += recs[it->rec].period;
		g->cum_count += recs[it->rec].count;
		if ((it->len & ~ITEM_NARROW) == t.depth + 1) {
			g->hit += recs[it->rec].period;
			g->count += recs[it->rec].count;
		} else {
			g->more = true;
		}
	}
	/* the groups' chains side by side, each in its records' order */
	for (size_t i = 0; i < nr_grp; i++) {
		b->grp[i].lo = at;
		at += b->grp[i].nr;
		b->grp[i].nr = 0;
	}
	for (size_t k = t.lo; k < t.hi; k++) {
		struct grp *g;

		if (b->gi[k - b->base] == UINT32_MAX)
			continue;
		g = &b->grp[b->gi[k - b->base]];
		b->tmp[g->lo - b->base + g->nr++] = b->items[k];
	}
	memcpy(b->items + t.lo, b->tmp + (t.lo - b->base),
	       (at - t.lo) * sizeof(*b->items));
	min = graph_min_of(b, t.node);
	for (size_t i = 0; i < nr_grp; i++) {
		const struct grp *g = &b->grp[i];
		const uint32_t id = cnode_new(rep, t.node, g->frame);
		struct pda_report_cnode *n;

		b->mark[g->frame] = 0;
		group_names(b, g->frame, 0);
		if (!id)
			return PD_ERR_NOMEM;
		n = &rep->cnodes[id].pub;
		n->hit = g->hit;
		n->count = g->count;
		n->children_hit = g->cum - g->hit;
		n->children_count = g->cum_count - g->count;
		if (!g->more || g->cum < min)
			continue;
		if (PDC_GROW(&rep->mem, b->task, b->alloc_task,
			     b->nr_task + 1, (size_t)UINT32_MAX) < 0)
			return PD_ERR_NOMEM;
		b->task[b->nr_task++] = (struct gtask){
			.node = id, .lo = g->lo, .hi = g->lo + g->nr,
			.depth = t.depth + 1};
	}
	return 0;
}

/* Room for the chains of a fraction of an event's rows at a time: all
 * of them would be the largest allocation at the end (a chain per
 * record and row), each part costs a walk of the records. */
#define GRAPH_PARTS 4

/* Event ev's records' chains of rows [e0, e1) into b->items, row by
 * row, each in its records' order; first[e] is where row e's chains
 * start, then where they end; base is row e0's start. */
static void graph_items(struct gbuild *b, struct event *ev, size_t *first,
			size_t e0, size_t e1, size_t base)
{
	for (size_t r = 0; r < ev->nr_recs; r++) {
		const struct summary *s = ev->recs[r].s;

		const size_t chain = b->rep->lay.chain * s->cap;

		for (uint32_t i = 0; i < s->nr; i++) {
			const uint32_t e = sum_get(s, i);
			const uint32_t start = sum_get(s, s->cap + i);

			if (e < e0 || e >= e1)
				continue;
			b->items[first[e]++ - base] = (struct item){
				.chain = sum_addr(s, chain + start),
				.len = (s->nr_chain - start) |
				       (s->narrow ? ITEM_NARROW : 0),
				.rec = (uint32_t)r};
		}
	}
}

/* The graphs of event ev's rows from its records. */
static int build_event_graphs(struct gbuild *b, struct event *ev)
{
	struct pda_report *rep = b->rep;
	size_t *first, nr = 0, most = 0, room;
	int rc = 0;

	if (!ev->nr_recs)
		return 0;
	b->ev = ev;
	b->abs_min = (uint64_t)((double)ev->total_period *
				(rep->graph_min / 100.0));
	first = pdc_zalloc(&rep->mem, (rep->nr_ents + 1) * sizeof(*first));
	if (!first)
		return PD_ERR_NOMEM;
	/* each row's chains, in its records' order: a counting sort */
	for (size_t r = 0; r < ev->nr_recs; r++)
		for (uint32_t i = 0; i < ev->recs[r].s->nr; i++)
			first[sum_get(ev->recs[r].s, i) + 1]++;
	for (size_t e = 0; e < rep->nr_ents; e++) {
		if (first[e + 1] > most)
			most = first[e + 1];
		first[e + 1] += first[e];
	}
	nr = first[rep->nr_ents];
	room = nr / GRAPH_PARTS > most ? nr / GRAPH_PARTS : most;
	b->items = pdc_malloc(&rep->mem, room * sizeof(*b->items));
	b->tmp = pdc_malloc(&rep->mem, most * sizeof(*b->tmp));
	b->gi = pdc_malloc(&rep->mem, most * sizeof(*b->gi));
	if (!b->items || !b->tmp || !b->gi) {
		rc = PD_ERR_NOMEM;
		goto out;
	}
	for (size_t e0 = 0, e1; rc == 0 && e0 < rep->nr_ents; e0 = e1) {
		const size_t base = first[e0];

		/* the rows whose chains fit, one at least */
		for (e1 = e0 + 1;
		     e1 < rep->nr_ents && first[e1 + 1] - base <= room; e1++)
			;
		graph_items(b, ev, first, e0, e1, base);
		/* first[e] is now where row e's chains end */
		for (size_t e = e0, lo = base; rc == 0 && e < e1;
		     lo = first[e++]) {
			struct pda_report_val *v;
			uint64_t cum = 0, cum_count = 0;

			if (lo == first[e])
				continue;
			v = &ev->v[e];
			v->chain = cnode_new(rep, 0, UINT32_MAX);
			if (!v->chain) {
				rc = PD_ERR_NOMEM;
				break;
			}
			for (size_t k = lo - base; k < first[e] - base; k++) {
				cum += ev->recs[b->items[k].rec].period;
				cum_count += ev->recs[b->items[k].rec].count;
			}
			rep->cnodes[v->chain].pub.children_hit = cum;
			rep->cnodes[v->chain].pub.children_count = cum_count;
			b->base = lo - base;
			b->nr_task = 0;
			b->task[b->nr_task++] = (struct gtask){
				.node = v->chain,
				.lo = lo - base,
				.hi = first[e] - base};
			while (rc == 0 && b->nr_task)
				rc = graph_expand(b, b->task[--b->nr_task]);
		}
	}
out:
	pdc_free(&rep->mem, first);
	pdc_free(&rep->mem, b->items);
	pdc_free(&rep->mem, b->tmp);
	pdc_free(&rep->mem, b->gi);
	return rc;
}

static int build_graphs(struct pda_report *rep)
{
	struct gbuild b = {.rep = rep};
	int rc = 0;

	if (!rep->deferred)
		return 0;
	b.mark = pdc_zalloc(&rep->mem, (rep->nr_cframes + 1) * sizeof(*b.mark));
	b.by_name = pdc_zalloc(&rep->mem,
			       (rep->nr_cnames + 1) * sizeof(*b.by_name));
	b.by_name_inl = pdc_zalloc(&rep->mem, (rep->nr_cnames + 1) *
						      sizeof(*b.by_name_inl));
	if (!b.mark || !b.by_name || !b.by_name_inl ||
	    PDC_GROW(&rep->mem, b.task, b.alloc_task, 1, 1) < 0)
		rc = PD_ERR_NOMEM;
	for (size_t e = 0; rc == 0 && e < rep->nr_events; e++)
		rc = build_event_graphs(&b, &rep->events[e]);
	pdc_free(&rep->mem, b.mark);
	pdc_free(&rep->mem, b.by_name);
	pdc_free(&rep->mem, b.by_name_inl);
	pdc_free(&rep->mem, b.grp);
	pdc_free(&rep->mem, b.task);
	return rc;
}

/* The call graphs' children totals and order.  A child is made after
 * its parent: from the last node back, each is complete when reached
 * (deferred graphs have their totals). */
static int finish_graphs(struct pda_report *rep)
{
	uint32_t *sc = NULL;
	size_t alloc_sc = 0;
	int rc = 0;

	for (size_t i = rep->nr_cnodes; rc == 0 && i > 1; i--) {
		struct cnode *n = &rep->cnodes[i - 1];

		n->pub.name = n->pub.parent ? rep->cframes[n->frame]->disp : NULL;
		rc = sort_siblings(rep, n, &sc, &alloc_sc);
		if (n->pub.parent && !rep->deferred) {
			struct pda_report_cnode *p = &rep->cnodes[n->pub.parent].pub;

			p->children_hit += n->pub.hit + n->pub.children_hit;
			p->children_count += n->pub.count + n->pub.children_count;
		}
	}
	pdc_free(&rep->mem, sc);
	return rc;
}

/* The group of the capture's GROUP_DESC that event index e leads or is
 * a member of, or NULL. */
static const struct pd_env_group *group_of(const struct pda_report *rep,
					   size_t e)
{
	for (uint32_t g = 0; g < rep->env->nr_groups; g++) {
		const struct pd_env_group *grp = &rep->env->groups[g];

		/* 64-bit: a damaged section's leader + members can wrap */
		if (e >= grp->leader_idx &&
		    e < (uint64_t)grp->leader_idx + grp->nr_members)
			return grp;
	}
	return NULL;
}

/*
 * The tables of a capture that recorded groups ({a,b}), as perf 6.1
 * shows it without --group: a table per group with every member side by
 * side, those without samples too, and one per event outside a group
 * (with samples); in the capture's order.  members: the events with
 * samples, or with --group every event (nr).
 */
static int recorded_tables(struct pda_report *rep, const unsigned *members,
			   unsigned nr)
{
	/* a group's events: at most every event of the capture (an
	 * index past them has no evsel and is left out below) */
	const size_t cap = pd_file_nr_evsels(rep->file);
	unsigned *grp_members =
		pdc_zalloc(&rep->mem, (cap + 1) * sizeof(unsigned));
	int rc = 0;

	if (!grp_members)
		return PD_ERR_NOMEM;

	for (unsigned i = 0; rc == 0 && i < nr; i++) {
		const struct pd_env_group *grp = group_of(rep, members[i]);
		unsigned n = 0;
		bool seen = false;

		if (!grp || grp->nr_members < 2) {
			/* --group lists every event, but perf's skip-empty
			 * drops a lone one without samples (every sample
			 * outside --time, say) */
			if (!rep->events[members[i]].nr_samples)
				continue;
			rc = make_table(rep, &rep->tables[rep->nr_tables],
					&members[i], 1, rep->nr_tables == 0);
			rep->nr_tables++;
			continue;
		}
		/* the group's table is made at its first event with samples */
		for (unsigned j = 0; j < i && !seen; j++)
			seen = group_of(rep, members[j]) == grp;
		if (seen)
			continue;
		for (uint32_t m = 0; m < grp->nr_members && n < cap; m++) {
			const struct pd_evsel *ev =
				pd_file_evsel(rep->file, grp->leader_idx + m);

			/* the reader drops a GROUP_DESC naming events the
			 * capture lacks; a member without one is left out */
			if (!ev || !event_of(rep, ev))
				continue;
			grp_members[n++] = grp->leader_idx + m;
		}
		if (!n)
			continue;
		rc = make_table(rep, &rep->tables[rep->nr_tables], grp_members,
				n, rep->nr_tables == 0);
		rep->nr_tables++;
	}
	pdc_free(&rep->mem, grp_members);
	return rc;
}

/* Something ordered by its first sample: an entry, a record, a DSO. */
struct by_first {
	struct okey first;
	size_t i;
};

static int cmp_by_first(const void *a, const void *b)
{
	const struct by_first *x = a, *y = b;
	const int r = okey_cmp(&x->first, &y->first);

	return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* Whether record a's first sample comes before record b's (their
 * indices, in recs), the earlier index first on a tie. */
static bool rec_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct rec *recs = ctx;
	const struct okey x = {.time = recs[a].first_time,
			       .seq = recs[a].first_seq};
	const struct okey y = {.time = recs[b].first_time,
			       .seq = recs[b].first_seq};
	const int r = okey_cmp(&x, &y);

	return r ? r < 0 : a < b;
}

/* Event ev's records in the order of their first samples.  Sorted as
 * indices and moved in place, cycle by cycle: a capture's records are
 * hundreds of thousands, and copies of them would be the report's
 * largest allocation at the end.  0 or PD_ERR_NOMEM. */
static int order_recs(struct pda_report *rep, struct event *ev)
{
	uint32_t *idx, *tmp;

	if (ev->nr_recs < 2)
		return 0;
	idx = pdc_malloc(&rep->mem, ev->nr_recs * sizeof(*idx));
	tmp = pdc_malloc(&rep->mem, ev->nr_recs * sizeof(*tmp));
	if (!idx || !tmp) {
		pdc_free(&rep->mem, idx);
		pdc_free(&rep->mem, tmp);
		return PD_ERR_NOMEM;
	}
	for (size_t r = 0; r < ev->nr_recs; r++)
		idx[r] = (uint32_t)r;
	/* the records come nearly in order, as the file has them */
	sort_ids(idx, tmp, ev->nr_recs, rec_before, ev->recs);
	pdc_free(&rep->mem, tmp);
	/* place i gets record idx[i]; a place filled is marked idx[i] = i */
	for (size_t i = 0; i < ev->nr_recs; i++) {
		const struct rec save = ev->recs[i];
		size_t j = i;

		if (idx[i] == i)
			continue;
		for (;;) {
			const size_t k = idx[j];

			idx[j] = (uint32_t)j;
			if (k == i) {
				ev->recs[j] = save;
				break;
			}
			ev->recs[j] = ev->recs[k];
			j = k;
		}
	}
	pdc_free(&rep->mem, idx);
	return 0;
}

/* Any order: what followed the order samples came in, as if they had
 * come in time (each row's look and rank, the records' order, the
 * DSOs' ranks).  0 or PD_ERR_NOMEM. */
static int order_by_first(struct pda_report *rep)
{
	const size_t most =
		rep->nr_ents > rep->nr_dsos ? rep->nr_ents : rep->nr_dsos;
	struct by_first *v;
	uint32_t *rank;

	v = pdc_malloc(&rep->mem, (most + 1) * sizeof(*v));
	rank = pdc_malloc(&rep->mem, (rep->nr_dsos + 1) * sizeof(*rank));
	if (!v || !rank) {
		pdc_free(&rep->mem, v);
		pdc_free(&rep->mem, rank);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < rep->nr_ents; i++) {
		struct ent *e = rep->ents[i];

		look_show(e, &rep->looks[e->look]->l);
		v[i] = (struct by_first){.first = e->first, .i = i};
	}
	qsort(v, rep->nr_ents, sizeof(*v), cmp_by_first);
	rep->by_rank = pdc_malloc(&rep->mem,
				  (rep->nr_ents + 1) * sizeof(*rep->by_rank));
	if (!rep->by_rank) {
		pdc_free(&rep->mem, v);
		pdc_free(&rep->mem, rank);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < rep->nr_ents; i++) {
		rep->ents[v[i].i]->rank = (uint32_t)i;
		rep->by_rank[i] = (uint32_t)v[i].i;
	}
	for (size_t e = 0; e < rep->nr_events; e++) {
		if (order_recs(rep, &rep->events[e]) < 0) {
			pdc_free(&rep->mem, v);
			pdc_free(&rep->mem, rank);
			return PD_ERR_NOMEM;
		}
	}
	for (size_t d = 0; d < rep->nr_dsos; d++)
		v[d] = (struct by_first){.first = rep->dso_first[d], .i = d};
	qsort(v, rep->nr_dsos, sizeof(*v), cmp_by_first);
	for (size_t d = 0; d < rep->nr_dsos; d++)
		rank[v[d].i] = (uint32_t)d + 1;
	for (size_t c = 0; c < rep->nr_cframes; c++)
		if (rep->cframes[c]->dso_rank)
			rep->cframes[c]->dso_rank =
				rank[rep->cframes[c]->dso_rank - 1];
	pdc_free(&rep->mem, v);
	pdc_free(&rep->mem, rank);
	return 0;
}

int pda_report_finish(struct pda_report *rep)
{
	const size_t nr_file = rep->file ? pd_file_nr_evsels(rep->file) : 0;
	unsigned *members;
	unsigned nr = 0;
	int rc = 0;

	if (rep->done)
		return PD_ERR_API;
	add_all_pending(rep);
	rep->done = true;
	if (rep->any_order && (rc = order_by_first(rep)) < 0)
		return rc;
	rc = build_graphs(rep);
	if (rc < 0)
		return rc;
	rc = finish_graphs(rep);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < rep->nr_ents; i++) {
		struct ent *e = rep->ents[i];
		const char *c = rep->thread_comm
					? rep->thread_comm(rep->thread_comm_arg,
							   e->pub.pid,
							   (uint32_t)e->pub.tid)
					: NULL;

		e->pub.thread_comm = e->pub.comm;
		if (c && *c && intern(rep, c, strlen(c),
				      &e->pub.thread_comm) < 0)
			return PD_ERR_NOMEM;
		/* perf names a cgroup when it prints it: by every record */
		c = rep->has[PDA_REPORT_CGROUP] && e->pub.cgroup &&
				    rep->cgroup_path
			    ? rep->cgroup_path(rep->cgroup_path_arg,
					       e->pub.cgroup)
			    : NULL;
		if (c && intern(rep, c, strlen(c), &e->pub.cgroup_path) < 0)
			return PD_ERR_NOMEM;
	}
	/* perf's group holds every event, those without samples too */
	for (size_t e = 0; (rep->flags & PDA_REPORT_GROUP) && rep->st.nr_samples &&
			   e < nr_file; e++)
		if (!event_of(rep, pd_file_evsel(rep->file, e)))
			return PD_ERR_NOMEM;
	members = pdc_malloc(&rep->mem,
			     (rep->nr_events + 1) * sizeof(*members));
	rep->tables = pdc_zalloc(&rep->mem, (rep->nr_events + 1) *
						    sizeof(*rep->tables));
	if (!members || !rep->tables) {
		pdc_free(&rep->mem, members);
		return PD_ERR_NOMEM;
	}
	/* events in the capture's order; one without samples has no table
	 * of its own (perf's report.skip-empty) */
	for (size_t e = 0; e < rep->nr_events; e++)
		if (rep->events[e].nr_samples ||
		    ((rep->flags & PDA_REPORT_GROUP) && rep->events[e].evsel))
			members[nr++] = (unsigned)e;
	if (rep->file && rep->env && rep->env->nr_groups &&
	    !(rep->flags & PDA_REPORT_NO_GROUP)) {
		/* perf forces one group of every event (--group) only
		 * where none was recorded */
		rc = recorded_tables(rep, members, nr);
	} else if (rep->flags & PDA_REPORT_GROUP) {
		if (nr) {
			rc = make_table(rep, &rep->tables[0], members, nr,
					true);
			rep->nr_tables = 1;
		}
	} else {
		for (unsigned i = 0; rc == 0 && i < nr; i++) {
			rc = make_table(rep, &rep->tables[i], &members[i], 1,
					i == 0);
			rep->nr_tables = i + 1;
		}
	}
	pdc_free(&rep->mem, members);
	return rc;
}

size_t pda_report_nr_tables(const struct pda_report *rep)
{
	return rep->nr_tables;
}

const struct pda_report_table *pda_report_table(const struct pda_report *rep,
						size_t i)
{
	return i < rep->nr_tables ? &rep->tables[i].pub : NULL;
}

const struct pda_report_entry *pda_report_entry(const struct pda_report *rep,
						uint32_t id)
{
	return id < rep->nr_ents ? &rep->ents[id]->pub : NULL;
}

const struct pda_report_val *pda_report_val(const struct pda_report *rep,
					    unsigned member, uint32_t id)
{
	return val_of(rep, member, id);
}

void pda_report_event_totals(const struct pda_report *rep, unsigned member,
			     uint64_t *nr_samples, uint64_t *period)
{
	*nr_samples = *period = 0;
	if (member < rep->nr_events) {
		*nr_samples = rep->events[member].nr_samples;
		*period = rep->events[member].total_period;
	}
}

uint64_t pda_report_event_latency(const struct pda_report *rep,
				  unsigned member)
{
	return member < rep->nr_events ? rep->events[member].total_latency
				       : 0;
}

const struct pda_report_cnode *pda_report_cnode(const struct pda_report *rep,
						uint32_t id)
{
	return id && id < rep->nr_cnodes ? &rep->cnodes[id].pub : NULL;
}

const char *pda_report_event_name(const struct pda_report *rep,
				  unsigned member)
{
	if (member >= rep->nr_events || !rep->events[member].evsel)
		return "unknown";
	return rep->events[member].evsel->name;
}

unsigned pda_report_nr_keys(const struct pda_report *rep)
{
	return rep->nr_shown;
}

enum pda_report_key pda_report_key(const struct pda_report *rep, unsigned i)
{
	return rep->keys[i];
}

unsigned pda_report_flags(const struct pda_report *rep)
{
	return rep->flags;
}

const struct pda_report_stats *pda_report_stats(const struct pda_report *rep)
{
	return &rep->st;
}
