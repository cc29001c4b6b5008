/*
 * pda_metrics.c - derived metrics from a capture's counts (pda_metrics.h).
 *
 * The events are told apart by what they count, not by what they are
 * called: the PMU of attr.type (the capture's PMU_MAPPINGS name, the
 * recording host's architecture and CPUID vendor) and the config, in the
 * numbering of that PMU:
 * - the architectural Arm PMUv3 event numbers (Arm ARM D17.10, and the
 *   Neoverse TRMs for the IMPLEMENTATION DEFINED 0x4xxx ones), on an
 *   armv8_* PMU or as raw events (type 4) of an aarch64 host;
 * - Intel's slots and topdown metric pseudo-events (event 0x00, umask
 *   0x04 and 0x80..0x87) on the x86 core PMU of a GenuineIntel host;
 * - AMD Zen 4's PipelineL1 events (event bits 7:0 with 11:8 at 35:32,
 *   umask 15:8) on the core PMU of an AuthenticAMD host;
 * - the generic cycles and instructions (type 0) everywhere.
 * Where a capture counts one thing twice (generic cycles and cpu_cycles),
 * the PMU's own event is taken.
 *
 * The formulas are those of the Arm Neoverse telemetry guides and of
 * perf's pmu-events metrics (arm64 sbsa.json and neoverse-n2-v2, x86
 * TopdownL1/L2, amdzen4 pipeline.json); the slot-based ones use the slots
 * per cycle of the capture, not of the host that reads it.
 */
#include "pd_config.h"
#include "pda_metrics.h"
#include "pda_stat.h"

#include "pdc_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_HARDWARE 0u
#define T_HW_CACHE 3u
#define T_RAW 4u	/* also the x86 core PMU ("cpu") */
#define X86_CONFIG_MASK 0xfffffffffull /* event, umask, bits, event hi */

/* What an event counts. */
enum cnt {
	C_CYCLES,
	C_INST,
	C_STALL_FE,
	C_STALL_BE,
	C_STALL_BE_MEM,
	C_BR_RETIRED,
	C_BR_MIS_RETIRED,
	C_BR_PRED,
	C_BR_MIS_PRED,
	C_L1D,
	C_L1D_REFILL,
	C_L1D_LMISS_RD,
	C_L2D,
	C_L2D_REFILL,
	C_L2D_LMISS_RD,
	C_MEM_ACCESS,
	C_DTLB_WALK,
	C_ITLB_WALK,
	C_L1I,
	C_STALL_SLOT_FE,
	C_STALL_SLOT_BE,
	C_STALL_SLOT,
	C_OP_RETIRED,
	C_OP_SPEC,
	C_TD_SLOTS,
	C_TD_RETIRING,
	C_TD_BAD_SPEC,
	C_TD_FE_BOUND,
	C_TD_BE_BOUND,
	C_TD_HEAVY_OPS,
	C_TD_BR_MISPREDICT,
	C_TD_FETCH_LAT,
	C_TD_MEM_BOUND,
	C_AMD_OPS_DISPATCHED,
	C_AMD_RET_OPS,
	C_AMD_NO_OPS_FE,
	C_AMD_BE_STALLS,
	C_AMD_SMT,
	/* per-row ratios only (pda_metrics_ratios) */
	C_L1I_REFILL,
	C_LL_RD,
	C_LL_MISS_RD,
	C_HW_CACHE_REFS,
	C_HW_CACHE_MISSES,
	C_HW_BRANCHES,
	C_HW_BRANCH_MISSES,
	C_HWC_L1D_LOADS,
	C_HWC_L1D_MISSES,
	C_HWC_LLC_LOADS,
	C_HWC_LLC_MISSES,
	C_MAX,
};

struct code {
	uint64_t config;
	enum cnt c;
};

/* Arm PMUv3 event numbers */
static const struct code arm_codes[] = {
	{0x01, C_L1I_REFILL},	 {0x36, C_LL_RD},	 {0x37, C_LL_MISS_RD},
	{0x03, C_L1D_REFILL},	 {0x04, C_L1D},		 {0x08, C_INST},
	{0x10, C_BR_MIS_PRED},	 {0x11, C_CYCLES},	 {0x12, C_BR_PRED},
	{0x13, C_MEM_ACCESS},	 {0x14, C_L1I},		 {0x16, C_L2D},
	{0x17, C_L2D_REFILL},	 {0x21, C_BR_RETIRED},	 {0x22, C_BR_MIS_RETIRED},
	{0x23, C_STALL_FE},	 {0x24, C_STALL_BE},	 {0x34, C_DTLB_WALK},
	{0x35, C_ITLB_WALK},	 {0x39, C_L1D_LMISS_RD}, {0x3a, C_OP_RETIRED},
	{0x3b, C_OP_SPEC},	 {0x3d, C_STALL_SLOT_BE}, {0x3e, C_STALL_SLOT_FE},
	{0x3f, C_STALL_SLOT},	 {0x4005, C_STALL_BE_MEM},
	{0x4009, C_L2D_LMISS_RD},
};

