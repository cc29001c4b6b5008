/*
 * pda_elf.c - an ELF file opened for symbolization: its load segments,
 * GNU build-id and .gnu_debuglink, read once at open.  Symbols
 * (pda_symtab.c) and DWARF (pda_dwarf.c) hang off the same handle and
 * load on first use.
 *
 * Any ELF class, byte order and machine is read (libelf's gelf layer
 * converts), so captures from aarch64, armv7 or i686 hosts resolve here.
 */
#include "pda_elf_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* More program headers than any linker writes: a corrupt file. */
#define PDA_ELF_MAX_SEGS 4096

/* NT_GNU_BUILD_ID, in case an old elf.h lacks it. */
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

Elf_Scn *pda_elf_section(const struct pda_elf *e, const char *name,
			 GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		const char *sname;

		if (!gelf_getshdr(scn, shdr))
			continue;
		sname = elf_strptr(e->elf, e->shstrndx, shdr->sh_name);
		if (sname && !strcmp(sname, name))
			return scn;
	}
	return NULL;
}

Elf_Scn *pda_elf_find_table(Elf *elf, Elf64_Word type, GElf_Shdr *sh,
			    size_t *idx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	return NULL;
}

const char *pda_elf_scn_name(const struct pda_elf *e, const GElf_Shdr *shdr)
{
	const char *name = elf_strptr(e->elf, e->shstrndx, shdr->sh_name);

	return name ? name : "";
}

const struct pda_elf_seg *pda_elf_seg_of_vaddr(const struct pda_elf *e,
					       uint64_t vaddr)
{
	for (size_t i = 0; i < e->nr_segs; i++) {
		const struct pda_elf_seg *g = &e->segs[i];
		uint64_t sz = g->memsz > g->filesz ? g->memsz : g->filesz;

		if (sz && vaddr >= g->vaddr && vaddr - g->vaddr < sz)
			return g;
	}
	return NULL;
}

static int read_segments(struct pda_session *s, struct pda_elf *e)
{
	size_t nr_phdrs;

	if (elf_getphdrnum(e->elf, &nr_phdrs) != 0)
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: bad program headers: %s", e->path,
				   elf_errmsg(-1));
	if (nr_phdrs > PDA_ELF_MAX_SEGS)
		return pda_set_err(s, PD_ERR_FORMAT, "%s: %zu program headers",
				   e->path, nr_phdrs);
	if (!nr_phdrs)
		return 0;
	e->segs = pda_malloc(s, nr_phdrs * sizeof(*e->segs));
	if (!e->segs)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph))
			return pda_set_err(s, PD_ERR_FORMAT,
					   "%s: program header %zu: %s",
					   e->path, i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!e->has_span) {
			/* libdwfl's main.vaddr: p_vaddr & -p_align */
			e->span_lo = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align
						    : ph.p_vaddr;
			e->span_hi = ph.p_vaddr + ph.p_memsz;
			e->has_span = true;
		} else if (ph.p_vaddr + ph.p_memsz > e->span_hi) {
			e->span_hi = ph.p_vaddr + ph.p_memsz;
		}
		e->segs[e->nr_segs].vaddr = ph.p_vaddr;
		e->segs[e->nr_segs].offset = ph.p_offset;
		e->segs[e->nr_segs].filesz = ph.p_filesz;
		e->segs[e->nr_segs].memsz = ph.p_memsz;
		e->nr_segs++;
	}
	return 0;
}

/* The first NT_GNU_BUILD_ID note named "GNU" in data, if any. */
static bool build_id_from_notes(struct pda_elf *e, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) >
		       0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0) {
			e->build_id_size = nh.n_descsz < PDA_BUILD_ID_MAX
						   ? nh.n_descsz
						   : PDA_BUILD_ID_MAX;
			memcpy(e->build_id,
			       (const char *)data->d_buf + desc_off,
			       e->build_id_size);
			return true;
		}
		off = next;
	}
	return false;
}

/*
 * The build-id from the note sections or, in a file without section
 * headers, the PT_NOTE segments.  A malformed note is no build-id, not
 * an error: the file can still give symbols (perf reads it the same way).
 */
static void read_build_id(struct pda_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nr_phdrs;
	bool any_scn = false;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		Elf_Data *data;

		any_scn = true;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && build_id_from_notes(e, data))
			return;
	}
	if (any_scn || elf_getphdrnum(e->elf, &nr_phdrs) != 0)
		return;
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(e->elf, (int64_t)ph.p_offset,
					    ph.p_filesz, ELF_T_NHDR);
		if (data && build_id_from_notes(e, data))
			return;
	}
}

