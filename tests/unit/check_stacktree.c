/*
 * check_stacktree.c - the prefix tree of fold's stacks (pda_stacktree.c)
 * against models that do not share its code, on random stacks:
 *
 *   - shared prefixes: the tree has one node per distinct prefix, and
 *     gives a stack the same end each time, whatever path hint it comes
 *     with; each end's path is its stack and its counts are the sums a
 *     plain list of the stacks gives;
 *   - the sorted walk: the ends in the order a comparison of the stacks'
 *     token ranks (qsort over the list) gives, for random ranks;
 *   - through pda_fold: the memo's cookie path (pda_fold_add_keyed, then
 *     pda_fold_add_again with the cookie) counts as adding every sample
 *     does, and the lines are the distinct rendered stacks sorted by
 *     strcmp, merged where they render alike (a comm holding ';'); the
 *     same with the tree filled on a thread of its own (threaded), also
 *     for stacks deeper than a block of its queue, and with samples
 *     named by the caller (pda_fold_add_names) among resolved ones;
 *   - allocation failures leave a tree that can be freed, and no leak.
 */
#include "pd_config.h" /* open_memstream */
#include "pda_fold.h"
#include "pda_stacktree_int.h"

#include "failalloc.h"
#include "foldtext.h"
#include "testrng.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 12

static uint64_t rng_state;

static uint64_t rng(void)
{
	return tr_next(&rng_state);
}

static unsigned rnd(unsigned n)
{
	return (unsigned)(rng() % n);
}

/* A random stack, root first: stacks share prefixes as a capture's do
 * (a few roots, a few callees each), and some are prefixes of others. */
struct rstack {
	uint32_t frames[MAX_DEPTH];
	size_t nr;
	uint64_t weight;
};

static void random_stack(struct rstack *s, unsigned nr_frames)
{
	s->nr = rnd(MAX_DEPTH + 1);
	for (size_t i = 0; i < s->nr; i++)
		s->frames[i] = 1 + rnd(i < 2 ? 3 : nr_frames);
	s->weight = 1 + rnd(100);
}

static int rstack_cmp_frames(const struct rstack *a, const struct rstack *b)
{
	for (size_t i = 0; i < a->nr && i < b->nr; i++)
		if (a->frames[i] != b->frames[i])
			return a->frames[i] < b->frames[i] ? -1 : 1;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static int rstack_qcmp(const void *a, const void *b)
{
	return rstack_cmp_frames(a, b);
}

/* The distinct prefixes of the stacks (the empty one included): what the
 * tree's nodes must number. */
static size_t count_prefixes(const struct rstack *v, size_t nr)
{
	struct rstack *p = malloc((nr * (MAX_DEPTH + 1) + 1) * sizeof(*p));
	size_t k = 0, distinct = 0;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < nr; i++)
		for (size_t d = 0; d <= v[i].nr; d++) {
			p[k] = v[i];
			p[k++].nr = d;
		}
	qsort(p, k, sizeof(*p), rstack_qcmp);
	for (size_t i = 0; i < k; i++)
		distinct += i == 0 || rstack_cmp_frames(&p[i - 1], &p[i]) != 0;
	free(p);
	return distinct;
}

/* The node whose end is end, by a scan. */
static uint32_t node_of_end(const struct pda_stacktree *t, uint32_t end)
{
	for (uint32_t n = 0; n < t->nr_nodes; n++)
		if (t->nodes[n].end == end)
			return n;
	ck_abort_msg("no node has end %u", end);
	return 0;
}

enum { NR_STACKS = 3000, NR_FRAMES = 40 };

/* ---- shared prefixes and counts ------------------------------------- */

