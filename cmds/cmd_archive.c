/*
 * cmd_archive.c - a perf archive tarball read as the build-id cache it
 * holds (--archive FILE, or --buildid-dir naming a file): extracted once
 * a run into a private directory of $TMPDIR, which goes when pdtool
 * does, and handed to the session as --buildid-dir would be.  A pdtool
 * bundle (cmd_bundle.c) is extracted there the same way, with no link
 * at all allowed.
 *
 * A tarball comes from another host and may be hostile, so no member
 * may create anything outside that directory: names are relative and
 * have no ".." in them; every directory is opened without following a
 * symlink (openat with O_NOFOLLOW, one component at a time), so nothing
 * is ever created through a link an earlier member made; a symlink is
 * made only when its target climbs ("../") no higher than its own
 * directory and then only descends, which keeps it, and any chain of
 * such links, inside the tree; a hard link only to a regular file the
 * archive made; and the bytes, the members and the depth are capped.
 * Devices, FIFOs and the like are skipped.
 */
#include "pdtool.h"
#include "cmd_tar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* what an archive may hold: cmd_input.c's cap on an inflated input */
#define ARCHIVE_MAX_BYTES ((uint64_t)1 << 34)
#define ARCHIVE_MAX_MEMBERS (1u << 20)
/* directories in a name: a removal walks them with an fd each */
#define ARCHIVE_MAX_DEPTH 128
/* what perf archive --all (perf >= 6.2) packs beside perf.data */
#define ALL_SYMBOLS "perf.symbols.tar.bz2"

struct extract {
	struct pd_ctx *ctx;
	const char *archive; /* its path, for messages */
	int root;	     /* the tree's directory */
	bool no_links;	     /* a bundle: links and devices refused */
	uint64_t bytes;
	unsigned nr_members, nr_skipped;
	char skipped[64]; /* the first member skipped, cut */
	char skipped_flag;
};

PD_NORETURN PD_PRINTF(3, 4) static void refuse(const struct extract *x,
						const char *member,
						const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	die(x->ctx, "'%s': member '%s': %s; nothing of it is used",
	    x->archive, member, why);
}

/*
 * name without its "." and empty components, into buf: false, with *why,
 * when it is absolute, climbs ("..") or is too deep.  *depth: the
 * components left.
 */
static bool clean_name(const char *name, char *buf, size_t *depth,
		       const char **why)
{
	const char *p = name;
	size_t n = 0;

	*depth = 0;
	if (*p == '/') {
		*why = "an absolute name";
		return false;
	}
	while (*p) {
		const char *slash = strchr(p, '/');
		const size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			*why = "a name with a '..' component";
			return false;
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (++*depth > ARCHIVE_MAX_DEPTH) {
				*why = "a name more than 128 directories deep";
				return false;
			}
			if (n)
				buf[n++] = '/';
			memcpy(buf + n, p, len);
			n += len;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	buf[n] = '\0';
	return true;
}

/*
 * The directory that holds cleaned name's last component, opened by a
 * walk from the root that follows no symlink (missing directories made
 * when create): its fd (the root's own, not to be closed, for a name of
 * one component), *base the last component; -1 when !create and a
 * directory is missing.
 */
static int open_parent(const struct extract *x, const char *member,
		       char *name, const char **base, bool create)
{
	int dir = x->root;
	char *p = name, *slash;

	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		next = openat(dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create &&
		    mkdirat(dir, p, 0700) == 0)
			next = openat(dir, p,
				      O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					      O_CLOEXEC);
		if (next < 0 && (errno == ELOOP || errno == ENOTDIR))
			refuse(x, member,
			       "its directory '%s' is a symlink or a file in "
			       "the archive: nothing is written through one",
			       name);
		if (next < 0 && !create && errno == ENOENT) {
			if (dir != x->root)
				close(dir);
			return -1;
		}
		if (next < 0)
			refuse(x, member, "cannot make directory '%s': %s",
			       name, strerror(errno));
		if (dir != x->root)
			close(dir);
		dir = next;
		*slash = '/';
		p = slash + 1;
	}
	*base = p;
	return dir;
}

/* Make room for a new entry base in dir: an earlier member of the same
 * name goes, unless it is a directory. */