/* The bytes of the section called name, or NULL (none, or none in the
 * file). */
static Elf_Data *section_data(const struct pda_elf *e, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pda_elf_section(e, name, &sh);
	Elf_Data *data;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return NULL;
	data = elf_getdata(scn, NULL);
	return data && data->d_buf ? data : NULL;
}

/*
 * .gnu_debuglink: a NUL-terminated file name, zero padding to a multiple
 * of 4, then the CRC32 of the debug file in the file's byte order.
 */
static int read_debuglink(struct pda_session *s, struct pda_elf *e)
{
	Elf_Data *data = section_data(e, ".gnu_debuglink");
	Elf_Data crc_data, crc_src;
	const char *name;
	size_t len, crc_off;

	if (!data)
		return 0;
	name = data->d_buf;
	len = strnlen(name, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || len == data->d_size || crc_off + 4 > data->d_size) {
		pda_logf(s, PD_LOG_WARN, "%s: malformed .gnu_debuglink ignored",
			 e->path);
		return 0;
	}
	/* xlatetom turns the file's byte order into ours */
	crc_src.d_buf = (char *)data->d_buf + crc_off;
	crc_src.d_type = ELF_T_WORD;
	crc_src.d_size = 4;
	crc_src.d_version = EV_CURRENT;
	crc_data = crc_src;
	crc_data.d_buf = &e->debuglink_crc;
	if (!gelf_xlatetom(e->elf, &crc_data, &crc_src,
			   elf_getident(e->elf, NULL)[EI_DATA]))
		return 0;
	e->debuglink = pda_intern(s, name, len);
	return e->debuglink ? 0 : PD_ERR_NOMEM;
}

/*
 * .gnu_debugaltlink: a NUL-terminated file name, then the alt file's
 * build-id (the rest of the section).  A malformed one is none: then no
 * alt file is looked for, and libdw is given none (pda_dwarf.c).
 */
static int read_altlink(struct pda_session *s, struct pda_elf *e)
{
	Elf_Data *data = section_data(e, ".gnu_debugaltlink");
	const char *name;
	size_t len, id_size;

	if (!data)
		return 0;
	name = data->d_buf;
	len = strnlen(name, data->d_size);
	id_size = len < data->d_size ? data->d_size - len - 1 : 0;
	if (!len || !id_size || id_size > PDA_BUILD_ID_MAX) {
		pda_logf(s, PD_LOG_WARN,
			 "%s: malformed .gnu_debugaltlink ignored", e->path);
		return 0;
	}
	memcpy(e->altlink_id, name + len + 1, id_size);
	e->altlink_id_size = (unsigned)id_size;
	e->altlink = pda_intern(s, name, len);
	return e->altlink ? 0 : PD_ERR_NOMEM;
}

/* The rest of opening, once e->elf holds every byte of the file. */
static int read_elf(struct pda_session *s, struct pda_elf *e)
{
	GElf_Ehdr eh;
	int err;

	if (elf_kind(e->elf) != ELF_K_ELF)
		return pda_set_err(s, PD_ERR_FORMAT, "%s: not an ELF file",
				   e->path);
	if (!gelf_getehdr(e->elf, &eh))
		return pda_set_err(s, PD_ERR_FORMAT, "%s: %s", e->path,
				   elf_errmsg(-1));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN && eh.e_type != ET_REL)
		return pda_set_err(
			s, PD_ERR_FORMAT,
			"%s: ELF type %u is not an executable, shared "
			"object or relocatable object",
			e->path, (unsigned)eh.e_type);
	e->type = eh.e_type;
	e->machine = eh.e_machine;
	e->is64 = gelf_getclass(e->elf) == ELFCLASS64;
	if (elf_getshdrstrndx(e->elf, &e->shstrndx) != 0)
		e->shstrndx = 0;
	err = read_segments(s, e);
	if (err)
		return err;
	e->image = (const unsigned char *)elf_rawfile(e->elf, &e->image_size);
	if (!e->image)
		e->image_size = 0;
	{
		GElf_Shdr sh;

		e->has_debug_frame =
			pda_elf_section(e, ".debug_frame", &sh) ||
			pda_elf_section(e, ".zdebug_frame", &sh);
		e->has_tables =
			pda_elf_find_table(e->elf, SHT_SYMTAB, &sh, NULL) ||
			pda_elf_find_table(e->elf, SHT_DYNSYM, &sh, NULL);
		for (Elf_Scn *scn = NULL;
		     !e->compressed && (scn = elf_nextscn(e->elf, scn));)
			e->compressed = gelf_getshdr(scn, &sh) &&
					(sh.sh_flags & SHF_COMPRESSED);
	}
	read_build_id(e);
	err = read_debuglink(s, e);
	return err ? err : read_altlink(s, e);
}

