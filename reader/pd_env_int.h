/*
 * pd_env_int.h - private to pd_env*.c: the arena a pd_env lives in, a
 * bounds-checked cursor over a feature section, and the decoders.
 *
 * Invariants: a cursor never moves past its end; every count read from a
 * section is checked against the bytes left (times the smallest size one
 * element can take) before anything is allocated for it, so a section
 * cannot make the library allocate more than a small multiple of its own
 * size.  Every allocation comes from the pd_env's arena and is freed with
 * it.
 *
 *	struct env_cur c = env_cur_of(d, data, size);
 *	uint32_t nr;
 *
 *	if (!cur_u32(&c, &nr))
 *		return env_bad(d, &c, "no count");
 */
#ifndef PD_ENV_INT_H
#define PD_ENV_INT_H

#include "pd_int.h"

#define ENV_OK 0
#define ENV_DAMAGED 1

struct env_block;

struct pd_env_int {
	struct pd_env env;	/* first: a pd_env * is a pd_env_int * */
	struct env_block *blocks;
	struct pd_env_int *older; /* replaced by this one; freed at close */
	uint64_t warned[PD_FEAT_MAX / 64]; /* features already warned of */
};

struct env_cur {
	const unsigned char *start, *p, *end;
	int swap;
};

/* One decoding pass over the sections of f. */
struct env_dec {
	struct pd_file *f;
	struct pd_env_int *ei;
	struct pd_env *env;
	char why[200];		/* the damage of the current section */
};

/* Zeroed, 8-byte aligned memory from the arena; NULL when out of memory. */
void *env_alloc(struct env_dec *d, size_t size);
/* nr elements of elem bytes, overflow-checked. */
void *env_array(struct env_dec *d, uint64_t nr, size_t elem);
/* A NUL-terminated copy of at most max bytes of s, up to a NUL. */
char *env_strndup(struct env_dec *d, const unsigned char *s, size_t max);
/* Describe the damage at the cursor; returns ENV_DAMAGED. */
int env_bad(struct env_dec *d, const struct env_cur *c, const char *fmt, ...)
	PD_PRINTF(3, 4);

/*
 * perf's string: u32 len (counting the NUL and the padding), then len
 * bytes.  0, ENV_DAMAGED or PD_ERR_NOMEM.
 */
int cur_str(struct env_dec *d, struct env_cur *c, const char **out);
/* u32 nr, then nr strings. */
int cur_strlist(struct env_dec *d, struct env_cur *c, uint32_t *nr,
		const char *const **out);

static inline size_t cur_left(const struct env_cur *c)
{
	return (size_t)(c->end - c->p);
}

static inline int cur_u32(struct env_cur *c, uint32_t *v)
{
	if (cur_left(c) < 4)
		return 0;
	*v = pd_load_u32(c->p, c->swap);
	c->p += 4;
	return 1;
}

static inline int cur_u64(struct env_cur *c, uint64_t *v)
{
	if (cur_left(c) < 8)
		return 0;
	*v = pd_load_u64(c->p, c->swap);
	c->p += 8;
	return 1;
}

#define ENV_TRY(expr)                                                       \
	do {                                                                \
		int env_try_rc_ = (expr);                                   \
		if (env_try_rc_ != ENV_OK)                                  \
			return env_try_rc_;                                 \
	} while (0)

/* A NULL from env_alloc & co. */
#define ENV_NEED(ptr)                                                       \
	do {                                                                \
		if (!(ptr))                                                 \
			return PD_ERR_NOMEM;                                \
	} while (0)

/* pd_env_simpleperf.c: FILE (128) and FILE2 (132), v2 = FILE2 */
int env_simpleperf_file(struct env_dec *d, struct env_cur *c, int v2);

/* pd_env_topo.c: sections about the machine's layout */
int env_cpu_topology(struct env_dec *d, struct env_cur *c);
int env_numa_topology(struct env_dec *d, struct env_cur *c);
int env_cache(struct env_dec *d, struct env_cur *c);
int env_mem_topology(struct env_dec *d, struct env_cur *c);
int env_hybrid_topology(struct env_dec *d, struct env_cur *c);
int env_cpu_domain_info(struct env_dec *d, struct env_cur *c);

/* pd_env_pmu.c: PMUs, groups, AUX and BPF sections */
int env_pmu_mappings(struct env_dec *d, struct env_cur *c);
int env_group_desc(struct env_dec *d, struct env_cur *c);
int env_auxtrace(struct env_dec *d, struct env_cur *c);
int env_bpf_prog_info(struct env_dec *d, struct env_cur *c);
int env_bpf_btf(struct env_dec *d, struct env_cur *c);
int env_cpu_pmu_caps(struct env_dec *d, struct env_cur *c);
int env_pmu_caps(struct env_dec *d, struct env_cur *c);

#endif /* PD_ENV_INT_H */
