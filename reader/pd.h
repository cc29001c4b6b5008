/*
 * pd.h - the perf.data reader library (libpd).
 *
 * libpd decodes Linux perf.data captures: the file header in either byte
 * order, the attribute section, the feature sections, and every record of
 * the data section, including zstd-compressed records and pipe-mode
 * streams.  It knows nothing of symbols.
 *
 * Use:
 *
 *	struct pd_file *f;
 *	struct pd_reader *r;
 *	struct pd_rec rec;
 *	char err[256];
 *	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
 *
 *	if (pd_file_open("perf.data", &opts, &f) < 0)
 *		fail(err);
 *	pd_reader_new(f, 0, &r);
 *	while ((rc = pd_reader_next(r, &rec)) > 0)
 *		if (rec.type == PD_REC_SAMPLE)
 *			pd_sample_decode(f, &rec, &sample);
 *
 * The library keeps no global state.  A pd_file and everything hanging off
 * it may be used by one thread at a time.
 */
#ifndef PD_H
#define PD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pdc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PD_BUILDING) && defined(__GNUC__)
#define PD_API __attribute__((visibility("default")))
#else
#define PD_API
#endif

/* ---- 3. version ---------------------------------------------------- */

#define PD_VERSION_MAJOR 0
#define PD_VERSION_MINOR 1
#define PD_VERSION_PATCH 0
#define PD_VERSION_STRING "0.1.0"

PD_API const char *pd_version(void);

/* ---- 4. errors ----------------------------------------------------- */

/*
 * Every library function that can fail returns 0 (or a documented positive
 * value) on success and one of these negative codes on failure.  Values are
 * stable and never renumbered.
 */
#define PD_ERRORS(X)                                                        \
	X(IO, -1, "input/output error")                                     \
	X(NOMEM, -2, "out of memory")                                       \
	X(FORMAT, -3, "corrupt or invalid perf.data")                       \
	X(TRUNCATED, -4, "perf.data is truncated")                          \
	X(UNSUPPORTED, -5, "unsupported perf.data format or feature")       \
	X(API, -6, "invalid use of the library")                            \
	X(NOTFOUND, -7, "not found")

enum pd_err {
	PD_OK = 0,
#define PD_ERR_ENUM(name, value, text) PD_ERR_##name = (value),
	PD_ERRORS(PD_ERR_ENUM)
#undef PD_ERR_ENUM
};

/* @return a static string for a pd_err code; never NULL. */
PD_API const char *pd_strerror(int err);

/* ---- 5. logging and allocation ------------------------------------- */

enum pd_log_level {
	PD_LOG_WARN = 0,
	PD_LOG_INFO = 1,
	PD_LOG_DEBUG = 2,
};

/* Receives one message, without a trailing newline. */
typedef void (*pd_log_fn)(void *arg, enum pd_log_level level,
			  const char *msg);

/* struct pd_alloc: allocation hooks.  All of the library's heap memory
 * goes through them, so tests can fail the Nth allocation; any hook left
 * NULL uses libc.  Defined in common/pdc_abi.h, included above. */

/* ---- 6. file ------------------------------------------------------- */

struct pd_file;

struct pd_open_opts {
	size_t sz; /* sizeof(struct pd_open_opts), set by PD_OPTS */
	pd_log_fn log;
	void *log_arg;
	enum pd_log_level log_level; /* messages above this are dropped */
	const struct pd_alloc *alloc;
	/*
	 * Where an open failure's message goes (a constructor that fails has
	 * no handle to carry it).  May be NULL.
	 */
	char *errbuf;
	size_t errbuf_size;
	/*
	 * pd_file_open_fd() only: bytes the caller already read from the
	 * fd (to tell a capture from other input), taken before the fd's;
	 * at most 16, the pipe header's size.
	 */
	const void *head;
	size_t head_len;
	/* pd_file_open_mem() only: the name in messages and
	 * pd_file_name() (NULL: "<memory>"), for a caller that read the
	 * capture from a file itself (a compressed one, standard input) */
	const char *name;
};

#define PD_OPTS(name, ...)                                                  \
	struct pd_open_opts name = { .sz = sizeof(struct pd_open_opts),     \
				     __VA_ARGS__ }

/*
 * Open a perf.data file (read-only mmap), a perf.data directory written by
 * `perf record --threads`, or a pipe-mode stream stored in a file.
 * @return 0 and *out, or a negative pd_err with *out = NULL and the reason
 * in opts->errbuf.  Close with pd_file_close().
 */
PD_API int pd_file_open(const char *path, const struct pd_open_opts *opts,
			struct pd_file **out);

/*
 * Open a capture held in memory.  buf must stay valid and unchanged until
 * pd_file_close().
 */
PD_API int pd_file_open_mem(const void *buf, size_t len,
			    const struct pd_open_opts *opts,
			    struct pd_file **out);

/*
 * Open a capture read from a file descriptor (a pipe: `perf record -o -`).
 * The data is streamed: it can be iterated once.  The fd stays the
 * caller's.  name is used in messages (may be NULL: "<fd N>").
 */
PD_API int pd_file_open_fd(int fd, const char *name,
			   const struct pd_open_opts *opts,
			   struct pd_file **out);