START_TEST(test_prefixes)
{
	struct pda_stacktree t = PDA_STACKTREE_INIT;
	struct rstack *v = malloc(NR_STACKS * sizeof(*v));
	uint32_t *ends = malloc(NR_STACKS * sizeof(*ends));
	uint64_t *weights = calloc(NR_STACKS + 1, sizeof(*weights));
	size_t nr_distinct = 0;

	ck_assert(v && ends && weights);
	rng_state = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
	for (size_t i = 0; i < NR_STACKS; i++) {
		int rc;

		/* a stack seen before comes back about one time in four */
		if (i > 0 && rnd(4) == 0)
			v[i] = v[rnd((unsigned)i)];
		else
			random_stack(&v[i], NR_FRAMES);
		rc = pda_stacktree_add(&t, NULL, v[i].frames, v[i].nr, rnd(20),
				       &ends[i]);
		ck_assert_int_ge(rc, 0);
		ck_assert_uint_ge(ends[i], 1);
		ck_assert_uint_le(ends[i], pda_stacktree_nr_ends(&t));
		nr_distinct += rc;
		pda_stacktree_count(&t, ends[i])->weight += v[i].weight;
		pda_stacktree_count(&t, ends[i])->samples++;
	}
	ck_assert_uint_eq(pda_stacktree_nr_ends(&t), nr_distinct);
	ck_assert_uint_eq(t.nr_nodes, count_prefixes(v, NR_STACKS));
	/* a parent comes before its children: a valid profile stack table */
	for (uint32_t n = 1; n < t.nr_nodes; n++)
		ck_assert_uint_lt(t.nodes[n].parent, n);
	/* the same stack, the same end; another stack, another end */
	for (size_t i = 0; i < NR_STACKS; i++) {
		const size_t j = rnd(NR_STACKS);

		ck_assert_int_eq(ends[i] == ends[j],
				 rstack_cmp_frames(&v[i], &v[j]) == 0);
		weights[ends[i]] += v[i].weight;
	}
	for (size_t i = 0; i < NR_STACKS; i++) {
		uint32_t frames[MAX_DEPTH];
		const uint32_t node = node_of_end(&t, ends[i]);

		ck_assert_uint_eq(pda_stacktree_path(&t, node, NULL), v[i].nr);
		ck_assert_uint_eq(pda_stacktree_path(&t, node, frames),
				  v[i].nr);
		ck_assert(memcmp(frames, v[i].frames,
				 v[i].nr * sizeof(frames[0])) == 0);
		ck_assert_uint_eq(pda_stacktree_count(&t, ends[i])->weight,
				  weights[ends[i]]);
	}
	/* sealed: adding is over */
	ck_assert_int_eq(pda_stacktree_seal(&t, NULL), 0);
	ck_assert_int_eq(
		pda_stacktree_add(&t, NULL, v[0].frames, v[0].nr, 0, &ends[0]),
		PD_ERR_API);
	pda_stacktree_release(&t, NULL);
	ck_assert_uint_eq(t.nr_nodes, 0);
	free(v);
	free(ends);
	free(weights);
}
END_TEST

/* ---- a tree shared by threads ----------------------------------------- */

enum { NR_SHARERS = 3, NR_SHARED = 20000 };

struct sharer {
	struct pda_stacktree *t;
	pthread_mutex_t *mu;
	struct pda_stacktree_reader *r;
	const struct rstack *v;
	uint32_t *ends;
	size_t from, nr;
};

/* A thread's stacks into the shared tree: found without the lock, the
 * rest added under it. */
static void *sharer_run(void *arg)
{
	struct sharer *sh = arg;

	for (size_t i = sh->from; i < sh->from + sh->nr; i++) {
		const struct rstack *s = &sh->v[i];
		int rc = pda_stacktree_find_shared(sh->t, sh->r, NULL, s->frames,
						   s->nr, (unsigned)i % 5,
						   &sh->ends[i]);

		if (rc == 1) {
			pthread_mutex_lock(sh->mu);
			rc = pda_stacktree_add_rest(sh->t, NULL, sh->r,
						    &sh->ends[i]);
			pthread_mutex_unlock(sh->mu);
		}
		if (rc < 0)
			return sh;
	}
	return NULL;
}

