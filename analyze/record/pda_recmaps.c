/*
 * pda_recmaps.c - the records perf 6.1 writes before the data to say
 * what was recorded: ID_INDEX (each counter's id with its buffer, CPU
 * and thread), EVENT_UPDATE (units, scales, a pipe's names), THREAD_MAP
 * and CPU_MAP, in perf's encodings and sizes, so that
 * perf reads a pdtool capture as one of its own.  `record --stat`
 * writes the same maps.
 */
#include "pda_record_priv.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ID_INDEX_ENTRY 32 /* id, idx, cpu, tid */
#define THREAD_MAP_ENTRY 24 /* pid, comm[16] */
/* perf's PERF_EVENT_UPDATE__* */
#define EVENT_UPDATE_UNIT 0
#define EVENT_UPDATE_SCALE 1
#define EVENT_UPDATE_NAME 2

void rec_put_header(struct pdc_strbuf *b, uint32_t type, size_t size)
{
	uint16_t misc = 0, sz = (uint16_t)size;

	pdc_strbuf_add(b, &type, 4);
	pdc_strbuf_add(b, &misc, 2);
	pdc_strbuf_add(b, &sz, 2);
}

void rec_put_u64(struct pdc_strbuf *b, uint64_t v)
{
	pdc_strbuf_add(b, &v, 8);
}

void rec_put_zeros(struct pdc_strbuf *b, size_t n)
{
	static const char zeros[64];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		pdc_strbuf_add(b, zeros, k);
		n -= k;
	}
}

void rec_synth_id_index(const struct rec *r, struct pdc_strbuf *b)
{
	/* perf splits the index into records of at most UINT16_MAX bytes */
	const size_t max_nr = (UINT16_MAX - 16) / ID_INDEX_ENTRY;
	const size_t per_cpu = r->nr_threads * r->nr_ev;
	size_t nr = 0, left, in_rec = 0;

	for (size_t i = 0; i < r->nr_fds; i++)
		nr += r->fds[i] >= 0;
	if (!nr)
		return;
	left = nr;
	for (size_t e = 0; e < r->nr_ev; e++) {
		for (size_t i = e; i < r->nr_fds; i += r->nr_ev) {
			const size_t c = i / per_cpu;
			const size_t t = (i % per_cpu) / r->nr_ev;

			if (r->fds[i] < 0)
				continue;
			if (in_rec == 0) {
				size_t n = left < max_nr ? left : max_nr;

				rec_put_header(b, PD_REC_ID_INDEX,
					       16 + n * ID_INDEX_ENTRY);
				rec_put_u64(b, n);
				in_rec = n;
				left -= n;
			}
			rec_put_u64(b, r->ids[i]);
			rec_put_u64(b, c); /* the buffer's: the CPU's index */
			rec_put_u64(b, (uint64_t)(int64_t)r->cpus[c]);
			rec_put_u64(b, (uint64_t)(int64_t)r->threads[t]);
			in_rec--;
		}
	}
}

void rec_synth_thread_map(const struct rec *r, struct pdc_strbuf *b,
			  bool comms)
{
	rec_put_header(b, PD_REC_THREAD_MAP,
		       16 + THREAD_MAP_ENTRY * r->nr_threads);
	rec_put_u64(b, r->nr_threads);
	for (size_t t = 0; t < r->nr_threads; t++) {
		char comm[16] = "", path[64];

		/* a process that ran before: its name; the workload's is
		 * not known yet (perf's is empty too) */
		if (comms && r->threads[t] > 0 && !r->child) {
			snprintf(path, sizeof(path), "/proc/%d/comm",
				 r->threads[t]);
			if (rec_read_line(path, comm, sizeof(comm)) < 0)
				comm[0] = '\0';
		}
		rec_put_u64(b, (uint64_t)(int64_t)r->threads[t]);
		pdc_strbuf_add(b, comm, sizeof(comm));
	}
}

