/*
 * pda_altlink.c - the .gnu_debugaltlink file of a binary or debug file,
 * found as pdtool finds debug files, never where the link alone points.
 *
 * A debug file that dwz shrank names, in .gnu_debugaltlink, the file
 * holding what it shares with others ("/usr/lib/debug/.dwz/...", or a
 * path relative to its own directory) and that file's build-id.  libdw
 * would open the name as it stands, anywhere, unchecked (issue 11); the
 * alt file is looked for here instead, as d's files are, and used only
 * with the build-id the link names (pda_dwarf.c gives libdw this file or
 * an empty one):
 *
 *   1. with --symfs DIR: the name inside DIR (a relative name from the
 *      linking file's place in DIR), then DIR/usr/lib/debug/.build-id/
 *      xx/rest.debug;
 *   2. the build-id cache: .build-id/xx/rest/debug, .build-id/xx/rest;
 *   3. this host (without --symfs, or with --host-files):
 *      /usr/lib/debug/.build-id/xx/rest.debug, then the name when it
 *      lies in /usr/lib/debug or the build-id cache (where distributions
 *      and perf put debug files), not elsewhere;
 *   4. debuginfod, for the alt file's build-id.
 */
#include "pda_machine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether an absolute, clean path is one a link may name on this host. */
static bool debug_place(const struct pda_session *s, const char *path)
{
	return pda_path_is_under(path, "/usr/lib/debug") ||
	       (s->dsos.buildid_dir &&
		pda_path_is_under(path, s->dsos.buildid_dir));
}

/* Take path as e's alt file when it is a regular ELF file with the
 * build-id the link names.  0 or NOMEM. */
static int try_alt(struct pda_session *s, const struct pda_elf *e,
		   const char *path, struct pda_elf **alt)
{
	const unsigned char *want, *got;
	unsigned want_size, got_size;
	struct stat st;
	struct pda_elf *a;
	int rc;

	if (*alt || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	rc = pda_elf_open(s, path, &a);
	if (rc < 0)
		return rc == PD_ERR_NOMEM ? rc : 0;
	pda_elf_altlink(e, &want, &want_size);
	pda_elf_build_id(a, &got, &got_size);
	if (got_size != want_size || memcmp(got, want, got_size) != 0) {
		pda_logf(s, PD_LOG_WARN,
			 "'%s' not used as the .gnu_debugaltlink file of '%s': "
			 "build-id mismatch",
			 path, pda_elf_path(e));
		pda_elf_close(s, a);
		return 0;
	}
	*alt = a;
	return 0;
}

/* The link's name under DIR, from where e lies in DIR; false if none. */
static bool name_in_symfs(const struct pda_session *s, const struct pda_elf *e,
			  const char *name, char *out)
{
	const char *root = s->dsos.symfs, *holder = pda_elf_path(e), *slash;
	size_t n = strlen(root);

	if (name[0] == '/')
		return pda_pathf(out, "%s", name);
	if (!pda_path_is_under(holder, root) || !(slash = strrchr(holder + n, '/')))
		return false;
	return pda_pathf(out, "%.*s/%s", (int)(slash - holder - n), holder + n,
			 name);
}

/* The link's name on this host, clean, from the real place of e. */
static bool name_on_host(const struct pda_elf *e, const char *name,
			 char *out)
{
	char real[PDA_PATH_MAX], joined[PDA_PATH_MAX];
	const char *slash;

	if (name[0] == '/')
		return pda_path_clean(name, out, PDA_PATH_MAX);
	if (!realpath(pda_elf_path(e), real) || !(slash = strrchr(real, '/')))
		return false;
	return pda_pathf(joined, "%.*s/%s", (int)(slash - real), real,
			 name) &&
	       pda_path_clean(joined, out, PDA_PATH_MAX);
}

int pda_dso_find_alt(struct pda_session *s, struct pda_dso_ent *d,
		     struct pda_elf *e, struct pda_elf **alt)
{
	char hex[2 * PDA_BUILD_ID_MAX + 1], p[PDA_PATH_MAX], q[PDA_PATH_MAX];
	const unsigned char *id;
	const char *name;
	unsigned size;
	bool escaped, refused = false;
	char *fetched;
	int rc = 0;

	*alt = NULL;
	name = pda_elf_altlink(e, &id, &size);
	if (!name)
		return 0;
	pda_hex(hex, id, size);
	if (s->dsos.symfs) {
		if (name_in_symfs(s, e, name, p) &&
		    pda_path_under(s->dsos.symfs, p, q, sizeof(q), &escaped) ==
			    0)
			rc = try_alt(s, e, q, alt);
		if (rc == 0 && !*alt &&
		    pda_pathf(p, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			      hex + 2) &&
		    pda_path_under(s->dsos.symfs, p, q, sizeof(q), &escaped) ==
			    0)
			rc = try_alt(s, e, q, alt);
	}
	if (rc == 0 && !*alt && s->dsos.buildid_dir &&
	    pda_pathf(p, "%s/.build-id/%.2s/%s/debug", s->dsos.buildid_dir,
		      hex, hex + 2) &&
	    (rc = try_alt(s, e, p, alt)) == 0 && !*alt &&
	    pda_pathf(p, "%s/.build-id/%.2s/%s", s->dsos.buildid_dir, hex,
		      hex + 2))
		rc = try_alt(s, e, p, alt);
	if (rc == 0 && !*alt && pda_host_files(s)) {
		if (pda_pathf(p, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			      hex + 2))
			rc = try_alt(s, e, p, alt);
		/* the name, where debug files are: its real path too, so
		 * that no symlink leads elsewhere */
		if (rc == 0 && !*alt && name_on_host(e, name, p)) {
			refused = !debug_place(s, p) || !realpath(p, q) ||
				  !debug_place(s, q);
			if (!refused)
				rc = try_alt(s, e, q, alt);
		}
	}
	if (rc == 0 && !*alt) {
		rc = pda_debuginfod_fetch(s, d, id, size, PDA_FETCH_ALT,
					  &fetched);
		if (rc == 0 && fetched)
			rc = try_alt(s, e, fetched, alt);
		free(fetched); /* libdebuginfod's malloc */
	}
	if (rc < 0 || *alt)
		return rc;
	if (refused)
		pda_logf(s, PD_LOG_WARN,
			 "'%s': .gnu_debugaltlink '%s' not read: not in a "
			 "debug directory",
			 pda_elf_path(e), name);
	else
		pda_logf(s, PD_LOG_INFO,
			 "'%s': .gnu_debugaltlink file '%s' (build-id %s) not "
			 "found",
			 pda_elf_path(e), name, hex);
	return 0;
}
