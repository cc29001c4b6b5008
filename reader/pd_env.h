/*
 * pd_env.h - part of pd.h (included at its end): the decoded feature
 * sections, perf's "environment" of a capture.
 *
 *	const struct pd_env *env;
 *	if (pd_file_env(f, &env) < 0)
 *		fail();
 *
 *	if (env && env->hostname)
 *		printf("host %s\n", env->hostname);
 *	if (env && env->status[PD_FEAT_NRCPUS] == PD_ENV_OK)
 *		printf("%u cpus online\n", env->nr_cpus_online);
 *
 * Every section is decoded on its own and bounds-checked against its
 * size.  A malformed section gets PD_ENV_DAMAGED in status[] and one
 * warning through the log hook; what was decoded before the damage is
 * kept, and the other sections are unaffected.  A set feature bit the
 * library does not know is counted in nr_unknown_features, with a warning.
 *
 * Absent data reads as NULL pointers and zero counts; status[] tells an
 * absent section from a present one that says 0.  Strings are
 * NUL-terminated copies (the section may lack the NUL); they may hold any
 * bytes, not only UTF-8.  Integers are in host byte order.  The layouts
 * are those of perf's tools/perf/util/header.c (write_* and process_*);
 * docs/format.md §4 summarizes them.
 *
 * Lifetime: a pd_env and everything it points to stay valid until
 * pd_file_close().  In pipe mode, features arrive as HEADER_FEATURE
 * records while the data is read; pd_file_env() then returns a new,
 * complete pd_env (the older one stays valid until close).
 * Not thread-safe: it belongs to the pd_file.
 */
#ifndef PD_ENV_H
#define PD_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* What became of a feature section (pd_env.status[feature bit]). */
enum pd_env_status {
	PD_ENV_ABSENT = 0,   /* the feature bit is clear */
	PD_ENV_OK = 1,	     /* decoded */
	PD_ENV_DAMAGED = 2,  /* malformed: decoded up to the damage */
	PD_ENV_MISSING = 3,  /* bit set, but the section lies outside the
			      * file (dropped when the file was opened) */
	PD_ENV_RAW = 4,	     /* present; kept as bytes only (no known
			      * layout: pd_file_feature() gives them) */
	PD_ENV_UNKNOWN = 5,  /* bit set for a feature the library does not
			      * know */
};

/* perf's HOST_KERNEL_ID and DEFAULT_GUEST_KERNEL_ID build-id pids */
#define PD_ENV_HOST_KERNEL_PID (-1)
#define PD_ENV_GUEST_KERNEL_PID 0

/* One HEADER_BUILD_ID entry (a perf_record_header_build_id). */
struct pd_env_build_id {
	int32_t pid;		/* PD_ENV_HOST_KERNEL_PID for the host */
	uint16_t misc;		/* header.misc as written */
	uint16_t cpumode;	/* misc & PD_MISC_CPUMODE_MASK */
	uint8_t size;		/* valid bytes of build_id: 20, or the
				 * written size when misc has
				 * PD_MISC_BUILD_ID_SIZE */
	uint8_t build_id[20];
	int old_abi;		/* written before the pid field existed; pid
				 * derived from misc as perf does */
	const char *filename;
};

/* perf_event_attr and the name of one HEADER_EVENT_DESC entry. */
struct pd_env_event {
	struct pd_attr attr;
	const char *name;
	uint32_t nr_ids;
	const uint64_t *ids;
};

struct pd_env_cpu {
	uint32_t core_id;	/* (uint32_t)-1 when unknown */
	uint32_t socket_id;
	uint32_t die_id;	/* (uint32_t)-1 unless has_die_ids */
};

struct pd_env_numa_node {
	uint32_t node;
	uint64_t mem_total_kb;
	uint64_t mem_free_kb;
	const char *cpus;	/* cpu list, "0-3,8" */
};

struct pd_env_pmu_mapping {
	uint32_t type;		/* perf_event_attr.type of the PMU */
	const char *name;
};

struct pd_env_group {
	const char *name;	/* "{anon_group}" when unnamed */
	uint32_t leader_idx;	/* event index of the leader */
	uint32_t nr_members;
};

/* One AUXTRACE index entry: where an AUXTRACE record sits. */
struct pd_env_auxtrace_entry {
	uint64_t offset;	/* file offset */
	uint64_t size;		/* bytes of the record */
};

struct pd_env_cache {
	uint32_t level, line_size, sets, ways;
	const char *type;	/* "Data", "Instruction", "Unified" */
	const char *size;	/* "32K" */
	const char *map;	/* shared cpu list */
};

