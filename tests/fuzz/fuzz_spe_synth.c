/*
 * fuzz_spe_synth.c - libFuzzer target for the Arm SPE sample synthesis
 * (analyze/session/pda_itrace.c), as `pdtool script --itrace` runs it
 * (STYLE T7).
 *
 * The input is a whole capture, opened with pd_file_open_mem() and a
 * session over it; its hash picks the options: perf 6.1's or perf 7's
 * event set (--spe-events), perf's default or a set of letters, and an
 * instructions period in instructions or in time.  The samples are
 * taken three times: all at once, again after pda_itrace_rewind(), and
 * once more in time slices (the `before` bound the capture pipeline
 * gives, raised by hash-chosen steps).  Properties, for any input:
 *  - a capture without an SPE trace gives no synthesizer, and a failed
 *    one a pd_err with its reason;
 *  - each sample is a SAMPLE record that decodes with the layout of one
 *    of the events the synthesizer added (the kind's name perf gives
 *    it), at the time the synthesizer says, before the bound asked;
 *  - a branch sample carries no data source; a memory sample a load's
 *    or a store's; perf 7's period is the record period asked for;
 *  - the statistics count exactly the samples handed out, per kind,
 *    and no kind but instructions has more samples than records;
 *  - the three passes hand out the same samples in the same order (the
 *    sliced one too: the queues are merged by their next sample's time
 *    whatever the bound), and so does a fourth decoding on 2 to 4
 *    threads (pda_itrace_set_jobs), with the same statistics;
 *  - a fifth, pda_itrace_next_sample(), hands out samples equal byte
 *    for byte to what pd_sample_decode() makes of the records;
 *  - pda_itrace_firsts() gives each kind's first sample of the pass, in
 *    the pass's order, whether or not the queues' times go forward;
 *  - a sixth with groups (pda_itrace_set_groups, bounds at some of the
 *    samples' times) hands out the same samples as the fifth, counted:
 *    the same multiset of keys (what pda_capture's groups compare, and
 *    the epoch) and the same statistics.
 * Every allocation goes through failing hooks (fuzz_with_oom): a failure
 * is a clean PD_ERR_NOMEM, and nothing leaks.
 */
#include "fuzz.h"

#include "pda_itrace.h"

#include <stdlib.h>
#include <string.h>

#define DS_OP_LOAD 2u
#define DS_OP_STORE 4u

/* What one pass over the samples saw. */
struct walk {
	uint64_t n, digest, by_kind[PDA_ITRACE_NR_KINDS];
	uint64_t sdigest; /* over the decoded samples and their times */
	/* each kind's first sample: the kinds in the order they came,
	 * each sample's hash and time */
	unsigned nr_first, first[PDA_ITRACE_NR_KINDS];
	uint64_t first_hash[PDA_ITRACE_NR_KINDS];
	uint64_t first_time[PDA_ITRACE_NR_KINDS];
	/* groups: the sum of the samples' key hashes (with their epoch of
	 * bounds[0..nr_bounds)), in any order; some times as bounds */
	uint64_t keysum;
	const uint64_t *bounds;
	size_t nr_bounds;
	uint64_t pick[8];
	unsigned nr_pick;
};

/* FNV-1a over a record's bytes */
static uint64_t rec_hash(uint64_t h, const struct pd_rec *rec)
{
	for (uint32_t i = 0; i < rec->size; i++)
		h = (h ^ rec->data[i]) * 0x100000001b3ull;
	return h;
}

/* FNV-1a over a decoded sample: its bytes (pd_sample_decode zeroes
 * it whole first), the branch entries' bytes for their pointer */
