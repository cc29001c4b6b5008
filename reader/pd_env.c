/*
 * pd_env.c - decoding the feature sections into struct pd_env: the
 * driver, the arena and cursor helpers, and the sections about the
 * capture itself (tracing data, build ids, the uname strings, nrcpus,
 * memory, cmdline, event descriptions, times, clocks, compression) and
 * simpleperf's META_INFO.  Machine layout is in pd_env_topo.c, PMUs and
 * BPF in pd_env_pmu.c, simpleperf's FILE tables in pd_env_simpleperf.c.  format.md §4; the layouts follow perf's
 * tools/perf/util/header.c write_* / process_* functions.
 */
#include "pd_env_int.h"

#include <inttypes.h>
#include <stdio.h>

#define BUILD_ID_BYTES 20

/* ---- arena --------------------------------------------------------- */

void *pd_env_dec_alloc(struct env_dec *d, size_t size)
{
	return pdc_arena_zalloc(&d->ei->arena, &d->f->mem.hooks, size);
}

void *pd_env_dec_array(struct env_dec *d, uint64_t nr, size_t elem)
{
	if (elem && nr > SIZE_MAX / elem)
		return NULL;
	return pd_env_dec_alloc(d, (size_t)nr * elem);
}

char *pd_env_dec_strndup(struct env_dec *d, const unsigned char *s, size_t max)
{
	const unsigned char *nul = memchr(s, '\0', max);
	size_t len = nul ? (size_t)(nul - s) : max;
	char *p = pd_env_dec_alloc(d, len + 1);

	if (p)
		memcpy(p, s, len);
	return p;
}

int pd_env_dec_bad(struct env_dec *d, const struct pdc_cur *c, const char *fmt,
		   ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(d->why, sizeof(d->why), "at byte %zu of %zu: %s",
		 pdc_cur_pos(c), (size_t)(c->end - c->start), what);
	return ENV_DAMAGED;
}

int pd_env_dec_str(struct env_dec *d, struct pdc_cur *c, const char **out)
{
	uint32_t len;
	char *s;

	if (!pdc_cur_u32(c, &len))
		return pd_env_dec_bad(d, c, "no room for a string length");
	if (len > pdc_cur_left(c)) {
		c->p -= 4;
		return pd_env_dec_bad(d, c, "string of %u bytes, %zu left", len,
				      pdc_cur_left(c) - 4);
	}
	s = pd_env_dec_strndup(d, c->p, len);
	ENV_NEED(s);
	c->p += len;
	*out = s;
	return ENV_OK;
}

int pd_env_dec_strlist(struct env_dec *d, struct pdc_cur *c, uint32_t *nr,
		       const char *const **out)
{
	const char **v;
	uint32_t n;

	if (!pdc_cur_u32(c, &n))
		return pd_env_dec_bad(d, c, "no room for a count");
	/* every string takes at least its 4-byte length */
	if (n > pdc_cur_left(c) / 4) {
		c->p -= 4;
		return pd_env_dec_bad(d, c,
				      "%u strings cannot fit in %zu bytes", n,
				      pdc_cur_left(c) - 4);
	}
	v = pd_env_dec_array(d, n, sizeof(*v));
	ENV_NEED(v);
	*out = v;
	for (*nr = 0; *nr < n; (*nr)++)
		ENV_TRY(pd_env_dec_str(d, c, &v[*nr]));
	return ENV_OK;
}

/* ---- the capture --------------------------------------------------- */

/*
 * format.md §4.1 TRACING_DATA: perf's tracing file, starting "\027\010D"
 * "tracing", a NUL-terminated version, then a byte that is 1 when the
 * data is big-endian, sizeof(long), and the page size in that byte order.
 */
