/*
 * pda_report.h - `perf report`'s histogram: a capture's samples added up
 * by sort keys (comm, dso, symbol, ...), one table per event, each row
 * with its own (self) and, with callchains, its callers' (children)
 * samples and periods, sorted as perf 6.1 sorts them.
 */
#ifndef PDA_REPORT_H
#define PDA_REPORT_H

#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A report takes the capture's resolved samples as they come (a
 * pda_pipe_item's sample, stack and comm) and keeps one entry per
 * distinct tuple of sort-key values, as perf's hist entries:
 *
 *   comm     the thread's comm (":TID" when unknown)
 *   pid      the thread, shown "TID:comm" (perf 6.1's "pid" key is the
 *            thread)
 *   dso      the leaf's DSO, by its short name (the path's last part),
 *            "[unknown]" without a map
 *   sym      the leaf's symbol, "[k] name" in the kernel, "[.] name"
 *            elsewhere; without one its address (the map-relative one
 *            for a sample's own entry, the ip for a caller's, as perf)
 *   srcline  "file.c:LINE" of the leaf (basename), "sym+OFF" without
 *            line information, "??:0" without a map
 *   srcfile  the leaf's source file (basename), "" when unknown
 *   cpu      the sample's CPU
 *   parent   the first frame from the leaf whose symbol matches the
 *            parent pattern (perf's "^sys_|^do_page_fault" by default),
 *            "[other]" when none does
 *   type     perf >= 6.8's data type the sample's instruction accesses
 *            ("struct foo", "(unknown)", "(stack operation)"), from the
 *            data_type callback
 *   typeoff  the type with the offset and member in it, as perf 7.2
 *            writes it: "struct foo +0x8 (bar.baz)", "+0 (no field)"
 *            without a member, a pseudo type ("(unknown)") alone
 *   typecln  the type and the 64-byte cache line of the offset, as perf
 *            7.2 writes it: "struct foo: cache-line 1"
 *   dcacheline  perf's memory key: the 64-byte line of the data
 *            address as perf's map__map_ip() gives it (the offset in a
 *            file's map plus its pgoff), keyed by the sample's cpumode,
 *            the holding map's DSO id (device, inode, generation) and,
 *            for private anonymous user memory, the process; shown
 *            "[s]" in a shared file map, "[X]" without a map
 *   time     the sample's time cut down to a multiple of the time
 *            quantum (opts' time_quantum), every entry of the sample
 *   socket   the socket of the sample's CPU by the capture's CPU
 *            topology (opts' env; its per-CPU ids), -1 without either
 *   transaction, code_page_size, data_page_size  the sample's fields
 *            (0 without them), each entry of the sample
 *   addr     the frame's address as perf's sort__addr_cmp() takes it:
 *            the unmapped he->ip, so the sample's ip for its own entry
 *            and, for a caller's (whose he->ip is already the ip), the
 *            ip unmapped once more (ip + map start - pgoff in a file's
 *            map), as perf 6.1 shows it
 *   symbol_size, dso_size  the frame's symbol's size (perf's
 *            symbol__size(): its end, as perf fixes up a zero-size
 *            symbol's, less its start) and its map's (map__size(): end
 *            less start), every entry its frame's
 *   trace    a tracepoint sample's text as perf prints it (opts'
 *            trace_text), rows of other events all alike ("N/A")
 *   cgroup   the sample's cgroup id (PERF_SAMPLE_CGROUP), every entry
 *            of the sample, shown by the path opts' cgroup_path gives
 *   cgroup_id  the cgroup namespace (nsfs device and inode) of the
 *            sample's thread at the sample (PERF_RECORD_NAMESPACES), as
 *            given to pda_report_cgroup_ns(), every entry of the sample
 *   symbol_iaddr  perf's memory key: the sampled instruction's address
 *            (a row each), shown as its function ("[.] name") or,
 *            without one, the address
 *   parallelism  perf >= 6.15's: how many of the workload's threads ran
 *            when the sample was taken (pda_parallel.h), as given to
 *            pda_report_add_latency(); 0 for samples added without it
 * The type keys are the sample's own entry's: not with children.
 *
 * Children (PDA_REPORT_CHILDREN, perf's default with callchains): a
 * sample also adds its period to the children column of the entry of
 * every frame of its callchain, each distinct entry once a sample, as
 * perf's cumulative iterator (hist.c iter_add_next_cumulative_entry).
 *
 * Events: each event (pd_evsel) gets its table; an entry belongs to the
 * tables of the events whose samples touched it.  Entry values are kept
 * per event.  pda_report_finish() sorts each table as perf orders its
 * output: children period (with call graphs, then the longer graph
 * first in caller order, the shorter in callee order, for rows of one
 * thread with the sym key: perf's "caller above callee"), self period (with group, the other members'
 * next), then each key's sort function, then, for full ties, the order
 * of perf's collapsed tree (each key's collapse comparison).
 *
 * Memory: entries and strings live in the report (its own intern table),
 * so a report outlives the session its samples came from.  Not
 * thread-safe.
 */
struct pda_report;

enum pda_report_key {
	PDA_REPORT_COMM,
	PDA_REPORT_PID,
	PDA_REPORT_DSO,
	PDA_REPORT_SYM,
	PDA_REPORT_SRCLINE,
	PDA_REPORT_SRCFILE,
	PDA_REPORT_CPU,
	PDA_REPORT_PARENT,
	PDA_REPORT_TYPE,
	PDA_REPORT_TYPEOFF,
	PDA_REPORT_TYPECLN,
	PDA_REPORT_PARALLELISM,
	PDA_REPORT_SYMOFF,	/* perf >= 6.10: the symbol and the offset */
	/* perf's memory keys (each sample's own values: --mem-mode's) */
	PDA_REPORT_LOCAL_WEIGHT, /* the sample's weight (latency) */
	PDA_REPORT_MEM,		/* data_src's level (mem_lvl) */
	PDA_REPORT_SNOOP,	/* its snoop (mem_snoop) */
	PDA_REPORT_TLB,		/* its TLB (mem_dtlb) */
	PDA_REPORT_LOCKED,	/* its lock (mem_lock) */
	PDA_REPORT_BLOCKED,	/* its blocked (mem_blk) */
	PDA_REPORT_DADDR_SYM,	/* the data address (symbol_daddr) */
	PDA_REPORT_DADDR_DSO,	/* the data address's object (dso_daddr) */
	PDA_REPORT_PHYS_DADDR,	/* the physical data address (phys_daddr) */
	PDA_REPORT_LOCAL_INS_LAT, /* x86's instruction latency */
	PDA_REPORT_WEIGHT,	/* local_weight times the row's samples */
	PDA_REPORT_INS_LAT,	/* local_ins_lat times the row's samples */
	PDA_REPORT_DCACHELINE,	/* the data address's cache line */
	PDA_REPORT_TIME,	/* the sample's time, cut to a quantum */
	PDA_REPORT_SOCKET,	/* the sample's CPU's socket */
	PDA_REPORT_TRANSACTION,	/* PERF_SAMPLE_TRANSACTION's flags */
	PDA_REPORT_CODE_PAGE,	/* PERF_SAMPLE_CODE_PAGE_SIZE */
	PDA_REPORT_DATA_PAGE,	/* PERF_SAMPLE_DATA_PAGE_SIZE (memory) */
	PDA_REPORT_ADDR,	/* the frame's address */
	PDA_REPORT_IADDR,	/* the sampled instruction (symbol_iaddr) */
	PDA_REPORT_SYM_SIZE,	/* the frame's symbol's size */
	PDA_REPORT_DSO_SIZE,	/* the size of the frame's map */
	PDA_REPORT_CGROUP,	/* the sample's cgroup (PERF_SAMPLE_CGROUP) */
	PDA_REPORT_TRACE,	/* a tracepoint sample's text */
	PDA_REPORT_CGROUP_ID,	/* the thread's cgroup namespace */
	PDA_REPORT_NR_KEYS
};

#define PDA_REPORT_MAX_KEYS 16

/* A key by perf's name ("comm", "sym" or "symbol", ...): 0 and *key,
 * or -1 for a name perf 6.1 does not know or pdtool does not sort by. */
int pda_report_key_by_name(const char *name, enum pda_report_key *key);
/* The key's perf name ("comm") and column header ("Command"). */
const char *pda_report_key_name(enum pda_report_key key);
const char *pda_report_key_header(enum pda_report_key key);

enum pda_report_flags {
	PDA_REPORT_CHILDREN = 1u << 0,	/* children columns (callers) */
	PDA_REPORT_GROUP = 1u << 1,	/* one table, every event side by
					 * side (perf report --group) */
	PDA_REPORT_NR_SAMPLES = 1u << 2, /* -n: sort ties by samples */
	PDA_REPORT_PERIOD = 1u << 3,	/* --show-total-period: by period */
	PDA_REPORT_CALLCHAIN = 1u << 4,	/* keep each row's call graph */
	/* the callchain's order (perf's -g caller|callee): caller first
	 * (from the root) or callee first (from the leaf).  Neither: caller
	 * with PDA_REPORT_CHILDREN, else callee, as perf 6.1.  The order
	 * also decides which frames --max-stack keeps, which entry a
	 * recursive function's children come from and where the parent key
	 * looks first. */
	PDA_REPORT_CALLER = 1u << 5,
	PDA_REPORT_CALLEE = 1u << 6,
	PDA_REPORT_LATENCY = 1u << 7,	/* perf >= 6.15's --latency: rows by
					 * the latency the samples were added
					 * with (pda_report_add_latency), then
					 * as without; with children, by the
					 * children's latency, the children's
					 * period, the latency, the period */
	PDA_REPORT_NO_GROUP = 1u << 8,	/* a table per event, also where
					 * the capture recorded groups
					 * (perf report --no-group) */
	PDA_REPORT_GRAPH_REL = 1u << 9,	/* graph_min_percent is a share of
					 * a node's parent's children (perf's
					 * fractal), not of the event's
					 * period */
	/* Samples may come out of time order, each placed in time by
	 * pda_report_at() first: a row keeps what its earliest sample
	 * says, as perf's hist entries added in time order (its comm and
	 * thread, map and symbol, level, --dsos state), and whatever
	 * follows the order samples first came in (DSOs' order in call
	 * graphs, graphs' siblings, full ties) is as if they came in time.
	 * Not with the cpu, parallelism, memory or type keys, whose rows
	 * are made per sample: pda_report_any_order() says whether it
	 * holds. */
	PDA_REPORT_ANY_ORDER = 1u << 10,
	/* opts' symbols name rows: a row shows when its own symbol is one
	 * of them (pdtool report --callers and --callees), where perf's
	 * --symbols tests each sample's own symbol and hides the rows it
	 * makes, its callers' too */
	PDA_REPORT_SYM_ROWS = 1u << 11,
};

struct pda_report_opts {
	size_t sz;		/* by PDA_REPORT_OPTS */
	const enum pda_report_key *keys; /* NULL: comm, dso, sym */
	unsigned nr_keys;	/* 1..PDA_REPORT_MAX_KEYS */
	unsigned flags;		/* pda_report_flags */
	unsigned max_stack;	/* callchain frames from the leaf, inlined
				 * ones not counted (perf's --max-stack);
				 * 0: PDA_MAX_STACK */
	/* With PDA_REPORT_CALLCHAIN: perf's call graph threshold (0..100;
	 * 0: whole graphs), the part perf prints.  A node under it (of
	 * the event's period, or with PDA_REPORT_GRAPH_REL of its
	 * parent's children_hit) is kept without children: its own
	 * values stay true, the nodes below it are left out. */
	double graph_min_percent;
	const char *parent;	/* the parent pattern (POSIX extended);
				 * NULL: perf's default */
	/* perf's --comms, --symbols, --pid, --tid: only the rows whose
	 * comm, process or thread is one of these (NULL-terminated, or nr_
	 * of them; NULL: any), and made by samples whose own symbol is one
	 * of symbols, as dsos (or, with PDA_REPORT_SYM_ROWS, whose symbol
	 * is).  perf hides the other rows and still counts their samples
	 * in the totals (its default --percentage for these). */
	const char *const *comms, *const *symbols;
	const uint32_t *pids, *tids;
	/* perf's --dsos: only the rows made by samples whose own map is one
	 * of these (its file name or recorded path; NULL-terminated; NULL:
	 * any).  A sample outside them still counts in the totals and its
	 * callers' rows, and a row keeps the state of the sample that made
	 * it, as perf's hist entries do (a row first reached from outside
	 * the DSOs stays hidden). */
	const char *const *dsos;
	size_t nr_pids, nr_tids;
	/* The thread's comm at the end of the capture (perf measures the
	 * comm column by it and the pid key shows it): "" or NULL when not
	 * known (the row's own comm then).  NULL: the rows' own. */
	const char *(*thread_comm)(void *arg, uint32_t pid, uint32_t tid);
	void *thread_comm_arg;
	/* With PDA_REPORT_GROUP: the capture, whose events are the group's
	 * members, those without samples included (perf's --group). */
	const struct pd_file *file;
	/* The capture's environment, or NULL: a table of a group recorded
	 * as one (GROUP_DESC) is named "anon group { a, b }" as perf names
	 * it, not "a, b" (events grouped by --group only). */
	const struct pd_env *env;
	const struct pd_alloc *alloc;
	char *errbuf;		/* a bad pattern's message */
	size_t errbuf_size;
	/* The type, typeoff and typecln keys: the data type sample's instruction
	 * accesses, *type its name (never NULL), *offset in it, *member
	 * the member there (NULL: none).  Strings need live only for the
	 * call.  0 or a negative pd_err, which stops the adding. */
	int (*data_type)(void *arg, const struct pd_sample *sample,
			 const char **type, int64_t *offset,
			 const char **member);
	void *data_type_arg;
	/* The symbol_daddr, dso_daddr and dcacheline keys: the data
	 * address (addr) in the sample's process, resolved into *out
	 * (pda_mem_daddr()).  Strings need live only for the call.  0 or
	 * a negative pd_err. */
	int (*data_addr)(void *arg, const struct pd_sample *sample,
			 struct pda_daddr *out);
	void *data_addr_arg;
	/* The time key: the quantum its times are cut to (ns; 0: perf's
	 * default, 100 ms), shown with 9 digits after the second's point
	 * with time_ns, else 6 (perf's --ns). */
	uint64_t time_quantum;
	bool time_ns;
	/* perf 6.1's ipc_null key, which its report appends to a --sort
	 * naming "symbol": no column of its own in pdtool's tables (the
	 * emitter's ipc_null), but perf's sort_sym_ipc_null compares with
	 * sort__sym_cmp(): the rows split and tie by the sample's symbol
	 * too.  A sym key is appended, not counted by
	 * pda_report_nr_keys(). */
	bool ipc_null;
	/* The cgroup key: the path of a sample's cgroup id (the capture's
	 * PERF_RECORD_CGROUP's), asked in pda_report_finish(), NULL when
	 * none; NULL: no paths ("unknown"). */
	const char *(*cgroup_path)(void *arg, uint64_t id);
	void *cgroup_path_arg;
	/* The trace key (needed with it): a tracepoint sample's text as
	 * perf prints it into *text (NULL: none, an empty cell) and *len,
	 * valid until the next call.  0 or a negative pd_err. */
	int (*trace_text)(void *arg, const struct pd_sample *sample,
			  const char **text, size_t *len);
	void *trace_text_arg;
};

#define PDA_REPORT_OPTS(name, ...)                                          \
	struct pda_report_opts name = { .sz = sizeof(struct pda_report_opts), \
					__VA_ARGS__ }

/* @return 0 and *out, PD_ERR_API (bad opts or parent pattern, errbuf
 * says which) or PD_ERR_NOMEM.  Free with pda_report_free(). */
int pda_report_new(const struct pda_report_opts *opts,
		   struct pda_report **out);
/* Accepts NULL. */
void pda_report_free(struct pda_report *rep);

/* Whether rep takes samples in any order (PDA_REPORT_ANY_ORDER asked
 * and the keys allow it); else they must come in time order. */
bool pda_report_any_order(const struct pda_report *rep);
/* Whether rep's rows and totals follow from a sample's summary (stack,
 * comm, pid), its event and period alone, any order: then n samples
 * alike in those may be added as one (pda_report_count). */
bool pda_report_takes_counts(const struct pda_report *rep);
/* The next add (pda_report_add*, pda_report_add_again*) stands for n
 * samples alike (pda_report_takes_counts; 0 is 1): counted n times. */
void pda_report_count(struct pda_report *rep, uint64_t n);

/* With pda_report_any_order(): the place in time of the samples added
 * next (perf's ordered events: by time, then seq, the order records of
 * one time come in).  Samples in time order may give time 0 and an
 * increasing seq. */
void pda_report_at(struct pda_report *rep, uint64_t time, uint64_t seq);

/* With the cgroup_id key: the cgroup namespace of the thread of the
 * samples added next, at their time (pda_pipe_item's cgroup_ns; 0/0
 * unknown, as perf's thread without NAMESPACES). */
void pda_report_cgroup_ns(struct pda_report *rep, struct pda_nsid ns);

/* The next sample's ip resolved apart from its stack (pda_pipe_item's
 * ip_leaf: its callchain gave no frame, or DWARF names its leaf other
 * than the symbol table), valid until that sample is added: its own
 * entry is made of it, as perf makes it from the sample's
 * addr_location, in no call graph.  NULL: none.  Any add forgets it. */
void pda_report_ip_leaf(struct pda_report *rep, const struct pda_stack *leaf);

/* Whether the keys' values depend on the thread's tid (not only the
 * pid and comm): a capture's memo must then key on it (memo_tid).  The
 * srcline and srcfile keys need the session's pda_opts.srcline. */
bool pda_report_needs_tid(const struct pda_report *rep);

/*
 * Add one sample: its event, tid, cpu and period; st its stack, leaf
 * first (NULL or empty: no frame); comm its thread's ("" or NULL:
 * unknown).  With cookie (a pipeline memo slot), what the stack gives
 * is kept there, and a later sample of the same slot is added with
 * pda_report_add_again().  @return 0, PD_ERR_NOMEM or PD_ERR_API after
 * pda_report_finish().
 */
int pda_report_add(struct pda_report *rep, const struct pd_sample *sample,
		   const struct pda_stack *st, const char *comm,
		   uint64_t *cookie);
/* A sample whose memo slot a pda_report_add() filled. */
int pda_report_add_again(struct pda_report *rep,
			 const struct pd_sample *sample, uint64_t cookie);

/* The same, the sample weighing latency in the latency column (perf
 * >= 6.15: period * 1000 / parallelism, pda_parallel_latency()), at
 * parallelism level (the parallelism key's value). */
int pda_report_add_latency(struct pda_report *rep,
			   const struct pd_sample *sample,
			   const struct pda_stack *st, const char *comm,
			   uint64_t *cookie, uint64_t latency, unsigned level);
/* A sample in its event's totals (samples, period, latency) and in no
 * row: perf >= 6.15's --parallelism, whose other levels' samples are
 * filtered out of the rows (HIST_FILTER__PARALLELISM) and still count in
 * what the percentages are of. */
int pda_report_add_total(struct pda_report *rep,
			 const struct pd_sample *sample, uint64_t latency);
int pda_report_add_again_latency(struct pda_report *rep,
				 const struct pd_sample *sample,
				 uint64_t cookie, uint64_t latency,
				 unsigned level);

/* Before pda_report_finish(): the capture's environment as opts' env,
 * for the groups a pipe turns out to have recorded (its GROUP_DESC comes
 * in its stream, after the report was made).  @return 0, or PD_ERR_API
 * after pda_report_finish(). */
int pda_report_set_env(struct pda_report *rep, const struct pd_env *env);

/* Sort every table.  Adding is over.  @return 0 or PD_ERR_NOMEM. */
int pda_report_finish(struct pda_report *rep);

/* One entry's values for one event. */
struct pda_report_val {
	uint64_t samples, period;	    /* self */
	uint64_t acc_samples, acc_period;   /* children: self included */
	uint64_t latency, acc_latency;	    /* self, children: as added */
	uint32_t chain;		/* with PDA_REPORT_CALLCHAIN: the root node
				 * of the row's call graph, 0 none */
	uint32_t max_depth;	/* its longest chain (perf's max_depth) */
	bool dso_filtered;	/* made by a sample outside opts' dsos or
				 * symbols (its own map, symbol) */
};

/* One row: the key values as perf prints them. */
struct pda_report_entry {
	const char *comm;	/* as shown: ":TID" for an unknown comm */
	uint32_t pid;
	const char *thread_comm; /* the thread's last comm: what perf
				  * measures the comm column by and the pid
				  * key shows */
	int32_t tid;
	int32_t cpu;
	uint32_t parallelism;	/* with the parallelism key */
	const char *dso;	/* short name; NULL: no map ("[unknown]") */
	const char *dso_path;	/* as recorded */
	const char *sym;	/* NULL: no symbol: addr is shown */
	uint64_t addr;		/* the address perf shows without a symbol */
	uint64_t sym_off;	/* with symoff and a symbol: addr's offset in
				 * it (the sample's, or the call site's) */
	char level;		/* 'k' kernel, '.' user */
	bool inlined;		/* an inlined function's frame */
	const char *srcline;	/* with the key */
	const char *srcfile;	/* with the key */
	const char *parent;	/* NULL: "[other]" */
	const char *type;	/* with a type key */
	const char *typeoff;	/* with typeoff: "struct foo +0x8 (bar)" */
	const char *typecln;	/* with typecln: "struct foo: cache-line 0" */
	int64_t type_off;	/* with typeoff or typecln */
	/* the memory keys: the values of the sample that made the row
	 * (perf shows the first one's; the keys compare their own bits) */
	uint64_t weight;	/* WEIGHT_STRUCT's var1, else WEIGHT */
	uint64_t data_src;	/* the whole data_src (0: none) */
	uint64_t daddr;		/* the data address (0: none) */
	uint64_t phys_daddr;	/* its physical address (0: none) */
	uint64_t daddr_off;	/* in daddr_sym */
	const char *daddr_sym;	/* NULL: none ("[.] 0x...") */
	bool daddr_object;	/* daddr_sym is a data object's: "+0xOFF" */
	const char *daddr_dso;	/* short name; NULL: no map ("[unknown]") */
	uint32_t ins_lat;	/* WEIGHT_STRUCT's var2 (perf's ins_lat) */
	char daddr_level;	/* symbol_daddr's: the sample's cpumode's */
	/* dcacheline: the line's address, daddr_sym's offset as perf
	 * prints it there (the line less the symbol's address) and the
	 * level shown ('s' shared file data, 'X' no map) */
	uint64_t dcacheline, dcl_off;
	char dcl_level;
	bool time_ns;		/* time: 9 digits after the point, else 6 */
	uint64_t time;		/* with the key: cut to the quantum */
	int32_t socket;		/* with the key: -1 unknown */
	uint64_t transaction;	/* with the key: PERF_TXN_* */
	uint64_t code_page, data_page; /* with the keys: bytes, 0 none */
	uint64_t address;	/* with addr: perf's unmapped he->ip */
	uint64_t iaddr;		/* with symbol_iaddr: the sample's ip */
	/* with symbol_size: the symbol's size (end - start as perf fixes
	 * the end up); with dso_size: the map's (end - start); shown
	 * "unknown" without a symbol (sym) or a map (dso) */
	uint64_t sym_size, dso_size;
	/* with cgroup: the sample's cgroup id (0: none, "N/A") and its
	 * path (NULL: none recorded, "unknown") */
	uint64_t cgroup;
	const char *cgroup_path;
	/* with cgroup_id: the thread's cgroup namespace, 0/0 unknown */
	struct pda_nsid cgroup_ns;
	/* with trace: a tracepoint sample's text; NULL for other events'
	 * rows ("N/A") */
	const char *trace;
};

/* One table: an event (or, with PDA_REPORT_GROUP, all of them). */
struct pda_report_table {
	const char *event;	/* "cpu-clock"; with group, "a, b, c" */
	unsigned nr_members;	/* events side by side: 1 unless group */
	bool leads_group;	/* a recorded group's leader alone
				 * (PDA_REPORT_NO_GROUP): perf still says
				 * "events" */
	const unsigned *members; /* their indexes for pda_report_val() */
	uint64_t nr_samples;	/* summed over the members */
	uint64_t total_period;
	size_t nr_rows;
	const uint32_t *rows;	/* entry ids, sorted */
};

/* After pda_report_finish(): the tables, in the capture's event order
 * (empty events left out).  Valid until pda_report_free(). */
size_t pda_report_nr_tables(const struct pda_report *rep);
const struct pda_report_table *pda_report_table(const struct pda_report *rep,
						size_t i);
const struct pda_report_entry *pda_report_entry(const struct pda_report *rep,
						uint32_t id);
/* Entry id's values for event member (table->members[i]). */
const struct pda_report_val *pda_report_val(const struct pda_report *rep,
					    unsigned member, uint32_t id);
/* Event member's samples and their periods summed (each table column
 * is a share of its member's period). */
void pda_report_event_totals(const struct pda_report *rep, unsigned member,
			     uint64_t *nr_samples, uint64_t *period);
/* Event member's samples' latencies summed. */
uint64_t pda_report_event_latency(const struct pda_report *rep,
				  unsigned member);
/* Event member's name ("cycles"; "unknown" for an event not seen). */
const char *pda_report_event_name(const struct pda_report *rep,
				  unsigned member);
/* The keys, as given (opts' ipc_null's sym left out). */
unsigned pda_report_nr_keys(const struct pda_report *rep);
enum pda_report_key pda_report_key(const struct pda_report *rep, unsigned i);
unsigned pda_report_flags(const struct pda_report *rep);
/* Key i's one value when perf elides its column (sort__setup_elide()):
 * the comm, dso or sym key whose filter (comms, dsos, symbols) names one
 * value, unless every key would be; such a key does not sort the rows
 * either.  NULL: shown.  Valid while opts' lists are. */
const char *pda_report_key_elided(const struct pda_report *rep, unsigned i);

/*
 * Call graphs (PDA_REPORT_CALLCHAIN), as perf's callchain_root of a hist
 * entry: every sample adds its callchain, in the report's order, to
 * the graph of each row it adds to, from that row's frame on (the whole
 * chain for the sample's own row).  A node is one frame; frames are
 * merged as perf's match_chain() with its function key: by symbol (an
 * inlined one by name), by address without one.  After
 * pda_report_finish(): hit is the period of the chains ending at the
 * node, children_hit their sum below it (also where opts'
 * graph_min_percent left the nodes below out); a node's children are
 * in the order perf's rb_root_in keeps them (its match order, which decides
 * ties of equal shares).
 */
struct pda_report_cnode {
	const char *name;	/* as perf prints it: the symbol ("name
				 * (inlined)"), or "0x..." its address */
	uint64_t hit, children_hit;
	uint64_t count, children_count; /* samples */
	uint32_t parent, child, next;	/* node ids, 0 none */
};

/* Node id (from pda_report_val()'s chain, or a node's fields). */
const struct pda_report_cnode *pda_report_cnode(const struct pda_report *rep,
						uint32_t id);

struct pda_report_stats {
	uint64_t nr_samples;	/* added */
	uint64_t nr_entries;	/* distinct entries */
	uint64_t nr_truncated;	/* callchains cut at max_stack */
	uint64_t nr_hidden;	/* rows hidden by comms, symbols, pids, tids
				 * (of the first table) */
};

const struct pda_report_stats *pda_report_stats(const struct pda_report *rep);

#ifdef __cplusplus
}
#endif

#endif /* PDA_REPORT_H */
