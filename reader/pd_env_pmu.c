/*
 * pd_env_pmu.c - the feature sections about PMUs, event groups, AUX area
 * tracing and BPF: PMU_MAPPINGS, GROUP_DESC, AUXTRACE, BPF_PROG_INFO,
 * BPF_BTF, CPU_PMU_CAPS and PMU_CAPS.  format.md §4; layouts from perf's
 * tools/perf/util/header.c and auxtrace.c.
 */
#include "pd_env_int.h"

/* format.md §4.16 PMU_MAPPINGS: u32 nr, then per PMU u32 type, name */
int pd_env_dec_pmu_mappings(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_pmu_mapping *m;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no count");
	if (nr > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u PMUs cannot fit", nr);
	m = pd_env_dec_array(d, nr, sizeof(*m));
	ENV_NEED(m);
	d->env->pmu_mappings = m;
	for (uint32_t i = 0; i < nr; i++) {
		(void)pdc_cur_u32(c, &m[i].type);
		ENV_TRY(pd_env_dec_str(d, c, &m[i].name));
		d->env->nr_pmu_mappings = i + 1;
	}
	return ENV_OK;
}

/*
 * format.md §4.17 GROUP_DESC: u32 nr, then per group: the name, u32
 * leader_idx, u32 nr_members.  As perf's process_group_desc(), groups
 * come in event order, apart, and end within the events (when they are
 * known: a pipe's may not be yet): a member count past them would have
 * the commands size tables by it (4G members: 32 GB asked for).
 */
int pd_env_dec_group_desc(struct env_dec *d, struct pdc_cur *c)
{
	const uint64_t nr_evsels = d->f->nr_evsels;
	uint64_t next = 0; /* the first event after the previous group */
	struct pd_env_group *g;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no count");
	if (nr > pdc_cur_left(c) / 12)
		return pd_env_dec_bad(d, c, "%u groups cannot fit", nr);
	g = pd_env_dec_array(d, nr, sizeof(*g));
	ENV_NEED(g);
	d->env->groups = g;
	for (uint32_t i = 0; i < nr; i++) {
		ENV_TRY(pd_env_dec_str(d, c, &g[i].name));
		if (!pdc_cur_u32(c, &g[i].leader_idx) ||
		    !pdc_cur_u32(c, &g[i].nr_members))
			return pd_env_dec_bad(d, c, "group %u cut short", i);
		if (!g[i].nr_members)
			return pd_env_dec_bad(d, c, "group %u: no members", i);
		if (g[i].leader_idx < next)
			return pd_env_dec_bad(d, c,
					      "group %u: %u members from event "
					      "%u, within the group before",
					      i, g[i].nr_members,
					      g[i].leader_idx);
		if (nr_evsels &&
		    (uint64_t)g[i].leader_idx + g[i].nr_members > nr_evsels)
			return pd_env_dec_bad(d, c,
					      "group %u: %u members from event "
					      "%u, past the %llu events",
					      i, g[i].nr_members,
					      g[i].leader_idx,
					      (unsigned long long)nr_evsels);
		next = (uint64_t)g[i].leader_idx + g[i].nr_members;
		d->env->nr_groups = i + 1;
	}
	return ENV_OK;
}

/*
 * format.md §4.18 AUXTRACE: perf writes u64 nr then nr {u64 offset, u64
 * size} (auxtrace_index__write), 8 + 16 n bytes; simpleperf writes the
 * pairs alone, 16 n bytes.  The size tells which.
 */
int pd_env_dec_auxtrace(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_auxtrace_entry *e;
	uint64_t nr = 0;

	if (pdc_cur_left(c) % 16 == 8) {
		if (!pdc_cur_u64(c, &nr) || nr > pdc_cur_left(c) / 16)
			return pd_env_dec_bad(d, c,
					      "%llu index entries cannot fit",
					      (unsigned long long)nr);
	} else if (pdc_cur_left(c) % 16 == 0) {
		nr = pdc_cur_left(c) / 16;
	} else {
		return pd_env_dec_bad(d, c,
				      "size is not a whole number of entries");
	}
	e = pd_env_dec_array(d, nr, sizeof(*e));
	ENV_NEED(e);
	for (uint64_t i = 0; i < nr; i++) {
		(void)pdc_cur_u64(c, &e[i].offset);
		(void)pdc_cur_u64(c, &e[i].size);
	}
	d->env->auxtrace = e;
	d->env->nr_auxtrace = nr;
	return ENV_OK;
}

/*
 * format.md §4.25 BPF_PROG_INFO: u32 count, then per program a perf_bpil:
 * u32 info_len, u32 data_len, u64 arrays, info_len bytes of struct
 * bpf_prog_info (u32 type, u32 id, u8 tag[8], ...), data_len bytes.
 */
int pd_env_dec_bpf_prog_info(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_bpf_prog *progs;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no count");
	if (nr > pdc_cur_left(c) / 16)
		return pd_env_dec_bad(d, c, "%u programs cannot fit", nr);
	progs = pd_env_dec_array(d, nr, sizeof(*progs));
	ENV_NEED(progs);
	d->env->bpf_progs = progs;
	for (uint32_t i = 0; i < nr; i++) {
		struct pd_env_bpf_prog *b = &progs[i];

		if (!pdc_cur_u32(c, &b->info_len) ||
		    !pdc_cur_u32(c, &b->data_len) ||
		    !pdc_cur_u64(c, &b->arrays))
			return pd_env_dec_bad(d, c, "program %u cut short", i);
		if ((uint64_t)b->info_len + b->data_len > pdc_cur_left(c))
			return pd_env_dec_bad(
				d, c, "program %u: %u + %u bytes, %zu left", i,
				b->info_len, b->data_len, pdc_cur_left(c));
		if (b->info_len >= 16) {
			b->prog_type = pd_load_u32(c->p, c->swap);
			b->prog_id = pd_load_u32(c->p + 4, c->swap);
			memcpy(b->tag, c->p + 8, sizeof(b->tag));
		}
		c->p += (size_t)b->info_len + b->data_len;
		d->env->bpf_prog_bytes +=
			16 + (uint64_t)b->info_len + b->data_len;
		d->env->nr_bpf_progs = i + 1;
	}
	return ENV_OK;
}

/* format.md §4.26 BPF_BTF: u32 count, then u32 id, u32 size, size bytes */
int pd_env_dec_bpf_btf(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_btf *btfs;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no count");
	if (nr > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u BTFs cannot fit", nr);
	btfs = pd_env_dec_array(d, nr, sizeof(*btfs));
	ENV_NEED(btfs);
	d->env->btfs = btfs;
	for (uint32_t i = 0; i < nr; i++) {
		(void)pdc_cur_u32(c, &btfs[i].id);
		(void)pdc_cur_u32(c, &btfs[i].data_size);
		if (btfs[i].data_size > pdc_cur_left(c))
			return pd_env_dec_bad(
				d, c, "BTF %u: %u bytes, %zu left", i,
				btfs[i].data_size, pdc_cur_left(c));
		c->p += btfs[i].data_size;
		d->env->btf_bytes += 8 + (uint64_t)btfs[i].data_size;
		d->env->nr_btfs = i + 1;
	}
	return ENV_OK;
}

/* u32 nr, then nr {name, value} string pairs (perf's __write_pmu_caps) */
static int read_caps(struct env_dec *d, struct pdc_cur *c, uint32_t *nr_out,
		     const struct pd_env_cap **out)
{
	struct pd_env_cap *caps;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no capability count");
	if (nr > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u capabilities cannot fit", nr);
	caps = pd_env_dec_array(d, nr, sizeof(*caps));
	ENV_NEED(caps);
	*out = caps;
	for (*nr_out = 0; *nr_out < nr; (*nr_out)++) {
		ENV_TRY(pd_env_dec_str(d, c, &caps[*nr_out].name));
		ENV_TRY(pd_env_dec_str(d, c, &caps[*nr_out].value));
	}
	return ENV_OK;
}

/* format.md §4.28 CPU_PMU_CAPS: the core PMU's capabilities */
int pd_env_dec_cpu_pmu_caps(struct env_dec *d, struct pdc_cur *c)
{
	return read_caps(d, c, &d->env->nr_cpu_pmu_caps,
			 &d->env->cpu_pmu_caps);
}

/*
 * format.md §4.31 PMU_CAPS: u32 nr_pmu, then per PMU its capabilities (as
 * CPU_PMU_CAPS) followed by the PMU's name.
 */
int pd_env_dec_pmu_caps(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_pmu_caps *pmus;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no PMU count");
	if (nr > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u PMUs cannot fit", nr);
	pmus = pd_env_dec_array(d, nr, sizeof(*pmus));
	ENV_NEED(pmus);
	d->env->pmu_caps = pmus;
	for (uint32_t i = 0; i < nr; i++) {
		ENV_TRY(read_caps(d, c, &pmus[i].nr_caps, &pmus[i].caps));
		ENV_TRY(pd_env_dec_str(d, c, &pmus[i].pmu_name));
		d->env->nr_pmu_caps = i + 1;
	}
	return ENV_OK;
}
