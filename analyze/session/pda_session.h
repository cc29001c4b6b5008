/*
 * pda_session.h - libpda's session: what a capture's samples mean.
 *
 * libpda follows a capture's processes, threads and memory maps over time
 * (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL), finds the binaries the maps
 * name (--symfs, build-id caches, debug directories, debuginfod, the
 * recorded path), and turns sample addresses into functions, inlined
 * frames and source lines.  It builds on libpd (reader/pd.h) and, like
 * it, never prints and keeps no global state.
 *
 *	struct pda_session *s;
 *	PDA_OPTS(o, .symfs = "/sysroot");
 *	pda_session_new(f, &o, &s);
 *	(read records with PD_READ_ORDERED)
 *		pda_session_feed(s, &rec);		// every record
 *		if (rec.type == PD_REC_SAMPLE) {
 *			pd_sample_decode(f, &rec, &sample);
 *			pda_sample_stack(s, &sample, &stack);
 *		}
 *	pda_session_free(s);
 *
 * A session and everything it hands out may be used by one thread at a
 * time.
 */
#ifndef PDA_SESSION_H
#define PDA_SESSION_H

#include "pd.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_session;

#define PDA_MAX_STACK 127 /* perf script's default --max-stack */

/* debuginfod's limits per session when pda_opts gives none */
#define PDA_DEBUGINFOD_MAX_QUERIES 64
#define PDA_DEBUGINFOD_MAX_MS 60000

/* A debuginfod query under way (pda_opts.fetch_progress). */
struct pda_fetch_progress {
	const char *dso;  /* the binary it is for, as recorded */
	const char *what; /* "executable", "debuginfo" or "alt debuginfo"
			   * (a .gnu_debugaltlink file) */
	uint64_t done;	  /* bytes received, once a server sends the file */
	uint64_t total;	  /* bytes in all; 0 while not known */
	uint64_t ms;	  /* since the query began */
	bool finished;	  /* the query is over: its last call */
};

/* Called on the session's thread about once a second while a query
 * runs, and once when it ends; p is valid for the call only. */
typedef void (*pda_fetch_progress_fn)(void *arg,
				      const struct pda_fetch_progress *p);

