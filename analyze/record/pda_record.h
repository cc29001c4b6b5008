/*
 * pda_record.h - the recorder (`pdtool record`): events named as perf
 * names them opened with perf_event_open(2) on a workload it starts, on
 * processes or threads that run, or on whole CPUs; their ring buffers
 * read with a poll loop and written through reader/pd_write.h as perf
 * 6.1 writes a capture (file or pipe mode, zstd-compressed or not), with
 * the processes that already ran synthesized from /proc, the kernel's
 * and its modules' maps, lost samples, and the feature sections perf
 * reads (host, CPUs, command line, events, topology, build-ids of every
 * binary that got a sample, sample times).
 *
 * With stat set, counters instead of samples: the capture `perf stat
 * record` writes (STAT_CONFIG, THREAD_MAP, CPU_MAP, a STAT per counter
 * and a STAT_ROUND per interval or run; pda_recstat.c says how -r's runs
 * are kept).
 *
 * The recorder never prints: its messages go to the log callback, and a
 * failure comes back as a negative pd_err with the reason in errbuf
 * ("event 'cycles' is not supported on this host: ...").
 */
#ifndef PDA_RECORD_H
#define PDA_RECORD_H

#include "pd.h"

#include <signal.h>
#include <stdbool.h>

enum pda_rec_callgraph {
	PDA_REC_CG_NONE = 0,
	PDA_REC_CG_FP,	  /* -g: the kernel's frame-pointer callchain */
	PDA_REC_CG_DWARF, /* user registers and stack for DWARF unwinding */
	PDA_REC_CG_LBR,	  /* the kernel's callchain, and the user part
			   * from the LBR call stack (Intel) */
};

/* --stat: how perf stat record's STAT_CONFIG says the counts are kept
 * (and so how perf stat report totals them). */
enum pda_rec_stat_aggr {
	PDA_REC_STAT_GLOBAL = 0, /* one total per event */
	PDA_REC_STAT_PER_CPU,	 /* -A: per CPU (with -a or -C) */
	PDA_REC_STAT_PER_THREAD, /* --per-thread */
};

struct pda_record_opts {
	size_t sz;			/* set by PDA_RECORD_OPTS */
	const char *events;		/* -e, comma-separated; NULL: cycles,
					 * else cpu-clock where the host has
					 * no hardware counters */
	char *const *argv;		/* the workload, or NULL */
	const char *pids, *tids;	/* -p, -t: "PID[,PID...]" */
	bool system_wide;		/* -a */
	const char *cpus;		/* -C: "0,2-3" */
	uint64_t freq;			/* -F HZ; 0: 4000 unless period */
	uint64_t period;		/* -c PERIOD; 0: by frequency */
	enum pda_rec_callgraph call_graph;
	uint32_t stack_size;		/* dwarf: bytes of stack (8192) */
	uint64_t branch_sample_type;	/* -b, -j: PERF_SAMPLE_BRANCH_* bits
					 * (pda_record_branch_filter); 0: no
					 * branch stacks */
	bool switch_events;		/* --switch-events */
	bool inherit_stat;		/* -s (perf record's --stat): the
					 * kernel writes a READ record of each
					 * inherited counter's count when its
					 * thread exits (perf report -T) */
	bool data_addr;			/* -d */
	unsigned mmap_pages;		/* -m: data pages per buffer, a power
					 * of two; 0: perf's default */
	int zstd_level;			/* -z: 0 none */
	bool pipe;			/* out_fd gets a pipe-mode stream */
	int out_fd;			/* where the capture goes, or -1: */
	int (*open_out)(void *arg);	/* called once the events are open
					 * (so that a run that cannot start
					 * touches no file): @return the fd,
					 * or -1 with errno set */
	void *open_out_arg;
	double duration;		/* seconds; 0: until the workload
					 * ends or stop is set */
	volatile sig_atomic_t *stop;	/* set by the caller's signal
					 * handler (Ctrl-C): stop, write */
	int nr_cmdline;			/* the CMDLINE feature: how pdtool */
	char *const *cmdline;		/* was run */
	const char *version;		/* the VERSION feature */
	pd_log_fn log;
	void *log_arg;
	enum pd_log_level log_level;
	const struct pd_alloc *alloc;
	/* --stat: counting, as perf stat record; events default to
	 * task-clock, context-switches, cpu-migrations, page-faults */
	bool stat;
	enum pda_rec_stat_aggr stat_aggr;
	unsigned interval_ms;		/* -I: a round every MS; 0 none */
	unsigned runs;			/* -r: the workload run this many
					 * times, a FINAL round each (0: 1) */
	/* -k: every event's time on this clock (CLOCKID and CLOCK_DATA
	 * written) */
	bool use_clockid;
	int clockid;
	/* --latency (perf 6.15): context switches recorded, for the
	 * parallelism that weighs a sample's latency */
	bool latency;
	/* -vv: each event's perf_event_attr and each perf_event_open as
	 * perf record -vv prints them, a line or a block of lines at a
	 * time (text ends in a newline) */
	void (*dump)(void *arg, const char *text);
	void *dump_arg;
};

