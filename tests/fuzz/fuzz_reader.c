/*
 * fuzz_reader.c - libFuzzer target for the whole reader (STYLE T7).
 *
 * Each input is opened with pd_file_open_mem() and read the way a command
 * would: the header, every event, every raw feature section and the
 * decoded environment (pd_file_env), then every record in file order,
 * again in time order (PD_READ_ORDERED) and once more with compressed
 * chunks left packed.  Every SAMPLE is decoded and walked (callchain,
 * branch stack, read values, registers), every kernel record's
 * sample_id_all trailer too, and every other record goes through
 * pd_event_decode() with each view and array accessor it offers.
 *
 * Beyond "no crash, no sanitizer report" it checks properties that hold
 * for any input, valid or not (CHECK aborts, so libFuzzer keeps the
 * input):
 *  - a failed call returns a pd_err code and leaves no handle behind;
 *  - a delivered record is at least 8 bytes, its header agrees with the
 *    rec fields, and a record that was not decompressed has the bytes of
 *    the input at its offset;
 *  - every pointer a decoded sample or event holds lies inside its
 *    record (or the payload after it), and its strings hold no NUL;
 *  - the environment's counts agree with its per-feature status;
 *  - the reader's statistics count exactly the records it delivered;
 *  - time order delivers the same records as file order;
 *  - every allocation is freed once the file is closed (counted through
 *    the allocation hooks, so it holds without LeakSanitizer);
 *  - the most memory live at once stays within a budget of the input's
 *    size (below).
 *
 * Out-of-memory paths (T9): three inputs in eight, chosen by a hash of
 * their bytes so a run is reproducible, are read a second time with the
 * Nth allocation failing (once, or from then on); the failure must come
 * back as PD_ERR_NOMEM (or a NULL environment), never be swallowed, and
 * must leak nothing.  replay.c can sweep every N on small inputs.
 */
#include "fuzz.h"

#include "pd.h"

#include <stdbool.h>
#include <string.h>

static char not_a_file;

/*
 * The memory budget: the most bytes live at once through the hooks (a
 * request counts whether granted or refused, so the 64 MiB cap on one
 * allocation hides nothing) is at most
 *
 *	BUDGET_PER_BYTE * input + BUDGET_PER_ZBYTE * compressed + BUDGET_FIXED
 *
 * where compressed counts the bytes of the input's COMPRESSED and
 * COMPRESSED2 records.  From what real captures need (testdata/ and the
 * shared corpus, tests/fuzz/README.md): a plain capture peaks at 1.6
 * times its size plus 7 KB (the ordered reader's queue, ids, the
 * environment); a compressed one at 7.4 MB for 55 KB, a zstd stream of
 * 0.9 MB (perf's level 1, a 512 KiB window) and output buffers of 1-2
 * MiB, its chunks expanding up to 126 times.  So: 8 per plain byte, 256
 * per compressed byte, and 16 MiB for the stream (a window up to 8 MiB,
 * the most the reader decodes: format.md §7) and its buffers.
 */
#define BUDGET_PER_BYTE 8
#define BUDGET_PER_ZBYTE 256
#define BUDGET_FIXED ((size_t)16 << 20)

/* ---- what one pass observed ---------------------------------------- */

struct fz_run {
	const uint8_t *data;
	size_t size;
	struct failalloc alloc;
	bool nomem_seen; /* some call reported PD_ERR_NOMEM */
	unsigned nr_logged;
	bool opened;
	/* per reading pass: records and an order-free digest of them */
	uint64_t nr_recs[3];
	uint64_t digest[3];
	int end_rc[3];
	int damaged[3];
	uint64_t zbytes; /* bytes of the packed pass's compressed records */
};

/* Keeps the compiler from dropping loads whose only use is ASan's check. */
static volatile uint64_t sink;

static void check_rc(struct fz_run *run, int rc)
{
	CHECK(rc <= 0 && rc >= PD_ERR_NOTFOUND);
	CHECK(strcmp(pd_strerror(rc), "unknown error") != 0);
	if (rc == PD_ERR_NOMEM)
		run->nomem_seen = true;
}