struct pda_opts {
	size_t sz;		   /* sizeof(struct pda_opts), by PDA_OPTS */
	const char *symfs;	   /* --symfs: a sysroot of the recording host;
				    * see host_files */
	const char *buildid_dir;   /* --buildid-dir; NULL: $PERF_BUILDID_DIR,
				    * else $HOME/.debug (none with symfs,
				    * unless host_files) */
	const char *kallsyms;	   /* --kallsyms: /proc/kallsyms of the host */
	const char *vmlinux;	   /* --vmlinux */
	const char *jit_dir;	   /* where perf-PID.map files are; NULL: /tmp
				    * (symfs's /tmp with symfs) */
	bool no_demangle;	   /* --no-demangle */
	bool demangle_params;	   /* -v: C++ names with their parameter
				    * lists, as perf -v demangles */
	bool no_inline;		   /* --no-inline: no inlined frames at all */
	bool srcline;		   /* resolve file:line for each frame */
	bool no_debuginfod;	   /* never ask debuginfod; see debuginfod */
	bool use_host_kernel;	   /* this host's /proc/kallsyms and vdso
				    * stand for the recording kernel's when
				    * its build-id is this host's (or, with
				    * none recorded, its host and release),
				    * and its HOSTNAME is this host's unless
				    * host_kernel_any_host */
	pd_log_fn log;
	void *log_arg;
	enum pd_log_level log_level;
	const struct pd_alloc *alloc;
	char *errbuf;		   /* where a failed pda_session_new says why */
	size_t errbuf_size;
	/* Inlined frames on callchain stacks (frame pointers, kernel) too.
	 * perf 6.1 expands them only on DWARF-unwound user stacks, so by
	 * default only those get them; no_inline turns both off. */
	bool inline_callchain;
	/* The DWARF unwinder (pda_sample_stack on samples with REGS_USER and
	 * STACK_USER): "libdw" (any arch libebl knows) or "libunwind"
	 * (x86_64 only: others keep their leaf, stopped NO_ARCH); NULL:
	 * the default, libdw.  An unknown name fails pda_session_new with
	 * PD_ERR_UNSUPPORTED. */
	const char *unwinder;
	/* User frames the unwinder produces at most, the leaf included; 0:
	 * PDA_MAX_STACK, perf script's default. */
	unsigned max_stack;
	/*
	 * With symfs, what is read is symfs and the files the options name
	 * (buildid_dir, kallsyms, vmlinux, jit_dir), nothing else of this
	 * host: host_files (--host-files) adds what is read without symfs,
	 * after symfs: the recorded paths (only where the capture gives a
	 * build-id to check them against), the build-id cache
	 * $PERF_BUILDID_DIR or $HOME/.debug (when buildid_dir is NULL),
	 * /usr/lib/debug and /tmp's perf-PID.map files.  Without symfs it changes nothing.
	 */
	bool host_files;
	/*
	 * use_host_kernel also for a capture whose HOSTNAME is not this
	 * host's, or that names none (--host-kernel).  Without it such a
	 * capture never gets this host's kernel symbols or vdso, whatever
	 * kernel build-id it claims: else a hostile capture that claims
	 * this kernel's could place its samples to learn, from the names
	 * they get in a run as root, where this kernel's symbols are
	 * (KASLR).
	 */
	bool host_kernel_any_host;
	/*
	 * debuginfod: the servers of DEBUGINFOD_URLS are asked for the
	 * binaries and debug files not found otherwise (when that is set,
	 * never with no_debuginfod), with symfs only when debuginfod says
	 * so (--debuginfod): a capture's build-ids are sent to them, and
	 * libdebuginfod keeps what they send in its cache.  A session asks
	 * at most debuginfod_max_queries times (0:
	 * PDA_DEBUGINFOD_MAX_QUERIES) and spends at most
	 * debuginfod_max_ms in queries (0: PDA_DEBUGINFOD_MAX_MS): the
	 * query under way then is stopped, and no more are made.
	 */
	bool debuginfod;
	unsigned debuginfod_max_queries;
	unsigned debuginfod_max_ms;
	pda_fetch_progress_fn fetch_progress; /* NULL: none */
	void *fetch_arg;
	/*
	 * With srcline, where DWARF gives an address of a found binary no
	 * line: what perf 6.1's addr2line gives instead (pda_frame's
	 * srcfile the symbol table's STT_FILE name, "" too, with line 0;
	 * PDA_FRAME_NO_SRCLINE where it finds the function but no file),
	 * as perf script prints them.  Without it such frames have no
	 * srcfile.
	 */
	bool srcline_a2l;
	/*
	 * --search-path DIR...: directories searched, recursively, for a
	 * binary not found otherwise: a file with the recorded path's
	 * basename (checked by build-id when the capture has one), then
	 * any ELF file with its build-id (the binary, then its debug
	 * file).  Symlinked directories are not entered.  Copied by
	 * pda_session_new.
	 */
	const char *const *search_paths;
	size_t nr_search_paths;
	/*
	 * The session reads no variable locations or macros from DWARF
	 * (no data types: fold, flame): those sections of a binary's DWARF
	 * are not inflated when it is opened (libdw inflates every
	 * compressed section it knows first: libc's debug file's location
	 * lists are a seventh of its DWARF).  Without srcline it reads no
	 * line tables either (.debug_line is not inflated, and inlined
	 * frames come without their call sites' lines).
	 */
	bool names_only;
	/*
	 * From how many first uses a DWARF capture's replay (its samples'
	 * first uses of each address, in file order, on the session's
	 * thread) is split over two threads where threads run; 0: 1024
	 * (fewer cost more to split than they save).  Tests lower it: no
	 * testdata capture has as many.
	 */
	unsigned replay_split_min;
};

#define PDA_OPTS(name, ...)                                                 \
	struct pda_opts name = { .sz = sizeof(struct pda_opts), __VA_ARGS__ }

/*
 * A session over an open capture; f must outlive it.  @return 0 and *out,
 * or a negative pd_err with *out = NULL and the reason in opts->errbuf.
 */
int pda_session_new(struct pd_file *f, const struct pda_opts *opts,
		    struct pda_session **out);
