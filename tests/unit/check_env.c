/*
 * check_env.c - the feature-section decoders (reader/pd_env*.c): perf.data
 * files built here in memory, in both byte orders, with sections whole,
 * damaged, empty, unknown and in every layout revision perf wrote; a
 * pipe-mode stream whose features arrive as records; and allocation
 * failures.
 */
#include "failalloc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd.h"
#include "testcorpus.h"

/* ---- building captures --------------------------------------------- */

struct fbuf {
	unsigned char *p;
	size_t len, cap;
	int swap; /* write the non-host byte order */
};

static void put(struct fbuf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_u8(struct fbuf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_u16(struct fbuf *b, uint16_t v)
{
	if (b->swap)
		v = __builtin_bswap16(v);
	put(b, &v, 2);
}

static void put_u32(struct fbuf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	put(b, &v, 4);
}

static void put_u64(struct fbuf *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	put(b, &v, 8);
}

static void put_zeros(struct fbuf *b, size_t n)
{
	static const unsigned char zero[256];

	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		put(b, zero, k);
		n -= k;
	}
}

/* perf's do_write_string: u32 len (NUL and padding to 64), the bytes */
static void put_str(struct fbuf *b, const char *s)
{
	size_t olen = strlen(s) + 1, len = (olen + 63) / 64 * 64;

	put_u32(b, (uint32_t)len);
	put(b, s, olen);
	put_zeros(b, len - olen);
}

#define MAX_SECS 40

struct capture {
	int swap;
	unsigned feat[MAX_SECS];
	struct fbuf sec[MAX_SECS];
	unsigned nr;
	unsigned char *file;
	size_t len;
};

static struct fbuf *section(struct capture *c, unsigned feat)
{
	ck_assert_uint_lt(c->nr, MAX_SECS);
	c->feat[c->nr] = feat;
	memset(&c->sec[c->nr], 0, sizeof(c->sec[0]));
	c->sec[c->nr].swap = c->swap;
	return &c->sec[c->nr++];
}

/* sections in bit order, as the feature table lists them */
static void sort_sections(struct capture *c)
{
	for (unsigned i = 1; i < c->nr; i++)
		for (unsigned j = i; j > 0 && c->feat[j - 1] > c->feat[j]; j--) {
			unsigned feat = c->feat[j];
			struct fbuf sec = c->sec[j];

			c->feat[j] = c->feat[j - 1];
			c->sec[j] = c->sec[j - 1];
			c->feat[j - 1] = feat;
			c->sec[j - 1] = sec;
		}
}

/*
 * A file-mode capture: the 104-byte header, no attrs, a data section with
 * one FINISHED_ROUND, the feature table and the sections.
 */
static void build(struct capture *c)
{
	struct fbuf b = { .swap = c->swap };
	const uint64_t data_off = 104, data_size = 8;
	uint64_t features[4] = { 0 };
	uint64_t off;

	sort_sections(c);
	for (unsigned i = 0; i < c->nr; i++)
		features[c->feat[i] / 64] |= 1ull << (c->feat[i] % 64);
	put_u64(&b, 0x32454c4946524550ull); /* "PERFILE2" */
	put_u64(&b, 104);		     /* header size */
	put_u64(&b, 136 + 16);		     /* attr_size */
	put_u64(&b, 0);			     /* attrs */
	put_u64(&b, 0);
	put_u64(&b, data_off);
	put_u64(&b, data_size);
	put_u64(&b, 0);			     /* event_types */
	put_u64(&b, 0);
	for (int i = 0; i < 4; i++)
		put_u64(&b, features[i]);
	/* FINISHED_ROUND */
	put_u32(&b, 68);
	put_u16(&b, 0);
	put_u16(&b, 8);
	off = data_off + data_size + 16ull * c->nr;
	for (unsigned i = 0; i < c->nr; i++) {
		put_u64(&b, off);
		put_u64(&b, c->sec[i].len);
		off += c->sec[i].len;
	}
	for (unsigned i = 0; i < c->nr; i++) {
		if (c->sec[i].len)
			put(&b, c->sec[i].p, c->sec[i].len);
		free(c->sec[i].p);
	}
	c->file = b.p;
	c->len = b.len;
}

/* ---- opening them -------------------------------------------------- */

static char logbuf[4096];
static unsigned nr_warnings;

static void log_fn(void *arg, enum pd_log_level level, const char *msg)
{
	size_t used = strlen(logbuf);

	(void)arg;
	if (level == PD_LOG_WARN)
		nr_warnings++;
	snprintf(logbuf + used, sizeof(logbuf) - used, "%s\n", msg);
}

static struct pd_file *open_capture(struct capture *c)
{
	struct pd_file *f;
	char err[256];
	PD_OPTS(opts, .log = log_fn, .log_level = PD_LOG_DEBUG, .errbuf = err,
		.errbuf_size = sizeof(err));

	build(c);
	logbuf[0] = '\0';
	nr_warnings = 0;
	ck_assert_msg(pd_file_open_mem(c->file, c->len, &opts, &f) == 0, "%s",
		      err);
	return f;
}

static void close_capture(struct capture *c, struct pd_file *f)
{
	pd_file_close(f);
	free(c->file);
}

/* ---- the host strings, in both byte orders ------------------------- */

/* pd_file_env's result, or NULL when it fails (only on NOMEM) */
static const struct pd_env *env_of(struct pd_file *f)
{
	const struct pd_env *env;

	return pd_file_env(f, &env) == 0 ? env : NULL;
}

START_TEST(test_strings)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	put_str(section(&c, PD_FEAT_HOSTNAME), "host-1");
	put_str(section(&c, PD_FEAT_OSRELEASE), "6.1.0-13-amd64");
	put_str(section(&c, PD_FEAT_VERSION), "6.1.55");
	put_str(section(&c, PD_FEAT_ARCH), "x86_64");
	b = section(&c, PD_FEAT_NRCPUS);
	put_u32(b, 8);	/* avail */
	put_u32(b, 4);	/* online */
	put_str(section(&c, PD_FEAT_CPUDESC), "Some CPU @ 2.00GHz");
	put_str(section(&c, PD_FEAT_CPUID), "GenuineIntel,6,85,7");
	put_u64(section(&c, PD_FEAT_TOTAL_MEM), 16303744);
	b = section(&c, PD_FEAT_CMDLINE);
	put_u32(b, 3);
	put_str(b, "/usr/bin/perf");
	put_str(b, "record");
	put_str(b, "it's");
	f = open_capture(&c);
	ck_assert_int_eq(pd_file_header(f)->big_endian,
			 _i ^ (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	env = env_of(f);
	ck_assert_ptr_nonnull(env);
	ck_assert_str_eq(env->hostname, "host-1");
	ck_assert_str_eq(env->os_release, "6.1.0-13-amd64");
	ck_assert_str_eq(env->version, "6.1.55");
	ck_assert_str_eq(env->arch, "x86_64");
	ck_assert_uint_eq(env->nr_cpus_avail, 8);
	ck_assert_uint_eq(env->nr_cpus_online, 4);
	ck_assert_str_eq(env->cpu_desc, "Some CPU @ 2.00GHz");
	ck_assert_str_eq(env->cpuid, "GenuineIntel,6,85,7");
	ck_assert_uint_eq(env->total_mem_kb, 16303744);
	ck_assert_uint_eq(env->nr_cmdline, 3);
	ck_assert_str_eq(env->cmdline[0], "/usr/bin/perf");
	ck_assert_str_eq(env->cmdline[2], "it's");
	ck_assert_uint_eq(env->nr_features, 9);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_int_eq(env->status[PD_FEAT_CMDLINE], PD_ENV_OK);
	ck_assert_int_eq(env->status[PD_FEAT_BUILD_ID], PD_ENV_ABSENT);
	ck_assert_uint_eq(nr_warnings, 0);
	/* decoded once: the same answer again */
	ck_assert_ptr_eq(env_of(f), env);
	close_capture(&c, f);
}
END_TEST

/* ---- build ids ----------------------------------------------------- */

static void put_bid(struct fbuf *b, int old, uint16_t misc, int32_t pid,
		    uint8_t fill, int size, const char *name)
{
	size_t nlen = (strlen(name) + 1 + 63) / 64 * 64;
	size_t hdr = old ? 32 : 36;
	unsigned char id[24] = { 0 };

	memset(id, fill, 20);
	if (size >= 0)
		id[20] = (uint8_t)size;
	put_u32(b, 67);
	put_u16(b, misc);
	put_u16(b, (uint16_t)(hdr + nlen));
	if (!old)
		put_u32(b, (uint32_t)pid);
	put(b, id, 24);
	put(b, name, strlen(name) + 1);
	put_zeros(b, nlen - strlen(name) - 1);
}

START_TEST(test_build_id)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b = section(&c, PD_FEAT_BUILD_ID);

	put_bid(b, 0, PD_MISC_KERNEL, -1, 0xab, -1, "[kernel.kallsyms]");
	put_bid(b, 0, PD_MISC_USER | PD_MISC_BUILD_ID_SIZE, 1234, 0xcd, 16,
		"/usr/lib/libc.so.6");
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_build_ids, 2);
	ck_assert_int_eq(env->build_ids[0].pid, -1);
	ck_assert_uint_eq(env->build_ids[0].cpumode, PD_MISC_KERNEL);
	ck_assert_uint_eq(env->build_ids[0].size, 20);
	ck_assert_uint_eq(env->build_ids[0].build_id[19], 0xab);
	ck_assert_str_eq(env->build_ids[0].filename, "[kernel.kallsyms]");
	ck_assert_int_eq(env->build_ids[1].pid, 1234);
	ck_assert_uint_eq(env->build_ids[1].cpumode, PD_MISC_USER);
	ck_assert_uint_eq(env->build_ids[1].size, 16);
	ck_assert_str_eq(env->build_ids[1].filename, "/usr/lib/libc.so.6");
	ck_assert_int_eq(env->build_ids[1].old_abi, 0);
	ck_assert_int_eq(env->status[PD_FEAT_BUILD_ID], PD_ENV_OK);
	close_capture(&c, f);
}
END_TEST

