/*
 * spe_gen.c - write a large Arm SPE capture, as `perf record -e
 * arm_spe_0//` writes one on a Neoverse N1 host with perf 6.1, for
 * bench/spe.sh (issue 18's 1 GB benchmark):
 *
 *	spe_gen [--records N] [--seed N] [--buffer BYTES] [--truth FILE]
 *		ELF RECORDED_PATH OUT
 *
 * N SPE records per CPU on two CPUs (default 200000), in AUXTRACE
 * buffers of about BYTES of packets each (default 2 MiB: perf's 4 MiB
 * AUX area, written out at its half-full wakeups), one buffer per CPU
 * a round, each round closed by FINISHED_ROUND.  The layout is
 * tests/gen/pd_spe_synth.py's for --host n1 --meta 1 (the arm_spe_0
 * event and a dummy:u tracking event, TIME_CONV, AUXTRACE_INFO's two-word
 * form, COMM and MMAP2 of the process, ITRACE_START, AUXTRACE records
 * with their packet bytes after them, AUX records, EXIT), and so are the
 * records: a load at one of ELF's load instructions with its data
 * virtual and physical addresses, latencies and a data source consistent
 * with its events, a store likewise without a data source, a branch at
 * a branch with its target, an "other" elsewhere.  The Python generator
 * writes ~2 MB a minute; this one streams hundreds of MB a second and
 * holds nothing but one buffer.
 *
 * With --truth, FILE gets pd_spe_synth.py's truth lines, one per record
 * in file order (cpu offset pc el ns tgt va pa ts ctx op_class op_raw
 * events source tot issue xlat ended_by), which bench/spe_check.sh holds
 * against perf 6.1's `perf report -D` decoding.
 *
 * The choices come from a seeded splitmix64, not Python's Mersenne
 * Twister: the two generators' captures share their form, not bytes.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCPU 2
#define PMU_TYPE 8 /* arm_spe_0 as the host numbered it */
#define PID 4343u
#define BASE 0xaaaa00000000ull
#define STACK 0xffffc0000000ull /* user data addresses come from here */
#define PHYS 0x80000000ull
#define TIME0 5000000000ull
/* TIME_CONV: a 25 MHz generic timer (Neoverse N1 SDP, Ampere Altra) */
#define TIME_SHIFT 22
#define TIME_MULT (40ull << TIME_SHIFT)
#define TICK0 125000000ull /* the counter at TIME0 */
#define TIME_ZERO (TIME0 - TICK0 * 40)
#define MIDR_N1 0x410fd0c0ull

/* sample_type bits */
#define ST_IP 1ull
#define ST_TID 2ull
#define ST_TIME 4ull
#define ST_CPU 128ull
#define ST_IDENTIFIER (1ull << 16)
#define SAMPLE_TYPE (ST_IP | ST_TID | ST_TIME | ST_CPU | ST_IDENTIFIER)
#define SPE_ID 17 /* per CPU: + cpu */
#define DUMMY_ID 33

/* perf_event_attr flag bits */
#define F_DISABLED (1ull << 0)
#define F_EXCL_KERNEL (1ull << 5)
#define F_EXCL_HV (1ull << 6)
#define F_MMAP (1ull << 8)
#define F_COMM (1ull << 9)
#define F_TASK (1ull << 13)
#define F_SAMPLE_ID_ALL (1ull << 18)
#define F_EXCL_GUEST (1ull << 20)
#define F_MMAP2 (1ull << 23)
#define F_COMM_EXEC (1ull << 24)
#define F_CONTEXT_SWITCH (1ull << 26)

/* record types */
#define R_COMM 3
#define R_EXIT 4
#define R_FORK 7
#define R_MMAP2 10
#define R_AUX 11
#define R_ITRACE_START 12
#define R_FINISHED_ROUND 68
#define R_AUXTRACE_INFO 70
#define R_AUXTRACE 71
#define R_TIME_CONV 79

