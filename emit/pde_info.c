/*
 * pde_info.c - `pdtool info` output: what a capture's header, feature
 * sections and record counts say, as readable text (perf report
 * --header-only and --stats, side by side) or as one JSON object.
 */
#include "pde_fields_int.h"

#include <inttypes.h>
#include <string.h>

/* ---- shared -------------------------------------------------------- */

static const char *kind_name(enum pd_file_kind kind)
{
	switch (kind) {
	case PD_KIND_FILE:
		return "file";
	case PD_KIND_PIPE:
		return "pipe";
	case PD_KIND_DIR:
		return "directory";
	default:
		return "?";
	}
}

static int env_has(const struct pd_env *env, unsigned feat)
{
	return env && feat < PD_FEAT_MAX && env->status[feat] == PD_ENV_OK;
}

/* a feature's name, or "bit_N" for one the library cannot name */
static const char *feat_name(unsigned feat, char *buf, size_t size)
{
	const char *name = pd_feature_name(feat);

	if (name)
		return name;
	snprintf(buf, size, "bit_%u", feat);
	return buf;
}

/* The record counts, as rows of text or an object's members in JSON. */
static void rec_counts(struct pde_fields *fw, const struct pde_info_counts *c)
{
	char buf[32];

	pde_f_rec_counts(fw, c->by_type);
	for (unsigned i = 0; i < c->nr_other; i++)
		pde_f_count(fw, pde_rec_name(c->other[i].type, buf),
			    c->other[i].count);
	if (c->nr_other_lumped)
		pde_f_count(fw, fw->json ? "UNKNOWN_OTHER" : "(other types)",
			    c->nr_other_lumped);
}

/* The events: from the attrs section (or HEADER_ATTR records). */
static uint64_t evsel_freq(const struct pd_evsel *e)
{
	return PD_ATTR_HAS(&e->attr, freq);
}

/* ---- text ---------------------------------------------------------- */

#define KEY_WIDTH 18

static void key(FILE *out, const char *k)
{
	fprintf(out, "%-*s", KEY_WIDTH, k);
}

static void text_str(FILE *out, const char *s)
{
	if (s)
		pde_text_str(out, s, strlen(s));
	else
		fputs("-", out);
}

static void kv_str(FILE *out, const char *k, const char *v)
{
	key(out, k);
	text_str(out, v);
	fputc('\n', out);
}

static void sample_type_text(FILE *out, uint64_t st)
{
	const char *sep = "";

	for (unsigned bit = 0; bit < 64; bit++) {
		const char *name;

		if (!(st >> bit & 1))
			continue;
		name = pd_sample_bit_name(bit);
		if (name)
			fprintf(out, "%s%s", sep, name);
		else
			fprintf(out, "%sbit%u", sep, bit);
		sep = "|";
	}
	if (!*sep)
		fputs("0", out);
}

/* ns as seconds.nanoseconds */
static void time_text(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		ns % 1000000000u);
}

static void text_file(FILE *out, const struct pde_info *info)
{
	const struct pd_header_info *h = pd_file_header(info->f);

	kv_str(out, "file:", info->path);
	key(out, "format:");
	fprintf(out, "%s, %s-endian", kind_name(h->kind),
		h->big_endian ? "big" : "little");
	if (h->file_size)
		fprintf(out, ", %" PRIu64 " bytes", h->file_size);
	fputc('\n', out);
	key(out, "data:");
	fprintf(out, "offset 0x%" PRIx64 ", %" PRIu64 " bytes\n",
		h->data_offset, h->data_size);
}