/* Intel core PMU: slots and the topdown metric pseudo-events */
static const struct code intel_codes[] = {
	{0x0400, C_TD_SLOTS},	     {0x8000, C_TD_RETIRING},
	{0x8100, C_TD_BAD_SPEC},     {0x8200, C_TD_FE_BOUND},
	{0x8300, C_TD_BE_BOUND},     {0x8400, C_TD_HEAVY_OPS},
	{0x8500, C_TD_BR_MISPREDICT}, {0x8600, C_TD_FETCH_LAT},
	{0x8700, C_TD_MEM_BOUND},
};

/* AMD Zen 4 core PMU: ls_not_halted_cyc, ex_ret_ops, de_src_op_disp.all,
 * de_no_dispatch_per_slot.{no_ops_from_frontend,backend_stalls,
 * smt_contention} */
static const struct code amd_codes[] = {
	{0x76, C_CYCLES},		 {0xc1, C_AMD_RET_OPS},
	{0x07aa, C_AMD_OPS_DISPATCHED}, {0x1000001a0, C_AMD_NO_OPS_FE},
	{0x100001ea0, C_AMD_BE_STALLS}, {0x1000060a0, C_AMD_SMT},
};

/* The generic hardware events (type 0: cycles, instructions,
 * cache-references, cache-misses, branches, branch-misses) and the
 * generic cache events (type 3: id | op << 8 | result << 16) of L1d and
 * LLC reads, which every PMU driver maps to its own */
static const struct code generic_codes[] = {
	{0, C_CYCLES},	      {1, C_INST},	     {2, C_HW_CACHE_REFS},
	{3, C_HW_CACHE_MISSES}, {4, C_HW_BRANCHES}, {5, C_HW_BRANCH_MISSES},
};

static const struct code cache_codes[] = {
	{0x00000, C_HWC_L1D_LOADS}, {0x10000, C_HWC_L1D_MISSES},
	{0x00002, C_HWC_LLC_LOADS}, {0x10002, C_HWC_LLC_MISSES},
};

enum pmu {
	PMU_OTHER,
	PMU_ARM,
	PMU_INTEL,
	PMU_AMD,
};

struct host {
	bool aarch64;
	enum pmu x86;	     /* PMU_INTEL, PMU_AMD, or PMU_OTHER */
	unsigned family;     /* x86 family from CPUID */
	uint64_t midr;	     /* aarch64 MIDR from CPUID; 0 unknown */
};

static struct host host_of(const struct pd_env *env)
{
	struct host h = {false, PMU_OTHER, 0, 0};
	const char *id = env ? env->cpuid : NULL;

	if (env && env->arch && strcmp(env->arch, "aarch64") == 0)
		h.aarch64 = true;
	if (!id)
		return h;
	if (strncmp(id, "GenuineIntel,", 13) == 0)
		h.x86 = PMU_INTEL;
	else if (strncmp(id, "AuthenticAMD,", 13) == 0 ||
		 strncmp(id, "HygonGenuine,", 13) == 0)
		h.x86 = PMU_AMD;
	if (h.x86 != PMU_OTHER)
		h.family = (unsigned)strtoul(id + 13, NULL, 10);
	else if (h.aarch64 && strncmp(id, "0x", 2) == 0)
		h.midr = strtoull(id, NULL, 16);
	return h;
}

/* The capture's name of PMU type, or NULL. */
static const char *pmu_name(const struct pd_env *env, uint32_t type)
{
	for (uint32_t i = 0; env && i < env->nr_pmu_mappings; i++)
		if (env->pmu_mappings[i].type == type)
			return env->pmu_mappings[i].name;
	return NULL;
}

static enum pmu pmu_of(const struct pd_env *env, const struct host *h,
		       uint32_t type)
{
	const char *name = pmu_name(env, type);

	/* armv8_pmuv3_0 (ACPI), armv8_cortex_a76, armv8_neoverse_n1 (DT) */
	if (name && strncmp(name, "armv8_", 6) == 0)
		return PMU_ARM;
	if (type == T_RAW && h->aarch64)
		return PMU_ARM;
	if (type == T_RAW && (!name || strcmp(name, "cpu") == 0))
		return h->x86;
	return PMU_OTHER;
}

static int lookup(const struct code *t, size_t n, uint64_t config)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].config == config)
			return (int)t[i].c;
	return -1;
}

#define LOOKUP(t, config) lookup((t), sizeof(t) / sizeof((t)[0]), (config))

