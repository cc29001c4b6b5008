/*
 * pda_readgroup.c - a sample that reads its counters split into its
 * values (a group's members, or a lone event's one), as perf 6.1's
 * deliver_sample_value: the period is the counter's count less its count
 * at the previous sample of the same counter (id), the first sample's
 * the count itself.  A counter belongs to one ring buffer, so
 * its samples come in its own time order in the file's order too.
 */
#include "pda_base_int.h"
#include "pda_readgroup.h"

#include <string.h>

#define MAX_COUNTERS (1u << 20)

struct pda_rg_count {
	uint64_t id, value;
};

bool pda_readgroup_is(const struct pd_sample *sample)
{
	return (sample->mask & PD_SAMPLE_READ) && sample->evsel &&
	       (sample->evsel->attr.read_format & PD_FORMAT_ID);
}

/* The slot of id, added at 0 when new; NULL on NOMEM. */
static struct pda_rg_count *slot(struct pda_readgroup *rg,
				 struct pda_session *s, uint64_t id)
{
	/* a group's members come one after another: try the next slot */
	for (size_t k = 0; k < 2 && rg->nr; k++) {
		size_t at = (rg->last + k) % rg->nr;

		if (rg->counts[at].id == id) {
			rg->last = at + 1;
			return &rg->counts[at];
		}
	}
	for (size_t i = 0; i < rg->nr; i++)
		if (rg->counts[i].id == id) {
			rg->last = i + 1;
			return &rg->counts[i];
		}
	if (PDA_GROW(s, rg->counts, rg->alloc, rg->nr + 1, MAX_COUNTERS) < 0)
		return NULL;
	rg->counts[rg->nr].id = id;
	rg->counts[rg->nr].value = 0;
	rg->last = rg->nr + 1;
	return &rg->counts[rg->nr++];
}

int pda_readgroup_member(struct pda_readgroup *rg, struct pda_session *s,
			 struct pd_file *f, const struct pd_sample *sample,
			 uint64_t i, struct pd_sample *out)
{
	struct pd_read_value v;
	struct pda_rg_count *c;
	const struct pd_evsel *ev;

	pd_sample_read_value(sample, i, &v);
	ev = pd_file_evsel_by_id(f, v.id);
	if (!ev) /* perf keeps no count for it either */
		return PDA_READGROUP_UNKNOWN;
	c = slot(rg, s, v.id);
	if (!c)
		return PD_ERR_NOMEM;
	*out = *sample;
	out->id = v.id;
	out->period = v.value - c->value;
	c->value = v.value;
	if (!out->period)
		return 0;
	out->evsel = ev;
	return 1;
}

void pda_readgroup_release(struct pda_readgroup *rg, struct pda_session *s)
{
	pda_free(s, rg->counts);
	memset(rg, 0, sizeof(*rg));
}