static void text_host(FILE *out, const struct pd_env *env)
{
	kv_str(out, "hostname:", env->hostname);
	kv_str(out, "os release:", env->os_release);
	kv_str(out, "perf version:", env->version);
	kv_str(out, "arch:", env->arch);
	key(out, "cpus:");
	if (env_has(env, PD_FEAT_NRCPUS))
		fprintf(out, "%" PRIu32 " online, %" PRIu32 " available\n",
			env->nr_cpus_online, env->nr_cpus_avail);
	else
		fputs("-\n", out);
	kv_str(out, "cpu description:", env->cpu_desc);
	kv_str(out, "cpuid:", env->cpuid);
	key(out, "total memory:");
	if (env_has(env, PD_FEAT_TOTAL_MEM))
		fprintf(out, "%" PRIu64 " kB\n", env->total_mem_kb);
	else
		fputs("-\n", out);
	key(out, "command line:");
	if (env->nr_cmdline == 0)
		fputs("-", out);
	for (uint32_t i = 0; i < env->nr_cmdline; i++) {
		if (i)
			fputc(' ', out);
		text_str(out, env->cmdline[i]);
	}
	fputc('\n', out);
}

static void text_events(FILE *out, const struct pd_file *f)
{
	const size_t nr = pd_file_nr_evsels(f);

	key(out, "events:");
	fprintf(out, "%zu\n", nr);
	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		fputs("  ", out);
		text_str(out, e->name);
		fprintf(out,
			": type %" PRIu32 ", config 0x%" PRIx64 ", %s %" PRIu64
			", sample_type ",
			e->attr.type, e->attr.config,
			evsel_freq(e) ? "sample_freq" : "sample_period",
			e->attr.sample_period);
		sample_type_text(out, e->attr.sample_type);
		fprintf(out, ", %zu id%s\n", e->nr_ids,
			e->nr_ids == 1 ? "" : "s");
	}
}

static void text_features(FILE *out, const struct pd_env *env)
{
	char buf[16];
	int any = 0;

	key(out, "features:");
	for (unsigned feat = 1; feat < PD_FEAT_MAX; feat++) {
		if (env->status[feat] == PD_ENV_ABSENT)
			continue;
		fprintf(out, "%s%s", any ? " " : "",
			feat_name(feat, buf, sizeof(buf)));
		if (env->status[feat] != PD_ENV_OK &&
		    env->status[feat] != PD_ENV_RAW)
			fprintf(out, "(%s)",
				pd_env_status_name(env->status[feat]));
		any = 1;
	}
	fputs(any ? "\n" : "-\n", out);
}

static void text_list(FILE *out, const char *k, uint32_t nr,
		      const char *const *v)
{
	key(out, k);
	for (uint32_t i = 0; i < nr; i++) {
		fputs(i ? ", " : "", out);
		text_str(out, v[i]);
	}
	fputc('\n', out);
}

static void text_topology(FILE *out, const struct pd_env *env)
{
	if (env->status[PD_FEAT_CPU_TOPOLOGY] != PD_ENV_ABSENT &&
	    env->status[PD_FEAT_CPU_TOPOLOGY] != PD_ENV_MISSING) {
		text_list(out, "sibling sockets:",
			  env->cpu_topology.nr_core_siblings,
			  env->cpu_topology.core_siblings);
		if (env->cpu_topology.nr_die_siblings)
			text_list(out, "sibling dies:",
				  env->cpu_topology.nr_die_siblings,
				  env->cpu_topology.die_siblings);
		text_list(out, "sibling threads:",
			  env->cpu_topology.nr_thread_siblings,
			  env->cpu_topology.thread_siblings);
	}
	for (uint32_t i = 0; i < env->nr_numa_nodes; i++) {
		const struct pd_env_numa_node *n = &env->numa_nodes[i];

		key(out, "numa node:");
		fprintf(out,
			"%" PRIu32 ": %" PRIu64 " kB total, %" PRIu64
			" kB free, cpus ",
			n->node, n->mem_total_kb, n->mem_free_kb);
		text_str(out, n->cpus);
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < env->nr_hybrid_nodes; i++) {
		key(out, "hybrid cpus:");
		text_str(out, env->hybrid_nodes[i].pmu_name);
		fputs(" ", out);
		text_str(out, env->hybrid_nodes[i].cpus);
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < env->nr_caches; i++) {
		const struct pd_env_cache *c = &env->caches[i];

		key(out, "cache:");
		fprintf(out, "L%" PRIu32 " ", c->level);
		text_str(out, c->type);
		fputc(' ', out);
		text_str(out, c->size);
		fputs(" [", out);
		text_str(out, c->map);
		fputs("]\n", out);
	}
	if (env_has(env, PD_FEAT_MEM_TOPOLOGY)) {
		key(out, "memory nodes:");
		fprintf(out, "%" PRIu64 ", block size 0x%" PRIx64 "\n",
			env->nr_mem_nodes, env->mem_block_size);
	}
}

