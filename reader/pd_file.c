/*
 * pd_file.c - opening a capture: the file header in either byte order,
 * the attrs section with its ids, the feature section table, pipe-mode
 * and directory-format captures.  format.md §1-§4.
 */
#include "pd_int.h"
#include "pdc_opts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#define PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" read as LE */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ull
#define PERF_MAGIC1 0x454c494646524550ull	/* "PERFFILE" */
#define PIPE_HEADER_SIZE 16
#define FILE_HEADER_SIZE 104
#define FILE_HEADER_MIN 72 /* perf before features were added */
#define MAX_DIR_FILES 4096

static int file_new(const struct pd_open_opts *opts, const char *name,
		    struct pd_file **out)
{
	static const struct pd_open_opts defaults = { .sz = sizeof(defaults) };
	struct pd_open_opts o;
	struct pd_mem mem = { { 0 } };
	struct pd_file *f;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	/* R2: an older caller's struct is read only as far as its sz */
	if (pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	opts = &o;
	if (opts->alloc)
		mem.hooks = *opts->alloc;
	f = pd_zalloc(&mem, sizeof(*f));
	if (!f)
		return PD_ERR_NOMEM;
	f->mem = mem;
	f->fd = -1;
	f->log.fn = opts->log;
	f->log.arg = opts->log_arg;
	f->log.level = opts->log_level;
	f->sample_id_pos = -1;
	f->trailer_is_pos = -1;
	f->name = pd_strndup(&mem, name, strlen(name));
	if (!f->name) {
		pd_free(&mem, f);
		return PD_ERR_NOMEM;
	}
	*out = f;
	return 0;
}

static int open_fail(struct pd_file *f, const struct pd_open_opts *opts,
		     int rc, struct pd_file **out)
{
	if (opts && PDC_OPTS_HAS(opts, struct pd_open_opts, errbuf_size) &&
	    opts->errbuf && opts->errbuf_size) {
		if (f && f->errmsg[0])
			snprintf(opts->errbuf, opts->errbuf_size, "%s",
				 f->errmsg);
		else
			snprintf(opts->errbuf, opts->errbuf_size, "%s",
				 pd_strerror(rc));
	}
	pd_file_close(f);
	*out = NULL;
	return rc;
}

void pd_file_close(struct pd_file *f)
{
	struct pd_mem mem;

	if (!f)
		return;
	mem = f->mem;
	for (size_t i = 0; i < f->nr_regions; i++)
		if (f->regions[i].unmap)
			munmap(f->regions[i].unmap, f->regions[i].map_size);
	pd_free(&mem, f->regions);
	pd_free(&mem, f->unzstd_buf);
	if (f->own_fd)
		close(f->fd);
	pd_file_release_evsels(f);
	for (unsigned i = 0; i < PD_FEAT_MAX; i++)
		pd_free(&mem, f->feat[i].owned);
	pd_env_free(f, f->env);
	pd_free(&mem, f->name);
	pd_free(&mem, f);
}

const struct pd_header_info *pd_file_header(const struct pd_file *f)
{
	return &f->hdr;
}

static int add_region(struct pd_file *f, const unsigned char *base,
		      uint64_t map_size, uint64_t start, uint64_t end,
		      void *unmap)
{
	struct pd_region *r;

	r = pd_realloc(&f->mem, f->regions,
		       (f->nr_regions + 1) * sizeof(*f->regions));
	if (!r)
		return PD_ERR_NOMEM;
	f->regions = r;
	r += f->nr_regions++;
	r->base = base;
	r->map_size = map_size;
	r->start = start;
	r->end = end;
	r->declared_end = end;
	r->unmap = unmap;
	return 0;
}

/* Map fd read-only; an empty file maps to nothing. */
static int map_fd(struct pd_file *f, int fd, const char *path,
		  const unsigned char **base, uint64_t *size, void **unmap)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0)
		return pd_set_err(f, PD_ERR_IO, "cannot stat '%s': %s", path,
				  strerror(errno));
	*size = (uint64_t)st.st_size;
	*base = NULL;
	*unmap = NULL;
	if (st.st_size == 0)
		return 0;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return pd_set_err(f, PD_ERR_IO, "cannot map '%s': %s", path,
				  strerror(errno));
	/* no read-around: see advise_metadata() (a failure costs reads) */
	madvise(p, (size_t)st.st_size, MADV_RANDOM);
	*base = p;
	*unmap = p;
	return 0;
}