static void replace(const struct extract *x, const char *member, int dir,
		    const char *base)
{
	struct stat sb;

	if (fstatat(dir, base, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(sb.st_mode))
		refuse(x, member, "a directory of that name came first");
	if (unlinkat(dir, base, 0) < 0)
		refuse(x, member, "cannot replace the member of that name: %s",
		       strerror(errno));
}

static void write_file(struct extract *x, const struct cmd_tar_entry *e,
		       int dir, const char *base)
{
	const unsigned char *p = e->data;
	uint64_t left = e->size;
	int fd;

	if (e->size > ARCHIVE_MAX_BYTES - x->bytes)
		refuse(x, e->name,
		       "%llu bytes, past the %llu GiB an archive may hold",
		       (unsigned long long)e->size,
		       (unsigned long long)(ARCHIVE_MAX_BYTES >> 30));
	x->bytes += e->size;
	fd = openat(dir, base,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		replace(x, e->name, dir, base);
		fd = openat(dir, base,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0600);
	}
	if (fd < 0)
		refuse(x, e->name, "cannot create it: %s", strerror(errno));
	while (left) {
		const size_t chunk = left > (1u << 30) ? 1u << 30 : left;

		if (cmd_write_holes(fd, p, chunk) < 0)
			die(x->ctx,
			    "'%s': cannot write member '%s' into the temporary "
			    "directory: %s (TMPDIR says where it goes)",
			    x->archive, e->name, strerror(errno));
		p += chunk;
		left -= chunk;
	}
	if (ftruncate(fd, (off_t)e->size) < 0 || close(fd) < 0)
		die(x->ctx, "'%s': cannot write member '%s': %s", x->archive,
		    e->name, strerror(errno));
}

/*
 * A symlink's target keeps it inside the tree when it is relative,
 * climbs first ("../", at most as many as the link's directories, depth
 * - 1) and then only descends.
 */
static const char *bad_target(const char *target, size_t depth)
{
	const char *p = target;
	size_t up = 0;
	bool down = false;

	if (!*target)
		return "an empty target";
	if (*target == '/')
		return "an absolute target";
	while (*p) {
		const char *slash = strchr(p, '/');
		const size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (down)
				return "'..' after a name in the target";
			if (++up > depth - 1)
				return "a target outside the archive's tree";
		} else if (len && !(len == 1 && p[0] == '.')) {
			down = true;
		}
		p += len;
		if (*p == '/')
			p++;
	}
	return NULL;
}

static void make_symlink(const struct extract *x,
			 const struct cmd_tar_entry *e, int dir,
			 const char *base, size_t depth)
{
	const char *why = bad_target(e->link, depth);

	if (why)
		refuse(x, e->name, "a symlink to '%s': %s", e->link, why);
	if (symlinkat(e->link, dir, base) == 0)
		return;
	if (errno == EEXIST) {
		replace(x, e->name, dir, base);
		if (symlinkat(e->link, dir, base) == 0)
			return;
	}
	refuse(x, e->name, "cannot make the symlink: %s", strerror(errno));
}

/* A hard link: to a regular file an earlier member made, never to a
 * link (whose relative target would mean another place here). */
