/*
 * pda_sampled.h - counter totals estimated from a sampling capture
 * (`perf record -e cpu_cycles,inst_retired,...`): each event's samples
 * and the sum of their periods, and, where the samples read their group
 * (`-e '{cycles,instructions}:S'`, PERF_SAMPLE_READ), each member's
 * count as perf report delivers it: the growth of each read value since
 * the previous read of the same counter (id).  Those totals feed the
 * derived metrics (pda_metrics.h) as a stat capture's counts do; they
 * are estimates: a period sum counts the events up to the last sample,
 * not to the end of the run.
 *
 * The records come from the caller's capture loop (pda_capture's rec_fn,
 * per-record mode); nothing here needs a session.  Not thread-safe.
 *
 *	struct pda_sampled *s;
 *	if (pda_sampled_is_sampling(f)) {
 *		pda_sampled_new(f, NULL, &s);
 *		pda_sampled_rec(s, rec);	(every record)
 *		r = pda_sampled_report(s);	(valid until pda_sampled_free)
 *		pda_metrics_from_sampled(r, env, &m);
 *		pda_sampled_free(s);
 *	}
 */
#ifndef PDA_SAMPLED_H
#define PDA_SAMPLED_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_metrics;

/* One event of the capture (in its attrs' order). */
struct pda_sampled_event {
	const char *name;		/* the capture's */
	const struct pd_attr *attr;
	uint64_t nr_samples;		/* its own SAMPLE records */
	uint64_t period;		/* the sum of their periods */
	uint64_t nr_reads;		/* read values of it in any sample */
	uint64_t read_total;		/* their growth, summed over ids */
	/* the estimate: read_total when the event was read, else period */
	uint64_t count;
	bool from_reads;
};

/*
 * One event's totals on one CPU (per-CPU cells) or in one thread
 * (per-thread cells), as `perf report --sort cpu` and `--sort pid` sum
 * them: the samples taken there and their periods, and the growth of
 * the group read values the samples taken there read.
 */
struct pda_sampled_cell {
	uint32_t event;			/* index into the events */
	bool by_thread;			/* a thread's, else a CPU's */
	int32_t cpu;			/* a CPU's; else -1 */
	int32_t pid, tid;		/* a thread's; else -1 */
	const char *comm;		/* a thread's last COMM ("": none) */
	uint64_t nr_samples, period;
	uint64_t nr_reads, read_total;
};

struct pda_sampled_report {
	size_t nr_events;
	const struct pda_sampled_event *events;
	uint64_t nr_samples;		/* all events' */
	uint64_t first_time, last_time;	/* of the samples with TIME; 0 */
	/* the per-CPU and per-thread cells, in the order first sampled */
	size_t nr_cells;
	const struct pda_sampled_cell *const *cells;
	/* samples without a CPU (TID): no per-CPU (per-thread) totals */
	uint64_t nr_no_cpu, nr_no_tid;
};

/* A cell's estimate as the event's count is: the read growth of an
 * event read in any sample, else the period sum. */
uint64_t pda_sampled_cell_count(const struct pda_sampled_report *rep,
				const struct pda_sampled_cell *c);
/* Its samples as perf report counts them (a read group delivers one to
 * each member per read). */
uint64_t pda_sampled_cell_samples(const struct pda_sampled_report *rep,
				  const struct pda_sampled_cell *c);

/*
 * Whether f's events sample (a period or a frequency), as `perf record`
 * writes them; a `perf stat record` capture's only count.
 */
bool pda_sampled_is_sampling(const struct pd_file *f);

struct pda_sampled;

/* f must outlive s.  @return 0 and *out; PD_ERR_NOMEM, *out = NULL. */
int pda_sampled_new(struct pd_file *f, const struct pd_alloc *alloc,
		    struct pda_sampled **out);
/* Accepts NULL. */
void pda_sampled_free(struct pda_sampled *s);

/*
 * One record: SAMPLEs are counted, COMMs and FORKs name threads, others
 * skipped.  @return 0;
 * PD_ERR_FORMAT for a sample that does not decode or reads a counter of
 * no event the capture has (why, with the record's offset, in
 * pda_sampled_errmsg()); PD_ERR_NOMEM.
 */
int pda_sampled_rec(struct pda_sampled *s, const struct pd_rec *rec);

/*
 * The same for a sample decoded already (a pipeline's: `pdtool report
 * --format md`'s), from the record at offset (for messages;
 * PDA_SAMPLED_NO_OFFSET: not known).
 */
#define PDA_SAMPLED_NO_OFFSET UINT64_MAX
int pda_sampled_add(struct pda_sampled *s, const struct pd_sample *smp,
		    uint64_t offset);

/* The totals so far; valid until the next pda_sampled_rec() or free. */
const struct pda_sampled_report *pda_sampled_report(const struct pda_sampled *s);

/* Why the last call failed; "" when none did. */
const char *pda_sampled_errmsg(const struct pda_sampled *s);

/*
 * The derived metrics of the totals (their count), as
 * pda_metrics_compute() gives them for env's host, with out->estimated
 * set.  @return 0, PD_ERR_NOMEM.
 */
int pda_metrics_from_sampled(const struct pda_sampled_report *rep,
			     const struct pd_env *env,
			     const struct pd_alloc *alloc,
			     struct pda_metrics *out);

#ifdef __cplusplus
}
#endif

#endif /* PDA_SAMPLED_H */
