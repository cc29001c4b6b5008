/*
 * pda_unwind_libdw.c - the elfutils (libdwfl) unwinder backend: one Dwfl
 * per process, attached with thread callbacks that take the registers
 * from the sample and memory from its stack dump (pda_unwind_read), as
 * perf's util/unwind-libdw.c does, but kept across samples instead of
 * rebuilt for each.
 *
 * Modules are reported lazily, when a frame's pc first falls in a file
 * map: one per (binary, load bias), spanning the binary's loaded
 * segments, its ELF handed to libdwfl through find_elf as an Elf over the
 * bytes pda_elf already mapped (elf_memory: no file is opened again,
 * but for a binary with compressed sections, pda_elf_begin_copy);
 * libdwfl reads .eh_frame from it and, where that does not cover a pc,
 * .debug_frame from it or from the separate debug file the DSO lookup
 * found (find_debuginfo opens that one, once per module).  The CFI
 * libdwfl parses stays with its module, so a process's unwinds share it.
 * When the maps change, modules whose map moved or went away send the
 * Dwfl to be rebuilt at the next unwind; new maps only add modules.
 *
 * The architecture is given to dwfl_attach_state as a bare ELF header of
 * the capture's machine, class and byte order, so libebl picks the
 * target's backend whatever the host and whatever binaries are found.
 *
 * On x86_64 and aarch64 a sample is first stepped through CFI rows cached
 * per address (pda_unwind_cfi.c), which give what libdwfl gives without
 * its per-frame lookups; what they cannot express goes through
 * dwfl_getthread_frames as above.  pda_unwind_libdwfl is the same backend
 * without them, for tests.
 */
#include "pda_unwind_int.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODS_MAX ((size_t)1 << 16)
#define DWFL_TID 1 /* the one thread each process's Dwfl knows */

/* A reported module: which map it came from, for maps_changed. */
struct ld_mod {
	uint64_t anchor; /* the start of the map it was reported for */
	uint64_t bias;	 /* load address - ELF vaddr */
	struct pda_dso_ent *dso;
	struct pda_elf *elf;
};

struct pda_unwind_proc {
	struct pda_session *s;
	const struct pda_unwind_arch *arch;
	unsigned char ehdr[64]; /* the bare ELF header of the target */
	Elf *arch_elf;
	Dwfl *dwfl;		/* NULL: to be built */
	struct ld_mod **mods;	/* pointers: libdwfl keeps them as userdata */
	size_t nr_mods, mods_alloc;
	/* the unwind under way */
	const struct pda_unwind_req *req;
	struct pda_unwind_res *res;
	uint64_t last_pc;	/* the last frame's pc, as adjusted */
	bool faulted;		/* a read failed in the step from the last
				 * frame */
	unsigned fault;
	bool hit_max;
	bool unsupported;	/* libebl cannot unwind the target */
	int err;		/* NOMEM inside a callback */
	struct pda_cfi_cache *cfi; /* NULL: every frame through libdwfl */
};