static int env_tracing(struct env_dec *d, struct pdc_cur *c)
{
	static const unsigned char magic[10] = { 23, 8, 68, 't', 'r',
						 'a', 'c', 'i', 'n', 'g' };
	const uint16_t one = 1;
	const int host_be = *(const unsigned char *)&one == 0;
	const struct pd_feat_sec *sec = &d->f->feat[PD_FEAT_TRACING_DATA];
	const unsigned char *nul;
	uint32_t page_size;

	d->env->tracing.data = c->p;
	d->env->tracing.size = pdc_cur_left(c);
	if (!sec->owned && d->f->nr_regions &&
	    sec->data >= d->f->regions[0].base &&
	    (uint64_t)(sec->data - d->f->regions[0].base) <
		    d->f->regions[0].map_size)
		d->env->tracing.offset =
			(uint64_t)(sec->data - d->f->regions[0].base);
	if (pdc_cur_left(c) < sizeof(magic) ||
	    memcmp(c->p, magic, sizeof(magic)))
		return pd_env_dec_bad(d, c, "no tracing data header");
	c->p += sizeof(magic);
	nul = memchr(c->p, '\0', pdc_cur_left(c));
	if (!nul)
		return pd_env_dec_bad(d, c, "tracing version not terminated");
	d->env->tracing.version =
		pd_env_dec_strndup(d, c->p, (size_t)(nul - c->p));
	ENV_NEED(d->env->tracing.version);
	c->p = nul + 1;
	if (pdc_cur_left(c) < 6)
		return pd_env_dec_bad(d, c, "tracing header cut short");
	d->env->tracing.big_endian = c->p[0] != 0;
	d->env->tracing.long_size = c->p[1];
	page_size = pd_load_u32(c->p + 2, d->env->tracing.big_endian != host_be);
	d->env->tracing.page_size = page_size;
	/* the rest (event formats, kallsyms, printk) stays in data */
	return ENV_OK;
}

/* One build-id entry's layout, decided once for the whole table. */
#define BID_NEW_FILENAME 36 /* header, pid, build_id[24] */
#define BID_OLD_FILENAME 32 /* header, build_id[24]: no pid */

/*
 * format.md §4.2 BUILD_ID: perf_record_header_build_id entries, each
 * header.size long.  perf before the pid field (2.6.35) wrote no pid;
 * like perf's abi quirk, such a table is recognized by its kernel entry,
 * whose "[kernel.kallsyms]" then reads 4 bytes short.
 */
static int env_build_id(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_build_id *bids;
	const unsigned char *p;
	size_t nr = 0, i;
	int old = 0, rc = ENV_OK;

	for (p = c->p; (size_t)(c->end - p) >= 8;) {
		uint16_t size = pd_load_u16(p + 6, c->swap);

		if (size < BID_OLD_FILENAME || size > (size_t)(c->end - p))
			break;
		if (size >= BID_NEW_FILENAME + 13 &&
		    memcmp(p + BID_NEW_FILENAME, "nel.kallsyms]", 13) == 0)
			old = 1;
		nr++;
		p += size;
	}
	bids = pd_env_dec_array(d, nr, sizeof(*bids));
	ENV_NEED(bids);
	d->env->build_ids = bids;
	for (i = 0; i < nr; i++) {
		struct pd_env_build_id *b = &bids[i];
		const uint16_t misc = pd_load_u16(c->p + 4, c->swap);
		const uint16_t size = pd_load_u16(c->p + 6, c->swap);
		const size_t fname = old ? BID_OLD_FILENAME : BID_NEW_FILENAME;

		if (size < fname) {
			rc = pd_env_dec_bad(d, c, "build-id entry of %u bytes",
					    size);
			break;
		}
		b->misc = misc;
		b->cpumode = misc & PD_MISC_CPUMODE_MASK;
		b->old_abi = old;
		if (old) {
			b->pid = (misc == PD_MISC_GUEST_USER ||
				  misc == PD_MISC_GUEST_KERNEL)
					 ? PD_ENV_GUEST_KERNEL_PID
					 : PD_ENV_HOST_KERNEL_PID;
			memcpy(b->build_id, c->p + 8, BUILD_ID_BYTES);
		} else {
			b->pid = (int32_t)pd_load_u32(c->p + 8, c->swap);
			memcpy(b->build_id, c->p + 12, BUILD_ID_BYTES);
		}
		b->size = BUILD_ID_BYTES;
		if (!old && (misc & PD_MISC_BUILD_ID_SIZE)) {
			b->size = c->p[12 + BUILD_ID_BYTES];
			if (b->size > BUILD_ID_BYTES) {
				rc = pd_env_dec_bad(d, c,
						    "build-id size %u > %u",
						    b->size, BUILD_ID_BYTES);
				b->size = BUILD_ID_BYTES;
			}
		}
		b->filename = pd_env_dec_strndup(d, c->p + fname, size - fname);
		ENV_NEED(b->filename);
		c->p += size;
		d->env->nr_build_ids = i + 1;
	}
	if (rc == ENV_OK && pdc_cur_left(c) >= 8)
		return pd_env_dec_bad(d, c, "build-id entry of %u bytes",
				      pd_load_u16(c->p + 6, c->swap));
	/* fewer than 8 trailing bytes: perf's own padding, at most */
	return rc;
}

