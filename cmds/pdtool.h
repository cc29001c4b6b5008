/*
 * pdtool.h - what the subcommands share: the per-run context, the command
 * table entry, error reporting and opening a capture.  Private to cmds/.
 */
#ifndef PDTOOL_H
#define PDTOOL_H

#include "pd_config.h"
#include "pd.h"
#include "pda_filter.h"
#include "pde.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* E9 exit codes */
#define EXIT_UNRESOLVED 1
#define EXIT_FATAL 2
#define EXIT_USAGE 64

enum cmd_flags {
	CMD_NEEDS_INPUT = 1u << 0,
	CMD_NEEDS_DEBUGINFO = 1u << 1,
	/* the command's first operand starts a command line of its own:
	 * --help after it is that command's (pdtool record ls --help) */
	CMD_OPERAND_ENDS = 1u << 2,
};

/* debuginfod over a run, all its sessions (cmd_session.c): the limits
 * and what was used of them, and the summary's counts. */
struct cmd_fetch {
	unsigned max_queries;	/* the run's limits */
	uint64_t max_ms;
	unsigned nr_queries, nr_found, nr_failed, nr_stopped, nr_skipped;
	bool query_limit, time_limit;
	uint64_t bytes, ms;
	char urls[256];		/* DEBUGINFOD_URLS, cut */
	char cache[256];	/* where the files are, cut; "" none */
	bool shown;		/* a progress line is on the terminal */
	bool warned;		/* --debuginfod without DEBUGINFOD_URLS */
};

/* One run's state: no option globals (C2). */
#define CTX_MAX_INPUTS 64
#define CTX_MAX_OUTPUTS 4

struct pd_ctx {
	const char *cmd;	/* "info", for messages */
	int verbose;		/* -v count: raises the library's log level */
	bool strict;		/* --strict: unresolved or skipped -> exit 1 */
	unsigned nr_warnings;	/* library warnings printed */
	FILE *out;		/* stdout */
	/* bytes already read from standard input (to tell a capture from
	 * text), which ctx_open("-") hands the reader first: at most 16 */
	const unsigned char *stdin_head;
	size_t stdin_head_len;
	/* the files read (ctx_note_input), so that no -o writes over one */
	struct {
		dev_t dev;
		ino_t ino;
	} inputs[CTX_MAX_INPUTS];
	size_t nr_inputs;
	/* -o files being written: a temporary file beside each, renamed
	 * over it by ctx_close_output(), removed by die() */
	struct ctx_output {
		FILE *fp;
		char *path, *tmp; /* tmp NULL: written in place */
	} outputs[CTX_MAX_OUTPUTS];
	size_t nr_outputs;
	struct cmd_fetch fetch;	/* debuginfod, over the run's sessions */
	/* ctx_start_pager(): the pager's pid (0: none), and a copy of the
	 * terminal's stderr while stderr goes to the pager (-1: none) */
	pid_t pager_pid;
	int pager_stderr;
	/* archives extracted (cmd_archive.c): the temporary directory,
	 * removed at exit and by die(), its watcher's pipe, the trees made
	 * in it, the perf archive's tree (NULL: none) and the bundle the
	 * last input opened was (cmd_bundle.c; NULL: not a bundle) */
	char *archive_dir;
	int archive_watch;
	unsigned nr_trees;
	const char *perf_archive;
	const struct cmd_bundle *bundle;
	struct cmd_bundle *bundles; /* every bundle opened, freed by main */
};

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv, struct pd_ctx *ctx);
	unsigned flags;
	const char *usage;	/* the SYNOPSIS line(s) */
	const char *summary;	/* one line for `pdtool help` */
	const char *options;	/* the OPTIONS text of --help */
};

/*
 * cmd_pager.c: whether to colour standard output (a terminal, NO_COLOR
 * unset or empty); send standard output (and stderr when it is the same
 * terminal) to $PAGER when standard output is a terminal, as git does;
 * wait for the pager, which main(), die() and usage_error() do.
 */
bool ctx_use_color(void);
void ctx_start_pager(struct pd_ctx *ctx);
void ctx_end_pager(const struct pd_ctx *ctx);

/* "s" after a count of n things, but one: "%zu stack%s", PLURAL(n) */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* E8: print "pdtool CMD: msg" and exit 2 */
PD_NORETURN void die(const struct pd_ctx *ctx, const char *fmt, ...)
	PD_PRINTF(2, 3);
/* print "pdtool CMD: msg"; returns -1 */
int error(const struct pd_ctx *ctx, const char *fmt, ...) PD_PRINTF(2, 3);
/* print "pdtool CMD: warning: msg" */
void warning(struct pd_ctx *ctx, const char *fmt, ...) PD_PRINTF(2, 3);
/*
 * fprintf(stderr, fmt, ...) for messages that quote what a capture or a
 * binary holds (comms, paths, symbols, event names): the whole output
 * written through pde_text_str(), so such a string cannot reach the
 * terminal as an escape sequence or start a line; a newline that ends
 * fmt is written as one.  die(), error(), warning(), usage_error() and
 * ctx_log() write their messages the same way.
 */
void eprintf(const char *fmt, ...) PD_PRINTF(1, 2);
/* usage error: message, then the command's usage; exits 64 */
PD_NORETURN void usage_error(const struct pd_ctx *ctx, const char *fmt, ...)
	PD_PRINTF(2, 3);

/*
 * Option parsing (cmd_opts.c), for every command (C4): getopt_long over
 * the command's own options and the shared ones it asks for in flags,
 * which cmd_getopt() handles itself:
 *
 *	-i, --input FILE   CMD_OPT_INPUT: the input, as the FILE operand
 *	    --strict       CMD_OPT_STRICT: ctx->strict = true
 *	-v, --verbose      CMD_OPT_VERBOSE: ctx->verbose++ (repeatable)
 *
 * A missing value ("option '-i' needs a value"), an unknown option
 * ("unknown option '--bogus'") and, in cmd_opts_input(), a second input
 * ("more than one input file") or none ("no input file") are usage
 * errors: the message and the usage line on stderr, exit 64; with no
 * input given, ./perf.data is read when there is one.  Operands
 * and options may come in any order; "--" ends the options.  Long options
 * match exactly: getopt_long's abbreviations ("--jit" for "--jit-dir")
 * are unknown options, so that a new option never changes what an older
 * command line means (C3's rule for command names).
 *
 *	static const struct option longopts[] = {
 *		{"json", no_argument, NULL, OPT_JSON},
 *		{NULL, 0, NULL, 0},
 *	};
 *	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
 *			     .own_longopts = longopts};
 *	int c;
 *
 *	cmd_opts_start(&p, ctx, argc, argv);
 *	while ((c = cmd_getopt(&p)) != -1)
 *		if (c == OPT_JSON)
 *			json = true;
 *	path = cmd_opts_input(&p);
 *
 * A command with other operands (two inputs, say) reads them itself from
 * argv[optind..argc) once cmd_getopt() has returned -1, instead of
 * calling cmd_opts_input().  Not reentrant: getopt's state is global.
 */
