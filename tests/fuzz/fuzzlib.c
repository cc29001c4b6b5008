/*
 * fuzzlib.c - the helpers of fuzz.h, shared by every target.
 */
#include "fuzz.h"

#include "pda_base_int.h"
#include "pda_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fuzz_oom_mode fuzz_oom = FUZZ_OOM_SAMPLED;
size_t fuzz_oom_sweep_max;

/*
 * The most out-of-memory passes a sweep makes of one input: past it, the
 * failing call steps over the calls evenly (a DWARF unwind makes
 * thousands of allocations, each pass a few milliseconds).
 */
#define SWEEP_MAX_PASSES 2048

void fuzz_check_failed(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: property violated: %s\n", file, line, what);
	abort();
}

uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull ^ size;

	for (size_t i = 0; i < size; i++) {
		h ^= data[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static volatile uint64_t sink;

void fuzz_touch(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	sink += sum;
}

void fuzz_touch_str(const char *s)
{
	if (s)
		fuzz_touch(s, strlen(s) + 1);
}

/* One pass, its allocations failing as asked.  @return its calls. */
static unsigned long run_pass(const uint8_t *data, size_t size,
			      fuzz_pass_fn pass, unsigned long fail_at,
			      bool persistent)
{
	struct failalloc fa;
	bool nomem;

	failalloc_init(&fa, fail_at, persistent);
	fa.max_size = FUZZ_MAX_ALLOC;
	nomem = pass(data, size, &fa);
	CHECK(fa.live == 0);
	CHECK(fa.live_bytes == 0);
	/* an allocation that failed is reported, not swallowed (E5) */
	if (fa.nr_failed)
		CHECK(nomem);
	return fa.nr_calls;
}

unsigned long fuzz_with_oom(const uint8_t *data, size_t size, fuzz_pass_fn pass)
{
	const unsigned long nr_calls = run_pass(data, size, pass, 0, false);
	uint64_t h;

	if (nr_calls == 0 || fuzz_oom == FUZZ_OOM_OFF)
		return nr_calls;
	if (fuzz_oom == FUZZ_OOM_SWEEP && size <= fuzz_oom_sweep_max) {
		const unsigned long step = nr_calls / SWEEP_MAX_PASSES + 1;

		for (unsigned long n = 1; n <= nr_calls; n += step)
			run_pass(data, size, pass, n, false);
		run_pass(data, size, pass, 1 + nr_calls / 2, true);
		return nr_calls;
	}
	h = fuzz_hash(data, size);
	switch (h % 8) {
	case 0:
	case 1:
		run_pass(data, size, pass, 1 + (h >> 8) % nr_calls, false);
		break;
	case 2:
		run_pass(data, size, pass, 1 + (h >> 8) % nr_calls, true);
		break;
	default:
		break;
	}
	return nr_calls;
}

void fuzz_check_profile(const struct pda_profile *p)
{
	const unsigned nr_columns = pda_profile_nr_columns(p);
	const size_t nr_strs = pda_profile_nr_strs(p);
	const size_t nr_maps = pda_profile_nr_mappings(p);
	const size_t nr_funcs = pda_profile_nr_funcs(p);
	const size_t nr_locs = pda_profile_nr_locs(p);
	const size_t nr_stacks = pda_profile_nr_stacks(p);
	const size_t nr_rows = pda_profile_nr_samples(p);
	const uint64_t *totals = pda_profile_totals(p);
	uint64_t *sums = calloc(nr_columns, sizeof(*sums));
	unsigned char *seen = calloc(nr_stacks + 1, 1);

	if (!sums || !seen)
		abort();
	for (uint32_t id = 0; id < nr_strs; id++) {
		size_t len;
		const char *s = pda_profile_str(p, id, &len);

		CHECK(s && s[len] == '\0' && strlen(s) <= len);
	}
	for (uint32_t id = 1; id < nr_maps; id++) {
		const struct pda_profile_mapping *m =
			pda_profile_mapping(p, id);

		CHECK(m && m->name < nr_strs && m->build_id < nr_strs);
	}
	for (uint32_t id = 1; id < nr_funcs; id++) {
		const struct pda_profile_func *fn = pda_profile_func(p, id);

		CHECK(fn && fn->name < nr_strs && fn->file < nr_strs);
	}
	for (uint32_t id = 1; id < nr_locs; id++) {
		const struct pda_profile_loc *l = pda_profile_loc(p, id);

		CHECK(l && l->label < nr_strs && l->func < nr_funcs &&
		      l->mapping < nr_maps);
	}
	for (uint32_t id = 1; id < nr_stacks; id++) {
		const struct pda_profile_stack *st = pda_profile_stack(p, id);

		CHECK(st && st->prefix < id && st->loc >= 1 &&
		      st->loc < nr_locs);
		CHECK(st->depth ==
		      (st->prefix ? pda_profile_stack(p, st->prefix)->depth
				  : 0) +
			      1);
	}
	CHECK(pda_profile_stack(p, 0) == NULL &&
	      pda_profile_stack(p, (uint32_t)nr_stacks) == NULL);
	for (size_t i = 0; i < nr_rows; i++) {
		const struct pda_profile_sample *row = pda_profile_sample(p, i);

		CHECK(row && row->stack < nr_stacks && !seen[row->stack]);
		seen[row->stack] = 1;
		for (unsigned c = 0; c < nr_columns; c++) {
			/* the totals never wrap, so neither do these */
			CHECK(sums[c] + row->values[c] >= sums[c]);
			sums[c] += row->values[c];
		}
	}
	CHECK(pda_profile_sample(p, nr_rows) == NULL);
	for (unsigned c = 0; c < nr_columns; c++)
		CHECK(totals[c] == sums[c]);
	free(sums);
	free(seen);
}

void fuzz_session_begin(struct fuzz_session *fs, const struct tf_attr *attr)
{
	memset(fs, 0, sizeof(*fs));
	tf_init(&fs->t, false);
	tf_add_attr(&fs->t, attr, NULL, 0);
}

int fuzz_session_open(struct fuzz_session *fs, const struct pd_alloc *hooks,
		      const struct pda_opts *opts)
{
	struct pda_opts o = *opts;
	char err[256] = "";
	int rc;

	fs->f = tf_open(&fs->t);
	o.sz = sizeof(o);
	o.alloc = hooks;
	o.no_debuginfod = true;
	o.use_host_kernel = false;
	o.errbuf = err;
	o.errbuf_size = sizeof(err);
	rc = pda_session_new(fs->f, &o, &fs->s);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	CHECK(rc == 0 || err[0] != '\0');
	return rc;
}

void fuzz_session_free(struct fuzz_session *fs)
{
	pda_session_free(fs->s);
	pd_file_close(fs->f);
	tf_release(&fs->t);
}

char *fuzz_session_file(struct fuzz_session *fs, const struct pd_alloc *hooks,
			const uint8_t *data, size_t size)
{
	const struct tf_attr attr = {.type = 1 /* cpu-clock */,
				     .sample_period = 1,
				     .sample_type = PD_SAMPLE_IP};
	PDA_OPTS(o);
	char *buf = NULL;

	fuzz_session_begin(fs, &attr);
	if (fuzz_session_open(fs, hooks, &o) == 0)
		buf = pda_malloc(fs->s, size + 1);
	if (!buf) {
		fuzz_session_free(fs);
		return NULL;
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	return buf;
}
