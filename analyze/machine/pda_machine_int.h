/*
 * pda_machine_int.h - the session's own state, shared by the files that
 * follow the machine and find binaries: pda_session.c, pda_intern.c,
 * pda_machine.c, pda_dso.c (with pda_path.c and pda_altlink.c),
 * pda_kallsyms.c and pda_jit.c.  The ELF/DWARF
 * side (analyze/symbols) sees only pda_base_int.h.
 */
#ifndef PDA_MACHINE_INT_H
#define PDA_MACHINE_INT_H

#include "pda_symbols_int.h"

#include <pthread.h>

/* ---- maps and threads (pda_machine.c) ------------------------------ */

struct pda_dso_ent;

enum pda_map_kind {
	PDA_MAP_FILE,	/* a file: its ELF is looked up */
	PDA_MAP_VDSO,	/* [vdso]: found by build-id; pgoff taken as 0 */
	PDA_MAP_JIT,	/* executable memory without a file: perf-PID.map */
	PDA_MAP_ANON,	/* memory without a file and not executable */
	PDA_MAP_KERNEL, /* [kernel.kallsyms] */
	PDA_MAP_MODULE, /* a kernel module, symbols from kallsyms */
	PDA_MAP_KSYM,	/* a KSYMBOL: a BPF program, out-of-line code */
};

struct pda_map {
	uint64_t start, end;	 /* [start, end) */
	uint64_t pgoff;		 /* file offset of start (bytes) */
	const char *name;	 /* interned; what perf calls the dso */
	struct pda_dso_ent *dso; /* NULL for ANON */
	enum pda_map_kind kind;
	uint32_t hidx;	 /* its entry in the maps' history, if kept */
	const char *sym; /* KSYM: the symbol's name */
	/* MMAP2's protection and flags (PROT_*, MAP_*); an MMAP's prot is
	 * PROT_EXEC unless it says MMAP_DATA, as perf takes it */
	uint32_t prot, flags;
};

struct pda_maps_snap;
struct pda_mhist;

/* Invariants: v[0..nr) sorted by start, no two overlap; gen changes
 * whenever v does (a map pointer into v is valid while gen is), to a
 * value no other maps of the session had (pda_maps_bump), so (maps,
 * gen) names one state of one process's maps for the session's life
 * (the pipeline's memo keys on it); while
 * snap is set, v is shared with that frozen copy and is copied before it
 * changes. */
struct pda_maps {
	struct pda_map *v;
	size_t nr, alloc;
	size_t hint; /* index of the last hit */
	uint64_t gen;
	struct pda_maps_snap *snap;
	struct pda_mhist *hist; /* the maps over time, while kept */
};

/*
 * A process's maps frozen as they were (pda_pipe.c: for the unwinds and
 * resolutions under way while records change the live ones): m shares
 * the live maps' v until they change, then owns it.  m.gen is unique in
 * the session (its top bit set), so caches keyed by (maps, gen) never
 * take one copy for another.
 */
struct pda_maps_snap {
	struct pda_maps m;
	struct pda_maps *live;	/* whose v m shares, or NULL: m owns v */
	uint64_t src_gen;	/* live->gen when frozen */
	uint64_t last_use;	/* the user's: when last handed out */
	struct pda_maps_snap *next; /* the user's list */
};

/* m frozen as it is now (the same copy while m does not change).  @return
 * 0 and *out, or NOMEM. */
int pda_maps_freeze(struct pda_session *s, struct pda_maps *m,
		    struct pda_maps_snap **out);
/* Accepts NULL. */
void pda_maps_snap_free(struct pda_session *s, struct pda_maps_snap *snap);

#define PDA_MAPS_MAX ((size_t)1 << 22)

/* Give m a gen of its own: after each change. */
void pda_maps_bump(struct pda_session *s, struct pda_maps *m);

/* A map covering addr, or NULL. */
const struct pda_map *pda_maps_find(struct pda_maps *m, uint64_t addr);
/* The same without the hint, so m stays unchanged (unwinders, whose maps
 * are frozen for them). */
const struct pda_map *pda_maps_lookup(const struct pda_maps *m,
				      uint64_t addr);
/* Insert, cutting what it overlaps out of the maps already there. */
int pda_maps_insert(struct pda_session *s, struct pda_maps *m,
		    const struct pda_map *map);
/* Remove the maps that cover exactly [start, end).  0 or NOMEM. */
int pda_maps_remove(struct pda_session *s, struct pda_maps *m, uint64_t start,
		    uint64_t end);
void pda_maps_release(struct pda_session *s, struct pda_maps *m);