/* What the event counts, or -1; *specific when told by its own PMU. */
static int counter_of(const struct pd_env *env, const struct host *h,
		      const struct pd_attr *a, bool *specific)
{
	*specific = true;
	switch (pmu_of(env, h, a->type)) {
	case PMU_ARM:
		return LOOKUP(arm_codes, a->config & 0xffff);
	case PMU_INTEL:
		return LOOKUP(intel_codes, a->config & X86_CONFIG_MASK);
	case PMU_AMD:
		return LOOKUP(amd_codes, a->config & X86_CONFIG_MASK);
	case PMU_OTHER:
		break;
	}
	*specific = false;
	if (a->type == T_HARDWARE)
		return LOOKUP(generic_codes, a->config & 0xffffffffu);
	if (a->type == T_HW_CACHE)
		return LOOKUP(cache_codes, a->config & 0xffffffu);
	return -1;
}

/* ---- thresholds ------------------------------------------------------- */

/*
 * THE threshold table (issue 16; pdtool-stat(1) METRICS): a metric is
 * healthy beyond `healthy`, to be investigated beyond `investigate`,
 * borderline between.  Topdown's are one-sided (NAN healthy: below the
 * bound is healthy); retiring above its bound is "near peak".
 */
static const struct pda_metric_threshold thresholds[] = {
	{"ipc", true, 2.0, 1.0},
	{"frontend_bound", false, 0.10, 0.20},
	{"backend_bound", false, 0.30, 0.40},
	{"backend_memory", false, 0.15, 0.25},
	{"branch_mispredict_rate", false, 0.01, 0.03},
	{"speculative_mispredict_rate", false, 0.01, 0.03},
	{"l1d_miss_rate", false, 0.05, 0.10},
	{"l1d_to_l2_rate", false, 0.30, 0.50},
	{"l2_miss_rate", false, 0.10, 0.20},
	{"l2_to_llc_rate", false, 0.20, 0.40},
	{"dtlb_walk_rate", false, 0.005, 0.02},
	{"itlb_walk_rate", false, 0.001, 0.01},
	{"td_retiring", true, 0.80, NAN},
	{"td_bad_speculation", false, NAN, 0.15},
	{"td_frontend_bound", false, NAN, 0.20},
	{"td_backend_bound", false, NAN, 0.40},
};

const struct pda_metric_threshold *pda_metric_thresholds(size_t *nr)
{
	*nr = sizeof(thresholds) / sizeof(thresholds[0]);
	return thresholds;
}

const char *pda_assess_name(enum pda_assess a)
{
	switch (a) {
	case PDA_ASSESS_HEALTHY:
		return "healthy";
	case PDA_ASSESS_BORDERLINE:
		return "borderline";
	case PDA_ASSESS_INVESTIGATE:
		return "investigate";
	case PDA_ASSESS_NEAR_PEAK:
		return "near peak";
	case PDA_ASSESS_NONE:
		break;
	}
	return "";
}

static const struct pda_metric_threshold *threshold_of(const char *key)
{
	for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
		if (strcmp(thresholds[i].key, key) == 0)
			return &thresholds[i];
	return NULL;
}

static enum pda_assess assess(const struct pda_metric_threshold *t, double v)
{
	double sign;

	if (!t || isnan(v))
		return PDA_ASSESS_NONE;
	/* compare "goodness": higher is better after the sign */
	sign = t->higher_is_better ? 1.0 : -1.0;
	if (isnan(t->investigate))
		return v * sign > t->healthy * sign ? PDA_ASSESS_NEAR_PEAK
						     : PDA_ASSESS_NONE;
	if (v * sign < t->investigate * sign)
		return PDA_ASSESS_INVESTIGATE;
	if (isnan(t->healthy) || v * sign > t->healthy * sign)
		return PDA_ASSESS_HEALTHY;
	return PDA_ASSESS_BORDERLINE;
}

/* ---- the metrics ------------------------------------------------------- */

struct ctx {
	const struct pda_metrics_event *ev;
	int idx[C_MAX];		/* event of each counter, or -1 */
	double slots;		/* slots per cycle */
	bool n2_erratum;	/* N2 before r0p3: STALL_SLOT{,_FRONTEND}
				 * count a slot more each cycle */
	struct pda_metrics *out;
};

static double cv(const struct ctx *x, enum cnt c)
{
	return x->ev[x->idx[c]].count;
}

static bool have(const struct ctx *x, const enum cnt *need, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (x->idx[need[i]] < 0)
			return false;
	return true;
}

static double ratio(double a, double b)
{
	return b != 0 ? a / b : NAN;
}