static int check_magic(struct pd_file *f, const unsigned char *p, size_t len)
{
	uint64_t magic;

	if (len < 8)
		return PD_CORRUPT(f,
				  "not a perf.data file: %zu bytes, too short "
				  "for the magic",
				  len);
	memcpy(&magic, p, 8);
	if (magic == PERF_MAGIC2) {
		f->swap = 0;
	} else if (magic == PERF_MAGIC2_SWAPPED) {
		f->swap = 1;
	} else if (magic == PERF_MAGIC1 ||
		   magic == __builtin_bswap64(PERF_MAGIC1)) {
		return pd_set_err(f, PD_ERR_UNSUPPORTED,
				  "perf.data version 1 ('PERFFILE' magic, "
				  "perf before 2.6.37) is not supported");
	} else if (p[0] == 0x1f && p[1] == 0x8b) {
		return pd_set_err(f, PD_ERR_UNSUPPORTED,
				  "not a perf.data file but gzip data: "
				  "gunzip it first");
	} else if (memcmp(p, "BZh", 3) == 0 ||
		   memcmp(p, "\xfd" "7zXZ", 5) == 0) {
		return pd_set_err(f, PD_ERR_UNSUPPORTED,
				  "not a perf.data file but bzip2 or xz data: "
				  "decompress it first");
	} else {
		return PD_CORRUPT(f,
				  "not a perf.data file: bad magic "
				  "0x%016llx at offset 0",
				  (unsigned long long)magic);
	}
	f->hdr.swap = f->swap;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	f->hdr.big_endian = !f->swap;
#else
	f->hdr.big_endian = f->swap;
#endif
	return 0;
}