/* perf before 2.6.35 wrote no pid; the kernel entry gives it away */
START_TEST(test_build_id_old_abi)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b = section(&c, PD_FEAT_BUILD_ID);

	put_bid(b, 1, PD_MISC_KERNEL, 0, 0x11, -1, "[kernel.kallsyms]");
	put_bid(b, 1, PD_MISC_GUEST_KERNEL, 0, 0x22, -1, "[guest.kernel]");
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_build_ids, 2);
	ck_assert_int_eq(env->build_ids[0].old_abi, 1);
	ck_assert_int_eq(env->build_ids[0].pid, PD_ENV_HOST_KERNEL_PID);
	ck_assert_uint_eq(env->build_ids[0].build_id[0], 0x11);
	ck_assert_str_eq(env->build_ids[0].filename, "[kernel.kallsyms]");
	ck_assert_int_eq(env->build_ids[1].pid, PD_ENV_GUEST_KERNEL_PID);
	ck_assert_str_eq(env->build_ids[1].filename, "[guest.kernel]");
	close_capture(&c, f);
}
END_TEST

/* ---- cpu topology, all three revisions ----------------------------- */

static void topo_common(struct capture *c, int with_nrcpus)
{
	struct fbuf *b;

	if (with_nrcpus) {
		b = section(c, PD_FEAT_NRCPUS);
		put_u32(b, 2);
		put_u32(b, 2);
	}
}