/* SPE DATA_SOURCE values of Neoverse N1 (its TRM) */
enum { NV_L1D = 0x0, NV_L2 = 0x8, NV_PEER_CORE = 0x9,
       NV_LOCAL_CLUSTER = 0xa, NV_SYS_CACHE = 0xb, NV_PEER_CLUSTER = 0xc,
       NV_REMOTE = 0xd, NV_DRAM = 0xe, NV_NONE = -1 };

/* EVENTS packet bits */
enum { EV_RETIRED = 1, EV_L1D_ACCESS = 2, EV_L1D_REFILL = 3,
       EV_TLB_ACCESS = 4, EV_TLB_WALK = 5, EV_NOT_TAKEN = 6,
       EV_MISPRED = 7, EV_LLC_ACCESS = 8, EV_LLC_MISS = 9,
       EV_REMOTE = 10 };

struct branch {
	uint64_t va, target; /* target 0: indirect */
	bool cond, indirect;
};

struct insns {
	uint64_t *loads, *stores, *others, funcs[4];
	struct branch *branches;
	size_t nloads, nstores, nothers, nbranches, nfuncs;
	uint64_t text_off, text_vaddr, text_memsz;
	uint8_t build_id[20];
	size_t build_id_len;
};

struct gen {
	uint64_t rng, tick, start_of;
	struct insns in;
	FILE *out, *truth;
	uint64_t written; /* bytes of the data section */
};

static void die(const char *msg)
{
	fprintf(stderr, "spe_gen: %s\n", msg);
	exit(2);
}