/* [off, off+size) lies inside [0, limit) */
static bool in_bounds(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

static int read_attrs(struct pd_file *f, const unsigned char *base,
		      uint64_t file_size)
{
	const struct pd_header_info *h = &f->hdr;
	uint64_t nr, stride = h->attr_size;
	uint64_t *ids = NULL;
	int rc = 0;

	if (h->attrs_size == 0)
		return 0;
	if (stride < 64 + 16)
		return PD_CORRUPT(f,
				  "file header: attr_size %llu < %u "
				  "(perf_event_attr v0 + ids section)",
				  (unsigned long long)stride, 64 + 16);
	if (!in_bounds(h->attrs_offset, h->attrs_size, file_size))
		return pd_set_err(f, PD_ERR_TRUNCATED,
				  "attrs section 0x%llx+%llu runs past the "
				  "end of the file (%llu bytes)",
				  (unsigned long long)h->attrs_offset,
				  (unsigned long long)h->attrs_size,
				  (unsigned long long)file_size);
	if (h->attrs_size % stride)
		pd_logf(&f->log, PD_LOG_WARN,
			"%s: attrs section size %llu is not a multiple of "
			"attr_size %llu; the %llu extra bytes are ignored",
			f->name, (unsigned long long)h->attrs_size,
			(unsigned long long)stride,
			(unsigned long long)(h->attrs_size % stride));
	nr = h->attrs_size / stride;
	for (uint64_t i = 0; i < nr && rc == 0; i++) {
		const uint64_t off = h->attrs_offset + i * stride;
		const unsigned char *p = base + off;
		struct pd_attr attr;
		size_t attr_len;
		uint64_t ids_off, ids_size, nr_ids;

		rc = pd_attr_decode(f, p, stride - 16, off, &attr, &attr_len);
		if (rc < 0)
			break;
		ids_off = pd_load_u64(p + stride - 16, f->swap);
		ids_size = pd_load_u64(p + stride - 8, f->swap);
		if (!in_bounds(ids_off, ids_size, file_size) ||
		    ids_size % 8) {
			rc = PD_CORRUPT(f,
					"attr %llu at offset 0x%llx: ids "
					"section 0x%llx+%llu is outside the "
					"file or not a multiple of 8",
					(unsigned long long)i,
					(unsigned long long)off,
					(unsigned long long)ids_off,
					(unsigned long long)ids_size);
			break;
		}
		nr_ids = ids_size / 8;
		{
			uint64_t *grown = pd_realloc(&f->mem, ids,
						     (nr_ids + 1) * sizeof(*ids));

			if (!grown) {
				rc = PD_ERR_NOMEM;
				break;
			}
			ids = grown;
		}
		for (uint64_t j = 0; j < nr_ids; j++)
			ids[j] = pd_load_u64(base + ids_off + j * 8, f->swap);
		rc = pd_file_add_evsel(f, &attr, ids, nr_ids, NULL);
	}
	pd_free(&f->mem, ids);
	return rc;
}

/*
 * The feature table follows the data section: one {offset, size} per set
 * bit, in bit order.  A section that lies outside the file is dropped
 * with a warning; the others are kept (E5).
 */
static int read_feature_table(struct pd_file *f, const unsigned char *base,
			      uint64_t file_size)
{
	const struct pd_header_info *h = &f->hdr;
	uint64_t table = h->data_offset + h->data_size;
	unsigned n = 0;

	for (unsigned bit = 1; bit < PD_FEAT_MAX; bit++) {
		uint64_t off, size, ent;

		if (!(h->features[bit / 64] >> (bit % 64) & 1))
			continue;
		ent = table + (uint64_t)n++ * 16;
		if (!in_bounds(ent, 16, file_size)) {
			pd_logf(&f->log, PD_LOG_WARN,
				"%s: feature table entry for %s at offset "
				"0x%llx is past the end of the file; features "
				"from here on are missing",
				f->name,
				pd_feature_name(bit) ? pd_feature_name(bit)
						     : "?",
				(unsigned long long)ent);
			return 0;
		}
		off = pd_load_u64(base + ent, f->swap);
		size = pd_load_u64(base + ent + 8, f->swap);
		if (!in_bounds(off, size, file_size) ||
		    (size && off < h->data_offset + h->data_size &&
		     off + size > h->data_offset)) {
			pd_logf(&f->log, PD_LOG_WARN,
				"%s: feature %s: section 0x%llx+%llu is outside "
				"the file or overlaps the data; skipped",
				f->name,
				pd_feature_name(bit) ? pd_feature_name(bit)
						     : "?",
				(unsigned long long)off,
				(unsigned long long)size);
			continue;
		}
		f->feat[bit].data = base + off;
		f->feat[bit].size = (size_t)size;
	}
	return 0;
}

/*
 * Opening a capture reads its metadata only: the header and attrs before
 * the data section, the feature table and sections after it.  Around each
 * page touched the kernel would read ahead or behind by read_ahead_kb
 * (8 MiB on bench/'s machine), megabytes of the data section that `info
 * --header-only` has no use for; so our own mapping is advised
 * MADV_RANDOM (map_fd) and the metadata asked for whole here, to be read
 * in one go rather than a page at a time.  pd_reader_new() advises the
 * data section MADV_SEQUENTIAL when records are read.
 */
static void advise_metadata(const unsigned char *base, uint64_t file_size,
			    uint64_t data_start, uint64_t data_end)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const uint64_t tail = data_end & ~(page - 1);

	madvise((void *)(uintptr_t)base, (size_t)data_start, MADV_WILLNEED);
	if (tail < file_size)
		madvise((void *)(uintptr_t)(base + tail),
			(size_t)(file_size - tail), MADV_WILLNEED);
}

