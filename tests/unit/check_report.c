/*
 * check_report.c - perf report's histogram (analyze/profile/
 * pda_report.c) on hand-made samples, where the answer is known: a
 * sample adds its period to its own row and, with children, once to the
 * row of each distinct function of its callchain (a recursion counts
 * once); rows sort by period, then by the keys as perf's sort functions
 * order them; --max-stack keeps the root's frames with children; the
 * cpu key splits rows; the memo path (a cookie) adds what the first
 * sample did; --comms hides rows and keeps their samples in the total;
 * call graphs merge chains by function, callee or caller first, each
 * row's from its own frame on, a node under the threshold without its
 * children but with its values; and an allocation failure is a clean
 * PD_ERR_NOMEM (T9); the memory keys merge rows by the bits perf
 * compares and show the first sample's values.
 * tests/cli/report/golden.test holds the whole to perf 6.1.
 */
#include "pda_report.h"
#include "pda_readgroup.h"
#include "testfile.h"
#include "failalloc.h"

#include <check.h>
#include <string.h>

static struct pd_evsel ev = {.name = "cycles",
			     .attr = {.sample_type = PD_SAMPLE_CALLCHAIN}};

/* A user frame of function sym in dso at ip (symbols start at ip & ~0xff). */
static struct pda_frame frame(const char *sym, const char *dso, uint64_t ip)
{
	struct pda_frame f = {.ip = ip, .sym = sym, .dso = dso,
			      .dso_addr = ip, .sym_off = ip & 0xff};

	return f;
}

static struct pd_sample sample(uint32_t tid, uint32_t cpu, uint64_t period)
{
	struct pd_sample s = {.evsel = &ev, .pid = tid, .tid = tid,
			      .cpu = cpu, .period = period,
			      .mask = PD_SAMPLE_CPU | PD_SAMPLE_CALLCHAIN};

	return s;
}

static struct pda_report *report(const enum pda_report_key *keys,
				 unsigned nr, unsigned flags, unsigned max_stack)
{
	PDA_REPORT_OPTS(o, .keys = keys, .nr_keys = nr, .flags = flags,
			.max_stack = max_stack);
	struct pda_report *rep;

	ck_assert_int_eq(pda_report_new(&o, &rep), 0);
	return rep;
}

/* Row i of table 0: its symbol, self and children periods. */
static void check_row(const struct pda_report *rep, size_t i, const char *sym,
		      uint64_t self, uint64_t acc)
{
	const struct pda_report_table *t = pda_report_table(rep, 0);
	const struct pda_report_val *v;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_gt(t->nr_rows, i);
	ck_assert_str_eq(pda_report_entry(rep, t->rows[i])->sym, sym);
	v = pda_report_val(rep, t->members[0], t->rows[i]);
	ck_assert_uint_eq(v->period, self);
	ck_assert_uint_eq(v->acc_period, acc);
}

START_TEST(test_children)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_SYM};
	struct pda_report *rep = report(keys, 1, PDA_REPORT_CHILDREN, 0);
	/* leaf first: c <- b <- a, and a recursion b <- a <- b <- a */
	struct pda_frame f1[] = {frame("c", "/bin/x", 0x300),
				 frame("b", "/bin/x", 0x210),
				 frame("a", "/bin/x", 0x120)};
	struct pda_frame f2[] = {frame("b", "/bin/x", 0x220),
				 frame("a", "/bin/x", 0x130),
				 frame("b", "/bin/x", 0x230),
				 frame("a", "/bin/x", 0x140)};
	struct pda_stack s1 = {f1, 3, 3}, s2 = {f2, 4, 4};
	struct pd_sample a = sample(1, 0, 10), b = sample(1, 0, 5);

	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", NULL), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	ck_assert_uint_eq(pda_report_table(rep, 0)->total_period, 15);
	ck_assert_uint_eq(pda_report_table(rep, 0)->nr_rows, 3);
	/* a: 15 children, once per sample; b: 5 self, 15 children */
	check_row(rep, 0, "b", 5, 15);
	check_row(rep, 1, "a", 0, 15);
	check_row(rep, 2, "c", 10, 10);
	pda_report_free(rep);
}
END_TEST

