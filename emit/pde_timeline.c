/*
 * pde_timeline.c - a structured profile's samples in time (the tracks
 * pde_firefox() takes: one per thread and event, samples in time order)
 * for two timeline viewers:
 *
 *   speedscope  its JSON file format (src/lib/file-format-spec.ts of
 *               speedscope 1.25): one "evented" profile per track, in
 *               nanoseconds from the first sample, each sample its stack
 *               opened ("O", root first) at its time and closed ("C",
 *               leaf first) when it ends; frames once each in
 *               shared.frames
 *   chrome      Chrome's trace event format (the JSON object form with
 *               "traceEvents"), which Perfetto's UI and chrome://tracing
 *               load: metadata events naming each process and thread,
 *               then per sample one duration slice per frame, root first
 *
 * A sample lasts until the next sample of its track, at most the
 * sampling interval (the last one: the interval), so the timeline shows
 * where the thread ran and leaves blank where it was not sampled.
 *
 * Each sample's stack is opened and closed whole, not merged with the
 * next sample's callers: the sample counts stay readable from the file
 * (what the tests check against pdtool fold) and the views that merge
 * (speedscope's left-heavy, Perfetto's flame graph of an area) merge.
 *
 * Chrome's slices are begin/end pairs ("B", "E") rather than complete
 * "X" events: the stack of one sample is several slices with the same
 * start and length, and Perfetto nests X events of equal timestamps in
 * no defined order (google/perfetto#878), where B and E nest in the
 * order they are written.
 */
#include "pd_config.h"
#include "pdc_alloc.h"
#include "pda_profile.h"
#include "pde.h"
#include "pde_timeline_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"

/* What a frame shows: its function's name, its source file (else its
 * DSO) and its line where the source file is known. */
struct tl_frame {
	uint32_t name, file, line, mapping;
};

struct tl {
	const struct pda_profile *p;
	const struct pde_timeline_opts *o;
	struct pd_alloc mem;
	uint32_t *path;		/* a stack's locations, root first */
	size_t alloc_path;
};

static struct tl_frame loc_frame(const struct pda_profile *p, uint32_t loc)
{
	const struct pda_profile_loc *l = pda_profile_loc(p, loc);
	const struct pda_profile_func *f = pda_profile_func(p, l->func);
	struct tl_frame k = {.name = f && f->name ? f->name : l->label,
			     .file = f ? f->file : 0,
			     .mapping = l->mapping};

	k.line = k.file ? l->line : 0;
	return k;
}

/* Stack s's locations root first into tl->path.  @return how many, or
 * -1 out of memory. */
static long stack_path(struct tl *tl, uint32_t s)
{
	size_t n = 0;

	for (uint32_t i = s; i; i = pda_profile_stack(tl->p, i)->prefix)
		n++;
	if (PDC_GROW(&tl->mem, tl->path, tl->alloc_path, n + 1,
		     PDA_PROFILE_MAX_DEPTH + 1) < 0)
		return -1;
	for (size_t k = n; s; s = pda_profile_stack(tl->p, s)->prefix)
		tl->path[--k] = pda_profile_stack(tl->p, s)->loc;
	return (long)n;
}

/* pde_timeline_int.h */
uint64_t pde_tl_sample_end(const struct pde_ff_thread *t, size_t i,
			   uint64_t interval)
{
	const uint64_t at = t->samples[i].time;

	if (i + 1 < t->nr_samples && t->samples[i + 1].time - at < interval)
		return t->samples[i + 1].time;
	return at + interval;
}

/* ns from the first sample */
static uint64_t rel(const struct tl *tl, uint64_t t)
{
	return t >= tl->o->start_time ? t - tl->o->start_time : 0;
}

static uint64_t interval_ns(const struct pde_timeline_opts *o)
{
	return o->interval_ns ? o->interval_ns : 1000000;
}

/* pid and tid as perf prints them: -1 for a pid or tid it does not know */
static int64_t id(uint32_t v)
{
	return (int64_t)(int32_t)v;
}

/* ---- speedscope ------------------------------------------------------ */

/* A location and its frame, sorted by frame to number the frames. */
struct tl_loc {
	struct tl_frame k;
	uint32_t loc;
};

static int frame_cmp(const void *a, const void *b)
{
	return memcmp(&((const struct tl_loc *)a)->k,
		      &((const struct tl_loc *)b)->k, sizeof(struct tl_frame));
}

