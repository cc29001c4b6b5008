/*
 * pd_event.h - part of pd.h (included at its end): typed views of every
 * record other than PERF_RECORD_SAMPLE.
 *
 *	struct pd_event ev;
 *
 *	rc = pd_event_decode(f, &rec, &ev);
 *	if (rc == 0 && ev.type == PD_REC_COMM)
 *		printf("%.*s\n", (int)ev.comm.comm.len, ev.comm.comm.ptr);
 *
 * Every view points into the record (or, for AUXTRACE and TRACING_DATA,
 * into the payload that follows it) and is valid as long as the record
 * is: until the next pd_reader_next() or pd_reader_free().  Integers are
 * in host byte order; arrays stay in the file's byte order and are read
 * through the accessors below, which swap.  Strings are never trusted to
 * be NUL-terminated: a pd_str carries its length.
 *
 * Layouts follow include/uapi/linux/perf_event.h (kernel records) and
 * tools/lib/perf/include/perf/event.h (perf's records); format.md §6.
 */
#ifndef PD_EVENT_H
#define PD_EVENT_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A string field: ptr[0..len) holds no NUL; len stops at the first NUL or
 * at the end of the field, whichever comes first.  Not NUL-terminated.
 */
struct pd_str {
	const char *ptr;
	size_t len;
};

/* ---- kernel records (PERF_RECORD_*, types 1..63) ---------------------- */

struct pd_ev_mmap { /* MMAP */
	uint32_t pid, tid;
	uint64_t start, len, pgoff; /* bytes */
	struct pd_str filename;
};

struct pd_ev_mmap2 { /* MMAP2 */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	int has_build_id;  /* misc has PD_MISC_MMAP_BUILD_ID */
	uint32_t maj, min; /* inode form */
	uint64_t ino, ino_generation;
	uint8_t build_id_size;	       /* build-id form; at most 20 */
	const unsigned char *build_id; /* build_id_size bytes */
	uint32_t prot, flags;	       /* PROT_*, MAP_* */
	struct pd_str filename;
};

struct pd_ev_lost { /* LOST */
	uint64_t id;
	uint64_t lost; /* records lost */
};

struct pd_ev_comm { /* COMM; PD_MISC_COMM_EXEC in misc */
	uint32_t pid, tid;
	struct pd_str comm;
};

struct pd_ev_fork { /* FORK and EXIT */
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time; /* ns */
};

struct pd_ev_throttle { /* THROTTLE and UNTHROTTLE */
	uint64_t time, id, stream_id;
};

/*
 * READ: a counter value as struct read_format of the event's
 * attr.read_format (GROUP or not); values through pd_ev_read_value().
 */
struct pd_ev_read {
	uint32_t pid, tid;
	uint64_t read_format;		     /* the event's; PD_FORMAT_* bits */
	uint64_t time_enabled, time_running; /* when in read_format */
	uint64_t nr;			     /* values: 1 unless GROUP */
	const unsigned char *raw;
	int swap;
};

struct pd_ev_aux {		       /* AUX */
	uint64_t aux_offset, aux_size; /* bytes */
	uint64_t flags;		       /* PERF_AUX_FLAG_* */
};

struct pd_ev_itrace_start { /* ITRACE_START */
	uint32_t pid, tid;
};

struct pd_ev_lost_samples { /* LOST_SAMPLES */
	uint64_t lost;
};

/* SWITCH_CPU_WIDE (SWITCH has no body); PD_MISC_SWITCH_OUT in misc */
struct pd_ev_switch {
	uint32_t next_prev_pid, next_prev_tid;
};

/* NAMESPACES: link_info holds nr_namespaces {dev, ino} pairs. */
struct pd_ev_namespaces {
	uint32_t pid, tid;
	uint64_t nr_namespaces;
	struct pd_u64s link_info; /* 2 * nr_namespaces u64 */
};

struct pd_ev_ksymbol { /* KSYMBOL */
	uint64_t addr;
	uint32_t len;	    /* bytes */
	uint16_t ksym_type; /* PERF_RECORD_KSYMBOL_TYPE_* */
	uint16_t flags;	    /* bit 0: unregister */
	struct pd_str name;
};