struct pd_env_mem_node {
	uint64_t node;
	uint64_t nr_bits;	/* memory blocks covered by the bitmap */
	uint64_t nr_set;	/* blocks that belong to the node */
	const uint64_t *bitmap;	/* (nr_bits + 63) / 64 words */
};

struct pd_env_bpf_prog {
	uint32_t info_len;	/* bytes of struct bpf_prog_info written */
	uint32_t data_len;	/* bytes of the arrays that follow it */
	uint64_t arrays;	/* which arrays the data holds */
	uint32_t prog_type;	/* bpf_prog_info.type (0 if not written) */
	uint32_t prog_id;	/* bpf_prog_info.id */
	uint8_t tag[8];
};

struct pd_env_btf {
	uint32_t id;
	uint32_t data_size;	/* bytes */
};

/* A PMU capability, "name=value" in perf's output. */
struct pd_env_cap {
	const char *name;
	const char *value;
};

struct pd_env_pmu_caps {
	const char *pmu_name;
	uint32_t nr_caps;
	const struct pd_env_cap *caps;
};

struct pd_env_hybrid_node {
	const char *pmu_name;
	const char *cpus;
};

struct pd_env_sched_domain {
	uint32_t domain;
	const char *name;	/* schedstat version >= 17, else NULL */
	const char *cpumask;
	const char *cpulist;
};

struct pd_env_cpu_domains {
	uint32_t cpu;
	uint32_t nr_domains;
	const struct pd_env_sched_domain *domains;
};

/*
 * One file simpleperf sampled, with the symbols it read from it on the
 * recording device (FILE feature): format facts from simpleperf's
 * record_file_format.h / record_file_reader.cpp ReadFileV1Feature.
 */
enum pd_sp_dso_type {
	PD_SP_DSO_KERNEL = 0,
	PD_SP_DSO_KERNEL_MODULE = 1,
	PD_SP_DSO_ELF_FILE = 2,
	PD_SP_DSO_DEX_FILE = 3,	/* .vdex/.jar/.odex: dex file offsets */
};

struct pd_sp_symbol {
	uint64_t vaddr;		/* in the file's address space (see below) */
	uint32_t len;
	const char *name;	/* as simpleperf stored it: mangled C++ */
};

struct pd_sp_file {
	const char *path;
	uint32_t type;		/* enum pd_sp_dso_type */
	uint64_t min_vaddr;
	/* UINT64_MAX when the entry does not say (older simpleperf, or not
	 * an ELF file / kernel module) */
	uint64_t file_offset_of_min_vaddr;
	uint32_t nr_symbols;
	const struct pd_sp_symbol *symbols; /* as stored, not sorted */
	uint32_t nr_dex_file_offsets;
	const uint64_t *dex_file_offsets;
};

struct pd_env_kv {
	const char *key;
	const char *value;
};

struct pd_env {
	/* per feature bit: enum pd_env_status */
	unsigned char status[PD_FEAT_MAX];
	unsigned nr_features;		/* bits set */
	unsigned nr_damaged;		/* sections DAMAGED or MISSING */
	unsigned nr_unknown_features;	/* bits set that are not known */

	/* TRACING_DATA (1): the tracepoint formats, kept as bytes */
	struct {
		uint64_t offset;	/* file offset; 0 in pipe mode */
		size_t size;
		const unsigned char *data; /* size bytes, valid until close */
		const char *version;	/* "0.6", from the tracing header */
		int big_endian;		/* byte order of the tracing data */
		uint8_t long_size;	/* sizeof(long) of the recorder */
		uint32_t page_size;
	} tracing;

	/* BUILD_ID (2) */
	size_t nr_build_ids;
	const struct pd_env_build_id *build_ids;

	/* HOSTNAME (3), OSRELEASE (4), VERSION (5), ARCH (6) */
	const char *hostname;
	const char *os_release;
	const char *version;		/* perf's version string */
	const char *arch;		/* uname -m of the recorder */

	/* NRCPUS (7): written avail first, then online */
	uint32_t nr_cpus_avail;
	uint32_t nr_cpus_online;

	/* CPUDESC (8), CPUID (9) */
	const char *cpu_desc;
	const char *cpuid;

	/* TOTAL_MEM (10) */
	uint64_t total_mem_kb;

	/* CMDLINE (11): argv, the perf binary's path first */
	uint32_t nr_cmdline;
	const char *const *cmdline;

	/* EVENT_DESC (12) */
	uint32_t nr_events;
	uint32_t event_attr_size;	/* bytes per attr as written */
	const struct pd_env_event *events;