/* Accepts NULL. */
PD_API void pd_file_close(struct pd_file *f);

/*
 * The last error's detail, naming the offset and field, e.g.
 * "record at offset 0x1f40: size 4 < header size 8".  Valid until the next
 * call on f.  Never NULL ("" when there was none).
 */
PD_API const char *pd_file_errmsg(const struct pd_file *f);

/* Name given at open (the path), for messages.  Lives as long as f. */
PD_API const char *pd_file_name(const struct pd_file *f);

enum pd_file_kind {
	PD_KIND_FILE = 0, /* "PERFILE2" with a header, attrs, features */
	PD_KIND_PIPE = 1, /* 16-byte header, everything else as records */
	PD_KIND_DIR = 2,  /* directory: data + data.N */
};

struct pd_header_info {
	enum pd_file_kind kind;
	int swap;		   /* the file's byte order is not the host's */
	int big_endian;		   /* the file was written big-endian */
	uint64_t file_size;	   /* bytes, 0 when streamed */
	uint64_t header_size;	   /* header.size as written */
	uint64_t attr_size;	   /* header.attr_size (attr + ids section) */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t event_types_offset, event_types_size;
	uint64_t features[4];	   /* adds_features bitmap, 256 bits */
};

/* Valid as long as f. */
PD_API const struct pd_header_info *pd_file_header(const struct pd_file *f);

/* ---- attributes (events) ------------------------------------------- */

/* perf_event_attr.sample_type bits, in the kernel's order. */
enum pd_sample_bits {
	PD_SAMPLE_IP = 1u << 0,
	PD_SAMPLE_TID = 1u << 1,
	PD_SAMPLE_TIME = 1u << 2,
	PD_SAMPLE_ADDR = 1u << 3,
	PD_SAMPLE_READ = 1u << 4,
	PD_SAMPLE_CALLCHAIN = 1u << 5,
	PD_SAMPLE_ID = 1u << 6,
	PD_SAMPLE_CPU = 1u << 7,
	PD_SAMPLE_PERIOD = 1u << 8,
	PD_SAMPLE_STREAM_ID = 1u << 9,
	PD_SAMPLE_RAW = 1u << 10,
	PD_SAMPLE_BRANCH_STACK = 1u << 11,
	PD_SAMPLE_REGS_USER = 1u << 12,
	PD_SAMPLE_STACK_USER = 1u << 13,
	PD_SAMPLE_WEIGHT = 1u << 14,
	PD_SAMPLE_DATA_SRC = 1u << 15,
	PD_SAMPLE_IDENTIFIER = 1u << 16,
	PD_SAMPLE_TRANSACTION = 1u << 17,
	PD_SAMPLE_REGS_INTR = 1u << 18,
	PD_SAMPLE_PHYS_ADDR = 1u << 19,
	PD_SAMPLE_AUX = 1u << 20,
	PD_SAMPLE_CGROUP = 1u << 21,
	PD_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PD_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PD_SAMPLE_WEIGHT_STRUCT = 1u << 24,
};
#define PD_SAMPLE_NR_BITS 25

/* perf_event_attr.read_format bits. */
enum pd_read_format_bits {
	PD_FORMAT_TOTAL_TIME_ENABLED = 1u << 0,
	PD_FORMAT_TOTAL_TIME_RUNNING = 1u << 1,
	PD_FORMAT_ID = 1u << 2,
	PD_FORMAT_GROUP = 1u << 3,
	PD_FORMAT_LOST = 1u << 4,
};

/*
 * perf_event_attr's flag bitfield, as bit numbers of pd_attr.flags.  The
 * reader converts big-endian captures so these hold for every file.
 * precise_ip is two bits wide (15 and 16).
 */
#define PD_ATTR_FLAGS(X)                                                    \
	X(disabled, 0) X(inherit, 1) X(pinned, 2) X(exclusive, 3)           \
	X(exclude_user, 4) X(exclude_kernel, 5) X(exclude_hv, 6)            \
	X(exclude_idle, 7) X(mmap, 8) X(comm, 9) X(freq, 10)                \
	X(inherit_stat, 11) X(enable_on_exec, 12) X(task, 13)               \
	X(watermark, 14) X(mmap_data, 17) X(sample_id_all, 18)              \
	X(exclude_host, 19) X(exclude_guest, 20)                            \
	X(exclude_callchain_kernel, 21) X(exclude_callchain_user, 22)       \
	X(mmap2, 23) X(comm_exec, 24) X(use_clockid, 25)                    \
	X(context_switch, 26) X(write_backward, 27) X(namespaces, 28)       \
	X(ksymbol, 29) X(bpf_event, 30) X(aux_output, 31) X(cgroup, 32)     \
	X(text_poke, 33) X(build_id, 34) X(inherit_thread, 35)              \
	X(remove_on_exec, 36) X(sigtrap, 37) X(defer_callchain, 38)         \
	X(defer_output, 39)

enum pd_attr_flag_bits {
#define PD_ATTR_FLAG_ENUM(name, bit) PD_ATTR_##name = (bit),
	PD_ATTR_FLAGS(PD_ATTR_FLAG_ENUM)
#undef PD_ATTR_FLAG_ENUM
	PD_ATTR_precise_ip = 15,
};

#define PD_ATTR_HAS(attr, name) ((((attr)->flags) >> PD_ATTR_##name) & 1u)
#define PD_ATTR_PRECISE_IP(attr) ((unsigned)(((attr)->flags >> 15) & 3u))

/* perf_event_attr.branch_sample_type bits that change the sample layout. */
#define PD_BRANCH_SAMPLE_HW_INDEX (1ull << 17)
#define PD_BRANCH_SAMPLE_COUNTERS (1ull << 19)

/*
 * perf_event_attr, decoded to host byte order.  Fields past the size the
 * file's attr had are zero.
 */
struct pd_attr {
	uint32_t type;		    /* PERF_TYPE_* */
	uint32_t size;		    /* as written; 0 means 64 (ABI v0) */
	uint64_t config;
	uint64_t sample_period;	    /* sample_freq when the freq flag is set */
	uint64_t sample_type;	    /* pd_sample_bits */
	uint64_t read_format;	    /* pd_read_format_bits */
	uint64_t flags;		    /* PD_ATTR_* bit numbers */
	uint32_t wakeup_events;	    /* or wakeup_watermark */
	uint32_t bp_type;
	uint64_t config1;	    /* or bp_addr, kprobe_func, uprobe_path */
	uint64_t config2;	    /* or bp_len, kprobe_addr, probe_offset */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;  /* mask of perf register numbers */
	uint32_t sample_stack_user; /* bytes */
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint32_t aux_action;
	uint64_t sig_data;
	uint64_t config3;
};

/*
 * One event of the capture: an attr with its sample ids and name.  Names
 * come from HEADER_EVENT_DESC, EVENT_UPDATE or HEADER_EVENT_TYPE, and are
 * made from type/config otherwise.
 */
struct pd_evsel {
	unsigned idx;		/* position in the attrs section */
	struct pd_attr attr;
	const char *name;	/* never NULL */
	size_t nr_ids;
	const uint64_t *ids;	/* host byte order */
	/* layout facts derived from attr.sample_type */
	int id_pos;		/* u64 index of the id in a SAMPLE; -1 none */
	int is_pos;		/* u64 index of the id from the end of a
				 * sample_id_all trailer; -1 none */
	size_t id_hdr_size;	/* bytes of the sample_id_all trailer */
	size_t sample_head;	/* bytes of a SAMPLE's fields before READ */
	/* 1 when added by pd_file_add_synth_evsel(): its samples are a
	 * trace's, decoded, and its attr counts nothing (perf's SPE events
	 * say PERF_TYPE_HARDWARE, which is not what they count) */
	int synth;
};

/*
 * Number of events.  In pipe mode events arrive as HEADER_ATTR records, so
 * this grows while the data is read.
 */
PD_API size_t pd_file_nr_evsels(const struct pd_file *f);

/*
 * Event i, or NULL when i is out of range.  Valid until pd_file_close().
 */
PD_API const struct pd_evsel *pd_file_evsel(const struct pd_file *f,
					    size_t i);

/* The event a sample id belongs to, or NULL. */
PD_API const struct pd_evsel *pd_file_evsel_by_id(const struct pd_file *f,
						  uint64_t id);

/*
 * Add an event that no record of the capture wrote: one whose samples a
 * decoder synthesizes from a trace (perf's synthesized Arm SPE events,
 * "l1d-miss" and friends, which perf adds to its event list the same
 * way), with its name and the one sample id its synthesized samples
 * carry.  pd_sample_decode() then decodes those samples like any other.
 * The events already there keep their places.  @return 0 and *out;
 * PD_ERR_API when the id is taken or the name empty; PD_ERR_NOMEM.
 */
PD_API int pd_file_add_synth_evsel(struct pd_file *f,
				   const struct pd_attr *attr,
				   const char *name, uint64_t id,
				   const struct pd_evsel **out);

/* ---- feature sections ---------------------------------------------- */

#define PD_FEATURES(X)                                                      \
	X(TRACING_DATA, 1) X(BUILD_ID, 2) X(HOSTNAME, 3) X(OSRELEASE, 4)    \
	X(VERSION, 5) X(ARCH, 6) X(NRCPUS, 7) X(CPUDESC, 8) X(CPUID, 9)     \
	X(TOTAL_MEM, 10) X(CMDLINE, 11) X(EVENT_DESC, 12)                   \
	X(CPU_TOPOLOGY, 13) X(NUMA_TOPOLOGY, 14) X(BRANCH_STACK, 15)        \
	X(PMU_MAPPINGS, 16) X(GROUP_DESC, 17) X(AUXTRACE, 18) X(STAT, 19)   \
	X(CACHE, 20) X(SAMPLE_TIME, 21) X(MEM_TOPOLOGY, 22) X(CLOCKID, 23)  \
	X(DIR_FORMAT, 24) X(BPF_PROG_INFO, 25) X(BPF_BTF, 26)               \
	X(COMPRESSED, 27) X(CPU_PMU_CAPS, 28) X(CLOCK_DATA, 29)             \
	X(HYBRID_TOPOLOGY, 30) X(PMU_CAPS, 31) X(CPU_DOMAIN_INFO, 32)    \
	X(E_MACHINE, 33) X(CLN_SIZE, 34)

