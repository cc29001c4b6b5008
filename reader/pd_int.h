/*
 * pd_int.h - libpd's private header: the pd_file handle, allocation,
 * error and logging helpers shared by the reader's files.
 */
#ifndef PD_INT_H
#define PD_INT_H

#include "pd_config.h"
#include "pd.h"
#include "pdc_alloc.h"

#include <stdarg.h>
#include <stdbool.h>

/* ---- allocation (O4, O5) ------------------------------------------- */

struct pd_mem {
	struct pd_alloc hooks;
};

/* The reader's names for common/pdc_alloc.h on the handle's hooks. */
static inline void *pd_malloc(const struct pd_mem *m, size_t size)
{
	return pdc_malloc(&m->hooks, size);
}

static inline void *pd_zalloc(const struct pd_mem *m, size_t size)
{
	return pdc_zalloc(&m->hooks, size);
}

static inline void *pd_realloc(const struct pd_mem *m, void *p, size_t size)
{
	return pdc_realloc(&m->hooks, p, size);
}

static inline void pd_free(const struct pd_mem *m, void *p)
{
	pdc_free(&m->hooks, p);
}

static inline char *pd_strndup(const struct pd_mem *m, const char *s,
			       size_t len)
{
	return pdc_strndup(&m->hooks, s, len);
}

/* pdc_grow() on the handle's hooks: doubling, capped at max elements,
 * overflow-checked.  @return 0 or PD_ERR_NOMEM (the array unchanged). */
static inline int pd_grow(const struct pd_mem *m, void **arr, size_t elem,
			  size_t *alloc, size_t want, size_t max)
{
	return pdc_grow(&m->hooks, arr, elem, alloc, want, max);
}