/*
 * Each location's frame (frame[loc]) and the frames, one per distinct
 * (name, file, line, mapping): locations at other addresses of one line
 * are one frame, as the viewer has no address to show.
 */
static int speedscope_frames(struct tl *tl, struct pde_json *j,
			     uint32_t *frame)
{
	const struct pda_profile *p = tl->p;
	const size_t nr = pda_profile_nr_locs(p);
	struct tl_loc *order =
		pdc_malloc(&tl->mem, (nr ? nr : 1) * sizeof(*order));
	uint32_t next = 0;

	if (!order)
		return PD_ERR_NOMEM;
	for (uint32_t i = 1; i < nr; i++)
		order[i - 1] = (struct tl_loc){loc_frame(p, i), i};
	if (nr > 1)
		qsort(order, nr - 1, sizeof(*order), frame_cmp);
	pde_json_begin_object(j, "shared");
	pde_json_begin_array(j, "frames");
	for (size_t i = 0; i + 1 < nr; i++) {
		const struct tl_frame *k = &order[i].k;
		uint32_t file;

		if (i && frame_cmp(&order[i - 1], &order[i]) == 0) {
			frame[order[i].loc] = next - 1;
			continue;
		}
		frame[order[i].loc] = next++;
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "name", pda_profile_str(p, k->name, NULL));
		file = k->file ? k->file
		       : k->mapping ? pda_profile_mapping(p, k->mapping)->name
				    : 0;
		if (file)
			pde_json_str(j, "file", pda_profile_str(p, file, NULL));
		if (k->line)
			pde_json_u64(j, "line", k->line);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	pde_json_end_object(j);
	pdc_free(&tl->mem, order);
	return 0;
}

static void event(struct pde_json *j, const char *type, uint32_t frame,
		  uint64_t at)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "type", type);
	pde_json_u64(j, "frame", frame);
	pde_json_u64(j, "at", at);
	pde_json_end_object(j);
}

static int speedscope_track(struct tl *tl, struct pde_json *j,
			    const struct pde_ff_thread *t,
			    const uint32_t *frame, bool events)
{
	const uint64_t iv = interval_ns(tl->o);
	uint64_t end = 0;

	char name[512];

	/* speedscope lists the profiles by name: threads of one comm
	 * apart by their ids, events by their names */
	snprintf(name, sizeof(name), "%s %" PRId64 "/%" PRId64 "%s%s%s",
		 t->comm ? t->comm : t->name ? t->name : "", id(t->pid),
		 id(t->tid), events && t->event ? " (" : "",
		 events && t->event ? t->event : "",
		 events && t->event ? ")" : "");
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "type", "evented");
	pde_json_str(j, "name", name);
	pde_json_str(j, "unit", "nanoseconds");
	/* every track from the capture's first sample: they line up */
	pde_json_u64(j, "startValue", 0);
	pde_json_begin_array(j, "events");
	for (size_t i = 0; i < t->nr_samples; i++) {
		const uint64_t at = rel(tl, t->samples[i].time);
		const uint64_t to = rel(tl, pde_tl_sample_end(t, i, iv));
		const long n = stack_path(tl, t->samples[i].stack);

		if (n < 0)
			return PD_ERR_NOMEM;
		for (long k = 0; k < n; k++)
			event(j, "O", frame[tl->path[k]], at);
		for (long k = n; k-- > 0;)
			event(j, "C", frame[tl->path[k]], to);
		if (to > end)
			end = to;
	}
	pde_json_end_array(j);
	pde_json_u64(j, "endValue", end);
	pde_json_end_object(j);
	return 0;
}