/*
 * The machine over time, for a run that applies a capture's sideband
 * records before it reads its samples (pda_capture.c's two passes).
 * The records are applied in time order, record i making epoch i + 1;
 * a sample comes at the epoch of the sideband records before it in
 * time.  While history is on, every change of a process's (or the
 * kernel's) maps is kept: each map with the epochs [from, to) it
 * lived, each change with the generation it gave the maps; and each
 * thread's comms and cgroup namespaces with the epochs they were set.
 * The live state at the end is the last one; pda_machine_at() gives a
 * sample the state of its epoch: the live maps when they did not change since, else a view of
 * the maps then, made from the history and shared (a few are cached).
 * With history on, the maps must not change once samples are read.
 */
#define PDA_EPOCH_LIVE UINT32_MAX

struct pda_hmap {
	struct pda_map map;
	uint32_t from, to; /* epochs; to PDA_EPOCH_LIVE: live at the end */
};

struct pda_hchg {
	uint32_t epoch;
	uint64_t gen; /* the maps' gen from epoch on */
};

struct pda_mview;

struct pda_mhist {
	struct pda_hmap *v; /* in the order made */
	size_t nr, alloc;
	struct pda_hchg *chg; /* by epoch, one per epoch */
	size_t nr_chg, chg_alloc;
	uint64_t base_gen;	/* the maps' gen before the first change */
	struct pda_mview *hint; /* the last view made or found */
};

/* A sample's state: its process's maps and the kernel's, its thread's
 * comm ("" unknown) and cgroup namespace (0/0 unknown), and the views it
 * holds (NULL: the live maps).  comm_later: without a comm, the first
 * one the thread gets later, unless a FORK makes it anew first (what
 * perf's report names the sample by; NULL none). */
struct pda_at {
	struct pda_maps *umaps, *kmaps;
	const char *comm, *comm_later;
	struct pda_nsid cgns;
	struct pda_mview *uv, *kv;
};

/* Keep the history from now on (before the first record is applied). */
void pda_machine_history(struct pda_session *s);
/* The epoch the records applied next make. */
void pda_machine_set_epoch(struct pda_session *s, uint32_t epoch);
/*
 * The state of thread tid of process pid at epoch (PDA_EPOCH_LIVE: now)
 * into *at, holding its views until pda_at_put(); v's cache of the last
 * answer tried first.  0 or NOMEM.
 */
struct pda_view;
int pda_machine_at(struct pda_session *s, struct pda_view *v, uint32_t epoch,
		   uint32_t pid, uint32_t tid, struct pda_at *at);
/* Accepts an at with no views, or zeroed. */
void pda_at_put(struct pda_session *s, struct pda_at *at);

struct pda_proc;
struct pda_thread;

struct pda_machine {
	struct pdc_hash procs;	 /* by pid */
	struct pdc_hash threads; /* by tid */
	struct pda_proc *last_proc;
	struct pda_maps kmaps;	    /* kernel, modules, KSYMBOL */
	struct pda_dso_ent *kernel; /* [kernel.kallsyms], once mapped */
	struct pda_kahead *kahead;  /* its kallsyms parsed ahead, or NULL */
	struct pda_map kimage;	    /* the kernel map, kind 0 until mapped */
	const char *ref_name;	    /* the kernel map's reloc symbol: "_text" */
	uint64_t ref_addr;	    /* its address at record time, 0 unknown */
	uint64_t nr_guest;	    /* records of guest machines, skipped */
	uint64_t nr_bad;	    /* records that did not decode, skipped */
	uint64_t nr_snaps;	    /* pda_maps_freeze()s, for unique gens */
	uint64_t nr_gens;	    /* the last live maps' gen given */
	/* history (above) */
	bool hist_on;
	uint32_t epoch;
	struct pda_mview *views; /* made, most recent first */
	size_t nr_views;
	uint64_t view_clock;
	size_t nr_views_made;
	/* while shard views resolve on several threads (pda_session_
	 * shards): pda_machine_at's misses take lock, views' references
	 * are counted atomically */
	bool shared;
	pthread_mutex_t *lock;
	/* PERF_RECORD_CGROUP's paths by id, the first one given (perf's
	 * cgroup__findnew), in the order they came */
	struct pda_cgroup {
		uint64_t id;
		const char *path; /* interned */
	} *cgroups;
	size_t nr_cgroups, alloc_cgroups;
};

int pda_machine_init(struct pda_session *s);
void pda_machine_release(struct pda_session *s);
int pda_machine_feed(struct pda_session *s, const struct pd_rec *rec);
/* Whether a record of type may change threads, comms or maps (else
 * pda_machine_feed ignores it). */
bool pda_machine_changes(uint32_t type);
/* Take the build-ids of the HEADER_BUILD_ID feature. */
int pda_machine_absorb_env(struct pda_session *s);
/* The maps of process pid (created empty when new); NULL on NOMEM. */
struct pda_maps *pda_machine_maps(struct pda_session *s, uint32_t pid);

/* ---- DSOs (pda_dso.c) ---------------------------------------------- */