	/* CPU_TOPOLOGY (13): three revisions, each appending */
	struct {
		uint32_t nr_core_siblings;	/* cpu lists per package */
		const char *const *core_siblings;
		uint32_t nr_thread_siblings;	/* cpu lists per core */
		const char *const *thread_siblings;
		int has_cpu_ids;		/* revision 2: per-cpu ids */
		uint32_t nr_cpus;		/* entries in cpus: nr_cpus_avail */
		const struct pd_env_cpu *cpus;
		int has_die_ids;		/* revision 3: dies */
		uint32_t nr_die_siblings;
		const char *const *die_siblings;
	} cpu_topology;

	/* NUMA_TOPOLOGY (14) */
	uint32_t nr_numa_nodes;
	const struct pd_env_numa_node *numa_nodes;

	/* BRANCH_STACK (15) has no data: status[] says it is there */

	/* PMU_MAPPINGS (16) */
	uint32_t nr_pmu_mappings;
	const struct pd_env_pmu_mapping *pmu_mappings;

	/* GROUP_DESC (17) */
	uint32_t nr_groups;
	const struct pd_env_group *groups;

	/* AUXTRACE (18): the index of AUXTRACE records */
	uint64_t nr_auxtrace;
	const struct pd_env_auxtrace_entry *auxtrace;

	/* STAT (19) has no data */

	/* CACHE (20) */
	uint32_t cache_version;
	uint32_t nr_caches;
	const struct pd_env_cache *caches;

	/* SAMPLE_TIME (21): perf_clock ns */
	uint64_t first_sample_time;
	uint64_t last_sample_time;

	/* MEM_TOPOLOGY (22) */
	uint64_t mem_topology_version;
	uint64_t mem_block_size;	/* bytes per memory block */
	uint64_t nr_mem_nodes;
	const struct pd_env_mem_node *mem_nodes;

	/* CLOCKID (23) */
	uint64_t clockid_res_ns;	/* clock resolution, ns */

	/* DIR_FORMAT (24) */
	uint64_t dir_format_version;

	/* BPF_PROG_INFO (25) */
	uint32_t nr_bpf_progs;
	uint64_t bpf_prog_bytes;	/* info and data bytes, all programs */
	const struct pd_env_bpf_prog *bpf_progs;

	/* BPF_BTF (26) */
	uint32_t nr_btfs;
	uint64_t btf_bytes;
	const struct pd_env_btf *btfs;

	/* COMPRESSED (27) */
	struct {
		uint32_t version;
		uint32_t type;		/* 1 = zstd */
		uint32_t level;
		uint32_t ratio;
		uint32_t mmap_len;	/* bytes */
	} compressed;

	/* CPU_PMU_CAPS (28): the core PMU's capabilities */
	uint32_t nr_cpu_pmu_caps;
	const struct pd_env_cap *cpu_pmu_caps;

	/* CLOCK_DATA (29): a reference time pair */
	struct {
		uint32_t version;
		uint32_t clockid;	/* clockid_t of the samples */
		uint64_t tod_ns;	/* wall clock, ns since the epoch */
		uint64_t clockid_ns;	/* the same instant on clockid */
	} clock_data;

	/* HYBRID_TOPOLOGY (30) */
	uint32_t nr_hybrid_nodes;
	const struct pd_env_hybrid_node *hybrid_nodes;

	/* PMU_CAPS (31): other PMUs' capabilities */
	uint32_t nr_pmu_caps;
	const struct pd_env_pmu_caps *pmu_caps;

	/*
	 * CPU_DOMAIN_INFO (bit 32): scheduler domains per cpu.  perf's
	 * header.h numbers it 32 and E_MACHINE 33 (CLN_SIZE, 34, is kept
	 * raw).
	 */
	uint32_t schedstat_version;
	uint32_t max_sched_domains;
	uint32_t nr_cpu_domains;
	const struct pd_env_cpu_domains *cpu_domains;

	/* E_MACHINE (bit 33): ELF machine of the recorded code */
	uint32_t e_machine;	/* EM_* */
	uint32_t e_flags;

	/* simpleperf META_INFO (129): key/value strings */
	uint32_t nr_meta_info;
	const struct pd_env_kv *meta_info;

	/* simpleperf FILE (128) and FILE2 (132): one entry per file */
	uint32_t nr_simpleperf_files;
	const char *const *simpleperf_file_paths; /* NULL when a FILE2
						   * entry has none */
	/* FILE only (FILE2's protobuf is not decoded past the path): NULL
	 * otherwise, else nr_simpleperf_files entries */
	const struct pd_sp_file *simpleperf_files;
};

/* Name of an enum pd_env_status ("ok", "damaged"), never NULL. */
PD_API const char *pd_env_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif
