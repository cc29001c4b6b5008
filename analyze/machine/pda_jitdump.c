/*
 * pda_jitdump.c - JIT code from a jitdump file (jit-PID.dump), the
 * format of tools/perf/util/jitdump.h that `perf inject --jit` reads.
 *
 * A JIT (the JVM's perf agent, V8 --perf-prof, .NET, Wasmtime...) writes
 * the file and maps it executable once, so that the capture holds an
 * MMAP of it: pda_machine.c notes the path on the process's JIT DSO,
 * and pda_jit_load reads it instead of perf-PID.map.
 *
 * Layout: a header (magic "JiTD" 0x4A695444 in the writer's byte order,
 * version 1, total_size, elf_mach, pad, pid, timestamp, flags), then
 * records, each a prefix (id, total_size, timestamp) and a body:
 * JIT_CODE_LOAD (pid, tid, vma, code_addr, code_size, code_index, the
 * name NUL-terminated, the code bytes: the record's last code_size
 * bytes); JIT_CODE_MOVE (pid, tid, vma, old_code_addr, new_code_addr,
 * code_size, code_index); DEBUG_INFO, CLOSE, UNWINDING_INFO and ids not
 * known are skipped by their size.  A record whose size does not fit
 * (shorter than its body, past the file's end, a name with no NUL
 * inside) ends the file with a warning: a JIT killed mid-write leaves a
 * partial last record.
 *
 * perf inject writes one ELF file per load; here one ELF image in memory
 * holds them all, a PROGBITS section and a FUNC symbol per function at
 * its address, so that annotate reads their code as any binary's.  A
 * function loaded again at the same address: the last load wins, as in
 * perf-PID.map (times are not compared).
 */
#include "pda_machine_int.h"
#include "pda_symbols_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SW 0x4454694Au
#define HEADER_MIN 40 /* magic .. flags */
#define PREFIX 16
#define LOAD_BODY 40  /* pid tid vma code_addr code_size code_index */
#define MOVE_BODY 48  /* pid tid vma old new code_size code_index */
#define JIT_CODE_LOAD 0
#define JIT_CODE_MOVE 1
#define JITSYMS_MAX ((size_t)1 << 25)
/* sections an ELF numbers without extended numbering, less ours */
#define IMAGE_MAX_FUNCS 0xfe00u

struct rd {
	const unsigned char *p;
	bool swap;
};