int pde_speedscope_timeline(FILE *out, const struct pda_profile *p,
			    const struct pde_timeline_opts *opts)
{
	const size_t nr_locs = pda_profile_nr_locs(p);
	struct tl tl = {.p = p, .o = opts};
	struct pde_json j;
	uint32_t *frame;
	size_t active = 0;
	int rc;

	if (opts->alloc)
		tl.mem = *opts->alloc;
	frame = pdc_malloc(&tl.mem, (nr_locs ? nr_locs : 1) * sizeof(*frame));
	if (!frame)
		return PD_ERR_NOMEM;
	/* the view opens on the track with the most samples */
	for (size_t i = 1; i < opts->nr_threads; i++)
		if (opts->threads[i].nr_samples >
		    opts->threads[active].nr_samples)
			active = i;
	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_str(&j, "$schema", SCHEMA_URL);
	pde_json_str(&j, "name", opts->name ? opts->name : "");
	if (opts->exporter)
		pde_json_str(&j, "exporter", opts->exporter);
	pde_json_u64(&j, "activeProfileIndex", active);
	rc = speedscope_frames(&tl, &j, frame);
	if (rc == 0)
		pde_json_begin_array(&j, "profiles");
	for (size_t i = 0; rc == 0 && i < opts->nr_threads; i++)
		rc = speedscope_track(&tl, &j, &opts->threads[i], frame,
				      pda_profile_nr_columns(p) > 2);
	if (rc == 0) {
		pde_json_end_array(&j);
		pde_json_end_object(&j);
		pde_json_newline(&j);
	}
	pdc_free(&tl.mem, frame);
	pdc_free(&tl.mem, tl.path);
	if (rc < 0)
		return rc;
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- Chrome's trace event format ------------------------------------- */

static void meta(struct pde_json *j, const char *what, uint32_t pid,
		 uint32_t tid, const char *name)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "ph", "M");
	pde_json_str(j, "name", what);
	pde_json_i64(j, "pid", id(pid));
	pde_json_i64(j, "tid", id(tid));
	pde_json_begin_object(j, "args");
	pde_json_str(j, "name", name ? name : "");
	pde_json_end_object(j);
	pde_json_end_object(j);
}

static const char *category(const struct pda_profile_loc *l)
{
	const bool inl = l->flags & PDA_LOC_INLINED;

	if (l->flags & PDA_LOC_JIT)
		return "jit";
	if (l->flags & PDA_LOC_KERNEL)
		return "kernel";
	if (l->flags & PDA_LOC_USER)
		return inl ? "user,inlined" : "user";
	return inl ? "other,inlined" : "other";
}

/* A slice's begin or end on t's thread, its object left open. */
static void slice_head(struct pde_json *j, const struct pde_ff_thread *t,
		       bool begin, uint64_t at)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "ph", begin ? "B" : "E");
	pde_json_i64(j, "pid", id(t->pid));
	pde_json_i64(j, "tid", id(t->tid));
	/* microseconds, to the nanosecond */
	pde_json_decimal(j, "ts", at, 3);
}

static void slice(const struct tl *tl, struct pde_json *j,
		  const struct pde_ff_thread *t, uint32_t loc, bool begin,
		  uint64_t at)
{
	const struct pda_profile *p = tl->p;

	slice_head(j, t, begin, at);
	if (begin) {
		const struct pda_profile_loc *l = pda_profile_loc(p, loc);
		const struct tl_frame k = loc_frame(p, loc);

		pde_json_str(j, "name", pda_profile_str(p, k.name, NULL));
		pde_json_str(j, "cat", category(l));
		pde_json_begin_object(j, "args");
		if (k.file)
			pde_json_str(j, "file", pda_profile_str(p, k.file, NULL));
		if (k.line)
			pde_json_u64(j, "line", k.line);
		if (l->mapping)
			pde_json_str(j, "dso",
				     pda_profile_str(p,
						     pda_profile_mapping(p, l->mapping)->name,
						     NULL));
		/* a kernel frame's "offset" is its address: kallsyms' */
		if ((l->flags & PDA_LOC_DSO_OFFSET) &&
		    !(l->flags & PDA_LOC_KERNEL))
			pde_json_hex(j, "offset", l->address);
		else if (l->address)
			pde_json_hex(j, "address", l->address);
		pde_json_end_object(j);
	}
	pde_json_end_object(j);
}

/* A sample of a thread's tracks, merged in time. */
struct tl_smp {
	uint64_t time;
	uint32_t stack;
	uint32_t track;	/* index in opts->threads */
	size_t seq;
};

