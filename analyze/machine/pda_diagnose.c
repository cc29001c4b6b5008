/*
 * pda_diagnose.c - why a binary's frames are [unknown], and what the
 * user can do about it (issue 13 item 6).
 *
 * The reason comes from what the lookup of pda_dso.c (and pda_kallsyms.c,
 * pda_jit.c, pda_debuginfod.c) left on the DSO: its state, why, tried
 * paths, the build-id mismatches, a failed debuginfod query, the kallsyms
 * check; for a binary that was found, whether it has a symbol table.
 * The action says only what is sure from here: the package that holds a
 * binary is known only for a capture of this host whose file was read at
 * the recorded path; for another host's binary the user is told how to
 * ask its host (`dpkg -S`, `rpm -qf`), never a guessed package name.
 */
#include "pda_machine_int.h"
#include "pdc_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DPKG_INFO "/var/lib/dpkg/info"
#define DPKG_LISTS_MAX 20000 /* .list files read for one lookup */
#define DPKG_LIST_MAX ((uint64_t)64 << 20) /* bytes of one, at most */

static const char *const reason_names[] = {
	[PDA_UNRES_NOT_FOUND] = "not found",
	[PDA_UNRES_BUILD_ID] = "build-id mismatch",
	[PDA_UNRES_DEBUGINFOD] = "debuginfod error",
	[PDA_UNRES_STRIPPED] = "stripped",
	[PDA_UNRES_NO_SYMBOL] = "address outside every symbol",
	[PDA_UNRES_KALLSYMS] = "kallsyms of another kernel",
};

const char *pda_unres_reason_name(enum pda_unres_reason r)
{
	return (unsigned)r < sizeof(reason_names) / sizeof(reason_names[0])
		       ? reason_names[r]
		       : "?";
}

/* Whether text has, at [at, at + n) of its len bytes, a line of its
 * own, or one that is "/usr" and it when usr (merged /usr). */
static bool line_at(const char *text, size_t len, size_t at, size_t n,
		    bool usr)
{
	if (at + n != len && text[at + n] != '\n')
		return false;
	if (at == 0 || text[at - 1] == '\n')
		return true;
	return usr && at >= 4 && !memcmp(text + at - 4, "/usr", 4) &&
	       (at == 4 || text[at - 5] == '\n');
}

/*
 * Whether text (len bytes) has line (n bytes, no newline) as a line of
 * its own, or, when usr, "/usr" and line: a binary mapped from /usr/bin
 * is listed under /bin with merged /usr, and one search finds either.
 * Horspool's search for line, its line ends checked where it matches: a
 * lookup reads hundreds of dpkg's lists, megabytes in all, and this
 * skips most bytes (a path is tens of them) where strstr looked at each.
 */
static bool has_line(const char *text, size_t len, const char *line, size_t n,
		     bool usr)
{
	size_t skip[256], i;

	if (!n || n > len)
		return false;
	for (i = 0; i < 256; i++)
		skip[i] = n;
	for (i = 0; i + 1 < n; i++)
		skip[(unsigned char)line[i]] = n - 1 - i;
	for (i = 0; i + n <= len;) {
		const char *p = text + i;

		if (p[n - 1] == line[n - 1] && !memcmp(p, line, n - 1) &&
		    line_at(text, len, i, n, usr))
			return true;
		i += skip[(unsigned char)p[n - 1]];
	}
	return false;
}

/* A list up to this size is read into dpkg_scan's buffer, not mapped:
 * nearly all are (1,016 of 1,030 lists on this host), and each munmap
 * of a mapping flushes the TLBs of every CPU the process runs on (an
 * IPI to each; in a VM, an exit): the lists' munmaps were ~1,000 of a
 * DWARF fold's ~3,500 IPIs, taken from the thread unwinding beside. */
#define DPKG_LIST_READ ((size_t)64 << 10)

