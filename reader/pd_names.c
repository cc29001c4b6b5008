/*
 * pd_names.c - perf's names for record types, sample_type bits and
 * feature sections.
 */
#include "pd_int.h"

const char *pd_rec_type_name(uint32_t type)
{
	switch (type) {
#define PD_REC_NAME(name, value)                                            \
	case value:                                                         \
		return #name;
		PD_RECORD_TYPES(PD_REC_NAME)
#undef PD_REC_NAME
	default:
		return NULL;
	}
}

const char *pd_sample_bit_name(unsigned bit)
{
	static const char *const names[PD_SAMPLE_NR_BITS] = {
		"IP",	     "TID",	     "TIME",	       "ADDR",
		"READ",	     "CALLCHAIN",    "ID",	       "CPU",
		"PERIOD",    "STREAM_ID",    "RAW",	       "BRANCH_STACK",
		"REGS_USER", "STACK_USER",   "WEIGHT",	       "DATA_SRC",
		"IDENTIFIER", "TRANSACTION", "REGS_INTR",      "PHYS_ADDR",
		"AUX",	     "CGROUP",	     "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
		"WEIGHT_STRUCT",
	};

	return bit < PD_SAMPLE_NR_BITS ? names[bit] : NULL;
}

const char *pd_feature_name(unsigned feat)
{
	switch (feat) {
	case PD_FEAT_TRACING_DATA: return "trace_info";
	case PD_FEAT_BUILD_ID: return "build_id";
	case PD_FEAT_HOSTNAME: return "hostname";
	case PD_FEAT_OSRELEASE: return "osrelease";
	case PD_FEAT_VERSION: return "version";
	case PD_FEAT_ARCH: return "arch";
	case PD_FEAT_NRCPUS: return "nrcpus";
	case PD_FEAT_CPUDESC: return "cpudesc";
	case PD_FEAT_CPUID: return "cpuid";
	case PD_FEAT_TOTAL_MEM: return "total_mem";
	case PD_FEAT_CMDLINE: return "cmdline";
	case PD_FEAT_EVENT_DESC: return "event_desc";
	case PD_FEAT_CPU_TOPOLOGY: return "cpu_topology";
	case PD_FEAT_NUMA_TOPOLOGY: return "numa_topology";
	case PD_FEAT_BRANCH_STACK: return "branch_stack";
	case PD_FEAT_PMU_MAPPINGS: return "pmu_mappings";
	case PD_FEAT_GROUP_DESC: return "group_desc";
	case PD_FEAT_AUXTRACE: return "auxtrace";
	case PD_FEAT_STAT: return "stat";
	case PD_FEAT_CACHE: return "cache";
	case PD_FEAT_SAMPLE_TIME: return "sample_time";
	case PD_FEAT_MEM_TOPOLOGY: return "mem_topology";
	case PD_FEAT_CLOCKID: return "clockid";
	case PD_FEAT_DIR_FORMAT: return "dir_format";
	case PD_FEAT_BPF_PROG_INFO: return "bpf_prog_info";
	case PD_FEAT_BPF_BTF: return "bpf_btf";
	case PD_FEAT_COMPRESSED: return "compressed";
	case PD_FEAT_CPU_PMU_CAPS: return "cpu_pmu_caps";
	case PD_FEAT_CLOCK_DATA: return "clock_data";
	case PD_FEAT_HYBRID_TOPOLOGY: return "hybrid_topology";
	case PD_FEAT_PMU_CAPS: return "pmu_caps";
	case PD_FEAT_CPU_DOMAIN_INFO: return "cpu_domain_info";
	case PD_FEAT_E_MACHINE: return "e_machine";
	case PD_FEAT_CLN_SIZE: return "cln_size";
	case PD_FEAT_SIMPLEPERF_FILE: return "simpleperf_file";
	case PD_FEAT_SIMPLEPERF_META_INFO: return "simpleperf_meta_info";
	case PD_FEAT_SIMPLEPERF_DEBUG_UNWIND: return "simpleperf_debug_unwind";
	case PD_FEAT_SIMPLEPERF_DEBUG_UNWIND_FILE:
		return "simpleperf_debug_unwind_file";
	case PD_FEAT_SIMPLEPERF_FILE2: return "simpleperf_file2";
	case PD_FEAT_SIMPLEPERF_ETM_BRANCH_LIST:
		return "simpleperf_etm_branch_list";
	case PD_FEAT_SIMPLEPERF_INIT_MAP: return "simpleperf_init_map";
	default: return NULL;
	}
}