static int parse_file_header(struct pd_file *f, const unsigned char *base,
			     uint64_t file_size)
{
	struct pd_header_info *h = &f->hdr;
	const int sw = f->swap;
	uint64_t data_end;

	if (file_size < 16)
		return pd_set_err(f, PD_ERR_TRUNCATED,
				  "file header: %llu bytes, need 16",
				  (unsigned long long)file_size);
	h->header_size = pd_load_u64(base + 8, sw);
	h->file_size = file_size;
	if (h->header_size == PIPE_HEADER_SIZE) {
		h->kind = PD_KIND_PIPE;
		h->data_offset = PIPE_HEADER_SIZE;
		h->data_size = file_size - PIPE_HEADER_SIZE;
		return add_region(f, base, file_size, PIPE_HEADER_SIZE,
				  file_size, NULL);
	}
	if (h->header_size < FILE_HEADER_MIN)
		return PD_CORRUPT(f, "file header: size %llu < %u",
				  (unsigned long long)h->header_size,
				  FILE_HEADER_MIN);
	if (file_size < FILE_HEADER_MIN)
		return pd_set_err(f, PD_ERR_TRUNCATED,
				  "file header: %llu bytes, need %u",
				  (unsigned long long)file_size,
				  FILE_HEADER_MIN);
	h->kind = PD_KIND_FILE;
	h->attr_size = pd_load_u64(base + 16, sw);
	h->attrs_offset = pd_load_u64(base + 24, sw);
	h->attrs_size = pd_load_u64(base + 32, sw);
	h->data_offset = pd_load_u64(base + 40, sw);
	h->data_size = pd_load_u64(base + 48, sw);
	h->event_types_offset = pd_load_u64(base + 56, sw);
	h->event_types_size = pd_load_u64(base + 64, sw);
	if (h->header_size >= FILE_HEADER_SIZE && file_size >= FILE_HEADER_SIZE)
		for (int i = 0; i < 4; i++)
			h->features[i] = pd_load_u64(base + 72 + 8 * i, sw);
	h->features[0] &= ~1ull; /* HEADER_RESERVED is always clear */

	if (h->data_offset > file_size)
		return pd_set_err(f, PD_ERR_TRUNCATED,
				  "data section starts at 0x%llx, past the end "
				  "of the file (%llu bytes)",
				  (unsigned long long)h->data_offset,
				  (unsigned long long)file_size);
	if (h->data_offset < FILE_HEADER_MIN)
		return PD_CORRUPT(f,
				  "file header: data section at 0x%llx overlaps "
				  "the header",
				  (unsigned long long)h->data_offset);
	if (h->attrs_size && h->attrs_offset < h->data_offset &&
	    h->attrs_offset + h->attrs_size > h->data_offset &&
	    h->attrs_offset + h->attrs_size >= h->attrs_offset)
		return PD_CORRUPT(f,
				  "file header: attrs section 0x%llx+%llu "
				  "overlaps the data section at 0x%llx",
				  (unsigned long long)h->attrs_offset,
				  (unsigned long long)h->attrs_size,
				  (unsigned long long)h->data_offset);
	if (f->own_map) {
		const uint64_t left = file_size - h->data_offset;
		const uint64_t data_len =
			h->data_size && h->data_size <= left ? h->data_size
							     : left;

		advise_metadata(base, file_size, h->data_offset,
				h->data_offset + data_len);
	}
	PD_TRY(read_attrs(f, base, file_size));

	if (h->data_size == 0 && file_size > h->data_offset) {
		/* perf record was killed before it rewrote the header */
		pd_logf(&f->log, PD_LOG_WARN,
			"%s: the header's data size is 0 (was perf record "
			"killed?); reading records up to the end of the file "
			"and ignoring the feature sections",
			f->name);
		memset(h->features, 0, sizeof(h->features));
		data_end = file_size;
	} else {
		data_end = h->data_offset + h->data_size;
		if (data_end < h->data_offset || data_end > file_size) {
			/* the reader reports what was lost */
			PD_TRY(add_region(f, base, file_size, h->data_offset,
					  file_size, NULL));
			f->regions[0].declared_end =
				data_end < h->data_offset ? UINT64_MAX : data_end;
			return 0;
		}
		PD_TRY(read_feature_table(f, base, file_size));
	}
	return add_region(f, base, file_size, h->data_offset, data_end, NULL);
}

