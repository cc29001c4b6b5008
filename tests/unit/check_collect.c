/*
 * check_collect.c - the full-detail profile (analyze/profile/
 * pda_collect.c): over testdata's captures, each event's samples and
 * periods by leaf DSO and symbol are what perf 6.1's report says
 * (tests/golden/collect/testdata/NAME.tsv, made by regen.sh there), each
 * event has its own pair of named columns, and each event's leaf
 * locations are as many as perf script's distinct sampled ips (one
 * location per address); stacks hang from their thread's root; and an
 * allocation failure anywhere is a clean PD_ERR_NOMEM that leaves the
 * collector usable, so that retrying gives the same profile (T9, O6).
 */
#include "pd_config.h" /* open_memstream */
#include "pda_capture.h"
#include "pda_collect.h"
#include "elftest.h"
#include "failalloc.h"
#include "pdatest.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLD "../golden/collect/testdata/"
#define KALLSYMS "../golden/fold/kallsyms"
/* multi was recorded on another kernel than the other captures: its
 * frames are named through that kernel's symbols, as the goldens' regen
 * script does (pd_kallsyms in tests/golden/perf/lib.sh) */
#define KALLSYMS_MULTI "../golden/fold/kallsyms.6.18.44-fc-v595"

static const char *const captures[] = {"multi", "fp",	  "demo", "threads",
				       "switch", "pipe", "zstd"};

/* ---- running a capture into a collector ------------------------------- */

struct run {
	struct pda_collect *col;
	struct failalloc *fa; /* with retry: a failed add is tried again */
	bool retry;
	unsigned long nr_nomem;
	/* with by_stack: samples by the stack pda_collect_add_stack()
	 * gave */
	bool by_stack;
	uint64_t *tally;
	size_t nr_tally;
};

/* Count the sample under the stack it went to. */
static int add_tally(struct run *r, const struct pda_pipe_item *it)
{
	uint32_t stack = UINT32_MAX;
	int rc = pda_collect_add_stack(r->col, it->sample, it->stack,
				       it->comm, &stack);

	if (rc < 0)
		return rc;
	if (stack >= r->nr_tally) {
		const size_t n = 2 * (size_t)stack + 16;

		r->tally = realloc(r->tally, n * sizeof(*r->tally));
		ck_assert_ptr_nonnull(r->tally);
		memset(r->tally + r->nr_tally, 0,
		       (n - r->nr_tally) * sizeof(*r->tally));
		r->nr_tally = n;
	}
	r->tally[stack]++;
	return 0;
}

static int add_one(void *arg, const struct pda_pipe_item *it)
{
	struct run *r = arg;
	int rc;

	if (r->by_stack)
		return add_tally(r, it);
	rc = pda_collect_add(r->col, it->sample, it->stack, it->comm);

	if (rc == PD_ERR_NOMEM) {
		r->nr_nomem++;
		if (r->retry)
			rc = pda_collect_add(r->col, it->sample, it->stack,
					     it->comm);
	}
	return rc;
}

/* Run testdata capture name into r->col.  @return the run's result. */
static int run_capture(const char *name, const char *bid, struct run *r)
{
	char root[ET_PATH_MAX];
	char path[ET_PATH_MAX];
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	int rc;
	PDA_OPTS(o, .no_debuginfod = true, .buildid_dir = bid,
		 .kallsyms = strcmp(name, "multi") == 0 ? KALLSYMS_MULTI
							: KALLSYMS);
	PDA_CAPTURE_OPTS(co, .jobs = 1, .ip_stacks = true, .sample_fn = add_one,
			 .arg = r);

	/* the binaries where the captures recorded them (a clone may be
	 * elsewhere): a tree beside the build-id cache */
	et_path(root, "%s/recorded-root", bid);
	o.symfs = pt_recorded_root(root);

	et_path(path, "../../testdata/%s.perf.data", name);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	rc = pda_capture_run(&c);
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}

static struct pda_profile *collect(const char *name, const char *bid)
{
	struct run r = {0};
	struct pda_profile *p;
	PDA_COLLECT_OPTS(o);

	ck_assert_int_eq(pda_collect_new(&o, &r.col), 0);
	ck_assert_int_eq(run_capture(name, bid, &r), 0);
	ck_assert_int_eq(pda_collect_profile(r.col, &p), 0);
	pda_collect_free(r.col);
	return p;
}