enum pd_feature {
#define PD_FEAT_ENUM(name, bit) PD_FEAT_##name = (bit),
	PD_FEATURES(PD_FEAT_ENUM)
#undef PD_FEAT_ENUM
	/* simpleperf's own sections */
	PD_FEAT_SIMPLEPERF_FILE = 128,
	PD_FEAT_SIMPLEPERF_META_INFO = 129,
	PD_FEAT_SIMPLEPERF_DEBUG_UNWIND = 130,
	PD_FEAT_SIMPLEPERF_DEBUG_UNWIND_FILE = 131,
	PD_FEAT_SIMPLEPERF_FILE2 = 132,
	PD_FEAT_SIMPLEPERF_ETM_BRANCH_LIST = 133,
	PD_FEAT_SIMPLEPERF_INIT_MAP = 134,
	PD_FEAT_MAX = 256,
};

/* perf's name of a feature ("hostname", "build_id"), or NULL. */
PD_API const char *pd_feature_name(unsigned feat);

/*
 * The raw bytes of feature section feat, in file byte order.
 * @return 1 and the bytes through data and size when present, 0 when absent.  The bytes are
 * valid until pd_file_close().  In pipe mode a feature is present once its
 * HEADER_FEATURE record has been read.
 */
PD_API int pd_file_feature(const struct pd_file *f, unsigned feat,
			   const void **data, size_t *size);

/* ---- tracepoint formats (pd_tracing.c) ------------------------------
 * HEADER_TRACING_DATA's format files: what each tracepoint's raw sample
 * bytes (PD_SAMPLE_RAW) hold. */

struct pd_tp_field {
	const char *name;	/* "prev_pid"; an array without "[N]" */
	uint32_t offset, size;	/* bytes into the raw data */
	int is_signed;	/* 0 or 1 */
	const char *type;	/* its declaration: "char prev_comm[16]" */
	unsigned flags;		/* PD_TP_F_* */
};

/* What a field's declaration says (libtraceevent's TEP_FIELD_IS_*). */
enum {
	PD_TP_F_ARRAY = 1u << 0,   /* "[N]" or __data_loc */
	PD_TP_F_DYNAMIC = 1u << 1, /* __data_loc: a u32 of len << 16 | off */
	PD_TP_F_RELATIVE = 1u << 2, /* __rel_loc: off from the field's end */
	PD_TP_F_STRING = 1u << 3,  /* an array of char */
	PD_TP_F_POINTER = 1u << 4, /* a '*' in its type */
	PD_TP_F_LONG = 1u << 5,	   /* long (not long long), pointer-sized */
	PD_TP_F_COMMON = 1u << 6,  /* common_*: the header of every event */
};

struct pd_tp_format {
	const char *system, *name;	/* "sched", "sched_switch" */
	uint64_t id;		/* the attr's config for this tracepoint */
	const struct pd_tp_field *fields;
	size_t nr_fields;
	const char *print_fmt;	/* after "print fmt: ", or NULL */
};

struct pd_tracing;

/*
 * Parse the size bytes of a HEADER_TRACING_DATA section (pd_file_feature
 * PD_FEAT_TRACING_DATA).  @return 0 and *out; PD_ERR_FORMAT with errbuf
 * saying where, and *out holding the formats read before the damage; or
 * PD_ERR_NOMEM (*out NULL).  Free with pd_tracing_free().
 */
PD_API int pd_tracing_parse(const void *data, size_t size,
			    const struct pd_alloc *alloc,
			    struct pd_tracing **out, char *errbuf,
			    size_t errsize);
/* Accepts NULL. */
PD_API void pd_tracing_free(struct pd_tracing *t);
/* The format of tracepoint id (an event's attr.config), or NULL. */
PD_API const struct pd_tp_format *
pd_tracing_format(const struct pd_tracing *t, uint64_t id);
/* fmt's field name, or NULL (fmt may be NULL). */
PD_API const struct pd_tp_field *pd_tp_field(const struct pd_tp_format *fmt,
					     const char *name);
/* An integer field of 1, 2, 4 or 8 bytes from a sample's raw bytes, in
 * the recording host's byte order, sign-extended when signed.  @return 0,
 * or PD_ERR_FORMAT (fl NULL, another size, or past raw_size). */
PD_API int pd_tp_field_int(const struct pd_tracing *t,
			   const struct pd_tp_field *fl, const void *raw,
			   size_t raw_size, int64_t *v);
/* Kernel symbols for %ps/%pS: fn gives the name of the function at addr
 * and addr's offset into it, or NULL when none is known. */
struct pd_tp_syms {
	const char *(*fn)(void *arg, uint64_t addr, uint64_t *off);
	void *arg;
};

/*
 * The text perf 6.1 prints for a sample of fmt (its -F trace field), as
 * libtraceevent evaluates the print fmt on the raw bytes: field
 * references, integer arithmetic, ?:, casts, __print_flags,
 * __print_symbolic, __get_str and the conversions %d %i %u %x %X %o %c
 * %s %p with flags, width, precision and length; %s of a pointer-sized
 * field (the printk format at its address, else the address in hex);
 * %ps and %pS (function
 * names, %pS with +0xoff) through syms (NULL, or no function there:
 * the address as 0x%llx).  A print fmt that uses anything else (or a field the raw
 * bytes do not hold) prints as libtraceevent prints an event it failed
 * to parse: "[FAILED TO PARSE]" and " name=value" per field.  Written
 * NUL-terminated into out[0..size) (cut short when small).  @return the
 * text's whole length.
 */