#define PD_GROW(m, arr, alloc, want, max)                                  \
	pd_grow((m), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

/*
 * memset(p, 0, size) for a decoder's output struct, cleared for every
 * record.  gcc (12, generic tuning) compiles a memset of a known size over
 * about 90 bytes into `rep stos`, whose start-up costs 35 ns on bench/'s
 * machine where libc's memset takes 7: for struct pd_sample that was a
 * fifth of `pdtool dump --count`.  Cleared 64 bytes at a time, it becomes
 * a few vector stores (gcc) or a call to libc's memset (clang).
 */
#define PD_ZERO_STEP 64

static inline void pd_zero(void *p, size_t size)
{
	unsigned char *b = p;
	size_t off = 0;

	for (; off + PD_ZERO_STEP <= size; off += PD_ZERO_STEP)
		memset(b + off, 0, PD_ZERO_STEP);
	memset(b + off, 0, size - off);
}

/* ---- logging and errors (E3..E6) ----------------------------------- */

struct pd_log {
	pd_log_fn fn;
	void *arg;
	enum pd_log_level level;
};

void pd_logf(const struct pd_log *log, enum pd_log_level level,
	     const char *fmt, ...) PD_PRINTF(3, 4);

/* Set f's message and return err. */
int pd_set_err(struct pd_file *f, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

#define PD_CORRUPT(f, ...) pd_set_err((f), PD_ERR_FORMAT, __VA_ARGS__)

#define PD_TRY(expr)                                                        \
	do {                                                                \
		int pd_try_rc_ = (expr);                                    \
		if (pd_try_rc_ < 0)                                         \
			return pd_try_rc_;                                  \
	} while (0)

/* ---- the file handle ----------------------------------------------- */

/* A contiguous piece of data-section bytes held in memory. */
struct pd_region {
	const unsigned char *base; /* start of the mapping (file offset 0) */
	uint64_t map_size;
	uint64_t start, end;	   /* the data section, as file offsets */
	uint64_t declared_end;	   /* where the header says it ends */
	void *unmap;		   /* mmap()ed: munmap(unmap, map_size) */
};

struct pd_feat_sec {
	const unsigned char *data; /* NULL when absent */
	size_t size;
	void *owned;		   /* pipe mode: copied from the record */
};

struct pd_env_int; /* pd_feature.c */

struct pd_file {
	struct pd_mem mem;
	struct pd_log log;
	char *name;
	char errmsg[512];

	struct pd_header_info hdr;
	int swap;

	/* memory-backed files (file, mem, pipe-format file, directory) */
	struct pd_region *regions;
	size_t nr_regions;
	unsigned char *unzstd_buf; /* a whole-file .zst capture, inflated */
	bool own_map;		/* the header's bytes are our mapping */

	/* streamed input */
	int fd;			/* -1 unless opened with pd_file_open_fd */
	bool own_fd;		/* pd_file_open opened a FIFO: close it */
	bool fd_reader_used;

	/* events */
	struct pd_evsel **evsels;
	size_t nr_evsels, alloc_evsels;

	/* id -> evsel index, open addressing; keys 0 are stored aside */
	struct pd_id_slot {
		uint64_t id;
		uint32_t evsel;	/* index + 1; 0 = empty */
	} *id_table;
	size_t id_cap, id_count;
	size_t nr_ids;		/* every event's ids, counted (MAX_IDS) */

	/* the last sample id looked up, and the event count then */
	uint64_t last_id;
	const struct pd_evsel *last_evsel;
	size_t last_evsel_gen;
	bool threads;		/* pd_file_threads(): no such cache */

	/* sample layout shared by every event (perf requires it) */
	int sample_id_pos;	/* -1 when the events disagree */
	int trailer_is_pos;

	uint64_t absorb_upto;	/* records before this were absorbed */

	struct pd_feat_sec feat[PD_FEAT_MAX];
	struct pd_env *env;	/* decoded lazily by pd_file_env() */
	bool env_stale;
};

/* pd_attr.c */
int pd_attr_decode(struct pd_file *f, const unsigned char *p, size_t avail,
		   uint64_t off, struct pd_attr *attr, size_t *attr_size);
int pd_file_add_evsel(struct pd_file *f, const struct pd_attr *attr,
		      const uint64_t *ids, size_t nr_ids,
		      struct pd_evsel **out);
int pd_evsel_set_name(struct pd_file *f, struct pd_evsel *evsel,
		      const char *name, size_t len);
int pd_file_index_ids(struct pd_file *f, struct pd_evsel *evsel,
		      const uint64_t *ids, size_t nr_ids);
void pd_file_release_evsels(struct pd_file *f);
/* the default name perf gives an attr without a recorded one */
int pd_attr_default_name(const struct pd_attr *attr, char *buf,
			 size_t size);

/* pd_feature.c: called when a section arrives (file open, HEADER_FEATURE) */
void pd_file_env_invalidate(struct pd_file *f);
void pd_env_free(struct pd_file *f, struct pd_env *env);
/* apply EVENT_DESC names to evsels, once features are known */
int pd_file_apply_event_desc(struct pd_file *f);
/* name default-named tracepoints from TRACING_DATA's formats */
int pd_file_name_tracepoints(struct pd_file *f);

/* pd_tracing.c: the recorder's sizeof(long), for pd_tpprint.c's %ld */
uint8_t pd_tracing_long_size(const struct pd_tracing *t);
/* pd_tracing.c: the printk format at addr (the kernel's string a const
 * char * field points to), or NULL */
const char *pd_tracing_printk(const struct pd_tracing *t, uint64_t addr);
/* Every format read, in the section's order (ftrace's too), for the
 * tests and fuzz_tracing: @return format i, or NULL past the last. */
const struct pd_tp_format *pd_tracing_format_at(const struct pd_tracing *t,
						size_t i);

/* pd_decomp.c: a zstd DStream allocating through m, its window at most
 * PD_ZSTD_WINDOW_MAX; NULL on NOMEM */
struct ZSTD_DCtx_s;
struct ZSTD_DCtx_s *pd_dstream_new(const struct pd_mem *m);
/* zstd's error ret in words, saying why a window is too large */
const char *pd_zstd_strerror(size_t ret);

/* pd_reader.c: a user record that changes the file's state */
int pd_file_absorb_rec(struct pd_file *f, const struct pd_rec *rec);

#endif /* PD_INT_H */