static void fz_log(void *arg, enum pd_log_level level, const char *msg)
{
	struct fz_run *run = arg;
	size_t len;

	CHECK(level <= PD_LOG_DEBUG);
	CHECK(msg != NULL);
	len = strlen(msg);
	CHECK(len > 0 && msg[len - 1] != '\n');
	run->nr_logged++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

/* [p, p+len) lies inside the record's body */
static bool in_rec(const struct pd_rec *rec, const void *p, uint64_t len)
{
	const unsigned char *b = p;

	if (len == 0)
		return true;
	return b && b >= rec->data + 8 && b <= rec->data + rec->size &&
	       len <= (uint64_t)(rec->data + rec->size - b);
}

/* ---- metadata ------------------------------------------------------- */

static void walk_header(struct fz_run *run, struct pd_file *f)
{
	const struct pd_header_info *h = pd_file_header(f);

	CHECK(h != NULL);
	CHECK(h->kind == PD_KIND_FILE || h->kind == PD_KIND_PIPE);
	CHECK(h->swap == 0 || h->swap == 1);
	CHECK(h->data_offset <= run->size);
	CHECK(pd_file_name(f) != NULL);
	CHECK(pd_file_errmsg(f) != NULL);
}

static void walk_evsels(struct fz_run *run, struct pd_file *f)
{
	const size_t nr = pd_file_nr_evsels(f);

	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		CHECK(e != NULL);
		CHECK(e->idx == i);
		CHECK(e->name != NULL);
		fuzz_touch(e->name, strlen(e->name));
		CHECK(e->nr_ids == 0 || e->ids != NULL);
		fuzz_touch(e->ids, e->nr_ids * sizeof(*e->ids));
		CHECK(e->id_pos >= -1 && e->is_pos >= -1);
		CHECK(e->id_hdr_size % 8 == 0 && e->id_hdr_size <= 48);
		/*
		 * An id finds an event that has it (perf keeps the last).
		 * Not after a failed allocation: pd_file_add_evsel() keeps
		 * an event whose ids did not all make it into the table.
		 */
		for (size_t j = 0;
		     j < e->nr_ids && j < 8 && !run->alloc.nr_failed; j++) {
			const struct pd_evsel *by =
				pd_file_evsel_by_id(f, e->ids[j]);
			bool has = false;

			CHECK(by != NULL);
			for (size_t k = 0; k < by->nr_ids && !has; k++)
				has = by->ids[k] == e->ids[j];
			CHECK(has);
		}
		for (unsigned bit = 0; bit < 64; bit++)
			if (e->attr.sample_type >> bit & 1)
				(void)pd_sample_bit_name(bit);
	}
	CHECK(pd_file_evsel(f, nr) == NULL);
}

static void walk_features(struct pd_file *f)
{
	const struct pd_header_info *h = pd_file_header(f);

	for (unsigned feat = 0; feat < PD_FEAT_MAX + 2; feat++) {
		const void *p = NULL;
		size_t len = 0;
		int rc = pd_file_feature(f, feat, &p, &len);

		(void)pd_feature_name(feat);
		CHECK(rc == 0 || rc == 1);
		if (!rc)
			continue;
		CHECK(feat < PD_FEAT_MAX);
		CHECK(h->features[feat / 64] >> (feat % 64) & 1);
		CHECK(len == 0 || p != NULL);
		fuzz_touch(p, len);
	}
}

static void walk_strings(const char *const *v, uint64_t nr)
{
	CHECK(nr == 0 || v != NULL);
	for (uint64_t i = 0; i < nr; i++)
		fuzz_touch_str(v[i]);
}