PD_API size_t pd_tp_print(const struct pd_tracing *t,
			  const struct pd_tp_format *fmt, const void *raw,
			  size_t raw_size, const struct pd_tp_syms *syms,
			  char *out, size_t size);

struct pd_env;
/*
 * Decode the feature sections (once; again after pipe-mode HEADER_FEATURE
 * records arrive).  @return 0 and *out, valid until pd_file_close(), or
 * PD_ERR_NOMEM.  Damaged sections are not an error: see pd_env.status.
 */
PD_API int pd_file_env(struct pd_file *f, const struct pd_env **out);

/* ---- 7. reader ----------------------------------------------------- */

struct pd_reader;

enum pd_reader_flags {
	/* deliver records in timestamp order, as perf's ordered events do */
	PD_READ_ORDERED = 1u << 0,
	/* deliver COMPRESSED/COMPRESSED2 records as they are, undecoded */
	PD_READ_KEEP_COMPRESSED = 1u << 1,
	/* log no damage: a first pass, whose reading a second one repeats
	 * and reports (pd_reader_stats() still describes it) */
	PD_READ_QUIET = 1u << 2,
	/* a mapped capture's pages mapped ahead of the records and handed
	 * back behind them on a thread of the reader's own, so that the
	 * caller's thread takes no page faults for the file; and its zstd
	 * chunks inflated ahead of the caller on another (which then
	 * allocates through the open's hooks too: they must be
	 * thread-safe).  Ignored for a stream, and with ORDERED */
	PD_READ_PAGER = 1u << 3,
	/* a reader that may start where no record begins (at a guess,
	 * pd_reader_guess()), on a thread of its own beside the file's
	 * other readers: it changes nothing they see (absorbs no record,
	 * sets no file error; ignores PAGER, maps its pages ahead itself)
	 * and ends with PD_ERR_FORMAT, saying nothing, at a record it does
	 * not take as it is: perf's own (type >= 64) but FINISHED_ROUND, a
	 * header that does not fit, the end of a data section that should
	 * run on */
	PD_READ_GUESS = 1u << 4,
	/* perf's own records that change the file's events (HEADER_ATTR,
	 * EVENT_UPDATE ...) handed over unabsorbed: the caller absorbs
	 * each with pd_reader_absorb() once no other thread reads the
	 * file's events (a GUESS reader's thread, say) */
	PD_READ_DEFER_ABSORB = 1u << 5,
};

/* One record, a raw view.  Decode it with pd_sample_decode() & co. */
struct pd_rec {
	uint32_t type;		/* PD_REC_* */
	uint16_t misc;
	uint32_t size;		/* bytes including the 8-byte header; a
				 * wrapped COMPRESSED2 size is recovered */
	uint64_t offset;	/* file offset; for a record that came out of
				 * a compressed chunk, the chunk's offset */
	unsigned flags;		/* PD_RECF_* */
	const unsigned char *data;	/* size bytes, file byte order */
	const unsigned char *payload;	/* AUXTRACE / TRACING_DATA bytes
					 * that follow the record */
	uint64_t payload_size;
};

enum pd_rec_flags {
	PD_RECF_DECOMPRESSED = 1u << 0, /* came out of a compressed chunk */
	PD_RECF_STABLE = 1u << 1,	/* data and payload point into the
					 * file's mapping (or the buffer of
					 * pd_file_open_mem): valid until
					 * pd_file_close(), not only until
					 * the next record */
};

/*
 * A reader iterates the data section.  Only one reader may be open on a
 * streamed (fd) file.  Free with pd_reader_free().
 */
PD_API int pd_reader_new(struct pd_file *f, unsigned flags,
			 struct pd_reader **out);
PD_API void pd_reader_free(struct pd_reader *r);

/*
 * Next record.  @return 1 and *rec (its bytes valid until the next call or
 * pd_reader_free()), 0 at the end, or a negative pd_err.  Damage that
 * stops the reading early (a record that runs past the end, a size below
 * 8, a broken compressed chunk) is not an error: it ends the iteration
 * with 0 and is described by pd_reader_stats() and a warning.
 */
PD_API int pd_reader_next(struct pd_reader *r, struct pd_rec *rec);
/*
 * What pd_reader_next() does with rec, one of perf's own records, unless
 * r was made with PD_READ_DEFER_ABSORB: the file's events and names as
 * rec changes them (a bad one said as a warning).  Any other record:
 * nothing.  @return 0 or a negative pd_err (PD_ERR_NOMEM).
 */
PD_API int pd_reader_absorb(struct pd_reader *r, const struct pd_rec *rec);
/* Whether records of type change the file's events, names or features
 * when absorbed (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE,
 * HEADER_EVENT_TYPE, HEADER_TRACING_DATA): those a PD_READ_DEFER_ABSORB
 * caller must not absorb while another thread reads the events.
 * Nonzero: it does. */
PD_API int pd_rec_changes_events(uint32_t type);