static uint32_t rd32(const struct rd *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r->p + off, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct rd *r, size_t off)
{
	uint64_t v;

	memcpy(&v, r->p + off, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

static int add(struct pda_session *s, struct pda_jitmap *m, uint64_t start,
	       uint64_t size, const char *name, const unsigned char *code)
{
	if (!size || size > UINT64_MAX - start) {
		m->nr_bad++;
		return 0;
	}
	if (PDA_GROW(s, m->v, m->alloc, m->nr + 1, JITSYMS_MAX) < 0)
		return PD_ERR_NOMEM;
	m->v[m->nr++] = (struct pda_jitsym){start, start + size, name, code};
	return 0;
}

/* The load of code_index, the latest one (for a MOVE), or NULL. */
static const struct pda_jitsym *by_index(const struct pda_jitmap *m,
					 const uint64_t *index,
					 uint64_t code_index)
{
	for (size_t i = m->nr; i > 0; i--)
		if (index[i - 1] == code_index)
			return &m->v[i - 1];
	return NULL;
}

/*
 * m's functions with code as an ELF64 image in this host's byte order:
 * the header, a PT_LOAD per function (symbols are looked up by file
 * offset, as perf keys them), the code, .symtab, .strtab, .shstrtab, the
 * section headers.  *image NULL when there is no code to show.
 */
static int make_image(struct pda_session *s, const struct pda_jitmap *m,
		      uint16_t machine, void **image, size_t *image_size)
{
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t n = 0, off, sym_off, str_off, str_len = 1, shstr_off, sh_off,
	       size;
	unsigned char *img;
	Elf64_Ehdr eh;
	size_t k = 0, str = 1;

	*image = NULL;
	*image_size = 0;
	for (size_t i = 0; i < m->nr; i++)
		if (m->v[i].code) {
			n++;
			str_len += strlen(m->v[i].name) + 1;
		}
	if (!n || n > IMAGE_MAX_FUNCS)
		return 0;
	off = sizeof(eh) + n * sizeof(Elf64_Phdr);
	for (size_t i = 0; i < m->nr; i++)
		if (m->v[i].code)
			off = (off + 15) / 16 * 16 + (m->v[i].end - m->v[i].start);
	sym_off = (off + 7) / 8 * 8;
	str_off = sym_off + (n + 1) * sizeof(Elf64_Sym);
	shstr_off = str_off + str_len;
	sh_off = (shstr_off + sizeof(shstr) + 7) / 8 * 8;
	size = sh_off + (n + 4) * sizeof(Elf64_Shdr);
	img = pda_zalloc(s, size);
	if (!img)
		return PD_ERR_NOMEM;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
				      ? ELFDATA2MSB
				      : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)n;
	eh.e_shoff = sh_off;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)(n + 4);
	eh.e_shstrndx = (uint16_t)(n + 3);
	memcpy(img, &eh, sizeof(eh));
	off = sizeof(eh) + n * sizeof(Elf64_Phdr);
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_jitsym *j = &m->v[i];
		const uint64_t len = j->end - j->start;
		Elf64_Shdr sh = {0};
		Elf64_Sym sym = {0};
		Elf64_Phdr ph = {0};
		const size_t nlen = strlen(j->name) + 1;

		if (!j->code)
			continue;
		off = (off + 15) / 16 * 16;
		memcpy(img + off, j->code, len);
		k++;
		sh.sh_name = 1; /* .text */
		sh.sh_type = SHT_PROGBITS;
		sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
		sh.sh_addr = j->start;
		sh.sh_offset = off;
		sh.sh_size = len;
		sh.sh_addralign = 16;
		memcpy(img + sh_off + k * sizeof(sh), &sh, sizeof(sh));
		ph.p_type = PT_LOAD;
		ph.p_flags = PF_R | PF_X;
		ph.p_offset = off;
		ph.p_vaddr = ph.p_paddr = j->start;
		ph.p_filesz = ph.p_memsz = len;
		ph.p_align = 1;
		memcpy(img + sizeof(eh) + (k - 1) * sizeof(ph), &ph, sizeof(ph));
		sym.st_name = (Elf64_Word)str;
		sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym.st_shndx = (Elf64_Section)k;
		sym.st_value = j->start;
		sym.st_size = len;
		memcpy(img + sym_off + k * sizeof(sym), &sym, sizeof(sym));
		memcpy(img + str_off + str, j->name, nlen);
		str += nlen;
		off += len;
	}
	{
		Elf64_Shdr sh[3] = {{0}};

		sh[0].sh_name = 7; /* .symtab */
		sh[0].sh_type = SHT_SYMTAB;
		sh[0].sh_offset = sym_off;
		sh[0].sh_size = (n + 1) * sizeof(Elf64_Sym);
		sh[0].sh_link = (Elf64_Word)(n + 2);
		sh[0].sh_info = 1;
		sh[0].sh_addralign = 8;
		sh[0].sh_entsize = sizeof(Elf64_Sym);
		sh[1].sh_name = 15; /* .strtab */
		sh[1].sh_type = SHT_STRTAB;
		sh[1].sh_offset = str_off;
		sh[1].sh_size = str_len;
		sh[1].sh_addralign = 1;
		sh[2].sh_name = 23; /* .shstrtab */
		sh[2].sh_type = SHT_STRTAB;
		sh[2].sh_offset = shstr_off;
		sh[2].sh_size = sizeof(shstr);
		sh[2].sh_addralign = 1;
		memcpy(img + sh_off + (n + 1) * sizeof(Elf64_Shdr), sh,
		       sizeof(sh));
	}
	memcpy(img + shstr_off, shstr, sizeof(shstr));
	*image = img;
	*image_size = size;
	return 0;
}