#define PDA_RECORD_OPTS(name, ...)                                          \
	struct pda_record_opts name = { .sz = sizeof(struct pda_record_opts), \
					.out_fd = -1, __VA_ARGS__ }

struct pda_record_stats {
	uint64_t nr_samples;	/* SAMPLE records written */
	uint64_t nr_stat;	/* --stat: STAT records written */
	uint64_t nr_rounds;	/* --stat: STAT_ROUND records */
	uint64_t nr_lost;	/* samples the kernel lost: the counters'
				 * lost field (LOST_SAMPLES written), or
				 * the LOST records' where the kernel has
				 * no such field */
	uint64_t nr_lost_recs;	/* LOST records */
	uint64_t bytes;		/* the capture's data section, as stored */
	uint64_t bytes_raw;	/* before compression */
	uint64_t nr_wakeups;	/* polls that found data */
	unsigned nr_events;
	unsigned nr_build_ids;
	bool workload;		/* a workload ran: its status below */
	int workload_status;	/* as waitpid() gives it */
	bool write_failed;	/* the capture was cut short (full disk) */
	int write_errno;
	char first_event[256];	/* the first event's name, as recorded
				 * (cpu-clock where cycles fell back) */
};

/*
 * -j's filter list as perf's --branch-filter takes it ("any_call,u":
 * names from any, any_call, any_ret, ind_call, ind_jmp, call, cond,
 * abort_tx, in_tx, no_tx, save_type, stack, priv, no_flags, no_cycles,
 * hw_index and the levels u, k, hv, case-insensitive) into *mode; NULL
 * is -b's "any".  As perf, levels alone mean any branch (the levels
 * dropped).  @return 0, or PD_ERR_API with the unknown name in errbuf.
 */
int pda_record_branch_filter(const char *list, uint64_t *mode, char *errbuf,
			     size_t errbuf_size);

/*
 * The CPU_PMU_CAPS (x86's core PMU "cpu", when the host has it) and
 * PMU_CAPS (every other PMU with capabilities: an Arm PMU's slots per
 * cycle, which the topdown metrics need) feature sections, as perf 6.1
 * writes them, from the PMUs' caps directories under sysfs (the root of
 * /sys; tests give another), given to w.  Every capture the recorder
 * writes has them.  @return 0 or a negative pd_err of w.
 */
struct pd_writer;
int pda_record_pmu_caps(struct pd_writer *w, const char *sysfs,
			const struct pd_alloc *a);

/*
 * Record as opts say until the workload exits (or, without one, until
 * *stop is set, the duration passes or every target has exited), then
 * finish the capture on opts->out_fd.  stats is filled as far as the run
 * got.  @return 0, or a negative pd_err with the reason in errbuf:
 * PD_ERR_API for options that do not go together, PD_ERR_NOTFOUND for an
 * event or target that does not exist, PD_ERR_UNSUPPORTED for an event
 * the host cannot count, PD_ERR_IO for permission and write failures
 * (after a write failure the capture is still a valid file, cut short).
 */
int pda_record_run(const struct pda_record_opts *opts,
		   struct pda_record_stats *stats, char *errbuf,
		   size_t errbuf_size);

#endif /* PDA_RECORD_H */
