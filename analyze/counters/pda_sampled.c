/*
 * pda_sampled.c - counter totals estimated from a sampling capture: the
 * period sums of each event and the growth of the group read values,
 * as perf report totals them (perf 6.1, util/session.c: a sample that
 * reads its group is delivered once per value, with the value's growth
 * since that counter's previous read as its period).
 */
#include "pda_sampled.h"
#include "pda_metrics.h"
#include "pdc_alloc.h"
#include "pdc_hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A counter (sample id) whose values samples read: its last value. */
struct counter {
	uint64_t id;
	uint64_t prev;
};

/* A thread's name: its last COMM (the kernel's are at most 16 bytes). */
struct tcomm {
	uint32_t tid;
	char comm[17];
};

/* A cell, with the key it is found by (cell_key()). */
struct cell {
	struct pda_sampled_cell c;
	uint64_t key;
};

struct pda_sampled {
	struct pd_file *f;
	const struct pd_alloc *a;
	struct pda_sampled_event *ev;
	struct pda_sampled_report rep;
	struct pdc_hash counters;	/* struct counter by id */
	struct pdc_hash cellmap;	/* struct cell by key */
	struct pda_sampled_cell **cells;
	size_t nr_cells, alloc_cells;
	struct pdc_hash comms;		/* struct tcomm by tid */
	char err[256];
};

bool pda_sampled_is_sampling(const struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_period)
			return true;
	return false;
}

int pda_sampled_new(struct pd_file *f, const struct pd_alloc *alloc,
		    struct pda_sampled **out)
{
	const size_t n = pd_file_nr_evsels(f);
	struct pda_sampled *s = pdc_zalloc(alloc, sizeof(*s));

	*out = NULL;
	if (!s)
		return PD_ERR_NOMEM;
	s->ev = pdc_zalloc(alloc, (n ? n : 1) * sizeof(*s->ev));
	if (!s->ev) {
		pdc_free(alloc, s);
		return PD_ERR_NOMEM;
	}
	s->f = f;
	s->a = alloc;
	s->counters = (struct pdc_hash)PDC_HASH_INIT;
	s->cellmap = (struct pdc_hash)PDC_HASH_INIT;
	s->comms = (struct pdc_hash)PDC_HASH_INIT;
	for (size_t i = 0; i < n; i++) {
		s->ev[i].name = pd_file_evsel(f, i)->name;
		s->ev[i].attr = &pd_file_evsel(f, i)->attr;
	}
	s->rep.nr_events = n;
	s->rep.events = s->ev;
	*out = s;
	return 0;
}

void pda_sampled_free(struct pda_sampled *s)
{
	size_t pos = 0;
	void *c;

	if (!s)
		return;
	while ((c = pdc_hash_next(&s->counters, &pos)))
		pdc_free(s->a, c);
	pdc_hash_release(s->a, &s->counters);
	pos = 0;
	while ((c = pdc_hash_next(&s->comms, &pos)))
		pdc_free(s->a, c);
	pdc_hash_release(s->a, &s->comms);
	for (size_t i = 0; i < s->nr_cells; i++)
		pdc_free(s->a, s->cells[i]);
	pdc_free(s->a, s->cells);
	pdc_hash_release(s->a, &s->cellmap);
	pdc_free(s->a, s->ev);
	pdc_free(s->a, s);
}

const char *pda_sampled_errmsg(const struct pda_sampled *s)
{
	return s->err;
}

static bool counter_eq(const void *item, const void *key)
{
	return ((const struct counter *)item)->id == *(const uint64_t *)key;
}

static bool cell_eq(const void *item, const void *key)
{
	return ((const struct cell *)item)->key == *(const uint64_t *)key;
}

static bool tcomm_eq(const void *item, const void *key)
{
	return ((const struct tcomm *)item)->tid == *(const uint32_t *)key;
}

/* The thread tid's name entry, made empty when new; NULL: no memory. */
static struct tcomm *tcomm_of(struct pda_sampled *s, uint32_t tid)
{
	const uint64_t h = pdc_hash_u64(tid);
	struct pdc_hash_slot *slot;
	struct tcomm *t;

	if (pdc_hash_reserve(s->a, &s->comms) < 0)
		return NULL;
	slot = pdc_hash_probe(&s->comms, h, tcomm_eq, &tid);
	if (slot->item)
		return slot->item;
	if (!(t = pdc_zalloc(s->a, sizeof(*t))))
		return NULL;
	t->tid = tid;
	pdc_hash_fill(&s->comms, slot, h, t);
	return t;
}

/* A key per (event, CPU) and per (event, thread). */
static uint64_t cell_key(bool by_thread, size_t event, uint32_t where)
{
	return ((uint64_t)by_thread << 63) | ((uint64_t)event << 32) | where;
}

/*
 * The cell of event on a CPU (by_thread false: where is the CPU) or in
 * a thread (where is the tid, pid its process); NULL: no memory.
 */