#define ZSTD_FRAME_MAGIC "\x28\xb5\x2f\xfd"
#define MAX_UNZSTD ((uint64_t)1 << 34)

/*
 * A capture stored zstd-compressed as a whole (NAME.perf.data.zst, as
 * testdata keeps them) is decompressed into memory the file owns.
 */
static int unzstd(struct pd_file *f, const unsigned char *src, uint64_t len,
		  unsigned char **out, uint64_t *out_len)
{
	ZSTD_DStream *ds = pd_dstream_new(&f->mem);
	ZSTD_inBuffer in = { src, (size_t)len, 0 };
	unsigned char *buf = NULL;
	size_t cap = 0, used = 0;
	int rc = 0;

	if (!ds)
		return PD_ERR_NOMEM;
	for (;;) {
		ZSTD_outBuffer ob;
		size_t ret;

		if (cap - used < (1u << 20)) {
			if (pd_grow(&f->mem, (void **)&buf, 1, &cap,
				    cap ? cap * 2 : (size_t)len * 4 + (1u << 20),
				    MAX_UNZSTD) < 0) {
				rc = PD_ERR_NOMEM;
				break;
			}
		}
		ob.dst = buf + used;
		ob.size = cap - used;
		ob.pos = 0;
		ret = ZSTD_decompressStream(ds, &ob, &in);
		used += ob.pos;
		if (ZSTD_isError(ret) &&
		    ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation) {
			rc = PD_ERR_NOMEM;
			break;
		}
		if (ZSTD_isError(ret)) {
			rc = PD_CORRUPT(f, "zstd-compressed file: %s at input "
					"offset 0x%zx",
					pd_zstd_strerror(ret), in.pos);
			break;
		}
		if (in.pos == in.size && ob.pos < ob.size)
			break;
	}
	ZSTD_freeDStream(ds);
	if (rc < 0) {
		pd_free(&f->mem, buf);
		return rc;
	}
	*out = buf;
	*out_len = used;
	return 0;
}

/* own_map: base is our mapping of the file (map_fd), not a caller's
 * buffer, so that advise_metadata() may advise it. */
static int open_mapped(struct pd_file *f, const unsigned char *base,
		       uint64_t size, bool own_map)
{
	if (size >= 4 && memcmp(base, ZSTD_FRAME_MAGIC, 4) == 0 &&
	    !f->unzstd_buf) {
		unsigned char *buf;
		uint64_t len;

		PD_TRY(unzstd(f, base, size, &buf, &len));
		f->unzstd_buf = buf;
		base = buf;
		size = len;
		own_map = false;
	}
	f->own_map = own_map;
	PD_TRY(check_magic(f, base, size));
	PD_TRY(parse_file_header(f, base, size));
	PD_TRY(pd_file_apply_event_desc(f));
	return pd_file_name_tracepoints(f);
}

/* opts->name when the caller's struct has it (R2), else "<memory>" */
static const char *mem_name(const struct pd_open_opts *opts)
{
	if (opts &&
	    opts->sz >= offsetof(struct pd_open_opts, name) +
				sizeof(opts->name) &&
	    opts->name)
		return opts->name;
	return "<memory>";
}

int pd_file_open_mem(const void *buf, size_t len,
		     const struct pd_open_opts *opts, struct pd_file **out)
{
	struct pd_file *f;
	int rc;

	if (!out || (!buf && len))
		return PD_ERR_API;
	rc = file_new(opts, mem_name(opts), &f);
	if (rc < 0)
		return open_fail(NULL, opts, rc, out);
	rc = open_mapped(f, buf, len, false);
	if (rc < 0)
		return open_fail(f, opts, rc, out);
	*out = f;
	return 0;
}