/* ---- the profile as perf report's table ------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "a\tb\tc", malloc'd */
static char *keyf(const char *a, const char *b, const char *c)
{
	const size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
	char *s = malloc(n);

	ck_assert_ptr_nonnull(s);
	snprintf(s, n, "%s\t%s\t%s", a, b, c);
	return s;
}

struct entry {
	char *key; /* "event\tdso\tsym" */
	uint64_t samples, period;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key,
		      ((const struct entry *)b)->key);
}

/* Event c / 2's leaf locations with samples, one entry each; @return
 * how many (the distinct addresses sampled). */
static size_t leaves(const struct pda_profile *p, unsigned c,
		     struct entry **ents, size_t *nr)
{
	const char *ev = pda_profile_str(p, pda_profile_column(p, c)->event,
					 NULL);
	const size_t nr_locs = pda_profile_nr_locs(p);
	uint64_t *sum = calloc(2 * nr_locs, sizeof(uint64_t));
	size_t nr_ips = 0;

	ck_assert_ptr_nonnull(sum);
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *row = pda_profile_sample(p, i);
		const uint32_t leaf = pda_profile_stack(p, row->stack)->loc;

		sum[2 * leaf] += row->values[c];
		sum[2 * leaf + 1] += row->values[c + 1];
	}
	*ents = realloc(*ents, (*nr + nr_locs) * sizeof(**ents));
	ck_assert_ptr_nonnull(*ents);
	for (uint32_t l = 1; l < nr_locs; l++) {
		const struct pda_profile_loc *loc = pda_profile_loc(p, l);
		const struct pda_profile_mapping *m =
			pda_profile_mapping(p, loc->mapping);
		struct entry *e = &(*ents)[(*nr)++];

		if (!sum[2 * l]) {
			(*nr)--;
			continue;
		}
		ck_assert(!(loc->flags & PDA_LOC_ROOT));
		nr_ips++;
		e->key = keyf(ev,
			      m ? base_name(pda_profile_str(p, m->name, NULL))
				: "[unknown]",
			      pda_profile_str(p, loc->label, NULL));
		e->samples = sum[2 * l];
		e->period = sum[2 * l + 1];
	}
	free(sum);
	return nr_ips;
}

/*
 * The profile as regen.sh's TSV: "event dso sym samples period" lines
 * sorted, then "#ips event N" lines.  The caller frees the text.
 */