/*
 * Where a record begins in a mapped capture's data section, for readers
 * of parts of it (the shards of a pass, each on a thread of its own).
 */
struct pd_reader_pos {
	size_t region;		/* the data section's piece (a directory
				 * capture has several) */
	uint64_t offset;	/* file offset */
};

/*
 * The place of the record the next pd_reader_next() delivers.  @return 0
 * and *pos; PD_ERR_UNSUPPORTED where that record is no record of the
 * file's own bytes (a stream, a compressed chunk's records waiting, time
 * order, chunks inflated ahead) or the reading ended.
 */
PD_API int pd_reader_tell(const struct pd_reader *r,
			  struct pd_reader_pos *pos);

/*
 * A reader of the records from `from` up to `to` (not included; NULL: to
 * the end), places pd_reader_tell() gave on a reader of the same file.
 * Flags as pd_reader_new()'s but ORDERED; its pager maps and hands back
 * its range's pages only.  Several may read one file at once, each on
 * its thread (the file's allocator hooks must then be thread-safe).
 * @return 0, or PD_ERR_API for a stream or a bad range.
 */
PD_API int pd_reader_new_range(struct pd_file *f, unsigned flags,
			       const struct pd_reader_pos *from,
			       const struct pd_reader_pos *to,
			       struct pd_reader **out);
/*
 * A guess at where a record begins in a mapped capture's (one piece)
 * data section: the first offset at or past `near` (8-aligned from the
 * section's start, below near + within) from which `chain` headers in a
 * row look like the kernel's records (a known type, a size that is a
 * multiple of 8 and stays inside, sane misc bits) or FINISHED_ROUNDs, or
 * end the section.  Only a guess: a sample's bytes may look alike; a
 * reader from the section's start tells (it passes there or not).
 * @return 0 and *pos, or PD_ERR_UNSUPPORTED (none found, a stream, a
 * directory's pieces).
 */
PD_API int pd_reader_guess(const struct pd_file *f, uint64_t near,
			   uint64_t within, unsigned chain,
			   struct pd_reader_pos *pos);

/*
 * Records of f are decoded on several threads from now on (on), or no
 * longer are: the file's cache of the last sample's event is then left
 * alone.  Called while no other thread reads f.
 */
PD_API void pd_file_threads(struct pd_file *f, int on);

/*
 * A record's timestamp (its sample's TIME, or its sample_id's), the
 * order perf's ordered events deliver in: 0 when it has none.
 */
PD_API int pd_rec_time(struct pd_file *f, const struct pd_rec *rec,
		       uint64_t *time);
/* pd_rec_time() that sets no error on f where a record is too short for
 * its sample_id (*time 0, as there): for a thread beside another that
 * may set one. */
PD_API void pd_rec_time_quiet(struct pd_file *f, const struct pd_rec *rec,
			      uint64_t *time);

/* A SAMPLE record's event, by its id, without decoding it; NULL when it
 * cannot be told (or rec is no sample). */
PD_API const struct pd_evsel *pd_rec_evsel(struct pd_file *f,
					   const struct pd_rec *rec);

#define pd_for_each_rec(r, rec, rc)                                         \
	while (((rc) = pd_reader_next((r), (rec))) > 0)

#define PD_REC_TYPE_MAX 128 /* counted by type below this, else "other" */

struct pd_reader_stats {
	uint64_t nr_records;		/* delivered */
	uint64_t by_type[PD_REC_TYPE_MAX];
	uint64_t nr_other_type;		/* types >= PD_REC_TYPE_MAX */
	uint64_t nr_unknown;		/* types the reader does not know */
	uint64_t nr_compressed;		/* COMPRESSED and COMPRESSED2 chunks
					 * unpacked (not delivered) */
	uint64_t nr_compressed2;	/* of which COMPRESSED2 */
	uint64_t compressed_bytes;	/* bytes of zstd input */
	uint64_t decompressed_bytes;	/* bytes of zstd output */
	uint64_t nr_size_wrapped;	/* COMPRESSED2 with a wrapped size */
	int damaged;			/* reading stopped early */
	uint64_t damage_offset;		/* where */
	uint64_t bytes_unread;		/* how much data was not read */
	char damage[256];		/* what, one line */
	/* A capture cut short: the data section the header declares (0
	 * when it declares none: a pipe, a killed perf record) and how much
	 * of it lies past the end of the file, known before reading */
	uint64_t data_declared;		/* bytes */
	uint64_t bytes_missing;		/* bytes */
};

/* Valid until pd_reader_free(). */
PD_API const struct pd_reader_stats *pd_reader_stats(
	const struct pd_reader *r);

/* ---- 8. records ---------------------------------------------------- */