static int env_string(struct env_dec *d, struct pdc_cur *c, const char **out)
{
	return pd_env_dec_str(d, c, out);
}

/* format.md §4.7 NRCPUS: u32 nr_cpus_avail, u32 nr_cpus_online */
static int env_nrcpus(struct env_dec *d, struct pdc_cur *c)
{
	if (!pdc_cur_u32(c, &d->env->nr_cpus_avail) ||
	    !pdc_cur_u32(c, &d->env->nr_cpus_online))
		return pd_env_dec_bad(d, c, "need 8 bytes");
	return ENV_OK;
}

static int env_u64(struct env_dec *d, struct pdc_cur *c, uint64_t *out)
{
	if (!pdc_cur_u64(c, out))
		return pd_env_dec_bad(d, c, "need 8 bytes");
	return ENV_OK;
}

/*
 * format.md §4.12 EVENT_DESC: u32 nr, u32 attr_size, then per event: the
 * attr (attr_size bytes), u32 nr_ids, the name, u64 ids[nr_ids].
 */
static int env_event_desc(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_event *ev;
	uint32_t nr, sz;

	if (!pdc_cur_u32(c, &nr) || !pdc_cur_u32(c, &sz))
		return pd_env_dec_bad(d, c, "need 8 bytes");
	d->env->event_attr_size = sz;
	if (sz < 64)
		return pd_env_dec_bad(d, c, "attr size %u < 64", sz);
	if (nr > pdc_cur_left(c) / ((uint64_t)sz + 8))
		return pd_env_dec_bad(d, c, "%u events cannot fit", nr);
	ev = pd_env_dec_array(d, nr, sizeof(*ev));
	ENV_NEED(ev);
	d->env->events = ev;
	for (uint32_t i = 0; i < nr; i++) {
		struct pd_env_event *e = &ev[i];
		size_t attr_len;
		uint64_t *ids;

		if (pdc_cur_left(c) < (uint64_t)sz + 4)
			return pd_env_dec_bad(d, c, "event %u cut short", i);
		if (pd_attr_decode(d->f, c->p, sz, (uint64_t)(c->p - c->start),
				   &e->attr, &attr_len) < 0)
			return pd_env_dec_bad(d, c, "event %u: %s", i,
					      pd_file_errmsg(d->f));
		c->p += sz;
		(void)pdc_cur_u32(c, &e->nr_ids);
		ENV_TRY(pd_env_dec_str(d, c, &e->name));
		if (e->nr_ids > pdc_cur_left(c) / 8)
			return pd_env_dec_bad(
				d, c, "event %u: %u ids, %zu bytes left", i,
				e->nr_ids, pdc_cur_left(c));
		ids = pd_env_dec_array(d, e->nr_ids, sizeof(*ids));
		ENV_NEED(ids);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			(void)pdc_cur_u64(c, &ids[j]);
		e->ids = ids;
		d->env->nr_events = i + 1;
	}
	return ENV_OK;
}