START_TEST(test_shared)
{
	struct pda_stacktree t = PDA_STACKTREE_INIT;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct rstack *v = malloc(NR_SHARED * sizeof(*v));
	uint32_t *ends = malloc(NR_SHARED * sizeof(*ends));
	struct sharer sh[NR_SHARERS];
	pthread_t th[NR_SHARERS];
	uint32_t *node_of;

	ck_assert(v && ends);
	rng_state = 0x2545f4914f6cdd1dull + (uint64_t)_i;
	/* wide and deep enough that every array grows while the threads
	 * read it; each thread's stacks partly another's */
	for (size_t i = 0; i < NR_SHARED; i++) {
		if (i > 0 && rnd(3) == 0)
			v[i] = v[rnd((unsigned)i)];
		else
			random_stack(&v[i], 400);
	}
	ck_assert_int_eq(pda_stacktree_share(&t, NULL), 0);
	ck_assert_int_eq(pda_stacktree_share(&t, NULL), PD_ERR_API);
	for (size_t k = 0; k < NR_SHARERS; k++) {
		sh[k] = (struct sharer){&t, &mu, NULL, v, ends,
					k * (NR_SHARED / NR_SHARERS),
					NR_SHARED / NR_SHARERS};
		ck_assert_int_eq(pda_stacktree_reader_new(&t, NULL, &sh[k].r),
				 0);
	}
	sh[NR_SHARERS - 1].nr = NR_SHARED - sh[NR_SHARERS - 1].from;
	for (size_t k = 0; k < NR_SHARERS; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, sharer_run, &sh[k]),
				 0);
	for (size_t k = 0; k < NR_SHARERS; k++) {
		void *ret;

		ck_assert_int_eq(pthread_join(th[k], &ret), 0);
		ck_assert_ptr_null(ret);
	}
	/* one tree, as one thread would have made it but for the ids */
	ck_assert_uint_eq(t.nr_nodes, count_prefixes(v, NR_SHARED));
	node_of = calloc(pda_stacktree_nr_ends(&t) + 1, sizeof(*node_of));
	ck_assert_ptr_nonnull(node_of);
	for (uint32_t n = 0; n < t.nr_nodes; n++) {
		if (n)
			ck_assert_uint_lt(t.nodes[n].parent, n);
		node_of[t.nodes[n].end] = n;
	}
	for (size_t i = 0; i < NR_SHARED; i++) {
		uint32_t frames[MAX_DEPTH];
		const size_t j = rnd(NR_SHARED);

		ck_assert_int_eq(ends[i] == ends[j],
				 rstack_cmp_frames(&v[i], &v[j]) == 0);
		ck_assert_uint_eq(pda_stacktree_path(&t, node_of[ends[i]], frames),
				  v[i].nr);
		ck_assert(memcmp(frames, v[i].frames,
				 v[i].nr * sizeof(frames[0])) == 0);
	}
	/* after the threads, a tree like any other */
	ck_assert_int_ge(
		pda_stacktree_add(&t, NULL, v[0].frames, v[0].nr, 0, &ends[0]),
		0);
	ck_assert_int_eq(pda_stacktree_seal(&t, NULL), 0);
	pda_stacktree_release(&t, NULL);
	free(node_of);
	free(v);
	free(ends);
}
END_TEST

/* ---- the sorted walk ------------------------------------------------- */

static const uint32_t *cmp_ranks;

/* Token d of s: its rank, 0 past the end. */
static uint32_t token(const struct rstack *s, size_t d)
{
	if (d >= s->nr)
		return 0;
	return cmp_ranks[2 * (size_t)s->frames[d] + (d + 1 == s->nr)];
}