/* ---- libdwfl callbacks ---------------------------------------------- */

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	const struct ld_mod *m = *userdata;

	(void)mod;
	(void)modname;
	(void)base;
	if (!m)
		return -1;
	*elfp = pda_elf_begin_copy(m->elf);
	if (*elfp)
		*file_name = strdup(pda_elf_path(m->elf));
	return -1;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct ld_mod *m = *userdata;
	const char *path;
	int fd;

	(void)mod;
	(void)modname;
	(void)base;
	(void)file_name;
	if (!m)
		return -1;
	/*
	 * libdwfl asks for a .gnu_debugaltlink file here too (CRC 0, the
	 * link's name): only the one pda_dso_load found and checked, never a
	 * file the link names.
	 */
	for (int i = 0; i < 2 && debuglink_file && !debuglink_crc; i++) {
		const struct pda_elf *e = i ? m->dso->d.debug : m->dso->d.elf;
		const unsigned char *id;
		unsigned size;
		const char *name = e ? pda_elf_altlink(e, &id, &size) : NULL;

		if (!name || strcmp(name, debuglink_file) != 0)
			continue;
		if (!m->dso->alts[i])
			return -1;
		path = pda_elf_path(m->dso->alts[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0)
			*debuginfo_file_name = strdup(path);
		return fd;
	}
	/*
	 * libdwfl reads a debug file here for its .debug_frame only, and
	 * dwarf_begin_elf inflates every compressed section of it first
	 * (libc's debug file: tens of MB, for each process's Dwfl): one
	 * without .debug_frame gives no CFI either way, so it is not given.
	 */
	if (!m->dso->d.debug || !pda_elf_has_debug_frame(m->dso->d.debug))
		return -1;
	path = pda_elf_path(m->dso->d.debug);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(path);
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return DWFL_TID;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct pda_unwind_proc *p = arg;
	uint64_t val;
	unsigned why = PDA_UNWIND_BAD_ADDR;
	int rc;

	(void)dwfl;
	rc = pda_unwind_read(p->s, p->req, addr, p->arch->is64 ? 8 : 4, &val,
			     &why);
	if (rc > 0) {
		*result = val;
		return true;
	}
	if (rc < 0)
		p->err = rc;
	p->faulted = true;
	p->fault = why;
	return false;
}