START_TEST(test_order_and_stack)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_DSO,
						   PDA_REPORT_SYM};
	struct pda_report *rep = report(keys, 2, PDA_REPORT_CHILDREN, 1);
	struct pda_frame f1[] = {frame("zeta", "/lib/b.so", 0x100),
				 frame("main", "/bin/x", 0x200)};
	struct pda_frame f2[] = {frame("alpha", "/lib/b.so", 0x300),
				 frame("main", "/bin/x", 0x200)};
	struct pda_stack s1 = {f1, 2, 2}, s2 = {f2, 2, 2};
	struct pd_sample a = sample(1, 0, 7), b = sample(1, 0, 7);

	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", NULL), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	/* --max-stack 1 with children: the root's frame (main) is the
	 * callchain kept; ties sort by DSO name, then symbol name */
	check_row(rep, 0, "main", 0, 14);
	check_row(rep, 1, "alpha", 7, 7);
	check_row(rep, 2, "zeta", 7, 7);
	pda_report_free(rep);
}
END_TEST

/* A sample with user registers and a stack copy is cut as the pipeline
 * unwinds it (pda_sample_unwinds), two chains each at --max-stack, when
 * the copy has no bytes too: --max-stack 1 with children keeps the
 * kernel chain's root (k2) and the user part's leaf (u1), not only the
 * root (u2) of one chain. */
START_TEST(test_max_stack_unwound)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_SYM};
	struct pda_frame f[] = {frame("k1", "[kernel]", 0x100),
				frame("k2", "[kernel]", 0x200),
				frame("u1", "/bin/x", 0x300),
				frame("u2", "/bin/x", 0x400)};
	struct pda_stack st = {f, 4, 4};

	f[0].flags = f[1].flags = PDA_FRAME_KERNEL;
	for (uint64_t size = 0; size <= 8; size += 8) {
		struct pda_report *rep =
			report(keys, 1, PDA_REPORT_CHILDREN, 1);
		struct pd_sample a = sample(1, 0, 10);

		a.mask |= PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;
		a.regs_user.abi = 2;
		a.stack_user.size = size;
		ck_assert(pda_sample_unwinds(&a));
		ck_assert_int_eq(pda_report_add(rep, &a, &st, "x", NULL), 0);
		ck_assert_int_eq(pda_report_finish(rep), 0);
		ck_assert_uint_eq(pda_report_table(rep, 0)->nr_rows, 3);
		check_row(rep, 0, "k1", 10, 10);
		check_row(rep, 1, "k2", 0, 10);
		check_row(rep, 2, "u1", 0, 10);
		pda_report_free(rep);
	}
}
END_TEST

START_TEST(test_cpu_memo_filter)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_CPU,
						   PDA_REPORT_COMM};
	static const char *const comms[] = {"x", NULL};
	PDA_REPORT_OPTS(o, .keys = keys, .nr_keys = 2, .comms = comms);
	struct pda_frame f[] = {frame("f", "/bin/x", 0x100)};
	struct pda_stack st = {f, 1, 1};
	struct pd_sample a = sample(1, 0, 3), b = sample(1, 2, 4),
			 c = sample(2, 0, 5);
	const struct pda_report_table *t;
	struct pda_report *rep;
	uint64_t cookie = 0;

	ck_assert_int_eq(pda_report_new(&o, &rep), 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &st, "x", &cookie), 0);
	ck_assert_uint_ne(cookie, 0);
	/* the memo slot's second sample, on another cpu */
	ck_assert_int_eq(pda_report_add_again(rep, &b, cookie), 0);
	ck_assert_int_eq(pda_report_add(rep, &c, &st, "y", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	t = pda_report_table(rep, 0);
	/* y's row is hidden, its period counted */
	ck_assert_uint_eq(t->total_period, 12);
	ck_assert_uint_eq(t->nr_rows, 2);
	ck_assert_int_eq(pda_report_entry(rep, t->rows[0])->cpu, 2);
	ck_assert_uint_eq(pda_report_val(rep, t->members[0], t->rows[0])->period,
			  4);
	ck_assert_int_eq(pda_report_entry(rep, t->rows[1])->cpu, 0);
	ck_assert_uint_eq(pda_report_stats(rep)->nr_hidden, 1);
	ck_assert_int_eq(pda_report_add(rep, &a, &st, "x", NULL), PD_ERR_API);
	pda_report_free(rep);
}
END_TEST

/* The only child of graph node id, named name, with hit and cumulated
 * period. */
static uint32_t check_child(const struct pda_report *rep, uint32_t id,
			    const char *name, uint64_t hit, uint64_t cumul)
{
	const struct pda_report_cnode *n = pda_report_cnode(rep, id);
	const struct pda_report_cnode *c;

	ck_assert_ptr_nonnull(n);
	c = pda_report_cnode(rep, n->child);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->next, 0);
	ck_assert_str_eq(c->name, name);
	ck_assert_uint_eq(c->hit, hit);
	ck_assert_uint_eq(c->hit + c->children_hit, cumul);
	return n->child;
}

