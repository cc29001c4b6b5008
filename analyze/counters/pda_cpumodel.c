/*
 * pda_cpumodel.c - the recording host's CPU as words, from the capture's
 * CPUID feature: an Arm MIDR (implementer, part, variant, revision) is
 * decoded into the core's name and the parts known to be built on it
 * (Neoverse V1: AWS Graviton3), since perf's CPUDESC on arm64 says only
 * "Arm" or nothing; on x86 CPUDESC is the model name already.
 */
#include "pda_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct midr_part {
	unsigned implementer, part;
	const char *name;
	const char *seen_in;	/* parts built on it, or NULL */
};

/* Arm's own cores from the TRMs' MIDR_EL1.PartNum, then other
 * implementers' server cores. */
static const struct midr_part parts[] = {
	{0x41, 0xd03, "Arm Cortex-A53", NULL},
	{0x41, 0xd04, "Arm Cortex-A35", NULL},
	{0x41, 0xd05, "Arm Cortex-A55", NULL},
	{0x41, 0xd07, "Arm Cortex-A57", NULL},
	{0x41, 0xd08, "Arm Cortex-A72", "AWS Graviton (A1)"},
	{0x41, 0xd09, "Arm Cortex-A73", NULL},
	{0x41, 0xd0a, "Arm Cortex-A75", NULL},
	{0x41, 0xd0b, "Arm Cortex-A76", NULL},
	{0x41, 0xd0c, "Arm Neoverse N1", "AWS Graviton2, Ampere Altra"},
	{0x41, 0xd0d, "Arm Cortex-A77", NULL},
	{0x41, 0xd40, "Arm Neoverse V1", "AWS Graviton3"},
	{0x41, 0xd41, "Arm Cortex-A78", NULL},
	{0x41, 0xd44, "Arm Cortex-X1", NULL},
	{0x41, 0xd46, "Arm Cortex-A510", NULL},
	{0x41, 0xd47, "Arm Cortex-A710", NULL},
	{0x41, 0xd48, "Arm Cortex-X2", NULL},
	{0x41, 0xd49, "Arm Neoverse N2", "Microsoft Azure Cobalt 100"},
	{0x41, 0xd4a, "Arm Neoverse E1", NULL},
	{0x41, 0xd4f, "Arm Neoverse V2",
	 "AWS Graviton4, NVIDIA Grace, Google Axion"},
	{0x41, 0xd84, "Arm Neoverse V3", NULL},
	{0x41, 0xd8e, "Arm Neoverse N3", NULL},
	{0x48, 0xd01, "HiSilicon TaiShan v110", "Kunpeng 920"},
	{0xc0, 0xac3, "AmpereOne", NULL},
};

int pda_cpu_midr(const struct pd_env *env, uint64_t *midr)
{
	const char *id = env ? env->cpuid : NULL;

	/* perf's arm64 get_cpuid_str(): "0x%016lx" of MIDR_EL1 */
	if (!env || !env->arch || strcmp(env->arch, "aarch64") != 0 || !id ||
	    strncmp(id, "0x", 2) != 0)
		return -1;
	*midr = strtoull(id, NULL, 16);
	return 0;
}

const char *pda_cpu_model(const struct pd_env *env, char *buf, size_t size)
{
	uint64_t midr;

	if (pda_cpu_midr(env, &midr) == 0) {
		const unsigned impl = (unsigned)(midr >> 24) & 0xff;
		const unsigned part = (unsigned)(midr >> 4) & 0xfff;
		const unsigned var = (unsigned)(midr >> 20) & 0xf;
		const unsigned rev = (unsigned)midr & 0xf;

		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			const struct midr_part *p = &parts[i];

			if (p->implementer != impl || p->part != part)
				continue;
			snprintf(buf, size, "%s r%up%u%s%s%s", p->name, var,
				 rev, p->seen_in ? " (as in " : "",
				 p->seen_in ? p->seen_in : "",
				 p->seen_in ? ")" : "");
			return buf;
		}
		snprintf(buf, size,
			 "implementer 0x%02x part 0x%03x r%up%u (not known "
			 "to pdtool)",
			 impl, part, var, rev);
		return buf;
	}
	if (env && env->cpu_desc && env->cpu_desc[0]) {
		snprintf(buf, size, "%s", env->cpu_desc);
		return buf;
	}
	return NULL;
}