static uint64_t next(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n small: the modulo's bias is negligible) */
static uint64_t below(struct gen *g, uint64_t n)
{
	return next(g) % n;
}

/* true with probability pct / 100 */
static bool chance(struct gen *g, unsigned pct)
{
	return below(g, 100) < pct;
}

/* ---- ELF: the instructions of main, checksum, fill and mix ---------- */

static void *grow(void *p, size_t n, size_t size)
{
	/* doubling at powers of two */
	if (n & (n - 1))
		return p;
	p = realloc(p, (n ? 2 * n : 1) * size);
	if (!p)
		die("out of memory");
	return p;
}

static void classify(struct insns *in, const uint8_t *d, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)d;
	const Elf64_Shdr *sh;
	uint64_t lo = UINT64_MAX, hi = 0, end = 0;
	static const char *const names[] = { "main", "checksum", "fill",
					     "mix" };

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_AARCH64)
		die("the ELF is no 64-bit aarch64 binary");
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		die("the ELF's headers are cut short");
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(d + eh->e_phoff +
						      i * sizeof(*ph));

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			in->text_off = ph->p_offset;
			in->text_vaddr = ph->p_vaddr;
			in->text_memsz = ph->p_memsz;
			end = ph->p_vaddr + ph->p_filesz;
			break;
		}
	}
	if (!in->text_memsz)
		die("the ELF has no executable segment");
	sh = (const void *)(d + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_entsize &&
		    sh[i].sh_link < eh->e_shnum) {
			const char *str = (const char *)d +
					  sh[sh[i].sh_link].sh_offset;

			for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym);
			     k++) {
				const Elf64_Sym *s = (const void *)(
					d + sh[i].sh_offset + k * sizeof(*s));

				for (unsigned n = 0; n < 4; n++)
					if (s->st_value &&
					    !strcmp(str + s->st_name, names[n]) &&
					    in->nfuncs < 4)
						in->funcs[in->nfuncs++] =
							s->st_value;
			}
		}
		if (sh[i].sh_type == SHT_NOTE) {
			uint64_t pos = sh[i].sh_offset;

			while (pos + 12 <= sh[i].sh_offset + sh[i].sh_size) {
				const uint32_t *nh = (const void *)(d + pos);
				uint64_t desc = pos + 12 + ((nh[0] + 3) & ~3u);

				if (nh[2] == NT_GNU_BUILD_ID && nh[1] <= 20 &&
				    !memcmp(d + pos + 12, "GNU", 3)) {
					memcpy(in->build_id, d + desc, nh[1]);
					in->build_id_len = nh[1];
				}
				pos = desc + ((nh[1] + 3) & ~3u);
			}
		}
	}
	if (!in->nfuncs || !in->build_id_len)
		die("the ELF has no main/checksum/fill/mix or no build-id");
	for (size_t i = 0; i < in->nfuncs; i++) {
		lo = in->funcs[i] < lo ? in->funcs[i] : lo;
		hi = in->funcs[i] > hi ? in->funcs[i] : hi;
	}
	hi += 0x100;
	if (hi > end)
		hi = end;
	for (uint64_t va = lo; va < hi; va += 4) {
		uint32_t insn;
		int64_t imm;

		memcpy(&insn, d + in->text_off + va - in->text_vaddr, 4);
		if ((insn & 0x0a000000) == 0x08000000) {
			if (insn & (1u << 22)) {
				in->loads = grow(in->loads, in->nloads,
						 sizeof(*in->loads));
				in->loads[in->nloads++] = va;
			} else {
				in->stores = grow(in->stores, in->nstores,
						  sizeof(*in->stores));
				in->stores[in->nstores++] = va;
			}
			continue;
		}
		in->branches = grow(in->branches, in->nbranches,
				    sizeof(*in->branches));
		struct branch *b = &in->branches[in->nbranches];

		if ((insn & 0x7c000000) == 0x14000000) {
			imm = insn & 0x3ffffff;
			imm -= (imm & 0x2000000) << 1;
			*b = (struct branch){ va, va + 4 * imm, false, false };
		} else if ((insn & 0xff000010) == 0x54000000 ||
			   (insn & 0x7e000000) == 0x34000000) {
			imm = (insn >> 5) & 0x7ffff;
			imm -= (imm & 0x40000) << 1;
			*b = (struct branch){ va, va + 4 * imm, true, false };
		} else if ((insn & 0x7e000000) == 0x36000000) {
			imm = (insn >> 5) & 0x3fff;
			imm -= (imm & 0x2000) << 1;
			*b = (struct branch){ va, va + 4 * imm, true, false };
		} else if ((insn & 0xfe000000) == 0xd6000000) {
			*b = (struct branch){ va, 0, false, true };
		} else {
			in->others = grow(in->others, in->nothers,
					  sizeof(*in->others));
			in->others[in->nothers++] = va;
			continue;
		}
		in->nbranches++;
	}
	if (!in->nloads || !in->nstores || !in->nbranches || !in->nothers)
		die("the ELF's functions lack loads, stores or branches");
}

/* ---- output ---------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

static void put8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put16(struct buf *b, uint16_t v)
{
	put(b, &v, 2); /* little-endian hosts only: aarch64 and x86 */
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

/* the pid, tid pair most records start with */
static void put_pid_tid(struct buf *b, uint32_t pid, uint32_t tid)
{
	put32(b, pid);
	put32(b, tid);
}

static void pad8(struct buf *b)
{
	static const uint8_t zero[8];

	put(b, zero, (8 - b->n % 8) % 8);
}

/* perf's do_write_string: u32 length padded to 64, then the bytes */
static void put_string(struct buf *b, const char *s)
{
	static const uint8_t zero[64];
	size_t len = strlen(s) + 1, padded = (len + 63) & ~(size_t)63;

	put32(b, (uint32_t)padded);
	put(b, s, len);
	put(b, zero, padded - len);
}

static void emit(struct gen *g, const void *p, size_t n)
{
	if (fwrite(p, 1, n, g->out) != n)
		die(strerror(errno));
	g->written += n;
}

