/*
 * check_counters.c - analyze/counters (pda_stat): the saved aggregation
 * mode of every perf generation, the totals of a capture against its
 * STAT records summed here, clean out-of-memory failures (T9), and the
 * derived metrics (pda_metrics): events told by PMU and config, not by
 * name; the slots per cycle from the capture; the threshold table.  A
 * sampling capture's totals (pda_sampled) read as a run: per CPU and per
 * thread they add up to the event's, out of memory cleanly.
 */
#include "pd_config.h"
#include "failalloc.h"
#include "pda_metrics.h"
#include "pda_sampled.h"
#include "pda_stat.h"

#include <check.h>
#include <string.h>

#define CAPTURE "../../testdata/stat-cpu.perf.data" /* -a -A, 2 CPUs */

/* util/stat.h's enum aggr_mode of each generation, as saved */
static const struct {
	uint64_t saved;
	bool has_level;
	unsigned major, minor;
	int want;
} modes[] = {
	/* perf up to 6.4: NONE GLOBAL SOCKET DIE CORE THREAD UNSET NODE */
	{0, false, 6, 1, PDA_STAT_AGGR_NONE},
	{1, false, 6, 1, PDA_STAT_AGGR_GLOBAL},
	{2, false, 6, 1, PDA_STAT_AGGR_SOCKET},
	{3, false, 6, 1, PDA_STAT_AGGR_DIE},
	{4, false, 6, 1, PDA_STAT_AGGR_CORE},
	{5, false, 5, 10, PDA_STAT_AGGR_THREAD},
	{6, false, 6, 1, -1},
	{7, false, 6, 1, PDA_STAT_AGGR_NODE},
	{8, false, 6, 1, -1},
	/* 6.5 to 6.7: CACHE after DIE, and the AGGR_LEVEL term */
	{4, true, 6, 5, PDA_STAT_AGGR_CACHE},
	{5, true, 6, 7, PDA_STAT_AGGR_CORE},
	{6, true, 6, 6, PDA_STAT_AGGR_THREAD},
	{8, true, 6, 5, PDA_STAT_AGGR_NODE},
	/* 6.8 on: CLUSTER before CACHE; no version: the newest */
	{4, true, 6, 8, PDA_STAT_AGGR_CLUSTER},
	{5, true, 6, 12, PDA_STAT_AGGR_CACHE},
	{6, true, 6, 12, PDA_STAT_AGGR_CORE},
	{7, true, 7, 0, PDA_STAT_AGGR_THREAD},
	{9, true, 0, 0, PDA_STAT_AGGR_NODE},
	{10, true, 6, 12, -1},
};

START_TEST(test_aggr_numbering)
{
	ck_assert_int_eq(pda_stat_aggr_from_file(modes[_i].saved,
						 modes[_i].has_level,
						 modes[_i].major,
						 modes[_i].minor),
			 modes[_i].want);
}
END_TEST

/* Read CAPTURE into s: every record, in file order. */
static int read_into(struct pda_stat *s, struct pd_file *f)
{
	struct pd_reader *r;
	struct pd_rec rec;
	int rc;

	rc = pda_stat_begin(s, f);
	if (rc < 0)
		return rc;
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		if ((rc = pda_stat_rec(s, &rec)) < 0)
			break;
	pd_reader_free(r);
	if (rc < 0)
		return rc;
	rc = pda_stat_end(s);
	return rc < 0 ? rc : pda_stat_finish(s);
}