enum pda_dso_kind {
	PDA_DSO_FILE,	/* a user-space ELF file */
	PDA_DSO_VDSO,	/* [vdso] */
	PDA_DSO_KERNEL, /* [kernel.kallsyms]: kallsyms or a vmlinux */
	PDA_DSO_JIT,	/* /tmp/perf-PID.map */
};

struct pda_ksyms;
struct pda_jitmap;

/* bytes between fields that threads write and read apart (x86, arm64) */
#define PDA_CACHE_LINE 64

struct pda_dso_ent {
	struct pda_dso d;
	enum pda_dso_kind kind;
	uint32_t pid;		 /* JIT: the process */
	struct pda_ksyms *ksyms; /* KERNEL, from kallsyms */
	int64_t kdelta;		 /* KERNEL: add to a recorded address to
				  * get the symbol source's address */
	struct pda_jitmap *jit;	 /* JIT */
	const char *jitdump;	 /* JIT: the jit-PID.dump the process
				  * mapped (recorded path), or NULL */
	const char *jitdump_from; /* JIT: the jitdump file read, or NULL */
	void *jit_image;	 /* JIT: the ELF made of the dump's code,
				  * d.elf's bytes (pda_jitdump.c) */
	const struct pda_spsyms *sp; /* simpleperf's symbols, when missing */
	bool sp_tried;
	size_t nr_tried, tried_alloc;
	struct pda_elf *alts[2]; /* the .gnu_debugaltlink files of
				  * d.elf and d.debug (pda_dso_find_alt) */
	bool mismatch;	     /* some candidate had another build-id */
	/* an address of it was resolved: its load (files, debuginfod,
	 * their warnings) is done; a later shard's first use of a binary
	 * waits its turn (pda_session.c, shard_turn) */
	bool used;
	bool escaped;	     /* a --symfs path led outside it */
	/* written each sample by the session's view (the first shard's),
	 * so on a cache line of their own: idx, which the other shards
	 * read each sample, beside them made -j2 wait on the line (fold10
	 * -j2: view_count 11% of the CPU, its load of idx).  Padded, not
	 * _Alignas(64): the allocators give 16-byte alignment, and an
	 * over-aligned member in such memory is undefined (UBSan) */
	char line_pad0[PDA_CACHE_LINE - 8];
	uint64_t sample_seq; /* the last sample counted in nr_samples */
	uint64_t unres_seq; /* the last one counted in nr_unresolved */
	char line_pad1[PDA_CACHE_LINE - 8];
	uint32_t idx; /* its place in dsos.all's making: a
				    * shard view's counts by binary
				    * (pda_view.dc) */
	const char *fetch_err; /* debuginfod failed (not "no such file") */
	const char *kcheck;  /* KERNEL: why its symbols are not the
			      * capture's kernel's, or NULL */
	/* the file the first MMAP2 of the DSO mapped (issue 13 item 7) */
	bool has_ino;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t ino_generation;
	const char *changed; /* the file read is not the one mapped: why */
	const char *package; /* pda_dso_diagnose's dpkg lookup, once */
	bool package_looked;
	struct pda_dso_ent *next_all; /* every DSO, for stats and freeing */
};

/* ---- simpleperf's recorded symbols (pda_spsym.c) ------------------ */

struct pda_spsym {
	uint64_t start, end;	/* [start, end) in the file's addresses */
	const char *name;	/* mangled, as recorded */
};

struct pda_spsyms {
	const struct pd_sp_file *file;
	size_t nr;
	struct pda_spsym *syms; /* by start */
};

/*
 * The symbols the capture's simpleperf FILE feature has for d's recorded
 * path (ELF and dex files), once per DSO; *out NULL when it has none.
 * 0 or PD_ERR_NOMEM.
 */
int pda_spsyms_get(struct pda_session *s, struct pda_dso_ent *d,
		   const struct pda_spsyms **out);
/* The address in the file of file offset off of a map, by simpleperf's
 * rule for the file's type. */
uint64_t pda_spsyms_vaddr(const struct pda_spsyms *t, uint64_t off);
/* The symbol holding vaddr, or NULL. */
const struct pda_spsym *pda_spsyms_find(const struct pda_spsyms *t,
					uint64_t vaddr);

/*
 * The DSO for a recorded name (and build-id, when one is known: the
 * MMAP2 build-id form, or HEADER_BUILD_ID by name).  One per build-id,
 * else per name.  NULL on NOMEM.
 */
struct pda_dso_ent *pda_dso_get(struct pda_session *s, enum pda_dso_kind kind,
				const char *name, size_t len,
				const unsigned char *build_id,
				unsigned build_id_size, uint32_t pid);
/*
 * Why d's frames are unresolved and what would resolve them
 * (pda_diagnose.c): fills out's reason, detail, action and package from
 * d's lookup; the counts and tried list are the caller's.  0 or NOMEM.
 */