/* a record: header, then body (its size a multiple of 8) */
static void record(struct gen *g, uint32_t type, uint16_t misc,
		   const struct buf *body)
{
	struct buf h = { 0 };

	if (body->n + 8 > UINT16_MAX)
		die("record too large");
	put32(&h, type);
	put16(&h, misc);
	put16(&h, (uint16_t)(body->n + 8));
	emit(g, h.p, h.n);
	emit(g, body->p, body->n);
	free(h.p);
}

static void sample_id(struct buf *b, uint32_t tid, uint64_t time,
		      uint32_t cpu, uint64_t id)
{
	put_pid_tid(b, PID, tid);
	put64(b, time);
	put32(b, cpu);
	put32(b, 0);
	put64(b, id);
}

static uint64_t tick_to_time(uint64_t tick)
{
	uint64_t quot = tick >> TIME_SHIFT, rem = tick & ((1u << TIME_SHIFT) - 1);

	return TIME_ZERO + quot * TIME_MULT + ((rem * TIME_MULT) >> TIME_SHIFT);
}

/* ---- records --------------------------------------------------------- */

static void pkt_addr(struct buf *b, unsigned index, uint64_t v)
{
	put8(b, (uint8_t)(0xb0 | index));
	put64(b, v);
}

static void pkt_counter(struct buf *b, unsigned index, uint16_t v)
{
	put8(b, (uint8_t)(0x98 | index));
	put16(b, v);
}

static void truth_hex(FILE *f, bool has, uint64_t v)
{
	if (has)
		fprintf(f, " %" PRIx64, v);
	else
		fputs(" -", f);
}

