/*
 * cmd_report_threads.c - `pdtool report -T` (--threads): perf report's
 * table of per-thread counts after the report, from the READ records a
 * capture recorded with `perf record -s` (inherit_stat) holds: the
 * kernel writes one per exiting thread, event and CPU.  As perf 6.1
 * (util/values.c): each thread's and event's values summed, the threads
 * and the event columns in the order their first READ comes in time.
 */
#include "pdtool.h"
#include "pdc_hash.h"
#include "pda_capture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* a thread's row: its values by column */
struct thr {
	uint32_t pid, tid;
	uint64_t value[];
};

struct threads {
	struct pd_file *f;
	size_t nr_evsels;	/* columns at most: the capture's events */
	const struct pd_evsel **col; /* the columns' events, in order */
	size_t nr_cols;
	size_t *col_of;		/* by event index: its column + 1, 0 none */
	struct thr **thr;	/* in order */
	size_t nr_thr, thr_alloc;
	struct pdc_hash by_id;	/* pid << 32 | tid -> struct thr */
};

static bool thr_eq(const void *item, const void *key)
{
	const struct thr *t = item;

	return ((uint64_t)t->pid << 32 | t->tid) == *(const uint64_t *)key;
}

static struct thr *thread_of(struct threads *ts, uint32_t pid, uint32_t tid)
{
	const uint64_t key = (uint64_t)pid << 32 | tid;
	const uint64_t hash = pdc_hash_u64(key);
	struct thr *t = pdc_hash_find(&ts->by_id, hash, thr_eq, &key);

	if (t)
		return t;
	if (PDC_GROW(NULL, ts->thr, ts->thr_alloc, ts->nr_thr + 1,
		     PDC_HASH_MAX_SLOTS) < 0 ||
	    !(t = calloc(1, sizeof(*t) + ts->nr_evsels * sizeof(uint64_t))))
		return NULL;
	t->pid = pid;
	t->tid = tid;
	if (pdc_hash_add(NULL, &ts->by_id, hash, t) < 0) {
		free(t);
		return NULL;
	}
	ts->thr[ts->nr_thr++] = t;
	return t;
}

static int threads_rec(void *arg, const struct pd_rec *rec)
{
	struct threads *ts = arg;
	const struct pd_evsel *e;
	struct pd_event ev;
	struct thr *t;
	uint64_t value;

	if (rec->type != PD_REC_READ)
		return 0;
	/* one perf could not take either (no event with its id): the
	 * report's own reading said so */
	if (pd_event_decode(ts->f, rec, &ev) != 0)
		return 0;
	e = ev.sample_id.evsel;
	if (!e || e->idx >= ts->nr_evsels)
		return 0;
	/* perf 6.1 takes the record's first u64 (read.value): a group's
	 * is the number of its values */
	if (ev.read.read_format & PD_FORMAT_GROUP) {
		value = ev.read.nr;
	} else {
		struct pd_read_value v;

		pd_ev_read_value(&ev.read, 0, &v);
		value = v.value;
	}
	t = thread_of(ts, ev.read.pid, ev.read.tid);
	if (!t)
		return PD_ERR_NOMEM;
	if (!ts->col_of[e->idx]) {
		ts->col[ts->nr_cols++] = e;
		ts->col_of[e->idx] = ts->nr_cols;
	}
	t->value[ts->col_of[e->idx] - 1] += value;
	return 0;
}

static int width_u64(uint64_t v)
{
	return snprintf(NULL, 0, "%" PRIu64, v);
}