/*
 * The header file's mapping: region 0 reads from it, unless the file was
 * a .zst whose inflated copy the regions use instead.
 */
static void adopt_map(struct pd_file *f, void *unmap, uint64_t size)
{
	if (!unmap)
		return;
	if (f->nr_regions && !f->unzstd_buf && !f->regions[0].unmap) {
		f->regions[0].unmap = unmap;
		f->regions[0].map_size = size;
	} else {
		munmap(unmap, size);
	}
}

static int data_file_cmp(const void *a, const void *b)
{
	const long na = *(const long *)a, nb = *(const long *)b;

	return na < nb ? -1 : na > nb;
}

/*
 * One file of a directory capture: a regular file in the directory
 * itself, never a link (it could name any file on the host) nor a FIFO
 * or device (opening or reading one could block forever): perf writes
 * only regular files there.
 */
static int open_dir_file(struct pd_file *f, const char *sub, int *out)
{
	struct stat st;
	int fd = open(sub, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
				   O_NOCTTY);

	if (fd < 0 && errno == ELOOP)
		return pd_set_err(f, PD_ERR_FORMAT,
				  "'%s' is a symbolic link: a directory "
				  "capture's files must be regular files",
				  sub);
	if (fd < 0)
		return pd_set_err(f, PD_ERR_IO, "cannot open '%s': %s", sub,
				  strerror(errno));
	if (fstat(fd, &st) < 0) {
		const int err = errno;

		close(fd);
		return pd_set_err(f, PD_ERR_IO, "cannot stat '%s': %s", sub,
				  strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pd_set_err(f, PD_ERR_FORMAT,
				  "'%s' is not a regular file: a directory "
				  "capture's files must be",
				  sub);
	}
	*out = fd;
	return 0;
}

/*
 * `perf record --threads` writes a directory: "data" holds the header,
 * attrs, features and the main thread's records; each "data.N" holds
 * one writer thread's records, with no header of its own.
 */
static int open_dir(struct pd_file *f, const char *path)
{
	char sub[4096];
	long nums[MAX_DIR_FILES];
	size_t nr = 0;
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	dir = opendir(path);
	if (!dir)
		return pd_set_err(f, PD_ERR_IO, "cannot open directory '%s': %s",
				  path, strerror(errno));
	while ((de = readdir(dir)) != NULL) {
		char *end;
		long n;

		if (strncmp(de->d_name, "data.", 5) != 0)
			continue;
		n = strtol(de->d_name + 5, &end, 10);
		if (*end || end == de->d_name + 5 || n < 0)
			continue;
		if (nr == MAX_DIR_FILES) {
			closedir(dir);
			return pd_set_err(f, PD_ERR_UNSUPPORTED,
					  "'%s': more than %d data files", path,
					  MAX_DIR_FILES);
		}
		nums[nr++] = n;
	}
	closedir(dir);
	qsort(nums, nr, sizeof(nums[0]), data_file_cmp);

	for (size_t i = 0; i <= nr && rc == 0; i++) {
		const unsigned char *base;
		uint64_t size;
		void *unmap;
		int fd = -1;

		if (i == 0)
			snprintf(sub, sizeof(sub), "%s/data", path);
		else
			snprintf(sub, sizeof(sub), "%s/data.%ld", path,
				 nums[i - 1]);
		rc = open_dir_file(f, sub, &fd);
		if (rc < 0)
			return rc;
		rc = map_fd(f, fd, sub, &base, &size, &unmap);
		close(fd);
		if (rc < 0)
			return rc;
		if (i == 0) {
			rc = open_mapped(f, base, size, true);
			adopt_map(f, unmap, size);
			if (rc == 0 && f->hdr.kind != PD_KIND_FILE)
				rc = PD_CORRUPT(f,
						"'%s': a directory capture's "
						"header must not be pipe mode",
						sub);
			f->hdr.kind = PD_KIND_DIR;
		} else {
			rc = add_region(f, base, size, 0, size, unmap);
			if (rc < 0 && unmap)
				munmap(unmap, size);
		}
	}
	return rc;
}

int pd_file_open(const char *path, const struct pd_open_opts *opts,
		 struct pd_file **out)
{
	struct pd_file *f;
	const unsigned char *base;
	struct stat st;
	uint64_t size;
	void *unmap;
	int fd, rc;

	if (!path || !out)
		return PD_ERR_API;
	rc = file_new(opts, path, &f);
	if (rc < 0)
		return open_fail(NULL, opts, rc, out);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = open_dir(f, path);
		if (rc < 0)
			return open_fail(f, opts, rc, out);
		*out = f;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = pd_set_err(f, errno == ENOENT ? PD_ERR_NOTFOUND : PD_ERR_IO,
				"cannot open '%s': %s", path, strerror(errno));
		return open_fail(f, opts, rc, out);
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a FIFO or character device: stream it */
		pd_free(&f->mem, f->name);
		f->name = NULL;
		pd_file_close(f);
		rc = pd_file_open_fd(fd, path, opts, out);
		if (rc == 0)
			(*out)->own_fd = true;
		else
			close(fd);
		return rc;
	}
	rc = map_fd(f, fd, path, &base, &size, &unmap);
	close(fd);
	if (rc < 0)
		return open_fail(f, opts, rc, out);
	rc = open_mapped(f, base, size, true);
	adopt_map(f, unmap, size);
	if (rc < 0)
		return open_fail(f, opts, rc, out);
	*out = f;
	return 0;
}