/* One record's bytes into b, its truth line (at offset) to g->truth. */
static void spe_record(struct gen *g, struct buf *b, uint32_t cpu,
		       uint32_t tid)
{
	static const int sources[] = {
		NV_L1D, NV_L1D, NV_L1D, NV_L1D, NV_L1D, NV_L2, NV_L2, NV_L2,
		NV_PEER_CORE, NV_LOCAL_CLUSTER, NV_SYS_CACHE, NV_PEER_CLUSTER,
		NV_REMOTE, NV_DRAM, NV_DRAM,
	};
	/* load 4, store 2, branch 3, other 1 in 10 */
	unsigned kind = (unsigned)below(g, 10);
	uint64_t offset = b->n, pc, tgt = 0, va = 0, pa = 0;
	uint32_t events = 1u << EV_RETIRED;
	unsigned op_class, op_raw = 0;
	uint16_t tot, issue, xlat = 0;
	int source = NV_NONE;
	bool mem = kind < 6;

	put8(b, 0x65); /* CONTEXT, CONTEXTIDR_EL2 (VHE) */
	put32(b, tid);
	if (mem) {
		bool store = kind >= 4;
		unsigned lat;

		pc = store ? g->in.stores[below(g, g->in.nstores)]
			   : g->in.loads[below(g, g->in.nloads)];
		events |= 1u << EV_L1D_ACCESS | 1u << EV_TLB_ACCESS;
		if (store) {
			if (chance(g, 20))
				events |= 1u << EV_L1D_REFILL;
		} else {
			source = sources[below(g, 15)];
			if (source != NV_L1D)
				events |= 1u << EV_L1D_REFILL;
			if (source == NV_SYS_CACHE ||
			    source == NV_PEER_CLUSTER ||
			    source == NV_REMOTE || source == NV_DRAM)
				events |= 1u << EV_LLC_ACCESS;
			if (source == NV_REMOTE || source == NV_DRAM)
				events |= 1u << EV_LLC_MISS;
			if (source == NV_REMOTE)
				events |= 1u << EV_REMOTE;
		}
		if (chance(g, 15))
			events |= 1u << EV_TLB_WALK;
		switch (source) {
		case NV_L1D: lat = 4; break;
		case NV_L2: lat = 11; break;
		case NV_PEER_CORE: lat = 40; break;
		case NV_LOCAL_CLUSTER: lat = 45; break;
		case NV_SYS_CACHE: lat = 60; break;
		case NV_PEER_CLUSTER: lat = 70; break;
		case NV_REMOTE: lat = 300; break;
		case NV_DRAM: lat = 180; break;
		default: lat = 3; break;
		}
		xlat = (uint16_t)(1 + ((events & 1u << EV_TLB_WALK)
					       ? 30 : below(g, 3)));
		issue = (uint16_t)(1 + below(g, 19));
		tot = (uint16_t)(lat + issue + xlat + below(g, 8));
		op_class = 1;
		op_raw = store ? 1 : 0;
		va = STACK + 8 * below(g, 0x4000);
		pa = PHYS + (va & 0xfffffff);
	} else if (kind < 9) {
		const struct branch *br =
			&g->in.branches[below(g, g->in.nbranches)];
		bool taken = !br->cond || chance(g, 70);

		pc = br->va;
		tgt = br->indirect ? g->in.funcs[below(g, g->in.nfuncs)]
				   : br->target;
		if (!taken) {
			events |= 1u << EV_NOT_TAKEN;
			tgt = pc + 4;
		}
		if (chance(g, 25))
			events |= 1u << EV_MISPRED;
		op_class = 2;
		op_raw = (br->cond ? 1 : 0) | (br->indirect ? 2 : 0);
		tgt += g->start_of;
		tot = (uint16_t)(1 + below(g, 11));
		issue = (uint16_t)below(g, 6);
	} else {
		pc = g->in.others[below(g, g->in.nothers)];
		op_class = 0;
		tot = (uint16_t)(1 + below(g, 5));
		issue = (uint16_t)below(g, 3);
	}
	pc += g->start_of;
	pkt_addr(b, 0, pc | 1ull << 63); /* EL0, NS */
	pkt_counter(b, 1, issue);
	pkt_counter(b, 0, tot);
	put8(b, 0x52); /* EVENTS, 2 bytes */
	put16(b, (uint16_t)events);
	put8(b, (uint8_t)(0x48 | op_class));
	put8(b, (uint8_t)op_raw);
	if (mem) {
		pkt_addr(b, 2, va);
		pkt_counter(b, 2, xlat);
		pkt_addr(b, 3, pa | 1ull << 63);
		if (source != NV_NONE) {
			put8(b, 0x43); /* DATA_SOURCE, 1 byte */
			put8(b, (uint8_t)source);
		}
	}
	if (op_class == 2)
		pkt_addr(b, 1, tgt | 1ull << 63);
	g->tick += 20 + below(g, 380);
	put8(b, 0x71);
	put64(b, g->tick);
	if (g->truth) {
		FILE *f = g->truth;

		fprintf(f, "%u %" PRIx64 " %" PRIx64 " 0 1", cpu, offset, pc);
		truth_hex(f, op_class == 2, tgt);
		truth_hex(f, mem, va);
		truth_hex(f, mem, pa);
		truth_hex(f, true, g->tick);
		truth_hex(f, true, tid);
		fprintf(f, " %u %x %x", op_class, op_raw, events);
		truth_hex(f, source != NV_NONE, (uint64_t)source);
		fprintf(f, " %x %x", tot, issue);
		truth_hex(f, mem, xlat);
		fputs(" TS\n", f);
	}
}

/* ---- the capture ----------------------------------------------------- */

/* a perf_event_attr of 128 bytes (PERF_ATTR_SIZE_VER7) */
static void attr(struct buf *b, uint32_t type, uint64_t config,
		 uint64_t period, uint64_t flags)
{
	size_t at = b->n;

	put32(b, type);
	put32(b, 128);
	put64(b, config);
	put64(b, period);
	put64(b, SAMPLE_TYPE);
	put64(b, 0); /* read_format */
	put64(b, flags);
	while (b->n < at + 128)
		put8(b, 0);
}