START_TEST(test_graph)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_SYM};
	struct pda_frame f1[] = {frame("c", "/bin/x", 0x300),
				 frame("b", "/bin/x", 0x210),
				 frame("a", "/bin/x", 0x120)};
	struct pda_stack s1 = {f1, 3, 3}, s2 = {f1, 2, 2};
	struct pd_sample a = sample(1, 0, 10), b = sample(1, 0, 5);
	const struct pda_report_table *t;
	const struct pda_report_val *v;
	uint64_t cookie = 0;
	struct pda_report *rep;
	uint32_t n;

	/* callee order (no children): c's graph c - b (5 end there) - a,
	 * the memo's second sample added to the node the first made */
	rep = report(keys, 1, PDA_REPORT_CALLCHAIN, 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", &cookie), 0);
	ck_assert_int_eq(pda_report_add_again(rep, &a, cookie), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	t = pda_report_table(rep, 0);
	ck_assert_uint_eq(t->nr_rows, 1);
	v = pda_report_val(rep, t->members[0], t->rows[0]);
	ck_assert_uint_eq(v->max_depth, 3);
	n = check_child(rep, v->chain, "c", 0, 25);
	n = check_child(rep, n, "b", 5, 25);
	n = check_child(rep, n, "a", 20, 20);
	ck_assert_uint_eq(pda_report_cnode(rep, n)->child, 0);
	pda_report_free(rep);

	/* caller order with children: b's row has the chains from b on */
	rep = report(keys, 1, PDA_REPORT_CALLCHAIN | PDA_REPORT_CHILDREN, 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", NULL), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	t = pda_report_table(rep, 0);
	ck_assert_uint_eq(t->nr_rows, 3);
	check_row(rep, 1, "b", 0, 15);
	v = pda_report_val(rep, t->members[0], t->rows[1]);
	n = check_child(rep, v->chain, "b", 0, 15);
	check_child(rep, n, "c", 15, 15);
	pda_report_free(rep);
}
END_TEST

/* Per-sample graphs (the cpu key) merge a frame into a sibling by name
 * as perf's match_chain(): an inlined g into the first child named g, a
 * symbol g of another DSO only into an inlined one (none here: a new
 * node).  c's children: g (s1 and s2, 3 + 4), g (s3, 5). */
START_TEST(test_graph_by_name)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_CPU,
						   PDA_REPORT_SYM};
	struct pda_frame f1[] = {frame("c", "/bin/x", 0x300),
				 frame("g", "/bin/x", 0x510),
				 frame("a", "/bin/x", 0x120)};
	struct pda_frame f2[] = {frame("c", "/bin/x", 0x300),
				 frame("g", "/bin/x", 0x610),
				 frame("h", "/bin/x", 0x610),
				 frame("a", "/bin/x", 0x120)};
	struct pda_frame f3[] = {frame("c", "/bin/x", 0x300),
				 frame("g", "/lib/y.so", 0x710),
				 frame("a", "/bin/x", 0x120)};
	struct pda_stack s1 = {f1, 3, 3}, s2 = {f2, 4, 4}, s3 = {f3, 3, 3};
	struct pd_sample a = sample(1, 0, 3), b = sample(1, 0, 4),
			 c = sample(1, 0, 5);
	const struct pda_report_table *t;
	const struct pda_report_cnode *n, *g1, *g2;
	struct pda_report *rep;

	f2[1].flags = PDA_FRAME_INLINED | PDA_FRAME_DWARF_NAMED;
	rep = report(keys, 2, PDA_REPORT_CALLCHAIN, 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", NULL), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	ck_assert_int_eq(pda_report_add(rep, &c, &s3, "x", NULL), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	t = pda_report_table(rep, 0);
	ck_assert_uint_eq(t->nr_rows, 1);
	n = pda_report_cnode(
		rep, pda_report_cnode(rep, pda_report_val(rep, t->members[0],
							  t->rows[0])
						   ->chain)
			     ->child);
	ck_assert_str_eq(n->name, "c");
	g1 = pda_report_cnode(rep, n->child);
	ck_assert_ptr_nonnull(g1);
	g2 = pda_report_cnode(rep, g1->next);
	ck_assert_ptr_nonnull(g2);
	ck_assert_uint_eq(g2->next, 0);
	if (g1->hit + g1->children_hit == 5) {
		const struct pda_report_cnode *x = g1;

		g1 = g2;
		g2 = x;
	}
	ck_assert_str_eq(g1->name, "g");
	ck_assert_str_eq(g2->name, "g");
	ck_assert_uint_eq(g1->hit + g1->children_hit, 7);
	ck_assert_uint_eq(g2->hit + g2->children_hit, 5);
	pda_report_free(rep);
}
END_TEST

/* A recorded group (GROUP_DESC) naming more members than the capture
 * has events, past 64 of them: one table of the members with events,
 * the rest left out, not PD_ERR_NOMEM. */
START_TEST(test_group_members_left_out)
{
	const uint64_t ids[] = {10, 20};
	struct tf_attr a = {.type = 1, .config = 0, .sample_period = 100,
			    .sample_type = PD_SAMPLE_IP | PD_SAMPLE_PERIOD};
	struct tf_attr b = a;
	static const struct pd_env_group grp[] = {{"{anon_group}", 0, 100}};
	struct pd_env env;
	const struct pda_report_table *t;
	struct pda_report *rep;
	struct pd_sample s = sample(1, 0, 10);
	struct pd_file *f;
	struct tf tfile;

	b.config = 1;
	tf_init(&tfile, false);
	tf_add_attr(&tfile, &a, &ids[0], 1);
	tf_add_attr(&tfile, &b, &ids[1], 1);
	f = tf_open(&tfile);
	memset(&env, 0, sizeof(env));
	env.nr_groups = 1;
	env.groups = grp;
	{
		PDA_REPORT_OPTS(o, .file = f, .env = &env);

		ck_assert_int_eq(pda_report_new(&o, &rep), 0);
	}
	for (size_t e = 0; e < 2; e++) {
		s.evsel = pd_file_evsel(f, e);
		ck_assert_ptr_nonnull(s.evsel);
		ck_assert_int_eq(pda_report_add(rep, &s, NULL, "x", NULL), 0);
	}
	ck_assert_int_eq(pda_report_finish(rep), 0);
	ck_assert_uint_eq(pda_report_nr_tables(rep), 1);
	t = pda_report_table(rep, 0);
	ck_assert_uint_eq(t->nr_members, 2);
	ck_assert_uint_eq(t->members[0], 0);
	ck_assert_uint_eq(t->members[1], 1);
	ck_assert_uint_eq(t->total_period, 20);
	pda_report_free(rep);
	pd_file_close(f);
	tf_release(&tfile);
}
END_TEST

/* Children of graph node id: how many, and the one named name. */
static const struct pda_report_cnode *graph_kid(const struct pda_report *rep,
						uint32_t id, const char *name,
						unsigned *nr)
{
	const struct pda_report_cnode *found = NULL;

	*nr = 0;
	for (uint32_t c = pda_report_cnode(rep, id)->child; c;
	     c = pda_report_cnode(rep, c)->next) {
		(*nr)++;
		if (!strcmp(pda_report_cnode(rep, c)->name, name))
			found = pda_report_cnode(rep, c);
	}
	ck_assert_ptr_nonnull(found);
	return found;
}

/* The graph of the one row ("c") of c <- b <- a (90) and c <- d <- e
 * (10), callee first, with threshold pct (rel: of the parent's). */
static struct pda_report *threshold_report(double pct, bool rel,
					   const struct pda_report_val **v)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_SYM};
	struct pda_frame f1[] = {frame("c", "/bin/x", 0x300),
				 frame("b", "/bin/x", 0x210),
				 frame("a", "/bin/x", 0x120)};
	struct pda_frame f2[] = {frame("c", "/bin/x", 0x300),
				 frame("d", "/bin/x", 0x410),
				 frame("e", "/bin/x", 0x520)};
	struct pda_stack s1 = {f1, 3, 3}, s2 = {f2, 3, 3};
	struct pd_sample a = sample(1, 0, 40), b = sample(1, 0, 10);
	uint64_t cookie = 0;
	PDA_REPORT_OPTS(o, .keys = keys, .nr_keys = 1,
			.flags = PDA_REPORT_CALLCHAIN |
				 (rel ? PDA_REPORT_GRAPH_REL : 0),
			.graph_min_percent = pct);
	struct pda_report *rep;

	ck_assert_int_eq(pda_report_new(&o, &rep), 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &s1, "x", &cookie), 0);
	ck_assert_int_eq(pda_report_add(rep, &b, &s2, "x", NULL), 0);
	a.period = 50;
	ck_assert_int_eq(pda_report_add_again(rep, &a, cookie), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	*v = pda_report_val(rep, pda_report_table(rep, 0)->members[0],
			    pda_report_table(rep, 0)->rows[0]);
	ck_assert_uint_eq((*v)->max_depth, 3);
	return rep;
}