/* format.md §4.21 SAMPLE_TIME: u64 first, u64 last */
static int env_sample_time(struct env_dec *d, struct pdc_cur *c)
{
	uint64_t first, last;

	if (!pdc_cur_u64(c, &first) || !pdc_cur_u64(c, &last))
		return pd_env_dec_bad(d, c, "need 16 bytes");
	/* perf writes 0 and 0 without samples; a last before the first
	 * would make --time's percentages of a wrapped span, silently
	 * wrong: none kept, as without the section */
	if (last < first)
		return pd_env_dec_bad(d, c, "the last sample time %" PRIu64
				      " is before the first %" PRIu64,
				      last, first);
	d->env->first_sample_time = first;
	d->env->last_sample_time = last;
	return ENV_OK;
}

/* format.md §4.27 COMPRESSED: u32 version, type, level, ratio, mmap_len */
static int env_compressed(struct env_dec *d, struct pdc_cur *c)
{
	if (!pdc_cur_u32(c, &d->env->compressed.version) ||
	    !pdc_cur_u32(c, &d->env->compressed.type) ||
	    !pdc_cur_u32(c, &d->env->compressed.level) ||
	    !pdc_cur_u32(c, &d->env->compressed.ratio) ||
	    !pdc_cur_u32(c, &d->env->compressed.mmap_len))
		return pd_env_dec_bad(d, c, "need 20 bytes");
	return ENV_OK;
}

/*
 * format.md §4.29 CLOCK_DATA: u32 version (1), u32 clockid, u64 wall-clock
 * ns, u64 clockid ns.  perf rejects other versions; so do we.
 */
static int env_clock_data(struct env_dec *d, struct pdc_cur *c)
{
	if (!pdc_cur_u32(c, &d->env->clock_data.version))
		return pd_env_dec_bad(d, c, "need 24 bytes");
	if (d->env->clock_data.version != 1)
		return pd_env_dec_bad(d, c, "version %u",
				      d->env->clock_data.version);
	if (!pdc_cur_u32(c, &d->env->clock_data.clockid) ||
	    !pdc_cur_u64(c, &d->env->clock_data.tod_ns) ||
	    !pdc_cur_u64(c, &d->env->clock_data.clockid_ns))
		return pd_env_dec_bad(d, c, "need 24 bytes");
	return ENV_OK;
}

/* E_MACHINE: u32 e_machine (widened from ELF's u16), u32 e_flags */
static int env_e_machine(struct env_dec *d, struct pdc_cur *c)
{
	if (!pdc_cur_u32(c, &d->env->e_machine) ||
	    !pdc_cur_u32(c, &d->env->e_flags))
		return pd_env_dec_bad(d, c, "need 8 bytes");
	return ENV_OK;
}

/* ---- simpleperf's sections (bits 128 and up) ------------------------ */

/* META_INFO: "key\0value\0" pairs, neither empty. */
static int env_meta_info(struct env_dec *d, struct pdc_cur *c)
{
	struct pd_env_kv *kv;
	uint32_t nr = 0;

	for (const unsigned char *p = c->p; p < c->end;) {
		const unsigned char *k = memchr(p, '\0', (size_t)(c->end - p));
		const unsigned char *v;

		if (!k || k == p)
			break;
		v = memchr(k + 1, '\0', (size_t)(c->end - k - 1));
		if (!v || v == k + 1)
			break;
		nr++;
		p = v + 1;
	}
	kv = pd_env_dec_array(d, nr, sizeof(*kv));
	ENV_NEED(kv);
	d->env->meta_info = kv;
	for (uint32_t i = 0; i < nr; i++) {
		size_t klen = strlen((const char *)c->p);

		kv[i].key = pd_env_dec_strndup(d, c->p, klen);
		ENV_NEED(kv[i].key);
		c->p += klen + 1;
		klen = strlen((const char *)c->p);
		kv[i].value = pd_env_dec_strndup(d, c->p, klen);
		ENV_NEED(kv[i].value);
		c->p += klen + 1;
		d->env->nr_meta_info = i + 1;
	}
	if (pdc_cur_left(c))
		return pd_env_dec_bad(d, c,
				      "key/value pair not terminated or empty");
	return ENV_OK;
}

