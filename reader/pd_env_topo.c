/*
 * pd_env_topo.c - the feature sections that describe the machine's
 * layout: CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY,
 * HYBRID_TOPOLOGY and CPU_DOMAIN_INFO.  format.md §4; layouts from perf's
 * tools/perf/util/header.c.
 */
#include "pd_env_int.h"

/*
 * format.md §4.13 CPU_TOPOLOGY, in three revisions that each append:
 *  1. u32 nr + strings (cpu lists per package), u32 nr + strings (per core);
 *  2. per cpu, for nr_cpus_avail cpus (from NRCPUS): u32 core_id,
 *     u32 socket_id;
 *  3. u32 nr + strings (per die), then per cpu u32 die_id.
 * perf tells the revisions apart by what is left of the section.
 */
int pd_env_dec_cpu_topology(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env *env = d->env;
	struct pd_env_cpu *cpus;
	uint32_t nr_cpus;

	ENV_TRY(pd_env_dec_strlist(d, c, &env->cpu_topology.nr_core_siblings,
				   &env->cpu_topology.core_siblings));
	ENV_TRY(pd_env_dec_strlist(d, c, &env->cpu_topology.nr_thread_siblings,
				   &env->cpu_topology.thread_siblings));
	if (pdc_cur_left(c) == 0)
		return ENV_OK;
	if (env->status[PD_FEAT_NRCPUS] == PD_ENV_OK) {
		nr_cpus = env->nr_cpus_avail;
	} else if (pdc_cur_left(c) % 8 == 0) {
		/* no NRCPUS to size the ids by: revision 2 fills the rest */
		nr_cpus = (uint32_t)(pdc_cur_left(c) / 8);
	} else {
		return pd_env_dec_bad(d, c,
				      "per-cpu ids, but no NRCPUS to count "
				      "them by");
	}
	if (nr_cpus > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u cpus' ids cannot fit", nr_cpus);
	cpus = pd_env_dec_array(d, nr_cpus, sizeof(*cpus));
	ENV_NEED(cpus);
	for (uint32_t i = 0; i < nr_cpus; i++) {
		(void)pdc_cur_u32(c, &cpus[i].core_id);
		(void)pdc_cur_u32(c, &cpus[i].socket_id);
		cpus[i].die_id = (uint32_t)-1;
	}
	env->cpu_topology.cpus = cpus;
	env->cpu_topology.nr_cpus = nr_cpus;
	env->cpu_topology.has_cpu_ids = 1;
	if (pdc_cur_left(c) == 0)
		return ENV_OK;
	ENV_TRY(pd_env_dec_strlist(d, c, &env->cpu_topology.nr_die_siblings,
				   &env->cpu_topology.die_siblings));
	if (nr_cpus > pdc_cur_left(c) / 4)
		return pd_env_dec_bad(d, c, "%u cpus' die ids cannot fit",
				      nr_cpus);
	for (uint32_t i = 0; i < nr_cpus; i++)
		(void)pdc_cur_u32(c, &cpus[i].die_id);
	env->cpu_topology.has_die_ids = 1;
	return ENV_OK;
}

/*
 * format.md §4.14 NUMA_TOPOLOGY: u32 nr, then per node: u32 node,
 * u64 mem_total (kB), u64 mem_free (kB), the cpu list string.
 */
int pd_env_dec_numa_topology(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_numa_node *nodes;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no node count");
	if (nr > pdc_cur_left(c) / 24)
		return pd_env_dec_bad(d, c, "%u nodes cannot fit", nr);
	nodes = pd_env_dec_array(d, nr, sizeof(*nodes));
	ENV_NEED(nodes);
	d->env->numa_nodes = nodes;
	for (uint32_t i = 0; i < nr; i++) {
		if (!pdc_cur_u32(c, &nodes[i].node) ||
		    !pdc_cur_u64(c, &nodes[i].mem_total_kb) ||
		    !pdc_cur_u64(c, &nodes[i].mem_free_kb))
			return pd_env_dec_bad(d, c, "node %u cut short", i);
		ENV_TRY(pd_env_dec_str(d, c, &nodes[i].cpus));
		d->env->nr_numa_nodes = i + 1;
	}
	return ENV_OK;
}

/*
 * format.md §4.20 CACHE: u32 version (1), u32 nr, then per cache: u32
 * level, line_size, sets, ways, then the type, size and shared-cpu-list
 * strings.
 */
int pd_env_dec_cache(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_cache *caches;
	uint32_t nr;

	if (!pdc_cur_u32(c, &d->env->cache_version))
		return pd_env_dec_bad(d, c, "no version");
	if (d->env->cache_version != 1)
		return pd_env_dec_bad(d, c, "version %u",
				      d->env->cache_version);
	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no cache count");
	if (nr > pdc_cur_left(c) / 28)
		return pd_env_dec_bad(d, c, "%u caches cannot fit", nr);
	caches = pd_env_dec_array(d, nr, sizeof(*caches));
	ENV_NEED(caches);
	d->env->caches = caches;
	for (uint32_t i = 0; i < nr; i++) {
		struct pd_env_cache *k = &caches[i];

		if (!pdc_cur_u32(c, &k->level) ||
		    !pdc_cur_u32(c, &k->line_size) ||
		    !pdc_cur_u32(c, &k->sets) || !pdc_cur_u32(c, &k->ways))
			return pd_env_dec_bad(d, c, "cache %u cut short", i);
		ENV_TRY(pd_env_dec_str(d, c, &k->type));
		ENV_TRY(pd_env_dec_str(d, c, &k->size));
		ENV_TRY(pd_env_dec_str(d, c, &k->map));
		d->env->nr_caches = i + 1;
	}
	return ENV_OK;
}

static uint64_t popcount64(uint64_t v)
{
	return (uint64_t)__builtin_popcountll(v);
}

/*
 * format.md §4.22 MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr,
 * then per node: u64 node, u64 size, and a bitmap written as u64 bits
 * then (bits + 63) / 64 u64 words.  perf reads the bitmap's own bit count
 * over the size before it, as we do.
 */
int pd_env_dec_mem_topology(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_mem_node *nodes;
	uint64_t nr, version;

	if (!pdc_cur_u64(c, &version))
		return pd_env_dec_bad(d, c, "no version");
	d->env->mem_topology_version = version;
	if (version != 1)
		return pd_env_dec_bad(d, c, "version %llu",
				      (unsigned long long)version);
	if (!pdc_cur_u64(c, &d->env->mem_block_size) || !pdc_cur_u64(c, &nr))
		return pd_env_dec_bad(d, c, "header cut short");
	if (nr > pdc_cur_left(c) / 24)
		return pd_env_dec_bad(d, c, "%llu nodes cannot fit",
				      (unsigned long long)nr);
	nodes = pd_env_dec_array(d, nr, sizeof(*nodes));
	ENV_NEED(nodes);
	d->env->mem_nodes = nodes;
	for (uint64_t i = 0; i < nr; i++) {
		struct pd_env_mem_node *n = &nodes[i];
		uint64_t size, bits, words;
		uint64_t *map;

		if (!pdc_cur_u64(c, &n->node) || !pdc_cur_u64(c, &size) ||
		    !pdc_cur_u64(c, &bits))
			return pd_env_dec_bad(d, c, "node %llu cut short",
					      (unsigned long long)i);
		words = bits / 64 + (bits % 64 != 0);
		if (words > pdc_cur_left(c) / 8)
			return pd_env_dec_bad(d, c,
					      "bitmap of %llu bits cannot fit",
					      (unsigned long long)bits);
		map = pd_env_dec_array(d, words, sizeof(*map));
		ENV_NEED(map);
		for (uint64_t w = 0; w < words; w++) {
			(void)pdc_cur_u64(c, &map[w]);
			/* bits past the bitmap's size do not count */
			if (w == words - 1 && bits % 64)
				map[w] &= (1ull << (bits % 64)) - 1;
			n->nr_set += popcount64(map[w]);
		}
		n->nr_bits = bits;
		n->bitmap = map;
		d->env->nr_mem_nodes = i + 1;
	}
	return ENV_OK;
}

/* format.md §4.30 HYBRID_TOPOLOGY: u32 nr, then pmu name and cpu list */
int pd_env_dec_hybrid_topology(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_hybrid_node *nodes;
	uint32_t nr;

	if (!pdc_cur_u32(c, &nr))
		return pd_env_dec_bad(d, c, "no node count");
	if (nr > pdc_cur_left(c) / 8)
		return pd_env_dec_bad(d, c, "%u nodes cannot fit", nr);
	nodes = pd_env_dec_array(d, nr, sizeof(*nodes));
	ENV_NEED(nodes);
	d->env->hybrid_nodes = nodes;
	for (uint32_t i = 0; i < nr; i++) {
		ENV_TRY(pd_env_dec_str(d, c, &nodes[i].pmu_name));
		ENV_TRY(pd_env_dec_str(d, c, &nodes[i].cpus));
		d->env->nr_hybrid_nodes = i + 1;
	}
	return ENV_OK;
}

/*
 * CPU_DOMAIN_INFO (bit 32): u32 schedstat version, u32 max domains, then
 * per cpu until the end: u32 cpu, u32 nr_domains, and per domain u32
 * domain, a name string (schedstat version >= 17 only), the cpumask and
 * cpulist strings.  perf counts the cpus by nr_cpus_online; the writer
 * skips cpus it has no data for, so we read to the end instead.
 */
int pd_env_dec_cpu_domain_info(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env *env = d->env;
	struct pd_env_cpu_domains *cpus;
	uint64_t max_cpus;

	if (!pdc_cur_u32(c, &env->schedstat_version) ||
	    !pdc_cur_u32(c, &env->max_sched_domains))
		return pd_env_dec_bad(d, c, "header cut short");
	max_cpus = pdc_cur_left(c) / 8;
	cpus = pd_env_dec_array(d, max_cpus, sizeof(*cpus));
	ENV_NEED(cpus);
	env->cpu_domains = cpus;
	while (pdc_cur_left(c)) {
		struct pd_env_cpu_domains *cd = &cpus[env->nr_cpu_domains];
		struct pd_env_sched_domain *doms;
		uint32_t nr;

		if (!pdc_cur_u32(c, &cd->cpu) || !pdc_cur_u32(c, &nr))
			return pd_env_dec_bad(d, c, "cpu entry cut short");
		/* a domain takes at least its id and two string lengths */
		if (nr > pdc_cur_left(c) / 12)
			return pd_env_dec_bad(d, c, "%u domains cannot fit",
					      nr);
		doms = pd_env_dec_array(d, nr, sizeof(*doms));
		ENV_NEED(doms);
		cd->domains = doms;
		env->nr_cpu_domains++;
		for (uint32_t j = 0; j < nr; j++) {
			if (!pdc_cur_u32(c, &doms[j].domain))
				return pd_env_dec_bad(d, c, "domain cut short");
			if (env->schedstat_version >= 17)
				ENV_TRY(pd_env_dec_str(d, c, &doms[j].name));
			ENV_TRY(pd_env_dec_str(d, c, &doms[j].cpumask));
			ENV_TRY(pd_env_dec_str(d, c, &doms[j].cpulist));
			cd->nr_domains = j + 1;
		}
	}
	return ENV_OK;
}
