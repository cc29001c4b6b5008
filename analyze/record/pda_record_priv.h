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
#include <sys/types.h>

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
	bool fell_back;		     /* ... and it is cpu-clock now */
	/* {a,b}: the group (perf's evsel leader and nr_members) */
	size_t leader;		     /* its leader's index (its own: a
				      * leader, or no group) */
	unsigned nr_members;	     /* a leader's: its group's size */
	bool sample_read;	     /* {...}:S: the leader samples, every
				      * member's count read with it */
	bool dumped;		     /* -vv: its attr as it is was shown */
	bool tracking;		     /* the dummy:HG that perf adds for -a
				      * and -C to carry the side band */
	bool precise_max;	     /* :P and the default cycles: the most
				      * precise ip the host takes (perf's
				      * precise_max: tried from 3 down) */
	bool guest_set;		     /* modifiers chose exclude_guest and
				      * exclude_host: excl_guest, excl_host
				      * (else perf's default: the guest
				      * excluded) */
	bool excl_guest, excl_host;
	bool precise_spent;	     /* precise_max: every level failed,
				      * the fallback's turn */
};

/*
 * Parse a comma-separated event list as perf's -e: software and generic
 * hardware names, hardware cache events, rNNN, PMU/terms/ and event
 * names from sysfs, SYS:NAME tracepoints from tracefs, each with
 * :u/:k/:h/:p modifiers; groups {a,b} whose modifiers apply to each
 * member, S among them for leader sampling.  sysfs is the root of /sys (tests give
 * another).  @return 0 and *nr events in ev, or a negative pd_err with
 * the reason in err.
 */
int rec_parse_events(const char *list, const char *sysfs,
		     struct rec_evsel *ev, size_t max, size_t *nr, char *err,
		     size_t err_size);

/* The modifiers perf 6.1 names an event by when it makes the name from
 * its attr (evsel__add_modifiers, as after the default cycles fell back
 * to cpu-clock): ":pppH", ":uH", ":k", or "" for none. */
void rec_attr_modifiers(const struct perf_event_attr *a, char *buf,
			size_t size);

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
 * HOSTNAME ... CPU_TOPOLOGY, PMU_MAPPINGS, PMU_CAPS, CLOCKID.  @return 0 or a
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
/* perf_event__synthesize_comm: a COMM of process pid, its name and
 * tgid from /proc (the workload's, "perf-exec" before its exec).
 * @return 0, or PD_ERR_NOTFOUND when it has gone. */
int rec_synth_comm(struct rec_synth *s, int32_t pid);
/* COMM, FORK for every thread but the leader, MMAP2 of process pid
 * from /proc.  @return 0, or PD_ERR_NOTFOUND when it has gone. */
int rec_synth_process(struct rec_synth *s, int32_t pid);

/* Records into b (pda_recmaps.c): a header of misc 0, a u64, n zero
 * bytes. */
void rec_put_header(struct pdc_strbuf *b, uint32_t type, size_t size);
void rec_put_u64(struct pdc_strbuf *b, uint64_t v);
void rec_put_zeros(struct pdc_strbuf *b, size_t n);

/* perf_event_attr in perf's -vv form (perf_event_attr__fprintf, as
 * perf 6.1 prints it) into b: "  name  value" lines of the non-zero
 * fields. */
void rec_attr_text(const struct perf_event_attr *a, struct pdc_strbuf *b);

/* ---- a run (pda_record.c; pda_recstat.c counts with it) ---------- */

struct rbuf {
	unsigned char *base; /* the mmap: a control page, then data */
	size_t data_size;    /* a power of two */
	int cpu;
};