/* Add a metric computed from counters ops (and the slots when slots). */
static void add(struct ctx *x, const char *key, const char *label,
		const char *group, const char *formula, bool percent,
		double value, const enum cnt *ops, size_t nr_ops, bool slots)
{
	struct pda_metrics *m = x->out;
	struct pda_metric_val *v;

	if (m->nr == PDA_METRICS_MAX || isnan(value))
		return;
	v = &m->v[m->nr++];
	memset(v, 0, sizeof(*v));
	v->key = key;
	v->label = label;
	v->group = group;
	v->formula = formula;
	v->percent = percent;
	v->value = value;
	v->threshold = threshold_of(key);
	v->assess = assess(v->threshold, value);
	for (size_t i = 0; i < nr_ops && v->nr_ops < PDA_METRIC_MAX_OPS; i++) {
		v->op_name[v->nr_ops] = x->ev[x->idx[ops[i]]].name;
		v->op_value[v->nr_ops++] = cv(x, ops[i]);
	}
	if (slots && v->nr_ops < PDA_METRIC_MAX_OPS) {
		v->op_name[v->nr_ops] = "slots/cycle";
		v->op_value[v->nr_ops++] = x->slots;
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* a metric that is one counter over another */
struct ratio_def {
	const char *key, *label, *formula;
	enum cnt num, den;
	bool percent;
};

static const struct ratio_def arm_ratios[] = {
	{"frontend_bound", "Frontend bound", "stall_frontend / cpu_cycles",
	 C_STALL_FE, C_CYCLES, true},
	{"backend_bound", "Backend bound", "stall_backend / cpu_cycles",
	 C_STALL_BE, C_CYCLES, true},
	{"backend_memory", "Backend memory bound",
	 "stall_backend_mem / cpu_cycles", C_STALL_BE_MEM, C_CYCLES, true},
	{"branch_mispredict_rate", "Branch mispredict rate",
	 "br_mis_pred_retired / br_retired", C_BR_MIS_RETIRED, C_BR_RETIRED,
	 true},
	{"speculative_mispredict_rate", "Speculative mispredict rate",
	 "br_mis_pred / br_pred", C_BR_MIS_PRED, C_BR_PRED, true},
	{"branch_density", "Branch density", "br_retired / inst_retired",
	 C_BR_RETIRED, C_INST, true},
	{"l1d_miss_rate", "L1d miss rate", "l1d_cache_refill / l1d_cache",
	 C_L1D_REFILL, C_L1D, true},
	{"l1d_to_l2_rate", "L1d misses to L2",
	 "l1d_cache_lmiss_rd / l1d_cache_refill", C_L1D_LMISS_RD, C_L1D_REFILL,
	 true},
	{"l2_miss_rate", "L2 miss rate", "l2d_cache_refill / l2d_cache",
	 C_L2D_REFILL, C_L2D, true},
	{"l2_to_llc_rate", "L2 misses to LLC/DRAM",
	 "l2d_cache_lmiss_rd / l2d_cache_refill", C_L2D_LMISS_RD,
	 C_L2D_REFILL, true},
	{"dtlb_walk_rate", "dTLB walk rate", "dtlb_walk / mem_access",
	 C_DTLB_WALK, C_MEM_ACCESS, true},
	{"itlb_walk_rate", "iTLB walk rate", "itlb_walk / l1i_cache",
	 C_ITLB_WALK, C_L1I, true},
};

static void add_ratio(struct ctx *x, const char *group,
		      const struct ratio_def *d)
{
	enum cnt ops[2] = {d->num, d->den};

	if (!have(x, ops, 2))
		return;
	add(x, d->key, d->label, group, d->formula, d->percent,
	    ratio(cv(x, d->num), cv(x, d->den)), ops, 2, false);
}

static void core_metrics(struct ctx *x)
{
	static const enum cnt ops[] = {C_INST, C_CYCLES};

	if (have(x, ops, N(ops)))
		add(x, "ipc", "IPC", "Core", "instructions / cycles", false,
		    ratio(cv(x, C_INST), cv(x, C_CYCLES)), ops, N(ops), false);
}

static void arm_cycle_metrics(struct ctx *x)
{
	for (size_t i = 0; i < N(arm_ratios); i++)
		add_ratio(x, "Arm cycle-based", &arm_ratios[i]);
}

/* Neoverse N2/V2/V3 TopdownL1 (perf's neoverse-n2-v2 metrics, with the
 * N2 r0p0..r0p2 correction of STALL_SLOT and STALL_SLOT_FRONTEND) */
static void arm_topdown_metrics(struct ctx *x)
{
	static const enum cnt fe_ops[] = {C_STALL_SLOT_FE, C_CYCLES};
	static const enum cnt be_ops[] = {C_STALL_SLOT_BE, C_CYCLES};
	static const enum cnt op_ops[] = {C_OP_RETIRED, C_OP_SPEC,
					  C_STALL_SLOT, C_CYCLES};
	static const char *const g = "Arm TopdownL1";
	double slots_total, stall, fe;

	if (!have(x, fe_ops, N(fe_ops)) && !have(x, be_ops, N(be_ops)) &&
	    !have(x, op_ops, N(op_ops)))
		return;
	if (x->slots <= 0) {
		x->out->note = "Arm TopdownL1: the capture's PMU capabilities "
			       "give no slots per cycle (perf 6.2+ records "
			       "them)";
		return;
	}
	slots_total = x->slots * (x->idx[C_CYCLES] >= 0 ? cv(x, C_CYCLES) : 0);
	if (have(x, fe_ops, N(fe_ops))) {
		fe = cv(x, C_STALL_SLOT_FE);
		if (x->n2_erratum)
			fe -= cv(x, C_CYCLES);
		add(x, "td_frontend_bound", "Frontend bound", g,
		    x->n2_erratum
			    ? "(stall_slot_frontend - cpu_cycles) / (slots * "
			      "cpu_cycles)"
			    : "stall_slot_frontend / (slots * cpu_cycles)",
		    true, ratio(fe, slots_total), fe_ops, N(fe_ops), true);
	}
	if (have(x, be_ops, N(be_ops)))
		add(x, "td_backend_bound", "Backend bound", g,
		    "stall_slot_backend / (slots * cpu_cycles)", true,
		    ratio(cv(x, C_STALL_SLOT_BE), slots_total), be_ops,
		    N(be_ops), true);
	if (have(x, op_ops, N(op_ops))) {
		double busy, ret;

		stall = cv(x, C_STALL_SLOT);
		if (x->n2_erratum)
			stall -= cv(x, C_CYCLES);
		busy = 1.0 - ratio(stall, slots_total);
		ret = ratio(cv(x, C_OP_RETIRED), cv(x, C_OP_SPEC));
		add(x, "td_retiring", "Retiring", g,
		    x->n2_erratum ? "op_retired / op_spec * (1 - (stall_slot - "
				    "cpu_cycles) / (slots * cpu_cycles))"
				  : "op_retired / op_spec * (1 - stall_slot / "
				    "(slots * cpu_cycles))",
		    true, ret * busy, op_ops, N(op_ops), true);
		add(x, "td_bad_speculation", "Bad speculation", g,
		    x->n2_erratum
			    ? "(1 - op_retired / op_spec) * (1 - (stall_slot - "
			      "cpu_cycles) / (slots * cpu_cycles))"
			    : "(1 - op_retired / op_spec) * (1 - stall_slot / "
			      "(slots * cpu_cycles))",
		    true, (1.0 - ret) * busy, op_ops, N(op_ops), true);
	}
}

/* Intel TopdownL1 and L2: each metric event over the sum of level 1 */
static void intel_topdown_metrics(struct ctx *x)
{
	static const enum cnt l1[] = {C_TD_RETIRING, C_TD_BAD_SPEC,
				      C_TD_FE_BOUND, C_TD_BE_BOUND};
	static const struct {
		const char *key, *label, *formula;
		enum cnt c;
	} d1[] = {
		{"td_retiring", "Retiring", "topdown-retiring / sum",
		 C_TD_RETIRING},
		{"td_bad_speculation", "Bad speculation",
		 "topdown-bad-spec / sum", C_TD_BAD_SPEC},
		{"td_frontend_bound", "Frontend bound", "topdown-fe-bound / sum",
		 C_TD_FE_BOUND},
		{"td_backend_bound", "Backend bound", "topdown-be-bound / sum",
		 C_TD_BE_BOUND},
	};
	/* level 2: a part of a level-1 metric, and the rest of it */
	static const struct {
		enum cnt part, whole;
		const char *key, *label, *formula;
		const char *rest_key, *rest_label, *rest_formula;
	} d2[] = {
		{C_TD_HEAVY_OPS, C_TD_RETIRING, "td_heavy_operations",
		 "Heavy operations", "topdown-heavy-ops / sum",
		 "td_light_operations", "Light operations",
		 "(topdown-retiring - topdown-heavy-ops) / sum"},
		{C_TD_BR_MISPREDICT, C_TD_BAD_SPEC, "td_branch_mispredicts",
		 "Branch mispredicts", "topdown-br-mispredict / sum",
		 "td_machine_clears", "Machine clears",
		 "(topdown-bad-spec - topdown-br-mispredict) / sum"},
		{C_TD_FETCH_LAT, C_TD_FE_BOUND, "td_fetch_latency",
		 "Fetch latency", "topdown-fetch-lat / sum",
		 "td_fetch_bandwidth", "Fetch bandwidth",
		 "(topdown-fe-bound - topdown-fetch-lat) / sum"},
		{C_TD_MEM_BOUND, C_TD_BE_BOUND, "td_memory_bound",
		 "Memory bound", "topdown-mem-bound / sum", "td_core_bound",
		 "Core bound", "(topdown-be-bound - topdown-mem-bound) / sum"},
	};
	double sum = 0;

	if (!have(x, l1, N(l1)))
		return;
	for (size_t i = 0; i < N(l1); i++)
		sum += cv(x, l1[i]);
	for (size_t i = 0; i < N(d1); i++)
		add(x, d1[i].key, d1[i].label, "Intel TopdownL1", d1[i].formula,
		    true, ratio(cv(x, d1[i].c), sum), l1, N(l1), false);
	for (size_t i = 0; i < N(d2); i++) {
		enum cnt ops[5] = {d2[i].part, l1[0], l1[1], l1[2], l1[3]};
		double part, rest;

		if (x->idx[d2[i].part] < 0)
			continue;
		part = ratio(cv(x, d2[i].part), sum);
		/* the kernel's metrics are rounded to 1/255 of the slots
		 * each: the rest never goes below 0 */
		rest = fmax(0.0, ratio(cv(x, d2[i].whole), sum) - part);
		add(x, d2[i].key, d2[i].label, "Intel TopdownL2",
		    d2[i].formula, true, part, ops, N(ops), false);
		add(x, d2[i].rest_key, d2[i].rest_label, "Intel TopdownL2",
		    d2[i].rest_formula, true, rest, ops, N(ops), false);
	}
}

/* AMD Zen 4/5 PipelineL1 (perf's amdzen4 pipeline.json): dispatch slots
 * are the dispatch width times ls_not_halted_cyc */
static void amd_pipeline_metrics(struct ctx *x)
{
	/* a counter over the dispatch slots */
	static const struct {
		const char *key, *label, *formula;
		enum cnt c;
	} d[] = {
		{"td_frontend_bound", "Frontend bound",
		 "de_no_dispatch_per_slot.no_ops_from_frontend / (slots * "
		 "ls_not_halted_cyc)",
		 C_AMD_NO_OPS_FE},
		{"td_backend_bound", "Backend bound",
		 "de_no_dispatch_per_slot.backend_stalls / (slots * "
		 "ls_not_halted_cyc)",
		 C_AMD_BE_STALLS},
		{"td_smt_contention", "SMT contention",
		 "de_no_dispatch_per_slot.smt_contention / (slots * "
		 "ls_not_halted_cyc)",
		 C_AMD_SMT},
		{"td_retiring", "Retiring",
		 "ex_ret_ops / (slots * ls_not_halted_cyc)", C_AMD_RET_OPS},
	};
	static const enum cnt bs_ops[] = {C_AMD_OPS_DISPATCHED, C_AMD_RET_OPS,
					  C_CYCLES};
	static const char *const g = "AMD PipelineL1";
	double slots_total;

	if (x->idx[C_AMD_NO_OPS_FE] < 0 && x->idx[C_AMD_BE_STALLS] < 0 &&
	    x->idx[C_AMD_RET_OPS] < 0)
		return;
	if (x->slots <= 0) {
		x->out->note = "AMD PipelineL1: no dispatch width known for "
			       "the recording CPU's family";
		return;
	}
	if (x->idx[C_CYCLES] < 0)
		return;
	slots_total = x->slots * cv(x, C_CYCLES);
	for (size_t i = 0; i < N(d); i++) {
		enum cnt ops[2] = {d[i].c, C_CYCLES};

		if (have(x, ops, 2))
			add(x, d[i].key, d[i].label, g, d[i].formula, true,
			    ratio(cv(x, d[i].c), slots_total), ops, 2, true);
	}
	if (have(x, bs_ops, N(bs_ops)))
		add(x, "td_bad_speculation", "Bad speculation", g,
		    "(de_src_op_disp.all - ex_ret_ops) / (slots * "
		    "ls_not_halted_cyc)",
		    true,
		    ratio(cv(x, C_AMD_OPS_DISPATCHED) - cv(x, C_AMD_RET_OPS),
			  slots_total),
		    bs_ops, N(bs_ops), true);
}

/* The Arm PMU's slots per cycle from the capture's PMU capabilities
 * (PMU_CAPS, or CPU_PMU_CAPS of perf versions that put the core PMU's
 * there); 0 when it holds none. */
static double arm_slots(const struct pd_env *env, const char *pmu)
{
	for (uint32_t i = 0; env && i < env->nr_pmu_caps; i++) {
		const struct pd_env_pmu_caps *p = &env->pmu_caps[i];

		if (pmu && p->pmu_name && strcmp(p->pmu_name, pmu) != 0)
			continue;
		for (uint32_t k = 0; k < p->nr_caps; k++)
			if (strcmp(p->caps[k].name, "slots") == 0)
				return (double)strtoull(p->caps[k].value, NULL,
							0);
	}
	for (uint32_t k = 0; env && k < env->nr_cpu_pmu_caps; k++)
		if (strcmp(env->cpu_pmu_caps[k].name, "slots") == 0)
			return (double)strtoull(env->cpu_pmu_caps[k].value,
						NULL, 0);
	return 0.0;
}

/* The event of each counter in idx (-1: none): the first of each, a
 * PMU's own event over a generic one; *arm_pmu the Arm PMU's name when
 * an event is on one. */
static void index_counters(const struct pda_metrics_event *events, size_t nr,
			   const struct pd_env *env, const struct host *h,
			   int idx[C_MAX], const char **arm_pmu)
{
	bool specific[C_MAX];

	for (size_t c = 0; c < C_MAX; c++) {
		idx[c] = -1;
		specific[c] = false;
	}
	for (size_t i = 0; i < nr; i++) {
		bool spec;
		int c;

		if (!events[i].counted || !events[i].attr)
			continue;
		c = counter_of(env, h, events[i].attr, &spec);
		if (c < 0)
			continue;
		if (idx[c] < 0 || (spec && !specific[c])) {
			idx[c] = (int)i;
			specific[c] = spec;
		}
		if (spec && pmu_of(env, h, events[i].attr->type) == PMU_ARM)
			*arm_pmu = pmu_name(env, events[i].attr->type);
	}
}

void pda_metrics_compute(const struct pda_metrics_event *events, size_t nr,
			 const struct pd_env *env, struct pda_metrics *out)
{
	struct host h = host_of(env);
	struct ctx x;
	const char *arm_pmu = NULL;

	memset(out, 0, sizeof(*out));
	memset(&x, 0, sizeof(x));
	x.ev = events;
	x.out = out;
	index_counters(events, nr, env, &h, x.idx, &arm_pmu);
	if (h.aarch64) {
		x.slots = arm_slots(env, arm_pmu);
		out->slots_from = "the PMU's slots capability";
		/* Neoverse N2 (part 0xd49) before r0p3 */
		x.n2_erratum = ((h.midr >> 24) & 0xff) == 0x41 &&
			       ((h.midr >> 4) & 0xfff) == 0xd49 &&
			       ((h.midr >> 20) & 0xf) == 0 && (h.midr & 0xf) < 3;
	} else if (h.x86 == PMU_AMD) {
		/* Zen 4 (family 0x19) dispatches 6 ops a cycle, Zen 5 (0x1a)
		 * 8 */
		x.slots = h.family == 0x19 ? 6 : h.family == 0x1a ? 8 : 0;
		out->slots_from = "the CPU family's dispatch width";
	}
	out->slots_per_cycle = x.slots;
	if (x.slots <= 0)
		out->slots_from = NULL;
	core_metrics(&x);
	arm_cycle_metrics(&x);
	arm_topdown_metrics(&x);
	intel_topdown_metrics(&x);
	amd_pipeline_metrics(&x);
	/* slots mattered only where a slot-based metric was computed */
	for (size_t i = 0; i < out->nr; i++)
		for (unsigned k = 0; k < out->v[i].nr_ops; k++)
			if (strcmp(out->v[i].op_name[k], "slots/cycle") == 0)
				return;
	out->slots_per_cycle = 0;
	out->slots_from = NULL;
}

/*
 * The metrics of rounds [from, to) of rep, of agg's aggregate (NULL:
 * every aggregate).  An event counts only where it has rows and every
 * one of them counted: a "<not counted>" spoils its sum, and an event
 * with no row in an aggregate did not count there (its metrics are left
 * out, not computed from 0).
 */
static int from_rounds(const struct pda_stat_report *rep, size_t from,
		       size_t to, const struct pda_stat_row *agg,
		       const struct pd_env *env, const struct pd_alloc *alloc,
		       struct pda_metrics *out)
{
	struct pda_metrics_event *ev;
	bool *spoilt;

	memset(out, 0, sizeof(*out));
	if (rep->nr_events == 0 || from >= to || to > rep->nr_rounds)
		return 0;
	ev = pdc_zalloc(alloc, rep->nr_events * sizeof(*ev));
	spoilt = pdc_zalloc(alloc, rep->nr_events * sizeof(*spoilt));
	if (!ev || !spoilt) {
		pdc_free(alloc, ev);
		pdc_free(alloc, spoilt);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < rep->nr_events; i++) {
		ev[i].name = rep->events[i].name;
		ev[i].attr = &rep->events[i].attr;
	}
	for (size_t k = from; k < to; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];

		for (size_t r = 0; r < rd->nr; r++) {
			const struct pda_stat_row *row =
				&rep->rows[rd->first + r];

			if (agg && !pda_stat_same_aggregate(row, agg))
				continue;
			ev[row->event].counted = true;
			spoilt[row->event] |= !row->counted;
			ev[row->event].count += row->uval;
		}
	}
	for (size_t i = 0; i < rep->nr_events; i++)
		ev[i].counted &= !spoilt[i];
	pda_metrics_compute(ev, rep->nr_events, env, out);
	/* the names point into rep, not into ev */
	pdc_free(alloc, ev);
	pdc_free(alloc, spoilt);
	return 0;
}

/* ---- per-row ratios ------------------------------------------------ */

/*
 * The pairs a row of a sampling capture divides: each a pair of events
 * sampled together (or in one :S group), whose periods in the row are
 * the counts of that row's code.  The generic events' pairs are kept
 * apart from the PMU's own (branch-misses / branches is not the
 * retired branches' ratio on every PMU).
 */
static const struct ratio_def row_ratios[] = {
	{"ipc", "IPC", "instructions / cycles", C_INST, C_CYCLES, false},
	{"branch_miss_rate", "Branch miss", "branch-misses / branches",
	 C_HW_BRANCH_MISSES, C_HW_BRANCHES, true},
	{"branch_mispredict_rate", "Br mispred",
	 "br_mis_pred_retired / br_retired", C_BR_MIS_RETIRED, C_BR_RETIRED,
	 true},
	{"speculative_mispredict_rate", "Spec mispred", "br_mis_pred / br_pred",
	 C_BR_MIS_PRED, C_BR_PRED, true},
	{"cache_miss_rate", "Cache miss", "cache-misses / cache-references",
	 C_HW_CACHE_MISSES, C_HW_CACHE_REFS, true},
	{"l1d_load_miss_rate", "L1d load miss",
	 "L1-dcache-load-misses / L1-dcache-loads", C_HWC_L1D_MISSES,
	 C_HWC_L1D_LOADS, true},
	{"l1d_miss_rate", "L1d miss", "l1d_cache_refill / l1d_cache",
	 C_L1D_REFILL, C_L1D, true},
	{"l1i_miss_rate", "L1i miss", "l1i_cache_refill / l1i_cache",
	 C_L1I_REFILL, C_L1I, true},
	{"l2_miss_rate", "L2 miss", "l2d_cache_refill / l2d_cache",
	 C_L2D_REFILL, C_L2D, true},
	{"llc_load_miss_rate", "LLC load miss", "LLC-load-misses / LLC-loads",
	 C_HWC_LLC_MISSES, C_HWC_LLC_LOADS, true},
	{"ll_read_miss_rate", "LL read miss", "ll_cache_miss_rd / ll_cache_rd",
	 C_LL_MISS_RD, C_LL_RD, true},
	{"dtlb_walk_rate", "dTLB walk", "dtlb_walk / mem_access", C_DTLB_WALK,
	 C_MEM_ACCESS, true},
	{"itlb_walk_rate", "iTLB walk", "itlb_walk / l1i_cache", C_ITLB_WALK,
	 C_L1I, true},
};

size_t pda_metrics_ratios(const struct pda_metrics_event *events, size_t nr,
			  const struct pd_env *env, struct pda_ratio *out,
			  size_t max)
{
	const struct host h = host_of(env);
	const char *arm_pmu = NULL;
	int idx[C_MAX];
	size_t n = 0;

	index_counters(events, nr, env, &h, idx, &arm_pmu);
	for (size_t i = 0; i < N(row_ratios) && n < max; i++) {
		const struct ratio_def *d = &row_ratios[i];

		if (idx[d->num] < 0 || idx[d->den] < 0)
			continue;
		out[n].key = d->key;
		out[n].label = d->label;
		out[n].formula = d->formula;
		out[n].percent = d->percent;
		out[n].num = (size_t)idx[d->num];
		out[n].den = (size_t)idx[d->den];
		n++;
	}
	return n;
}

int pda_metrics_from_stat(const struct pda_stat_report *rep,
			  const struct pd_env *env, bool cumulative,
			  const struct pd_alloc *alloc, struct pda_metrics *out)
{
	/* each interval counted what it gained: the run is their sum; a
	 * cumulative interval, or the final round, is the run already */
	size_t from = !rep->interval_ms || cumulative ? rep->nr_rounds - 1 : 0;

	return from_rounds(rep, rep->nr_rounds ? from : 0, rep->nr_rounds,
			   NULL, env, alloc, out);
}

int pda_metrics_from_stat_aggr(const struct pda_stat_report *rep,
			       size_t round, const struct pda_stat_row *agg,
			       const struct pd_env *env,
			       const struct pd_alloc *alloc,
			       struct pda_metrics *out)
{
	return from_rounds(rep, round, round + 1, agg, env, alloc, out);
}