/* Every string and array of a decoded environment is readable. */
static void walk_env(struct fz_run *run, struct pd_file *f)
{
	const struct pd_env *env;
	unsigned nr_set = 0, nr_damaged = 0, nr_unknown = 0;

	if (pd_file_env(f, &env) < 0) {
		/* no memory for it: the one way the accessor can fail */
		if (run->alloc.nr_failed)
			run->nomem_seen = true;
		return;
	}
	for (unsigned feat = 0; feat < PD_FEAT_MAX; feat++) {
		const unsigned st = env->status[feat];

		CHECK(st <= PD_ENV_UNKNOWN);
		(void)pd_env_status_name((int)st);
		nr_set += st != PD_ENV_ABSENT;
		nr_damaged += st == PD_ENV_DAMAGED || st == PD_ENV_MISSING;
		nr_unknown += st == PD_ENV_UNKNOWN;
	}
	CHECK(env->nr_features == nr_set);
	CHECK(env->nr_damaged == nr_damaged);
	CHECK(env->nr_unknown_features == nr_unknown);

	fuzz_touch(env->tracing.data, env->tracing.size);
	fuzz_touch_str(env->tracing.version);
	CHECK(env->nr_build_ids == 0 || env->build_ids);
	for (size_t i = 0; i < env->nr_build_ids; i++) {
		CHECK(env->build_ids[i].size <= 20);
		fuzz_touch_str(env->build_ids[i].filename);
	}
	fuzz_touch_str(env->hostname);
	fuzz_touch_str(env->os_release);
	fuzz_touch_str(env->version);
	fuzz_touch_str(env->arch);
	fuzz_touch_str(env->cpu_desc);
	fuzz_touch_str(env->cpuid);
	walk_strings(env->cmdline, env->nr_cmdline);
	CHECK(env->nr_events == 0 || env->events);
	for (uint32_t i = 0; i < env->nr_events; i++) {
		fuzz_touch_str(env->events[i].name);
		CHECK(env->events[i].nr_ids == 0 || env->events[i].ids);
		fuzz_touch(env->events[i].ids, env->events[i].nr_ids * 8ull);
	}
	walk_strings(env->cpu_topology.core_siblings,
		     env->cpu_topology.nr_core_siblings);
	walk_strings(env->cpu_topology.thread_siblings,
		     env->cpu_topology.nr_thread_siblings);
	walk_strings(env->cpu_topology.die_siblings,
		     env->cpu_topology.nr_die_siblings);
	CHECK(env->cpu_topology.nr_cpus == 0 || env->cpu_topology.cpus);
	fuzz_touch(env->cpu_topology.cpus,
		   env->cpu_topology.nr_cpus * sizeof(*env->cpu_topology.cpus));
	for (uint32_t i = 0; i < env->nr_numa_nodes; i++)
		fuzz_touch_str(env->numa_nodes[i].cpus);
	for (uint32_t i = 0; i < env->nr_pmu_mappings; i++)
		fuzz_touch_str(env->pmu_mappings[i].name);
	for (uint32_t i = 0; i < env->nr_groups; i++)
		fuzz_touch_str(env->groups[i].name);
	CHECK(env->nr_auxtrace == 0 || env->auxtrace);
	fuzz_touch(env->auxtrace, env->nr_auxtrace * sizeof(*env->auxtrace));
	for (uint32_t i = 0; i < env->nr_caches; i++) {
		fuzz_touch_str(env->caches[i].type);
		fuzz_touch_str(env->caches[i].size);
		fuzz_touch_str(env->caches[i].map);
	}
	for (uint64_t i = 0; i < env->nr_mem_nodes; i++) {
		const struct pd_env_mem_node *n = &env->mem_nodes[i];

		CHECK(n->nr_bits == 0 || n->bitmap);
		fuzz_touch(n->bitmap, (n->nr_bits + 63) / 64 * 8);
	}
	fuzz_touch(env->bpf_progs, env->nr_bpf_progs * sizeof(*env->bpf_progs));
	fuzz_touch(env->btfs, env->nr_btfs * sizeof(*env->btfs));
	for (uint32_t i = 0; i < env->nr_cpu_pmu_caps; i++) {
		fuzz_touch_str(env->cpu_pmu_caps[i].name);
		fuzz_touch_str(env->cpu_pmu_caps[i].value);
	}
	for (uint32_t i = 0; i < env->nr_hybrid_nodes; i++) {
		fuzz_touch_str(env->hybrid_nodes[i].pmu_name);
		fuzz_touch_str(env->hybrid_nodes[i].cpus);
	}
	for (uint32_t i = 0; i < env->nr_pmu_caps; i++) {
		const struct pd_env_pmu_caps *pc = &env->pmu_caps[i];

		fuzz_touch_str(pc->pmu_name);
		CHECK(pc->nr_caps == 0 || pc->caps);
		for (uint32_t j = 0; j < pc->nr_caps; j++) {
			fuzz_touch_str(pc->caps[j].name);
			fuzz_touch_str(pc->caps[j].value);
		}
	}
	for (uint32_t i = 0; i < env->nr_cpu_domains; i++) {
		const struct pd_env_cpu_domains *cd = &env->cpu_domains[i];

		CHECK(cd->nr_domains == 0 || cd->domains);
		for (uint32_t j = 0; j < cd->nr_domains; j++) {
			fuzz_touch_str(cd->domains[j].name);
			fuzz_touch_str(cd->domains[j].cpumask);
			fuzz_touch_str(cd->domains[j].cpulist);
		}
	}
	for (uint32_t i = 0; i < env->nr_meta_info; i++) {
		fuzz_touch_str(env->meta_info[i].key);
		fuzz_touch_str(env->meta_info[i].value);
	}
	if (env->simpleperf_file_paths)
		walk_strings(env->simpleperf_file_paths,
			     env->nr_simpleperf_files);
}

/* ---- records -------------------------------------------------------- */

static void walk_regs(const struct pd_rec *rec, const struct pd_regs *regs)
{
	if (regs->abi == 0)
		return;
	CHECK(regs->regs.nr == (uint64_t)__builtin_popcountll(regs->mask));
	CHECK(in_rec(rec, regs->regs.raw, regs->regs.nr * 8));
	for (uint64_t i = 0; i < regs->regs.nr; i++)
		sink += pd_u64s_get(&regs->regs, i);
}

static void walk_sample(struct fz_run *run, struct pd_file *f,
			const struct pd_rec *rec)
{
	struct pd_sample s;
	struct pd_data_src ds;
	int rc = pd_sample_decode(f, rec, &s);

	if (rc < 0) {
		check_rc(run, rc);
		CHECK(rc == PD_ERR_FORMAT);
		CHECK(pd_file_errmsg(f)[0] != '\0');
		return;
	}
	CHECK(s.evsel != NULL);
	CHECK(s.mask == s.evsel->attr.sample_type);
	CHECK(s.misc == rec->misc);

	if (s.mask & PD_SAMPLE_READ) {
		if (s.evsel->attr.read_format & PD_FORMAT_GROUP)
			CHECK(in_rec(rec, s.read.raw,
				     s.read.nr * s.read.entry_size));
		else
			CHECK(s.read.nr == 1 && in_rec(rec, s.read.raw, 8));
		for (uint64_t i = 0; i < s.read.nr; i++) {
			struct pd_read_value v;

			pd_sample_read_value(&s, i, &v);
			sink += v.value + v.id + v.lost;
		}
	}
	if (s.mask & PD_SAMPLE_CALLCHAIN) {
		/* the callchain's nr fits in the record */
		CHECK(s.callchain.nr <= rec->size / 8);
		CHECK(in_rec(rec, s.callchain.raw, s.callchain.nr * 8));
		for (uint64_t i = 0; i < s.callchain.nr; i++)
			sink += pd_u64s_get(&s.callchain, i);
	}
	if (s.mask & PD_SAMPLE_RAW)
		CHECK(in_rec(rec, s.raw.data, s.raw.size));
	fuzz_touch(s.raw.data, s.raw.size);
	if (s.mask & PD_SAMPLE_BRANCH_STACK) {
		CHECK(s.branch.nr <= rec->size / 24);
		CHECK(in_rec(rec, s.branch.entries, s.branch.nr * 24));
		CHECK(in_rec(rec, s.branch.counters.raw,
			     s.branch.counters.nr * 8));
		for (uint64_t i = 0; i < s.branch.nr; i++) {
			struct pd_branch b;

			pd_sample_branch(&s, i, &b);
			/* flags_raw is the decoded fields put back */
			CHECK((b.flags_raw & 1) == b.mispred);
			CHECK((b.flags_raw >> 4 & 0xffff) == b.cycles);
			CHECK((b.flags_raw >> 30 & 7) == b.priv);
			sink += b.from + b.to;
		}
		for (uint64_t i = 0; i < s.branch.counters.nr; i++)
			sink += pd_u64s_get(&s.branch.counters, i);
	}
	walk_regs(rec, &s.regs_user);
	walk_regs(rec, &s.regs_intr);
	if (s.mask & PD_SAMPLE_STACK_USER) {
		CHECK(in_rec(rec, s.stack_user.data, s.stack_user.size));
		fuzz_touch(s.stack_user.data, s.stack_user.size);
	}
	if (s.mask & PD_SAMPLE_AUX) {
		CHECK(in_rec(rec, s.aux.data, s.aux.size));
		fuzz_touch(s.aux.data, s.aux.size);
	}
	pd_data_src_decode(s.data_src, &ds);
	sink += ds.op + ds.lvl + ds.snoop + ds.hops;
}