static int open_elf(struct pda_session *s, struct pda_elf *e, int fd)
{
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	e->from_file = true;
	if (!e->elf)
		return pda_set_err(s, PD_ERR_FORMAT, "%s: %s", e->path,
				   elf_errmsg(-1));
	/*
	 * Take everything in (the mapping, or a read when mapping failed) so
	 * that the descriptor can go: a capture can name thousands of DSOs.
	 */
	if (elf_kind(e->elf) == ELF_K_ELF && elf_cntl(e->elf, ELF_C_FDREAD) != 0)
		return pda_set_err(s, PD_ERR_IO, "%s: %s", e->path,
				   elf_errmsg(-1));
	return read_elf(s, e);
}

/* A handle named name, nothing read yet; NULL on NOMEM. */
static struct pda_elf *new_elf(struct pda_session *s, const char *name)
{
	struct pda_elf *e;

	elf_version(EV_CURRENT);
	e = pda_zalloc(s, sizeof(*e));
	if (!e)
		return NULL;
	e->path = pda_intern(s, name, strlen(name));
	if (!e->path) {
		pda_free(s, e);
		return NULL;
	}
	return e;
}

int pda_elf_open_image(struct pda_session *s, const char *name,
		       const void *image, size_t size, struct pda_elf **out)
{
	struct pda_elf *e;
	int err;

	*out = NULL;
	e = new_elf(s, name);
	if (!e)
		return PD_ERR_NOMEM;
	/* libelf only reads an image opened ELF_C_READ: the cast is safe */
	e->elf = elf_memory((char *)(uintptr_t)image, size);
	err = e->elf ? read_elf(s, e)
		     : pda_set_err(s, PD_ERR_FORMAT, "%s: %s", name,
				   elf_errmsg(-1));
	if (err) {
		pda_elf_close(s, e);
		return err;
	}
	*out = e;
	return 0;
}

int pda_elf_open(struct pda_session *s, const char *path, struct pda_elf **out)
{
	struct pda_elf *e;
	struct stat st;
	int fd, err;

	*out = NULL;
	e = new_elf(s, path);
	if (!e)
		return PD_ERR_NOMEM;
	/* a FIFO would block the open, a device the reads: paths come
	 * from captures and binaries */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		pda_free(s, e);
		if (err == ENOENT || err == ENOTDIR)
			return pda_set_err(s, PD_ERR_NOTFOUND, "%s: %s", path,
					   strerror(err));
		return pda_set_err(s, PD_ERR_IO, "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		pda_free(s, e);
		return pda_set_err(s, PD_ERR_FORMAT, "%s: not a regular file",
				   path);
	}
	err = open_elf(s, e, fd);
	if (e->elf)
		elf_cntl(e->elf, ELF_C_FDDONE);
	close(fd);
	if (err) {
		pda_elf_close(s, e);
		return err;
	}
	*out = e;
	return 0;
}

void pda_elf_close(struct pda_session *s, struct pda_elf *e)
{
	if (!e)
		return;
	pda_dwarf_free(s, e->dwarf);
	pda_dwtype_free(s, e->dwtype);
	pda_got_free(s, e->got);
	pda_symtab_free(s, e->syms);
	pda_a2l_free(s, e->a2l);
	if (e->elf)
		elf_end(e->elf);
	pda_free(s, e->segs);
	pda_free(s, e);
}

void pda_elf_set_debug(struct pda_elf *e, struct pda_elf *debug)
{
	if (debug != e)
		e->debug = debug;
}

const char *pda_elf_altlink(const struct pda_elf *e, const unsigned char **id,
			    unsigned *size)
{
	*id = e->altlink_id;
	*size = e->altlink_id_size;
	return e->altlink;
}

void pda_elf_set_alt(struct pda_elf *e, struct pda_elf *alt)
{
	if (alt != e)
		e->alt = alt;
}

const unsigned char *pda_elf_image(const struct pda_elf *e, size_t *size)
{
	*size = e->image_size;
	return e->image;
}