/*
 * The .list file at path, whole (*len its bytes), or NULL: searched at
 * once (has_line), as a lookup reads hundreds of these files (a
 * package's list is thousands of lines), and line-by-line reading was
 * most of a DWARF fold's end on a host with many packages.  Up to
 * DPKG_LIST_READ bytes, read into buf (*mapped false); larger, mapped
 * (*mapped true: munmap it): a list can be megabytes, and read into
 * memory of its own it would add that much to the run's peak while the
 * lists are read beside the second pass (pda_dpkg_ahead_start).
 */
static char *list_open(const char *path, char *buf, size_t *len,
		       bool *mapped)
{
	struct stat st;
	void *text;
	size_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    (uint64_t)st.st_size > DPKG_LIST_MAX) {
		close(fd);
		return NULL;
	}
	*len = (size_t)st.st_size;
	*mapped = *len > DPKG_LIST_READ;
	if (*mapped) {
		text = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		return text == MAP_FAILED ? NULL : text;
	}
	got = pdc_read_up_to(fd, buf, *len);
	close(fd);
	/* a list that shrank under us: what was read */
	*len = got;
	return got ? buf : NULL;
}

/*
 * The dpkg packages holding files[0..nr) on this host ("gzip",
 * "libc6:amd64"), into pkgs[i] (malloc'd; left NULL: none or no memory),
 * each the first .list in the directory's order that names it, as if
 * each were looked up alone (DPKG_LISTS_MAX lists at most); one read of
 * each list serves them all.  With merged /usr a binary mapped from
 * /usr/bin is listed under /bin, so both are looked for.  Touches no
 * session state: runs on a thread of its own (pda_dpkg_ahead_start).
 */
static void dpkg_scan(const char *const *files, size_t nr, char **pkgs)
{
	char path[PDA_PATH_MAX];
	struct dirent *de;
	size_t left = nr;
	unsigned nr_lists = 0;
	bool oom = false;
	char *buf;
	DIR *dir = opendir(DPKG_INFO);

	if (!dir)
		return;
	buf = malloc(DPKG_LIST_READ);
	if (!buf) {
		closedir(dir);
		return;
	}
	while (left && !oom && nr_lists < DPKG_LISTS_MAX && (de = readdir(dir))) {
		size_t len = strlen(de->d_name), tlen;
		bool mapped;
		char *text;

		if (len <= 5 || strcmp(de->d_name + len - 5, ".list") != 0)
			continue;
		nr_lists++;
		if (!pda_pathf(path, "%s/%s", DPKG_INFO, de->d_name) ||
		    !(text = list_open(path, buf, &tlen, &mapped)))
			continue;
		for (size_t i = 0; i < nr; i++) {
			/* /usr/bin/x: "/bin/x" on a line, "/usr" or not
			 * before it */
			const bool usr = strncmp(files[i], "/usr/", 5) == 0;
			const char *f = usr ? files[i] + 4 : files[i];

			if (pkgs[i] || !has_line(text, tlen, f, strlen(f), usr))
				continue;
			pkgs[i] = strndup(de->d_name, len - 5);
			if (!pkgs[i]) { /* not another list's answer */
				oom = true;
				break;
			}
			left--;
		}
		if (mapped)
			munmap(text, tlen);
	}
	free(buf);
	closedir(dir);
}

/* The dpkg package holding file on this host, interned, or NULL. */
static const char *dpkg_package(struct pda_session *s, const char *file)
{
	char *pkg = NULL;
	const char *in;

	dpkg_scan(&file, 1, &pkg);
	if (!pkg)
		return NULL;
	in = pda_intern(s, pkg, strlen(pkg));
	free(pkg);
	return in;
}

/* ---- dpkg's lists read ahead ----------------------------------------- */

/*
 * Reading dpkg's lists was half of a DWARF fold's end on this host (the
 * diagnosis of its stripped binaries).  The binaries it may diagnose are
 * known once the unwind pass has loaded them: a thread of its own reads
 * the lists for all of them then (dpkg_scan), while the run goes on, and
 * the diagnosis takes its answers (pda_dpkg_ahead_join).  The answers
 * are the same: a binary not looked for ahead is looked up as before.
 */