/* A node the threshold would not print keeps its values, not its
 * children; its parent keeps its number of children. */
START_TEST(test_graph_threshold)
{
	const struct pda_report_val *v;
	const struct pda_report_cnode *c, *d;
	struct pda_report *rep;
	unsigned nr;

	/* 0: the whole graph */
	rep = threshold_report(0, false, &v);
	c = pda_report_cnode(rep, check_child(rep, v->chain, "c", 0, 100));
	d = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "d", &nr);
	ck_assert_uint_eq(nr, 2);
	ck_assert_uint_eq(d->children_hit, 10);
	ck_assert_uint_ne(d->child, 0);
	ck_assert_uint_eq(c->count + c->children_count, 3);
	pda_report_free(rep);

	/* 20% of the event's 100: d (10) is a leaf, b (90) is whole */
	rep = threshold_report(20, false, &v);
	check_child(rep, v->chain, "c", 0, 100);
	d = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "d", &nr);
	ck_assert_uint_eq(nr, 2);
	ck_assert_uint_eq(d->hit, 0);
	ck_assert_uint_eq(d->children_hit, 10);
	ck_assert_uint_eq(d->children_count, 1);
	ck_assert_uint_eq(d->child, 0);
	c = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "b", &nr);
	ck_assert_uint_ne(c->child, 0);
	ck_assert_str_eq(pda_report_cnode(rep, c->child)->name, "a");
	ck_assert_uint_eq(pda_report_cnode(rep, c->child)->hit, 90);
	pda_report_free(rep);

	/* 95%: only c is whole */
	rep = threshold_report(95, false, &v);
	c = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "b", &nr);
	ck_assert_uint_eq(c->child, 0);
	ck_assert_uint_eq(c->children_hit, 90);
	pda_report_free(rep);

	/* fractal, of c's children (100): 95% leaves b (90) a leaf, 85%
	 * not, and b's own children are held to 85% of b's */
	rep = threshold_report(95, true, &v);
	c = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "b", &nr);
	ck_assert_uint_eq(c->child, 0);
	pda_report_free(rep);
	rep = threshold_report(85, true, &v);
	c = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "b", &nr);
	ck_assert_uint_ne(c->child, 0);
	d = graph_kid(rep, pda_report_cnode(rep, v->chain)->child, "d", &nr);
	ck_assert_uint_eq(d->child, 0);
	pda_report_free(rep);
}
END_TEST

