/*
 * pde_spe.c - an Arm SPE trace and its metadata printed as `perf report
 * -D` prints them, so the two can be compared line for line: each packet
 * on a line with its offset, bytes and description.
 */
#include "pde.h"

#include <inttypes.h>

#define BYTES_PER_LINE 16 /* perf pads the bytes to 16 columns */
#define DESC_MAX 256	  /* perf's ARM_SPE_PKT_DESC_MAX */

int pde_spe_dump_info(FILE *out, const struct pd_spe_info *info)
{
	struct pd_spe_cpu cpu;

	if (info->version == 1) {
		/* perf 6.1 prints the PMU type alone */
		fprintf(out, "  PMU Type           %" PRId64 "\n",
			(int64_t)info->pmu_type);
		return ferror(out) ? PD_ERR_IO : 0;
	}
	/* the per-CPU form, as perf 6.13 and later print it */
	fprintf(out, "  Header version     :%u\n", info->version);
	fprintf(out, "  Header size        :%" PRIu64 "\n", info->header_size);
	fprintf(out, "  PMU type v2        :%" PRId64 "\n",
		(int64_t)info->pmu_type);
	fprintf(out, "  CPU number         :%" PRIu64 "\n", info->nr_cpus);
	for (uint64_t i = 0; i < info->nr_cpus; i++) {
		pd_spe_info_cpu(info, i, &cpu);
		fprintf(out, "    Magic            :0x%llx\n",
			PD_SPE_CPU_MAGIC);
		fprintf(out, "    CPU #            :%" PRIu64 "\n", cpu.cpu);
		fprintf(out, "    Num of params    :%" PRIu64 "\n",
			cpu.nr_params);
		if (cpu.nr_params > 0)
			fprintf(out, "    MIDR             :0x%" PRIx64 "\n",
				cpu.midr);
		if (cpu.nr_params > 1)
			fprintf(out, "    PMU Type         :%" PRId64 "\n",
				(int64_t)cpu.pmu_type);
		if (cpu.nr_params > 2)
			fprintf(out, "    Min Interval     :%" PRId64 "\n",
				(int64_t)cpu.min_interval);
		if (cpu.nr_params > 3)
			fprintf(out, "    Event Filter     :0x%" PRIx64 "\n",
				cpu.event_filter);
	}
	return ferror(out) ? PD_ERR_IO : 0;
}

int pde_spe_dump_trace(FILE *out, const unsigned char *buf, size_t len,
		       uint64_t align_base)
{
	struct pd_spe_cursor c;
	struct pd_spe_pkt pkt;
	char desc[DESC_MAX];
	size_t at;

	fprintf(out, ".\n. ... ARM SPE data: size %#zx bytes\n", len);
	pd_spe_cursor_init(&c, buf, len, align_base);
	at = c.pos;
	while (pd_spe_next_packet(&c, &pkt) > 0) {
		unsigned i;

		fprintf(out, ".  %08zx: ", at);
		for (i = 0; i < pkt.size; i++)
			fprintf(out, " %02x", buf[at + i]);
		for (; i < BYTES_PER_LINE; i++)
			fputs("   ", out);
		if (pkt.type == PD_SPE_BAD) {
			fputs(" Bad packet!\n", out);
		} else {
			pd_spe_pkt_desc(&pkt, desc, sizeof(desc));
			fprintf(out, " %s\n", desc);
		}
		at = c.pos;
	}
	return ferror(out) ? PD_ERR_IO : 0;
}