enum cmd_opt_flags {
	CMD_OPT_INPUT = 1u << 0,
	CMD_OPT_STRICT = 1u << 1,
	CMD_OPT_VERBOSE = 1u << 2,
	/* options end at the first operand, as for `pdtool record CMD
	 * ARGS`: what follows is the operand's */
	CMD_OPT_STOP_AT_OPERAND = 1u << 3,
};
#define CMD_OPT_COMMON (CMD_OPT_INPUT | CMD_OPT_STRICT | CMD_OPT_VERBOSE)
#define CMD_OPTS_MAX 64 /* long options in all, shared ones included */
/* a command's own vals: a short option's letter, or 256 up to this */
#define CMD_OPT_VAL_MAX 0x7fff

struct cmd_opts {
	/* set by the command before cmd_opts_start() */
	unsigned flags;			   /* enum cmd_opt_flags */
	bool no_default;		   /* no CMD_DEFAULT_INPUT */
	const char *own_shortopts;	   /* as getopt's ("o:"), or NULL */
	const struct option *own_longopts; /* {NULL}-terminated, or NULL */
	const struct option *more_longopts; /* a second such table, or NULL */

	/* set by cmd_getopt() and cmd_opts_input() */
	const char *input;	  /* -i's value, then the FILE operand */
	const struct option *opt; /* the long option just returned (a copy
				   * of the table's entry), NULL after a
				   * short one */
	bool in_more;		  /* opt came from more_longopts */

	/* private */
	struct pd_ctx *ctx;
	int argc;
	char **argv;
	char shortopts[48];
	struct option longopts[CMD_OPTS_MAX + 1];
	size_t nr_longopts;
	size_t first_more; /* longopts[first_more..] are more_longopts' */
	bool seen[CMD_OPTS_MAX]; /* longopts[i] was given */
};

/* Start parsing argv (argv[0] is the command's name). */
void cmd_opts_start(struct cmd_opts *p, struct pd_ctx *ctx, int argc,
		    char **argv);
/* The next of the command's own options: its val (the value in optarg,
 * as getopt_long's), or -1 when the options end. */
int cmd_getopt(struct cmd_opts *p);
/* What a command reads when given no input, as perf does. */
#define CMD_DEFAULT_INPUT "perf.data"

/* After cmd_getopt()'s -1: the one input, from -i or the operand, else
 * CMD_DEFAULT_INPUT when it exists (unless no_default). */
const char *cmd_opts_input(struct cmd_opts *p);

/* The most --time ranges a list may hold. */
#define CMD_TIME_MAX 64
/*
 * perf's --time (perf_time__parse_for_ranges()): START,END in seconds
 * as perf prints them (either end may be empty: open), or a list of
 * them separated by blanks ("10.1,10.2 10.5,10.6", in order, apart);
 * or percentages of the time from the capture's first sample to its
 * last (HEADER_SAMPLE_TIME): PCT/N (the Nth slice of PCT percent) or
 * PCT-PCT, lists of either separated by commas ("10%/2,10%/3",
 * "0%-10%,30%-40%"), or one PCT (the first PCT).  A sample passes in
 * any of the ranges.
 */
struct cmd_time_range {
	size_t nr;			/* 0: no --time */
	struct pda_time_range r[CMD_TIME_MAX];
	/* a percent form: its text, until cmd_time_resolve() makes
	 * r[] of pct_lo[] and pct_hi[] (shares, 0 to 1) */
	const char *pct;
	double pct_lo[CMD_TIME_MAX], pct_hi[CMD_TIME_MAX];
};
/* --time's --help lines (cmd_parse_time()'s forms). */
#define CMD_TIME_HELP                                                        \
	"      --time RANGES     only samples in these time ranges, as perf:\n" \
	"                        START,END in seconds as perf prints them\n"  \
	"                        (either end may be empty), several\n"        \
	"                        separated by spaces ('1.1,1.2 1.5,1.6'); or\n" \
	"                        shares of the time from the first sample to\n" \
	"                        the last: PCT/N (the Nth slice of PCT\n"      \
	"                        percent), PCT-PCT, lists of either\n"        \
	"                        separated by commas (10%/1,10%/3 or\n"       \
	"                        0%-10%,30%-40%), or PCT (0 to PCT)\n"
/* arg into *t (the last --time counts, as perf's): a usage error naming
 * opt when it is not one of the forms above. */
void cmd_parse_time(const struct pd_ctx *ctx, const char *opt,
		    const char *arg, struct cmd_time_range *t);
/* A percent form's ranges in the capture f (path names it), as perf's
 * set_percent_time() makes them; nothing without one.  Must run before
 * t->r is read.  Dies when the capture has no first and last sample
 * times. */
void cmd_time_resolve(const struct pd_ctx *ctx, const char *path,
		      struct pd_file *f, struct cmd_time_range *t);
/* How much of the span [a, b) lies in the ranges (all of it without
 * --time). */
uint64_t cmd_time_overlap(const struct cmd_time_range *t, uint64_t a,
			  uint64_t b);
/* The span [*a, *b] cut to the ranges it meets: from its part in the
 * first one to its part in the last (the gaps between stay); @return
 * false when it meets none (left as it was). */
bool cmd_time_clip(const struct cmd_time_range *t, uint64_t *a,
		   uint64_t *b);
/* A comma-separated list of names split into names[0..max) and a NULL
 * after them, their copy kept in *buf (freed first); a usage error
 * naming opt when there is none or more than max. */
void cmd_parse_names(const struct pd_ctx *ctx, const char *opt,
		     const char *arg, char **buf, const char **names,
		     size_t max);
/* A comma-separated list of numbers (with ranges, "0-3,7" too) added to
 * out[nr..max): @return the new count; a usage error naming opt and what
 * ("pids") when arg is not one or holds too many. */