static void put_topo_lists(struct fbuf *b)
{
	put_u32(b, 1);
	put_str(b, "0-1");
	put_u32(b, 2);
	put_str(b, "0");
	put_str(b, "1");
}

/* _i: 1, 2 or 3, the revision */
START_TEST(test_cpu_topology)
{
	struct capture c = { .swap = _i & 4 ? 1 : 0 };
	const int rev = _i & 3;
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	topo_common(&c, 1);
	b = section(&c, PD_FEAT_CPU_TOPOLOGY);
	put_topo_lists(b);
	if (rev >= 2)
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			put_u32(b, cpu);	/* core */
			put_u32(b, 0);		/* socket */
		}
	if (rev >= 3) {
		put_u32(b, 1);
		put_str(b, "0-1");
		put_u32(b, 0);
		put_u32(b, 0);
	}
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_int_eq(env->status[PD_FEAT_CPU_TOPOLOGY], PD_ENV_OK);
	ck_assert_uint_eq(env->cpu_topology.nr_core_siblings, 1);
	ck_assert_str_eq(env->cpu_topology.core_siblings[0], "0-1");
	ck_assert_uint_eq(env->cpu_topology.nr_thread_siblings, 2);
	ck_assert_str_eq(env->cpu_topology.thread_siblings[1], "1");
	ck_assert_int_eq(env->cpu_topology.has_cpu_ids, rev >= 2);
	ck_assert_int_eq(env->cpu_topology.has_die_ids, rev >= 3);
	if (rev >= 2) {
		ck_assert_uint_eq(env->cpu_topology.nr_cpus, 2);
		ck_assert_uint_eq(env->cpu_topology.cpus[1].core_id, 1);
		ck_assert_uint_eq(env->cpu_topology.cpus[1].die_id,
				  rev >= 3 ? 0 : (uint32_t)-1);
	}
	if (rev >= 3)
		ck_assert_str_eq(env->cpu_topology.die_siblings[0], "0-1");
	close_capture(&c, f);
}
END_TEST

/* ids cut off: the lists are kept, the section is DAMAGED, one warning */
START_TEST(test_cpu_topology_damaged)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	topo_common(&c, 1);
	b = section(&c, PD_FEAT_CPU_TOPOLOGY);
	put_topo_lists(b);
	put_u32(b, 0); /* core of cpu 0, then nothing */
	put_str(section(&c, PD_FEAT_CPUID), "after");
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_int_eq(env->status[PD_FEAT_CPU_TOPOLOGY], PD_ENV_DAMAGED);
	ck_assert_uint_eq(env->cpu_topology.nr_thread_siblings, 2);
	ck_assert_int_eq(env->cpu_topology.has_cpu_ids, 0);
	ck_assert_int_eq(env->status[PD_FEAT_CPUID], PD_ENV_OK);
	ck_assert_str_eq(env->cpuid, "after");
	ck_assert_uint_eq(env->nr_damaged, 1);
	ck_assert_uint_eq(nr_warnings, 1);
	ck_assert_ptr_nonnull(strstr(logbuf, "cpu_topology is damaged"));
	close_capture(&c, f);
}
END_TEST

/* ---- the other perf sections --------------------------------------- */