START_TEST(test_nomem)
{
	struct pda_frame f[] = {frame("c", "/bin/x", 0x300),
				frame("b", "/bin/x", 0x210)};
	struct pda_stack st = {f, 2, 2};
	struct pd_sample a = sample(1, 0, 10);

	for (unsigned long n = 1;; n++) {
		struct failalloc fa;
		struct pd_alloc hooks;
		struct pda_report *rep;
		int rc;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		{
			PDA_REPORT_OPTS(o, .flags = PDA_REPORT_CHILDREN |
						       PDA_REPORT_CALLCHAIN,
					.alloc = &hooks);

			rc = pda_report_new(&o, &rep);
		}
		if (rc == 0) {
			rc = pda_report_add(rep, &a, &st, "x", NULL);
			if (rc == 0)
				rc = pda_report_finish(rep);
			pda_report_free(rep);
		}
		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
}
END_TEST

START_TEST(test_keys)
{
	enum pda_report_key k;

	ck_assert_int_eq(pda_report_key_by_name("symbol", &k), 0);
	ck_assert_int_eq(k, PDA_REPORT_SYM);
	ck_assert_int_eq(pda_report_key_by_name("tid", &k), -1);
	/* perf >= 6.10's key, its header as perf 7.2 prints it */
	ck_assert_int_eq(pda_report_key_by_name("symoff", &k), 0);
	ck_assert_int_eq(k, PDA_REPORT_SYMOFF);
	ck_assert_str_eq(pda_report_key_header(k), "Symbol Offset");
	ck_assert_str_eq(pda_report_key_header(PDA_REPORT_PID),
			 "    Pid:Command");
}
END_TEST

/* A {leader,member}:S sample with values (leader, member) and their ids
 * on cpu. */
static void read_sample(struct tf *t, unsigned cpu, uint64_t lead_id,
			uint64_t lead, uint64_t member_id, uint64_t member)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, lead_id);		/* IDENTIFIER */
	tf_u64(t, 0x401000 + cpu);	/* IP */
	tf_u32(t, cpu);			/* CPU, res */
	tf_u32(t, 0);
	tf_u64(t, 100);			/* PERIOD */
	tf_u64(t, 2);			/* READ: nr, {value, id} */
	tf_u64(t, lead);
	tf_u64(t, lead_id);
	tf_u64(t, member);
	tf_u64(t, member_id);
	tf_end(t);
}