/* Each per-CPU row is its STAT record's value; --per-socket sums them. */
START_TEST(test_totals)
{
	uint64_t sum[8] = {0}, per_cpu[8][2] = {{0}};
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	const struct pda_stat_report *rep;
	struct pda_stat *s;
	PD_OPTS(opts);
	PDA_STAT_OPTS(so, .aggr = PDA_STAT_AGGR_AS_RECORDED);
	int rc;

	ck_assert_int_eq(pd_file_open(CAPTURE, &opts, &f), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pd_event ev;
		const struct pd_evsel *e;

		if (rec.type != PD_REC_STAT)
			continue;
		ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
		e = pd_file_evsel_by_id(f, ev.stat.id);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_lt(e->idx, 8);
		ck_assert_uint_lt(ev.stat.cpu, 2);
		per_cpu[e->idx][ev.stat.cpu] = ev.stat.val;
		sum[e->idx] += ev.stat.val;
	}
	pd_reader_free(r);

	ck_assert_int_eq(pda_stat_new(&so, &s), 0);
	ck_assert_int_eq(read_into(s, f), 0);
	rep = pda_stat_report(s);
	ck_assert_int_eq(rep->aggr, PDA_STAT_AGGR_NONE);
	ck_assert_uint_eq(rep->nr_rounds, 1);
	ck_assert_uint_eq(rep->nr_rows, 2 * rep->nr_events);
	for (size_t i = 0; i < rep->nr_rows; i++) {
		const struct pda_stat_row *row = &rep->rows[i];

		ck_assert_uint_eq(row->raw, per_cpu[row->event][row->cpu]);
		ck_assert(row->counted);
	}
	pda_stat_free(s);

	so.aggr = PDA_STAT_AGGR_SOCKET;
	ck_assert_int_eq(pda_stat_new(&so, &s), 0);
	ck_assert_int_eq(read_into(s, f), 0);
	rep = pda_stat_report(s);
	ck_assert_uint_eq(rep->nr_rows, rep->nr_events); /* one socket */
	for (size_t i = 0; i < rep->nr_rows; i++) {
		ck_assert_uint_eq(rep->rows[i].raw, sum[rep->rows[i].event]);
		ck_assert_uint_eq(rep->rows[i].nr, 2);
	}
	pda_stat_free(s);
	pd_file_close(f);
}
END_TEST

/* One reading of f under alloc, freeing what it made: 0 or a pd_err. */
typedef int (*read_fn)(struct pd_file *f, const struct pd_alloc *alloc,
		       int arg);

/* T9: every allocation of fn that fails gives PD_ERR_NOMEM and no
 * leak. */