static struct pda_sampled_cell *cell_of(struct pda_sampled *s, size_t event,
					bool by_thread, uint32_t where,
					uint32_t pid)
{
	uint64_t key = cell_key(by_thread, event, where);
	const uint64_t h = pdc_hash_u64(key);
	struct pdc_hash_slot *slot;
	struct cell *c;
	struct tcomm *t = NULL;

	if (pdc_hash_reserve(s->a, &s->cellmap) < 0)
		return NULL;
	slot = pdc_hash_probe(&s->cellmap, h, cell_eq, &key);
	if (slot->item)
		return &((struct cell *)slot->item)->c;
	if (by_thread && !(t = tcomm_of(s, where)))
		return NULL;
	if (PDC_GROW(s->a, s->cells, s->alloc_cells, s->nr_cells + 1,
		     (size_t)1 << 30) < 0 ||
	    !(c = pdc_zalloc(s->a, sizeof(*c))))
		return NULL;
	c->key = key;
	c->c.event = (uint32_t)event;
	c->c.by_thread = by_thread;
	c->c.cpu = by_thread ? -1 : (int32_t)where;
	c->c.tid = by_thread ? (int32_t)where : -1;
	c->c.pid = by_thread ? (int32_t)pid : -1;
	c->c.comm = t ? t->comm : "";
	/* the cell and its pointer are kept together: slot stays valid */
	s->cells[s->nr_cells++] = &c->c;
	pdc_hash_fill(&s->cellmap, slot, h, c);
	s->rep.cells = (const struct pda_sampled_cell *const *)s->cells;
	s->rep.nr_cells = s->nr_cells;
	return &c->c;
}

/* The cells a sample counts in: its CPU's and its thread's (NULL where
 * it does not say); @return 0, PD_ERR_NOMEM. */
static int cells_of(struct pda_sampled *s, const struct pd_sample *smp,
		    size_t event, struct pda_sampled_cell *out[2])
{
	out[0] = out[1] = NULL;
	if ((smp->mask & PD_SAMPLE_CPU) &&
	    !(out[0] = cell_of(s, event, false, smp->cpu, 0)))
		return PD_ERR_NOMEM;
	if ((smp->mask & PD_SAMPLE_TID) &&
	    !(out[1] = cell_of(s, event, true, smp->tid, smp->pid)))
		return PD_ERR_NOMEM;
	return 0;
}

uint64_t pda_sampled_cell_count(const struct pda_sampled_report *rep,
				const struct pda_sampled_cell *c)
{
	return rep->events[c->event].from_reads ? c->read_total : c->period;
}

uint64_t pda_sampled_cell_samples(const struct pda_sampled_report *rep,
				  const struct pda_sampled_cell *c)
{
	return rep->events[c->event].from_reads ? c->nr_reads : c->nr_samples;
}

/* "SAMPLE at offset 0x..." or, offset unknown, "a SAMPLE" */
static void where(char *buf, size_t size, uint64_t offset)
{
	if (offset == PDA_SAMPLED_NO_OFFSET)
		snprintf(buf, size, "a SAMPLE");
	else
		snprintf(buf, size, "SAMPLE at offset %#" PRIx64, offset);
}

/*
 * A value read from counter id (e: its event, or NULL to find it by id):
 * its growth since that counter's previous read (perf's sid->period).
 */
static int read_value(struct pda_sampled *s, const struct pd_sample *smp,
		      uint64_t offset, uint64_t id, uint64_t value,
		      const struct pd_evsel *e)
{
	struct pda_sampled_cell *cells[2];
	uint64_t growth;
	const uint64_t h = pdc_hash_u64(id);
	struct pdc_hash_slot *slot;
	struct counter *c;
	struct pda_sampled_event *ev;

	if (!e)
		e = pd_file_evsel_by_id(s->f, id);
	if (!e) {
		char at[64];

		where(at, sizeof(at), offset);
		snprintf(s->err, sizeof(s->err),
			 "%s reads counter id %" PRIu64
			 ", which no event of the capture has", at, id);
		return PD_ERR_FORMAT;
	}
	if (pdc_hash_reserve(s->a, &s->counters) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&s->counters, h, counter_eq, &id);
	if (!slot->item) {
		if (!(c = pdc_zalloc(s->a, sizeof(*c))))
			return PD_ERR_NOMEM;
		c->id = id;
		pdc_hash_fill(&s->counters, slot, h, c);
	}
	c = slot->item;
	ev = &s->ev[e->idx];
	growth = value - c->prev;
	ev->nr_reads++;
	ev->read_total += growth;
	c->prev = value;
	/* perf report delivers the growth with the reading sample's CPU
	 * and thread */
	if (cells_of(s, smp, e->idx, cells) < 0)
		return PD_ERR_NOMEM;
	for (int k = 0; k < 2; k++) {
		if (cells[k]) {
			cells[k]->nr_reads++;
			cells[k]->read_total += growth;
		}
	}
	ev->count = ev->read_total;
	ev->from_reads = true;
	return 0;
}

/* A COMM: the thread's name from now on (perf report names a thread by
 * its last); a FORK: the new thread's, its parent's */
