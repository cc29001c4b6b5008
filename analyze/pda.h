/*
 * pda.h - the analysis library (libpda): what a capture's samples mean.
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
#ifndef PDA_H
#define PDA_H

#include "pd.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_session;

struct pda_opts {
	size_t sz;		   /* sizeof(struct pda_opts), by PDA_OPTS */
	const char *symfs;	   /* --symfs: a sysroot of the recording host */
	const char *buildid_dir;   /* --buildid-dir; NULL: $HOME/.debug */
	const char *kallsyms;	   /* --kallsyms: /proc/kallsyms of the host */
	const char *vmlinux;	   /* --vmlinux */
	const char *jit_dir;	   /* where perf-PID.map files are; NULL: /tmp */
	bool no_demangle;	   /* --no-demangle */
	bool no_inline;		   /* --no-inline */
	bool srcline;		   /* resolve file:line for each frame */
	bool no_debuginfod;	   /* never ask debuginfod */
	bool use_host_kallsyms;	   /* read /proc/kallsyms when the capture's
				    * kernel build-id matches this host's */
	pd_log_fn log;
	void *log_arg;
	enum pd_log_level log_level;
	const struct pd_alloc *alloc;
	char *errbuf;		   /* where a failed pda_session_new says why */
	size_t errbuf_size;
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
 * Apply a record to the machine state: threads, comms and maps.  Feed
 * every record, in time order (PD_READ_ORDERED), samples included (they
 * are ignored here).  @return 0 or a negative pd_err (NOMEM).
 */
int pda_session_feed(struct pda_session *s, const struct pd_rec *rec);

/* The comm of a thread at the time of the last record fed. "" unknown.
 * Valid until the session is freed. */
const char *pda_thread_comm(struct pda_session *s, uint32_t pid,
			    uint32_t tid);

enum pda_frame_flags {
	PDA_FRAME_KERNEL = 1u << 0,	/* kernel address */
	PDA_FRAME_INLINED = 1u << 1,	/* an inlined call, from DWARF */
	PDA_FRAME_NO_SYMBOL = 1u << 2,	/* no symbol covers ip */
	PDA_FRAME_NO_MAP = 1u << 3,	/* no map covers ip */
	PDA_FRAME_JIT = 1u << 4,	/* from a perf-PID.map */
	PDA_FRAME_GUEST = 1u << 5,
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
	const char *srcfile;	/* with opts.srcline; NULL unknown */
	unsigned line;
	unsigned flags;		/* pda_frame_flags */
};

/* A stack, leaf first.  Reused across calls: init once, release once. */
struct pda_stack {
	struct pda_frame *frames;
	size_t nr, alloc;
};

#define PDA_STACK_INIT { NULL, 0, 0 }
void pda_stack_release(struct pda_session *s, struct pda_stack *st);

/*
 * Resolve a decoded sample's stack, leaf first: its callchain (PERF_CONTEXT
 * markers consumed, as perf does) or, without one, its ip; inlined frames
 * expanded unless no_inline.  @return 0 or a negative pd_err.
 */
int pda_sample_stack(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st);

/* What could not be resolved, for the coverage line. */
struct pda_missing_dso {
	const char *dso;	/* as recorded */
	uint64_t nr_samples;	/* samples with a frame in it */
	const char *const *tried; /* paths looked at, NULL-terminated */
	const char *why;	/* "not found", "build-id mismatch", ... */
};

struct pda_stats {
	uint64_t nr_samples;		/* stacks resolved */
	uint64_t nr_frames;
	uint64_t nr_frames_unresolved;	/* no symbol or no map */
	uint64_t nr_samples_unresolved;	/* with >= 1 such frame */
	size_t nr_missing;
	const struct pda_missing_dso *missing;
};

/* Valid until the next call on s. */
const struct pda_stats *pda_session_stats(struct pda_session *s);

#ifdef __cplusplus
}
#endif

#endif /* PDA_H */