START_TEST(test_machine_sections)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	b = section(&c, PD_FEAT_NUMA_TOPOLOGY);
	put_u32(b, 1);
	put_u32(b, 0);
	put_u64(b, 1000);
	put_u64(b, 400);
	put_str(b, "0-3");
	b = section(&c, PD_FEAT_BRANCH_STACK); /* a flag, no data */
	b = section(&c, PD_FEAT_PMU_MAPPINGS);
	put_u32(b, 2);
	put_u32(b, 4);
	put_str(b, "cpu");
	put_u32(b, 1);
	put_str(b, "software");
	b = section(&c, PD_FEAT_GROUP_DESC);
	put_u32(b, 1);
	put_str(b, "{anon_group}");
	put_u32(b, 0);
	put_u32(b, 2);
	b = section(&c, PD_FEAT_CACHE);
	put_u32(b, 1);
	put_u32(b, 1);
	put_u32(b, 1);
	put_u32(b, 64);
	put_u32(b, 64);
	put_u32(b, 8);
	put_str(b, "Data");
	put_str(b, "32K");
	put_str(b, "0-1");
	b = section(&c, PD_FEAT_SAMPLE_TIME);
	put_u64(b, 1000);
	put_u64(b, 5000);
	b = section(&c, PD_FEAT_MEM_TOPOLOGY);
	put_u64(b, 1);
	put_u64(b, 0x8000000);
	put_u64(b, 1);
	put_u64(b, 0);	  /* node */
	put_u64(b, 70);	  /* size */
	put_u64(b, 70);	  /* bitmap bits */
	put_u64(b, 0xffull);
	put_u64(b, 0xffffffffull); /* bits past 70 do not count */
	put_u64(section(&c, PD_FEAT_CLOCKID), 1);
	put_u64(section(&c, PD_FEAT_DIR_FORMAT), 1);
	b = section(&c, PD_FEAT_COMPRESSED);
	put_u32(b, 0);
	put_u32(b, 1);
	put_u32(b, 3);
	put_u32(b, 7);
	put_u32(b, 528384);
	b = section(&c, PD_FEAT_CLOCK_DATA);
	put_u32(b, 1);
	put_u32(b, 1);
	put_u64(b, 1700000000123456789ull);
	put_u64(b, 4242);
	b = section(&c, PD_FEAT_HYBRID_TOPOLOGY);
	put_u32(b, 2);
	put_str(b, "cpu_core");
	put_str(b, "0-3");
	put_str(b, "cpu_atom");
	put_str(b, "4-11");
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_uint_eq(env->nr_numa_nodes, 1);
	ck_assert_uint_eq(env->numa_nodes[0].mem_total_kb, 1000);
	ck_assert_uint_eq(env->numa_nodes[0].mem_free_kb, 400);
	ck_assert_str_eq(env->numa_nodes[0].cpus, "0-3");
	ck_assert_int_eq(env->status[PD_FEAT_BRANCH_STACK], PD_ENV_OK);
	ck_assert_uint_eq(env->nr_pmu_mappings, 2);
	ck_assert_uint_eq(env->pmu_mappings[0].type, 4);
	ck_assert_str_eq(env->pmu_mappings[1].name, "software");
	ck_assert_uint_eq(env->nr_groups, 1);
	ck_assert_uint_eq(env->groups[0].nr_members, 2);
	ck_assert_uint_eq(env->nr_caches, 1);
	ck_assert_uint_eq(env->caches[0].ways, 8);
	ck_assert_str_eq(env->caches[0].map, "0-1");
	ck_assert_uint_eq(env->first_sample_time, 1000);
	ck_assert_uint_eq(env->last_sample_time, 5000);
	ck_assert_uint_eq(env->nr_mem_nodes, 1);
	ck_assert_uint_eq(env->mem_block_size, 0x8000000);
	ck_assert_uint_eq(env->mem_nodes[0].nr_bits, 70);
	ck_assert_uint_eq(env->mem_nodes[0].nr_set, 8 + 6);
	ck_assert_uint_eq(env->clockid_res_ns, 1);
	ck_assert_uint_eq(env->dir_format_version, 1);
	ck_assert_uint_eq(env->compressed.type, 1);
	ck_assert_uint_eq(env->compressed.mmap_len, 528384);
	ck_assert_uint_eq(env->clock_data.tod_ns, 1700000000123456789ull);
	ck_assert_uint_eq(env->clock_data.clockid_ns, 4242);
	ck_assert_uint_eq(env->nr_hybrid_nodes, 2);
	ck_assert_str_eq(env->hybrid_nodes[1].cpus, "4-11");
	close_capture(&c, f);
}
END_TEST