/* The capture's group reads (pda_readgroup, perf's
 * deliver_sample_group): one sample per member that moved since its
 * id's last, of the id's event, the move its period; an unknown id
 * left out, as the report's rows and ratios rely on. */
START_TEST(test_sample_read)
{
	const uint64_t lead_ids[] = {10, 11}, member_ids[] = {20, 21};
	const uint64_t st = PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP |
			    PD_SAMPLE_CPU | PD_SAMPLE_PERIOD | PD_SAMPLE_READ;
	struct tf_attr lead = {.type = 0, .config = 0, .sample_period = 100,
			       .sample_type = st,
			       .read_format = PD_FORMAT_GROUP | PD_FORMAT_ID};
	struct tf_attr member = lead;
	/* the deltas each sample gives: event idx and period, -1 ends */
	static const int64_t want[][3][2] = {
		{{0, 100}, {1, 250}, {-1, 0}},
		{{0, 100}, {1, 40}, {-1, 0}},	/* cpu 1: its own ids */
		{{0, 100}, {-1, 0}},		/* the member did not move */
		{{0, 50}, {-1, 0}},		/* id 99: no event */
	};
	struct pda_readgroup rg = PDA_READGROUP_INIT;
	struct pda_session *ses;
	struct pd_sample s, out[2];
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_file *f;
	struct tf t;

	member.config = 1;
	member.sample_period = 0;
	tf_init(&t, false);
	tf_add_attr(&t, &lead, lead_ids, 2);
	tf_add_attr(&t, &member, member_ids, 2);
	read_sample(&t, 0, 10, 100, 20, 250);
	read_sample(&t, 1, 11, 100, 21, 40);
	read_sample(&t, 0, 10, 200, 20, 250);
	read_sample(&t, 0, 10, 250, 99, 7);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, NULL, &ses), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int n = 0;

		ck_assert_int_eq(pd_reader_next(r, &rec), 1);
		ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
		ck_assert(pda_readgroup_is(&s));
		for (uint64_t m = 0; m < s.read.nr; m++) {
			int rc = pda_readgroup_member(&rg, ses, f, &s, m,
						      &out[n]);

			ck_assert_int_ge(rc, 0);
			/* only the last sample's member names no event */
			ck_assert_int_eq(rc == PDA_READGROUP_UNKNOWN,
					 i == 3 && m == 1);
			n += rc == 1;
		}
		for (int k = 0; k < 3; k++) {
			if (want[i][k][0] < 0) {
				ck_assert_int_eq(n, k);
				break;
			}
			ck_assert_int_gt(n, k);
			ck_assert_uint_eq(out[k].evsel->idx,
					  (unsigned)want[i][k][0]);
			ck_assert_uint_eq(out[k].period,
					  (uint64_t)want[i][k][1]);
			ck_assert_uint_eq(out[k].cpu, s.cpu);
		}
	}
	pd_reader_free(r);
	pda_readgroup_release(&rg, ses);
	pda_session_free(ses);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* The data address callback: "tab" from 0x1000, a data object. */