static void text_caps(FILE *out, const char *pmu, uint32_t nr,
		      const struct pd_env_cap *caps)
{
	key(out, "pmu capabilities:");
	text_str(out, pmu);
	fputs(":", out);
	for (uint32_t i = 0; i < nr; i++) {
		fputs(i ? ", " : " ", out);
		text_str(out, caps[i].name);
		fputc('=', out);
		text_str(out, caps[i].value);
	}
	fputc('\n', out);
}

static void text_pmus(FILE *out, const struct pd_env *env)
{
	if (env->nr_pmu_mappings) {
		key(out, "pmu mappings:");
		for (uint32_t i = 0; i < env->nr_pmu_mappings; i++) {
			fputs(i ? ", " : "", out);
			text_str(out, env->pmu_mappings[i].name);
			fprintf(out, " = %" PRIu32, env->pmu_mappings[i].type);
		}
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < env->nr_groups; i++) {
		key(out, "group:");
		text_str(out, env->groups[i].name);
		fprintf(out, ", leader %" PRIu32 ", %" PRIu32 " members\n",
			env->groups[i].leader_idx, env->groups[i].nr_members);
	}
	if (env->status[PD_FEAT_CPU_PMU_CAPS] == PD_ENV_OK)
		text_caps(out, "cpu", env->nr_cpu_pmu_caps, env->cpu_pmu_caps);
	for (uint32_t i = 0; i < env->nr_pmu_caps; i++)
		text_caps(out, env->pmu_caps[i].pmu_name,
			  env->pmu_caps[i].nr_caps, env->pmu_caps[i].caps);
}

static void text_misc(FILE *out, const struct pd_env *env)
{
	if (env_has(env, PD_FEAT_SAMPLE_TIME)) {
		key(out, "sample time:");
		time_text(out, env->first_sample_time);
		fputs(" .. ", out);
		time_text(out, env->last_sample_time);
		fputs(" (SAMPLE_TIME feature)\n", out);
	}
	if (env_has(env, PD_FEAT_CLOCKID)) {
		key(out, "clock resolution:");
		fprintf(out, "%" PRIu64 " ns\n", env->clockid_res_ns);
	}
	if (env_has(env, PD_FEAT_CLOCK_DATA)) {
		key(out, "clock reference:");
		fprintf(out, "clockid %" PRIu32 ": ", env->clock_data.clockid);
		time_text(out, env->clock_data.clockid_ns);
		fputs(" = ", out);
		time_text(out, env->clock_data.tod_ns);
		fputs(" since the epoch\n", out);
	}
	if (env_has(env, PD_FEAT_COMPRESSED)) {
		key(out, "compressed:");
		fprintf(out, "%s, level %" PRIu32 ", ratio %" PRIu32 "\n",
			env->compressed.type == 1 ? "zstd" : "unknown",
			env->compressed.level, env->compressed.ratio);
	}
	if (env_has(env, PD_FEAT_TRACING_DATA)) {
		key(out, "tracing data:");
		fputs("version ", out);
		text_str(out, env->tracing.version);
		fprintf(out, ", %zu bytes\n", env->tracing.size);
	}
	if (env_has(env, PD_FEAT_AUXTRACE)) {
		key(out, "auxtrace index:");
		fprintf(out, "%" PRIu64 " entries\n", env->nr_auxtrace);
	}
	if (env_has(env, PD_FEAT_BPF_PROG_INFO) ||
	    env_has(env, PD_FEAT_BPF_BTF)) {
		key(out, "bpf:");
		fprintf(out,
			"%" PRIu32 " programs (%" PRIu64 " bytes), %" PRIu32
			" btfs (%" PRIu64 " bytes)\n",
			env->nr_bpf_progs, env->bpf_prog_bytes, env->nr_btfs,
			env->btf_bytes);
	}
	if (env_has(env, PD_FEAT_DIR_FORMAT)) {
		key(out, "directory format:");
		fprintf(out, "version %" PRIu64 "\n", env->dir_format_version);
	}
	for (uint32_t i = 0; i < env->nr_meta_info; i++) {
		key(out, "meta info:");
		text_str(out, env->meta_info[i].key);
		fputs(" = ", out);
		text_str(out, env->meta_info[i].value);
		fputc('\n', out);
	}
	if (env->nr_simpleperf_files) {
		key(out, "simpleperf files:");
		fprintf(out, "%" PRIu32 "\n", env->nr_simpleperf_files);
	}
	if (env->nr_build_ids) {
		key(out, "build ids:");
		fprintf(out, "%zu\n", env->nr_build_ids);
		for (size_t i = 0; i < env->nr_build_ids; i++) {
			const struct pd_env_build_id *b = &env->build_ids[i];

			fputs("  ", out);
			for (unsigned j = 0; j < b->size; j++)
				fprintf(out, "%02x", b->build_id[j]);
			fprintf(out, " pid %" PRId32 " ", b->pid);
			text_str(out, b->filename);
			fputc('\n', out);
		}
	}
}