/* Accepts NULL. */
void pda_session_free(struct pda_session *s);
/* The last error's detail.  Never NULL. */
const char *pda_session_errmsg(const struct pda_session *s);
/*
 * What a failure rc of s says: the last error's detail, or rc's name
 * (pd_strerror) where none was set or the detail was set with another
 * error (an earlier warning's, left on s: most allocations and some reads
 * fail unsaid).  Never NULL.
 */
const char *pda_session_failure(const struct pda_session *s, int rc);

/*
 * Apply a record to the machine state: threads, comms and maps.  Feed
 * every record, in time order (PD_READ_ORDERED), samples included (they
 * are ignored here).  @return 0 or a negative pd_err (NOMEM).
 */
int pda_session_feed(struct pda_session *s, const struct pd_rec *rec);

/* The comm of a thread at the time of the last record fed. "" unknown.
 * Valid until the session is freed. */
const char *pda_thread_comm(struct pda_session *s, uint32_t pid,
			    uint32_t tid);

/* A namespace as PERF_RECORD_NAMESPACES names it: its nsfs device and
 * inode numbers; 0/0 unknown. */
struct pda_nsid {
	uint64_t dev, ino;
};

/* The cgroup namespace of a thread at the time of the last record fed
 * (its last NAMESPACES record's since its FORK), 0/0 unknown. */
struct pda_nsid pda_thread_cgroup_ns(struct pda_session *s, uint32_t pid,
				     uint32_t tid);

/* The path PERF_RECORD_CGROUP gave cgroup id (a sample's
 * PERF_SAMPLE_CGROUP), the first one given for it, among the records
 * fed; NULL: none.  Valid until the session is freed. */
const char *pda_session_cgroup(struct pda_session *s, uint64_t id);

/*
 * perf's short name of a DSO (dso__set_basename()) where it is not the
 * path's last part: a path sscanf() reads as "/tmp/perf-%d.map" (a JIT's
 * map, found or not) is "[JIT] tid %d", written to buf.  false: dso is
 * no such path.
 */
bool pda_jit_short_name(const char *dso, char *buf, size_t size);

enum pda_frame_flags {
	PDA_FRAME_KERNEL = 1u << 0,	/* kernel address */
	PDA_FRAME_INLINED = 1u << 1,	/* an inlined call, from DWARF */
	PDA_FRAME_NO_SYMBOL = 1u << 2,	/* no symbol covers ip */
	PDA_FRAME_NO_MAP = 1u << 3,	/* no map covers ip */
	PDA_FRAME_JIT = 1u << 4,	/* from a perf-PID.map */
	PDA_FRAME_GUEST = 1u << 5,
	/* a frame of an address's inlined functions (DWARF's) whose name
	 * is not the symbol table's for the address: perf 6.1 makes a
	 * symbol of its own for it and shows it as inlined (the others
	 * are the symbol table's own) */
	PDA_FRAME_DWARF_NAMED = 1u << 6,
	/* in a kernel module's map (perf names its DSO "[name]") */
	PDA_FRAME_MODULE = 1u << 7,
	/* opts.srcline_a2l: addr2line names the function at ip but no
	 * file ("??:?"), and perf prints no source line */
	PDA_FRAME_NO_SRCLINE = 1u << 8,
	/* the symbol is a data object's (STT_OBJECT): perf names a data
	 * address in it "sym+0xOFF" */
	PDA_FRAME_OBJECT = 1u << 9,
};

/*
 * One frame of a resolved stack.  Strings are interned: valid until the
 * session is freed, and equal strings are the same pointer.
 */
struct pda_frame {
	uint64_t ip;
	const char *sym;	/* demangled unless no_demangle; NULL none */
	const char *dso;	/* the map's name as recorded, e.g.
				 * "/usr/lib/x86_64-linux-gnu/libc.so.6",
				 * "[kernel.kallsyms]"; NULL: no map */
	uint64_t dso_addr;	/* ip in the DSO's own address space */
	uint64_t sym_off;	/* ip - symbol start */
	/* ip as perf's map__map_ip() gives it, what perf script prints on
	 * a callchain line: in a file's map the file offset (perf 6.1 keeps
	 * user symbols at file offsets), in a KSYM map the offset from its
	 * start; ip itself in the kernel's, a JIT map, an anonymous one and
	 * where no map covers it */
	uint64_t map_ip;
	const char *srcfile;	/* with opts.srcline; NULL unknown */
	unsigned line;
	unsigned flags;		/* pda_frame_flags */
	/* perf's symbol__size() of sym (its end as perf fixes it up, less
	 * its start; an inlined frame's: its function's) and map__size()
	 * of the map holding ip (end - start): the symbol_size and
	 * dso_size keys */
	uint64_t sym_size, map_size;
};