struct pd_ev_bpf_event { /* BPF_EVENT */
	uint16_t type;	 /* PERF_BPF_EVENT_* */
	uint16_t flags;
	uint32_t id;		  /* BPF program id */
	const unsigned char *tag; /* 8 bytes */
};

struct pd_ev_cgroup { /* CGROUP */
	uint64_t id;
	struct pd_str path;
};

struct pd_ev_text_poke { /* TEXT_POKE */
	uint64_t addr;
	uint16_t old_len, new_len;	/* bytes */
	const unsigned char *old_bytes; /* old_len bytes */
	const unsigned char *new_bytes; /* new_len bytes */
};

struct pd_ev_aux_output_hw_id { /* AUX_OUTPUT_HW_ID */
	uint64_t hw_id;
};

/*
 * CALLCHAIN_DEFERRED (Linux 6.19+): the user part of callchains whose
 * SAMPLE ended with PERF_CONTEXT_USER_DEFERRED and the same cookie.
 */
struct pd_ev_callchain_deferred {
	uint64_t cookie;
	struct pd_u64s ips;
};

/* ---- perf's own records (types 64 and up) ----------------------------- */

struct pd_ev_header_attr { /* HEADER_ATTR */
	struct pd_attr attr;
	struct pd_u64s ids;
};

struct pd_ev_event_type {  /* HEADER_EVENT_TYPE */
	uint64_t event_id; /* tracepoint config */
	struct pd_str name;
};

/*
 * HEADER_TRACING_DATA: perf writes the data after the record (the
 * reader's rec->payload); simpleperf writes it inside.
 */
struct pd_ev_tracing_data {
	uint32_t size; /* bytes, as the record says */
	const unsigned char *data;
	uint64_t data_size; /* bytes available at data */
};

struct pd_ev_build_id { /* HEADER_BUILD_ID */
	int32_t pid;	/* -1 kernel, 0 host user space */
	uint8_t size;	/* build-id bytes, at most 20; 20
			 * without PD_MISC_BUILD_ID_SIZE */
	const unsigned char *build_id;
	struct pd_str filename;
};

/* One entry of an ID_INDEX. */
struct pd_id_index_entry {
	uint64_t id, idx, cpu, tid;
	int has_vm; /* machine_pid and vcpu are present */
	uint64_t machine_pid, vcpu;
};

/* ID_INDEX: entries through pd_ev_id_index_get(). */
struct pd_ev_id_index {
	uint64_t nr;
	int has_vm;		       /* the id_index_entry_2 extension */
	const unsigned char *entries;  /* nr * 32 bytes */
	const unsigned char *entries2; /* nr * 16 bytes when has_vm */
	int swap;
};

struct pd_ev_auxtrace_info { /* AUXTRACE_INFO */
	uint32_t type;	     /* PERF_AUXTRACE_* */
	struct pd_u64s priv;
};

/* AUXTRACE: the trace data follows the record (rec->payload). */
struct pd_ev_auxtrace {
	uint64_t size; /* bytes of trace data */
	uint64_t offset, reference;
	uint32_t idx, tid, cpu;
	const unsigned char *data; /* NULL unless the reader had it */
	uint64_t data_size;
};

/*
 * AUXTRACE_ERROR in every format: fmt 0 has no time (the message starts
 * where it would be), fmt 1 adds time, fmt 2 adds machine_pid and vcpu.
 */
struct pd_ev_auxtrace_error {
	uint32_t type, code, cpu, pid, tid, fmt;
	uint64_t ip;
	int has_time;
	uint64_t time;
	struct pd_str msg; /* at most 64 bytes */
	int has_vm;
	uint32_t machine_pid, vcpu;
};

/* THREAD_MAP: entries through pd_ev_thread_map_get(). */
struct pd_ev_thread_map {
	uint64_t nr;
	const unsigned char *entries; /* nr * 24 bytes */
	int swap;
};