static void make_hardlink(const struct extract *x,
			  const struct cmd_tar_entry *e, int dir,
			  const char *base)
{
	char target[CMD_TAR_NAME_MAX + 1];
	const char *why, *tbase;
	struct stat sb;
	size_t depth;
	int tdir;

	if (!clean_name(e->link, target, &depth, &why))
		refuse(x, e->name, "a hard link to '%s': %s", e->link, why);
	if (!depth)
		refuse(x, e->name, "a hard link to '%s': an empty name",
		       e->link);
	tdir = open_parent(x, e->name, target, &tbase, false);
	if (tdir < 0 || fstatat(tdir, tbase, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(sb.st_mode))
		refuse(x, e->name,
		       "a hard link to '%s', which is not a file the archive "
		       "holds before it",
		       e->link);
	if (linkat(tdir, tbase, dir, base, 0) < 0) {
		if (errno == EEXIST) {
			replace(x, e->name, dir, base);
			if (linkat(tdir, tbase, dir, base, 0) == 0)
				errno = 0;
		}
		if (errno)
			refuse(x, e->name, "cannot make the hard link: %s",
			       strerror(errno));
	}
	if (tdir != x->root)
		close(tdir);
}

static void extract_member(struct extract *x, const struct cmd_tar_entry *e)
{
	char name[CMD_TAR_NAME_MAX + 1];
	const char *why, *base;
	size_t depth;
	int dir;

	if (++x->nr_members > ARCHIVE_MAX_MEMBERS)
		refuse(x, e->name, "more than %u members",
		       ARCHIVE_MAX_MEMBERS);
	if (x->no_links && e->type != CMD_TAR_FILE && e->type != CMD_TAR_DIR)
		refuse(x, e->name,
		       "a link, device or FIFO (type '%c'): a bundle holds "
		       "only files and directories",
		       e->flag ? e->flag : '?');
	if (e->type == CMD_TAR_OTHER) {
		/* devices, FIFOs, sparse files: nothing perf archive has */
		if (!x->nr_skipped++) {
			snprintf(x->skipped, sizeof(x->skipped), "%.63s",
				 e->name);
			x->skipped_flag = e->flag;
		}
		return;
	}
	if (!clean_name(e->name, name, &depth, &why))
		refuse(x, e->name, "%s", why);
	if (!depth) {
		/* "./": the root itself */
		if (e->type == CMD_TAR_DIR)
			return;
		refuse(x, e->name, "an empty name");
	}
	dir = open_parent(x, e->name, name, &base, true);
	switch (e->type) {
	case CMD_TAR_FILE:
		write_file(x, e, dir, base);
		break;
	case CMD_TAR_DIR:
		if (mkdirat(dir, base, 0700) < 0) {
			struct stat sb;

			if (errno != EEXIST ||
			    fstatat(dir, base, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(sb.st_mode))
				refuse(x, e->name,
				       "cannot make the directory: %s",
				       errno == EEXIST ? "a file or link of "
							 "that name came first"
						       : strerror(errno));
		}
		break;
	case CMD_TAR_SYMLINK:
		make_symlink(x, e, dir, base, depth);
		break;
	case CMD_TAR_HARDLINK:
		make_hardlink(x, e, dir, base);
		break;
	case CMD_TAR_OTHER:
		break;
	}
	if (dir != x->root)
		close(dir);
}

/* Remove name in parent, a whole tree when it is a directory, without
 * following a symlink. */
static void remove_at(int parent, const char *name)
{
	int fd;
	DIR *d;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return;
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			remove_at(fd, de->d_name);
	closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}

/*
 * A process that removes dir once pdtool has ended, however it ended:
 * die() and main remove it themselves and say so on the pipe, but a
 * signal (^C, a kill, the OOM killer) ends pdtool with no chance to.
 * Forked before any thread starts (the sessions are made after their
 * options).  @return the pipe's end pdtool keeps, -1 when there is no
 * such process (the tree then goes only when pdtool exits itself).
 */
static int start_watcher(const char *dir)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		const long max = sysconf(_SC_OPEN_MAX);
		const int null = open("/dev/null", O_RDWR);
		char c;
		ssize_t n;

		/* ^C reaches the whole process group; this one stays to
		 * clean up, and holds none of pdtool's files open (a pipe
		 * on stdout would wait for it) */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		for (int fd = 0; fd < 3; fd++)
			if (null >= 0)
				dup2(null, fd);
		for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536);
		     fd++)
			if (fd != p[0])
				close((int)fd);
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n == 0)
			remove_at(AT_FDCWD, dir);
		_exit(0);
	}
	close(p[0]);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	return p[1];
}

void cmd_archive_cleanup(const struct pd_ctx *ctx)
{
	const char done = 1;

	if (!ctx->archive_dir)
		return;
	remove_at(AT_FDCWD, ctx->archive_dir);
	if (ctx->archive_watch >= 0 &&
	    write(ctx->archive_watch, &done, 1) == 1)
		close(ctx->archive_watch);
}

/* path's bytes (name in messages), inflated when compressed: *len of
 * them, mapped (munmap() frees them); dies when they are not a tar. */
static const unsigned char *archive_bytes(struct pd_ctx *ctx,
					  const char *path, const char *name,
					  const char *opt, size_t *len)
{
	unsigned char head[16];
	const unsigned char *buf;
	struct stat sb;
	ssize_t got;
	size_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(ctx, "%s: cannot open '%s': %s", opt, name,
		    strerror(errno));
	if (fstat(fd, &sb) < 0)
		die(ctx, "%s: cannot read '%s': %s", opt, name,
		    strerror(errno));
	if (S_ISDIR(sb.st_mode))
		usage_error(ctx, "%s: '%s' is a directory: give it as "
				 "--buildid-dir",
			    opt, name);
	do
		got = read(fd, head, sizeof(head));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die(ctx, "%s: cannot read '%s': %s", opt, name,
		    strerror(errno));
	n = (size_t)got;
	if (cmd_input_packed(head, n) || !S_ISREG(sb.st_mode)) {
		/* a pipe too: --archive <(ssh host cat perf.data.tar.bz2) */
		buf = cmd_input_spool(ctx, fd, name, head, n, len);
	} else if (sb.st_size > 0) {
		/* a tar as it is: read where it lies */
		*len = (size_t)sb.st_size;
		buf = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf == MAP_FAILED)
			die(ctx, "%s: cannot map '%s': %s", opt, name,
			    strerror(errno));
	} else {
		buf = NULL;
		*len = 0;
	}
	close(fd);
	if (!buf || !cmd_tar_is_tar(buf, *len)) {
		static const unsigned char zstd[4] = {0x28, 0xb5, 0x2f, 0xfd};

		if (n >= 4 && memcmp(head, zstd, 4) == 0)
			die(ctx, "%s: '%s': a zstd-compressed file: pdtool reads "
				 "perf archive tarballs compressed with bzip2 "
				 "(as perf archive writes them), xz or gzip, "
				 "or not at all (zstd -d gives the tar)",
			    opt, name);
		die(ctx, "%s: '%s' is not a perf archive tarball (a tar, "
			 "compressed with bzip2, xz or gzip or not, as "
			 "'perf archive' writes)",
		    opt, name);
	}
	return buf;
}