int pda_jitdump_parse(struct pda_session *s, const char *name, char *buf,
		      size_t len, struct pda_jitmap **out, void **image,
		      size_t *image_size)
{
	struct rd r = {(const unsigned char *)buf, false};
	struct pda_jitmap *m;
	uint64_t *index = NULL;
	size_t index_alloc = 0, off;
	uint32_t magic, machine;
	int rc = 0;

	*out = NULL;
	*image = NULL;
	*image_size = 0;
	if (len >= 4)
		memcpy(&magic, buf, 4);
	if (len < HEADER_MIN ||
	    (magic != JITDUMP_MAGIC && magic != JITDUMP_MAGIC_SW)) {
		pda_free(s, buf);
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: not a jitdump (no JiTD header)", name);
	}
	r.swap = magic == JITDUMP_MAGIC_SW;
	off = rd32(&r, 8);
	machine = rd32(&r, 12);
	if (rd32(&r, 4) != 1 || off < HEADER_MIN || off > len) {
		const uint32_t version = rd32(&r, 4);

		pda_free(s, buf);
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: jitdump version %u, header of %zu bytes: "
				   "version 1 is known",
				   name, version, off);
	}
	m = pda_zalloc(s, sizeof(*m));
	if (!m) {
		pda_free(s, buf);
		return PD_ERR_NOMEM;
	}
	m->buf = buf;
	while (len - off >= PREFIX) {
		const uint32_t id = rd32(&r, off);
		const uint32_t size = rd32(&r, off + 4);
		const size_t body = off + PREFIX;

		if (size < PREFIX || size > len - off)
			break;
		if (id == JIT_CODE_LOAD && size >= PREFIX + LOAD_BODY) {
			const uint64_t addr = rd64(&r, body + 16);
			const uint64_t csize = rd64(&r, body + 24);
			const char *fn = buf + body + LOAD_BODY;
			const size_t room = size - PREFIX - LOAD_BODY;

			if (csize >= room || !memchr(fn, '\0', room - csize))
				break;
			if (PDA_GROW(s, index, index_alloc, m->nr + 1,
				     JITSYMS_MAX) < 0) {
				rc = PD_ERR_NOMEM;
				break;
			}
			index[m->nr] = rd64(&r, body + 32);
			rc = add(s, m, addr, csize, fn,
				 (const unsigned char *)buf + off + size -
					 csize);
		} else if (id == JIT_CODE_MOVE && size >= PREFIX + MOVE_BODY) {
			const struct pda_jitsym *from =
				by_index(m, index, rd64(&r, body + 40));

			if (!from) {
				m->nr_bad++;
			} else if (PDA_GROW(s, index, index_alloc, m->nr + 1,
					    JITSYMS_MAX) < 0) {
				rc = PD_ERR_NOMEM;
			} else {
				const struct pda_jitsym j = *from;

				index[m->nr] = rd64(&r, body + 40);
				/* the same bytes at the new place, as perf
				 * inject maps the load's ELF file there */
				rc = add(s, m, rd64(&r, body + 24),
					 j.end - j.start, j.name, j.code);
			}
		} else if (id == JIT_CODE_LOAD || id == JIT_CODE_MOVE) {
			break;
		}
		if (rc < 0)
			break;
		off += size;
	}
	pda_free(s, index);
	if (rc < 0) {
		pda_jitmap_free(s, m);
		return rc;
	}
	if (len - off)
		pda_logf(s, PD_LOG_WARN,
			 "%s: the record at offset 0x%zx is cut or damaged: "
			 "the %zu records before it are read",
			 name, off, m->nr);
	pda_jitmap_finish(m);
	if (!r.swap)
		rc = make_image(s, m, (uint16_t)machine, image, image_size);
	if (rc < 0) {
		pda_jitmap_free(s, m);
		return rc;
	}
	*out = m;
	return 0;
}