/*
 * A CPU map as perf writes it in CPU_MAP and EVENT_UPDATE records, in
 * one of three forms.  The CPUs are listed by pd_cpu_map_next().
 */
enum pd_cpu_map_type {
	PD_CPU_MAP_CPUS = 0,  /* nr u16 CPU numbers */
	PD_CPU_MAP_MASK = 1,  /* nr bitmap words of long_size */
	PD_CPU_MAP_RANGE = 2, /* [any_cpu,] start_cpu..end_cpu */
};

struct pd_cpu_map {
	uint16_t type;		     /* pd_cpu_map_type */
	uint16_t nr;		     /* CPUS: entries; MASK: words */
	uint16_t long_size;	     /* MASK: 4 or 8 */
	uint8_t any_cpu;	     /* RANGE: -1 is in the map */
	uint16_t start_cpu, end_cpu; /* RANGE */
	const unsigned char *raw;    /* CPUS / MASK data */
	int swap;
};

struct pd_ev_stat_config { /* STAT_CONFIG */
	uint64_t nr;
	struct pd_u64s data; /* nr {tag, val} pairs: 2 * nr */
};

struct pd_ev_stat { /* STAT */
	uint64_t id;
	uint32_t cpu, thread;
	uint64_t val, ena, run;
};

struct pd_ev_stat_round { /* STAT_ROUND */
	uint64_t type;	  /* 0 interval, 1 final */
	uint64_t time;
};

/* EVENT_UPDATE: which member is set depends on type. */
enum pd_event_update_type {
	PD_EVENT_UPDATE_UNIT = 0,
	PD_EVENT_UPDATE_SCALE = 1,
	PD_EVENT_UPDATE_NAME = 2,
	PD_EVENT_UPDATE_CPUS = 3,
};

struct pd_ev_event_update {
	uint64_t type;		/* pd_event_update_type */
	uint64_t id;		/* a sample id of the event */
	struct pd_str str;	/* UNIT, NAME */
	double scale;		/* SCALE */
	struct pd_cpu_map cpus; /* CPUS */
};

/* TIME_CONV: short form (perf < 5.11) or long form (has_long). */
struct pd_ev_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	int has_long;
	uint64_t time_cycles, time_mask;
	uint8_t cap_user_time_zero, cap_user_time_short;
};

struct pd_ev_header_feature {	   /* HEADER_FEATURE */
	uint64_t feat_id;	   /* pd_feature */
	const unsigned char *data; /* the section, file byte order */
	size_t size;
};

/*
 * COMPRESSED and COMPRESSED2 (delivered only with
 * PD_READ_KEEP_COMPRESSED): a zstd frame piece.
 */
struct pd_ev_compressed {
	uint64_t data_size; /* COMPRESSED2's field, or the
			     * bytes after the header */
	const unsigned char *data;
	size_t avail; /* bytes of data in the record */
};

/*
 * BPF_METADATA (perf 6.16+): a program name and nr_entries {key, value}
 * string pairs, through pd_ev_bpf_metadata_get().
 */
struct pd_ev_bpf_metadata {
	struct pd_str prog_name;
	uint64_t nr_entries;
	const unsigned char *entries; /* nr_entries * 320 bytes */
};

/* ---- the decoded record --------------------------------------------- */

struct pd_event {
	uint32_t type; /* rec->type */
	uint16_t misc;
	/*
	 * Kernel records: the sample_id_all trailer (mask 0 when the
	 * event has none).  Zero for perf's records.
	 */
	struct pd_sample_id sample_id;
	union {
		struct pd_ev_mmap mmap;
		struct pd_ev_lost lost;
		struct pd_ev_comm comm;
		struct pd_ev_fork fork;		/* FORK, EXIT */
		struct pd_ev_throttle throttle; /* THROTTLE, UNTHROTTLE */
		struct pd_ev_read read;
		struct pd_ev_mmap2 mmap2;
		struct pd_ev_aux aux;
		struct pd_ev_itrace_start itrace_start;
		struct pd_ev_lost_samples lost_samples;
		struct pd_ev_switch context_switch; /* SWITCH_CPU_WIDE */
		struct pd_ev_namespaces namespaces;
		struct pd_ev_ksymbol ksymbol;
		struct pd_ev_bpf_event bpf_event;
		struct pd_ev_cgroup cgroup;
		struct pd_ev_text_poke text_poke;
		struct pd_ev_aux_output_hw_id aux_output_hw_id;
		struct pd_ev_callchain_deferred callchain_deferred;