static int on_comm(struct pda_sampled *s, const struct pd_rec *rec)
{
	struct pd_event ev;
	struct tcomm *t;
	size_t n;

	s->err[0] = '\0';
	if (pd_event_decode(s->f, rec, &ev) < 0) {
		snprintf(s->err, sizeof(s->err), "COMM at offset %#" PRIx64
			 ": %s", rec->offset, pd_file_errmsg(s->f));
		return PD_ERR_FORMAT;
	}
	if (rec->type == PD_REC_FORK) {
		/* a new thread is named as the one it was cloned from */
		struct tcomm *parent = tcomm_of(s, ev.fork.ptid);

		if (!parent || !(t = tcomm_of(s, ev.fork.tid)))
			return PD_ERR_NOMEM;
		memcpy(t->comm, parent->comm, sizeof(t->comm));
		return 0;
	}
	if (!(t = tcomm_of(s, ev.comm.tid)))
		return PD_ERR_NOMEM;
	n = ev.comm.comm.len < sizeof(t->comm) - 1 ? ev.comm.comm.len
						    : sizeof(t->comm) - 1;
	memcpy(t->comm, ev.comm.comm.ptr, n);
	t->comm[n] = '\0';
	return 0;
}

int pda_sampled_rec(struct pda_sampled *s, const struct pd_rec *rec)
{
	struct pd_sample smp;
	int rc;

	if (rec->type == PD_REC_COMM || rec->type == PD_REC_FORK)
		return on_comm(s, rec);
	if (rec->type != PD_REC_SAMPLE)
		return 0;
	s->err[0] = '\0';
	if ((rc = pd_sample_decode(s->f, rec, &smp)) < 0) {
		snprintf(s->err, sizeof(s->err), "SAMPLE at offset %#" PRIx64
			 ": %s", rec->offset, pd_file_errmsg(s->f));
		return rc;
	}
	return pda_sampled_add(s, &smp, rec->offset);
}

int pda_sampled_add(struct pda_sampled *s, const struct pd_sample *smp,
		    uint64_t offset)
{
	struct pda_sampled_event *ev;
	struct pda_sampled_cell *cells[2];
	bool by_id;
	int rc;

	if (!smp->evsel || smp->evsel->idx >= s->rep.nr_events)
		return 0;	/* an event the capture's attrs do not hold */
	ev = &s->ev[smp->evsel->idx];
	ev->nr_samples++;
	ev->period += smp->period;
	if ((rc = cells_of(s, smp, smp->evsel->idx, cells)) < 0)
		return rc;
	for (int k = 0; k < 2; k++) {
		if (cells[k]) {
			cells[k]->nr_samples++;
			cells[k]->period += smp->period;
		}
	}
	s->rep.nr_no_cpu += !(smp->mask & PD_SAMPLE_CPU);
	s->rep.nr_no_tid += !(smp->mask & PD_SAMPLE_TID);
	if (!ev->from_reads)
		ev->count = ev->period;
	s->rep.nr_samples++;
	if (smp->mask & PD_SAMPLE_TIME) {
		if (!s->rep.first_time || smp->time < s->rep.first_time)
			s->rep.first_time = smp->time;
		if (smp->time > s->rep.last_time)
			s->rep.last_time = smp->time;
	}
	if (!(smp->mask & PD_SAMPLE_READ))
		return 0;
	by_id = smp->evsel->attr.read_format & PD_FORMAT_ID;
	if (!by_id && smp->read.nr != 1) {
		char at[64];

		/* perf always reads a group with its ids: nothing tells
		 * the values' events apart */
		where(at, sizeof(at), offset);
		snprintf(s->err, sizeof(s->err),
			 "%s reads a group of %" PRIu64
			 " values without their ids", at, smp->read.nr);
		return PD_ERR_FORMAT;
	}
	for (uint64_t i = 0; i < smp->read.nr; i++) {
		struct pd_read_value v;

		pd_sample_read_value(smp, i, &v);
		/* a lone value without its id is the sample's own counter */
		rc = by_id ? read_value(s, smp, offset, v.id, v.value, NULL)
			   : read_value(s, smp, offset, smp->id, v.value,
					smp->evsel);
		if (rc < 0)
			return rc;
	}
	return 0;
}

const struct pda_sampled_report *pda_sampled_report(const struct pda_sampled *s)
{
	return &s->rep;
}

int pda_metrics_from_sampled(const struct pda_sampled_report *rep,
			     const struct pd_env *env,
			     const struct pd_alloc *alloc,
			     struct pda_metrics *out)
{
	struct pda_metrics_event *ev;

	memset(out, 0, sizeof(*out));
	if (rep->nr_events == 0)
		return 0;
	ev = pdc_zalloc(alloc, rep->nr_events * sizeof(*ev));
	if (!ev)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < rep->nr_events; i++) {
		ev[i].name = rep->events[i].name;
		ev[i].attr = rep->events[i].attr;
		ev[i].count = (double)rep->events[i].count;
		/* an event never sampled nor read was not counted, not 0 */
		ev[i].counted = rep->events[i].nr_samples ||
				rep->events[i].nr_reads;
	}
	pda_metrics_compute(ev, rep->nr_events, env, out);
	out->estimated = true;
	pdc_free(alloc, ev);
	return 0;
}