START_TEST(test_pmu_bpf_aux_sections)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	b = section(&c, PD_FEAT_AUXTRACE); /* perf: a count, then pairs */
	put_u64(b, 2);
	put_u64(b, 0x1000);
	put_u64(b, 48);
	put_u64(b, 0x2000);
	put_u64(b, 48);
	b = section(&c, PD_FEAT_BPF_PROG_INFO);
	put_u32(b, 1);
	put_u32(b, 16);	/* info_len */
	put_u32(b, 8);	/* data_len */
	put_u64(b, 0);
	put_u32(b, 2);	/* type */
	put_u32(b, 77);	/* id */
	put(b, "tagtagta", 8);
	put_zeros(b, 8);
	b = section(&c, PD_FEAT_BPF_BTF);
	put_u32(b, 1);
	put_u32(b, 9);
	put_u32(b, 5);
	put(b, "btf!!", 5);
	b = section(&c, PD_FEAT_CPU_PMU_CAPS);
	put_u32(b, 1);
	put_str(b, "branches");
	put_str(b, "32");
	b = section(&c, PD_FEAT_PMU_CAPS);
	put_u32(b, 1);
	put_u32(b, 1);
	put_str(b, "max_precise");
	put_str(b, "3");
	put_str(b, "cpu_atom");
	b = section(&c, 32); /* CPU_DOMAIN_INFO */
	put_u32(b, 17);
	put_u32(b, 2);
	put_u32(b, 0);	/* cpu */
	put_u32(b, 1);	/* domains */
	put_u32(b, 0);
	put_str(b, "SMT");
	put_str(b, "00000003");
	put_str(b, "0-1");
	b = section(&c, 33); /* E_MACHINE */
	put_u32(b, 62);
	put_u32(b, 0);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_uint_eq(env->nr_auxtrace, 2);
	ck_assert_uint_eq(env->auxtrace[1].offset, 0x2000);
	ck_assert_uint_eq(env->nr_bpf_progs, 1);
	ck_assert_uint_eq(env->bpf_progs[0].prog_id, 77);
	ck_assert_uint_eq(env->bpf_progs[0].data_len, 8);
	ck_assert_uint_eq(env->bpf_prog_bytes, 16 + 16 + 8);
	ck_assert_uint_eq(env->nr_btfs, 1);
	ck_assert_uint_eq(env->btfs[0].id, 9);
	ck_assert_uint_eq(env->btfs[0].data_size, 5);
	ck_assert_uint_eq(env->nr_cpu_pmu_caps, 1);
	ck_assert_str_eq(env->cpu_pmu_caps[0].value, "32");
	ck_assert_uint_eq(env->nr_pmu_caps, 1);
	ck_assert_str_eq(env->pmu_caps[0].pmu_name, "cpu_atom");
	ck_assert_str_eq(env->pmu_caps[0].caps[0].name, "max_precise");
	ck_assert_uint_eq(env->nr_cpu_domains, 1);
	ck_assert_str_eq(env->cpu_domains[0].domains[0].name, "SMT");
	ck_assert_str_eq(env->cpu_domains[0].domains[0].cpulist, "0-1");
	ck_assert_uint_eq(env->e_machine, 62);
	close_capture(&c, f);
}
END_TEST

/* simpleperf: AUXTRACE pairs without the count, META_INFO, FILE */
START_TEST(test_simpleperf_sections)
{
	static const char meta[] =
		"simpleperf_version\0" "1.1\0" "clockid\0" "monotonic\0";
	struct capture c = { .swap = 0 };
	const struct pd_sp_file *sf;
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	b = section(&c, PD_FEAT_AUXTRACE);
	put_u64(b, 0x1000);
	put_u64(b, 48);
	b = section(&c, PD_FEAT_SIMPLEPERF_FILE);
	/* an ELF file: path, type 2, min_vaddr, 2 symbols, file offset */
	put_u32(b, 8 + 4 + 8 + 4 + (12 + 5) + (12 + 2) + 8);
	put(b, "/bin/ls", 8);
	put_u32(b, 2);
	put_u64(b, 0x4000);
	put_u32(b, 2);
	put_u64(b, 0x4100);
	put_u32(b, 0x20);
	put(b, "main", 5);
	put_u64(b, 0x4120);
	put_u32(b, 0);
	put(b, "f", 2);
	put_u64(b, 0x3000);
	/* a dex file: no symbols, two dex file offsets */
	put_u32(b, 6 + 4 + 8 + 4 + 4 + 16);
	put(b, "a.jar", 6);
	put_u32(b, 3);
	put_u64(b, 0);
	put_u32(b, 0);
	put_u32(b, 2);
	put_u64(b, 0x2c);
	put_u64(b, 0x91b1c4);
	/* an older ELF entry: no file offset */
	put_u32(b, 5 + 4 + 8 + 4);
	put(b, "b.so", 5);
	put_u32(b, 2);
	put_u64(b, 0x1000);
	put_u32(b, 0);
	b = section(&c, PD_FEAT_SIMPLEPERF_META_INFO);
	put(b, meta, sizeof(meta) - 1);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_uint_eq(env->nr_auxtrace, 1);
	ck_assert_uint_eq(env->auxtrace[0].size, 48);
	ck_assert_uint_eq(env->nr_simpleperf_files, 3);
	ck_assert_str_eq(env->simpleperf_file_paths[0], "/bin/ls");
	ck_assert_ptr_nonnull(env->simpleperf_files);
	sf = env->simpleperf_files;
	ck_assert_str_eq(sf[0].path, "/bin/ls");
	ck_assert_uint_eq(sf[0].type, PD_SP_DSO_ELF_FILE);
	ck_assert_uint_eq(sf[0].min_vaddr, 0x4000);
	ck_assert_uint_eq(sf[0].file_offset_of_min_vaddr, 0x3000);
	ck_assert_uint_eq(sf[0].nr_symbols, 2);
	ck_assert_uint_eq(sf[0].symbols[0].vaddr, 0x4100);
	ck_assert_uint_eq(sf[0].symbols[0].len, 0x20);
	ck_assert_str_eq(sf[0].symbols[0].name, "main");
	ck_assert_str_eq(sf[0].symbols[1].name, "f");
	ck_assert_uint_eq(sf[1].type, PD_SP_DSO_DEX_FILE);
	ck_assert_uint_eq(sf[1].nr_symbols, 0);
	ck_assert_uint_eq(sf[1].nr_dex_file_offsets, 2);
	ck_assert_uint_eq(sf[1].dex_file_offsets[1], 0x91b1c4);
	ck_assert_uint_eq(sf[1].file_offset_of_min_vaddr, UINT64_MAX);
	ck_assert_str_eq(sf[2].path, "b.so");
	ck_assert_uint_eq(sf[2].file_offset_of_min_vaddr, UINT64_MAX);
	ck_assert_uint_eq(env->nr_meta_info, 2);
	ck_assert_str_eq(env->meta_info[0].key, "simpleperf_version");
	ck_assert_str_eq(env->meta_info[1].value, "monotonic");
	close_capture(&c, f);
}
END_TEST