		struct pd_ev_header_attr attr;
		struct pd_ev_event_type event_type;
		struct pd_ev_tracing_data tracing_data;
		struct pd_ev_build_id build_id;
		struct pd_ev_id_index id_index;
		struct pd_ev_auxtrace_info auxtrace_info;
		struct pd_ev_auxtrace auxtrace;
		struct pd_ev_auxtrace_error auxtrace_error;
		struct pd_ev_thread_map thread_map;
		struct pd_cpu_map cpu_map;
		struct pd_ev_stat_config stat_config;
		struct pd_ev_stat stat;
		struct pd_ev_stat_round stat_round;
		struct pd_ev_event_update event_update;
		struct pd_ev_time_conv time_conv;
		struct pd_ev_header_feature feature;
		struct pd_ev_compressed compressed; /* and COMPRESSED2 */
		struct pd_ev_bpf_metadata bpf_metadata;
	};
};

/* pd_event_decode()'s value for a record type it does not know. */
#define PD_EVENT_UNKNOWN 1

/*
 * Decode a record other than SAMPLE into *ev, with the sample_id_all
 * trailer of a kernel record (as pd_rec_sample_id() finds it).  Records
 * without a body (SWITCH, FINISHED_ROUND, FINISHED_INIT) decode to their
 * header and trailer.
 * @return 0; PD_EVENT_UNKNOWN for a type this library does not know (ev
 * holds only type and misc: skip the record by its size); PD_ERR_FORMAT
 * when the record is shorter than its layout or a count in it does not
 * fit (the detail in pd_file_errmsg()); PD_ERR_API for a SAMPLE (use
 * pd_sample_decode()).  Never reads outside rec->data[0..rec->size) and
 * rec->payload[0..rec->payload_size).  Views in ev live as long as rec.
 */
PD_API int pd_event_decode(struct pd_file *f, const struct pd_rec *rec,
			   struct pd_event *ev);

/*
 * The count of a LOST record (id and lost) or a LOST_SAMPLES record (lost;
 * id 0), read from the body only: cheaper than pd_event_decode() for a
 * loop that only counts what was lost, and blind to a damaged trailer.
 * @return 0; PD_ERR_FORMAT when the record ends before the count;
 * PD_ERR_API for another type (*out zeroed on failure; the detail in
 * pd_file_errmsg()).
 */
PD_API int pd_lost_decode(struct pd_file *f, const struct pd_rec *rec,
			  struct pd_ev_lost *out);

/* Value i of a READ record (i < r->nr). */
PD_API void pd_ev_read_value(const struct pd_ev_read *r, uint64_t i,
			     struct pd_read_value *out);

/* Entry i of an ID_INDEX (i < x->nr). */
PD_API void pd_ev_id_index_get(const struct pd_ev_id_index *x, uint64_t i,
			       struct pd_id_index_entry *out);

/* Entry i of a THREAD_MAP (i < m->nr): its pid and comm. */
PD_API void pd_ev_thread_map_get(const struct pd_ev_thread_map *m, uint64_t i,
				 uint64_t *pid, struct pd_str *comm);

/* Entry i of a BPF_METADATA (i < m->nr_entries). */
PD_API void pd_ev_bpf_metadata_get(const struct pd_ev_bpf_metadata *m,
				   uint64_t i, struct pd_str *key,
				   struct pd_str *value);

/*
 * The CPUs of a CPU map, in order.  Start with *pos = 0.
 * @return 1 and *cpu (-1 stands for "any CPU"), or 0 after the last.
 */
PD_API int pd_cpu_map_next(const struct pd_cpu_map *m, uint64_t *pos, int *cpu);

#ifdef __cplusplus
}
#endif

#endif /* PD_EVENT_H */