#define SPE_FLAGS (F_DISABLED | F_SAMPLE_ID_ALL | F_EXCL_GUEST)
#define DUMMY_FLAGS                                                          \
	(F_EXCL_KERNEL | F_EXCL_HV | F_MMAP | F_COMM | F_TASK |             \
	 F_SAMPLE_ID_ALL | F_EXCL_GUEST | F_MMAP2 | F_COMM_EXEC |           \
	 F_CONTEXT_SWITCH)

static void sideband(struct gen *g, const char *recorded, uint64_t start,
		     uint64_t len)
{
	static const uint32_t tids[NCPU] = { PID, PID + 1 };
	struct buf b = { 0 };

	put64(&b, TIME_SHIFT);
	put64(&b, TIME_MULT);
	put64(&b, TIME_ZERO);
	put64(&b, 0);
	put64(&b, 0xffffffffffffffull);
	put8(&b, 1);
	put8(&b, 1);
	pad8(&b);
	record(g, R_TIME_CONV, 0, &b);
	/* AUXTRACE_INFO: type 4 (ARM SPE), then perf < 6.13's two words:
	 * the PMU type and per-CPU (1) */
	b.n = 0;
	put32(&b, 4);
	put32(&b, 0);
	put64(&b, PMU_TYPE);
	put64(&b, 1);
	record(g, R_AUXTRACE_INFO, 0, &b);
	b.n = 0;
	put_pid_tid(&b, PID, PID);
	put(&b, "loop", 5);
	pad8(&b);
	sample_id(&b, PID, TIME0, 0, DUMMY_ID);
	record(g, R_COMM, 0, &b);
	b.n = 0;
	put_pid_tid(&b, PID, PID);
	put64(&b, start);
	put64(&b, len);
	put64(&b, g->in.text_off & ~0xfffull);
	put8(&b, (uint8_t)g->in.build_id_len);
	put8(&b, 0);
	put16(&b, 0);
	put(&b, g->in.build_id, 20);
	put32(&b, 5); /* PROT_READ | PROT_EXEC */
	put32(&b, 2); /* MAP_PRIVATE */
	put(&b, recorded, strlen(recorded) + 1);
	pad8(&b);
	sample_id(&b, PID, TIME0 + 1, 0, DUMMY_ID);
	record(g, R_MMAP2, 2 | 1 << 14, &b); /* user, build-id */
	b.n = 0;
	put_pid_tid(&b, PID, PID); /* FORK: pid, ppid, tid, ptid */
	put_pid_tid(&b, tids[1], PID);
	put64(&b, TIME0 + 2);
	sample_id(&b, PID, TIME0 + 2, 1, DUMMY_ID + 1);
	record(g, R_FORK, 0, &b);
	b.n = 0;
	put_pid_tid(&b, PID, tids[1]);
	put(&b, "loop", 5);
	pad8(&b);
	sample_id(&b, PID, TIME0 + 3, 1, DUMMY_ID + 1);
	record(g, R_COMM, 0, &b);
	for (uint32_t cpu = 0; cpu < NCPU; cpu++) {
		b.n = 0;
		put_pid_tid(&b, PID, tids[cpu]);
		sample_id(&b, tids[cpu], TIME0 + 4, cpu, SPE_ID + cpu);
		record(g, R_ITRACE_START, 0, &b);
	}
	free(b.p);
}