int pda_dso_diagnose(struct pda_session *s, struct pda_dso_ent *d,
		     struct pda_missing_dso *out);
/*
 * The dpkg lookups pda_dso_diagnose may make, for the binaries loaded so
 * far, started on a thread of its own (session's thread; nothing when
 * the capture is not of this host, or on any failure).  _join takes the
 * answers (and is called by the diagnosis' caller first; session's
 * thread; nothing when none were started).
 */
void pda_dpkg_ahead_start(struct pda_session *s);
void pda_dpkg_ahead_join(struct pda_session *s);
/* Look the DSO's files up (once: state leaves UNTRIED).  0 or NOMEM. */
int pda_dso_load(struct pda_session *s, struct pda_dso_ent *d);
/* Whether the calling thread may load a binary now: always without
 * unwinding threads; while they run, only the session's own thread, and
 * only while the pipeline lets it (struct pda_mt); any shard's thread
 * (pda_session_shards: they load under its lock). */
bool pda_dso_may_load(const struct pda_session *s);
/* d's state and ELF as pda_dso_load last published them, read under the
 * threads' lock while they run: what another thread may use of d. */
void pda_dso_published(struct pda_session *s, const struct pda_dso_ent *d,
		       enum pda_dso_state *state, struct pda_elf **elf);
/* Where the unwind module keeps the CFI rows its backend states share
 * (pda_unwind_cfi.c): one per session, owned and freed by that module. */
struct pda_cfi_store **pda_session_cfi_store(struct pda_session *s);
/* The capture the session reads (never NULL). */
struct pd_file *pda_session_file(const struct pda_session *s);
/* Remember a build-id by recorded name (HEADER_BUILD_ID). */
int pda_dso_note_build_id(struct pda_session *s, const char *name, size_t len,
			  bool kernel, const unsigned char *id, unsigned size);
/* The build-id noted for name (kernel: the kernel's or a module's) into
 * id (PDA_BUILD_ID_MAX bytes).  @return its size, 0 when none. */
unsigned pda_dso_noted_build_id(struct pda_session *s, const char *name,
				size_t len, bool kernel, unsigned char *id);
/* Add "path" or "path (why)" to d's tried list.  0 or NOMEM. */
int pda_dso_tried(struct pda_session *s, struct pda_dso_ent *d,
		  const char *path, const char *why);
/*
 * Open path as one of d's files and check its build-id against d's.
 * @return 0 and *out, PD_ERR_NOTFOUND (absent, not ELF or another
 * build-id: then in tried, and warned about once), or NOMEM.
 */
int pda_dso_try_elf(struct pda_session *s, struct pda_dso_ent *d,
		    const char *path, struct pda_elf **out);
/*
 * The .gnu_debugaltlink (dwz) file of e, one of d's files: looked for
 * only where d's files may be (the rules are in pda_dso.c) and used only
 * with the build-id the link names.  @return 0 and *alt (NULL: none
 * found, logged), or NOMEM.
 */
int pda_dso_find_alt(struct pda_session *s, struct pda_dso_ent *d,
		     struct pda_elf *e, struct pda_elf **alt);
void pda_dsos_release(struct pda_session *s);
/* Whether the capture names this host and the kernel release it runs
 * (HOSTNAME, OSRELEASE): what a capture without build-ids has to go by
 * before this host's /proc/kallsyms or vdso stand for its kernel's. */
bool pda_same_host_kernel(struct pda_session *s);
/* Whether the capture names this host (HOSTNAME equals uname's nodename;
 * false without one).  Only the capture's word: annotate's source files
 * go by it (pda_annotate_src.c). */
bool pda_same_host(struct pda_session *s);
/* Whether this host's kernel may stand for the capture's at all:
 * opts.use_host_kernel, and the capture's HOSTNAME is this host's unless
 * opts.host_kernel_any_host.  *why says why not. */
bool pda_host_kernel_allowed(struct pda_session *s, const char **why);

struct debuginfod_client;

/* debuginfod's client, limits and record (pda_debuginfod.c). */
struct pda_dbgf;

struct pda_fetch {
	struct pda_dbgf *api;		  /* libdebuginfod, loaded on first
					   * use (pda_debuginfod.c) */
	const char *no_api;		  /* why it is not */
	struct debuginfod_client *client; /* made on first use */
	struct pda_fetch_stats st;
	struct pda_fetched *list; /* st.fetched */
	size_t alloc;
	/* the query under way */
	struct pda_fetch_progress now;
	uint64_t start, deadline; /* ms, CLOCK_MONOTONIC */
	bool stopped;		  /* by the time limit */
};