static int rank_qcmp(const void *a, const void *b)
{
	for (size_t d = 0;; d++) {
		const uint32_t x = token(a, d), y = token(b, d);

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

START_TEST(test_sorted_walk)
{
	struct pda_stacktree t = PDA_STACKTREE_INIT;
	struct rstack *v = malloc(NR_STACKS * sizeof(*v));
	uint32_t ranks[2 * (NR_FRAMES + 1)], *order;
	size_t nr = 0;

	ck_assert_ptr_nonnull(v);
	rng_state = 0x2545f4914f6cdd1dull + (uint64_t)_i;
	/* random distinct ranks: a permutation of 1 .. 2 * NR_FRAMES */
	for (uint32_t i = 0; i < 2 * NR_FRAMES; i++) {
		const uint32_t j = rnd(i + 1);

		ranks[2 + i] = ranks[2 + j];
		ranks[2 + j] = i + 1;
	}
	ranks[0] = ranks[1] = 0; /* frame 0 is not used */
	for (size_t i = 0; i < NR_STACKS; i++) {
		struct rstack s;
		uint32_t end;
		int rc;

		random_stack(&s, NR_FRAMES);
		rc = pda_stacktree_add(&t, NULL, s.frames, s.nr, rnd(3), &end);
		ck_assert_int_ge(rc, 0);
		if (rc == 1)
			v[nr++] = s;
	}
	ck_assert_uint_eq(pda_stacktree_nr_ends(&t), nr);
	ck_assert_int_eq(pda_stacktree_seal(&t, NULL), 0);
	ck_assert_int_eq(pda_stacktree_sort(&t, NULL, ranks, &order), 0);
	cmp_ranks = ranks;
	qsort(v, nr, sizeof(*v), rank_qcmp);
	for (size_t i = 0; i < nr; i++) {
		uint32_t frames[MAX_DEPTH];
		const size_t depth = pda_stacktree_path(&t, order[i], frames);

		ck_assert_uint_ne(t.nodes[order[i]].end, 0);
		ck_assert_uint_eq(depth, v[i].nr);
		ck_assert(memcmp(frames, v[i].frames,
				 depth * sizeof(frames[0])) == 0);
	}
	free(order);
	pda_stacktree_release(&t, NULL);
	free(v);
}
END_TEST

/* An empty tree walks to no ends; the empty stack alone to itself. */
START_TEST(test_sorted_walk_small)
{
	struct pda_stacktree t = PDA_STACKTREE_INIT;
	const uint32_t ranks[4] = {0, 0, 1, 2};
	const uint32_t one = 1;
	uint32_t *order, end;

	ck_assert_int_eq(pda_stacktree_seal(&t, NULL), 0);
	ck_assert_int_eq(pda_stacktree_sort(&t, NULL, ranks, &order), 0);
	free(order);
	pda_stacktree_release(&t, NULL);

	/* "1" comes before "1;1" only if its end token ranks lower: here
	 * the end token (2) ranks above the one that goes on (1) */
	ck_assert_int_eq(pda_stacktree_add(&t, NULL, &one, 1, 0, &end), 1);
	ck_assert_int_eq(pda_stacktree_add(&t, NULL, NULL, 0, 0, &end), 1);
	{
		const uint32_t two[2] = {1, 1};

		ck_assert_int_eq(pda_stacktree_add(&t, NULL, two, 2, 0, &end),
				 1);
	}
	ck_assert_int_eq(pda_stacktree_seal(&t, NULL), 0);
	ck_assert_int_eq(pda_stacktree_sort(&t, NULL, ranks, &order), 0);
	ck_assert_uint_eq(order[0], 0);
	ck_assert_uint_eq(pda_stacktree_path(&t, order[1], NULL), 2);
	ck_assert_uint_eq(pda_stacktree_path(&t, order[2], NULL), 1);
	free(order);
	pda_stacktree_release(&t, NULL);
}
END_TEST

/* Every allocation of adding, sealing and walking may fail: the tree
 * stays freeable and leaks nothing. */
START_TEST(test_alloc_failures)
{
	bool completed = false;

	for (unsigned long n = 1; !completed && n < 10000; n++) {
		struct failalloc fa;
		struct pd_alloc hooks;
		struct pda_stacktree t = PDA_STACKTREE_INIT;
		uint32_t ranks[2 * (NR_FRAMES + 1)], *order = NULL, end;
		int rc = 0;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		for (uint32_t i = 0; i < 2 * (NR_FRAMES + 1); i++)
			ranks[i] = i + 1;
		rng_state = 7;
		for (size_t i = 0; rc >= 0 && i < 2000; i++) {
			struct rstack s;

			random_stack(&s, NR_FRAMES);
			rc = pda_stacktree_add(&t, &hooks, s.frames, s.nr,
					       rnd(9), &end);
		}
		pda_stacktree_seal(&t, &hooks);
		if (rc >= 0)
			rc = pda_stacktree_sort(&t, &hooks, ranks, &order);
		if (rc >= 0)
			completed = !fa.nr_failed;
		else
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
		pdc_free(&hooks, order);
		pda_stacktree_release(&t, &hooks);
		ck_assert_int_eq(fa.live, 0);
	}
	ck_assert(completed);
}
END_TEST

/* ---- through pda_fold ------------------------------------------------ */

static const char *const names[] = {
	"a",	     "a b", "ab", "a:b", "b", "main", "main2",
	"[unknown]", "",    "z",  "x y", "A", "a!",   "a0",
};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))
/* "a;b" and "a" with "b" at its root render alike */
static const char *const comms[] = {"sh", "sh x", "a", "a;b", "main"};