static void walk_trailer(struct fz_run *run, struct pd_file *f,
			 const struct pd_rec *rec)
{
	struct pd_sample_id sid;
	int rc = pd_rec_sample_id(f, rec, &sid);

	if (rc < 0) {
		check_rc(run, rc);
		CHECK(rc == PD_ERR_FORMAT);
		CHECK(pd_file_errmsg(f)[0] != '\0');
		return;
	}
	if (sid.mask)
		CHECK(sid.evsel != NULL);
	sink += sid.pid + sid.time + sid.id;
}

/* [p, p+len) lies inside the record or the payload that follows it */
static bool in_view(const struct pd_rec *rec, const void *p, uint64_t len)
{
	const unsigned char *b = p;

	if (len == 0)
		return true;
	if (!b)
		return false;
	if (b >= rec->data && b <= rec->data + rec->size &&
	    len <= (uint64_t)(rec->data + rec->size - b))
		return true;
	return rec->payload && b >= rec->payload &&
	       b <= rec->payload + rec->payload_size &&
	       len <= (uint64_t)(rec->payload + rec->payload_size - b);
}

/* A pd_str: inside the record, no NUL in it. */
static void check_str(const struct pd_rec *rec, const struct pd_str *s)
{
	CHECK(in_view(rec, s->ptr, s->len));
	CHECK(s->len == 0 || memchr(s->ptr, '\0', s->len) == NULL);
}

static void check_u64s(const struct pd_rec *rec, const struct pd_u64s *a)
{
	CHECK(in_view(rec, a->raw, a->nr * 8));
	for (uint64_t i = 0; i < a->nr; i++)
		sink += pd_u64s_get(a, i);
}

static void walk_cpu_map(const struct pd_rec *rec, const struct pd_cpu_map *m)
{
	uint64_t pos = 0, bound = 0, nr = 0;
	int cpu;

	switch (m->type) {
	case PD_CPU_MAP_CPUS:
		CHECK(in_view(rec, m->raw, m->nr * 2ull));
		bound = m->nr;
		break;
	case PD_CPU_MAP_MASK:
		CHECK(m->long_size == 4 || m->long_size == 8);
		CHECK(in_view(rec, m->raw, (uint64_t)m->nr * m->long_size));
		bound = (uint64_t)m->nr * m->long_size * 8;
		break;
	case PD_CPU_MAP_RANGE:
		bound = 1 + (uint64_t)m->end_cpu + 1;
		break;
	default:
		CHECK(!"a decoded cpu map has a known type");
	}
	/* the walk ends, within the map's size */
	while (pd_cpu_map_next(m, &pos, &cpu) == 1) {
		CHECK(++nr <= bound);
		CHECK(cpu >= -1);
	}
}