struct pda_dsos {
	struct pdc_hash by_key;	       /* by build-id, else by name */
	struct pdc_hash bid_by_name;   /* HEADER_BUILD_ID */
	struct pdc_hash warned;	       /* paths already logged as rejected */
	struct pda_fetch fetch;
	struct pda_dso_ent *all;
	size_t nr_all;
	const char *buildid_dir; /* resolved: opts or $HOME/.debug */
	const char *symfs;	 /* opts.symfs made absolute, or NULL */
	struct pda_search *search; /* opts.search_paths' files (pda_search.c),
				    * listed at the first lookup */
};

/*
 * --search-path (pda_search.c): a binary (*bin) and debug file (*dbg)
 * for d, whichever slot is still empty, from the files under
 * opts.search_paths: by the basename of path, then by build-id.  0 or
 * NOMEM.  pda_search_release frees the list.
 */
struct pda_elf;
int pda_search_find(struct pda_session *s, struct pda_dso_ent *d,
		    const char *path, struct pda_elf **bin,
		    struct pda_elf **dbg);
void pda_search_release(struct pda_session *s);

/* A build-id in lowercase hex; out holds 2 * size + 1 bytes. */
void pda_hex(char *out, const unsigned char *id, unsigned size);

/*
 * Hex digits at *p (no 0x, either case) into *v.  @return false when
 * there are none or the value does not fit 64 bits.  *p moves past them.
 */
bool pda_parse_hex(const char **p, const char *end, uint64_t *v);

/* ---- paths (pda_path.c) ------------------------------------------- */

/* The longest path we build. */
#define PDA_PATH_MAX 4096

/* snprintf into a PDA_PATH_MAX buffer; false when it did not fit. */
bool pda_pathf(char *out, const char *fmt, ...) PD_PRINTF(2, 3);

/*
 * path resolved under root as a chroot resolves it: ".." stops at root,
 * a symlink's absolute target is taken inside root.  So nothing leads
 * outside root; a path that would, followed as perf follows it (open of
 * root + path), is refused with *escaped set.  @return 0 and the real
 * path in out, or PD_ERR_NOTFOUND.
 */
int pda_path_under(const char *root, const char *path, char *out, size_t size,
		   bool *escaped);
/* Whether path lies in dir (both absolute and clean): is dir or below. */
bool pda_path_is_under(const char *path, const char *dir);
/* An absolute path lexically clean in out: "//" and "." dropped, ".."
 * up (never above "/").  false when path is relative or too long. */
bool pda_path_clean(const char *path, char *out, size_t size);

/* ---- debuginfod (pda_debuginfod.c) -------------------------------- */

enum pda_fetch_kind {
	PDA_FETCH_EXECUTABLE,
	PDA_FETCH_DEBUGINFO,
	PDA_FETCH_ALT, /* a .gnu_debugaltlink file: a debuginfo query */
};

/*
 * Ask debuginfod for the file of kind of build-id id, for d, within the
 * session's limits.  @return 0 with *path the file in libdebuginfod's
 * cache (free() it) or NULL (not asked, not found, stopped: noted in d's
 * tried list), or NOMEM.
 */
int pda_debuginfod_fetch(struct pda_session *s, struct pda_dso_ent *d,
			 const unsigned char *id, unsigned size,
			 enum pda_fetch_kind kind, char **path);
/* What was asked and fetched so far; valid until the next query. */
void pda_debuginfod_stats(const struct pda_session *s,
			  struct pda_fetch_stats *out);
void pda_debuginfod_release(struct pda_session *s);

/* ---- kernel symbols (pda_kallsyms.c) ------------------------------- */

struct pda_ksym {
	uint64_t start, end; /* [start, end) */
	const char *name;    /* points into the file's bytes */
	const char *module;  /* "nf_tables" for "[nf_tables]"; NULL */
};

struct pda_ksyms {
	struct pda_ksym *v; /* sorted by start */
	size_t nr, alloc;
	char *buf; /* the file, NUL-split */
	size_t buf_size;
	uint64_t kernel_end; /* end of the last kernel (not module)
			      * symbol */
};

/*
 * Parse a /proc/kallsyms copy held in buf (len bytes, which the table
 * takes over: freed by pda_ksyms_free).  Text and data symbols are kept
 * as perf keeps them (types T, W, D, B in either case).
 * @return 0 and *out; PD_ERR_FORMAT when no line parses or every address
 * is 0 (kptr_restrict), with the reason in *why; NOMEM.
 */
int pda_ksyms_parse(struct pda_session *s, char *buf, size_t len,
		    struct pda_ksyms **out, const char **why);
/*
 * Read a whole file (also /proc files, whose size reads as 0), at most
 * max bytes, into a NUL-terminated buffer of the session's allocator.
 * @return 0, PD_ERR_NOTFOUND (cannot open), PD_ERR_IO, PD_ERR_UNSUPPORTED
 * (more than max bytes) or PD_ERR_NOMEM.
 */
int pda_read_file(struct pda_session *s, const char *path, size_t max,
		  char **buf, size_t *len);