struct rsample {
	unsigned comm;
	uint32_t tid;
	unsigned frames[MAX_DEPTH]; /* leaf first, as a pda_stack */
	size_t nr;
	uint64_t period;
};

/* The folded line of s, as fold renders it: "comm;root..;leaf", or
 * without the comm. */
static char *render_sample(const struct rsample *s, bool no_comm)
{
	const size_t size = 16 * (MAX_DEPTH + 2);
	char *line = malloc(size);
	size_t len = 0;

	ck_assert_ptr_nonnull(line);
	line[0] = '\0';
	if (!no_comm) {
		len = (size_t)snprintf(line, size, "%s", comms[s->comm]);
		/* a space in a comm becomes '_' */
		for (size_t i = 0; i < len; i++)
			if (line[i] == ' ')
				line[i] = '_';
	}
	for (size_t i = s->nr; i > 0; i--)
		len += (size_t)snprintf(line + len, size - len, "%s%s",
					!no_comm || i < s->nr ? ";" : "",
					names[s->frames[i - 1]]);
	return line;
}

struct ref_line {
	char *text;
	uint64_t weight, samples, period;
};

static int ref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ref_line *)a)->text,
		      ((const struct ref_line *)b)->text);
}

/* The reference lines: the samples' texts sorted by strcmp, equal ones
 * summed.  @return how many. */
static size_t reference(const struct rsample *v, size_t nr, bool no_comm,
			struct ref_line *out)
{
	size_t k = 0;