/* A FILE entry whose symbol count runs past it: paths kept, no table. */
START_TEST(test_simpleperf_file_damaged)
{
	struct capture c = { .swap = 0 };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	b = section(&c, PD_FEAT_SIMPLEPERF_FILE);
	put_u32(b, 8 + 4 + 8 + 4);
	put(b, "/bin/ls", 8);
	put_u32(b, 2);
	put_u64(b, 0);
	put_u32(b, 1000);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 1);
	ck_assert_uint_eq(env->nr_simpleperf_files, 1);
	ck_assert_str_eq(env->simpleperf_file_paths[0], "/bin/ls");
	ck_assert_ptr_null(env->simpleperf_files);
	close_capture(&c, f);
}
END_TEST

/* The corpus's simpleperf capture: its symbol tables, JIT code's too. */
START_TEST(test_simpleperf_file_corpus)
{
	char path[CORPUS_PATH_MAX];
	const struct pd_sp_file *sf, *jit = NULL, *libc = NULL;
	const struct pd_env *env;
	struct pd_file *f;
	PD_OPTS(opts);

	corpus_path(path, "simpleperf/perf_with_jit_symbol.data");
	ck_assert_int_eq(pd_file_open(path, &opts, &f), 0);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_uint_eq(env->nr_simpleperf_files, 28);
	sf = env->simpleperf_files;
	ck_assert_ptr_nonnull(sf);
	for (uint32_t i = 0; i < env->nr_simpleperf_files; i++) {
		if (strstr(sf[i].path, "jit_app_cache"))
			jit = &sf[i];
		if (strstr(sf[i].path, "/libc.so"))
			libc = &sf[i];
		if (sf[i].type == PD_SP_DSO_DEX_FILE)
			ck_assert_uint_ge(sf[i].nr_dex_file_offsets, 1);
	}
	ck_assert_ptr_nonnull(jit);
	ck_assert_uint_eq(jit->type, PD_SP_DSO_ELF_FILE);
	ck_assert_uint_eq(jit->nr_symbols, 3);
	ck_assert_str_eq(jit->symbols[0].name,
			 "com.android.simpleperf.debuggable.MainActivity$1.run");
	ck_assert_ptr_nonnull(libc);
	ck_assert_uint_eq(libc->min_vaddr, 0x3b000);
	ck_assert_uint_eq(libc->file_offset_of_min_vaddr, 0x3b000);
	ck_assert_uint_eq(libc->nr_symbols, 5);
	ck_assert_str_eq(libc->symbols[0].name, "syscall");
	ck_assert_uint_eq(libc->symbols[0].vaddr, 296336);
	pd_file_close(f);
}
END_TEST

START_TEST(test_event_desc_and_tracing)
{
	static const unsigned char hdr[10] = { 23, 8, 68, 't', 'r',
					       'a', 'c', 'i', 'n', 'g' };
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	b = section(&c, PD_FEAT_TRACING_DATA);
	put(b, hdr, sizeof(hdr));
	put(b, "0.6", 4);
	put_u8(b, (uint8_t)(_i ^ (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)));
	put_u8(b, 8);
	put_u32(b, 4096);
	put_zeros(b, 20);
	b = section(&c, PD_FEAT_EVENT_DESC);
	put_u32(b, 1);
	put_u32(b, 112);
	put_u32(b, 1);		/* attr.type */
	put_u32(b, 112);	/* attr.size */
	put_u64(b, 0);		/* config: cpu-clock */
	put_u64(b, 4000);	/* sample_freq */
	put_u64(b, 0x107);	/* IP|TID|TIME|PERIOD */
	put_zeros(b, 112 - 32);
	put_u32(b, 2);
	put_str(b, "cpu-clock");
	put_u64(b, 11);
	put_u64(b, 12);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_damaged, 0);
	ck_assert_str_eq(env->tracing.version, "0.6");
	ck_assert_uint_eq(env->tracing.page_size, 4096);
	ck_assert_uint_eq(env->tracing.long_size, 8);
	ck_assert_uint_eq(env->tracing.size, 10 + 4 + 6 + 20);
	ck_assert_uint_eq(env->tracing.offset, 104 + 8 + 32);
	ck_assert_uint_eq(env->nr_events, 1);
	ck_assert_uint_eq(env->events[0].attr.type, 1);
	ck_assert_uint_eq(env->events[0].attr.sample_type, 0x107);
	ck_assert_uint_eq(env->events[0].attr.sample_period, 4000);
	ck_assert_str_eq(env->events[0].name, "cpu-clock");
	ck_assert_uint_eq(env->events[0].nr_ids, 2);
	ck_assert_uint_eq(env->events[0].ids[1], 12);
	close_capture(&c, f);
}
END_TEST