static int width_u32(uint32_t v)
{
	/* perf prints pid and tid with %d */
	return snprintf(NULL, 0, "%d", (int)v);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* perf 6.1's raw style: a row per thread and event, with the event's
 * index in hex; as perf prints them, the rows end in no newline */
static void print_raw(FILE *out, const struct threads *ts, int pidw,
		      int tidw)
{
	int namew = 4, raww = 3, countw = 5;

	for (size_t j = 0; j < ts->nr_cols; j++) {
		namew = max_int(namew, (int)strlen(ts->col[j]->name));
		raww = max_int(raww,
			       snprintf(NULL, 0, "%x", ts->col[j]->idx));
	}
	for (size_t i = 0; i < ts->nr_thr; i++)
		for (size_t j = 0; j < ts->nr_cols; j++)
			countw = max_int(countw,
					 width_u64(ts->thr[i]->value[j]));
	fprintf(out, "# %*s  %*s  %*s  %*s  %*s\n", pidw, "PID", tidw, "TID",
		namew, "Name", raww, "Raw", countw, "Count");
	for (size_t i = 0; i < ts->nr_thr; i++)
		for (size_t j = 0; j < ts->nr_cols; j++)
			fprintf(out, "  %*d  %*d  %*s  %*x  %*" PRIu64, pidw,
				(int)ts->thr[i]->pid, tidw,
				(int)ts->thr[i]->tid, namew, ts->col[j]->name,
				raww, ts->col[j]->idx, countw,
				ts->thr[i]->value[j]);
}

/* -1: out of memory (nothing printed) */
static int print_table(FILE *out, const struct threads *ts, bool raw)
{
	int pidw = 3, tidw = 3;
	int *colw = calloc(ts->nr_cols + 1, sizeof(*colw));

	if (!colw)
		return -1;
	for (size_t j = 0; j < ts->nr_cols; j++)
		colw[j] = (int)strlen(ts->col[j]->name);
	for (size_t i = 0; i < ts->nr_thr; i++) {
		pidw = max_int(pidw, width_u32(ts->thr[i]->pid));
		tidw = max_int(tidw, width_u32(ts->thr[i]->tid));
		for (size_t j = 0; j < ts->nr_cols; j++)
			colw[j] = max_int(colw[j],
					  width_u64(ts->thr[i]->value[j]));
	}
	if (raw) {
		print_raw(out, ts, pidw, tidw);
		free(colw);
		return 0;
	}
	fprintf(out, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (size_t j = 0; j < ts->nr_cols; j++)
		fprintf(out, "  %*s", colw[j], ts->col[j]->name);
	fputc('\n', out);
	for (size_t i = 0; i < ts->nr_thr; i++) {
		fprintf(out, "  %*d  %*d", pidw, (int)ts->thr[i]->pid, tidw,
			(int)ts->thr[i]->tid);
		for (size_t j = 0; j < ts->nr_cols; j++)
			fprintf(out, "  %*" PRIu64, colw[j],
				ts->thr[i]->value[j]);
		fputc('\n', out);
	}
	free(colw);
	return 0;
}

void cmd_report_threads(struct pd_ctx *ctx, const char *path,
			struct pd_file *f, FILE *out, bool raw)
{
	struct threads ts = {.f = f, .by_id = PDC_HASH_INIT};
	struct pda_capture c;
	int rc;

	ts.nr_evsels = pd_file_nr_evsels(f);
	ts.col = calloc(ts.nr_evsels + 1, sizeof(*ts.col));
	ts.col_of = calloc(ts.nr_evsels + 1, sizeof(*ts.col_of));
	if (!ts.col || !ts.col_of)
		die(ctx, "out of memory");
	{
		/* a second reading, in time order as perf's (its damage
		 * the report's reading told already) */
		PDA_CAPTURE_OPTS(co, .rec_fn = threads_rec, .ordered = true,
				 .quiet = true, .arg = &ts);

		rc = pda_capture_init(&c, f, NULL, &co);
		if (rc == 0)
			rc = pda_capture_run(&c);
		if (rc < 0)
			die(ctx, "'%s': %s", path, pda_capture_errmsg(&c));
		pda_capture_release(&c);
	}
	/* a write error is ctx_close_output()'s to tell */
	if (print_table(out, &ts, raw) < 0)
		die(ctx, "out of memory");
	for (size_t i = 0; i < ts.nr_thr; i++)
		free(ts.thr[i]);
	free(ts.thr);
	pdc_hash_release(NULL, &ts.by_id);
	free(ts.col);
	free(ts.col_of);
}