Elf *pda_elf_begin_copy(const struct pda_elf *e)
{
	struct stat st;
	Elf *elf;
	int fd;

	if (!e->image)
		return NULL;
	/* libelf only reads an ELF_C_READ image; elf_memory's prototype is
	 * older than const */
	if (!e->compressed)
		return elf_memory((char *)(uintptr_t)e->image, e->image_size);
	/*
	 * An ELF_C_READ image's section headers are used in place, and
	 * libdw decompressing a section (elf_compress) rewrites its header:
	 * in the read-only mapping, a SIGSEGV (Go's binaries compress their
	 * DWARF).  ELF_C_READ_MMAP copies the headers: the file again, if
	 * it is the one read (its size).
	 */
	if (!e->from_file)
		return NULL;
	fd = open(e->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	elf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == e->image_size) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_cntl(elf, ELF_C_FDREAD) != 0) {
			elf_end(elf);
			elf = NULL;
		}
	}
	close(fd);
	return elf;
}

int pda_elf_section_at(const struct pda_elf *e, const char *name,
		       uint64_t *vaddr, uint64_t *off, uint64_t *size)
{
	GElf_Shdr sh;
	size_t image_size;

	if (!pda_elf_section(e, name, &sh) || sh.sh_type == SHT_NOBITS ||
	    !elf_rawfile(e->elf, &image_size) || sh.sh_offset > image_size ||
	    sh.sh_size > image_size - sh.sh_offset)
		return PD_ERR_NOTFOUND;
	*vaddr = sh.sh_addr;
	*off = sh.sh_offset;
	*size = sh.sh_size;
	return 0;
}

int pda_elf_load_span(const struct pda_elf *e, uint64_t *lo, uint64_t *hi)
{
	if (e->type == ET_REL || !e->has_span)
		return PD_ERR_NOTFOUND;
	*lo = e->span_lo;
	*hi = e->span_hi;
	return 0;
}

int pda_elf_map_bias(const struct pda_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias)
{
	uint64_t vaddr;

	if (e->type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	/* offset_to_vaddr would place pgoff in the segment before, whose
	 * last page the map's first page may share (lld's layouts) */
	for (size_t i = 0; i < e->nr_segs; i++) {
		const struct pda_elf_seg *g = &e->segs[i];

		if (g->offset >= pgoff && g->offset - pgoff < 0x10000) {
			*bias = start + (g->offset - pgoff) - g->vaddr;
			return 0;
		}
	}
	if (pda_elf_offset_to_vaddr(e, pgoff, &vaddr) < 0)
		return PD_ERR_NOTFOUND;
	*bias = start - vaddr;
	return 0;
}

void pda_elf_build_id(const struct pda_elf *e, const unsigned char **id,
		      unsigned *size)
{
	*id = e->build_id;
	*size = e->build_id_size;
}

bool pda_elf_has_debug_frame(const struct pda_elf *e)
{
	return e->has_debug_frame;
}

bool pda_elf_has_symtab(const struct pda_elf *e)
{
	GElf_Shdr sh;

	if (e->debug && pda_elf_has_symtab(e->debug))
		return true;
	return pda_elf_find_table(e->elf, SHT_SYMTAB, &sh, NULL) ||
	       pda_elf_section(e, ".gnu_debugdata", &sh);
}

bool pda_elf_has_symbols(const struct pda_elf *e)
{
	return e->has_tables || (e->debug && pda_elf_has_symbols(e->debug));
}

const char *pda_elf_debuglink(const struct pda_elf *e, uint32_t *crc)
{
	if (crc)
		*crc = e->debuglink ? e->debuglink_crc : 0;
	return e->debuglink;
}

/*
 * Where the page that a segment's first or last byte sits in spills past
 * the segment, a mapping of the file still covers those bytes (section
 * padding, the start of .bss); perf names them by file offset like any
 * other.  Pages are taken as 4 KiB.
 */
#define SLACK_PAGE ((uint64_t)4096)

int pda_elf_offset_to_vaddr(const struct pda_elf *e, uint64_t off,
			    uint64_t *vaddr)
{
	if (e->type == ET_REL) {
		*vaddr = off;
		return 0;
	}
	for (size_t i = 0; i < e->nr_segs; i++) {
		const struct pda_elf_seg *g = &e->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = g->vaddr + (off - g->offset);
			return 0;
		}
	}
	for (size_t i = 0; i < e->nr_segs; i++) {
		const struct pda_elf_seg *g = &e->segs[i];
		uint64_t lo = g->offset & ~(SLACK_PAGE - 1);
		uint64_t hi = g->offset + g->filesz;

		if (hi < g->offset || hi > UINT64_MAX - SLACK_PAGE)
			continue;
		hi = (hi + SLACK_PAGE - 1) & ~(SLACK_PAGE - 1);
		if (off >= lo && off < hi) {
			*vaddr = off - g->offset + g->vaddr;
			return 0;
		}
	}
	return PD_ERR_NOTFOUND;
}