struct pda_dpkg_ahead {
	pthread_t thread;
	size_t nr;
	struct pda_dso_ent **dsos; /* whose package is looked for */
	char **files;		   /* their names, copied */
	char **pkgs;		   /* the answers (dpkg_scan) */
};

static void *dpkg_ahead_main(void *arg)
{
	struct pda_dpkg_ahead *a = arg;

	dpkg_scan((const char *const *)a->files, a->nr, a->pkgs);
	return NULL;
}

static void dpkg_ahead_free(struct pda_dpkg_ahead *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->files[i]);
		free(a->pkgs[i]);
	}
	free(a->files);
	free(a->pkgs);
	free(a->dsos);
	free(a);
}

/* Whether the diagnosis may ask dpkg about d (stripped_action, through
 * recorded_here: that check stays the diagnosis's). */
static bool dpkg_candidate(struct pda_session *s, const struct pda_dso_ent *d)
{
	return d->kind == PDA_DSO_FILE && d->d.state != PDA_DSO_MISSING &&
	       !d->package_looked && !d->fetch_err && d->d.elf &&
	       !s->dsos.symfs && !pda_elf_has_symtab(d->d.elf);
}

void pda_dpkg_ahead_start(struct pda_session *s)
{
	struct pda_dpkg_ahead *a;
	struct pda_dso_ent *d;
	size_t nr = 0;

	if (s->dpkg_ahead || !pda_same_host(s))
		return;
	for (d = s->dsos.all; d; d = d->next_all)
		nr += dpkg_candidate(s, d);
	if (!nr)
		return;
	/* any failure: the diagnosis looks up as before */
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->dsos = calloc(nr, sizeof(*a->dsos));
	a->files = calloc(nr, sizeof(*a->files));
	a->pkgs = calloc(nr, sizeof(*a->pkgs));
	if (!a->dsos || !a->files || !a->pkgs) {
		dpkg_ahead_free(a);
		return;
	}
	for (d = s->dsos.all; d && a->nr < nr; d = d->next_all) {
		if (!dpkg_candidate(s, d))
			continue;
		a->files[a->nr] = strdup(d->d.name);
		if (!a->files[a->nr])
			break;
		a->dsos[a->nr++] = d;
	}
	if (a->nr < nr ||
	    pthread_create(&a->thread, NULL, dpkg_ahead_main, a) != 0) {
		dpkg_ahead_free(a);
		return;
	}
	s->dpkg_ahead = a;
}

void pda_dpkg_ahead_join(struct pda_session *s)
{
	struct pda_dpkg_ahead *a = s->dpkg_ahead;

	if (!a)
		return;
	s->dpkg_ahead = NULL;
	pthread_join(a->thread, NULL);
	for (size_t i = 0; i < a->nr; i++) {
		struct pda_dso_ent *d = a->dsos[i];

		/* NOMEM interning: its lookup asks again */
		if (d->package_looked)
			continue;
		d->package = a->pkgs[i]
				     ? pda_intern(s, a->pkgs[i],
						  strlen(a->pkgs[i]))
				     : NULL;
		d->package_looked = !a->pkgs[i] || d->package;
	}
	dpkg_ahead_free(a);
}

/* How debuginfod could help with a binary that has a build-id: "" when
 * it was asked already. */
static const char *debuginfod_hint(const struct pda_session *s)
{
	const char *u = getenv("DEBUGINFOD_URLS");

	if (!u || !*u)
		return ", or set DEBUGINFOD_URLS";
	if (s->opts.no_debuginfod)
		return ", or drop --no-debuginfod";
	/* a sysroot is another host's: its build-ids go out when asked */
	if (s->dsos.symfs && !s->opts.debuginfod)
		return ", or give --debuginfod";
	return "";
}

/* A formatted string, interned; NULL on NOMEM. */
static const char *fmt(struct pda_session *s, const char *f, ...)
	PD_PRINTF(2, 3);