/* Decode a record other than SAMPLE and read every view it gives. */
static void walk_event(struct fz_run *run, struct pd_file *f,
		       const struct pd_rec *rec)
{
	struct pd_event ev;
	struct pd_read_value rv;
	uint64_t pid;
	struct pd_str a, b;
	int rc = pd_event_decode(f, rec, &ev);

	if (rc == PD_EVENT_UNKNOWN) {
		CHECK(pd_rec_type_name(rec->type) == NULL);
		return;
	}
	if (rc < 0) {
		check_rc(run, rc);
		CHECK(rc == PD_ERR_FORMAT || rc == PD_ERR_UNSUPPORTED);
		CHECK(pd_file_errmsg(f)[0] != '\0');
		return;
	}
	CHECK(rc == 0);
	CHECK(ev.type == rec->type && ev.misc == rec->misc);
	switch (rec->type) {
	case PD_REC_MMAP:
		check_str(rec, &ev.mmap.filename);
		break;
	case PD_REC_MMAP2:
		CHECK(ev.mmap2.build_id_size <= 20);
		CHECK(in_view(rec, ev.mmap2.build_id, ev.mmap2.build_id_size));
		check_str(rec, &ev.mmap2.filename);
		break;
	case PD_REC_COMM:
		check_str(rec, &ev.comm.comm);
		break;
	case PD_REC_READ:
		for (uint64_t i = 0; i < ev.read.nr; i++) {
			CHECK(i < rec->size / 8);
			pd_ev_read_value(&ev.read, i, &rv);
			sink += rv.value + rv.id + rv.lost;
		}
		break;
	case PD_REC_NAMESPACES:
		check_u64s(rec, &ev.namespaces.link_info);
		break;
	case PD_REC_KSYMBOL:
		check_str(rec, &ev.ksymbol.name);
		break;
	case PD_REC_BPF_EVENT:
		CHECK(in_view(rec, ev.bpf_event.tag, 8));
		break;
	case PD_REC_CGROUP:
		check_str(rec, &ev.cgroup.path);
		break;
	case PD_REC_TEXT_POKE:
		CHECK(in_view(rec, ev.text_poke.old_bytes,
			      ev.text_poke.old_len));
		CHECK(in_view(rec, ev.text_poke.new_bytes,
			      ev.text_poke.new_len));
		break;
	case PD_REC_CALLCHAIN_DEFERRED:
		check_u64s(rec, &ev.callchain_deferred.ips);
		break;
	case PD_REC_HEADER_ATTR:
		check_u64s(rec, &ev.attr.ids);
		break;
	case PD_REC_HEADER_EVENT_TYPE:
		check_str(rec, &ev.event_type.name);
		break;
	case PD_REC_HEADER_TRACING_DATA:
		CHECK(in_view(rec, ev.tracing_data.data,
			      ev.tracing_data.data_size));
		break;
	case PD_REC_HEADER_BUILD_ID:
		CHECK(ev.build_id.size <= 20);
		CHECK(in_view(rec, ev.build_id.build_id, ev.build_id.size));
		check_str(rec, &ev.build_id.filename);
		break;
	case PD_REC_ID_INDEX:
		CHECK(in_view(rec, ev.id_index.entries, ev.id_index.nr * 32));
		if (ev.id_index.has_vm)
			CHECK(in_view(rec, ev.id_index.entries2,
				      ev.id_index.nr * 16));
		for (uint64_t i = 0; i < ev.id_index.nr; i++) {
			struct pd_id_index_entry e;

			pd_ev_id_index_get(&ev.id_index, i, &e);
			sink += e.id + e.vcpu;
		}
		break;
	case PD_REC_AUXTRACE_INFO:
		check_u64s(rec, &ev.auxtrace_info.priv);
		break;
	case PD_REC_AUXTRACE:
		CHECK(in_view(rec, ev.auxtrace.data, ev.auxtrace.data_size));
		break;
	case PD_REC_AUXTRACE_ERROR:
		CHECK(ev.auxtrace_error.msg.len <= 64);
		check_str(rec, &ev.auxtrace_error.msg);
		break;
	case PD_REC_THREAD_MAP:
		CHECK(in_view(rec, ev.thread_map.entries,
			      ev.thread_map.nr * 24));
		for (uint64_t i = 0; i < ev.thread_map.nr; i++) {
			pd_ev_thread_map_get(&ev.thread_map, i, &pid, &a);
			check_str(rec, &a);
		}
		break;
	case PD_REC_CPU_MAP:
		walk_cpu_map(rec, &ev.cpu_map);
		break;
	case PD_REC_STAT_CONFIG:
		check_u64s(rec, &ev.stat_config.data);
		break;
	case PD_REC_EVENT_UPDATE:
		if (ev.event_update.type == PD_EVENT_UPDATE_CPUS)
			walk_cpu_map(rec, &ev.event_update.cpus);
		else
			check_str(rec, &ev.event_update.str);
		break;
	case PD_REC_HEADER_FEATURE:
		CHECK(in_view(rec, ev.feature.data, ev.feature.size));
		break;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		CHECK(in_view(rec, ev.compressed.data, ev.compressed.avail));
		break;
	case PD_REC_BPF_METADATA:
		check_str(rec, &ev.bpf_metadata.prog_name);
		CHECK(in_view(rec, ev.bpf_metadata.entries,
			      ev.bpf_metadata.nr_entries * 320));
		for (uint64_t i = 0; i < ev.bpf_metadata.nr_entries; i++) {
			pd_ev_bpf_metadata_get(&ev.bpf_metadata, i, &a, &b);
			check_str(rec, &a);
			check_str(rec, &b);
		}
		break;
	default:
		break;
	}
}