/* ---- the driver ---------------------------------------------------- */

/* Bits past PD_FEAT_PMU_CAPS, as perf's header.h numbers them. */

static int decode_feature(struct env_dec *d, unsigned feat, struct pdc_cur *c)
{
	struct pd_env *env = d->env;

	switch (feat) {
	case PD_FEAT_TRACING_DATA:
		return env_tracing(d, c);
	case PD_FEAT_BUILD_ID:
		return env_build_id(d, c);
	case PD_FEAT_HOSTNAME:
		return env_string(d, c, &env->hostname);
	case PD_FEAT_OSRELEASE:
		return env_string(d, c, &env->os_release);
	case PD_FEAT_VERSION:
		return env_string(d, c, &env->version);
	case PD_FEAT_ARCH:
		return env_string(d, c, &env->arch);
	case PD_FEAT_NRCPUS:
		return env_nrcpus(d, c);
	case PD_FEAT_CPUDESC:
		return env_string(d, c, &env->cpu_desc);
	case PD_FEAT_CPUID:
		return env_string(d, c, &env->cpuid);
	case PD_FEAT_TOTAL_MEM:
		return env_u64(d, c, &env->total_mem_kb);
	case PD_FEAT_CMDLINE:
		return pd_env_dec_strlist(d, c, &env->nr_cmdline,
					  &env->cmdline);
	case PD_FEAT_EVENT_DESC:
		return env_event_desc(d, c);
	case PD_FEAT_CPU_TOPOLOGY:
		return pd_env_dec_cpu_topology(d, c);
	case PD_FEAT_NUMA_TOPOLOGY:
		return pd_env_dec_numa_topology(d, c);
	case PD_FEAT_BRANCH_STACK:
	case PD_FEAT_STAT:
		return ENV_OK; /* flags without data */
	case PD_FEAT_PMU_MAPPINGS:
		return pd_env_dec_pmu_mappings(d, c);
	case PD_FEAT_GROUP_DESC:
		return pd_env_dec_group_desc(d, c);
	case PD_FEAT_AUXTRACE:
		return pd_env_dec_auxtrace(d, c);
	case PD_FEAT_CACHE:
		return pd_env_dec_cache(d, c);
	case PD_FEAT_SAMPLE_TIME:
		return env_sample_time(d, c);
	case PD_FEAT_MEM_TOPOLOGY:
		return pd_env_dec_mem_topology(d, c);
	case PD_FEAT_CLOCKID:
		return env_u64(d, c, &env->clockid_res_ns);
	case PD_FEAT_DIR_FORMAT:
		return env_u64(d, c, &env->dir_format_version);
	case PD_FEAT_BPF_PROG_INFO:
		return pd_env_dec_bpf_prog_info(d, c);
	case PD_FEAT_BPF_BTF:
		return pd_env_dec_bpf_btf(d, c);
	case PD_FEAT_COMPRESSED:
		return env_compressed(d, c);
	case PD_FEAT_CPU_PMU_CAPS:
		return pd_env_dec_cpu_pmu_caps(d, c);
	case PD_FEAT_CLOCK_DATA:
		return env_clock_data(d, c);
	case PD_FEAT_HYBRID_TOPOLOGY:
		return pd_env_dec_hybrid_topology(d, c);
	case PD_FEAT_PMU_CAPS:
		return pd_env_dec_pmu_caps(d, c);
	case PD_FEAT_CPU_DOMAIN_INFO:
		return pd_env_dec_cpu_domain_info(d, c);
	case PD_FEAT_E_MACHINE:
		return env_e_machine(d, c);
	case PD_FEAT_SIMPLEPERF_FILE:
		return pd_env_dec_simpleperf_file(d, c, 0);
	case PD_FEAT_SIMPLEPERF_FILE2:
		return pd_env_dec_simpleperf_file(d, c, 1);
	case PD_FEAT_SIMPLEPERF_META_INFO:
		return env_meta_info(d, c);
	default:
		return ENV_DAMAGED; /* not reached: see feature_known() */
	}
}