static void text_records(FILE *out, const struct pde_info *info)
{
	const struct pde_info_counts *c = info->counts;
	struct pde_fields fw;

	if (!c || !c->read)
		return;
	pde_fields_init(&fw, out, false);
	fputs("records:\n", out);
	rec_counts(&fw, c);
	pde_f_count(&fw, "total", c->total);
	key(out, "samples:");
	fprintf(out, "%" PRIu64 "\n", c->nr_samples);
	key(out, "lost samples:");
	fprintf(out,
		"%" PRIu64 " (LOST %" PRIu64 ", LOST_SAMPLES %" PRIu64 "%s)\n",
		c->lost_total, c->lost, c->lost_samples,
		c->lost && c->lost_samples &&
				c->lost_total < c->lost + c->lost_samples
			? ": the same samples, counted by both"
			: "");
	if (c->dropped_samples) {
		key(out, "filtered out:");
		fprintf(out, "%" PRIu64 " samples (perf record --filter)\n",
			c->dropped_samples);
	}
	key(out, "time span:");
	if (c->has_time) {
		time_text(out, c->time_first_ns);
		fputs(" .. ", out);
		time_text(out, c->time_last_ns);
		fputs(" (", out);
		time_text(out, c->time_last_ns - c->time_first_ns);
		fputs(" s)\n", out);
	} else {
		fputs("-\n", out);
	}
	if (c->nr_bad_samples) {
		key(out, "undecodable:");
		fprintf(out, "%" PRIu64 " samples\n", c->nr_bad_samples);
	}
}

static void text_damage(FILE *out, const struct pde_info *info)
{
	const struct pd_reader_stats *st = info->stats;
	const struct pd_env *env = info->env;

	if (st && st->damaged) {
		key(out, "damaged:");
		fprintf(out,
			"%s; %" PRIu64 " bytes from offset 0x%" PRIx64
			" not read\n",
			st->damage, st->bytes_unread, st->damage_offset);
	}
	if (st && st->bytes_missing) {
		key(out, "cut short:");
		fprintf(out,
			"%" PRIu64 " of the %" PRIu64 " bytes of data the "
			"header declares are missing (%.1f%%): the file ends "
			"before them\n",
			st->bytes_missing, st->data_declared,
			100.0 * (double)st->bytes_missing /
				(double)st->data_declared);
	}
	if (env && (env->nr_damaged || env->nr_unknown_features)) {
		unsigned nr_missing = 0;

		for (unsigned feat = 1; feat < PD_FEAT_MAX; feat++)
			nr_missing += env->status[feat] == PD_ENV_MISSING;
		key(out, "feature problems:");
		fprintf(out, "%u damaged, %u missing, %u unknown\n",
			env->nr_damaged - nr_missing, nr_missing,
			env->nr_unknown_features);
	}
}