static const char *fmt(struct pda_session *s, const char *f, ...)
{
	char buf[PDA_PATH_MAX + 512];
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	if (n < 0)
		return "";
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return pda_intern(s, buf, (size_t)n);
}

static int kernel_reason(struct pda_session *s, struct pda_dso_ent *d,
			 struct pda_missing_dso *out)
{
	static const char copy[] =
		"copy /proc/kallsyms from the recording host, as root and "
		"before it reboots, and give it with --kallsyms (or give its "
		"vmlinux with --vmlinux)";

	out->action = copy;
	if (d->d.state == PDA_DSO_MISSING) {
		out->reason = PDA_UNRES_NOT_FOUND;
		return 0;
	}
	if (d->kcheck) {
		out->reason = PDA_UNRES_KALLSYMS;
		out->detail = d->kcheck;
		return 0;
	}
	/* a kallsyms that places the map but names little of what ran */
	if (d->ksyms && out->nr_unresolved * 2 > out->nr_samples) {
		char pct[32];

		snprintf(pct, sizeof(pct), "%.0f%%",
			 100.0 * (double)(out->nr_samples -
					  out->nr_unresolved) /
				 (double)out->nr_samples);
		out->reason = PDA_UNRES_KALLSYMS;
		out->detail = fmt(s, "it names only %s of the kernel samples",
				  pct);
		return out->detail ? 0 : PD_ERR_NOMEM;
	}
	out->reason = PDA_UNRES_NO_SYMBOL;
	out->action = "none: no kernel symbol covers those addresses "
		      "(BPF programs, modules loaded later)";
	return 0;
}

/*
 * Whether the file at d's recorded path on this host is the binary the
 * capture mapped: the capture is of this host, no --symfs, and the file
 * read was that path or has the build-id of the one that was (perf
 * record copies binaries into ~/.debug, where they are found first).
 */
static bool recorded_here(struct pda_session *s, const struct pda_dso_ent *d)
{
	const char *path = d->d.elf ? pda_elf_path(d->d.elf) : NULL;
	const unsigned char *id;
	struct pda_elf *e;
	unsigned size;
	bool same;

	if (s->dsos.symfs || !path || !pda_same_host(s))
		return false;
	if (strcmp(path, d->d.name) == 0)
		return true;
	if (!d->d.build_id_size || pda_elf_open(s, d->d.name, &e) < 0)
		return false;
	pda_elf_build_id(e, &id, &size);
	same = size == d->d.build_id_size &&
	       memcmp(id, d->d.build_id, size) == 0;
	pda_elf_close(s, e);
	return same;
}

/* The action for a binary found without symbols. */
static int stripped_action(struct pda_session *s, struct pda_dso_ent *d,
			   struct pda_missing_dso *out)
{
	const unsigned char *id;
	unsigned size = 0;
	const char *dinfo;
	bool here;
	struct stat st;

	/* the binary's own build-id finds its debug file, the capture's or
	 * not (pda_dso.c adopts it) */
	if (d->d.elf)
		pda_elf_build_id(d->d.elf, &id, &size);
	dinfo = size ? debuginfod_hint(s) : "";
	here = recorded_here(s, d);
	/* this host's package says something only of this host's file (the
	 * lists read ahead answered for every stripped binary) */
	if (!d->package_looked && here) {
		d->package_looked = true;
		d->package = dpkg_package(s, d->d.name);
	}
	out->package = here ? d->package : NULL;
	if (out->package) {
		char buf[512];
		const char *colon = strchr(d->package, ':');
		const int len = (int)(colon ? (size_t)(colon - d->package)
					    : strlen(d->package));
		int n;

		/* "libc6:amd64" installs as libc6-dbgsym:amd64; some
		 * packages ship a -dbg one instead */
		n = snprintf(buf, sizeof(buf),
			     "install %.*s-dbgsym%s (or %.*s-dbg) from the "
			     "debug archive%s",
			     len, d->package, colon ? colon : "", len,
			     d->package, dinfo);
		if (n < 0)
			return 0;
		if ((size_t)n >= sizeof(buf))
			n = sizeof(buf) - 1;
		out->action = pda_intern(s, buf, (size_t)n);
		return out->action ? 0 : PD_ERR_NOMEM;
	}
	if (here && stat(DPKG_INFO, &st) == 0) {
		out->action = fmt(s,
				  "no package here holds it: rebuild it with "
				  "-g, or put its debug file under "
				  "--buildid-dir%s",
				  dinfo);
		return out->action ? 0 : PD_ERR_NOMEM;
	}
	out->action = fmt(s,
			  "on the recording host `dpkg -S %s` (or `rpm -qf`) "
			  "names its package: install its -dbgsym "
			  "(-debuginfo) there and give that host's files "
			  "with --symfs%s",
			  d->d.name, dinfo);
	return out->action ? 0 : PD_ERR_NOMEM;
}