static int smp_cmp(const void *a, const void *b)
{
	const struct tl_smp *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The name of the process of the tracks [a, b): its main thread's comm,
 * else its first thread's. */
static const char *process_name(const struct pde_ff_thread *t, size_t a,
				size_t b)
{
	for (size_t i = a; i < b; i++)
		if (t[i].tid == t[i].pid)
			return t[i].comm ? t[i].comm : t[i].name;
	return t[a].comm ? t[a].comm : t[a].name;
}

/* The event's pseudo-frame at the root of a sample (several events). */
static void event_slice(struct pde_json *j, const struct pde_ff_thread *t,
			bool begin, uint64_t at)
{
	slice_head(j, t, begin, at);
	if (begin) {
		pde_json_str(j, "name", t->event ? t->event : "");
		pde_json_str(j, "cat", "event");
	}
	pde_json_end_object(j);
}

/*
 * The samples of one thread, tracks [a, b) (one per event), as slices:
 * the tracks merged in time, since slices on one thread must nest, each
 * sample under its event's name where there are several events.
 */
static int chrome_thread(struct tl *tl, struct pde_json *j, size_t a,
			 size_t b, bool events)
{
	const struct pde_ff_thread *t = tl->o->threads;
	const uint64_t iv = interval_ns(tl->o);
	struct tl_smp *m;
	size_t n = 0;

	for (size_t i = a; i < b; i++)
		n += t[i].nr_samples;
	m = pdc_malloc(&tl->mem, (n ? n : 1) * sizeof(*m));
	if (!m)
		return PD_ERR_NOMEM;
	n = 0;
	for (size_t i = a; i < b; i++)
		for (size_t s = 0; s < t[i].nr_samples; s++, n++)
			m[n] = (struct tl_smp){t[i].samples[s].time,
					       t[i].samples[s].stack,
					       (uint32_t)i, n};
	if (b - a > 1)
		qsort(m, n, sizeof(*m), smp_cmp);
	for (size_t s = 0; s < n; s++) {
		const struct pde_ff_thread *tr = &t[m[s].track];
		const uint64_t at = rel(tl, m[s].time);
		const uint64_t to =
			rel(tl, s + 1 < n && m[s + 1].time - m[s].time < iv
					? m[s + 1].time
					: m[s].time + iv);
		const long d = stack_path(tl, m[s].stack);

		if (d < 0) {
			pdc_free(&tl->mem, m);
			return PD_ERR_NOMEM;
		}
		if (events)
			event_slice(j, tr, true, at);
		for (long k = 0; k < d; k++)
			slice(tl, j, tr, tl->path[k], true, at);
		for (long k = d; k-- > 0;)
			slice(tl, j, tr, tl->path[k], false, to);
		if (events)
			event_slice(j, tr, false, to);
	}
	pdc_free(&tl->mem, m);
	return 0;
}

int pde_chrome(FILE *out, const struct pda_profile *p,
	       const struct pde_timeline_opts *opts)
{
	const struct pde_ff_thread *t = opts->threads;
	/* two columns an event: with several, each sample says its own */
	const bool events = pda_profile_nr_columns(p) > 2;
	struct tl tl = {.p = p, .o = opts};
	struct pde_json j;
	int rc = 0;

	if (opts->alloc)
		tl.mem = *opts->alloc;
	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_begin_array(&j, "traceEvents");
	/* tracks come sorted by pid, tid: a process and a thread are named
	 * once */
	for (size_t i = 0, a = 0; i < opts->nr_threads; i++) {
		if (i && t[i].pid == t[i - 1].pid && t[i].tid == t[i - 1].tid)
			continue;
		if (!i || t[i].pid != t[i - 1].pid) {
			size_t b = i;

			while (b < opts->nr_threads && t[b].pid == t[i].pid)
				b++;
			a = i;
			meta(&j, "process_name", t[i].pid, t[i].pid,
			     process_name(t, a, b));
		}
		meta(&j, "thread_name", t[i].pid, t[i].tid,
		     t[i].comm ? t[i].comm : t[i].name);
	}
	for (size_t a = 0, b; rc == 0 && a < opts->nr_threads; a = b) {
		b = a + 1;
		while (b < opts->nr_threads && t[b].pid == t[a].pid &&
		       t[b].tid == t[a].tid)
			b++;
		rc = chrome_thread(&tl, &j, a, b, events);
	}
	pdc_free(&tl.mem, tl.path);
	if (rc < 0)
		return rc;
	pde_json_end_array(&j);
	pde_json_str(&j, "displayTimeUnit", "ns");
	pde_json_begin_object(&j, "otherData");
	if (opts->name)
		pde_json_str(&j, "input", opts->name);
	if (opts->exporter)
		pde_json_str(&j, "exporter", opts->exporter);
	pde_json_end_object(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	return ferror(out) ? PD_ERR_IO : 0;
}