int pd_file_open_fd(int fd, const char *name, const struct pd_open_opts *opts,
		    struct pd_file **out)
{
	unsigned char hdr[PIPE_HEADER_SIZE];
	char fdname[32];
	struct pd_file *f;
	size_t got = 0;
	int rc;

	if (fd < 0 || !out)
		return PD_ERR_API;
	if (!name) {
		snprintf(fdname, sizeof(fdname), "<fd %d>", fd);
		name = fdname;
	}
	rc = file_new(opts, name, &f);
	if (rc < 0)
		return open_fail(NULL, opts, rc, out);
	if (opts &&
	    opts->sz >= offsetof(struct pd_open_opts, head_len) +
				sizeof(opts->head_len) &&
	    opts->head_len) {
		if (opts->head_len > sizeof(hdr) || !opts->head) {
			rc = pd_set_err(f, PD_ERR_API,
					"%zu bytes read ahead: at most %zu",
					opts->head_len, sizeof(hdr));
			return open_fail(f, opts, rc, out);
		}
		memcpy(hdr, opts->head, opts->head_len);
		got = opts->head_len;
	}
	while (got < sizeof(hdr)) {
		ssize_t n = read(fd, hdr + got, sizeof(hdr) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = pd_set_err(f, PD_ERR_IO, "cannot read '%s': %s",
					name, strerror(errno));
			return open_fail(f, opts, rc, out);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	rc = check_magic(f, hdr, got);
	if (rc == 0 && got < sizeof(hdr))
		rc = pd_set_err(f, PD_ERR_TRUNCATED,
				"pipe header: %zu bytes, need %d", got,
				PIPE_HEADER_SIZE);
	if (rc < 0)
		return open_fail(f, opts, rc, out);
	f->hdr.header_size = pd_load_u64(hdr + 8, f->swap);
	if (f->hdr.header_size != PIPE_HEADER_SIZE) {
		rc = pd_set_err(f, PD_ERR_UNSUPPORTED,
				"'%s' is a perf.data file (header size %llu), "
				"not a pipe-mode stream: open it by path",
				name, (unsigned long long)f->hdr.header_size);
		return open_fail(f, opts, rc, out);
	}
	f->hdr.kind = PD_KIND_PIPE;
	f->hdr.data_offset = PIPE_HEADER_SIZE;
	f->fd = fd;
	*out = f;
	return 0;
}