#define PD_RECORD_TYPES(X)                                                  \
	X(MMAP, 1) X(LOST, 2) X(COMM, 3) X(EXIT, 4) X(THROTTLE, 5)          \
	X(UNTHROTTLE, 6) X(FORK, 7) X(READ, 8) X(SAMPLE, 9) X(MMAP2, 10)    \
	X(AUX, 11) X(ITRACE_START, 12) X(LOST_SAMPLES, 13) X(SWITCH, 14)    \
	X(SWITCH_CPU_WIDE, 15) X(NAMESPACES, 16) X(KSYMBOL, 17)             \
	X(BPF_EVENT, 18) X(CGROUP, 19) X(TEXT_POKE, 20)                     \
	X(AUX_OUTPUT_HW_ID, 21) X(CALLCHAIN_DEFERRED, 22)                   \
	X(HEADER_ATTR, 64) X(HEADER_EVENT_TYPE, 65)                         \
	X(HEADER_TRACING_DATA, 66) X(HEADER_BUILD_ID, 67)                   \
	X(FINISHED_ROUND, 68) X(ID_INDEX, 69) X(AUXTRACE_INFO, 70)          \
	X(AUXTRACE, 71) X(AUXTRACE_ERROR, 72) X(THREAD_MAP, 73)             \
	X(CPU_MAP, 74) X(STAT_CONFIG, 75) X(STAT, 76) X(STAT_ROUND, 77)     \
	X(EVENT_UPDATE, 78) X(TIME_CONV, 79) X(HEADER_FEATURE, 80)          \
	X(COMPRESSED, 81) X(FINISHED_INIT, 82) X(COMPRESSED2, 83)           \
	X(BPF_METADATA, 84)

enum pd_rec_type {
#define PD_REC_ENUM(name, value) PD_REC_##name = (value),
	PD_RECORD_TYPES(PD_REC_ENUM)
#undef PD_REC_ENUM
	PD_REC_USER_TYPE_START = 64,
};

/* perf's name of a record type ("MMAP2", "FINISHED_ROUND"), or NULL. */
PD_API const char *pd_rec_type_name(uint32_t type);

/* header.misc bits */
#define PD_MISC_CPUMODE_MASK 7u
#define PD_MISC_CPUMODE_UNKNOWN 0u
#define PD_MISC_KERNEL 1u
#define PD_MISC_USER 2u
#define PD_MISC_HYPERVISOR 3u
#define PD_MISC_GUEST_KERNEL 4u
#define PD_MISC_GUEST_USER 5u
#define PD_MISC_PROC_MAP_PARSE_TIMEOUT (1u << 12)
#define PD_MISC_MMAP_DATA (1u << 13) /* also COMM_EXEC, SWITCH_OUT */
#define PD_MISC_COMM_EXEC (1u << 13)
#define PD_MISC_SWITCH_OUT (1u << 13)
#define PD_MISC_EXACT_IP (1u << 14)  /* also SWITCH_OUT_PREEMPT,
				      * MMAP_BUILD_ID */
#define PD_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define PD_MISC_MMAP_BUILD_ID (1u << 14)
#define PD_MISC_EXT_RESERVED (1u << 15) /* also BUILD_ID_SIZE,
					 * LOST_SAMPLES_BPF */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)
#define PD_MISC_LOST_SAMPLES_BPF (1u << 15) /* samples a perf record
					     * --filter BPF program left
					     * out, not lost */

/*
 * The sample_id_all trailer of a non-sample kernel record, or the same
 * fields of a sample.  mask says which are present (PD_SAMPLE_* bits).
 */
