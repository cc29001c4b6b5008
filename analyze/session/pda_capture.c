/*
 * pda_capture.c - the capture loop (pda_capture.h): records from the
 * reader to the sample pipeline or the caller, lost accounting, progress,
 * and errors that stop the run instead of the process.
 */
#include "pda_base_int.h"
#include "pda_capture.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void set_msg(struct pda_capture *c, enum pda_capture_stage where,
		    const char *msg)
{
	c->failed_in = where;
	snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg);
}

int pda_capture_set_err(struct pda_capture *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	c->msg_set = true;
	return err;
}

/* A callback failed with rc: the stage, and its message unless it set
 * one.  @return rc. */
static int callback_failed(struct pda_capture *c, int rc)
{
	c->failed_in = PDA_CAPTURE_CALLBACK;
	if (!c->msg_set)
		snprintf(c->errmsg, sizeof(c->errmsg), "%s", pd_strerror(rc));
	return rc;
}

/* The reader failed with rc: the file's message says why. */
static int reader_failed(struct pda_capture *c, int rc)
{
	const char *msg = pd_file_errmsg(c->f);

	set_msg(c, PDA_CAPTURE_READER, msg[0] ? msg : pd_strerror(rc));
	return rc;
}

static int skip(struct pda_capture *c, enum pda_capture_skip what,
		const char *why)
{
	int rc = c->o.skip_fn ? c->o.skip_fn(c->o.arg, what, why) : 0;

	if (what == PDA_CAPTURE_BAD_SAMPLE)
		c->st.nr_bad_samples++;
	else
		c->st.nr_stack_errors++;
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* ---- the pipeline's callbacks --------------------------------------- */

static bool want(void *arg, const struct pd_sample *sample)
{
	struct pda_capture *c = arg;

	return !c->o.filter || pda_filter_sample(c->o.filter, sample);
}

static int deliver(void *arg, const struct pda_pipe_item *it)
{
	struct pda_capture *c = arg;
	int rc;

	if (it->err)
		return skip(c, PDA_CAPTURE_STACK_ERROR,
			    pda_session_errmsg(c->s));
	rc = c->o.sample_fn(c->o.arg, it);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* ---- the run ---------------------------------------------------------- */

int pda_capture_init(struct pda_capture *c, struct pd_file *f,
		     struct pda_session *s, const struct pda_capture_opts *opts)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (!f || !opts || pdc_opts_copy(&c->o, sizeof(c->o), opts) < 0 ||
	    (s ? !c->o.sample_fn : !c->o.rec_fn)) {
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "pda_capture_init: bad options");
		return PD_ERR_API;
	}
	c->f = f;
	c->s = s;
	rc = pd_reader_new(f, s || c->o.ordered ? PD_READ_ORDERED : 0, &c->r);
	if (rc < 0)
		return reader_failed(c, rc);
	if (s) {
		PDA_PIPE_OPTS(po, .jobs = c->o.jobs, .no_stack = c->o.no_stack,
			      .ip_stacks = c->o.ip_stacks,
			      .memo = c->o.memo, .memo_tid = c->o.memo_tid,
			      .batch = c->o.batch, .want = want, .fn = deliver,
			      .arg = c);

		rc = pda_pipe_new(s, &po, &c->pipe);
		if (rc < 0) {
			set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
			return rc;
		}
	}
	return 0;
}

/* LOST and LOST_SAMPLES: what the kernel could not write. */
static void count_lost(struct pda_capture *c, const struct pd_rec *rec)
{
	struct pd_ev_lost lost;

	if (pd_lost_decode(c->f, rec, &lost) < 0) {
		c->st.nr_bad_lost++;
		return;
	}
	if (rec->type == PD_REC_LOST)
		c->st.nr_lost += lost.lost;
	else if (rec->misc & PD_MISC_LOST_SAMPLES_BPF)
		c->st.nr_dropped_samples += lost.lost;
	else
		c->st.nr_lost_samples += lost.lost;
}

uint64_t pda_capture_lost_count(const struct pd_file *f, uint64_t lost,
				uint64_t lost_samples)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.read_format & PD_FORMAT_LOST)
			return lost > lost_samples ? lost : lost_samples;
	return lost + lost_samples;
}

/* One record to the pipeline.  @return 0 or a negative pd_err. */
static int feed(struct pda_capture *c, const struct pd_rec *rec)
{
	int rc = pda_pipe_feed(c->pipe, rec);

	if (rc == 1)
		return skip(c, PDA_CAPTURE_BAD_SAMPLE, pd_file_errmsg(c->f));
	if (rc < 0 && c->failed_in != PDA_CAPTURE_CALLBACK)
		set_msg(c, PDA_CAPTURE_SESSION, pda_session_errmsg(c->s));
	return rc;
}

static int step(struct pda_capture *c, const struct pd_rec *rec, uint64_t total)
{
	int rc;

	c->st.nr_records++;
	if (rec->type == PD_REC_LOST || rec->type == PD_REC_LOST_SAMPLES)
		count_lost(c, rec);
	if (rec->type == PD_REC_SAMPLE &&
	    ++c->st.nr_samples % PDA_CAPTURE_PROGRESS_EVERY == 0 &&
	    c->o.progress) {
		rc = c->o.progress(c->o.progress_arg, rec->offset, total,
				   c->st.nr_samples);
		if (rc < 0)
			return callback_failed(c, rc);
	}
	if (c->pipe)
		return feed(c, rec);
	rc = c->o.rec_fn(c->o.arg, rec);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* The run stops: no thread runs on past the error. */
static int stop(struct pda_capture *c, int rc)
{
	pda_pipe_free(c->pipe);
	c->pipe = NULL;
	c->st.reader = *pd_reader_stats(c->r);
	c->st.lost = pda_capture_lost_count(c->f, c->st.nr_lost,
					    c->st.nr_lost_samples);
	return rc;
}

int pda_capture_run(struct pda_capture *c)
{
	struct pd_rec rec;
	uint64_t total;
	int rc;

	if (!c->r || c->ran || c->failed_in != PDA_CAPTURE_OK)
		return PD_ERR_API;
	c->ran = true;
	total = pd_file_header(c->f)->data_size;
	while ((rc = pd_reader_next(c->r, &rec)) > 0) {
		rc = step(c, &rec, total);
		if (rc < 0)
			return stop(c, rc);
	}
	if (rc < 0)
		return stop(c, reader_failed(c, rc));
	if (c->pipe) {
		rc = pda_pipe_finish(c->pipe);
		if (rc < 0) {
			if (c->failed_in != PDA_CAPTURE_CALLBACK)
				set_msg(c, PDA_CAPTURE_SESSION,
					pda_session_errmsg(c->s));
			return stop(c, rc);
		}
	}
	c->st.reader = *pd_reader_stats(c->r);
	c->st.lost = pda_capture_lost_count(c->f, c->st.nr_lost,
					    c->st.nr_lost_samples);
	return 0;
}

void pda_capture_release(struct pda_capture *c)
{
	if (!c)
		return;
	pda_pipe_free(c->pipe);
	pd_reader_free(c->r);
	c->pipe = NULL;
	c->r = NULL;
}

const struct pda_capture_stats *pda_capture_stats(const struct pda_capture *c)
{
	return &c->st;
}

const char *pda_capture_errmsg(const struct pda_capture *c)
{
	return c->errmsg;
}

enum pda_capture_stage pda_capture_failed_in(const struct pda_capture *c)
{
	return c->failed_in;
}