/* ---- damage -------------------------------------------------------- */

/*
 * Each case damages one section between two good ones: the damaged one
 * is reported, the others decode.
 */
enum damage {
	DMG_STRING_PAST_END,
	DMG_HUGE_COUNT,
	DMG_EMPTY,
	DMG_BAD_VERSION,
	DMG_BUILD_ID_SIZE,
	DMG_META_UNTERMINATED,
	DMG_NR
};

START_TEST(test_damaged_sections)
{
	struct capture c = { .swap = _i % 2 };
	const enum damage what = (enum damage)(_i / 2);
	unsigned feat = 0;
	const struct pd_env *env;
	struct pd_file *f;
	struct fbuf *b;

	put_str(section(&c, PD_FEAT_HOSTNAME), "before");
	switch (what) {
	case DMG_STRING_PAST_END:
		feat = PD_FEAT_OSRELEASE;
		b = section(&c, feat);
		put_u32(b, 4096);
		put(b, "short", 5);
		break;
	case DMG_HUGE_COUNT:
		feat = PD_FEAT_CMDLINE;
		b = section(&c, feat);
		put_u32(b, 0xffffffffu);
		put_str(b, "perf");
		break;
	case DMG_EMPTY:
		feat = PD_FEAT_CPUDESC;
		(void)section(&c, feat);
		break;
	case DMG_BAD_VERSION:
		feat = PD_FEAT_CACHE;
		b = section(&c, feat);
		put_u32(b, 2);
		put_u32(b, 0);
		break;
	case DMG_BUILD_ID_SIZE:
		feat = PD_FEAT_BUILD_ID;
		b = section(&c, feat);
		put_bid(b, 0, PD_MISC_USER | PD_MISC_BUILD_ID_SIZE, 1, 0x5a,
			200, "/bin/true");
		break;
	case DMG_META_UNTERMINATED:
		feat = PD_FEAT_SIMPLEPERF_META_INFO;
		break;
	case DMG_NR:
		break;
	}
	if (what == DMG_META_UNTERMINATED) {
		b = section(&c, feat);
		put(b, "key\0value\0dangling", 18);
	}
	put_str(section(&c, PD_FEAT_CPUID), "after");
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(env->status[feat], PD_ENV_DAMAGED);
	ck_assert_uint_eq(env->nr_damaged, 1);
	ck_assert_uint_eq(nr_warnings, 1);
	ck_assert_str_eq(env->hostname, "before");
	ck_assert_str_eq(env->cpuid, "after");
	if (what == DMG_BUILD_ID_SIZE) {
		/* kept, with the size clamped */
		ck_assert_uint_eq(env->nr_build_ids, 1);
		ck_assert_uint_eq(env->build_ids[0].size, 20);
		ck_assert_str_eq(env->build_ids[0].filename, "/bin/true");
	}
	if (what == DMG_META_UNTERMINATED) {
		ck_assert_uint_eq(env->nr_meta_info, 1);
		ck_assert_str_eq(env->meta_info[0].value, "value");
	}
	if (what == DMG_EMPTY)
		ck_assert_ptr_nonnull(strstr(logbuf, "cpudesc is empty"));
	close_capture(&c, f);
}
END_TEST

/* a bit nobody defined: counted, reported, the others decode */
START_TEST(test_unknown_feature)
{
	struct capture c = { .swap = _i };
	const struct pd_env *env;
	struct pd_file *f;

	put_str(section(&c, PD_FEAT_HOSTNAME), "h");
	put_u64(section(&c, 77), 1);
	put_u64(section(&c, 200), 2);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_uint_eq(env->nr_unknown_features, 2);
	ck_assert_int_eq(env->status[77], PD_ENV_UNKNOWN);
	ck_assert_int_eq(env->status[200], PD_ENV_UNKNOWN);
	ck_assert_str_eq(env->hostname, "h");
	ck_assert_uint_eq(nr_warnings, 2);
	ck_assert_ptr_nonnull(strstr(logbuf, "feature bit 77"));
	close_capture(&c, f);
}
END_TEST

/* sections perf writes that we keep as bytes */
START_TEST(test_raw_sections)
{
	struct capture c = { .swap = 0 };
	const struct pd_env *env;
	struct pd_file *f;
	const void *data;
	size_t size;

	put_u64(section(&c, 34), 64); /* CLN_SIZE */
	put(section(&c, PD_FEAT_SIMPLEPERF_DEBUG_UNWIND), "\x0a\x00", 2);
	f = open_capture(&c);
	env = env_of(f);
	ck_assert_int_eq(env->status[34], PD_ENV_RAW);
	ck_assert_int_eq(env->status[PD_FEAT_SIMPLEPERF_DEBUG_UNWIND],
			 PD_ENV_RAW);
	ck_assert_int_eq(pd_file_feature(f, 34, &data, &size), 1);
	ck_assert_uint_eq(size, 8);
	ck_assert_uint_eq(env->nr_damaged + env->nr_unknown_features, 0);
	ck_assert_str_eq(pd_env_status_name(PD_ENV_RAW), "raw");
	close_capture(&c, f);
}
END_TEST

/* ---- pipe mode: features arrive as records ------------------------- */