struct pd_sample_id {
	uint64_t mask;
	const struct pd_evsel *evsel; /* NULL when it cannot be told */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/*
 * Decode the sample_id_all trailer of a kernel record (not SAMPLE).
 * @return 0, with s->mask = 0 when the record's event has no trailer;
 * PD_ERR_FORMAT when the record is too short for it.
 */
PD_API int pd_rec_sample_id(struct pd_file *f, const struct pd_rec *rec,
			    struct pd_sample_id *s);

/* ---- 9. samples ---------------------------------------------------- */

/* pd_load_u64(p, swap), pd_load_u32, pd_load_u16: loads of file-order
 * values, p need not be aligned (common/pdc_abi.h). */

/* An array of u64 in file byte order, inside a record. */
struct pd_u64s {
	uint64_t nr;
	const unsigned char *raw; /* nr * 8 bytes */
	int swap;
};

static inline uint64_t pd_u64s_get(const struct pd_u64s *a, uint64_t i)
{
	return pd_load_u64(a->raw + i * 8, a->swap);
}

/* PERF_CONTEXT_* markers in callchains. */
#define PD_CONTEXT_HV ((uint64_t)-32)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)
#define PD_CONTEXT_GUEST ((uint64_t)-2048)
#define PD_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PD_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PD_CONTEXT_USER_DEFERRED ((uint64_t)-640)
#define PD_CONTEXT_MAX ((uint64_t)-4095)

/* One branch of a branch stack, flags decoded. */
struct pd_branch {
	uint64_t from, to;
	uint64_t flags_raw; /* the flags word in host order, LE layout */
	unsigned mispred : 1, predicted : 1, in_tx : 1, abort : 1;
	unsigned cycles : 16;
	unsigned type : 4, spec : 2, new_type : 4, priv : 3;
	/* bit 33, reserved in the kernel's entry: perf's tool-side
	 * not_taken, which only a trace decoder's synthesized entries set
	 * (perf 7's Arm SPE, --itrace=l) */
	unsigned not_taken : 1;
};

struct pd_read_value {
	uint64_t value;
	uint64_t id;   /* when PD_FORMAT_ID */
	uint64_t lost; /* when PD_FORMAT_LOST */
};

struct pd_regs {
	uint64_t abi;	/* 0 none, 1 32-bit, 2 64-bit */
	uint64_t mask;	/* the attr's register mask */
	struct pd_u64s regs; /* popcount(mask) values when abi != 0 */
};

/*
 * A decoded PERF_RECORD_SAMPLE.  Fields whose PD_SAMPLE_* bit is not in
 * mask are zero.  Pointers point into the record and are valid as long as
 * it is.
 */
struct pd_sample {
	uint64_t mask; /* the event's sample_type */
	const struct pd_evsel *evsel;
	uint16_t misc;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period; /* the attr's period when PERIOD is not sampled */
	struct {
		uint64_t time_enabled, time_running; /* per read_format */
		uint64_t nr;	/* values: 1 unless GROUP */
		const unsigned char *raw; /* nr entries of entry_size */
		size_t entry_size;
	} read;
	struct pd_u64s callchain;
	struct {
		uint32_t size;
		const unsigned char *data;
	} raw;
	struct {
		uint64_t nr;
		int has_hw_idx;
		uint64_t hw_idx;
		const unsigned char *entries; /* nr * 24 bytes */
		struct pd_u64s counters; /* BRANCH_SAMPLE_COUNTERS, nr */
	} branch;
	struct pd_regs regs_user;
	struct {
		uint64_t size;
		const unsigned char *data; /* raw memory: never swapped */
		uint64_t dyn_size;
	} stack_user;
	uint64_t weight;	/* WEIGHT, or WEIGHT_STRUCT's whole word */
	uint32_t weight_var1;	/* WEIGHT_STRUCT: var1_dw (latency) */
	uint16_t weight_var2;	/* var2_w (instruction latency) */
	uint16_t weight_var3;	/* var3_w */
	uint64_t data_src;	/* union perf_mem_data_src, host order */
	uint64_t transaction;
	struct pd_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	struct {
		uint64_t size;
		const unsigned char *data;
	} aux;
	int swap;
	/* perf's sample flags (perf_sample.flags, pd_ip_flags): what a
	 * trace decoder says of a synthesized sample's instruction (a
	 * conditional branch, mispredicted, not taken), which no record
	 * format carries: a synthesized event's (pd_evsel.synth) samples
	 * keep them in one u64 after their fields; 0 for the others */
	uint32_t flags;
};

/* perf's PERF_IP_FLAG_* (tools/perf/util/event.h): pd_sample.flags */
enum pd_ip_flags {
	PD_IP_FLAG_BRANCH = 1u << 0,
	PD_IP_FLAG_CALL = 1u << 1,
	PD_IP_FLAG_RETURN = 1u << 2,
	PD_IP_FLAG_CONDITIONAL = 1u << 3,
	PD_IP_FLAG_SYSCALLRET = 1u << 4,
	PD_IP_FLAG_ASYNC = 1u << 5,
	PD_IP_FLAG_INTERRUPT = 1u << 6,
	PD_IP_FLAG_TX_ABORT = 1u << 7,
	PD_IP_FLAG_TRACE_BEGIN = 1u << 8,
	PD_IP_FLAG_TRACE_END = 1u << 9,
	PD_IP_FLAG_IN_TX = 1u << 10,
	PD_IP_FLAG_VMENTRY = 1u << 11,
	PD_IP_FLAG_VMEXIT = 1u << 12,
	PD_IP_FLAG_INTR_DISABLE = 1u << 13,
	PD_IP_FLAG_INTR_TOGGLE = 1u << 14,
	PD_IP_FLAG_BRANCH_MISS = 1u << 15,
	PD_IP_FLAG_NOT_TAKEN = 1u << 16,
};

/*
 * Decode a PD_REC_SAMPLE record with the layout of its event (found by id
 * when the capture has several).
 * @return 0; PD_ERR_FORMAT (detail in pd_file_errmsg) when the record is
 * shorter than its layout or its event is unknown.
 */
PD_API int pd_sample_decode(struct pd_file *f, const struct pd_rec *rec,
			    struct pd_sample *s);

/* Branch i of s's branch stack (i < s->branch.nr). */
PD_API void pd_sample_branch(const struct pd_sample *s, uint64_t i,
			     struct pd_branch *out);

/* Read value i of s (i < s->read.nr). */
PD_API void pd_sample_read_value(const struct pd_sample *s, uint64_t i,
				 struct pd_read_value *out);

/* Name of sample_type bit number `bit` ("IP", "CALLCHAIN"), or NULL. */
PD_API const char *pd_sample_bit_name(unsigned bit);

/* Decoded union perf_mem_data_src. */
struct pd_data_src {
	unsigned op;	   /* PERF_MEM_OP_* bits */
	unsigned lvl;	   /* PERF_MEM_LVL_* bits */
	unsigned snoop;	   /* PERF_MEM_SNOOP_* bits (with snoopx) */
	unsigned lock;
	unsigned dtlb;
	unsigned lvl_num;
	unsigned remote;
	unsigned snoopx;
	unsigned blk;
	unsigned hops;
};

PD_API void pd_data_src_decode(uint64_t data_src, struct pd_data_src *out);

#ifdef __cplusplus
}
#endif

#include "pd_env.h"
#include "pd_event.h"
#include "pd_spe.h"

#endif /* PD_H */