static int daddr(void *arg, const struct pd_sample *sample,
		 struct pda_daddr *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->sym = "tab";
	out->off = sample->addr - 0x1000;
	out->object = true;
	out->dso = "/bin/x";
	out->al_addr = sample->addr;
	out->map.found = true;
	return 0;
}

/* A memory sample: data_src ds, weight w (its period too, as
 * --mem-mode makes it), data address addr. */
static struct pd_sample mem_sample(uint64_t ds, uint64_t w, uint64_t addr)
{
	struct pd_sample s = sample(1, 0, w);

	s.mask |= PD_SAMPLE_DATA_SRC | PD_SAMPLE_WEIGHT | PD_SAMPLE_ADDR;
	s.data_src = ds;
	s.weight = w;
	s.addr = addr;
	return s;
}

START_TEST(test_mem_keys)
{
	static const enum pda_report_key keys[] = {
		PDA_REPORT_MEM, PDA_REPORT_LOCAL_WEIGHT, PDA_REPORT_DADDR_SYM};
	/* mem_lvl L1|HIT; lvl_num L1 (1) or L2 (2): perf's mem key
	 * compares mem_lvl alone */
	const uint64_t l1 = (0xaull << 5) | (1ull << 33),
		       l1b = (0xaull << 5) | (2ull << 33);
	PDA_REPORT_OPTS(o, .keys = keys, .nr_keys = 3);
	struct pda_frame f[] = {frame("f", "/bin/x", 0x100)};
	struct pda_stack st = {f, 1, 1};
	struct pd_sample a = mem_sample(l1, 10, 0x1008),
			 b = mem_sample(l1b, 10, 0x1008),
			 c = mem_sample(l1, 7, 0x1008),
			 d = mem_sample(l1, 10, 0x1010);
	const struct pda_report_table *t;
	const struct pda_report_entry *e;
	struct pda_report *rep;
	uint64_t cookie = 0;

	/* the daddr keys need the callback */
	ck_assert_int_eq(pda_report_new(&o, &rep), PD_ERR_API);
	o.data_addr = daddr;
	ck_assert_int_eq(pda_report_new(&o, &rep), 0);
	ck_assert_int_eq(pda_report_add(rep, &a, &st, "x", &cookie), 0);
	ck_assert_int_eq(pda_report_add_again(rep, &b, cookie), 0);
	ck_assert_int_eq(pda_report_add_again(rep, &c, cookie), 0);
	ck_assert_int_eq(pda_report_add_again(rep, &d, cookie), 0);
	ck_assert_int_eq(pda_report_finish(rep), 0);
	t = pda_report_table(rep, 0);
	ck_assert_uint_eq(t->nr_rows, 3);
	ck_assert_uint_eq(t->total_period, 37);
	/* a and b in one row, showing a's data_src */
	e = pda_report_entry(rep, t->rows[0]);
	ck_assert_uint_eq(pda_report_val(rep, t->members[0], t->rows[0])->samples,
			  2);
	ck_assert_uint_eq(e->data_src, l1);
	ck_assert_uint_eq(e->weight, 10);
	ck_assert_str_eq(e->daddr_sym, "tab");
	ck_assert_uint_eq(e->daddr_off, 8);
	ck_assert(e->daddr_object);
	ck_assert_int_eq(e->daddr_level, '.');
	/* another data address, another row */
	e = pda_report_entry(rep, t->rows[1]);
	ck_assert_uint_eq(e->daddr, 0x1010);
	ck_assert_uint_eq(e->daddr_off, 0x10);
	/* another weight, another row */
	e = pda_report_entry(rep, t->rows[2]);
	ck_assert_uint_eq(e->weight, 7);
	pda_report_free(rep);
}
END_TEST