void rec_synth_cpu_map(struct pdc_strbuf *b, const int *cpus, size_t nr)
{
	/* perf 6.1's cpu_map_data__alloc: a range where the CPUs (but for
	 * a leading -1, "any") follow each other, else the smaller of a
	 * list of u16 and a bitmap of u32 words (the list where -1 is) */
	const bool any = nr && cpus[0] == -1;
	const int min = nr > (size_t)any ? cpus[any] : -1;
	const int max = nr ? cpus[nr - 1] : -1;
	const size_t words = (size_t)(max + 32) / 32;
	const size_t list = 2 + 2 + 2 * nr, mask = 2 + 2 + 2 + 4 * words;

	if (nr > (size_t)any && (size_t)(max - min + 1) == nr - any) {
		uint16_t type = PD_CPU_MAP_RANGE, start = (uint16_t)min,
			 end = (uint16_t)max;
		unsigned char any_cpu = any, pad = 0;

		rec_put_header(b, PD_REC_CPU_MAP, 16);
		pdc_strbuf_add(b, &type, 2);
		pdc_strbuf_add(b, &any_cpu, 1);
		pdc_strbuf_add(b, &pad, 1);
		pdc_strbuf_add(b, &start, 2);
		pdc_strbuf_add(b, &end, 2);
	} else if (any || list < mask) {
		uint16_t type = PD_CPU_MAP_CPUS, n = (uint16_t)nr;
		const size_t size = 8 + (list + 7) / 8 * 8;

		rec_put_header(b, PD_REC_CPU_MAP, size);
		pdc_strbuf_add(b, &type, 2);
		pdc_strbuf_add(b, &n, 2);
		for (size_t c = 0; c < nr; c++) {
			uint16_t cpu = (uint16_t)cpus[c];

			pdc_strbuf_add(b, &cpu, 2);
		}
		rec_put_zeros(b, size - 8 - list);
	} else {
		/* perf 6.1 counts BITS_TO_U32(max) words, one short where
		 * the highest CPU is a multiple of 32; here as many as it
		 * takes, which perf reads the same */
		uint16_t type = PD_CPU_MAP_MASK, n = (uint16_t)words,
			 long_size = 4;
		const size_t size = 8 + (mask + 7) / 8 * 8;

		rec_put_header(b, PD_REC_CPU_MAP, size);
		pdc_strbuf_add(b, &type, 2);
		pdc_strbuf_add(b, &n, 2);
		pdc_strbuf_add(b, &long_size, 2);
		for (size_t w = 0; w < words; w++) {
			uint32_t bits = 0;

			for (size_t c = 0; c < nr; c++)
				if ((size_t)cpus[c] / 32 == w)
					bits |= 1u << (cpus[c] & 31);
			pdc_strbuf_add(b, &bits, 4);
		}
		rec_put_zeros(b, size - 8 - mask);
	}
}

/* One EVENT_UPDATE as perf 6.1's event_update_event__new() sizes it: 40
 * bytes (header, type, id and the union perf declares) and len of
 * payload, aligned to 8. */
static void event_update(struct pdc_strbuf *b, uint64_t type, uint64_t id,
			 const void *payload, size_t len)
{
	const size_t size = (40 + len + 7) / 8 * 8;

	rec_put_header(b, PD_REC_EVENT_UPDATE, size);
	rec_put_u64(b, type);
	rec_put_u64(b, id);
	pdc_strbuf_add(b, payload, len);
	rec_put_zeros(b, size - 24 - len);
}

void rec_synth_units(struct pdc_strbuf *b, const struct perf_event_attr *a,
		     uint64_t id)
{
	/* perf's unit and scale of its clocks, which perf stat report
	 * prints in msec */
	static const char unit[] = "msec";
	const double scale = 1e-6;

	if (a->type != PERF_TYPE_SOFTWARE ||
	    (a->config != PERF_COUNT_SW_CPU_CLOCK &&
	     a->config != PERF_COUNT_SW_TASK_CLOCK))
		return;
	event_update(b, EVENT_UPDATE_UNIT, id, unit, sizeof(unit));
	event_update(b, EVENT_UPDATE_SCALE, id, &scale, sizeof(scale));
}

void rec_synth_event_updates(const struct rec *r, struct pdc_strbuf *b)
{
	for (size_t e = 0; e < r->nr_ev; e++) {
		uint64_t id = 0;

		/* perf names an event by its first id */
		for (size_t i = e; i < r->nr_fds && !id; i += r->nr_ev)
			if (r->fds[i] >= 0)
				id = r->ids[i];
		if (!id)
			continue;
		rec_synth_units(b, &r->ev[e].attr, id);
		/* a file has the names in its EVENT_DESC */
		if (r->o.pipe)
			event_update(b, EVENT_UPDATE_NAME, id, r->ev[e].name,
				     strlen(r->ev[e].name) + 1);
	}
}