int pde_info_text(FILE *out, const struct pde_info *info)
{
	text_file(out, info);
	if (info->env)
		text_host(out, info->env);
	text_events(out, info->f);
	if (info->env) {
		text_features(out, info->env);
		text_topology(out, info->env);
		text_pmus(out, info->env);
		text_misc(out, info->env);
	}
	text_records(out, info);
	text_damage(out, info);
	return pde_out_rc(out);
}

/* ---- JSON ---------------------------------------------------------- */

/* a JSON key: a name the capture left out is "" */
static const char *key_or_empty(const char *name)
{
	return name ? name : "";
}

static void json_strlist(struct pde_fields *j, const char *k, uint32_t nr,
			 const char *const *v)
{
	pde_f_array(j, k);
	for (uint32_t i = 0; i < nr; i++)
		pde_f_cstr(j, NULL, v[i]);
	pde_f_close(j);
}

static void json_u32_or_null(struct pde_fields *j, const char *k, int has,
			     uint64_t v)
{
	if (has)
		pde_f_u64(j, k, v);
	else
		pde_f_null(j, k);
}

static void json_events(struct pde_fields *j, const struct pd_file *f)
{
	const size_t nr = pd_file_nr_evsels(f);

	pde_f_array(j, "events");
	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		pde_f_object(j, NULL);
		pde_f_cstr(j, "name", e->name);
		pde_f_u64(j, "type", e->attr.type);
		pde_f_u64(j, "config", e->attr.config);
		pde_f_array(j, "sample_type");
		for (unsigned bit = 0; bit < 64; bit++) {
			char buf[16];
			const char *name = pd_sample_bit_name(bit);

			if (!(e->attr.sample_type >> bit & 1))
				continue;
			if (!name) {
				snprintf(buf, sizeof(buf), "bit%u", bit);
				name = buf;
			}
			pde_f_cstr(j, NULL, name);
		}
		pde_f_close(j);
		pde_f_u64(j, evsel_freq(e) ? "sample_freq" : "sample_period",
			  e->attr.sample_period);
		pde_f_u64(j, "read_format", e->attr.read_format);
		pde_f_array(j, "ids");
		for (size_t k = 0; k < e->nr_ids; k++)
			pde_f_u64(j, NULL, e->ids[k]);
		pde_f_close(j);
		pde_f_close(j);
	}
	pde_f_close(j);
}

static void json_features(struct pde_fields *j, const struct pd_env *env)
{
	char buf[16];

	pde_f_array(j, "features");
	for (unsigned feat = 1; env && feat < PD_FEAT_MAX; feat++)
		if (env->status[feat] != PD_ENV_ABSENT)
			pde_f_cstr(j, NULL, feat_name(feat, buf, sizeof(buf)));
	pde_f_close(j);
	/* every section that did not decode cleanly, with what became of it */
	pde_f_object(j, "feature_problems");
	for (unsigned feat = 1; env && feat < PD_FEAT_MAX; feat++)
		if (env->status[feat] == PD_ENV_DAMAGED ||
		    env->status[feat] == PD_ENV_MISSING ||
		    env->status[feat] == PD_ENV_UNKNOWN)
			pde_f_cstr(j, feat_name(feat, buf, sizeof(buf)),
				   pd_env_status_name(env->status[feat]));
	pde_f_close(j);
}

static void json_build_ids(struct pde_fields *j, const struct pd_env *env)
{
	pde_f_array(j, "build_ids");
	for (size_t i = 0; env && i < env->nr_build_ids; i++) {
		const struct pd_env_build_id *b = &env->build_ids[i];

		pde_f_object(j, NULL);
		pde_f_i64(j, "pid", b->pid);
		pde_f_hexbytes(j, "build_id", b->build_id, b->size);
		pde_f_cstr(j, "filename", b->filename);
		pde_f_u64(j, "cpumode", b->cpumode);
		pde_f_close(j);
	}
	pde_f_close(j);
}

static void json_caps(struct pde_fields *j, const char *k, uint32_t nr,
		      const struct pd_env_cap *caps)
{
	pde_f_object(j, k);
	for (uint32_t i = 0; i < nr; i++)
		pde_f_cstr(j, key_or_empty(caps[i].name), caps[i].value);
	pde_f_close(j);
}