static void nomem_sweep(const char *path, read_fn fn, int arg)
{
	struct pd_file *f;
	PD_OPTS(opts);

	ck_assert_int_eq(pd_file_open(path, &opts, &f), 0);
	for (unsigned long n = 1;; n++) {
		struct failalloc fa;
		struct pd_alloc hooks;
		int rc;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		rc = fn(f, &hooks, arg);
		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
	pd_file_close(f);
}

static int read_stat(struct pd_file *f, const struct pd_alloc *alloc,
		     int arg)
{
	struct pda_stat *s;
	PDA_STAT_OPTS(so, .aggr = (enum pda_stat_aggr)arg, .alloc = alloc);
	int rc = pda_stat_new(&so, &s);

	if (rc == 0) {
		rc = read_into(s, f);
		pda_stat_free(s);
	}
	return rc;
}

START_TEST(test_nomem)
{
	nomem_sweep(CAPTURE, read_stat, PDA_STAT_AGGR_CORE);
}
END_TEST

#define SAMPLED "../../testdata/multi.perf.data" /* 3 events, 2 CPUs */

/* SAMPLED's samples into a pda_sampled, then s as aggr (or the first
 * failure). */
static int read_sampled(struct pd_file *f, enum pda_stat_aggr aggr,
			const struct pd_alloc *alloc, struct pda_sampled **sm,
			struct pda_stat **s)
{
	PDA_STAT_OPTS(so, .aggr = aggr, .alloc = alloc);
	struct pd_reader *r;
	struct pd_rec rec;
	int rc;

	*s = NULL;
	if ((rc = pda_sampled_new(f, alloc, sm)) < 0)
		return rc;
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		if ((rc = pda_sampled_rec(*sm, &rec)) < 0)
			break;
	pd_reader_free(r);
	if (rc < 0 || (rc = pda_stat_new(&so, s)) < 0)
		return rc;
	rc = pda_stat_add_sampled(*s, f, pda_sampled_report(*sm));
	return rc < 0 ? rc : pda_stat_finish(*s);
}

/* Per CPU and per thread, the rows add up to each event's total. */
START_TEST(test_sampled_aggr)
{
	static const enum pda_stat_aggr aggrs[] = {
		PDA_STAT_AGGR_AS_RECORDED, PDA_STAT_AGGR_NONE,
		PDA_STAT_AGGR_THREAD, PDA_STAT_AGGR_SOCKET,
	};
	struct pd_file *f;
	PD_OPTS(opts);

	ck_assert_int_eq(pd_file_open(SAMPLED, &opts, &f), 0);
	for (size_t m = 0; m < sizeof(aggrs) / sizeof(aggrs[0]); m++) {
		struct pda_sampled *sm;
		struct pda_stat *s;
		const struct pda_sampled_report *sr;
		const struct pda_stat_report *rep;
		uint64_t count[3] = {0}, samples[3] = {0};

		ck_assert_int_eq(read_sampled(f, aggrs[m], NULL, &sm, &s), 0);
		sr = pda_sampled_report(sm);
		rep = pda_stat_report(s);
		ck_assert(rep->sampled);
		ck_assert_uint_eq(rep->nr_events, 3);
		ck_assert_uint_eq(rep->nr_rounds, 1);
		ck_assert_double_eq(rep->walltime_ns,
				    (double)(sr->last_time - sr->first_time));
		for (size_t i = 0; i < rep->nr_rows; i++) {
			const struct pda_stat_row *row = &rep->rows[i];

			ck_assert(row->counted);
			ck_assert_uint_eq(row->ena, row->run);
			count[row->event] += row->val;
			samples[row->event] += row->samples;
		}
		for (size_t e = 0; e < 3; e++) {
			ck_assert_uint_eq(count[e], sr->events[e].count);
			ck_assert_uint_eq(samples[e], sr->events[e].nr_samples);
		}
		/* 2 CPUs; 3 threads */
		ck_assert_uint_eq(rep->nr_rows,
				  3 * (aggrs[m] == PDA_STAT_AGGR_NONE     ? 2
				       : aggrs[m] == PDA_STAT_AGGR_THREAD ? 3
									  : 1));
		pda_stat_free(s);
		pda_sampled_free(sm);
	}
	pd_file_close(f);
}
END_TEST

static int read_sampled_free(struct pd_file *f, const struct pd_alloc *alloc,
			     int arg)
{
	struct pda_sampled *sm = NULL;
	struct pda_stat *s = NULL;
	int rc = read_sampled(f, (enum pda_stat_aggr)arg, alloc, &sm, &s);

	pda_stat_free(s);
	pda_sampled_free(sm);
	return rc;
}

/* T9 for the sampled totals and their reading as a run. */
START_TEST(test_sampled_nomem)
{
	nomem_sweep(SAMPLED, read_sampled_free,
		    _i ? PDA_STAT_AGGR_THREAD : PDA_STAT_AGGR_NONE);
}
END_TEST

static const struct pd_env_pmu_mapping arm_pmus[] = {
	{1, "software"},
	{8, "armv8_pmuv3_0"},
};

/* A capture's environment of an aarch64 host with the PMU at type 8. */
static void arm_env(struct pd_env *env, const char *cpuid)
{
	memset(env, 0, sizeof(*env));
	env->arch = "aarch64";
	env->cpuid = cpuid;
	env->nr_pmu_mappings = 2;
	env->pmu_mappings = arm_pmus;
}

static const struct pda_metric_val *find_metric(const struct pda_metrics *m,
						const char *key)
{
	for (size_t i = 0; i < m->nr; i++)
		if (strcmp(m->v[i].key, key) == 0)
			return &m->v[i];
	return NULL;
}

/* Names lie, PMU and config do not: "cycles" on the Arm PMU with config
 * 0x08 is inst_retired; a raw r11 of an aarch64 host is cpu_cycles; the
 * same PMU type on an x86 host is nothing the metrics know. */
START_TEST(test_metric_identity)
{
	struct pd_env env;
	struct pd_attr a_inst, a_cyc, a_raw;
	struct pda_metrics_event ev[2];
	struct pda_metrics m;
	const struct pda_metric_val *ipc;

	arm_env(&env, "0x00000000413fd0c1");
	memset(&a_inst, 0, sizeof(a_inst));
	memset(&a_cyc, 0, sizeof(a_cyc));
	memset(&a_raw, 0, sizeof(a_raw));
	a_inst.type = 8;
	a_inst.config = 0x08;
	a_cyc.type = 8;
	a_cyc.config = 0x11;
	a_raw.type = 4;
	a_raw.config = 0x11;
	ev[0] = (struct pda_metrics_event){"cycles", &a_inst, 300.0, true};
	ev[1] = (struct pda_metrics_event){"foo", &a_cyc, 100.0, true};
	pda_metrics_compute(ev, 2, &env, &m);
	ipc = find_metric(&m, "ipc");
	ck_assert_ptr_nonnull(ipc);
	ck_assert_double_eq_tol(ipc->value, 3.0, 1e-12);
	ck_assert_int_eq(ipc->assess, PDA_ASSESS_HEALTHY);
	ck_assert_str_eq(ipc->op_name[0], "cycles");

	ev[1].attr = &a_raw;
	ev[1].count = 250.0;
	pda_metrics_compute(ev, 2, &env, &m);
	ipc = find_metric(&m, "ipc");
	ck_assert_ptr_nonnull(ipc);
	ck_assert_double_eq_tol(ipc->value, 1.2, 1e-12);
	ck_assert_int_eq(ipc->assess, PDA_ASSESS_BORDERLINE);

	ev[1].count = 400.0;
	pda_metrics_compute(ev, 2, &env, &m);
	ck_assert_int_eq(find_metric(&m, "ipc")->assess,
			 PDA_ASSESS_INVESTIGATE);

	/* an uncounted event gives no metric */
	ev[1].counted = false;
	pda_metrics_compute(ev, 2, &env, &m);
	ck_assert_ptr_null(find_metric(&m, "ipc"));

	ev[1].counted = true;
	env.arch = "x86_64";
	env.cpuid = "GenuineIntel,6,143,8";
	env.nr_pmu_mappings = 0;
	pda_metrics_compute(ev, 2, &env, &m);
	ck_assert_uint_eq(m.nr, 0);
}
END_TEST

/* Arm TopdownL1 takes the slots per cycle from the capture's PMU_CAPS,
 * and without them computes none and says why; the N2 r0p0 correction
 * follows the capture's MIDR. */
START_TEST(test_metric_slots)
{
	static const struct pd_env_cap caps[] = {{"slots", "0x00000008"}};
	static const struct pd_env_pmu_caps pmu_caps[] = {
		{"armv8_pmuv3_0", 1, caps},
	};
	struct pd_env env;
	struct pd_attr a_be, a_fe, a_cyc;
	struct pda_metrics_event ev[3];
	struct pda_metrics m;
	const struct pda_metric_val *v;

	arm_env(&env, "0x00000000410fd4f1"); /* Neoverse V2 */
	memset(&a_be, 0, sizeof(a_be));
	memset(&a_fe, 0, sizeof(a_fe));
	memset(&a_cyc, 0, sizeof(a_cyc));
	env.nr_pmu_caps = 1;
	env.pmu_caps = pmu_caps;
	a_be.type = a_fe.type = a_cyc.type = 8;
	a_be.config = 0x3d;
	a_fe.config = 0x3e;
	a_cyc.config = 0x11;
	ev[0] = (struct pda_metrics_event){"stall_slot_backend", &a_be, 400,
					   true};
	ev[1] = (struct pda_metrics_event){"stall_slot_frontend", &a_fe, 200,
					   true};
	ev[2] = (struct pda_metrics_event){"cpu_cycles", &a_cyc, 100, true};
	pda_metrics_compute(ev, 3, &env, &m);
	ck_assert_double_eq(m.slots_per_cycle, 8.0);
	v = find_metric(&m, "td_backend_bound");
	ck_assert_ptr_nonnull(v);
	ck_assert_double_eq_tol(v->value, 0.5, 1e-12);
	ck_assert_int_eq(v->assess, PDA_ASSESS_INVESTIGATE);
	v = find_metric(&m, "td_frontend_bound");
	ck_assert_double_eq_tol(v->value, 0.25, 1e-12);
	ck_assert_int_eq(v->assess, PDA_ASSESS_INVESTIGATE);

	/* an N2 r0p0: a slot too many each cycle in STALL_SLOT_FRONTEND */
	env.cpuid = "0x00000000410fd490";
	pda_metrics_compute(ev, 3, &env, &m);
	v = find_metric(&m, "td_frontend_bound");
	ck_assert_double_eq_tol(v->value, (200.0 - 100.0) / 800.0, 1e-12);
	ck_assert_int_eq(v->assess, PDA_ASSESS_HEALTHY);

	env.nr_pmu_caps = 0;
	pda_metrics_compute(ev, 3, &env, &m);
	ck_assert_ptr_null(find_metric(&m, "td_backend_bound"));
	ck_assert_ptr_nonnull(m.note);
}
END_TEST

/* The one threshold table names each metric once. */
START_TEST(test_metric_thresholds)
{
	size_t nr;
	const struct pda_metric_threshold *t = pda_metric_thresholds(&nr);

	ck_assert_uint_gt(nr, 10);
	for (size_t i = 0; i < nr; i++)
		for (size_t k = i + 1; k < nr; k++)
			ck_assert_str_ne(t[i].key, t[k].key);
}
END_TEST

/* The CPU from the capture: an aarch64 MIDR decoded (Neoverse V1 r1p1,
 * as perf writes it on Graviton3), an unknown part named by its
 * numbers, x86's CPUDESC as it is, nothing when neither is there. */
START_TEST(test_cpu_model)
{
	struct pd_env env;
	char buf[160];
	uint64_t midr;

	memset(&env, 0, sizeof(env));
	ck_assert_ptr_null(pda_cpu_model(&env, buf, sizeof(buf)));
	env.arch = "aarch64";
	env.cpuid = "0x00000000411fd401";
	ck_assert_int_eq(pda_cpu_midr(&env, &midr), 0);
	ck_assert_uint_eq(midr, 0x411fd401);
	ck_assert_str_eq(pda_cpu_model(&env, buf, sizeof(buf)),
			 "Arm Neoverse V1 r1p1 (as in AWS Graviton3)");
	env.cpuid = "0x00000000410fd0c1";
	ck_assert_str_eq(pda_cpu_model(&env, buf, sizeof(buf)),
			 "Arm Neoverse N1 r0p1 (as in AWS Graviton2, Ampere "
			 "Altra)");
	env.cpuid = "0x00000000510f8000";
	ck_assert_str_eq(pda_cpu_model(&env, buf, sizeof(buf)),
			 "implementer 0x51 part 0x800 r0p0 (not known to "
			 "pdtool)");
	/* a MIDR only counts on aarch64 */
	env.arch = "x86_64";
	env.cpuid = "GenuineIntel,6,143,8";
	ck_assert_int_eq(pda_cpu_midr(&env, &midr), -1);
	ck_assert_ptr_null(pda_cpu_model(&env, buf, sizeof(buf)));
	env.cpu_desc = "Intel(R) Xeon(R) Platinum 8488C";
	ck_assert_str_eq(pda_cpu_model(&env, buf, sizeof(buf)),
			 "Intel(R) Xeon(R) Platinum 8488C");
}
END_TEST

/* Per-row ratios: by PMU and config, a PMU's event over the generic
 * one, the generic cache and branch pairs, nothing from a lone event. */
START_TEST(test_metric_ratios)
{
	struct pd_env env;
	/* generic cycles; raw 0x08 (on an aarch64 host a PMUv3 number);
	 * cpu_cycles, l1d_cache_refill, l1d_cache; branch-misses, branches */
	const struct pd_attr a_gen_cyc = {.type = 0, .config = 0},
			     a_inst = {.type = 4, .config = 0x08},
			     a_cyc = {.type = 8, .config = 0x11},
			     a_refill = {.type = 8, .config = 0x03},
			     a_l1d = {.type = 8, .config = 0x04},
			     a_bm = {.type = 0, .config = 5},
			     a_br = {.type = 0, .config = 4};
	struct pda_metrics_event ev[7];
	struct pda_ratio r[PDA_RATIOS_MAX];
	size_t n;

	arm_env(&env, "0x00000000413fd0c1");
	ev[0] = (struct pda_metrics_event){"cycles", &a_gen_cyc, 1, true};
	ev[1] = (struct pda_metrics_event){"r08", &a_inst, 1, true};
	ev[2] = (struct pda_metrics_event){"cpu_cycles", &a_cyc, 1, true};
	ev[3] = (struct pda_metrics_event){"l1d_cache_refill", &a_refill, 1,
					   true};
	ev[4] = (struct pda_metrics_event){"l1d_cache", &a_l1d, 1, true};
	ev[5] = (struct pda_metrics_event){"branch-misses", &a_bm, 1, true};
	ev[6] = (struct pda_metrics_event){"branches", &a_br, 1, false};
	n = pda_metrics_ratios(ev, 7, &env, r, PDA_RATIOS_MAX);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(r[0].key, "ipc");
	ck_assert_uint_eq(r[0].num, 1);
	ck_assert_uint_eq(r[0].den, 2); /* cpu_cycles over generic cycles */
	ck_assert(!r[0].percent);
	ck_assert_str_eq(r[1].key, "l1d_miss_rate");
	ck_assert_uint_eq(r[1].num, 3);
	ck_assert_uint_eq(r[1].den, 4);
	ck_assert(r[1].percent);

	/* branches counted: the generic pair too; max is kept */
	ev[6].counted = true;
	n = pda_metrics_ratios(ev, 7, &env, r, PDA_RATIOS_MAX);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(r[1].key, "branch_miss_rate");
	ck_assert_uint_eq(r[1].num, 5);
	ck_assert_uint_eq(r[1].den, 6);
	ck_assert_uint_eq(pda_metrics_ratios(ev, 7, &env, r, 1), 1);

	/* off an aarch64 host a raw 0x08 is not inst_retired */
	env.arch = "x86_64";
	env.cpuid = "GenuineIntel,6,143,8";
	env.nr_pmu_mappings = 0;
	n = pda_metrics_ratios(ev, 7, &env, r, PDA_RATIOS_MAX);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(r[0].key, "branch_miss_rate");
}
END_TEST

Suite *counters_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("stat");

	tcase_add_loop_test(tc, test_aggr_numbering, 0,
			    (int)(sizeof(modes) / sizeof(modes[0])));
	tcase_add_test(tc, test_totals);
	tcase_add_test(tc, test_nomem);
	tcase_add_test(tc, test_sampled_aggr);
	tcase_add_loop_test(tc, test_sampled_nomem, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("metrics");
	tcase_add_test(tc, test_metric_identity);
	tcase_add_test(tc, test_metric_ratios);
	tcase_add_test(tc, test_metric_slots);
	tcase_add_test(tc, test_metric_thresholds);
	tcase_add_test(tc, test_cpu_model);
	suite_add_tcase(s, tc);
	return s;
}