static void walk_rec(struct fz_run *run, struct pd_file *f,
		     const struct pd_rec *rec, unsigned pass)
{
	const int sw = pd_file_header(f)->swap;
	uint16_t hsize;

	CHECK(rec->size >= 8);
	CHECK(rec->data != NULL);
	CHECK(pd_load_u32(rec->data, sw) == rec->type);
	CHECK(pd_load_u16(rec->data + 4, sw) == rec->misc);
	hsize = pd_load_u16(rec->data + 6, sw);
	/* only a wrapped COMPRESSED2 may differ from its header */
	CHECK(hsize == rec->size || (rec->type == PD_REC_COMPRESSED2 &&
				     hsize == (rec->size & 0xffff)));
	CHECK(rec->payload_size == 0 || rec->payload != NULL);
	CHECK((rec->flags &
	       ~(unsigned)(PD_RECF_DECOMPRESSED | PD_RECF_STABLE)) == 0);
	/* a record from the input (not out of a compressed chunk) is where
	 * it is in it, until the file is closed */
	CHECK(!(rec->flags & PD_RECF_STABLE) ==
	      !!(rec->flags & PD_RECF_DECOMPRESSED));
	CHECK(rec->offset <= run->size);
	if (rec->flags & PD_RECF_STABLE)
		CHECK(rec->data == run->data + rec->offset);
	if (!(rec->flags & PD_RECF_DECOMPRESSED)) {
		/* the record is the input's bytes at its offset */
		CHECK(rec->size + rec->payload_size <= run->size - rec->offset);
		CHECK(memcmp(rec->data, run->data + rec->offset, rec->size) ==
		      0);
		CHECK(rec->payload_size == 0 ||
		      memcmp(rec->payload, run->data + rec->offset + rec->size,
			     rec->payload_size) == 0);
	} else {
		fuzz_touch(rec->data, rec->size);
		fuzz_touch(rec->payload, rec->payload_size);
	}
	run->nr_recs[pass]++;
	if (pass == 2 &&
	    (rec->type == PD_REC_COMPRESSED || rec->type == PD_REC_COMPRESSED2))
		run->zbytes += rec->size + rec->payload_size;
	run->digest[pass] +=
		mix(mix(mix(rec->offset, rec->type), rec->size), rec->flags);
	(void)pd_rec_type_name(rec->type);

	if (pass == 2)
		return; /* the packed pass only checks framing */
	if (rec->type == PD_REC_SAMPLE)
		walk_sample(run, f, rec);
	else if (rec->type < PD_REC_USER_TYPE_START)
		walk_trailer(run, f, rec);
	if (rec->type != PD_REC_SAMPLE)
		walk_event(run, f, rec);
}

static const unsigned pass_flags[3] = {
	0,
	PD_READ_ORDERED,
	PD_READ_KEEP_COMPRESSED,
};

static void read_pass(struct fz_run *run, struct pd_file *f, unsigned pass)
{
	const struct pd_reader_stats *st;
	struct pd_reader *r = NULL;
	struct pd_rec rec;
	uint64_t by_type = 0;
	int rc;

	rc = pd_reader_new(f, pass_flags[pass], &r);
	if (rc < 0) {
		check_rc(run, rc);
		CHECK(r == NULL);
		/* a failure always says why (E3) */
		CHECK(pd_file_errmsg(f)[0] != '\0');
		run->end_rc[pass] = rc;
		return;
	}
	CHECK(r != NULL);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		walk_rec(run, f, &rec, pass);
	check_rc(run, rc);
	if (rc < 0)
		CHECK(pd_file_errmsg(f)[0] != '\0');
	run->end_rc[pass] = rc;
	/* the end is sticky */
	if (rc == 0)
		CHECK(pd_reader_next(r, &rec) == 0);

	st = pd_reader_stats(r);
	CHECK(st != NULL);
	CHECK(st->nr_records == run->nr_recs[pass]);
	for (unsigned t = 0; t < PD_REC_TYPE_MAX; t++)
		by_type += st->by_type[t];
	CHECK(by_type + st->nr_other_type == st->nr_records);
	CHECK(st->nr_unknown <= st->nr_records);
	CHECK(memchr(st->damage, '\0', sizeof(st->damage)) != NULL);
	CHECK(!st->damaged || st->damage[0] != '\0');
	run->damaged[pass] = st->damaged;
	pd_reader_free(r);
}

