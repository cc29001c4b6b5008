/*
 * cmd_tar.h - a tar reader over bytes in memory (cmd_tar.c), for
 * cmd_archive.c.  Private to cmds/.
 */
#ifndef CMD_TAR_H
#define CMD_TAR_H

#include "pd_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* the longest member name or link target read, in bytes */
#define CMD_TAR_NAME_MAX 4096

enum cmd_tar_type {
	CMD_TAR_FILE,	  /* '0', '\0', '7' */
	CMD_TAR_DIR,	  /* '5' */
	CMD_TAR_SYMLINK,  /* '2' */
	CMD_TAR_HARDLINK, /* '1': link names another member */
	CMD_TAR_OTHER,	  /* devices, FIFOs, sparse files, ...: see flag */
};

struct cmd_tar_entry {
	enum cmd_tar_type type;
	char flag;			    /* the header's type flag */
	char name[CMD_TAR_NAME_MAX + 1];    /* as the archive has it */
	char link[CMD_TAR_NAME_MAX + 1];    /* a link's target, else "" */
	uint64_t size;			    /* of data; 0 but for files */
	const unsigned char *data;	    /* size bytes, in the buffer */
	uint64_t offset;		    /* of its header in the tar */
};

/* what pax headers (and GNU's 'L' and 'K') say of the members after */
struct cmd_tar_pax {
	char name[CMD_TAR_NAME_MAX + 1], link[CMD_TAR_NAME_MAX + 1];
	uint64_t size;
	bool has_size;
};

struct cmd_tar {
	const unsigned char *p;
	uint64_t len, pos;
	bool ended;
	struct cmd_tar_pax global; /* 'g' headers' */
	char err[256];		   /* why cmd_tar_next() failed */
};

/* Whether n bytes at p start with a tar header: "ustar" at offset 257
 * (POSIX or GNU) and a right checksum. */
bool cmd_tar_is_tar(const unsigned char *p, size_t n);

/* Read the len bytes at buf, which must stay as they are while t is
 * used. */
void cmd_tar_init(struct cmd_tar *t, const void *buf, uint64_t len);

/*
 * The next member into *e (extended headers applied, not returned):
 * @return 1, 0 at the end, -1 when the archive is damaged (t->err says
 * how, naming the offset or the member).  e->data points into the
 * buffer; e->name and e->link are e's own.
 */
int cmd_tar_next(struct cmd_tar *t, struct cmd_tar_entry *e);

/*
 * A tar writer (cmd_tarw.c), for pdtool archive's bundles: POSIX ustar
 * members (a pax 'x' header before a name ustar cannot hold), the whole
 * stream zstd-compressed as one frame, so that `tar --zstd -xf` and
 * `zstd -dc | tar t` read it.  Files and directories only: a bundle
 * holds no link.
 */
struct cmd_tarw {
	FILE *out;
	void *zc; /* ZSTD_CCtx */
	unsigned char *zbuf;
	size_t zbuf_size;
	uint64_t written;  /* compressed bytes out */
	uint64_t in_bytes; /* tar bytes in */
	char err[256];
};

/* Start a tar on out at zstd level.  @return 0, -1 (t->err says why). */
int cmd_tarw_open(struct cmd_tarw *t, FILE *out, int level);
/* A regular file name (relative, no ".."), size bytes at data, with
 * mode and mtime (seconds).  @return 0, -1. */
int cmd_tarw_add(struct cmd_tarw *t, const char *name, const void *data,
		 uint64_t size, unsigned mode, int64_t mtime);
/* A directory member name (no trailing slash needed). */
int cmd_tarw_dir(struct cmd_tarw *t, const char *name, int64_t mtime);
/* The end-of-archive blocks and the end of the frame.  @return 0, -1. */
int cmd_tarw_close(struct cmd_tarw *t);
/* Frees what is left after an error (or after close); accepts any
 * state. */
void cmd_tarw_release(struct cmd_tarw *t);

#endif /* CMD_TAR_H */