/* Set a run of DWARF registers [first, first + nr) from the sample. */
static bool set_run(Dwfl_Thread *thread, unsigned first, unsigned nr,
		    const Dwarf_Word *vals)
{
	return nr == 0 ||
	       dwfl_thread_state_registers(thread, (int)first, nr, vals);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct pda_unwind_proc *p = arg;
	const struct pda_unwind_arch *a = p->arch;
	const struct pd_regs *regs = p->req->regs;
	Dwarf_Word vals[PDA_UNWIND_MAX_DWARF_REGS];
	unsigned first = 0, nr = 0;
	uint64_t v;

	/* registers the sample lacks stay unknown, not 0 */
	for (unsigned i = 0; i < a->nr_dwarf; i++) {
		if (a->perf_of_dwarf[i] >= 0 &&
		    pda_unwind_reg(regs, (unsigned)a->perf_of_dwarf[i], &v)) {
			if (nr == 0)
				first = i;
			vals[nr++] = a->is64 ? pda_unwind_strip(p->req, v)
					     : v & 0xffffffffu;
			continue;
		}
		if (!set_run(thread, first, nr, vals))
			return false;
		nr = 0;
	}
	if (!set_run(thread, first, nr, vals))
		return false;
	for (unsigned i = 0; i < a->nr_extra; i++) {
		if (!pda_unwind_reg(regs, a->extra[i].perf, &v))
			continue;
		vals[0] = v;
		if (!set_run(thread, a->extra[i].dwarf, 1, vals))
			return false;
	}
	/* the return-address column is not the pc on most targets */
	dwfl_thread_state_register_pc(thread, p->req->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- modules -------------------------------------------------------- */

/* Report the module of the binary mapped at pc, if any and not yet. */
static int ensure_module(struct pda_unwind_proc *p, uint64_t pc)
{
	struct pda_session *s = p->s;
	const struct pda_map *map;
	struct pda_elf *e;
	struct ld_mod *m;
	Dwfl_Module *mod;
	uint64_t lo, hi, bias;
	void **userdata;
	int rc;

	if (dwfl_addrmodule(p->dwfl, pc))
		return 0;
	map = pda_maps_lookup(p->req->maps, pc);
	if (!map || (map->kind != PDA_MAP_FILE && map->kind != PDA_MAP_VDSO))
		return 0;
	rc = pda_unwind_dso_elf(s, map->dso, &e);
	if (rc < 0 || !e)
		return rc;
	if (pda_elf_map_bias(e, map->start, map->pgoff, &bias) < 0 ||
	    pda_elf_load_span(e, &lo, &hi) < 0)
		return 0;
	if (PDA_GROW(s, p->mods, p->mods_alloc, p->nr_mods + 1, MODS_MAX) < 0)
		return PD_ERR_NOMEM;
	m = pda_malloc(s, sizeof(*m));
	if (!m)
		return PD_ERR_NOMEM;
	m->anchor = map->start;
	m->bias = bias;
	m->dso = map->dso;
	m->elf = e;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_module(p->dwfl, map->name, lo + bias, hi + bias);
	if (dwfl_report_end(p->dwfl, NULL, NULL) != 0 || !mod) {
		pda_free(s, m);
		pda_logf(s, PD_LOG_DEBUG, "unwind: cannot report %s: %s",
			 map->name, dwfl_errmsg(-1));
		return 0;
	}
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (*userdata) {
		/* the module was there already (same name and span) */
		pda_free(s, m);
		return 0;
	}
	*userdata = m;
	p->mods[p->nr_mods++] = m;
	return 0;
}

static void drop_dwfl(struct pda_unwind_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	/* its rows came from the modules that go with it */
	pda_cfi_cache_clear(p->s, p->cfi);
	for (size_t i = 0; i < p->nr_mods; i++)
		pda_free(p->s, p->mods[i]);
	p->nr_mods = 0;
}

static void maps_changed(struct pda_session *s, struct pda_unwind_proc *p,
			 const struct pda_maps *maps)
{
	(void)s;
	for (size_t i = 0; i < p->nr_mods; i++) {
		const struct ld_mod *m = p->mods[i];

		if (!pda_unwind_still_mapped(maps, m->anchor, m->dso,
					     m->elf, m->bias)) {
			drop_dwfl(p);
			return;
		}
	}
}

/* ---- the target ----------------------------------------------------- */

static void put(unsigned char *p, uint64_t v, unsigned size, bool big)
{
	for (unsigned i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* An ELF header with nothing behind it: what libebl needs to pick the
 * target (e_machine, class, byte order). */
static void bare_ehdr(unsigned char *h, const struct pda_unwind_arch *a)
{
	const bool big = a->big_endian;

	memset(h, 0, 64);
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = a->is64 ? ELFCLASS64 : ELFCLASS32;
	h[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	h[EI_VERSION] = EV_CURRENT;
	put(h + 16, ET_CORE, 2, big);
	put(h + 18, a->e_machine, 2, big);
	put(h + 20, EV_CURRENT, 4, big);
	/* e_ehsize: 64 or 52 */
	put(h + (a->is64 ? 52 : 40), a->is64 ? 64 : 52, 2, big);
}

static int proc_new(struct pda_session *s, const struct pda_unwind_arch *arch,
		    struct pda_unwind_proc **out)
{
	struct pda_unwind_proc *p;

	*out = NULL;
	elf_version(EV_CURRENT);
	p = pda_zalloc(s, sizeof(*p));
	if (!p)
		return PD_ERR_NOMEM;
	p->s = s;
	p->arch = arch;
	bare_ehdr(p->ehdr, arch);
	p->arch_elf = elf_memory((char *)p->ehdr, sizeof(p->ehdr));
	if (!p->arch_elf) {
		pda_free(s, p);
		return PD_ERR_NOMEM;
	}
	if (pda_cfi_cache_new(s, arch, pda_session_cfi_store(s), &p->cfi) < 0) {
		elf_end(p->arch_elf);
		pda_free(s, p);
		return PD_ERR_NOMEM;
	}
	*out = p;
	return 0;
}

static int proc_new_slow(struct pda_session *s,
			 const struct pda_unwind_arch *arch,
			 struct pda_unwind_proc **out)
{
	int rc = proc_new(s, arch, out);

	if (rc == 0) {
		pda_cfi_cache_free(s, (*out)->cfi);
		(*out)->cfi = NULL;
	}
	return rc;
}

static void proc_free(struct pda_session *s, struct pda_unwind_proc *p)
{
	if (!p)
		return;
	pda_cfi_cache_free(s, p->cfi);
	p->cfi = NULL;
	drop_dwfl(p);
	elf_end(p->arch_elf);
	pda_free(s, p->mods);
	pda_free(s, p);
}

/* A Dwfl attached to the target; PD_ERR_UNSUPPORTED when libebl has no
 * unwinder for it. */
static int build_dwfl(struct pda_unwind_proc *p)
{
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl)
		return PD_ERR_NOMEM;
	if (!dwfl_attach_state(p->dwfl, p->arch_elf, DWFL_TID,
			       &thread_callbacks, p)) {
		pda_logf(p->s, PD_LOG_DEBUG, "unwind: libdw cannot unwind %s: %s",
			 p->arch->name, dwfl_errmsg(-1));
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		return PD_ERR_UNSUPPORTED;
	}
	return 0;
}

/* ---- unwinding ------------------------------------------------------ */

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pda_unwind_proc *p = arg;
	struct pda_unwind_res *res = p->res;
	Dwarf_Addr pc;
	bool activation;
	int rc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* libdwfl looks up pc - 1 for a caller: both need their module
	 * before it unwinds this frame (which the activation test does) */
	rc = ensure_module(p, pc);
	if (rc == 0 && res->nr && pc)
		rc = ensure_module(p, pc - 1);
	if (rc < 0) {
		p->err = rc;
		return DWARF_CB_ABORT;
	}
	/* asking for the activation unwinds the caller: the reads that
	 * fail are the next frame's, kept for the stop reason */
	p->faulted = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!p->arch->is64)
		pc &= 0xffffffffu;
	/* perf's entries: a caller's pc less 1, and no zero pc */
	p->last_pc = activation || !pc ? pc : pc - 1;
	if (p->last_pc)
		res->ips[res->nr++] = p->last_pc;
	if (res->nr >= p->req->max_frames) {
		p->hit_max = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* pda_cfi_src's module: the one reported for addr, as libdwfl finds
 * it. */
static int cfi_module(void *arg, uint64_t addr, struct Dwfl_Module **mod)
{
	struct pda_unwind_proc *p = arg;
	int rc = ensure_module(p, addr);

	*mod = rc < 0 ? NULL : dwfl_addrmodule(p->dwfl, addr);
	return rc;
}

/* Whether some CFI of the module at pc covers it. */
static bool cfi_there(struct pda_unwind_proc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	Dwarf_CFI *cfi[2];
	Dwarf_Addr bias[2];

	if (!mod)
		return false;
	cfi[0] = dwfl_module_eh_cfi(mod, &bias[0]);
	cfi[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;

		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc - bias[i],
						  &frame) == 0) {
			free(frame); /* libdw's malloc */
			return true;
		}
	}
	return false;
}

static int unwind(struct pda_session *s, struct pda_unwind_proc *p,
		  const struct pda_unwind_req *req, struct pda_unwind_res *res);

/*
 * An aarch64 leaf with no CFI (a PLT entry: ld emits none for .plt
 * there): perf's libunwind takes LR as the return address and goes on
 * with the caller's CFI; libdwfl's frame-record fallback loses the
 * caller's frame after it.  So the caller is unwound as a leaf of its
 * own at LR, its pc then taken as a return address (less 1), behind the
 * leaf.  @return 1 when pc has CFI (or no LR to go by): unwind as usual;
 * 0 when done; NOMEM.
 */
static int plt_leaf(struct pda_session *s, struct pda_unwind_proc *p,
		    const struct pda_unwind_req *req,
		    struct pda_unwind_res *res)
{
	struct pda_unwind_req up = *req;
	struct pda_unwind_res ur = *res;
	uint64_t lr;
	int rc;

	if (p->arch->e_machine != EM_AARCH64 || req->max_frames < 2 ||
	    !pda_unwind_reg(req->regs, 30, &lr) || !lr || lr == req->pc)
		return 1;
	p->req = req; /* ensure_module's maps */
	rc = ensure_module(p, req->pc);
	if (rc == 0 && !cfi_there(p, req->pc))
		rc = ensure_module(p, lr - 1);
	p->req = NULL;
	if (rc < 0)
		return rc;
	if (cfi_there(p, req->pc) || !cfi_there(p, lr - 1))
		return 1;
	up.pc = lr;
	up.max_frames = req->max_frames - 1;
	ur.ips = res->ips + 1;
	rc = unwind(s, p, &up, &ur);
	if (rc < 0)
		return rc;
	res->ips[0] = req->pc;
	if (ur.nr && ur.ips[0] == lr)
		ur.ips[0] = lr - 1;
	res->nr = ur.nr + 1;
	res->stop = ur.stop;
	res->stop_pc = ur.stop_pc;
	return 0;
}

static int unwind(struct pda_session *s, struct pda_unwind_proc *p,
		  const struct pda_unwind_req *req, struct pda_unwind_res *res)
{
	unsigned why;
	int rc;

	res->nr = 0;
	res->stop = PDA_UNWIND_NO_ARCH;
	res->stop_pc = req->pc;
	if (!p->dwfl && !p->unsupported && (rc = build_dwfl(p)) < 0) {
		if (rc != PD_ERR_UNSUPPORTED)
			return rc;
		p->unsupported = true; /* not tried again for each sample */
	}
	if (p->unsupported) {
		/* the leaf is known without unwinding, as perf keeps it */
		res->ips[res->nr++] = req->pc;
		return 0;
	}
	rc = plt_leaf(s, p, req, res);
	if (rc <= 0)
		return rc;
	p->req = req;
	if (p->cfi) {
		const struct pda_cfi_src src = {cfi_module, p};
		bool done;

		rc = pda_cfi_unwind(s, p->cfi, &src, req, res, &done);
		if (rc < 0 || done) {
			p->req = NULL;
			return rc;
		}
		res->nr = 0;
		res->stop = PDA_UNWIND_NO_ARCH;
		res->stop_pc = req->pc;
	}
	p->res = res;
	p->last_pc = req->pc;
	p->faulted = p->hit_max = false;
	p->err = 0;
	rc = dwfl_getthread_frames(p->dwfl, DWFL_TID, frame_cb, p);
	p->req = NULL;
	p->res = NULL;
	if (p->err)
		return p->err;
	res->stop_pc = p->last_pc;
	if (res->nr == 0) {
		/* libdwfl gives the first frame whatever the CFI: only a
		 * missing register keeps it back */
		res->ips[res->nr++] = req->pc;
	}
	if (rc == 0) {
		/* libdwfl ends where the return address cannot be read (an
		 * unset register): that is the dump's end, not the stack's */
		res->stop = p->faulted ? p->fault : PDA_UNWIND_END;
		return 0;
	}
	if (p->hit_max) {
		res->stop = PDA_UNWIND_MAX_FRAMES;
		return 0;
	}
	rc = pda_unwind_classify(s, req, p->last_pc, &why);
	if (rc < 0)
		return rc;
	if (why == PDA_UNWIND_NR_STOPS) {
		if (!cfi_there(p, p->last_pc))
			why = PDA_UNWIND_NO_CFI;
		else
			why = p->faulted ? p->fault : PDA_UNWIND_BAD_CFI;
	}
	res->stop = why;
	return 0;
}

const struct pda_unwind_backend pda_unwind_libdw = {
	.name = "libdw",
	.proc_new = proc_new,
	.proc_free = proc_free,
	.maps_changed = maps_changed,
	.unwind = unwind,
};

const struct pda_unwind_backend pda_unwind_libdwfl = {
	.name = "libdw",
	.proc_new = proc_new_slow,
	.proc_free = proc_free,
	.maps_changed = maps_changed,
	.unwind = unwind,
};
