/*
 * cmd_kind.c - captures pdtool reads no samples from: an AUX-area
 * hardware trace (Intel PT, CoreSight ETM, Arm SPE), whose branches and
 * addresses are in a trace pdtool does not decode, and a `perf stat
 * record` capture, which holds counter values.  Folding either gave "0
 * samples" and exit 0, as if the program had not run.
 */
#include "pdtool.h"
#include "pda_capture.h"

#include <inttypes.h>
#include <string.h>

/* The AUX-area PMUs perf knows, by the name of their PMU */
static const char *const trace_pmus[][2] = {
	{"intel_pt", "an Intel PT trace"},
	{"intel_bts", "an Intel BTS trace"},
	{"cs_etm", "a CoreSight ETM trace"},
	{"cs-etm", "a CoreSight ETM trace"},
	{"arm_spe", "an Arm SPE trace"},
	{"hisi_ptt", "a HiSilicon PTT trace"},
};

static const char *trace_of_name(const char *name)
{
	for (size_t i = 0; i < sizeof(trace_pmus) / sizeof(trace_pmus[0]); i++)
		if (name && strncmp(name, trace_pmus[i][0],
				    strlen(trace_pmus[i][0])) == 0)
			return trace_pmus[i][1];
	return NULL;
}

/* The trace kind the first AUXTRACE_INFO names by its type (perf's enum
 * auxtrace_type), read again from the start of the data: perf and
 * simpleperf write it before the trace.  NULL when there is none, it
 * names no kind, or the capture cannot be read twice (a pipe). */
static const char *trace_of_info(struct pd_file *f)
{
	static const char *const kinds[] = {
		NULL, "an Intel PT trace", "an Intel BTS trace",
		"a CoreSight ETM trace", "an Arm SPE trace",
		"an s390 CPU-MF trace", "a HiSilicon PTT trace",
	};
	const char *what = NULL;
	struct pd_reader *r;
	struct pd_rec rec;
	unsigned n = 0;

	if (pd_reader_new(f, 0, &r) < 0)
		return NULL;
	/* the sideband comes first: a bounded look, not a second pass */
	while (!what && n++ < 4096 && pd_reader_next(r, &rec) > 0) {
		struct pd_event ev;

		if (rec.type == PD_REC_AUXTRACE_INFO &&
		    pd_event_decode(f, &rec, &ev) == 0) {
			const uint32_t t = ev.auxtrace_info.type;

			what = t < sizeof(kinds) / sizeof(kinds[0]) ? kinds[t]
								     : NULL;
			break;
		}
	}
	pd_reader_free(r);
	return what;
}

/* What trace the capture's events name: by event name, then by the PMU
 * their type maps to (PMU_MAPPINGS), then by AUXTRACE_INFO's type
 * (simpleperf's captures name no PMU); a generic phrase when none says. */
static const char *trace_kind(struct pd_file *f)
{
	const struct pd_env *env = NULL;
	const size_t nr = pd_file_nr_evsels(f);
	const char *what;

	if (pd_file_env(f, &env) < 0)
		env = NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		if ((what = trace_of_name(e->name)))
			return what;
		for (uint32_t j = 0; env && j < env->nr_pmu_mappings; j++)
			if (env->pmu_mappings[j].type == e->attr.type &&
			    (what = trace_of_name(env->pmu_mappings[j].name)))
				return what;
	}
	if ((what = trace_of_info(f)))
		return what;
	return "an AUX-area hardware trace of a PMU it does not name";
}

void cmd_check_kind(struct pd_ctx *ctx, const char *path, struct pd_file *f,
		    const struct pd_reader_stats *st, uint64_t nr_samples)
{
	cmd_check_kind_synth(ctx, path, f, st, nr_samples, NULL);
}

void cmd_check_kind_synth(struct pd_ctx *ctx, const char *path,
			  struct pd_file *f, const struct pd_reader_stats *st,
			  uint64_t nr_samples, const struct pda_itrace *it)
{
	const uint64_t nr_trace = st->by_type[PD_REC_AUXTRACE] +
				  st->by_type[PD_REC_AUXTRACE_INFO];
	const uint64_t nr_stat = st->by_type[PD_REC_STAT] +
				 st->by_type[PD_REC_STAT_ROUND];

	const uint64_t nr_aux = st->by_type[PD_REC_AUXTRACE];

	/* the trace was decoded into samples (--itrace): as many as the
	 * letters asked for, none being an answer too, as with perf */
	if (it)
		return;
	if (nr_trace && nr_samples)
		warning(ctx,
			"'%s' holds %s (%" PRIu64 " AUXTRACE record%s), which "
			"pdtool does not decode: only the %" PRIu64
			" samples of its sampled events are read",
			path, trace_kind(f), nr_aux, nr_aux == 1 ? "" : "s",
			nr_samples);
	if (nr_samples)
		return;
	if (nr_trace)
		die(ctx,
		    "'%s' holds %s (%" PRIu64 " AUXTRACE record%s) and no "
		    "samples: pdtool does not decode AUX-area traces; 'perf "
		    "inject --itrace=i100us -i FILE -o OUT' turns the trace "
		    "into samples pdtool reads",
		    path, trace_kind(f), nr_aux, nr_aux == 1 ? "" : "s");
	if (nr_stat)
		die(ctx,
		    "'%s' is a 'perf stat record' capture: it holds "
		    "counters (%" PRIu64 " STAT records) and no samples; "
		    "'pdtool stat %s' prints them",
		    path, st->by_type[PD_REC_STAT], path);
}