int pda_read_fd(struct pda_session *s, int fd, size_t max, char **buf,
		size_t *len);
const struct pda_ksym *pda_ksyms_find(const struct pda_ksyms *k, uint64_t addr);
/* A symbol's address by name, or 0. */
uint64_t pda_ksyms_addr(const struct pda_ksyms *k, const char *name);
void pda_ksyms_free(struct pda_session *s, struct pda_ksyms *k);
/* Find the kernel's symbols (the order is in pda_kallsyms.c). */
int pda_kernel_load(struct pda_session *s, struct pda_dso_ent *d);
/*
 * The kallsyms file pda_kernel_load() would parse, read and parsed
 * ahead on another thread (pda_kallsyms.c): _open() queues it (the
 * session's thread, the sideband applied, before the workers start;
 * nothing when the kernel is loaded or no kallsyms would be read);
 * _run() does it on the calling thread when queued (false when not);
 * pda_kernel_load() takes the result, waiting for it when under way, or
 * does it itself when still queued.  _free() with no thread running.
 */
void pda_kernel_ahead_open(struct pda_session *s);
bool pda_kernel_ahead_run(struct pda_session *s);
void pda_kernel_ahead_free(struct pda_session *s);
/*
 * The same queued before the first pass and run at once on a thread of
 * its own, the kernel's DSO guessed from the header's build-id (the
 * sideband that makes it is applied at the first pass's end, where
 * every shard of the second would wait at its first kernel frame for
 * one of them to parse kallsyms); what pda_kernel_load() would not
 * parse is dropped.  Nothing without the header's build-id, when the
 * kernel is known or a parse is queued already, or when no thread
 * could be had (pda_kernel_load() parses it then).  _free() joins the
 * thread.
 */
void pda_kernel_early_start(struct pda_session *s);
/* This host's kernel build-id from notes_path (/sys/kernel/notes). */
int pda_host_kernel_build_id(struct pda_session *s, const char *notes_path,
			     unsigned char *id, unsigned *size);

/* ---- JIT maps (pda_jit.c) ------------------------------------------ */

struct pda_jitsym {
	uint64_t start, end; /* [start, end) */
	const char *name;    /* into buf */
	const unsigned char *code; /* a jitdump's: end - start bytes into
				    * buf; NULL for a map file */
};

struct pda_jitmap {
	struct pda_jitsym *v; /* sorted by start; for one start the last
			       * line wins */
	size_t nr, alloc;
	size_t nr_bad; /* lines that did not parse */
	char *buf;
};

/*
 * Parse a perf-PID.map held in buf (taken over, like pda_ksyms_parse):
 * "START SIZE name" lines, START and SIZE in hex (0x or not).  Lines that
 * do not parse (bad hex, over 64 bits, START + SIZE past 2^64, no name)
 * are skipped and counted.  @return 0 and *out, or NOMEM.
 */
int pda_jitmap_parse(struct pda_session *s, char *buf, size_t len,
		     struct pda_jitmap **out);
const struct pda_jitsym *pda_jitmap_find(const struct pda_jitmap *m,
					 uint64_t addr);
void pda_jitmap_free(struct pda_session *s, struct pda_jitmap *m);
/*
 * A jitdump (jit-PID.dump, as perf inject --jit reads it) held in buf
 * (taken over): its JIT_CODE_LOAD and JIT_CODE_MOVE records as *out,
 * and when the code bytes are there and the dump is in this host's byte
 * order, an ELF image of them (*image, pda_free()d after its handle;
 * NULL otherwise) with one section and symbol per function, which
 * annotate disassembles.  name: for messages.  @return 0; FORMAT with
 * the session's message for a header that is not a jitdump's; NOMEM.
 */
int pda_jitdump_parse(struct pda_session *s, const char *name, char *buf,
		      size_t len, struct pda_jitmap **out, void **image,
		      size_t *image_size);
/* Sort m's entries by start, the last of each start kept. */
void pda_jitmap_finish(struct pda_jitmap *m);
/* Load d's perf-PID.map from opts.jit_dir (or /tmp). */
int pda_jit_load(struct pda_session *s, struct pda_dso_ent *d);

/* ---- the session (pda_session.c) ----------------------------------- */

struct addr_ent;
struct pda_unwinder;
struct pda_cfi_store;

#define PDA_ADDR_FRONT 4096 /* direct-mapped entries before addr_cache */
#define PDA_IP_FRONT 4096   /* direct-mapped entries before both */
#define PDA_FIRST_FRONT 4096 /* direct-mapped entries before first */

/* An address in maps, resolved while maps->gen was gen. */
struct pda_ip_ent {
	uint64_t ip;
	const struct pda_maps *maps; /* NULL: empty */
	uint64_t gen;
	const struct pda_map *map;
	const struct addr_ent *ent;
	bool inl;
	/* ent's one frame as pushed for ip, when ent has one: a hit copies
	 * it whole */
	bool one;
	struct pda_frame fr;
};