static void put_feature_rec(struct fbuf *b, uint64_t feat, const char *str)
{
	struct fbuf payload = { .swap = b->swap };

	if (str)
		put_str(&payload, str);
	put_u32(b, 80); /* HEADER_FEATURE */
	put_u16(b, 0);
	put_u16(b, (uint16_t)(16 + payload.len));
	put_u64(b, feat);
	if (payload.len)
		put(b, payload.p, payload.len);
	free(payload.p);
}

START_TEST(test_pipe_features)
{
	struct fbuf b = { .swap = 0 };
	const struct pd_env *before, *after;
	struct pd_reader *r;
	struct pd_file *f;
	struct pd_rec rec;
	int rc;

	put_u64(&b, 0x32454c4946524550ull);
	put_u64(&b, 16);
	put_feature_rec(&b, PD_FEAT_HOSTNAME, "piped");
	put_feature_rec(&b, PD_FEAT_ARCH, "aarch64");
	put_feature_rec(&b, 32, NULL); /* perf's end-of-features marker */
	logbuf[0] = '\0';
	nr_warnings = 0;
	{
		PD_OPTS(opts, .log = log_fn, .log_level = PD_LOG_WARN);

		ck_assert_int_eq(pd_file_open_mem(b.p, b.len, &opts, &f), 0);
	}
	before = env_of(f);
	ck_assert_ptr_nonnull(before);
	ck_assert_ptr_null(before->hostname);
	ck_assert_uint_eq(before->nr_features, 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	pd_for_each_rec(r, &rec, rc);
	ck_assert_int_eq(rc, 0);
	after = env_of(f);
	ck_assert_ptr_ne(after, before);
	ck_assert_str_eq(after->hostname, "piped");
	ck_assert_str_eq(after->arch, "aarch64");
	ck_assert_uint_eq(after->nr_features, 2);
	ck_assert_int_eq(after->status[32], PD_ENV_ABSENT);
	ck_assert_uint_eq(nr_warnings, 0);
	/* the older decoding stays valid until close */
	ck_assert_ptr_null(before->hostname);
	pd_reader_free(r);
	pd_file_close(f);
	free(b.p);
}
END_TEST

/* ---- allocation failures (T9) -------------------------------------- */

START_TEST(test_env_nomem)
{
	struct failalloc fa = { .fail_at = 0 };
	const struct pd_alloc hooks = failalloc_hooks(&fa);
	struct capture c = { .swap = 0 };
	struct fbuf *b;
	int succeeded = 0;

	put_str(section(&c, PD_FEAT_HOSTNAME), "h");
	b = section(&c, PD_FEAT_CMDLINE);
	put_u32(b, 2);
	put_str(b, "perf");
	put_str(b, "record");
	b = section(&c, PD_FEAT_PMU_MAPPINGS);
	put_u32(b, 1);
	put_u32(b, 4);
	for (int i = 0; i < 80; i++)
		put_str(b, "a long name to make the arena take several blocks "
			   "of memory, over and over");
	build(&c);
	for (long n = 0; n < 64 && !succeeded; n++) {
		PD_OPTS(opts, .alloc = &hooks);
		struct pd_file *f;
		const struct pd_env *env;

		fa.fail_at = 0;
		ck_assert_int_eq(pd_file_open_mem(c.file, c.len, &opts, &f), 0);
		failalloc_init(&fa, (unsigned long)n + 1, true);
		env = env_of(f);
		if (env) {
			ck_assert_str_eq(env->cmdline[1], "record");
			succeeded = 1;
		}
		fa.fail_at = 0;
		/* after a failure, a later call may succeed */
		if (!env)
			ck_assert_ptr_nonnull(env_of(f));
		pd_file_close(f);
	}
	ck_assert(succeeded);
	free(c.file);
}
END_TEST

Suite *env_suite(void)
{
	Suite *s = suite_create("env");
	TCase *tc = tcase_create("env");
	TCase *tk;

	tcase_add_loop_test(tc, test_strings, 0, 2);
	tcase_add_loop_test(tc, test_build_id, 0, 2);
	tcase_add_loop_test(tc, test_build_id_old_abi, 0, 2);
	tcase_add_loop_test(tc, test_cpu_topology, 1, 4);
	tcase_add_loop_test(tc, test_cpu_topology, 5, 8);
	tcase_add_loop_test(tc, test_cpu_topology_damaged, 0, 2);
	tcase_add_loop_test(tc, test_machine_sections, 0, 2);
	tcase_add_loop_test(tc, test_pmu_bpf_aux_sections, 0, 2);
	tcase_add_test(tc, test_simpleperf_sections);
	tcase_add_test(tc, test_simpleperf_file_damaged);
	tcase_add_loop_test(tc, test_event_desc_and_tracing, 0, 2);
	tcase_add_loop_test(tc, test_damaged_sections, 0, 2 * DMG_NR);
	tcase_add_loop_test(tc, test_unknown_feature, 0, 2);
	tcase_add_test(tc, test_raw_sections);
	tcase_add_test(tc, test_pipe_features);
	tcase_add_test(tc, test_env_nomem);
	suite_add_tcase(s, tc);
	tk = corpus_tcase(s, "env");
	corpus_add(tk, test_simpleperf_file_corpus, 0, 1);
	return s;
}