/* Every member of the tar at buf into x's tree; name in messages. */
static void extract_buf(struct extract *x, const unsigned char *buf,
			size_t len, const char *name)
{
	/* on the stack: die() leaves nothing to free (24 KiB) */
	struct cmd_tar t;
	struct cmd_tar_entry e;
	int rc;

	x->archive = name;
	cmd_tar_init(&t, buf, len);
	while ((rc = cmd_tar_next(&t, &e)) > 0)
		extract_member(x, &e);
	if (rc < 0)
		die(x->ctx, "'%s': %s; nothing of it is used", name, t.err);
}

/* Every member of path's tar into x's tree; name: path in messages. */
static void extract(struct extract *x, const char *path, const char *name,
		    const char *opt)
{
	size_t len;
	const unsigned char *buf = archive_bytes(x->ctx, path, name, opt,
						 &len);

	extract_buf(x, buf, len, name);
	/* the copy (or the mapping) is read: its pages go back now, not
	 * at exit */
	munmap((void *)(uintptr_t)buf, len);
}

/*
 * The run's private directory in $TMPDIR (made once, with its watcher),
 * and in it a new directory for one tree: its path (valid until the
 * process ends) and *fd, opened without following a link.
 */
static char *new_tree(struct pd_ctx *ctx, const char *path, int *fd)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], sub[4096 + 32];

	if (!ctx->archive_dir) {
		tmp = tmp && *tmp ? tmp : "/tmp";
		if (snprintf(dir, sizeof(dir), "%s/pdtool-archive.XXXXXX",
			     tmp) >= (int)sizeof(dir))
			die(ctx, "TMPDIR '%s': too long a path", tmp);
		if (!mkdtemp(dir))
			die(ctx,
			    "cannot make a directory for '%s' in '%s': %s "
			    "(TMPDIR says where it goes)",
			    path, tmp, strerror(errno));
		ctx->archive_dir = strdup(dir);
		if (!ctx->archive_dir) {
			rmdir(dir);
			die(ctx, "out of memory");
		}
		ctx->archive_watch = start_watcher(ctx->archive_dir);
	}
	snprintf(sub, sizeof(sub), "%s/%u", ctx->archive_dir,
		 ctx->nr_trees++);
	if (mkdir(sub, 0700) < 0)
		die(ctx, "cannot make '%s': %s", sub, strerror(errno));
	*fd = open(sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		die(ctx, "cannot open '%s': %s", sub, strerror(errno));
	{
		char *copy = strdup(sub);

		if (!copy)
			die(ctx, "out of memory");
		return copy;
	}
}

const char *cmd_archive_tree(struct pd_ctx *ctx, const void *buf, size_t len,
			     const char *name)
{
	struct extract x = {.ctx = ctx, .no_links = true};
	char *dir = new_tree(ctx, name, &x.root);

	extract_buf(&x, buf, len, name);
	close(x.root);
	return dir;
}

const char *cmd_archive_dir(struct pd_ctx *ctx, const char *path,
			    const char *opt)
{
	struct extract x = {.ctx = ctx};
	struct stat sb;
	char *dir;

	if (ctx->perf_archive)
		return ctx->perf_archive;
	dir = new_tree(ctx, path, &x.root);
	ctx->perf_archive = dir;
	extract(&x, path, path, opt);
	/* perf archive --all: perf.data and, inside, the archive proper */
	if (fstatat(x.root, ".build-id", &sb, AT_SYMLINK_NOFOLLOW) < 0 &&
	    fstatat(x.root, ALL_SYMBOLS, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(sb.st_mode)) {
		char inner[4096 + sizeof(ALL_SYMBOLS)], name[4096];

		snprintf(inner, sizeof(inner), "%s/%s", dir, ALL_SYMBOLS);
		snprintf(name, sizeof(name), "%s:%s", path, ALL_SYMBOLS);
		extract(&x, inner, name, opt);
	}
	if (fstatat(x.root, ".build-id", &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(sb.st_mode))
		die(ctx,
		    "%s: '%s' is a tar archive, but not perf archive's: it "
		    "holds no .build-id directory",
		    opt, path);
	if (x.nr_skipped)
		warning(ctx,
			"'%s': %u member%s neither a file, a directory nor a "
			"link skipped (the first '%s', type '%c')",
			path, x.nr_skipped, x.nr_skipped == 1 ? "" : "s",
			x.skipped, x.skipped_flag ? x.skipped_flag : '?');
	close(x.root);
	return dir;
}