static uint64_t sample_hash(uint64_t h, const struct pd_sample *s)
{
	struct pd_sample t = *s;
	const unsigned char *p = (const unsigned char *)&t;

	t.branch.entries = NULL;
	for (size_t i = 0; i < sizeof(t); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	for (uint64_t i = 0; i < s->branch.nr * 24; i++)
		h = (h ^ s->branch.entries[i]) * 0x100000001b3ull;
	return h;
}

/* A sample's key as pda_capture's groups compare it, and its epoch (the
 * bounds at or before its time) */
static uint64_t key_hash(const struct pd_sample *s, uint64_t time,
			 const struct walk *w)
{
	const uint64_t v[] = {(uint64_t)(uintptr_t)s->evsel, s->ip, s->pid,
			      s->tid, s->cpu, s->misc, s->mask, s->period,
			      s->flags};
	uint64_t h = 0xcbf29ce484222325ull, ep = 0;

	while (ep < w->nr_bounds && w->bounds[ep] <= time)
		ep++;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = (h ^ v[i]) * 0x100000001b3ull;
	h = (h ^ ep) * 0x100000001b3ull;
	return h ^ h >> 31;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The options of this input: bits of its hash. */
static void pick_opts(uint64_t h, struct pda_itrace_opts *o)
{
	static const char *const sets[] = {
		"bfmtaM", "M", "b", "i1i", "i3i", "fi2i", "tab", "i10us",
	};

	memset(o, 0, sizeof(*o));
	if (h & 8) {
		char err[160];

		CHECK(pda_itrace_parse(sets[h & 7], o, err, sizeof(err)) == 0);
	}
	o->perf7 = (h >> 4 & 1) != 0;
}

/* The kind of the event a sample decoded to; PDA_ITRACE_NR_KINDS for
 * none of the synthesizer's. */
static unsigned kind_of(const struct pda_itrace *it, const struct pd_evsel *e)
{
	unsigned k;

	for (k = 0; k < PDA_ITRACE_NR_KINDS; k++)
		if (e && e == pda_itrace_evsel(it, (enum pda_itrace_kind)k))
			break;
	return k;
}

static void check_sample(struct pd_file *f, const struct pda_itrace *it,
			 const struct pda_itrace_opts *o, const struct pd_rec *rec,
			 uint64_t time, struct walk *w)
{
	struct pd_sample s;
	unsigned k;

	CHECK(rec->type == PD_REC_SAMPLE && rec->size >= 8 && rec->data);
	CHECK(pd_sample_decode(f, rec, &s) == 0);
	k = kind_of(it, s.evsel);
	CHECK(k < PDA_ITRACE_NR_KINDS);
	CHECK(strcmp(s.evsel->name,
		     pda_itrace_event_name(o, (enum pda_itrace_kind)k)) == 0);
	CHECK(pda_itrace_wants(o, (enum pda_itrace_kind)k));
	CHECK(!(s.mask & PD_SAMPLE_TIME) || s.time == time);
	if (k == PDA_ITRACE_BRANCH_MISS)
		CHECK(s.data_src == 0);
	if (k == PDA_ITRACE_MEMORY)
		CHECK((s.data_src & (DS_OP_LOAD | DS_OP_STORE)) != 0);
	if (o->perf7 && o->set && o->instructions)
		CHECK(s.period == o->period);
	if (!w->by_kind[k]++) {
		w->first_hash[w->nr_first] = rec_hash(0xcbf29ce484222325ull,
						      rec);
		w->first_time[w->nr_first] = time;
		w->first[w->nr_first++] = k;
	}
	/* a few times, bounds of the groups' epochs */
	if (w->nr_pick < 8 && (w->n % 5 == 0 || time == 0))
		w->pick[w->nr_pick++] = time;
	w->n++;
	/* over the records' bytes, in order */
	w->digest = rec_hash(w->digest, rec);
	w->digest = (w->digest ^ time) * 0x100000001b3ull;
	w->sdigest = (sample_hash(w->sdigest, &s) ^ time) * 0x100000001b3ull;
}

/* Every sample before each bound of a rising sequence (one bound: all);
 * grouped: all, as groups (pda_itrace_set_groups). */
static void walk(struct pd_file *f, struct pda_itrace *it,
		 const struct pda_itrace_opts *o, uint64_t h, bool sliced,
		 bool decoded, bool grouped, struct walk *w)
{
	uint64_t before = sliced ? 0 : UINT64_MAX, last = 0;
	unsigned idle = 0; /* bounds raised in a row with nothing before */
	const uint64_t *bounds = w->bounds;
	const size_t nr_bounds = w->nr_bounds;
	struct pd_rec rec;
	uint64_t time;

	memset(w, 0, sizeof(*w));
	w->bounds = bounds;
	w->nr_bounds = nr_bounds;
	w->digest = w->sdigest = 0xcbf29ce484222325ull;
	for (;;) {
		struct pd_sample s, *sp;
		uint32_t n;

		/* with groups: each the first of n */
		if (grouped && pda_itrace_next_decoded(it, UINT64_MAX, &sp,
						       &time, &n) > 0) {
			CHECK(n >= 1);
			w->n += n;
			w->keysum += n * key_hash(sp, time, w);
			continue;
		}
		if (grouped)
			break;

		/* pda_itrace_next_sample(): the fields of what decoding
		 * pda_itrace_next()'s record gives (the sdigest) */
		if (decoded && pda_itrace_next_sample(it, before, &s, &time) >
				       0) {
			CHECK(time < before);
			if (time > last)
				last = time;
			idle = 0;
			w->n++;
			w->sdigest = (sample_hash(w->sdigest, &s) ^ time) *
				     0x100000001b3ull;
			w->keysum += key_hash(&s, time, w);
			continue;
		}
		if (!decoded && pda_itrace_next(it, before, &rec, &time) > 0) {
			/* a queue's samples keep its records' order, so a
			 * timestamp out of order (damaged bytes) comes out
			 * so, as perf's: no global time order to check */
			CHECK(time < before);
			if (time > last)
				last = time;
			idle = 0;
			check_sample(f, it, o, &rec, time, w);
			continue;
		}
		if (before == UINT64_MAX)
			break;
		/* no sample before the bound: raise it, by a step of the
		 * hash's (times far apart: at last to the end) */
		before += 1 + (h >> (w->n % 48) & 0xffff) * (1 + (h >> 60));
		if (before < last || ++idle > 16 || (h >> 59 & 1 && w->n > 64))
			before = UINT64_MAX;
	}
}

/* pda_itrace_firsts()'s answers, against a walk's first samples */
struct firsts {
	const struct walk *w;
	unsigned n;
	bool ok;
};

static int first_cb(void *arg, const struct pd_rec *rec, uint64_t time)
{
	struct firsts *x = arg;

	x->ok = x->ok && x->n < x->w->nr_first &&
		x->w->first_time[x->n] == time &&
		x->w->first_hash[x->n] == rec_hash(0xcbf29ce484222325ull, rec);
	x->n++;
	return 0;
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	const uint64_t h = fuzz_hash(data, size);
	char err[256] = "";
	PD_OPTS(fopts, .alloc = &hooks, .errbuf = err,
		.errbuf_size = sizeof(err));
	struct pda_itrace_opts o;
	struct pda_itrace *it = NULL;
	struct pda_session *s = NULL;
	struct pd_file *f = NULL;
	struct walk a = {0}, b = {0}, c = {0}, d = {0}, e, g;
	bool nomem = false;
	int rc;

	fa->max_size = FUZZ_MAX_ALLOC;
	rc = pd_file_open_mem(data, size, &fopts, &f);
	if (rc < 0) {
		CHECK(f == NULL);
		return rc == PD_ERR_NOMEM;
	}
	{
		PDA_OPTS(po, .alloc = &hooks, .no_debuginfod = true,
			 .use_host_kernel = false, .errbuf = err,
			 .errbuf_size = sizeof(err));

		rc = pda_session_new(f, &po, &s);
	}
	if (rc < 0) {
		CHECK(rc == PD_ERR_NOMEM || err[0]);
		pd_file_close(f);
		return rc == PD_ERR_NOMEM;
	}
	pick_opts(h, &o);
	err[0] = '\0';
	rc = pda_itrace_new(s, f, &o, &it, err, sizeof(err));
	if (rc < 0) {
		CHECK(it == NULL || rc == PD_ERR_NOMEM);
		nomem = rc == PD_ERR_NOMEM;
		CHECK(nomem || err[0] != '\0');
	} else if (it) {
		const struct pda_itrace_stats *st = pda_itrace_stats(it);

		walk(f, it, &o, h, false, false, false, &a);
		CHECK(st->nr_samples == a.n);
		for (unsigned k = 0; k < PDA_ITRACE_NR_KINDS; k++) {
			CHECK(st->by_kind[k] == a.by_kind[k]);
			if (k != PDA_ITRACE_INSTRUCTIONS)
				CHECK(a.by_kind[k] <= st->nr_records);
		}
		pda_itrace_rewind(it);
		walk(f, it, &o, h, false, false, false, &b);
		CHECK(a.n == b.n && a.digest == b.digest);
		pda_itrace_rewind(it);
		walk(f, it, &o, h, true, false, false, &c);
		CHECK(a.n == c.n && a.digest == c.digest);
		{
			struct firsts x = {&a, 0, true};

			rc = pda_itrace_firsts(it, first_cb, &x);
			CHECK(rc == 0 || rc == PD_ERR_NOMEM);
			nomem = rc == PD_ERR_NOMEM;
			CHECK(nomem || (x.ok && x.n == a.nr_first));
		}
		pda_itrace_rewind(it);
		rc = pda_itrace_set_jobs(it, 2 + (unsigned)(h >> 61 & 1) * 2);
		CHECK(rc == 0 || rc == PD_ERR_NOMEM);
		nomem |= rc == PD_ERR_NOMEM;
		walk(f, it, &o, h, h >> 62 & 1, false, false, &d);
		CHECK(a.n == d.n && a.digest == d.digest);
		CHECK(st->nr_samples == d.n);
		for (unsigned k = 0; k < PDA_ITRACE_NR_KINDS; k++)
			CHECK(st->by_kind[k] == d.by_kind[k]);
		qsort(a.pick, a.nr_pick, sizeof(a.pick[0]), cmp_u64);
		e.bounds = g.bounds = a.pick;
		e.nr_bounds = g.nr_bounds = h >> 58 & 1 ? a.nr_pick : 0;
		pda_itrace_rewind(it);
		walk(f, it, &o, h, !(h >> 62 & 1), true, false, &e);
		CHECK(a.n == e.n && a.sdigest == e.sdigest);
		CHECK(st->nr_samples == e.n);
		/* groups: the same samples, counted */
		pda_itrace_rewind(it);
		CHECK(pda_itrace_set_groups(it, g.bounds, g.nr_bounds,
					    PD_SAMPLE_BRANCH_STACK) == 0);
		walk(f, it, &o, h, false, true, true, &g);
		CHECK(a.n == g.n && e.keysum == g.keysum);
		CHECK(st->nr_samples == g.n);
		for (unsigned k = 0; k < PDA_ITRACE_NR_KINDS; k++)
			CHECK(st->by_kind[k] == a.by_kind[k]);
	}
	pda_itrace_free(it);
	pda_session_free(s);
	pd_file_close(f);
	return nomem;
}

int fuzz_spe_synth(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
