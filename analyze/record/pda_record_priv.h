/*
 * pda_record_priv.h - what the recorder's files share; private to
 * analyze/record.
 */
#ifndef PDA_RECORD_PRIV_H
#define PDA_RECORD_PRIV_H

#include "pd_config.h"
#include "pda_record.h"
#include "pdc_strbuf.h"

#include <linux/perf_event.h>
#include <stddef.h>

#define REC_MAX_EVENTS 64
#define REC_NAME_MAX 256

/* One event of -e, parsed (pda_recevt.c). */
struct rec_evsel {
	struct perf_event_attr attr; /* type, config, exclude_*, precise;
				      * the recorder fills the rest */
	char name[REC_NAME_MAX];     /* as perf names it: "cpu-clock:u" */
	bool needs_pmu;		     /* a hardware or PMU event */
	bool tracepoint;
	bool fallback;		     /* the default cycles: cpu-clock where
				      * the host has no hardware counters */
};

/*
 * Parse a comma-separated event list as perf's -e: software and generic
 * hardware names, hardware cache events, rNNN, PMU/terms/ and event
 * names from sysfs, SYS:NAME tracepoints from tracefs, each with
 * :u/:k/:h/:p modifiers.  sysfs is the root of /sys (tests give
 * another).  @return 0 and *nr events in ev, or a negative pd_err with
 * the reason in err.
 */
int rec_parse_events(const char *list, const char *sysfs,
		     struct rec_evsel *ev, size_t max, size_t *nr, char *err,
		     size_t err_size);

/* The host's PMUs from sysfs, ", "-separated, for messages. */
void rec_list_pmus(const char *sysfs, char *buf, size_t size);

/* A file's first line, without its newline, in buf.  @return 0 or -1. */
int rec_read_line(const char *path, char *buf, size_t size);

/* ---- the host (pda_recsys.c) ------------------------------------- */

/* The binaries samples fell in, and where each was mapped. */
struct rec_dsos;

struct rec_dsos *rec_dsos_new(const struct pd_alloc *a);
void rec_dsos_free(struct rec_dsos *d);
/* An MMAP or MMAP2 record's map, for pid (-1: the kernel's).  @return 0
 * or PD_ERR_NOMEM. */
int rec_dsos_map(struct rec_dsos *d, int32_t pid, uint64_t start,
		 uint64_t len, const char *name, bool kernel);
/* pid was forked from ppid: it has its parent's maps until its own. */
int rec_dsos_fork(struct rec_dsos *d, int32_t pid, int32_t ppid);
/* An address a sample of pid hit. */
void rec_dsos_hit(struct rec_dsos *d, int32_t pid, uint64_t addr,
		  bool kernel);
/* The BUILD_ID feature (format.md §4.2) for every binary hit whose
 * build-id can be read, into b.  @return the number of entries. */
unsigned rec_dsos_build_ids(struct rec_dsos *d, struct pdc_strbuf *b);

/*
 * The feature sections that describe the host and the run, given to w:
 * HOSTNAME ... CPU_TOPOLOGY, PMU_MAPPINGS, CLOCKID.  @return 0 or a
 * negative pd_err.
 */
struct pd_writer;
int rec_host_features(struct pd_writer *w, const struct pda_record_opts *o,
		      const struct pd_alloc *a);

/* Synthesizing records for what ran before the recording started. */
struct rec_synth {
	const struct pd_alloc *a;
	struct pdc_strbuf out;	 /* the records made */
	size_t id_hdr_size;	 /* zero bytes after each (sample_id_all) */
	bool mmap_data;		 /* non-executable maps too (-d) */
	struct rec_dsos *dsos;
};

/* The kernel's map and its modules' as perf synthesizes them (MMAP, pid
 * -1).  @return 0 or a negative pd_err. */
int rec_synth_kernel(struct rec_synth *s);
/* COMM, FORK for every thread but the leader, MMAP2 of process pid
 * from /proc.  @return 0, or PD_ERR_NOTFOUND when it has gone. */
int rec_synth_process(struct rec_synth *s, int32_t pid);

#endif /* PDA_RECORD_PRIV_H */