enum feat_kind { FEAT_UNKNOWN, FEAT_DECODED, FEAT_RAW };

static enum feat_kind feature_kind(unsigned feat)
{
	switch (feat) {
	case PD_FEAT_CLN_SIZE:
	case PD_FEAT_SIMPLEPERF_DEBUG_UNWIND:
	case PD_FEAT_SIMPLEPERF_DEBUG_UNWIND_FILE:
	case PD_FEAT_SIMPLEPERF_ETM_BRANCH_LIST:
	case PD_FEAT_SIMPLEPERF_INIT_MAP:
		return FEAT_RAW; /* layouts we do not parse (protobuf...) */
	case PD_FEAT_CPU_DOMAIN_INFO:
	case PD_FEAT_E_MACHINE:
	case PD_FEAT_SIMPLEPERF_FILE:
	case PD_FEAT_SIMPLEPERF_FILE2:
	case PD_FEAT_SIMPLEPERF_META_INFO:
		return FEAT_DECODED;
	default:
		return feat >= 1 && feat <= PD_FEAT_PMU_CAPS ? FEAT_DECODED
							     : FEAT_UNKNOWN;
	}
}

/* Sections that may hold nothing: flags, and lists that can be empty. */
static bool may_be_empty(unsigned feat)
{
	switch (feat) {
	case PD_FEAT_BRANCH_STACK:
	case PD_FEAT_STAT:
	case PD_FEAT_BUILD_ID:
	case PD_FEAT_AUXTRACE:
	case PD_FEAT_SIMPLEPERF_FILE:
	case PD_FEAT_SIMPLEPERF_FILE2:
	case PD_FEAT_SIMPLEPERF_META_INFO:
		return true;
	default:
		return false;
	}
}

static const char *feat_label(unsigned feat, char *buf, size_t size)
{
	switch (feat) {
	case PD_FEAT_CPU_DOMAIN_INFO:
		return "cpu_domain_info";
	case PD_FEAT_E_MACHINE:
		return "e_machine";
	case PD_FEAT_CLN_SIZE:
		return "cln_size";
	default:
		break;
	}
	if (pd_feature_name(feat))
		return pd_feature_name(feat);
	snprintf(buf, size, "bit %u", feat);
	return buf;
}

static bool warn_once(struct env_dec *d, unsigned feat)
{
	uint64_t *w = &d->ei->warned[feat / 64];
	const uint64_t bit = 1ull << (feat % 64);

	if (*w & bit)
		return false;
	*w |= bit;
	return true;
}