/*
 * While a pipeline (pda_pipe.c) runs unwinds on other threads, on is set
 * and those threads reach the session only through the backends'
 * services: allocation through opts.alloc's hooks (s->alloc then calls
 * them, saved in hooks, under lock) and logging take lock, pda_dso_load
 * publishes a DSO's files under it, and a binary is loaded
 * (pda_unwind_dso_elf) only on owner, the session's thread, while
 * may_load: elsewhere the unwind is redone there (PDA_UNWIND_AGAIN).
 * pda_intern takes intern_lock.
 */
struct pda_mt {
	bool on;
	bool may_load;
	bool hooked;	      /* s->alloc is the locking one */
	struct pd_alloc hooks; /* the caller's, while hooked */
	pthread_t owner;
	pthread_mutex_t lock;
	/* pda_intern's, while on: symbol tables built ahead intern their
	 * names on a worker (pda_dwahead.c) */
	pthread_mutex_t intern_lock;
	/* while on (made with it; log_key_ok): the calling thread's
	 * struct pda_log_hold, or NULL */
	pthread_key_t log_key;
	bool log_key_ok;
};

/* A message pda_logf() held back (struct pda_log_hold). */
struct pda_held_log {
	uint64_t at;
	enum pd_log_level level;
	char *msg;
};

/*
 * The messages of a thread that resolves some binaries' first uses while
 * another resolves the others' (pda_session.c pda_first_replay): each
 * with at, the place of the first use it came at, so that both threads'
 * are said in the order one thread would have said them.
 */
struct pda_log_hold {
	uint64_t at; /* set by its thread before each first use */
	struct pda_held_log *v;
	size_t nr, alloc;
};

/* Hold the calling thread's messages in h (NULL: say them again); only
 * while threads are on.  false where it cannot (said at once then). */
bool pda_log_hold(struct pda_session *s, struct pda_log_hold *h);
/* Say the messages held in a and b, merged by at (a's first where
 * equal), and free them: on the session's thread, the holds ended. */
void pda_log_release(struct pda_session *s, struct pda_log_hold *a,
		     struct pda_log_hold *b);

/* Threads are about to unwind for s (on), or no longer do: on the
 * session's thread, with no other running. */
void pda_session_threads(struct pda_session *s, bool on);
/* Whether s allocates through the caller's hooks (pda_opts.alloc), which
 * only pda_session_threads() makes safe to call from several threads: a
 * thread started before it (the first pass's second half, kallsyms
 * parsed early) is not started then. */
bool pda_session_hooked(const struct pda_session *s);

/* pda_machine_at()'s last answer, holding its views. */
struct pda_at_cache {
	bool ok;
	uint32_t pid, tid, epoch;
	struct pda_at at;
};

/* What a shard view counted for one binary (pda_dso_ent's fields). */
struct pda_dso_count {
	uint64_t sample_seq, unres_seq;
	uint64_t nr_samples, nr_unresolved;
};

/*
 * What resolving a sample changes, sample by sample: the state one
 * thread's resolution owns.  The session's own, s->view, serves every
 * sample but a threaded second pass's shards' (pda_view_new).  Its
 * counters are pda_stats' (summed in by pda_session_stats); the caches
 * in front of s->addr_cache and the maps point into what the session
 * holds.
 */
struct pda_view {
	uint64_t sample_seq;
	uint64_t nr_samples;
	uint64_t nr_frames;
	uint64_t nr_frames_unresolved;
	uint64_t nr_samples_unresolved;
	/* while set, the binaries a sample's resolution counts are noted
	 * there too (pda_stack_int.h, the pipeline's memo) */
	struct pda_memo_rec *memo_rec;
	/* the state of the sample being resolved, when a two-pass run
	 * gives it one (pda_machine_at): its maps then, not now */
	const struct pda_at *at;
	struct pda_at_cache atc; /* pda_machine_at's, for this view */
	/* a shard view's counts by binary (pda_dso_ent.idx), added to the
	 * binaries' at pda_view_free; NULL: s->view, which counts in the
	 * binaries themselves */
	struct pda_dso_count *dc;
	size_t nr_dc;
	struct pda_session *s; /* a shard view's: dc's allocator */
	unsigned rank; /* its shard's place in the file (s->view: 0) */
	/* its waits for a shard before it (shard_turn), for -vv */
	uint64_t nr_waits, wait_ms;
	/* a count of dc could not be kept (no memory to grow it): the
	 * resolution that met it fails (view_count) */
	bool nomem;
	/* a shard view's error message: pda_set_err() on its thread
	 * (pda_view_enter) writes here, not in s->errmsg, which the other
	 * shards' threads write meanwhile */
	char errmsg[256];
	int errcode; /* the err errmsg was set with (pda_session_failure) */
	const struct addr_ent *addr_front[PDA_ADDR_FRONT]; /* addr_cache's */
	struct pda_ip_ent ip_front[PDA_IP_FRONT];
};