	for (size_t i = 0; i < nr; i++)
		out[i] = (struct ref_line){render_sample(&v[i], no_comm),
					   v[i].period, 1, v[i].period};
	qsort(out, nr, sizeof(*out), ref_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (k > 0 && strcmp(out[k - 1].text, out[i].text) == 0) {
			out[k - 1].weight += out[i].weight;
			out[k - 1].samples++;
			out[k - 1].period += out[i].period;
			free(out[i].text);
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

/* Fold v (keyed: through cookies where a sample repeats one seen before,
 * as the pipeline's memo does), then check its lines against the
 * reference. */
static void fold_and_check(const struct rsample *v, size_t nr, bool keyed,
			   bool no_comm, bool threaded)
{
	PDA_FOLD_OPTS(o, .threaded = threaded,
		      .flags = PDA_FOLD_PERIOD |
			       (no_comm ? PDA_FOLD_NO_COMM : 0));
	struct pda_fold *fd;
	struct ref_line *ref = malloc(nr * sizeof(*ref));
	uint64_t *cookies = calloc(nr, sizeof(*cookies));
	size_t *first = malloc(nr * sizeof(*first));
	size_t nr_ref;

	ck_assert(ref && cookies && first);
	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	for (size_t i = 0; i < nr; i++) {
		struct pda_frame f[MAX_DEPTH];
		const struct pda_stack st = {f, v[i].nr, v[i].nr};
		struct pd_sample s;

		memset(&s, 0, sizeof(s));
		s.pid = 1;
		s.tid = v[i].tid;
		s.period = v[i].period;
		memset(f, 0, sizeof(f));
		for (size_t j = 0; j < v[i].nr; j++) {
			f[j].ip = 0x1000 + v[i].frames[j];
			f[j].sym = names[v[i].frames[j]];
			f[j].dso = "/bin/x";
			if (!strcmp(f[j].sym, "[unknown]")) {
				f[j].sym = NULL;
				f[j].flags = PDA_FRAME_NO_SYMBOL;
			}
		}
		/* a repeat of an earlier sample of the same stack and comm */
		first[i] = i;
		for (size_t j = 0; keyed && j < i; j++)
			if (v[j].comm == v[i].comm && v[j].nr == v[i].nr &&
			    !memcmp(v[j].frames, v[i].frames,
				    v[i].nr * sizeof(v[i].frames[0]))) {
				first[i] = j;
				break;
			}
		if (keyed && first[i] < i)
			ck_assert_int_eq(
				pda_fold_add_again(fd, &s, cookies[first[i]]),
				1);
		else if (keyed)
			ck_assert_int_eq(pda_fold_add_keyed(fd, &s, &st,
							    comms[v[i].comm],
							    &cookies[i]),
					 1);
		else
			ck_assert_int_eq(
				pda_fold_add(fd, &s, &st, comms[v[i].comm]), 1);
	}
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	nr_ref = reference(v, nr, no_comm, ref);
	ck_assert_uint_eq(pda_fold_nr_lines(fd), nr_ref);
	ck_assert_uint_eq(pda_fold_totals(fd)->nr_stacks, nr_ref);
	ck_assert_uint_eq(pda_fold_totals(fd)->nr_samples, nr);
	for (size_t i = 0; i < nr_ref; i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);

		ck_assert_ptr_nonnull(l);
		ck_assert_str_eq(l->stack, ref[i].text);
		ck_assert_uint_eq(l->weight, ref[i].weight);
		ck_assert_uint_eq(l->samples, ref[i].samples);
		ck_assert_uint_eq(l->period, ref[i].period);
		free(ref[i].text);
	}
	pda_fold_free(fd);
	free(ref);
	free(cookies);
	free(first);
}

/* Loop _i % 6 / 2: 0 names without ';' (the token sort), 1 a comm
 * holding ';' too (the sort by text, and lines that render alike
 * merged), 2 no comm (no frames and one empty name render alike); _i
 * odd: through cookies; _i >= 6: threaded. */
START_TEST(test_fold_random)
{
	enum { NR = 1500 };
	struct rsample *v = malloc(NR * sizeof(*v));
	const int kind = _i % 6 / 2;
	const unsigned nr_comms = kind == 1 ? 5 : 3;

	ck_assert_ptr_nonnull(v);
	rng_state = 0x853c49e6748fea9bull + (uint64_t)_i;
	for (size_t i = 0; i < NR; i++) {
		if (i > 0 && rnd(3) == 0) {
			v[i] = v[rnd((unsigned)i)];
		} else {
			v[i].comm = rnd(nr_comms);
			v[i].nr = rnd(MAX_DEPTH + 1);
			for (size_t j = 0; j < v[i].nr; j++)
				v[i].frames[j] =
					rnd(j + 3 > v[i].nr ? 4 : NR_NAMES);
		}
		v[i].tid = 1 + rnd(5);
		v[i].period = 1 + rnd(1000);
	}
	fold_and_check(v, NR, _i % 2, kind == 2, _i >= 6);
	free(v);
}
END_TEST

/* Stacks deeper than a block of the threaded fold's queue (64 KB), each
 * counted again through its cookie: the same lines as without a
 * thread. */
START_TEST(test_fold_threaded_deep)
{
	enum { DEPTH = 40000, NR = 6 };
	static const char *deep[DEPTH];
	char *text[2];

	for (size_t i = 0; i < DEPTH; i++)
		deep[i] = names[rnd(NR_NAMES)];
	for (int threaded = 0; threaded < 2; threaded++) {
		PDA_FOLD_OPTS(o, .threaded = threaded,
			      .max_stack = DEPTH + 1);
		struct pda_fold *fd;
		struct pda_frame *f = calloc(DEPTH, sizeof(*f));
		char *buf = NULL;
		size_t len = 0;
		FILE *fp;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
		for (size_t n = 0; n < NR; n++) {
			/* depths around a block's size, and one small */
			const size_t nr = n == NR - 1 ? 3 : DEPTH - n * 7000;
			const struct pda_stack st = {f, nr, nr};
			struct pd_sample s;
			uint64_t cookie = 0;

			memset(&s, 0, sizeof(s));
			s.pid = s.tid = 1;
			s.period = 1 + n;
			for (size_t j = 0; j < nr; j++)
				f[j] = (struct pda_frame){.ip = 0x1000 + j,
							  .sym = deep[j],
							  .dso = "/bin/x"};
			ck_assert_int_eq(
				pda_fold_add_keyed(fd, &s, &st, "c", &cookie),
				1);
			ck_assert_uint_ne(cookie, 0);
			ck_assert_int_eq(pda_fold_add_again(fd, &s, cookie),
					 1);
		}
		ck_assert_int_eq(pda_fold_finish(fd), 0);
		ck_assert_uint_eq(pda_fold_nr_lines(fd), NR);
		fp = open_memstream(&buf, &len);
		ck_assert_ptr_nonnull(fp);
		for (size_t i = 0; i < pda_fold_nr_lines(fd); i++) {
			const struct pda_fold_line *l = pda_fold_line(fd, i);

			ck_assert_ptr_nonnull(l);
			ck_assert_uint_eq(l->samples, 2);
			fprintf(fp, "%s %llu\n", l->stack,
				(unsigned long long)l->weight);
		}
		fclose(fp);
		text[threaded] = buf;
		pda_fold_free(fd);
		free(f);
	}
	ck_assert_str_eq(text[0], text[1]);
	free(text[0]);
	free(text[1]);
}
END_TEST

/* A fold of n random samples (3 comms, stacks from names[]) made into
 * a profile, with or without its threads; with names_at, sample
 * names_at and every 97th after it named by the caller
 * (pda_fold_add_names), the others resolved frames whose first one of
 * each name decides the location's address and line. */
static struct pda_profile *fold_profile(size_t n, bool threaded,
					size_t names_at, struct pda_fold **out)
{
	PDA_FOLD_OPTS(o, .threaded = threaded);
	struct pda_fold *fd;
	struct pda_profile *p;
	static const char *const fold_comms[] = {"a", "b", "d"};

	rng_state = 0x9e3779b97f4a7c15ull;
	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	for (size_t i = 0; i < n; i++) {
		struct pda_frame f[MAX_DEPTH];
		const size_t nr = 1 + rnd(MAX_DEPTH);
		const struct pda_stack st = {f, nr, nr};
		struct pd_sample s;

		memset(&s, 0, sizeof(s));
		s.pid = s.tid = 1;
		s.period = 1 + rnd(100);
		memset(f, 0, sizeof(f));
		for (size_t j = 0; j < nr; j++) {
			f[j].ip = names_at ? 0x1000 + rnd(64) : 0x1000 + j;
			f[j].dso_addr = f[j].ip;
			f[j].line = names_at ? 1 + rnd(9) : 0;
			f[j].sym = names[rnd(NR_NAMES)];
			f[j].dso = "/bin/x";
		}
		if (names_at && i >= names_at && (i - names_at) % 97 == 0) {
			const char *nm[MAX_DEPTH];
			struct pda_fold_names fn = {.root = fold_comms[rnd(3)],
						    .names = nm,
						    .nr = nr,
						    .weight = s.period};

			for (size_t j = 0; j < nr; j++)
				nm[j] = f[j].sym;
			ck_assert_int_ge(pda_fold_add_names(fd, &fn), 0);
			continue;
		}
		ck_assert_int_ge(pda_fold_add(fd, &s, &st, fold_comms[rnd(3)]),
				 0);
	}
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	ck_assert_int_eq(pda_fold_profile(fd, &p), 0);
	*out = fd;
	return p;
}

/*
 * A threaded fold sorts its lines on a thread of its own while the
 * profile is made from the ones already sorted: with many more lines
 * than a step of the sorter, the profile is the one made without
 * threads, id for id, and so are the line count and the lines.
 */
/* _i 1: samples named by the caller among resolved ones, whose first
 * frame of each name decides its location: the same atoms in the same
 * order, the same details for each location, with or without threads. */
START_TEST(test_fold_sorter_stream)
{
	enum { NR = 5 * PDA_STACKTREE_SORT_STEP };
	const size_t names_at = _i ? NR / 2 : 0;
	struct pda_fold *fd[2];
	struct pda_profile *p[2];
	char *text[2];

	for (int threaded = 0; threaded < 2; threaded++)
		p[threaded] =
			fold_profile(NR, threaded, names_at, &fd[threaded]);
	ck_assert_uint_gt(pda_fold_nr_lines(fd[0]),
			  2 * PDA_STACKTREE_SORT_STEP);
	ck_assert_uint_eq(pda_fold_nr_lines(fd[0]), pda_fold_nr_lines(fd[1]));
	ck_assert_uint_eq(pda_fold_totals(fd[0])->nr_stacks,
			  pda_fold_totals(fd[1])->nr_stacks);
	ck_assert_uint_eq(pda_profile_nr_stacks(p[0]),
			  pda_profile_nr_stacks(p[1]));
	for (uint32_t i = 1; i < pda_profile_nr_stacks(p[0]); i++) {
		const struct pda_profile_stack *a = pda_profile_stack(p[0], i);
		const struct pda_profile_stack *b = pda_profile_stack(p[1], i);

		ck_assert(a->prefix == b->prefix && a->loc == b->loc);
	}
	ck_assert_uint_eq(pda_profile_nr_samples(p[0]),
			  pda_profile_nr_samples(p[1]));
	for (size_t i = 0; i < pda_profile_nr_samples(p[0]); i++) {
		const struct pda_profile_sample *a = pda_profile_sample(p[0], i);
		const struct pda_profile_sample *b = pda_profile_sample(p[1], i);

		ck_assert_uint_eq(a->stack, b->stack);
		ck_assert_uint_eq(a->values[0], b->values[0]);
	}
	ck_assert_uint_eq(pda_profile_nr_locs(p[0]), pda_profile_nr_locs(p[1]));
	for (uint32_t i = 1; i < pda_profile_nr_locs(p[0]); i++) {
		const struct pda_profile_loc *a = pda_profile_loc(p[0], i);
		const struct pda_profile_loc *b = pda_profile_loc(p[1], i);

		ck_assert_str_eq(pda_profile_str(p[0], a->label, NULL),
				 pda_profile_str(p[1], b->label, NULL));
		ck_assert_uint_eq(a->address, b->address);
		ck_assert_uint_eq(a->line, b->line);
		ck_assert_uint_eq(a->flags, b->flags);
	}
	for (int i = 0; i < 2; i++) {
		text[i] = ft_lines(fd[i]);
		pda_profile_free(p[i]);
		pda_fold_free(fd[i]);
	}
	ck_assert_str_eq(text[0], text[1]);
	free(text[0]);
	free(text[1]);
}
END_TEST

Suite *stacktree_suite(void)
{
	Suite *s = suite_create("stacktree");
	TCase *tc = tcase_create("tree");

	tcase_add_loop_test(tc, test_prefixes, 0, 4);
	tcase_add_loop_test(tc, test_sorted_walk, 0, 4);
	tcase_add_test(tc, test_sorted_walk_small);
	tcase_add_test(tc, test_alloc_failures);
	suite_add_tcase(s, tc);
	tc = tcase_create("fold");
	/* tens of thousands of stacks through the adder and sorter threads:
	 * Check's 4 s are too few under TSan, which ran it past them once */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fold_random, 0, 12);
	tcase_add_test(tc, test_fold_threaded_deep);
	tcase_add_loop_test(tc, test_fold_sorter_stream, 0, 2);
	tcase_add_loop_test(tc, test_shared, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