static int decode_all(struct env_dec *d)
{
	struct pd_file *f = d->f;
	struct pd_env *env = d->env;
	unsigned nr_missing = 0;
	char label[16];

	for (unsigned feat = 1; feat < PD_FEAT_MAX; feat++) {
		const struct pd_feat_sec *sec = &f->feat[feat];
		enum feat_kind kind;
		struct pdc_cur c;
		int rc;

		if (!(f->hdr.features[feat / 64] >> (feat % 64) & 1))
			continue;
		kind = feature_kind(feat);
		if (f->hdr.kind == PD_KIND_PIPE && sec->data && sec->size == 0 &&
		    !may_be_empty(feat)) {
			/*
			 * perf ends its pipe-mode features with an empty
			 * HEADER_FEATURE for its HEADER_LAST_FEATURE, a bit
			 * that is no feature for the perf that wrote it.
			 */
			pd_logf(&f->log, PD_LOG_DEBUG,
				"%s: empty HEADER_FEATURE for bit %u: the end "
				"of perf's features",
				f->name, feat);
			continue;
		}
		env->nr_features++;
		if (kind == FEAT_UNKNOWN) {
			env->status[feat] = PD_ENV_UNKNOWN;
			env->nr_unknown_features++;
			if (warn_once(d, feat))
				pd_logf(&f->log, PD_LOG_WARN,
					"%s: feature bit %u is set but not "
					"known to this reader; its section "
					"is skipped",
					f->name, feat);
			continue;
		}
		if (!sec->data) {
			env->status[feat] = PD_ENV_MISSING;
			env->nr_damaged++;
			nr_missing++;
			continue;
		}
		if (kind == FEAT_RAW) {
			env->status[feat] = PD_ENV_RAW;
			continue;
		}
		pdc_cur_init(&c, sec->data, sec->size, f->swap);
		d->why[0] = '\0';
		if (sec->size == 0 && !may_be_empty(feat)) {
			/* perf leaves a section empty when writing it failed */
			rc = ENV_DAMAGED;
		} else {
			rc = decode_feature(d, feat, &c);
		}
		if (rc < 0)
			return rc;
		if (rc == ENV_OK) {
			env->status[feat] = PD_ENV_OK;
			continue;
		}
		env->status[feat] = PD_ENV_DAMAGED;
		env->nr_damaged++;
		if (!warn_once(d, feat))
			continue;
		if (sec->size == 0)
			pd_logf(&f->log, PD_LOG_WARN,
				"%s: feature section %s is empty (perf could "
				"not write it)",
				f->name, feat_label(feat, label, sizeof(label)));
		else
			pd_logf(&f->log, PD_LOG_WARN,
				"%s: feature section %s is damaged (%s); "
				"what came before the damage is kept",
				f->name, feat_label(feat, label, sizeof(label)),
				d->why);
	}
	/* bit 0 is never a feature: it stands for this one warning */
	if (nr_missing && warn_once(d, 0))
		pd_logf(&f->log, PD_LOG_WARN,
			"%s: %u of the %u feature sections the header lists "
			"cannot be read (the file ends before them, or they "
			"lie outside it)",
			f->name, nr_missing, env->nr_features);
	return 0;
}

/* ---- public -------------------------------------------------------- */

static void free_one(struct pd_file *f, struct pd_env_int *ei)
{
	pdc_arena_release(&ei->arena, &f->mem.hooks);
	pd_free(&f->mem, ei);
}

void pd_file_env_invalidate(struct pd_file *f)
{
	f->env_stale = true;
}

void pd_env_free(struct pd_file *f, struct pd_env *env)
{
	/* env is the first member of its pd_env_int */
	struct pd_env_int *ei = (struct pd_env_int *)(void *)env;

	while (ei) {
		struct pd_env_int *older = ei->older;

		free_one(f, ei);
		ei = older;
	}
}

int pd_file_env(struct pd_file *f, const struct pd_env **out)
{
	struct pd_env_int *ei, *old;
	struct env_dec d;

	*out = NULL;
	if (f->env && !f->env_stale) {
		*out = f->env;
		return 0;
	}
	old = (struct pd_env_int *)(void *)f->env;
	ei = pd_zalloc(&f->mem, sizeof(*ei));
	if (!ei)
		return PD_ERR_NOMEM;
	if (old)
		memcpy(ei->warned, old->warned, sizeof(ei->warned));
	memset(&d, 0, sizeof(d));
	d.f = f;
	d.ei = ei;
	d.env = &ei->env;
	if (decode_all(&d) < 0) {
		free_one(f, ei);
		return PD_ERR_NOMEM;
	}
	ei->older = old;
	f->env = &ei->env;
	f->env_stale = false;
	*out = f->env;
	return 0;
}

const char *pd_env_status_name(int status)
{
	switch (status) {
	case PD_ENV_ABSENT:
		return "absent";
	case PD_ENV_OK:
		return "ok";
	case PD_ENV_DAMAGED:
		return "damaged";
	case PD_ENV_MISSING:
		return "missing";
	case PD_ENV_RAW:
		return "raw";
	case PD_ENV_UNKNOWN:
		return "unknown";
	default:
		return "?";
	}
}