/* Row i of table 0's comm and tid. */
static void check_look(const struct pda_report *rep, size_t i,
		       const char *comm, int32_t tid)
{
	const struct pda_report_table *t = pda_report_table(rep, 0);
	const struct pda_report_entry *e;

	ck_assert_uint_gt(t->nr_rows, i);
	e = pda_report_entry(rep, t->rows[i]);
	ck_assert_str_eq(e->comm, comm);
	ck_assert_int_eq(e->tid, tid);
}

/* Samples added out of time order (PDA_REPORT_ANY_ORDER), each placed
 * by pda_report_at(): a row shows its earliest sample's thread, as when
 * added in time order, a memo slot's earlier sample included. */
START_TEST(test_any_order)
{
	static const enum pda_report_key keys[] = {PDA_REPORT_SYM};
	static const enum pda_report_key cpu[] = {PDA_REPORT_CPU};
	static const char *const comms[] = {"x", ":4", NULL};
	struct pda_frame ff[] = {frame("f", "/bin/x", 0x100)};
	struct pda_frame fg[] = {frame("g", "/bin/x", 0x200)};
	struct pda_stack sf = {ff, 1, 1}, sg = {fg, 1, 1};
	struct pd_sample y = sample(1, 0, 1), x = sample(2, 0, 2),
			 u3 = sample(3, 0, 4), u4 = sample(4, 0, 8);
	struct pda_report *rep;
	uint64_t cookie = 0;

	for (int pass = 0; pass < 2; pass++) {
		PDA_REPORT_OPTS(o, .keys = keys, .nr_keys = 1, .comms = comms,
				.flags = pass ? PDA_REPORT_ANY_ORDER : 0);

		ck_assert_int_eq(pda_report_new(&o, &rep), 0);
		ck_assert(pda_report_any_order(rep) == (pass == 1));
		if (pass == 0) {
			/* time order: x (10) before y (20); u4 (5) makes
			 * g's slot, u3 (30) comes again */
			ck_assert_int_eq(pda_report_add(rep, &u4, &sg, "",
							&cookie), 0);
			ck_assert_int_eq(pda_report_add(rep, &x, &sf, "x",
							NULL), 0);
			ck_assert_int_eq(pda_report_add(rep, &y, &sf, "y",
							NULL), 0);
			ck_assert_int_eq(pda_report_add_again(rep, &u3,
							      cookie), 0);
		} else {
			/* the file's order: each later sample earlier in
			 * time than the one before it */
			pda_report_at(rep, 20, 1);
			ck_assert_int_eq(pda_report_add(rep, &y, &sf, "y",
							NULL), 0);
			pda_report_at(rep, 30, 2);
			ck_assert_int_eq(pda_report_add(rep, &u3, &sg, "",
							&cookie), 0);
			pda_report_at(rep, 10, 3);
			ck_assert_int_eq(pda_report_add(rep, &x, &sf, "x",
							NULL), 0);
			pda_report_at(rep, 5, 4);
			ck_assert_int_eq(pda_report_add_again(rep, &u4,
							      cookie), 0);
		}
		ck_assert_int_eq(pda_report_finish(rep), 0);
		/* g (12) then f (3), each shown as its first sample's */
		ck_assert_uint_eq(pda_report_table(rep, 0)->nr_rows, 2);
		check_row(rep, 0, "g", 12, 12);
		check_look(rep, 0, ":4", 4);
		check_row(rep, 1, "f", 3, 3);
		check_look(rep, 1, "x", 2);
		pda_report_free(rep);
	}
	/* the cpu key's rows are made per sample: time order only */
	{
		PDA_REPORT_OPTS(o, .keys = cpu, .nr_keys = 1,
				.flags = PDA_REPORT_ANY_ORDER);

		ck_assert_int_eq(pda_report_new(&o, &rep), 0);
		ck_assert(!pda_report_any_order(rep));
		pda_report_free(rep);
	}
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_children);
	tcase_add_test(tc, test_order_and_stack);
	tcase_add_test(tc, test_max_stack_unwound);
	tcase_add_test(tc, test_graph_by_name);
	tcase_add_test(tc, test_group_members_left_out);
	tcase_add_test(tc, test_cpu_memo_filter);
	tcase_add_test(tc, test_graph);
	tcase_add_test(tc, test_graph_threshold);
	tcase_add_test(tc, test_nomem);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_sample_read);
	tcase_add_test(tc, test_mem_keys);
	tcase_add_test(tc, test_any_order);
	suite_add_tcase(s, tc);
	return s;
}