/* One full reading of the input.  @return the pd_err of the open. */
static int run_once(struct fz_run *run)
{
	const struct pd_alloc hooks = failalloc_hooks(&run->alloc);
	char err[256];
	PD_OPTS(opts, .log = fz_log, .log_arg = run, .log_level = PD_LOG_DEBUG,
		.alloc = &hooks, .errbuf = err, .errbuf_size = sizeof(err));
	/* a failed open must clear *out: start from a non-NULL junk value */
	struct pd_file *f = (struct pd_file *)(void *)&not_a_file;
	int rc;

	err[0] = '\0';
	run->alloc.max_size = FUZZ_MAX_ALLOC;
	rc = pd_file_open_mem(run->data, run->size, &opts, &f);
	if (rc < 0) {
		check_rc(run, rc);
		CHECK(f == NULL);
		CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)));
		CHECK(run->alloc.live == 0 && !run->alloc.nr_free_null);
		return rc;
	}
	CHECK(rc == 0 && f != NULL);
	run->opened = true;
	walk_header(run, f);
	walk_evsels(run, f);
	walk_features(f);
	walk_env(run, f);
	for (unsigned pass = 0; pass < 3; pass++)
		read_pass(run, f, pass);
	/* records absorbed while reading may add events and features */
	walk_evsels(run, f);
	walk_features(f);
	walk_env(run, f);
	pd_file_close(f);
	/* pd_free filters NULL */
	CHECK(run->alloc.live == 0 && !run->alloc.nr_free_null);
	return 0;
}

/* ---- the entry point ------------------------------------------------ */

static void run_oom(const uint8_t *data, size_t size, uint64_t fail_at,
		    bool persistent)
{
	struct fz_run run;

	memset(&run, 0, sizeof(run));
	run.data = data;
	run.size = size;
	run.alloc.fail_at = fail_at;
	run.alloc.persistent = persistent;
	run_once(&run);
	/* an allocation that failed is reported, not swallowed (E5) */
	if (run.alloc.nr_failed)
		CHECK(run.nomem_seen);
}

int fuzz_reader(const uint8_t *data, size_t size)
{
	struct fz_run clean;
	uint64_t h, nr_calls;

	memset(&clean, 0, sizeof(clean));
	clean.data = data;
	clean.size = size;
	run_once(&clean);
	if (clean.alloc.nr_failed)
		CHECK(clean.nomem_seen);
	CHECK(clean.alloc.peak_bytes <=
	      BUDGET_PER_BYTE * size + BUDGET_PER_ZBYTE * clean.zbytes +
		      BUDGET_FIXED);
	/*
	 * Time order delivers the file-order records, no more, no fewer,
	 * when both readings got to the end the same way.
	 */
	if (clean.opened && clean.end_rc[0] == 0 && clean.end_rc[1] == 0 &&
	    !clean.alloc.nr_failed) {
		CHECK(clean.nr_recs[0] == clean.nr_recs[1]);
		CHECK(clean.digest[0] == clean.digest[1]);
		CHECK(clean.damaged[0] == clean.damaged[1]);
	}

	nr_calls = clean.alloc.nr_calls;
	if (nr_calls == 0 || fuzz_oom == FUZZ_OOM_OFF)
		return 0;
	if (fuzz_oom == FUZZ_OOM_SWEEP && size <= fuzz_oom_sweep_max) {
		for (uint64_t n = 1; n <= nr_calls; n++)
			run_oom(data, size, n, false);
		run_oom(data, size, 1 + nr_calls / 2, true);
		return 0;
	}
	h = fuzz_hash(data, size);
	switch (h % 8) {
	case 0:
	case 1:
		run_oom(data, size, 1 + (h >> 8) % nr_calls, false);
		break;
	case 2:
		run_oom(data, size, 1 + (h >> 8) % nr_calls, true);
		break;
	default:
		break;
	}
	return 0;
}