static char *as_table(const struct pda_profile *p)
{
	const unsigned nr_cols = pda_profile_nr_columns(p);
	struct entry *ents = NULL, *ips = calloc(nr_cols, sizeof(*ips));
	size_t nr = 0, len = 0;
	char *out;
	FILE *fp = open_memstream(&out, &len);

	ck_assert(fp && ips);
	fprintf(fp, "# event\tdso\tsym\tsamples\tperiod "
		    "(tests/golden/collect/regen.sh)\n");
	for (unsigned c = 0; c < nr_cols; c += 2) {
		const struct pda_profile_column *col = pda_profile_column(p, c);
		const struct pda_profile_column *per =
			pda_profile_column(p, c + 1);

		ck_assert_str_eq(pda_profile_str(p, col->unit, NULL),
				 "samples");
		ck_assert_str_eq(pda_profile_str(p, per->unit, NULL), "period");
		ck_assert_uint_eq(per->event, col->event);
		ips[c / 2].samples = leaves(p, c, &ents, &nr);
		ips[c / 2].key = keyf("#ips",
				      pda_profile_str(p, col->event, NULL), "");
	}
	qsort(ents, nr, sizeof(*ents), entry_cmp);
	for (size_t i = 0; i < nr; i++) {
		/* one line per (event, dso, sym): its locations summed */
		uint64_t samples = ents[i].samples, period = ents[i].period;

		while (i + 1 < nr && strcmp(ents[i].key, ents[i + 1].key) == 0) {
			free(ents[i].key);
			i++;
			samples += ents[i].samples;
			period += ents[i].period;
		}
		fprintf(fp, "%s\t%llu\t%llu\n", ents[i].key,
			(unsigned long long)samples, (unsigned long long)period);
		free(ents[i].key);
	}
	qsort(ips, nr_cols / 2, sizeof(*ips), entry_cmp);
	for (unsigned e = 0; e < nr_cols / 2; e++) {
		/* the key ends in "\t" already */
		fprintf(fp, "%s%llu\n", ips[e].key,
			(unsigned long long)ips[e].samples);
		free(ips[e].key);
	}
	free(ents);
	free(ips);
	fclose(fp);
	return out;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(fp != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	ck_assert_int_ge(n, 0);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* ---- the tests ----------------------------------------------------- */

static char *bid_dir(void)
{
	char *dir = et_tmpdir();

	pt_cache_testdata(dir);
	return dir;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* text's lines with every symbol "NAME@plt" written "@plt", sorted. */
static char *plt_blind(const char *text)
{
	char *copy = strdup(text), *lines[4096], *out, *save = NULL;
	size_t n = 0, len = 0;
	FILE *fp = open_memstream(&out, &len);

	ck_assert(copy && fp);
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(l, "@plt\t"), *tab;

		ck_assert_uint_lt(n, 4096);
		if (at) {
			*at = '\0';
			tab = strrchr(l, '\t');
			*at = '@';
			if (tab)
				memmove(tab + 1, at, strlen(at) + 1);
		}
		lines[n++] = l;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s\n", lines[i]);
	fclose(fp);
	free(copy);
	return out;
}

/*
 * Each capture's table is perf report's and perf script's, but for the
 * PLT entries perf 6.1 leaves unnamed ("@plt": libc's, for a function of
 * ld.so, in multi), which pdtool names by their relocation.
 */
START_TEST(test_oracle)
{
	char *dir = bid_dir(), *want, *got, path[ET_PATH_MAX];
	struct pda_profile *p = collect(captures[_i], dir);

	et_path(path, GOLD "%s.tsv", captures[_i]);
	want = slurp(path);
	got = as_table(p);
	if (strcmp(got, want) != 0) {
		char *w = plt_blind(want), *g = plt_blind(got);
		bool same = strcmp(w, g) == 0;

		free(w);
		free(g);
		if (!same)
			fprintf(stderr, "%s:\n--- perf\n%s--- pdtool\n%s",
				captures[_i], want, got);
		ck_assert_msg(same, "%s: not perf's table (stderr shows both)",
			      captures[_i]);
	}
	free(want);
	free(got);
	pda_profile_free(p);
	et_rmtree(dir);
	free(dir);
}
END_TEST

/* Every stack starts at its thread's root; the roots are named as fold
 * names them; frames keep their DSO offsets and functions. */
START_TEST(test_shape)
{
	char *dir = bid_dir();
	struct pda_profile *p = collect("multi", dir);
	size_t nr_roots = 0;

	ck_assert_uint_eq(pda_profile_nr_columns(p), 6);
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *row = pda_profile_sample(p, i);
		uint32_t locs[PDA_MAX_STACK + 2];
		const struct pda_profile_loc *root;
		size_t nr;

		ck_assert_uint_le(pda_profile_stack(p, row->stack)->depth,
				  PDA_MAX_STACK + 1);
		nr = pda_profile_stack_locs(p, row->stack, locs);
		root = pda_profile_loc(p, locs[0]);
		ck_assert_uint_eq(root->flags, PDA_LOC_ROOT);
		ck_assert_str_eq(pda_profile_str(p, root->label, NULL), "demo");
		for (size_t k = 1; k < nr; k++) {
			const struct pda_profile_loc *l =
				pda_profile_loc(p, locs[k]);

			ck_assert(!(l->flags & PDA_LOC_ROOT));
			ck_assert(l->flags & (PDA_LOC_KERNEL | PDA_LOC_USER));
			if (!(l->flags & PDA_LOC_UNKNOWN)) {
				ck_assert_uint_ne(l->func, 0);
				ck_assert_str_eq(
					pda_profile_str(
						p, pda_profile_func(p, l->func)->name,
						NULL),
					pda_profile_str(p, l->label, NULL));
			}
			if (l->mapping)
				ck_assert(l->flags & PDA_LOC_DSO_OFFSET);
		}
	}
	for (uint32_t l = 1; l < pda_profile_nr_locs(p); l++)
		nr_roots += !!(pda_profile_loc(p, l)->flags & PDA_LOC_ROOT);
	ck_assert_uint_eq(nr_roots, 1);
	pda_profile_free(p);
	et_rmtree(dir);
	free(dir);
}
END_TEST

/* pda_collect_add_stack() gives the stack each sample went to: the
 * samples it gave each stack are that stack's row's, summed over the
 * events' sample columns, and no sample went to a stack without a row. */
START_TEST(test_add_stack)
{
	char *dir = bid_dir();
	struct run r = {.by_stack = true};
	struct pda_profile *p;
	uint64_t in_rows = 0, given = 0;
	PDA_COLLECT_OPTS(o, .flags = PDA_COLLECT_NO_COMM);

	ck_assert_int_eq(pda_collect_new(&o, &r.col), 0);
	ck_assert_int_eq(run_capture(captures[_i], dir, &r), 0);
	ck_assert_int_eq(pda_collect_profile(r.col, &p), 0);
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *row = pda_profile_sample(p, i);
		uint64_t sum = 0;

		for (unsigned c = 0; c < pda_profile_nr_columns(p); c += 2)
			sum += row->values[c];
		ck_assert_uint_lt(row->stack, r.nr_tally);
		ck_assert_uint_eq(sum, r.tally[row->stack]);
		in_rows += sum;
	}
	for (size_t s = 0; s < r.nr_tally; s++)
		given += r.tally[s];
	ck_assert_uint_eq(given, in_rows);
	ck_assert_uint_eq(given, pda_collect_stats(r.col)->nr_samples);
	ck_assert_uint_gt(given, 0);
	free(r.tally);
	pda_collect_free(r.col);
	pda_profile_free(p);
	et_rmtree(dir);
	free(dir);
}
END_TEST

/* Allocation failures: each is PD_ERR_NOMEM and leaks nothing; retried,
 * the run gives the profile a run without failures gives. */
START_TEST(test_nomem)
{
	char *dir = bid_dir(), *want;
	struct pda_profile *p = collect("multi", dir);
	const bool retry = _i != 0;
	unsigned long n, nr_nomem = 0;

	want = as_table(p);
	pda_profile_free(p);
	for (n = 1;; n++) {
		struct failalloc fa;
		struct pd_alloc hooks;
		struct run r = {.retry = retry};
		int rc;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		{
			PDA_COLLECT_OPTS(o, .alloc = &hooks);

			rc = pda_collect_new(&o, &r.col);
		}
		if (rc == 0) {
			rc = run_capture("multi", dir, &r);
			if (retry && rc == 0) {
				char *got;

				ck_assert_int_eq(pda_collect_profile(r.col, &p),
						 0);
				got = as_table(p);
				ck_assert_str_eq(got, want);
				free(got);
				pda_profile_free(p);
			}
		}
		ck_assert_msg(rc == 0 || rc == PD_ERR_NOMEM, "rc %d at %lu", rc,
			      n);
		pda_collect_free(r.col);
		ck_assert_int_eq(fa.live, 0);
		nr_nomem += r.nr_nomem;
		if (!fa.nr_failed)
			break;
	}
	/* the sweep reached the per-sample path, not only the setup */
	ck_assert_uint_gt(n, 20);
	ck_assert_uint_gt(nr_nomem, 10);
	free(want);
	et_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_api)
{
	struct pda_collect *col;
	struct pda_profile *p;
	PDA_COLLECT_OPTS(o, .flags = 1u << 20);
	PDA_COLLECT_OPTS(ok);

	ck_assert_int_eq(pda_collect_new(NULL, &col), PD_ERR_API);
	ck_assert_ptr_null(col);
	ck_assert_int_eq(pda_collect_new(&o, &col), PD_ERR_API);
	ck_assert_int_eq(pda_collect_new(&ok, &col), 0);
	ck_assert_int_eq(pda_collect_profile(col, &p), 0);
	ck_assert_ptr_nonnull(p);
	pda_profile_free(p);
	ck_assert_int_eq(pda_collect_profile(col, &p), PD_ERR_API);
	ck_assert_ptr_null(p);
	pda_collect_free(col);
	pda_collect_free(NULL);
}
END_TEST

Suite *collect_suite(void)
{
	Suite *s = suite_create("collect");
	TCase *tc = tcase_create("collect");

	tcase_add_loop_test(tc, test_oracle, 0,
			    sizeof(captures) / sizeof(captures[0]));
	tcase_add_test(tc, test_shape);
	tcase_add_loop_test(tc, test_add_stack, 0,
			    sizeof(captures) / sizeof(captures[0]));
	/* _i: 0 gives up at the failure, 1 retries the failed add */
	tcase_add_loop_test(tc, test_nomem, 0, 2);
	tcase_add_test(tc, test_api);
	suite_add_tcase(s, tc);
	return s;
}