/* What perf's dcacheline key reads of the map holding an address: its
 * MMAP2 protection and flags (PROT_*, MAP_*) and its DSO's id (the
 * device, inode and inode generation of the DSO's first MMAP2; zeroes
 * for anonymous memory, an MMAP or a build-id MMAP2).  found: a map
 * holds the address (else all zero). */
struct pda_map_id {
	bool found;
	uint32_t prot, flags;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
};

/* A sample's data address resolved as perf's ip__resolve_data() does,
 * in the maps of the sample's cpumode (pda_mem_daddr). */
struct pda_daddr {
	const char *sym;	/* its symbol, NULL: none */
	uint64_t off;		/* the address's offset in sym */
	bool object;		/* sym is a data object's (STT_OBJECT) */
	const char *dso;	/* its object's name, NULL: no map */
	uint64_t al_addr;	/* perf's map__map_ip() of it */
	struct pda_map_id map;	/* the map holding it */
};

/* A stack, leaf first.  Reused across calls: init once, release once. */
struct pda_stack {
	struct pda_frame *frames;
	size_t nr, alloc;
};

#define PDA_STACK_INIT { NULL, 0, 0 }
void pda_stack_release(struct pda_session *s, struct pda_stack *st);

/*
 * How many of st's frames [from, to), from frame from, perf keeps at
 * --max-stack max (pda_stack_kept_in), and of all of st, from the leaf
 * (pda_stack_kept):
 * max callchain entries, each with the inlined frames it expands to
 * (inlined frames do not count, and are not cut from their entry).
 */
static inline size_t pda_stack_kept_in(const struct pda_stack *st,
					size_t from, size_t to, size_t max)
{
	size_t cut, counted = 0;

	/* the usual case, without a walk: all are kept */
	if (to - from <= max)
		return to - from;
	for (cut = from; cut < to; cut++) {
		if (st->frames[cut].flags & PDA_FRAME_INLINED)
			continue;
		if (counted == max)
			break;
		counted++;
	}
	while (cut > from && cut < to &&
	       (st->frames[cut - 1].flags & PDA_FRAME_INLINED))
		cut--;
	return cut - from;
}

static inline size_t pda_stack_kept(const struct pda_stack *st, size_t max)
{
	return pda_stack_kept_in(st, 0, st->nr, max);
}

/*
 * Whether sample's user stack is DWARF-unwound: it carries what
 * unwinding needs (REGS_USER with an abi, STACK_USER), as perf checks it
 * before unwinding.  The one test of the pipeline, which hands such a
 * sample to the unwinder (a copy of no bytes gives no frames: the stop
 * "no stack dump"), and of report's --max-stack, which cuts its stack as
 * perf's two chains (kernel callchain, unwound user frames).
 */
static inline bool pda_sample_unwinds(const struct pd_sample *sample)
{
	const uint64_t need = PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;

	return (sample->mask & need) == need && sample->regs_user.abi;
}

/* One of perf's --time ranges (struct perf_time_interval): ns,
 * inclusive at both ends, a start or end of 0 open. */
struct pda_time_range {
	uint64_t start, end;
};

/* Whether time t passes perf's list of --time ranges
 * (perf_time__ranges_skip_sample()): in any of them, or no time (0). */
static inline bool pda_time_in_ranges(const struct pda_time_range *r,
				      size_t nr, uint64_t t)
{
	if (!t)
		return true;
	for (size_t i = 0; i < nr; i++)
		if (t >= r[i].start && (t <= r[i].end || !r[i].end))
			return true;
	return false;
}

