/*
 * fuzzelf.c - fuzz.h's helpers for the targets over an ELF image in
 * memory (fuzz_elf.c, fuzz_annotate.c): what libelf says of the image
 * (independently of libpda's own reading), the maps a loader would make
 * of it, and the session's DSO whose binary the image is.
 */
#include "fuzz.h"

#include "pda_machine_int.h"
#include "pdatest.h"

#include <gelf.h>
#include <string.h>

#define PAGE 4096u

static void add_func(struct fuzz_elf_info *inf, uint64_t vaddr)
{
	for (size_t i = 0; i < inf->nr_funcs; i++)
		if (inf->funcs[i] == vaddr)
			return;
	if (inf->nr_funcs < FUZZ_ELF_MAX_FUNCS)
		inf->funcs[inf->nr_funcs++] = vaddr;
}

/* The middle of the first function symbols of table type. */
static void read_funcs(Elf *elf, Elf64_Word type, struct fuzz_elf_info *inf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i < 4096; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value)
			add_func(inf, sym.st_value + sym.st_size / 2);
	}
}

bool fuzz_elf_info(const void *image, size_t size, struct fuzz_elf_info *inf)
{
	Elf *elf;
	GElf_Ehdr eh;
	size_t nr_phdrs;

	memset(inf, 0, sizeof(*inf));
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)(uintptr_t)image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		elf_end(elf);
		return false;
	}
	inf->machine = eh.e_machine;
	inf->is64 = gelf_getclass(elf) == ELFCLASS64;
	inf->exec = eh.e_type == ET_EXEC;
	if (eh.e_entry)
		add_func(inf, eh.e_entry);
	if (elf_getphdrnum(elf, &nr_phdrs) != 0)
		nr_phdrs = 0;
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    inf->nr_segs == FUZZ_ELF_MAX_SEGS)
			continue;
		inf->segs[inf->nr_segs].vaddr = ph.p_vaddr;
		inf->segs[inf->nr_segs].offset = ph.p_offset;
		inf->segs[inf->nr_segs].memsz = ph.p_memsz;
		inf->nr_segs++;
	}
	read_funcs(elf, SHT_SYMTAB, inf);
	read_funcs(elf, SHT_DYNSYM, inf);
	elf_end(elf);
	return true;
}

void fuzz_elf_maps(struct tf *t, const struct fuzz_elf_info *inf, uint64_t base,
		   uint32_t pid)
{
	for (size_t i = 0; i < inf->nr_segs; i++) {
		const uint64_t skew = inf->segs[i].vaddr & (PAGE - 1);
		const uint64_t start =
			(inf->exec ? 0 : base) + inf->segs[i].vaddr - skew;
		/* the loader maps from the page holding the offset */
		const uint64_t pgoff =
			inf->segs[i].offset & ~(uint64_t)(PAGE - 1);
		uint64_t len = inf->segs[i].memsz + skew;

		len = len > UINT64_MAX - PAGE
			      ? UINT64_MAX & ~(uint64_t)(PAGE - 1)
			      : (len + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		if (len)
			pt_mmap(t, PD_MISC_USER, pid, pid, start, len, pgoff,
				FUZZ_ELF_NAME);
	}
}

int fuzz_elf_preload(struct pda_session *s, const void *image, size_t size,
		     struct pda_elf **out)
{
	struct pda_dso_ent *d = pda_dso_get(s, PDA_DSO_FILE, FUZZ_ELF_NAME,
					    strlen(FUZZ_ELF_NAME), NULL, 0, 0);
	int rc;

	*out = NULL;
	if (!d)
		return PD_ERR_NOMEM;
	rc = pda_elf_open_image(s, FUZZ_ELF_NAME, image, size, out);
	CHECK(rc == 0 || rc == PD_ERR_FORMAT || rc == PD_ERR_NOMEM);
	CHECK((rc == 0) == (*out != NULL));
	if (rc == PD_ERR_NOMEM)
		return rc;
	/* as pda_dso_load() leaves a DSO it looked up; the DSO owns it */
	d->d.elf = *out;
	d->d.state = *out ? PDA_DSO_FOUND : PDA_DSO_MISSING;
	d->d.why = *out ? NULL : "not ELF";
	return 0;
}