struct rec {
	struct pda_record_opts o;
	const struct pd_alloc *a;
	char *err;
	size_t err_size;
	struct rec_evsel ev[REC_MAX_EVENTS];
	size_t nr_ev;
	int *cpus; /* -1: any (per-thread buffers are not used) */
	size_t nr_cpus;
	int32_t *threads; /* -1: every thread (system-wide) */
	size_t nr_threads;
	int *fds; /* [cpu][thread][event], -1 where a thread was gone */
	size_t nr_fds;
	uint64_t *ids; /* the same index */
	struct rbuf *bufs;
	size_t nr_bufs;
	unsigned char *copy; /* one buffer's records, unwrapped */
	size_t page_size;
	uint64_t sample_type;
	size_t id_hdr_size;
	bool read_lost; /* read_format has PERF_FORMAT_LOST */
	/* what the kernel refused, switched off in every event opened
	 * after (perf 6.1's perf_missing_features; exclude_guest: said) */
	struct {
		bool bpf, ksymbol, cloexec, mmap2, exclude_guest,
			sample_id_all;
	} missing;
	struct pd_writer *w;
	struct rec_dsos *dsos;
	pid_t child;
	int go_fd, err_fd;
	bool child_done;
	uint64_t first_time, last_time;
	struct pda_record_stats *st;
};

/* The reason of a failure into the caller's errbuf.  @return rc. */
int rec_errf(struct rec *r, int rc, const char *fmt, ...) PD_PRINTF(3, 4);
/*
 * What is recorded: r->cpus (online, or -C's), r->threads (-p, -t, the
 * forked workload, or -1 for whole CPUs) and the workload forked, waiting
 * for rec_start_workload().  @return 0 or a negative pd_err.
 */
int rec_targets(struct rec *r);
/* Let the workload exec; @return 0, or its exec's failure. */
int rec_start_workload(struct rec *r);
/* Reaped (WNOHANG): its status in r->st->workload_status. */
bool rec_workload_exited(struct rec *r);
/* perf_event_open of event e on (tid, cpu) in group_fd's group (-1:
 * none) with perf's fallbacks.
 * @return the fd, -1 with *gone set for a thread that exited, or a
 * negative pd_err. */
int rec_open_one(struct rec *r, size_t e, int32_t tid, int cpu, int group_fd,
		 bool *gone);
/* The events and their ids (r->fds, r->ids: [cpu][thread][event]) to
 * the writer, and the EVENT_DESC feature. */
int rec_add_events(struct rec *r);
int rec_event_desc(struct rec *r);
/* GROUP_DESC for the groups of more than one event (none: nothing). */
int rec_group_desc(struct rec *r);
void rec_ioctl_all(struct rec *r, unsigned long req);
void rec_close_events(struct rec *r);

/* What perf 6.1 synthesizes before the data (pda_recmaps.c), into b:
 * ID_INDEX of every counter opened (its id, its buffer's index, CPU and
 * thread; nothing where none is open); THREAD_MAP of r->threads, with
 * the names of processes that ran before where comms (perf stat's; perf
 * record's are empty); CPU_MAP of cpus in the encoding perf 6.1 picks
 * (a range, a list of u16, or a u32 bitmap, whichever it takes). */
void rec_synth_id_index(const struct rec *r, struct pdc_strbuf *b);
/* perf 6.1's perf_event__synthesize_extra_attr: EVENT_UPDATE records of
 * each event with an id: its unit and scale where perf has them (the
 * clocks: msec, 1e-6; rec_synth_units() for one), in a pipe its name. */
void rec_synth_event_updates(const struct rec *r, struct pdc_strbuf *b);
void rec_synth_units(struct pdc_strbuf *b, const struct perf_event_attr *a,
		     uint64_t id);
void rec_synth_thread_map(const struct rec *r, struct pdc_strbuf *b,
			  bool comms);
void rec_synth_cpu_map(struct pdc_strbuf *b, const int *cpus, size_t nr);

/* The TRACING_DATA feature for the tracepoints among r->ev
 * (pda_rectrace.c).  @return 0 or a negative pd_err. */
int rec_tracing_data(struct rec *r);

/*
 * --stat (pda_recstat.c): count r->ev on the targets as perf stat record
 * does and write its capture.  @return 0 or a negative pd_err.
 */
int rec_stat_run(struct rec *r);

#endif /* PDA_RECORD_PRIV_H */