size_t cmd_parse_u32_list(const struct pd_ctx *ctx, const char *opt,
			  const char *what, const char *arg, uint32_t *out,
			  size_t nr, size_t max, bool ranges);
/* Whether v is one of the nr ids (a --pid, --tid or --cpu list). */
bool cmd_in_ids(const uint32_t *ids, size_t nr, uint32_t v);

/* --max-stack's argument: @return it, 1 to 2^20; else a usage error. */
unsigned cmd_max_stack(const struct pd_ctx *ctx, const char *arg);

/* The stderr logger for the libraries (arg: the pd_ctx): warnings go
 * through warning(), the rest as "pdtool CMD: msg". */
void ctx_log(void *arg, enum pd_log_level level, const char *msg);

/*
 * -o PATH: ctx->out for NULL or "-"; else a temporary file beside PATH
 * that ctx_close_output() renames over it once everything is written, so
 * a run that fails leaves what was at PATH as it was (a FIFO, a device
 * or a file in a directory pdtool cannot create files in is written in
 * place).  Dies when PATH is one of the inputs (ctx_note_input), at open
 * and again at close, or when it cannot be created.  ctx_close_output()
 * dies on a write error and leaves ctx->out to main (E10).
 */
FILE *ctx_open_output(struct pd_ctx *ctx, const char *path);
void ctx_close_output(struct pd_ctx *ctx, FILE *out, const char *path);
/* Remember path ("-": nothing) as an input, which no -o may name. */
void ctx_note_input(struct pd_ctx *ctx, const char *path);
/* What a pde_* writer returned (emit/pde.h): dies on PD_ERR_NOMEM and on
 * a write error other than a closed pipe, naming path ("stdout" for NULL
 * or "-"). */
void ctx_check_write(const struct pd_ctx *ctx, int rc, const char *path);

/* Open path ("-" = stdin) with the stderr logger; dies on failure. */
struct pd_file *ctx_open(struct pd_ctx *ctx, const char *path);
/* The same for a capture a session's run reads (more than once: a
 * pipe-mode stream on stdin is copied to a temporary file). */
struct pd_file *ctx_open_twice(struct pd_ctx *ctx, const char *path);

/* Whether a file's first n bytes (8 tell) make it a capture rather than
 * text: perf.data's magic in either byte order, version 1's, a zstd
 * frame, or gzip, xz or bzip2 (pdtool opens compressed captures). */
bool ctx_is_capture(const unsigned char *p, size_t n);

/*
 * Why an input whose first n bytes are p, not a capture, cannot be
 * folded text either, or NULL when it may be: folded text holds no NUL
 * byte (a capture whose magic is damaged does).
 */
const char *ctx_not_text(const unsigned char *p, size_t n);

/* Die, naming path, when line number lineno (1-based) of what is read as
 * folded text holds a NUL byte: the input is a file of another kind. */
void ctx_check_folded_line(const struct pd_ctx *ctx, const char *path,
			   const char *line, size_t len, uint64_t lineno);

/*
 * Inputs the reader cannot open as they are (cmd_input.c).
 *
 * cmd_input_open(): open path ("-": standard input, ctx->stdin_head's
 * bytes first) into *out as pd_file_open() would, and also: a file
 * compressed whole with gzip, xz or bzip2 (told by its magic, not its
 * name), and on standard input anything but a pipe-mode stream (a
 * file-mode capture, a compressed one), is inflated or copied with
 * cmd_input_spool() and opened from memory under its own name; with
 * twice (a session's run reads its capture more than once: pda_capture.h)
 * a pipe-mode stream on standard input too, said with -v.  Sets
 * opts->head and opts->name as it needs.  @return what the reader
 * returned; dies when the copy cannot be made or the stream is corrupt
 * (naming the file and the input offset).
 */
int cmd_input_open(struct pd_ctx *ctx, const char *path, bool twice,
		   struct pd_open_opts *opts, struct pd_file **out);
/* The name cmd_input_open() gives path's input in messages, as the
 * reader's: "<stdin>" for "-", else path. */
const char *cmd_input_name(const char *path);
/* "gzip", "xz" or "bzip2" when a file's first n bytes (8 tell) say it is
 * compressed so, else NULL. */
const char *cmd_input_packed(const unsigned char *p, size_t n);
/*
 * What fd holds after the head_len (at most 16) bytes read ahead, head,
 * inflated when compressed, in an unlinked file of $TMPDIR mapped
 * read-only: at most 16 GiB; a stream cut short is a warning and what
 * it held is kept.  @return the bytes, *len of them (NULL for 0), valid
 * until the process ends; dies on failure, naming name.
 */
const void *cmd_input_spool(struct pd_ctx *ctx, int fd, const char *name,
			    const unsigned char *head, size_t head_len,
			    size_t *len);
/*
 * n bytes at p written to fd at its offset, runs of zeros (4 KiB
 * blocks) skipped over as a hole: a bundle's stripped binaries are
 * mostly zeros where their code and data were.  The caller ftruncate()s
 * fd to its length at the end, for a hole there.  @return 0, or -1 with
 * errno.
 */
int cmd_write_holes(int fd, const unsigned char *p, size_t n);
/* cmd_input_spool() of a whole zstd stream (one frame or several), for
 * a bundle (cmd_bundle.c): a stream cut short or corrupt dies. */
const void *cmd_input_spool_zstd(struct pd_ctx *ctx, int fd, const char *name,
				 size_t *len);

/*
 * perf archive tarballs (cmd_archive.c): path, a tar compressed with
 * bzip2 (as perf archive writes it), xz or gzip, or not at all, is
 * extracted, the first time in a run, into a private directory of
 * $TMPDIR, safely (nothing outside it is written, whatever the tar
 * holds); a tar of `perf archive --all` is read through the archive it
 * holds.  opt ("--archive") names the option in messages.  @return the
 * directory, a build-id cache (valid until the process ends); dies when
 * path is not such a tarball, naming it and the member at fault.
 */
const char *cmd_archive_dir(struct pd_ctx *ctx, const char *path,
			    const char *opt);
/* A bundle's tar (len bytes at buf; name in messages) extracted as
 * cmd_archive_dir() does, every link refused: @return its directory. */
const char *cmd_archive_tree(struct pd_ctx *ctx, const void *buf, size_t len,
			     const char *name);
