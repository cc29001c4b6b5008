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

/* What trace the capture's events name: by event name, then by the PMU
 * their type maps to (PMU_MAPPINGS); a generic phrase when neither says
 * (simpleperf's captures name neither). */
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