/*
 * Resolve a decoded sample's stack, leaf first: its callchain (PERF_CONTEXT
 * markers consumed, as perf does) or, without one, its ip.  A sample that
 * carries user registers and a user stack dump (`--call-graph dwarf`)
 * gets its user frames from the DWARF unwinder after the callchain's (the
 * kernel part), as perf merges them; those frames are return addresses
 * less 1 where perf subtracts it, with their inlined frames expanded
 * unless no_inline (callchain frames only with inline_callchain).
 * @return 0 or a negative pd_err.
 */
int pda_sample_stack(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st);

/* Why a binary's frames are [unknown], the first that applies. */
enum pda_unres_reason {
	PDA_UNRES_NOT_FOUND,	/* no usable file: tried says where */
	PDA_UNRES_BUILD_ID,	/* files there, none of the capture's build */
	PDA_UNRES_DEBUGINFOD,	/* a debuginfod query failed: detail */
	PDA_UNRES_STRIPPED,	/* found, but no .symtab and no debug file */
	PDA_UNRES_NO_SYMBOL,	/* symbols, none covering the addresses */
	PDA_UNRES_KALLSYMS,	/* kernel symbols not of the capture's kernel */
};

/*
 * A binary with unresolved frames, and why: the coverage line's "not
 * found" list and the "unresolved weight by binary" block.  Strings are
 * interned or static: valid until the session is freed.
 */
struct pda_missing_dso {
	const char *dso;	/* as recorded */
	uint64_t nr_samples;	/* samples with a frame in it */
	const char *const *tried; /* paths looked at, NULL-terminated;
				   * "PATH (why)" when PATH was there but
				   * not used ("build-id mismatch",
				   * "outside --symfs", "not ELF"...) */
	const char *why;	/* "not found", "build-id mismatch", ... */
	uint64_t nr_unresolved;	/* samples with an unresolved frame in it */
	enum pda_unres_reason reason;
	const char *detail;	/* the reason's particulars: "no debug file
				 * by build-id or .gnu_debuglink 'x.debug'",
				 * a debuginfod error, the kallsyms check */
	const char *action;	/* what would resolve them, one sentence */
	const char *package;	/* the package that installed the binary on
				 * this host (dpkg), only when the capture is
				 * of this host and the file is the recorded
				 * one; NULL otherwise */
};

/* The reason as words: "not found", "stripped". */
const char *pda_unres_reason_name(enum pda_unres_reason r);

/*
 * Why the DWARF unwinding of a sample's user stack stopped.  END and
 * MAX_FRAMES are how complete stacks end; every other reason means the
 * stack lacks its outer frames (stopped early).
 */
#define PDA_UNWIND_STOPS(X)                                                 \
	X(END, "end of stack")          /* CFI or a zero return address */  \
	X(MAX_FRAMES, "max-stack reached")                                  \
	X(NO_CFI, "no CFI for the pc")  /* no .eh_frame/.debug_frame entry  \
					 * covers it (JIT code too) */      \
	X(BAD_CFI, "CFI did not unwind") /* there, but no caller came of it */\
	X(STACK_SHORT, "stack dump too small") /* CFI read past the dump */ \
	X(BAD_ADDR, "read outside the stack dump and files")                \
	X(NO_MAP, "pc outside any map")                                     \
	X(NO_BINARY, "binary not found")                                    \
	X(NO_STACK, "no stack dump")    /* registers but 0 stack bytes */   \
	X(NO_REGS, "no pc or sp in the registers")                          \
	X(NO_ARCH, "architecture not supported")

enum pda_unwind_stop {
#define PDA_UNWIND_STOP_ENUM(name, text) PDA_UNWIND_##name,
	PDA_UNWIND_STOPS(PDA_UNWIND_STOP_ENUM)
#undef PDA_UNWIND_STOP_ENUM
	PDA_UNWIND_NR_STOPS
};

/* A stop reason as words ("stack dump too small"); "?" when unknown. */
const char *pda_unwind_stop_name(unsigned stop);

/* Unwinds that stopped early for one reason in one DSO. */
struct pda_unwind_stopped {
	const char *dso;	/* the map the last pc is in; NULL: none */
	unsigned why;		/* enum pda_unwind_stop */
	uint64_t nr_samples;
	uint64_t period;
};