/*
 * A view for a shard of the second pass, resolving on a thread of its
 * own beside the others (between pda_session_shards(s, true) and
 * false), or NULL (NOMEM).  pda_view_free adds what it counted to the
 * session's (on the session's thread, the shards done).
 */
struct pda_view *pda_view_new(struct pda_session *s);
void pda_view_free(struct pda_session *s, struct pda_view *v);
/* Shard views resolve on several threads from now on (on), or no longer
 * do: resolving past the views' caches (symbol lookups, loads, the
 * machine's states) then takes s->shard_lock.  0 or NOMEM (off). */
int pda_session_shards(struct pda_session *s, bool on);
/*
 * A binary's first use (its load: files searched, debuginfod asked under
 * --debuginfod-max, warnings said; its symbols read) happens in the
 * file's order, as a run in one would have it: a shard view meeting an
 * unused binary waits until every shard before it is done
 * (pda_session_shard_done, called once its samples are all resolved).
 * Rank: the shard's place (0, s->view, never waits).
 */
void pda_view_rank(struct pda_view *v, unsigned rank);
/*
 * The calling thread resolves for shard view v from now on (a shard's
 * thread, between pda_session_shards(s, true) and false; elsewhere
 * nothing): pda_set_err() and pda_session_errmsg() on it use v's
 * message, so that shards failing at once keep each its own (the
 * failure may be set deep down where only s is known: a load, a state
 * of the machine).  The session's thread keeps s->errmsg.
 */
void pda_view_enter(struct pda_session *s, struct pda_view *v);
/* The message pda_set_err() left for v's thread (v NULL: the session's
 * thread). */
const char *pda_view_errmsg(const struct pda_session *s,
			    const struct pda_view *v);
void pda_session_shard_done(struct pda_session *s, unsigned rank);
/* Wait until every shard before rank is done (at once where shards are
 * not on threads): what a shard says in the file's order. */
void pda_session_shard_wait(struct pda_session *s, unsigned rank);

struct pda_session {
	struct pd_file *f;
	struct pda_opts opts; /* strings copied into the arena */
	struct pd_alloc alloc;
	char errmsg[256];
	int errcode; /* the err errmsg was set with (pda_session_failure) */
	struct pdc_arena arena;	  /* on alloc (pda_intern.c) */
	struct pdc_intern intern; /* on alloc: no header, no ids */
	/* demangled names by the mangled one (pda_session.c) */
	struct pdc_intern demangled;
	struct pda_machine machine;
	struct pda_dsos dsos;
	struct pdc_hash addr_cache; /* (dso, address) -> frames */
	struct pda_view view; /* the resolution's state (above) */
	bool shards_on;	      /* pda_session_shards */
	bool shards_mt;	      /* which turned mt on */
	/* the shard view of the calling thread (pda_view_enter), while
	 * shards_on: where its pda_set_err() writes */
	pthread_key_t view_key;
	pthread_mutex_t shard_lock;
	/* shards done (bit n: shard n, pda_session_shard_done) and the
	 * first not done, signalled on shard_turn */
	uint64_t shards_done;
	unsigned shard_low;
	pthread_cond_t shard_turn;
	struct pda_stats stats; /* its counters: view's, when asked */
	struct pda_missing_dso *missing;
	size_t missing_alloc;
	struct pda_missing_dso *unres; /* pda_stats.unresolved_dsos */
	size_t unres_alloc;
	struct pda_inline *inl; /* scratch for pda_elf_inlines */
	size_t inl_alloc;
	struct pda_unwinder *unwinder; /* pda_unwind.c */
	struct pda_cfi_store *cfi_store; /* pda_unwind_cfi.c */
	struct pda_mt mt;
	/* struct first_ent by (dso, address): pda_first_note()'s */
	struct pdc_hash first;
	struct first_ent **first_v; /* the same, in the order they came */
	size_t first_nr, first_alloc;
	/* direct-mapped in front of first: an ip in maps (while maps->gen
	 * is gen) to its entry; PDA_FIRST_FRONT of them, or NULL */
	struct first_front *first_front;
	/* their DWARF loaded ahead by the pipeline's workers, or NULL */
	struct pda_dwahead *dwahead;
	struct pda_dpkg_ahead *dpkg_ahead; /* pda_dpkg_ahead_start */
};

/* Whether this host's own files are looked at: always without symfs;
 * with it only when asked (pda_opts.host_files). */
static inline bool pda_host_files(const struct pda_session *s)
{
	return !s->dsos.symfs || s->opts.host_files;
}

#endif /* PDA_MACHINE_INT_H */
