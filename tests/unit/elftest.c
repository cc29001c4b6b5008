/*
 * elftest.c - see elftest.h.
 */
#include "elftest.h"

#include <check.h>
#include <fcntl.h>
#include <dirent.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pda_session *et_session_new(struct et_session *es,
				   const struct pd_alloc *alloc)
{
	struct tf_attr a = {.type = 1, /* software: cpu-clock */
			    .sample_period = 1,
			    .sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID};
	char err[256] = "";
	PDA_OPTS(o, .no_debuginfod = true, .alloc = alloc, .errbuf = err,
		 .errbuf_size = sizeof(err));

	memset(es, 0, sizeof(*es));
	tf_init(&es->t, false);
	tf_add_attr(&es->t, &a, NULL, 0);
	es->f = tf_open(&es->t);
	ck_assert_msg(pda_session_new(es->f, &o, &es->s) == 0,
		      "pda_session_new: %s", err);
	return es->s;
}

void et_session_free(struct et_session *es)
{
	pda_session_free(es->s);
	pd_file_close(es->f);
	tf_release(&es->t);
}

void et_path(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, ET_PATH_MAX, fmt, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && n < ET_PATH_MAX, "path too long");
}

char *et_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = malloc(ET_PATH_MAX);

	ck_assert_ptr_nonnull(dir);
	et_path(dir, "%s/pdtool-elftest.XXXXXX", base && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

void et_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL) {
		char path[ET_PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		et_path(path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			et_rmtree(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static Elf *open_elf(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	return elf_begin(*fd, ELF_C_READ, NULL);
}

bool et_elf_sym(const char *path, const char *name, uint64_t *value,
		uint64_t *size)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = true;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

bool et_elf_build_id(const char *path, unsigned char *id, unsigned *size)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (!found && d &&
		       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) >
			       0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    nh.n_descsz <= 32 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
				memcpy(id, (char *)d->d_buf + desc_off,
				       nh.n_descsz);
				*size = nh.n_descsz;
				found = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}