static void trace(struct gen *g, uint64_t records, size_t chunk)
{
	static const uint32_t tids[NCPU] = { PID, PID + 1 };
	uint64_t left[NCPU] = { records, records }, aux_offset[NCPU] = { 0 };
	uint64_t ref = 0x1000;
	struct buf t = { 0 }, b = { 0 };

	while (left[0] || left[1]) {
		for (uint32_t cpu = 0; cpu < NCPU; cpu++) {
			uint64_t n = 0;

			if (!left[cpu])
				continue;
			t.n = 0;
			while (left[cpu] && t.n < chunk) {
				spe_record(g, &t, cpu, tids[cpu]);
				left[cpu]--;
				if (++n % 5 == 0) /* a PAD run */
					put(&t, "\0\0\0", 3);
			}
			pad8(&t); /* padded as perf does */
			b.n = 0;
			put64(&b, t.n);
			put64(&b, aux_offset[cpu]);
			put64(&b, ref++);
			put32(&b, cpu);
			put32(&b, UINT32_MAX); /* tid: per-CPU */
			put32(&b, cpu);
			put32(&b, 0);
			record(g, R_AUXTRACE, 0, &b);
			emit(g, t.p, t.n);
			b.n = 0;
			put64(&b, aux_offset[cpu]);
			put64(&b, t.n);
			put64(&b, 0);
			sample_id(&b, tids[cpu], tick_to_time(g->tick) + 1,
				  cpu, SPE_ID + cpu);
			record(g, R_AUX, 0, &b);
			aux_offset[cpu] += t.n;
		}
		b.n = 0;
		record(g, R_FINISHED_ROUND, 0, &b);
	}
	b.n = 0;
	put_pid_tid(&b, PID, PID); /* EXIT: pid, ppid, tid, ptid */
	put_pid_tid(&b, PID, PID);
	put64(&b, tick_to_time(g->tick) + 10);
	sample_id(&b, PID, tick_to_time(g->tick) + 10, 0, DUMMY_ID);
	record(g, R_EXIT, 0, &b);
	b.n = 0;
	record(g, R_FINISHED_ROUND, 0, &b);
	free(t.p);
	free(b.p);
}

/* The features after the data: their table, then the sections. */
static void features(struct gen *g, struct buf *out, uint64_t table_off,
		     uint64_t bits[4])
{
	static const int ids[] = { 3, 4, 5, 6, 7, 9, 11, 12, 16 };
	enum { NFEAT = sizeof(ids) / sizeof(ids[0]) };
	static const char *const cmdline[] = { "/usr/bin/perf", "record", "-e",
					       "arm_spe_0//", "--", "loop" };
	struct buf sec[NFEAT] = { { 0 } };
	char midr[32];
	uint64_t pos = table_off + 16 * NFEAT;

	(void)g;
	put_string(&sec[0], "synth-n1");
	put_string(&sec[1], "6.1.0-synth");
	put_string(&sec[2], "6.1.187");
	put_string(&sec[3], "aarch64");
	put32(&sec[4], NCPU);
	put32(&sec[4], NCPU);
	snprintf(midr, sizeof(midr), "0x%016" PRIx64, (uint64_t)MIDR_N1);
	put_string(&sec[5], midr);
	put32(&sec[6], 6);
	for (unsigned i = 0; i < 6; i++)
		put_string(&sec[6], cmdline[i]);
	put32(&sec[7], 2);
	put32(&sec[7], 128);
	attr(&sec[7], PMU_TYPE, 3, 4096, SPE_FLAGS);
	put32(&sec[7], NCPU);
	put_string(&sec[7], "arm_spe_0//");
	for (unsigned c = 0; c < NCPU; c++)
		put64(&sec[7], SPE_ID + c);
	attr(&sec[7], 1, 9, 1, DUMMY_FLAGS);
	put32(&sec[7], NCPU);
	put_string(&sec[7], "dummy:u");
	for (unsigned c = 0; c < NCPU; c++)
		put64(&sec[7], DUMMY_ID + c);
	put32(&sec[8], 2);
	put32(&sec[8], PMU_TYPE);
	put_string(&sec[8], "arm_spe_0");
	put32(&sec[8], 1);
	put_string(&sec[8], "software");
	for (unsigned i = 0; i < NFEAT; i++) {
		put64(out, pos);
		put64(out, sec[i].n);
		pos += sec[i].n;
		bits[ids[i] / 64] |= 1ull << (ids[i] % 64);
	}
	for (unsigned i = 0; i < NFEAT; i++) {
		put(out, sec[i].p, sec[i].n);
		free(sec[i].p);
	}
}

