/*
 * pd_env_simpleperf.c - simpleperf's FILE (128) and FILE2 (132) feature
 * sections: the files a simpleperf capture sampled, with the symbol
 * tables simpleperf read from them on the recording device, so that a
 * report elsewhere can name frames in binaries it does not have.
 *
 * Layout (simpleperf record_file_format.h, record_file_reader.cpp):
 * entries of u32 size then size bytes.  A FILE entry is the NUL-
 * terminated path, u32 dso type, u64 min_vaddr, u32 symbol count, then
 * per symbol u64 vaddr, u32 len and the NUL-terminated name; a dex file
 * (type 3) then has u32 count and that many u64 dex file offsets; an ELF
 * file or kernel module (types 2, 1) may end with u64
 * file_offset_of_min_vaddr (newer simpleperf only).  A FILE2 entry is a
 * protobuf FileFeature; only its path (field 1) is decoded here.
 */
#include "pd_env_int.h"

#include <inttypes.h>

/* The smallest symbol: vaddr, len and an empty name. */
#define SP_SYMBOL_MIN 13

/*
 * The path of a FILE2 entry: a protobuf FileFeature whose field 1 (the
 * path, a length-delimited string) comes first.  NULL when it does not.
 */
static const char *proto_path(struct env_dec *d, const unsigned char *p,
			      size_t len, int *nomem)
{
	struct pdc_cur c;
	uint64_t slen;
	char *s;

	if (len < 2 || p[0] != 0x0a)
		return NULL;
	pdc_cur_init(&c, p + 1, len - 1, 0);
	if (!pdc_cur_uleb(&c, &slen) || slen > pdc_cur_left(&c))
		return NULL;
	s = pd_env_dec_strndup(d, c.p, (size_t)slen);
	if (!s)
		*nomem = 1;
	return s;
}

/* A NUL-terminated string at the cursor; ENV_DAMAGED when unterminated. */
static int cur_cstr(struct env_dec *d, struct pdc_cur *c, const char **out)
{
	const unsigned char *nul = memchr(c->p, '\0', pdc_cur_left(c));
	char *s;

	if (!nul)
		return ENV_DAMAGED;
	s = pd_env_dec_strndup(d, c->p, (size_t)(nul - c->p));
	ENV_NEED(s);
	*out = s;
	c->p = nul + 1;
	return ENV_OK;
}

/* One FILE entry, the cursor spanning exactly its bytes. */
static int sp_file_entry(struct env_dec *d, struct pdc_cur *c,
			 struct pd_sp_file *f)
{
	struct pd_sp_symbol *syms;
	uint64_t *offs;
	uint32_t nr;

	f->file_offset_of_min_vaddr = UINT64_MAX;
	ENV_TRY(cur_cstr(d, c, &f->path));
	if (!pdc_cur_u32(c, &f->type) || !pdc_cur_u64(c, &f->min_vaddr) ||
	    !pdc_cur_u32(c, &nr))
		return ENV_DAMAGED;
	if (nr > pdc_cur_left(c) / SP_SYMBOL_MIN)
		return ENV_DAMAGED;
	syms = pd_env_dec_array(d, nr, sizeof(*syms));
	ENV_NEED(syms);
	f->symbols = syms;
	for (uint32_t i = 0; i < nr; i++) {
		if (!pdc_cur_u64(c, &syms[i].vaddr) ||
		    !pdc_cur_u32(c, &syms[i].len))
			return ENV_DAMAGED;
		ENV_TRY(cur_cstr(d, c, &syms[i].name));
		f->nr_symbols = i + 1;
	}
	if (f->type == PD_SP_DSO_DEX_FILE) {
		if (!pdc_cur_u32(c, &nr) || nr > pdc_cur_left(c) / 8)
			return ENV_DAMAGED;
		offs = pd_env_dec_array(d, nr, sizeof(*offs));
		ENV_NEED(offs);
		for (uint32_t i = 0; i < nr; i++)
			(void)pdc_cur_u64(c, &offs[i]);
		f->dex_file_offsets = offs;
		f->nr_dex_file_offsets = nr;
	}
	if ((f->type == PD_SP_DSO_ELF_FILE ||
	     f->type == PD_SP_DSO_KERNEL_MODULE) &&
	    pdc_cur_left(c) >= 8)
		(void)pdc_cur_u64(c, &f->file_offset_of_min_vaddr);
	return pdc_cur_left(c) ? ENV_DAMAGED : ENV_OK;
}

int pd_env_dec_simpleperf_file(struct env_dec *d, struct pdc_cur *c, int v2)
{
	struct pd_sp_file *files = NULL;
	const char **paths;
	uint32_t nr = 0;
	int nomem = 0;

	if (d->env->simpleperf_file_paths)
		return ENV_OK; /* FILE and FILE2 both: keep the first */
	for (const unsigned char *p = c->p; (size_t)(c->end - p) >= 4;) {
		uint32_t size = pd_load_u32(p, c->swap);

		if (size > (size_t)(c->end - p) - 4)
			break;
		nr++;
		p += 4 + (size_t)size;
	}
	paths = pd_env_dec_array(d, nr, sizeof(*paths));
	ENV_NEED(paths);
	d->env->simpleperf_file_paths = paths;
	if (!v2) {
		files = pd_env_dec_array(d, nr, sizeof(*files));
		ENV_NEED(files);
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct pdc_cur e = *c;
		uint32_t size = 0;
		int rc;

		(void)pdc_cur_u32(c, &size);
		e.p = c->p;
		e.end = c->p + size;
		if (v2) {
			paths[i] = proto_path(d, c->p, size, &nomem);
			if (nomem)
				return PD_ERR_NOMEM;
		} else {
			paths[i] = pd_env_dec_strndup(d, c->p, size);
			ENV_NEED(paths[i]);
			rc = sp_file_entry(d, &e, &files[i]);
			if (rc == PD_ERR_NOMEM)
				return rc;
			if (rc != ENV_OK) {
				d->env->nr_simpleperf_files = i + 1;
				return pd_env_dec_bad(
					d, &e,
					"file entry %" PRIu32
					" (%s) is not a simpleperf "
					"FILE entry",
					i, paths[i]);
			}
		}
		c->p += size;
		d->env->nr_simpleperf_files = i + 1;
	}
	if (pdc_cur_left(c))
		return pd_env_dec_bad(d, c, "file entry runs past the section");
	d->env->simpleperf_files = files;
	return ENV_OK;
}