/*
 * pdtool's bundles (cmd_bundle.c).  cmd_bundle_probe(): 1 when the
 * regular file fd starts a zstd stream of a tar whose first member is a
 * bundle's MANIFEST, -1 when its zstd stream ends (undamaged) before
 * 512 bytes (cut short: neither a bundle nor a capture), else 0.  cmd_bundle_open(): the bundle path (fd) inflated
 * and extracted (cmd_archive_tree), its capture opened into *out as
 * cmd_input_open() does, and ctx->bundle set for cmd_pda_opts(), which
 * calls cmd_bundle_opts() to fill what the user left of --symfs,
 * --buildid-dir, --kallsyms and --jit-dir from the bundle's tree.
 */
struct cmd_bundle;
struct cmd_symopts;
struct pda_opts;
int cmd_bundle_probe(int fd);
int cmd_bundle_open(struct pd_ctx *ctx, int fd, const char *path,
		    struct pd_open_opts *opts, struct pd_file **out);
void cmd_bundle_opts(const struct pd_ctx *ctx, const struct cmd_symopts *o,
		     struct pda_opts *po);
/* Free ctx's bundles (their trees go with cmd_archive_cleanup()); main
 * calls it once the command returned. */
void cmd_bundle_release(struct pd_ctx *ctx);
int cmd_archive(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_archive_usage[], cmd_archive_summary[],
	cmd_archive_options[];
/* Remove what cmd_archive_dir() extracted: main and die() call it. */
void cmd_archive_cleanup(const struct pd_ctx *ctx);

/* --help for the current command; returns 0 */
int cmd_help_for(const struct pd_ctx *ctx, FILE *out);

/* ---- what the commands that resolve symbols share (cmd_session.c) -- */

struct pda_opts;

/* getopt_long values of the options that find binaries */
enum {
	CMD_OPT_SYMFS = 0x1000,
	CMD_OPT_BUILDID_DIR,
	CMD_OPT_KALLSYMS,
	CMD_OPT_VMLINUX,
	CMD_OPT_JIT_DIR,
	CMD_OPT_NO_DEMANGLE,
	CMD_OPT_UNWINDER,
	CMD_OPT_JOBS,
	CMD_OPT_HOST_FILES,
	CMD_OPT_HOST_KERNEL,
	CMD_OPT_NO_HOST_KERNEL,
	CMD_OPT_DEBUGINFOD,
	CMD_OPT_NO_DEBUGINFOD,
	CMD_OPT_DEBUGINFOD_MAX,
	CMD_OPT_DEBUGINFOD_TIME,
	CMD_OPT_ARCHIVE,
	CMD_OPT_ITRACE,
	CMD_OPT_SPE_EVENTS,
	CMD_OPT_SEARCH_PATH,
	CMD_OPT_SOURCE_DIR,
	CMD_OPT_PREFIX_MAP,
	CMD_OPT_HOST_SOURCES,
	CMD_OPT_NO_HOST_SOURCES,
};

#define CMD_SYMBOL_LONGOPTS                                                 \
	{"symfs", required_argument, NULL, CMD_OPT_SYMFS},                  \
	{"buildid-dir", required_argument, NULL, CMD_OPT_BUILDID_DIR},      \
	{"archive", required_argument, NULL, CMD_OPT_ARCHIVE},              \
	{"kallsyms", required_argument, NULL, CMD_OPT_KALLSYMS},            \
	{"vmlinux", required_argument, NULL, CMD_OPT_VMLINUX},              \
	{"jit-dir", required_argument, NULL, CMD_OPT_JIT_DIR},              \
	{"search-path", required_argument, NULL, CMD_OPT_SEARCH_PATH},      \
	{"no-demangle", no_argument, NULL, CMD_OPT_NO_DEMANGLE},            \
	{"host-files", no_argument, NULL, CMD_OPT_HOST_FILES},              \
	{"host-kernel", no_argument, NULL, CMD_OPT_HOST_KERNEL},            \
	{"no-host-kernel", no_argument, NULL, CMD_OPT_NO_HOST_KERNEL},      \
	{"debuginfod", no_argument, NULL, CMD_OPT_DEBUGINFOD},              \
	{"no-debuginfod", no_argument, NULL, CMD_OPT_NO_DEBUGINFOD},        \
	{"debuginfod-max", required_argument, NULL, CMD_OPT_DEBUGINFOD_MAX}, \
	{"debuginfod-time", required_argument, NULL, CMD_OPT_DEBUGINFOD_TIME}

/* --help's lines for the build-id cache, in every command that resolves
 * symbols (cmd_archive.c reads the tarballs) */
#define CMD_BUILDID_HELP                                                    \
	"      --buildid-dir DIR the build-id cache (default\n"             \
	"                        $PERF_BUILDID_DIR, else ~/.debug), or\n"  \
	"                        a perf archive tarball (as --archive)\n"   \
	"      --archive FILE    the build-id cache a tarball of perf\n"     \
	"                        archive holds (.tar.bz2, .tar.xz, ...),\n"  \
	"                        read as it is\n"

/* --help's lines for where binaries and kernel symbols are found, in
 * the commands that resolve stacks (CMD_SYMBOL_HELP's lines follow) */
#define CMD_FIND_HELP                                                       \
	"      --symfs DIR       look for binaries under DIR\n"              \
	CMD_BUILDID_HELP                                                    \
	"      --kallsyms FILE   kernel symbols: /proc/kallsyms of the\n"    \
	"                        recording host\n"                           \
	"      --vmlinux FILE    kernel symbols from a vmlinux\n"            \
	"      --jit-dir DIR     where perf-PID.map and jit-PID.dump files\n"   \
	"                        are (default /tmp)\n"                          \
	"      --search-path DIR binaries anywhere under DIR, by basename\n" \
	"                        and build-id (repeatable)\n"             \
	"      --no-demangle     C++, Rust and D names as they are\n"

/* --help's lines for the symbol options every such command shares, after
 * its own --symfs ... --no-demangle lines */
#define CMD_SYMBOL_HELP                                                     \
	"      --host-files      with --symfs, read this host's files too:\n" \
	"                        the recorded paths (checked by build-id),\n"  \
	"                        ~/.debug, /usr/lib/debug and /tmp\n"      \
	"      --host-kernel     this host's kernel symbols (/proc/kallsyms)\n"\
	"                        and vdso for a capture of its kernel (same\n"\
	"                        build-id) recorded on another host too\n"    \
	"      --no-host-kernel  never this host's kernel symbols or vdso\n"  \
	"                        (default for a capture of another host, and\n"\
	"                        with --symfs, --kallsyms or --vmlinux)\n"  \
	"      --debuginfod      ask the servers of DEBUGINFOD_URLS for the\n"\
	"                        binaries not found (sends their build-ids;\n"\
	"                        the default when it is set, but not with\n"  \
	"                        --symfs)\n"                                   \
	"      --no-debuginfod   never ask debuginfod\n"                       \
	"      --debuginfod-max N  at most N queries a run (default 64)\n"    \
	"      --debuginfod-time S at most S seconds in queries a run\n"      \
	"                        (default 60)\n"

/* Where binaries and kernel symbols are found: the help lines of the
 * commands that take CMD_SYMBOL_LONGOPTS and name symbols. */
#define CMD_SYMFILES_HELP CMD_FIND_HELP CMD_SYMBOL_HELP

/* --unwinder NAME, for the commands that resolve DWARF user stacks */
#define CMD_UNWINDER_LONGOPT                                                \
	{"unwinder", required_argument, NULL, CMD_OPT_UNWINDER}
#define CMD_UNWINDER_HELP                                                   \
	"      --unwinder NAME   how DWARF user stacks (--call-graph dwarf)\n" \
	"                        are unwound: libdw (the default, any\n"        \
	"                        architecture) or libunwind (x86_64 only)\n"
/* --unwinder's argument: @return it when it names an unwinder; else a
 * usage error. */
const char *cmd_unwinder(const struct pd_ctx *ctx, const char *arg);

/* -j/--jobs N, for the commands that unwind DWARF user stacks (the
 * command takes 'j' among its short options) */
#define CMD_JOBS_LONGOPT {"jobs", required_argument, NULL, CMD_OPT_JOBS}
#define CMD_JOBS_HELP                                                       \
	"  -j, --jobs N          unwind DWARF user stacks on N threads, and\n" \
	"                        fill the stack table on a thread of its\n"  \
	"                        own when N > 1 (default: the online CPUs;\n" \
	"                        1: no other thread); the output is the\n"   \
	"                        same for any N\n"
/* --jobs's argument: @return it, 1 to PDA_PIPE_MAX_JOBS; else a usage
 * error. */
unsigned cmd_jobs(const struct pd_ctx *ctx, const char *arg);
/* Whether jobs (0: the online CPUs) leave a thread for fold's stack
 * table (pda_fold_opts.threaded). */
bool cmd_jobs_fold_thread(unsigned jobs);

/* --itrace[=LETTERS]: samples synthesized from an Arm SPE trace
 * (pda_itrace.h), in the commands that read samples */
#define CMD_ITRACE_LONGOPT                                                  \
	{"itrace", optional_argument, NULL, CMD_OPT_ITRACE},                 \
	{"spe-events", required_argument, NULL, CMD_OPT_SPE_EVENTS}
#define CMD_ITRACE_HELP                                                     \
	"      --itrace[=LETTERS] the samples of an Arm SPE trace, as perf\n"  \
	"                        6.1 synthesizes them: f l1d-miss and\n"     \
	"                        l1d-access, m llc-miss and llc-access, t\n" \
	"                        tlb-miss and tlb-access, b branch-miss, a\n"\
	"                        remote-access, M memory, iNi instructions\n"\
	"                        every N records (without LETTERS: bfmtaM,\n"\
	"                        also perf's default)\n"                      \
	"      --spe-events SET  6.1 (the default) or 7: perf 7's events:\n" \
	"                        b branch (every branch, addr its target),\n"\
	"                        instructions addr the branch target, iNi\n" \
	"                        every Nth record for every kind, the\n"     \
	"                        default bfmtaMi1i, lN branch stacks of N\n" \
	"                        entries on branch and instructions\n"      \
	"                        samples, flags on them\n"
struct pda_itrace_opts;
/* --itrace's argument (c CMD_OPT_ITRACE; NULL: perf's default set) or
 * --spe-events' (c CMD_OPT_SPE_EVENTS) into *o; else a usage error. */
void cmd_itrace(const struct pd_ctx *ctx, int c, const char *arg,
		struct pda_itrace_opts *o);

/* --search-path given at most this often */
#define CMD_SEARCH_PATHS_MAX 32

struct cmd_symopts {
	const char *symfs, *buildid_dir, *kallsyms, *vmlinux, *jit_dir;
	const char *archive;	 /* --archive: a perf archive tarball */
	const char *search_paths[CMD_SEARCH_PATHS_MAX]; /* --search-path */
	size_t nr_search_paths;
	bool no_demangle;
	bool host_files;
	int host_kernel; /* --host-kernel 1, --no-host-kernel -1, else 0 */
	int debuginfod;	 /* --debuginfod 1, --no-debuginfod -1, else 0 */
	unsigned debuginfod_max; /* queries; 0: the default */
	unsigned debuginfod_ms;	 /* 0: the default */
};

/* Take getopt's c when it is one of CMD_SYMBOL_LONGOPTS: true if so (a
 * bad value is a usage error). */
bool cmd_symopt(const struct pd_ctx *ctx, struct cmd_symopts *o, int c,
		const char *arg);
/* Whether any of them was given. */
bool cmd_symopts_given(const struct cmd_symopts *o);
/* Fill po's symbol fields, logger and log level from o and ctx; its
 * debuginfod limits are what the run's earlier sessions left of them
 * (ctx->fetch). */
void cmd_pda_opts(struct pd_ctx *ctx, const struct cmd_symopts *o,
		  struct pda_opts *po);

/* ---- where source files are read (cmd_source.c): annotate, script's
 * srccode ---------------------------------------------------------------- */

#define CMD_SOURCE_LONGOPTS                                                 \
	{"source-dir", required_argument, NULL, CMD_OPT_SOURCE_DIR},        \
	{"prefix-map", required_argument, NULL, CMD_OPT_PREFIX_MAP},        \
	{"host-sources", no_argument, NULL, CMD_OPT_HOST_SOURCES},          \
	{"no-host-sources", no_argument, NULL, CMD_OPT_NO_HOST_SOURCES}

#define CMD_SOURCE_HELP                                                     \
	"      --source-dir DIR  look for source files under DIR too\n"      \
	"                        (repeatable; '/' reads any path)\n"         \
	"      --prefix-map OLD=NEW\n"                                       \
	"                        read source paths starting with OLD under\n"\
	"                        NEW (repeatable; the first that applies\n"  \
	"                        wins)\n"                                     \
	"      --host-sources    read source files at the paths the\n"       \
	"                        binaries name, on this host (the default\n" \
	"                        only for a capture from this host, without\n"\
	"                        --symfs)\n"                                  \
	"      --no-host-sources never: only under --symfs, --source-dir\n"  \
	"                        and --prefix-map\n"

#define CMD_SOURCE_MAX 256 /* --source-dir, --prefix-map each */

struct cmd_srcopts {
	const char *dirs[CMD_SOURCE_MAX], *maps[CMD_SOURCE_MAX];
	size_t nr_dirs, nr_maps;
	int host; /* --host-sources 1, --no-host-sources -1, else 0 */
};

/* Take getopt's c when it is one of CMD_SOURCE_LONGOPTS: true if so (a
 * bad value is a usage error). */
bool cmd_source_opt(const struct pd_ctx *ctx, struct cmd_srcopts *o, int c,
		    const char *arg);
struct pda_annot_opts;
/* Fill ao's source fields from o. */
void cmd_source_annot_opts(const struct cmd_srcopts *o,
			   struct pda_annot_opts *ao);
/* Once, after the command's summary: how many source files (nr) were not
 * read because their paths are this host's and the user did not allow
 * them, why, and what allows them. */
void cmd_source_withheld(const struct pd_ctx *ctx, const struct cmd_srcopts *o,
			 const struct cmd_symopts *sym, size_t nr);

struct pda_fetch_stats;
/* Add a session's debuginfod record to the run's (before the session is
 * freed): with -v, each file fetched is listed. */
void cmd_fetch_add(struct pd_ctx *ctx, const struct pda_fetch_stats *st);
/* The run's debuginfod line on stderr, when anything was asked or left
 * unasked: queries, files fetched and where, limits reached. */
void cmd_fetch_summary(struct pd_ctx *ctx);

struct pda_stats;
/*
 * The "unresolved frames by binary" block on stderr (issue 13 item 6):
 * one line per binary with unresolved frames, most first, with its share
 * of nr_samples, why and what would resolve it; the first 5 unless -v.
 * label ("A: 'a.data'") names the capture when a run reads several.
 * Nothing when every frame resolved.
 */
void cmd_unresolved_block(struct pd_ctx *ctx, const struct pda_stats *ps,
			  uint64_t nr_samples, const char *label);

struct pda_capture;

/*
 * After a capture run (cmd_kind.c) that read nr_samples samples, with
 * st the reader's record counts: die (exit 2) when there were none in a
 * capture pdtool reads no samples from, saying what it holds and what
 * reads it (an AUX-area trace: perf inject --itrace; perf stat record's
 * counters: pdtool stat); warn when an AUX-area trace
 * sits beside samples, since it is not decoded.
 */
void cmd_check_kind(struct pd_ctx *ctx, const char *path, struct pd_file *f,
		    const struct pd_reader_stats *st, uint64_t nr_samples);
struct pda_itrace;
/* The same for a run that synthesized samples from the capture's trace
 * (pda_capture_itrace(): it, NULL without), which it does not warn of. */
void cmd_check_kind_synth(struct pd_ctx *ctx, const char *path,
			  struct pd_file *f, const struct pd_reader_stats *st,
			  uint64_t nr_samples, const struct pda_itrace *it);

/*
 * die() after a capture run (pda_capture_init or _run) failed with rc:
 * "'PATH': why" when reading or the session failed, "why" alone when a
 * callback failed or memory ran out.
 */
PD_NORETURN void cmd_capture_die(const struct pd_ctx *ctx, const char *path,
				 const struct pda_capture *c, int rc);

struct pda_branch;
struct pda_session;

/* A tracepoint sample's text as perf prints it (cmd_trace.c): its
 * event's print fmt over the raw bytes, %ps/%pS named by the kernel's
 * symbols through *br (made from session on first use, shared with
 * the caller).  Set ctx, f, path (for the warning when the formats do
 * not parse), session and br; the rest starts zeroed. */
struct cmd_trace {
	struct pd_ctx *ctx;
	struct pd_file *f;
	const char *path;
	struct pda_session *session;
	struct pda_branch **br;
	struct pd_tracing *tracing;	/* read at the first call */
	bool read;
	char *buf;			/* the last text */
	size_t cap;
};

/* Sample s's text into *text (valid until the next call) and *len;
 * *text NULL without raw bytes or the event's format (perf prints
 * nothing then).  comm: the sample's thread's.  0 or a negative
 * pd_err. */
int cmd_trace_text(struct cmd_trace *t, const struct pd_sample *s,
		   const char *comm, const char **text, size_t *len);
void cmd_trace_release(struct cmd_trace *t);

struct pda_capture_stats;
/*
 * A run's exit status: EXIT_UNRESOLVED under --strict when the capture
 * run (cs) lost, skipped or found damaged anything, the session (ps, may
 * be NULL) left binaries or frames unresolved, or a warning was printed;
 * else 0.
 */
int cmd_strict_status(const struct pd_ctx *ctx,
		      const struct pda_capture_stats *cs,
		      const struct pda_stats *ps);

enum pda_capture_skip;
/*
 * A capture's skip_fn's message: the first sample that does not decode
 * and the first stack that does not resolve get a warning naming path;
 * the rest are counted by the run's statistics.
 */
struct pda_parallel;
struct pda_pipe_when;
/*
 * The workload's parallelism at a sample's time when (--latency,
 * --weight latency), in *level.  @return 0, or a negative pd_err that
 * stops capture run c: a system-wide capture (its CPU-wide switches are
 * not the workload's) is refused with the reason, as perf refuses it.
 */
int cmd_parallel_level(struct pda_capture *c, struct pda_parallel *par,
		       const struct pda_pipe_when *when, unsigned *level);
/*
 * The processes of capture f (path) that a COMM record names one of comms
 * (NULL-terminated), in the order they are first named: at most max pids
 * into pids.  @return how many.
 */
size_t cmd_comm_pids(struct pd_ctx *ctx, const char *path, struct pd_file *f,
		     const char *const *comms, uint32_t *pids, size_t max);
/*
 * A pipe-mode capture's events, feature and tracing data come as records
 * in its stream: read them (the records before the first sample) into f,
 * so that what a run needs to know of its events before it starts
 * (switch records asked for, the sched_switch tracepoint's format) is
 * known as from a file's header.  Nothing on a file-mode capture.
 */
void cmd_pipe_prologue(struct pd_ctx *ctx, const char *path,
		       struct pd_file *f);
/*
 * Latency or parallelism asked of capture f (path): its parallelism to
 * note the switch records into (pda_parallel_note from the capture's
 * order_fn); exits when f has no switch records, saying how to record
 * them, as perf refuses.  With exactly one of pids (the command's
 * process filter), a system-wide capture's parallelism is that
 * process's (pda_parallel_set_pid()); without, cmd_parallel_level()
 * refuses one.  Free with pda_parallel_free().
 */
struct pda_parallel *cmd_parallel_new(struct pd_ctx *ctx, const char *path,
				      struct pd_file *f, const uint32_t *pids,
				      size_t nr_pids);
/* After pda_capture_init(): exits unless c reads its capture twice (the
 * switch records in time order first): not a pipe. */
void cmd_parallel_two_pass(struct pd_ctx *ctx, const char *path,
			   const struct pda_capture *c);
struct pda_offcpu;
/* Off-CPU time asked of capture f (path): its waits to note the switch
 * records (and sched:sched_switch samples) into; exits when f has
 * neither, saying how to record them, or when its tracing data is
 * damaged.  Free with pda_offcpu_free(). */
struct pda_offcpu *cmd_offcpu_new(struct pd_ctx *ctx, const char *path,
				  struct pd_file *f);
/* After pda_offcpu_finish(): a warning for sched_switch samples that did
 * not decode, and for switch-outs without a switch-in when they are more
 * than the waits counted (a per-thread sched_switch capture without
 * switch records sees no switch-in of its threads). */
void cmd_offcpu_warn(struct pd_ctx *ctx, const char *path,
		     const struct pda_offcpu *oc);
/* A record of a two-pass run's first pass noted in par and oc (either
 * NULL): a capture_order_fn's body.  @return as pda_parallel_note(),
 * pda_offcpu_note(). */
int cmd_switch_note(struct pda_parallel *par, struct pda_offcpu *oc,
		    struct pd_file *f, const struct pd_rec *rec,
		    const struct pda_pipe_when *when);
/* Whether v is one of list[0..nr), or nr is 0 (no list: any). */
bool cmd_u32_wanted(const uint32_t *list, size_t nr, uint32_t v);
struct pda_pipe_item;
/* --weight latency: the item's sample with its period replaced by its
 * latency (perf >= 6.15's period * 1000 / parallelism), in *copy, for a
 * profile that weighs periods.  @return as cmd_parallel_level(). */
int cmd_latency_sample(struct pda_capture *c, struct pda_parallel *par,
		       const struct pda_pipe_item *it, struct pd_sample *copy);

struct pda_datatype;
/* On stderr: how many samples have a data type, and why the others
 * have none, as perf annotate --type-stat counts them. */
void cmd_type_coverage(struct pd_ctx *ctx, const struct pda_datatype *dt);

struct pda_report;
struct pda_ratio;
/* The counter ratios the capture's sampled events allow (IPC, miss
 * rates: pda_metrics_ratios()), at most PDA_RATIOS_MAX into out, the
 * events indexed as rep's members.  @return how many. */
size_t cmd_capture_ratios(struct pd_file *f, const struct pda_report *rep,
			  struct pda_ratio *out);

void cmd_capture_skip_warn(struct pd_ctx *ctx, const struct pda_capture *c,
			   const char *path, enum pda_capture_skip what,
			   const char *why);

/*
 * The options of the commands that resolve stacks (--unwinder, -j and
 * --jobs, the symbol options), for the val c getopt_long returned: each
 * sets its own of unwinder, jobs and sym; any other val is the symbol
 * options' (cmd_symopt()).
 */
void cmd_stack_opt(const struct pd_ctx *ctx, int c, const char *arg,
		   struct cmd_symopts *sym, const char **unwinder,
		   unsigned *jobs);

struct pda_capture_progress;

/* A progress line on a terminal (stderr) for long reads. */
struct cmd_progress {
	struct pd_ctx *ctx;
	bool on;
	double start, last; /* seconds, CLOCK_MONOTONIC */
	bool shown;
};

void cmd_progress_init(struct cmd_progress *p, struct pd_ctx *ctx);
/* Called every few thousand records: a line after a second of work,
 * redrawn four times a second; done of total bytes (total 0: unknown). */
void cmd_progress_show(struct cmd_progress *p, uint64_t done, uint64_t total,
		       uint64_t samples);
/* The line for a capture run, as a pda_capture_progress_fn (arg: the
 * cmd_progress): its pass, the share of all passes done and the time
 * left at this pace.  @return 0. */
int cmd_progress_fn(void *arg, const struct pda_capture_progress *prog);
void cmd_progress_end(struct cmd_progress *p);

/* The commands, one file each. */
int cmd_annotate(int argc, char **argv, struct pd_ctx *ctx);
int cmd_types(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_types_usage[], cmd_types_summary[],
	cmd_types_options[];

/*
 * pdtool types's run (cmd_types.c), which annotate --data-type is too:
 * the capture's data types written as the options say.  The arrays are
 * borrowed; names lists NULL-terminated, NULL: no such filter.
 * @return the exit status.
 */
struct cmd_types_opts {
	const char *path, *output;
	const char *type_name;	/* only this type; NULL: every type */
	const char *event;	/* --event; NULL: every event */
	enum pde_annot_format format; /* text, md or json */
	bool csv;		/* --format csv */
	bool stdio, no_pager, cacheline;
	bool summary;		/* each event's types and shares first
				 * (types; not annotate --data-type) */
	const char *const *comms, *const *dsos, *const *symbols;
	const uint32_t *pids, *tids, *cpus;
	size_t nr_pids, nr_tids, nr_cpus;
	struct cmd_time_range time;
	const struct cmd_symopts *sym;
	const struct pda_itrace_opts *itrace;
};
int cmd_types_run(struct pd_ctx *ctx, struct cmd_types_opts *o);
int cmd_mem(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_mem_usage[], cmd_mem_summary[], cmd_mem_options[];
int cmd_branches(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_branches_usage[], cmd_branches_summary[],
	cmd_branches_options[];
extern const char cmd_annotate_usage[], cmd_annotate_summary[],
	cmd_annotate_options[];
int cmd_diff(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_diff_usage[], cmd_diff_summary[], cmd_diff_options[];
int cmd_dump(int argc, char **argv, struct pd_ctx *ctx);
int cmd_flame(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_flame_usage[], cmd_flame_summary[],
	cmd_flame_options[];
int cmd_fold(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_fold_usage[], cmd_fold_summary[], cmd_fold_options[];

/*
 * pdtool fold's options that choose and name a capture's samples
 * (cmd_fold.c, {NULL}-terminated, CMD_SYMBOL_LONGOPTS among them): pdtool
 * flame takes them as well, as its more_longopts, and passes them on to
 * the fold it runs on a capture.
 */
extern const struct option cmd_fold_sample_options[];

/*
 * A capture folded by pdtool fold's own code into a structured profile,
 * for pdtool flame (cmd_fold.c): make the options, give each of
 * cmd_fold_sample_options (and 'j') with cmd_fold_opt() as getopt_long
 * returned it (arg must outlive the options), then cmd_fold_profile()
 * folds path ("-": standard input) as `pdtool fold` with those options
 * would, printing fold's messages, and hands back the profile
 * (pda_fold_profile()'s, freed by the caller) instead of writing it.
 * Errors exit as fold's do.  @return fold's exit status.
 */
struct fold_opts;
struct pda_profile;
struct fold_opts *cmd_fold_opts_new(const struct pd_ctx *ctx);
void cmd_fold_opts_free(struct fold_opts *o);
void cmd_fold_opt(struct pd_ctx *ctx, struct fold_opts *o, int c,
		  const char *arg);
int cmd_fold_profile(struct pd_ctx *ctx, struct fold_opts *o,
		     const char *path, struct pda_profile **out);
int cmd_info(int argc, char **argv, struct pd_ctx *ctx);
int cmd_export(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_export_usage[], cmd_export_summary[],
	cmd_export_options[];
int cmd_timeline(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_timeline_usage[], cmd_timeline_summary[],
	cmd_timeline_options[];
int cmd_report(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_report_usage[], cmd_report_summary[],
	cmd_report_options[];
/*
 * `pdtool report --format md|json -o DIR` (cmd_report_doc.c): the
 * profile report of capture path, with the --stat captures, into
 * DIR/report.md (report.json) and DIR/flame.svg.  stack_args: the
 * symbol, unwinder, -j and --itrace options as getopt_long returned
 * them, for the flame graph's fold.  @return the exit status.
 */
struct cmd_report_doc {
	const char *path, *dir;
	const char *const *stat_paths;
	size_t nr_stat;
	unsigned top;
	bool json;
	const struct cmd_symopts *sym;
	const char *unwinder;
	unsigned jobs;
	const struct pda_itrace_opts *itrace; /* --itrace */
	const struct cmd_report_doc_arg {
		int c;
		const char *arg;
	} *stack_args;
	size_t nr_stack_args;
};
int cmd_report_doc(struct pd_ctx *ctx, const struct cmd_report_doc *a);
/*
 * `pdtool report --branch-stack` (cmd_report_branch.c): perf's branch
 * mode of capture path, sort the --sort text (NULL: perf's default),
 * into output (NULL: stdout).  @return the exit status.
 */
struct cmd_report_branch {
	struct pd_file *f; /* opened already (closed here), or NULL */
	const char *path, *output, *sort;
	float percent_limit;
	const struct cmd_symopts *sym;
	int format;	/* 0 text, 1 md, 2 json, 3 csv */
	/* perf's sample filters: NULL-terminated lists (NULL: any), ids */
	const char *const *comms, *const *dsos, *const *symbols;
	const uint32_t *pids, *tids, *cpus;
	size_t nr_pids, nr_tids, nr_cpus;
	const struct cmd_time_range *time;
	const char *time_arg; /* --time's text, NULL: none */
	bool total_cycles; /* perf's block view (--total-cycles) */
	/* perf's group view: --group (every event in one table unless the
	 * capture recorded groups), --no-group (a table per event); by
	 * default the recorded groups side by side */
	bool group, no_group;
	/* text: perf's per-thread counts after the report (-T), in its
	 * raw style (--pretty raw) */
	bool threads, threads_raw;
};
int cmd_report_branch(struct pd_ctx *ctx, const struct cmd_report_branch *a);
/*
 * `pdtool report -T` (cmd_report_threads.c): perf report's table of the
 * per-thread counts of capture f's READ records (perf record -s), in
 * perf's raw style with raw, written to out.  Dies on failure.
 */
void cmd_report_threads(struct pd_ctx *ctx, const char *path,
			struct pd_file *f, FILE *out, bool raw);
/*
 * `pdtool diff` of perf stat record captures (cmd_diff_stat.c): whether
 * path is one (its STAT feature), and each side's runs compared, the
 * table (or with json its JSON) written to output (NULL: stdout).
 * @return the exit status.
 */
bool cmd_is_stat_capture(struct pd_ctx *ctx, const char *path);
int cmd_diff_stat(struct pd_ctx *ctx, const char *const *const paths[2],
		  const unsigned nr[2], const char *output, bool json);
int cmd_script(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_script_usage[], cmd_script_summary[],
	cmd_script_options[];
int cmd_record(int argc, char **argv, struct pd_ctx *ctx);
extern const char cmd_record_usage[], cmd_record_summary[],
	cmd_record_options[];

extern const char cmd_dump_usage[], cmd_dump_summary[], cmd_dump_options[];
extern const char cmd_info_usage[], cmd_info_summary[], cmd_info_options[];
int cmd_stat(int argc, char **argv, struct pd_ctx *ctx);
/* Read perf stat record capture f (path for messages) into s, as
 * `pdtool stat` does; dies on a bad record.  @return whether the reader
 * found damage. */
struct pda_stat;
bool cmd_stat_read(struct pd_ctx *ctx, struct pda_stat *s, struct pd_file *f,
		   const char *path);
/* Captures paths[0..nr) read as the runs of one command, with the
 * aggregation they were recorded with; the first one, which the report
 * points into, open in *first (close it after the report).  Dies on
 * failure; warns of the reading's warnings. */
struct pda_stat *cmd_stat_read_runs(struct pd_ctx *ctx,
				    const char *const *paths, size_t nr,
				    struct pd_file **first);
extern const char cmd_stat_usage[], cmd_stat_summary[], cmd_stat_options[];

#endif /* PDTOOL_H */