static void json_topology(struct pde_fields *j, const struct pd_env *env)
{
	if (env->status[PD_FEAT_CPU_TOPOLOGY] == PD_ENV_OK ||
	    env->status[PD_FEAT_CPU_TOPOLOGY] == PD_ENV_DAMAGED) {
		pde_f_object(j, "cpu_topology");
		json_strlist(j, "core_siblings",
			     env->cpu_topology.nr_core_siblings,
			     env->cpu_topology.core_siblings);
		json_strlist(j, "thread_siblings",
			     env->cpu_topology.nr_thread_siblings,
			     env->cpu_topology.thread_siblings);
		json_strlist(j, "die_siblings",
			     env->cpu_topology.nr_die_siblings,
			     env->cpu_topology.die_siblings);
		pde_f_array(j, "cpus");
		for (uint32_t i = 0; i < env->cpu_topology.nr_cpus; i++) {
			const struct pd_env_cpu *c = &env->cpu_topology.cpus[i];

			pde_f_object(j, NULL);
			pde_f_u64(j, "core_id", c->core_id);
			pde_f_u64(j, "socket_id", c->socket_id);
			if (env->cpu_topology.has_die_ids)
				pde_f_u64(j, "die_id", c->die_id);
			pde_f_close(j);
		}
		pde_f_close(j);
		pde_f_close(j);
	}
	if (env->nr_numa_nodes) {
		pde_f_array(j, "numa_nodes");
		for (uint32_t i = 0; i < env->nr_numa_nodes; i++) {
			const struct pd_env_numa_node *n = &env->numa_nodes[i];

			pde_f_object(j, NULL);
			pde_f_u64(j, "node", n->node);
			pde_f_u64(j, "mem_total_kb", n->mem_total_kb);
			pde_f_u64(j, "mem_free_kb", n->mem_free_kb);
			pde_f_cstr(j, "cpus", n->cpus);
			pde_f_close(j);
		}
		pde_f_close(j);
	}
	if (env->nr_caches) {
		pde_f_array(j, "caches");
		for (uint32_t i = 0; i < env->nr_caches; i++) {
			const struct pd_env_cache *c = &env->caches[i];

			pde_f_object(j, NULL);
			pde_f_u64(j, "level", c->level);
			pde_f_u64(j, "line_size", c->line_size);
			pde_f_u64(j, "sets", c->sets);
			pde_f_u64(j, "ways", c->ways);
			pde_f_cstr(j, "type", c->type);
			pde_f_cstr(j, "size", c->size);
			pde_f_cstr(j, "map", c->map);
			pde_f_close(j);
		}
		pde_f_close(j);
	}
	if (env->nr_hybrid_nodes) {
		pde_f_object(j, "hybrid_topology");
		for (uint32_t i = 0; i < env->nr_hybrid_nodes; i++)
			pde_f_cstr(j,
				   key_or_empty(env->hybrid_nodes[i].pmu_name),
				   env->hybrid_nodes[i].cpus);
		pde_f_close(j);
	}
	if (env_has(env, PD_FEAT_MEM_TOPOLOGY)) {
		pde_f_object(j, "mem_topology");
		pde_f_u64(j, "block_size", env->mem_block_size);
		pde_f_array(j, "nodes");
		for (uint64_t i = 0; i < env->nr_mem_nodes; i++) {
			pde_f_object(j, NULL);
			pde_f_u64(j, "node", env->mem_nodes[i].node);
			pde_f_u64(j, "blocks", env->mem_nodes[i].nr_set);
			pde_f_close(j);
		}
		pde_f_close(j);
		pde_f_close(j);
	}
}