int pda_dso_diagnose(struct pda_session *s, struct pda_dso_ent *d,
		     struct pda_missing_dso *out)
{
	uint32_t crc;
	const char *link;

	out->reason = PDA_UNRES_NOT_FOUND;
	out->detail = NULL;
	out->action = NULL;
	out->package = NULL;
	if (d->kind == PDA_DSO_KERNEL)
		return kernel_reason(s, d, out);
	if (d->kind == PDA_DSO_JIT) {
		out->reason = d->d.state == PDA_DSO_MISSING
				      ? PDA_UNRES_NOT_FOUND
				      : PDA_UNRES_NO_SYMBOL;
		out->action = "copy the JIT's perf-PID.map from the recording "
			      "host and give its directory with --jit-dir";
		return 0;
	}
	if (d->d.state == PDA_DSO_MISSING) {
		if (d->mismatch) {
			out->reason = PDA_UNRES_BUILD_ID;
			out->action = "the file here is another build: give "
				      "the recording host's files with --symfs, "
				      "or its build-id cache (`perf archive`) "
				      "with --buildid-dir";
			return 0;
		}
		if (d->fetch_err) {
			out->reason = PDA_UNRES_DEBUGINFOD;
			out->detail = d->fetch_err;
			out->action = "check DEBUGINFOD_URLS and the network, or "
				      "give the recording host's files with "
				      "--symfs";
			return 0;
		}
		/* a build-id cache and debuginfod need the capture's
		 * build-id: pipe mode records none */
		out->action = fmt(
			s, "%s%s%s%s%s",
			s->dsos.symfs ? "copy it from the recording host to "
				      : "give the recording host's files with "
					"--symfs",
			s->dsos.symfs ? s->dsos.symfs : "",
			s->dsos.symfs ? d->d.name : "",
			d->d.build_id_size ? ", or give that host's build-id "
					     "cache (`perf archive`) with "
					     "--buildid-dir"
					   : " (the capture has no build-id "
					     "to find it by)",
			d->d.build_id_size ? debuginfod_hint(s) : "");
		return out->action ? 0 : PD_ERR_NOMEM;
	}
	if (d->d.elf && pda_elf_has_symtab(d->d.elf)) {
		out->reason = PDA_UNRES_NO_SYMBOL;
		out->action = "none: the binary has no symbol there "
			      "(hand-written or generated code)";
		return 0;
	}
	if (d->fetch_err) {
		out->reason = PDA_UNRES_DEBUGINFOD;
		out->detail = d->fetch_err;
		out->action = "check DEBUGINFOD_URLS and the network";
		return 0;
	}
	out->reason = PDA_UNRES_STRIPPED;
	link = d->d.elf ? pda_elf_debuglink(d->d.elf, &crc) : NULL;
	out->detail = link ? fmt(s,
				 "no debug file by build-id or by "
				 ".gnu_debuglink '%s'",
				 link)
			   : "no debug file by build-id";
	if (!out->detail)
		return PD_ERR_NOMEM;
	return stripped_action(s, d, out);
}