int pda_elf_vaddr_to_offset(const struct pda_elf *e, uint64_t vaddr,
			    uint64_t *off)
{
	const struct pda_elf_seg *g;

	if (e->type == ET_REL) {
		*off = vaddr;
		return 0;
	}
	g = pda_elf_seg_of_vaddr(e, vaddr);
	if (g) {
		*off = vaddr - (g->vaddr - g->offset);
		return 0;
	}
	for (size_t i = 0; i < e->nr_segs; i++) {
		uint64_t lo, hi, sz;

		g = &e->segs[i];
		sz = g->memsz > g->filesz ? g->memsz : g->filesz;
		lo = g->vaddr & ~(SLACK_PAGE - 1);
		hi = g->vaddr + sz;
		if (hi < g->vaddr || hi > UINT64_MAX - SLACK_PAGE)
			continue;
		hi = (hi + SLACK_PAGE - 1) & ~(SLACK_PAGE - 1);
		if (vaddr >= lo && vaddr < hi) {
			*off = vaddr - g->vaddr + g->offset;
			return 0;
		}
	}
	return PD_ERR_NOTFOUND;
}

void pda_elf_arch(const struct pda_elf *e, struct pda_elf_arch *out)
{
	const char *ident = elf_getident(e->elf, NULL);

	out->machine = e->machine;
	out->is64 = e->is64;
	out->big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
}

int pda_elf_code(struct pda_elf *e, uint64_t vaddr, uint64_t size,
		 const unsigned char **bytes, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		Elf_Data *data;
		uint64_t base, off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		/* a relocatable object's addresses are file offsets */
		base = e->type == ET_REL ? sh.sh_offset : sh.sh_addr;
		if (vaddr < base || vaddr - base >= sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		off = vaddr - base;
		if (!data || !data->d_buf || off >= data->d_size)
			return PD_ERR_NOTFOUND;
		*bytes = (const unsigned char *)data->d_buf + off;
		*len = data->d_size - off < size ? (size_t)(data->d_size - off)
						 : (size_t)size;
		return 0;
	}
	return PD_ERR_NOTFOUND;
}

/* The mapping symbol or function at or below vaddr in elf's .symtab: 1
 * Thumb, 0 ARM, -1 none found. */
static int thumb_by_symtab(Elf *elf, uint64_t vaddr)
{
	GElf_Shdr symsh;
	Elf_Scn *scn = pda_elf_find_table(elf, SHT_SYMTAB, &symsh, NULL);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	uint64_t best = 0, func_best = 0;
	int kind = -1, func_kind = -1;
	size_t nr;

	if (!data || !symsh.sh_entsize)
		return -1;
	nr = data->d_size / symsh.sh_entsize;
	for (size_t i = 0; i < nr; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t v;

		if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!name)
			continue;
		v = sym.st_value & ~(uint64_t)1;
		if (name[0] == '$' && (name[1] == 't' || name[1] == 'a') &&
		    (name[2] == '\0' || name[2] == '.')) {
			if (v <= vaddr && (kind < 0 || v >= best)) {
				best = v;
				kind = name[1] == 't';
			}
		} else if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && v <= vaddr &&
			   vaddr - v < (sym.st_size ? sym.st_size : 1) &&
			   (func_kind < 0 || v >= func_best)) {
			func_best = v;
			func_kind = (int)(sym.st_value & 1);
		}
	}
	return kind >= 0 ? kind : func_kind;
}

bool pda_elf_arm_thumb(const struct pda_elf *e, uint64_t vaddr)
{
	int kind = -1;

	if (e->machine != EM_ARM)
		return false;
	if (e->debug)
		kind = thumb_by_symtab(e->debug->elf, vaddr);
	if (kind < 0)
		kind = thumb_by_symtab(e->elf, vaddr);
	return kind > 0;
}

const char *pda_elf_path(const struct pda_elf *e)
{
	return e->path;
}