static void json_pmus(struct pde_fields *j, const struct pd_env *env)
{
	if (env->nr_pmu_mappings) {
		pde_f_object(j, "pmu_mappings");
		for (uint32_t i = 0; i < env->nr_pmu_mappings; i++)
			pde_f_u64(j, key_or_empty(env->pmu_mappings[i].name),
				  env->pmu_mappings[i].type);
		pde_f_close(j);
	}
	if (env->nr_groups) {
		pde_f_array(j, "groups");
		for (uint32_t i = 0; i < env->nr_groups; i++) {
			pde_f_object(j, NULL);
			pde_f_cstr(j, "name", env->groups[i].name);
			pde_f_u64(j, "leader_idx", env->groups[i].leader_idx);
			pde_f_u64(j, "nr_members", env->groups[i].nr_members);
			pde_f_close(j);
		}
		pde_f_close(j);
	}
	if (env->status[PD_FEAT_CPU_PMU_CAPS] == PD_ENV_OK)
		json_caps(j, "cpu_pmu_caps", env->nr_cpu_pmu_caps,
			  env->cpu_pmu_caps);
	if (env->nr_pmu_caps) {
		pde_f_object(j, "pmu_caps");
		for (uint32_t i = 0; i < env->nr_pmu_caps; i++)
			json_caps(j, key_or_empty(env->pmu_caps[i].pmu_name),
				  env->pmu_caps[i].nr_caps,
				  env->pmu_caps[i].caps);
		pde_f_close(j);
	}
}

static void json_misc(struct pde_fields *j, const struct pd_env *env)
{
	if (env_has(env, PD_FEAT_SAMPLE_TIME)) {
		pde_f_object(j, "sample_time");
		pde_f_u64(j, "first_ns", env->first_sample_time);
		pde_f_u64(j, "last_ns", env->last_sample_time);
		pde_f_close(j);
	}
	if (env_has(env, PD_FEAT_CLOCKID))
		pde_f_u64(j, "clockid_res_ns", env->clockid_res_ns);
	if (env_has(env, PD_FEAT_CLOCK_DATA)) {
		pde_f_object(j, "clock_data");
		pde_f_u64(j, "clockid", env->clock_data.clockid);
		pde_f_u64(j, "tod_ns", env->clock_data.tod_ns);
		pde_f_u64(j, "clockid_ns", env->clock_data.clockid_ns);
		pde_f_close(j);
	}
	if (env_has(env, PD_FEAT_COMPRESSED)) {
		pde_f_object(j, "compressed");
		pde_f_u64(j, "version", env->compressed.version);
		pde_f_u64(j, "type", env->compressed.type);
		pde_f_u64(j, "level", env->compressed.level);
		pde_f_u64(j, "ratio", env->compressed.ratio);
		pde_f_u64(j, "mmap_len", env->compressed.mmap_len);
		pde_f_close(j);
	}
	if (env_has(env, PD_FEAT_TRACING_DATA)) {
		pde_f_object(j, "tracing_data");
		pde_f_cstr(j, "version", env->tracing.version);
		pde_f_u64(j, "offset", env->tracing.offset);
		pde_f_u64(j, "size", env->tracing.size);
		pde_f_cstr(j, "byte_order",
			   env->tracing.big_endian ? "big" : "little");
		pde_f_u64(j, "long_size", env->tracing.long_size);
		pde_f_u64(j, "page_size", env->tracing.page_size);
		pde_f_close(j);
	}
	if (env_has(env, PD_FEAT_AUXTRACE))
		pde_f_u64(j, "auxtrace_index_entries", env->nr_auxtrace);
	if (env_has(env, PD_FEAT_BPF_PROG_INFO)) {
		pde_f_u64(j, "bpf_progs", env->nr_bpf_progs);
		pde_f_u64(j, "bpf_prog_bytes", env->bpf_prog_bytes);
	}
	if (env_has(env, PD_FEAT_BPF_BTF)) {
		pde_f_u64(j, "bpf_btfs", env->nr_btfs);
		pde_f_u64(j, "bpf_btf_bytes", env->btf_bytes);
	}
	if (env_has(env, PD_FEAT_DIR_FORMAT))
		pde_f_u64(j, "dir_format_version", env->dir_format_version);
	if (env->nr_meta_info) {
		pde_f_object(j, "simpleperf_meta_info");
		for (uint32_t i = 0; i < env->nr_meta_info; i++)
			pde_f_cstr(j, env->meta_info[i].key,
				   env->meta_info[i].value);
		pde_f_close(j);
	}
	if (env->nr_simpleperf_files)
		pde_f_u64(j, "simpleperf_files", env->nr_simpleperf_files);
}

