/*
 * pd_env_int.h - private to pd_env*.c: the arena a pd_env lives in and
 * the decoders, which read a feature section through a bounds-checked
 * cursor (common/pdc_cur.h).
 *
 * Invariants: a cursor never moves past its end; every count read from a
 * section is checked against the bytes left (times the smallest size one
 * element can take) before anything is allocated for it, so a section
 * cannot make the library allocate more than a small multiple of its own
 * size.  Every allocation comes from the pd_env's arena and is freed with
 * it.
 *
 *	struct pdc_cur c;
 *	uint32_t nr;
 *
 *	pdc_cur_init(&c, data, size, f->swap);
 *	if (!pdc_cur_u32(&c, &nr))
 *		return pd_env_dec_bad(d, &c, "no count");
 */
#ifndef PD_ENV_INT_H
#define PD_ENV_INT_H

#include "pd_int.h"
#include "pdc_arena.h"
#include "pdc_cur.h"

#define ENV_OK 0
#define ENV_DAMAGED 1

struct pd_env_int {
	struct pd_env env;	/* first: a pd_env * is a pd_env_int * */
	struct pdc_arena arena; /* on the file's hooks */
	struct pd_env_int *older; /* replaced by this one; freed at close */
	uint64_t warned[PD_FEAT_MAX / 64]; /* features already warned of */
};

/* One decoding pass over the sections of f. */
struct env_dec {
	struct pd_file *f;
	struct pd_env_int *ei;
	struct pd_env *env;
	char why[200];		/* the damage of the current section */
};

/* Zeroed, 16-byte aligned memory from the arena; NULL when out of memory. */
void *pd_env_dec_alloc(struct env_dec *d, size_t size);
/* nr elements of elem bytes, overflow-checked. */
void *pd_env_dec_array(struct env_dec *d, uint64_t nr, size_t elem);
/* A NUL-terminated copy of at most max bytes of s, up to a NUL. */
char *pd_env_dec_strndup(struct env_dec *d, const unsigned char *s, size_t max);
/* Describe the damage at the cursor; returns ENV_DAMAGED. */
int pd_env_dec_bad(struct env_dec *d, const struct pdc_cur *c, const char *fmt,
		   ...) PD_PRINTF(3, 4);

/*
 * perf's string: u32 len (counting the NUL and the padding), then len
 * bytes.  0, ENV_DAMAGED or PD_ERR_NOMEM.
 */
int pd_env_dec_str(struct env_dec *d, struct pdc_cur *c, const char **out);
/* u32 nr, then nr strings. */
int pd_env_dec_strlist(struct env_dec *d, struct pdc_cur *c, uint32_t *nr,
		       const char *const **out);

#define ENV_TRY(expr)                                                       \
	do {                                                                \
		int env_try_rc_ = (expr);                                   \
		if (env_try_rc_ != ENV_OK)                                  \
			return env_try_rc_;                                 \
	} while (0)

/* A NULL from pd_env_dec_alloc & co. */
#define ENV_NEED(ptr)                                                       \
	do {                                                                \
		if (!(ptr))                                                 \
			return PD_ERR_NOMEM;                                \
	} while (0)

/* pd_env_simpleperf.c: FILE (128) and FILE2 (132), v2 = FILE2 */
int pd_env_dec_simpleperf_file(struct env_dec *d, struct pdc_cur *c, int v2);

/* pd_env_topo.c: sections about the machine's layout */
int pd_env_dec_cpu_topology(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_numa_topology(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_cache(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_mem_topology(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_hybrid_topology(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_cpu_domain_info(struct env_dec *d, struct pdc_cur *c);

/* pd_env_pmu.c: PMUs, groups, AUX and BPF sections */
int pd_env_dec_pmu_mappings(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_group_desc(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_auxtrace(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_bpf_prog_info(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_bpf_btf(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_cpu_pmu_caps(struct env_dec *d, struct pdc_cur *c);
int pd_env_dec_pmu_caps(struct env_dec *d, struct pdc_cur *c);

#endif /* PD_ENV_INT_H */