struct pda_unwind_stats {
	const char *unwinder;		/* "libdw", "libunwind"; NULL: nothing
					 * unwound */
	const char *arch;		/* as unwound: "x86_64", "aarch64" */
	uint64_t nr_samples;		/* user stacks unwound */
	uint64_t period;		/* their periods summed */
	uint64_t nr_frames;		/* user frames they gave */
	uint64_t nr_stopped;		/* stopped early (not END, MAX_FRAMES) */
	uint64_t period_stopped;
	uint64_t by_stop[PDA_UNWIND_NR_STOPS];	/* samples per reason */
	uint64_t period_by_stop[PDA_UNWIND_NR_STOPS];
	size_t nr_stopped_dsos;
	const struct pda_unwind_stopped *stopped_dsos; /* the early stops by
							* (DSO, reason),
							* most samples first */
};

/* A file debuginfod gave. */
struct pda_fetched {
	const char *dso;  /* the binary it is for, as recorded */
	const char *what; /* as pda_fetch_progress.what */
	const char *path; /* where it is, in libdebuginfod's cache */
	uint64_t size;	  /* bytes */
};

/* What debuginfod was asked and gave. */
struct pda_fetch_stats {
	const char *urls;	/* DEBUGINFOD_URLS as read; NULL: no query */
	unsigned nr_queries;	/* asked */
	unsigned nr_found;	/* answered with a file (cached or sent) */
	unsigned nr_failed;	/* not found, or failed */
	unsigned nr_stopped;	/* stopped at the time limit */
	unsigned nr_skipped;	/* not asked: a limit was reached */
	bool query_limit;	/* debuginfod_max_queries was reached */
	bool time_limit;	/* debuginfod_max_ms was reached */
	uint64_t bytes;		/* the files' sizes summed */
	uint64_t ms;		/* time spent in queries */
	const char *cache;	/* the directory holding the files (its
				 * build-id folders), or NULL */
	size_t nr_fetched;
	const struct pda_fetched *fetched; /* the files, in query order */
};

struct pda_stats {
	uint64_t nr_samples;		/* stacks resolved */
	uint64_t nr_frames;
	uint64_t nr_frames_unresolved;	/* no symbol or no map */
	uint64_t nr_samples_unresolved;	/* with >= 1 such frame */
	size_t nr_missing;
	const struct pda_missing_dso *missing;
	/* every binary with unresolved frames, most such samples first
	 * (not-found ones too, their entries as in missing) */
	size_t nr_unresolved_dsos;
	const struct pda_missing_dso *unresolved_dsos;
	struct pda_unwind_stats unwind;	/* DWARF unwinding */
	struct pda_fetch_stats debuginfod;
};

/* Valid until the next call on s. */
const struct pda_stats *pda_session_stats(struct pda_session *s);

/*
 * A binary that samples hit, and the files the session read for it
 * (issue 22: what `pdtool archive` packs).  Strings are interned or
 * static: valid until the session is freed.
 */
struct pda_dso_files {
	const char *dso;	/* as recorded */
	const unsigned char *build_id; /* build_id_size bytes; the
					* capture's, else the binary's */
	unsigned build_id_size;	/* 0: none known */
	bool build_id_recorded;	/* build_id is the capture's (a reader
				 * finds the binary by it) */
	bool kernel;		/* [kernel.kallsyms] or a module */
	bool vdso;		/* [vdso] */
	bool jit;		/* a perf-PID.map */
	const char *jitdump;	/* JIT: the jit-PID.dump read instead of
				 * the map, or NULL */
	/* the file the binary was read from, NULL: none (or an image in
	 * memory: the vdso of this process, then image and image_size) */
	const char *binary;
	const void *image;
	size_t image_size;
	const char *debug;	/* its separate debug file, NULL: none */
	const char *why;	/* neither found: why ("not found", ...) */
	uint64_t nr_samples;	/* samples with a frame in it */
};

/*
 * fn for every DSO with samples (after the run that resolved them), in
 * the order they were first seen; a nonzero return from fn stops the
 * walk and is returned.  @return 0 or fn's value.
 */
int pda_session_dso_files(struct pda_session *s,
			  int (*fn)(void *arg, const struct pda_dso_files *),
			  void *arg);

#ifdef __cplusplus
}
#endif

#endif /* PDA_SESSION_H */