static void json_records(struct pde_fields *j, const struct pde_info *info)
{
	const struct pde_info_counts *c = info->counts;
	const struct pd_reader_stats *st = info->stats;

	if (!c || !c->read) {
		pde_f_null(j, "record_counts");
		return;
	}
	pde_f_object(j, "record_counts");
	rec_counts(j, c);
	pde_f_close(j);
	pde_f_u64(j, "nr_records", c->total);
	pde_f_u64(j, "samples", c->nr_samples);
	pde_f_u64(j, "lost_samples", c->lost_total);
	pde_f_u64(j, "lost_in_lost_records", c->lost);
	pde_f_u64(j, "lost_in_lost_samples_records", c->lost_samples);
	pde_f_u64(j, "filtered_samples", c->dropped_samples);
	if (c->has_time) {
		pde_f_u64(j, "time_first_ns", c->time_first_ns);
		pde_f_u64(j, "time_last_ns", c->time_last_ns);
	} else {
		pde_f_null(j, "time_first_ns");
		pde_f_null(j, "time_last_ns");
	}
	pde_f_u64(j, "undecodable_samples", c->nr_bad_samples);
	if (st && st->damaged) {
		pde_f_object(j, "damage");
		pde_f_cstr(j, "message", st->damage);
		pde_f_u64(j, "offset", st->damage_offset);
		pde_f_u64(j, "bytes_unread", st->bytes_unread);
		pde_f_u64(j, "data_declared", st->data_declared);
		pde_f_u64(j, "bytes_missing", st->bytes_missing);
		pde_f_close(j);
	} else {
		pde_f_null(j, "damage");
	}
}

int pde_info_json(FILE *out, const struct pde_info *info)
{
	const struct pd_header_info *h = pd_file_header(info->f);
	const struct pd_env *env = info->env;
	static const struct pd_env none;
	struct pde_fields j;

	if (!env)
		env = &none;
	pde_fields_init(&j, out, true);
	pde_f_object(&j, NULL);
	pde_f_cstr(&j, "file", info->path);
	pde_f_cstr(&j, "kind", kind_name(h->kind));
	pde_f_cstr(&j, "byte_order", h->big_endian ? "big" : "little");
	pde_f_u64(&j, "file_size", h->file_size);
	pde_f_u64(&j, "data_offset", h->data_offset);
	pde_f_u64(&j, "data_size", h->data_size);
	json_features(&j, env);
	pde_f_cstr(&j, "hostname", env->hostname);
	pde_f_cstr(&j, "os_release", env->os_release);
	pde_f_cstr(&j, "perf_version", env->version);
	pde_f_cstr(&j, "arch", env->arch);
	json_u32_or_null(&j, "nr_cpus_online", env_has(env, PD_FEAT_NRCPUS),
			 env->nr_cpus_online);
	json_u32_or_null(&j, "nr_cpus_avail", env_has(env, PD_FEAT_NRCPUS),
			 env->nr_cpus_avail);
	pde_f_cstr(&j, "cpu_desc", env->cpu_desc);
	pde_f_cstr(&j, "cpuid", env->cpuid);
	json_u32_or_null(&j, "total_mem_kb", env_has(env, PD_FEAT_TOTAL_MEM),
			 env->total_mem_kb);
	if (env->status[PD_FEAT_CMDLINE] == PD_ENV_OK ||
	    env->status[PD_FEAT_CMDLINE] == PD_ENV_DAMAGED)
		json_strlist(&j, "cmdline", env->nr_cmdline, env->cmdline);
	else
		pde_f_null(&j, "cmdline");
	json_events(&j, info->f);
	json_build_ids(&j, env);
	json_topology(&j, env);
	json_pmus(&j, env);
	json_misc(&j, env);
	json_records(&j, info);
	pde_f_close(&j);
	return pde_fields_end_line(&j);
}