static void usage(void)
{
	fputs("usage: spe_gen [--records N] [--seed N] [--buffer BYTES] "
	      "[--truth FILE] ELF RECORDED_PATH OUT\n", stderr);
	exit(64);
}

int main(int argc, char **argv)
{
	uint64_t records = 200000, bits[4] = { 0 }, page = 0x1000;
	uint64_t start, len, attrs_off, data_off;
	size_t chunk = 2u << 20, elf_len;
	const char *truth = NULL;
	struct gen g = { .rng = 11 };
	struct buf hb = { 0 }, fb = { 0 };
	uint8_t *elf;
	FILE *f;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--records"))
			records = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			g.rng = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--buffer"))
			chunk = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--truth"))
			truth = argv[++i];
		else
			usage();
	}
	if (argc - i != 3 || !records || chunk < 64 || chunk > (1u << 30))
		usage();
	f = fopen(argv[i], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(elf_len = (size_t)ftell(f)) < 0)
		die("cannot read the ELF");
	rewind(f);
	elf = malloc(elf_len);
	if (!elf || fread(elf, 1, elf_len, f) != elf_len)
		die("cannot read the ELF");
	fclose(f);
	classify(&g.in, elf, elf_len);
	free(elf);
	start = BASE + (g.in.text_vaddr & ~(page - 1));
	g.start_of = start - (g.in.text_vaddr & ~(page - 1));
	len = (g.in.text_vaddr + g.in.text_memsz -
	       (g.in.text_vaddr & ~(page - 1)) + page - 1) & ~(page - 1);
	g.tick = TICK0 + 100;
	g.out = fopen(argv[i + 2], "wb");
	if (!g.out)
		die("cannot write the capture");
	if (truth) {
		g.truth = fopen(truth, "w");
		if (!g.truth)
			die("cannot write the truth");
		fprintf(g.truth, "# spe_gen records=%" PRIu64 " buffer=%zu\n",
			records, chunk);
	}
	/* the header (rewritten at the end), the ids, the attrs */
	hb.n = 0;
	for (unsigned c = 0; c < 104; c++)
		put8(&hb, 0);
	for (unsigned c = 0; c < NCPU; c++)
		put64(&hb, SPE_ID + c);
	for (unsigned c = 0; c < NCPU; c++)
		put64(&hb, DUMMY_ID + c);
	attrs_off = hb.n;
	attr(&hb, PMU_TYPE, 3, 4096, SPE_FLAGS);
	put64(&hb, 104);
	put64(&hb, 8 * NCPU);
	attr(&hb, 1, 9, 1, DUMMY_FLAGS);
	put64(&hb, 104 + 8 * NCPU);
	put64(&hb, 8 * NCPU);
	data_off = hb.n;
	emit(&g, hb.p, hb.n);
	g.written = 0;
	sideband(&g, argv[i + 1], start, len);
	trace(&g, records, chunk);
	features(&g, &fb, data_off + g.written, bits);
	emit(&g, fb.p, fb.n);
	hb.n = 0;
	put(&hb, "PERFILE2", 8);
	put64(&hb, 104);
	put64(&hb, 144);
	put64(&hb, attrs_off);
	put64(&hb, data_off - attrs_off);
	put64(&hb, data_off);
	put64(&hb, g.written - fb.n);
	put64(&hb, 0);
	put64(&hb, 0);
	for (unsigned k = 0; k < 4; k++)
		put64(&hb, bits[k]);
	if (fseek(g.out, 0, SEEK_SET) || fwrite(hb.p, 1, hb.n, g.out) != hb.n ||
	    fclose(g.out))
		die(strerror(errno));
	if (g.truth && fclose(g.truth))
		die("cannot write the truth");
	free(hb.p);
	free(fb.p);
	return 0;
}
