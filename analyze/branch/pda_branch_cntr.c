/*
 * pda_branch_cntr.c - Intel's branch counters (PERF_SAMPLE_BRANCH_COUNTERS,
 * perf >= 6.8's `-j any,counter`): each branch-stack entry of a sample
 * carries a u64 telling, for every event of the sample's group that asked
 * for them, how often it occurred in the entry's basic block, `width`
 * bits per event in the group's order.  The events' columns and the
 * rendering are perf 7.x's (util/evlist.c evlist__update_br_cntr(),
 * util/annotate.c symbol__account_br_cntr(), annotation_br_cntr_entry()).
 */
#include "pda_branch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* the capability that says how many bits a counter takes, in the core
 * PMU's caps (CPU_PMU_CAPS) or, on hybrid hosts, a PMU's (PMU_CAPS) */
static unsigned cntr_width(const struct pd_env *env)
{
	const char *v = NULL;

	for (uint32_t i = 0; i < env->nr_cpu_pmu_caps && !v; i++)
		if (!strcmp(env->cpu_pmu_caps[i].name, "branch_counter_width"))
			v = env->cpu_pmu_caps[i].value;
	for (uint32_t p = 0; p < env->nr_pmu_caps && !v; p++)
		for (uint32_t i = 0; i < env->pmu_caps[p].nr_caps && !v; i++)
			if (!strcmp(env->pmu_caps[p].caps[i].name,
				    "branch_counter_width"))
				v = env->pmu_caps[p].caps[i].value;
	if (!v)
		return 0;
	return (unsigned)strtoul(v, NULL, 10);
}

/* The leader of event idx: its group's (GROUP_DESC), else itself. */
static unsigned leader_of(const struct pd_env *env, unsigned idx)
{
	for (uint32_t g = 0; g < env->nr_groups; g++) {
		const struct pd_env_group *gr = &env->groups[g];

		if (idx >= gr->leader_idx &&
		    idx - gr->leader_idx < gr->nr_members)
			return gr->leader_idx;
	}
	return idx;
}

int pda_brcntr_init(struct pd_file *f, struct pda_brcntr *c)
{
	const struct pd_env *env;
	const size_t nr = pd_file_nr_evsels(f);
	int rc;

	memset(c, 0, sizeof(*c));
	rc = pd_file_env(f, &env);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *ev = pd_file_evsel(f, i);

		if (!(ev->attr.branch_sample_type & PD_BRANCH_SAMPLE_COUNTERS))
			continue;
		if (c->nr == PDA_BR_CNTR_MAX)
			break;
		c->evsel[c->nr] = ev->idx;
		c->leader[c->nr] = leader_of(env, ev->idx);
		c->names[c->nr] = ev->name;
		c->nr++;
	}
	c->width = cntr_width(env);
	/* without the width the values cannot be split: none shown */
	if (!c->width || c->width > 16)
		c->nr = 0;
	return 0;
}

unsigned pda_brcntr_split(const struct pda_brcntr *c,
			  const struct pd_evsel *ev, const struct pd_env *env,
			  uint64_t value, uint64_t counts[PDA_BR_CNTR_MAX])
{
	const uint64_t mask = (1ull << c->width) - 1;
	unsigned leader, k = 0, cols = 0;

	memset(counts, 0, PDA_BR_CNTR_MAX * sizeof(*counts));
	if (!c->nr || !ev)
		return 0;
	leader = env ? leader_of(env, ev->idx) : ev->idx;
	/* the group's events, in its order, take the value's fields */
	for (unsigned i = 0; i < c->nr; i++) {
		if (c->leader[i] != leader)
			continue;
		if (k * c->width >= 64)
			break;
		counts[i] = (value >> (k * c->width)) & mask;
		cols |= 1u << i;
		k++;
	}
	return cols;
}

void pda_brcntr_add(const struct pda_brcntr *c, const uint64_t counts[],
		    unsigned cols, uint64_t *sums)
{
	const uint64_t mask = (1ull << c->width) - 1;

	for (unsigned i = 0; i < c->nr; i++) {
		if (!(cols & (1u << i)) || !counts[i])
			continue;
		sums[i] += counts[i];
		if (counts[i] == mask)
			sums[i] |= PDA_BR_CNTR_SATURATED;
	}
}

/* A counter's average over n, rounded up as perf rounds it. */
static uint64_t cntr_avg(uint64_t sum, uint64_t n)
{
	sum &= ~PDA_BR_CNTR_SATURATED;
	return n ? (sum + n - 1) / n : 0;
}

/*
 * perf -v's cell (annotation_br_cntr_entry() when verbose): "A=2+,B=- ".
 * Its "+" is the column's own saturation, as perf's is in this form.
 */
static char *exact_entry(const struct pda_brcntr *c, const uint64_t *sums,
			 uint64_t n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < c->nr && len < size; i++) {
		const bool sat = (sums[i] & PDA_BR_CNTR_SATURATED) != 0;
		char avg[24] = "-";
		int w;

		if (sums[i] & ~PDA_BR_CNTR_SATURATED)
			snprintf(avg, sizeof(avg), "%" PRIu64,
				 cntr_avg(sums[i], n));
		w = snprintf(buf + len, size - len, "%s%c=%s%c",
			     i ? "," : "", 'A' + i, avg, sat ? '+' : ' ');
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

int pda_brcntr_cell_width(const struct pda_brcntr *c)
{
	unsigned digits = 1;

	if (!c->exact)
		return 5 * (int)c->nr + 1;
	/* an average is at most a field's largest value */
	for (uint64_t v = ((1ull << c->width) - 1) / 10; v; v /= 10)
		digits++;
	return c->nr ? (int)(c->nr * (digits + 4) - 1) : 0;
}

char *pda_brcntr_entry(const struct pda_brcntr *c, const uint64_t *sums,
		       uint64_t n, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return buf;
	if (c->exact)
		return exact_entry(c, sums, n, buf, size);
	buf[0] = 0;
	for (unsigned i = 0; i < c->nr && len + 8 < size; i++) {
		const uint64_t avg = cntr_avg(sums[i], n);
		/* perf's abbreviations: A, B, ... in the events' order */
		const char abbr = (char)('A' + i);
		bool sat = (sums[i] & PDA_BR_CNTR_SATURATED) != 0;
		unsigned used = 0;

		buf[len++] = '|';
		if (!(sums[i] & ~PDA_BR_CNTR_SATURATED)) {
			buf[len++] = '-';
			used = 1;
		} else {
			for (uint64_t j = 0; j < avg; j++) {
				if (j >= PDA_BR_CNTR_SHOWN) {
					sat = true;
					break;
				}
				buf[len++] = abbr;
				used++;
			}
			if (sat) {
				buf[len++] = '+';
				used++;
			}
		}
		for (; used < PDA_BR_CNTR_SHOWN + 1; used++)
			buf[len++] = ' ';
	}
	if (c->nr && len + 1 < size)
		buf[len++] = '|';
	buf[len] = 0;
	return buf;
}

int pda_brcntr_legend(const struct pda_brcntr *c, FILE *out, const char *pfx)
{
	fprintf(out, "%s Branch counter abbr list:\n", pfx);
	for (unsigned i = 0; i < c->nr; i++)
		fprintf(out, "%s %s = %c\n", pfx, c->names[i], 'A' + i);
	fprintf(out, "%s '-' No event occurs\n", pfx);
	fprintf(out, "%s '+' Event occurrences may be lost due to branch "
		     "counter saturated\n", pfx);
	return ferror(out) ? PD_ERR_IO : 0;
}
