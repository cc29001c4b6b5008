/*
 * pda_recsys.c - what the recorder learns from the host: the feature
 * sections that describe it (format.md §4), the records perf synthesizes
 * from /proc for what ran before the recording (the kernel's map, the
 * processes' threads, comms and maps), and the build-ids of the binaries
 * the samples fell in.
 */
#include "pda_record_priv.h"
#include "pd_write.h"
#include "pdc_alloc.h"
#include "pdc_hash.h"
#include "pdc_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- build-ids --------------------------------------------------- */

#define BUILD_ID_MAX 20	 /* what perf's table holds */
#define NT_GNU_BUILD_ID 3
#define MAX_DSOS (1u << 20)
#define MAX_MAPS (1u << 24)
#define HIT_CACHE 4096	 /* (pid, page) -> dso, for callchains' repeats */

struct dso {
	char *name;
	bool kernel;
	bool hit;
};

struct map {
	int32_t pid;
	uint64_t start, end;
	uint32_t dso;
};

struct task {
	int32_t pid, ppid;
	size_t *maps; /* indexes into rec_dsos.maps, newest last */
	size_t nr, alloc;
};

struct rec_dsos {
	const struct pd_alloc *a;
	struct dso *dsos;
	size_t nr_dsos, alloc_dsos;
	struct pdc_hash by_name;
	struct map *maps;
	size_t nr_maps, alloc_maps;
	struct pdc_hash tasks;
	struct {
		int32_t pid;
		uint64_t page;
		uint32_t dso; /* + 1; 0: empty */
	} cache[HIT_CACHE];
};

struct rec_dsos *rec_dsos_new(const struct pd_alloc *a)
{
	struct rec_dsos *d = pdc_zalloc(a, sizeof(*d));

	if (d)
		d->a = a;
	return d;
}

void rec_dsos_free(struct rec_dsos *d)
{
	size_t pos = 0;
	struct task *t;

	if (!d)
		return;
	while ((t = pdc_hash_next(&d->tasks, &pos)) != NULL) {
		pdc_free(d->a, t->maps);
		pdc_free(d->a, t);
	}
	pdc_hash_release(d->a, &d->tasks);
	for (size_t i = 0; i < d->nr_dsos; i++)
		pdc_free(d->a, d->dsos[i].name);
	pdc_free(d->a, d->dsos);
	pdc_hash_release(d->a, &d->by_name);
	pdc_free(d->a, d->maps);
	pdc_free(d->a, d);
}

/* The name table's items are the dsos' names, each followed by its
 * index (the dsos array moves as it grows). */
static bool dso_eq(const void *item, const void *key)
{
	return strcmp(item, key) == 0;
}

static bool task_eq(const void *item, const void *key)
{
	return ((const struct task *)item)->pid == *(const int32_t *)key;
}

static int dso_index(struct rec_dsos *d, const char *name, bool kernel,
		     uint32_t *idx)
{
	uint64_t h = pdc_hash_bytes(name, strlen(name));
	const char *found = pdc_hash_find(&d->by_name, h, dso_eq, name);

	if (found) {
		memcpy(idx, found + strlen(found) + 1, sizeof(*idx));
		return 0;
	}
	if (PDC_GROW(d->a, d->dsos, d->alloc_dsos, d->nr_dsos + 1, MAX_DSOS) <
	    0)
		return PD_ERR_NOMEM;
	{
		size_t len = strlen(name);
		char *copy = pdc_malloc(d->a, len + 1 + sizeof(uint32_t));
		uint32_t i = (uint32_t)d->nr_dsos;

		if (!copy)
			return PD_ERR_NOMEM;
		memcpy(copy, name, len + 1);
		memcpy(copy + len + 1, &i, sizeof(i));
		if (pdc_hash_add(d->a, &d->by_name, h, copy) < 0) {
			pdc_free(d->a, copy);
			return PD_ERR_NOMEM;
		}
		d->dsos[i].name = copy;
		d->dsos[i].kernel = kernel;
		d->dsos[i].hit = false;
		d->nr_dsos++;
		*idx = i;
	}
	return 0;
}

static struct task *task_get(struct rec_dsos *d, int32_t pid)
{
	uint64_t h = pdc_hash_u64((uint64_t)(uint32_t)pid);
	struct task *t = pdc_hash_find(&d->tasks, h, task_eq, &pid);

	if (t)
		return t;
	t = pdc_zalloc(d->a, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->ppid = -2;
	if (pdc_hash_add(d->a, &d->tasks, h, t) < 0) {
		pdc_free(d->a, t);
		return NULL;
	}
	return t;
}

int rec_dsos_map(struct rec_dsos *d, int32_t pid, uint64_t start,
		 uint64_t len, const char *name, bool kernel)
{
	struct task *t;
	uint32_t idx;
	int rc;

	if (name[0] == '\0' || len == 0)
		return 0;
	rc = dso_index(d, name, kernel, &idx);
	if (rc < 0)
		return rc;
	t = task_get(d, kernel ? -1 : pid);
	if (!t || PDC_GROW(d->a, d->maps, d->alloc_maps, d->nr_maps + 1,
			   MAX_MAPS) < 0 ||
	    PDC_GROW(d->a, t->maps, t->alloc, t->nr + 1, MAX_MAPS) < 0)
		return PD_ERR_NOMEM;
	d->maps[d->nr_maps].pid = pid;
	d->maps[d->nr_maps].start = start;
	d->maps[d->nr_maps].end = start + len;
	d->maps[d->nr_maps].dso = idx;
	t->maps[t->nr++] = d->nr_maps++;
	memset(d->cache, 0, sizeof(d->cache));
	return 0;
}

int rec_dsos_fork(struct rec_dsos *d, int32_t pid, int32_t ppid)
{
	struct task *t;

	if (pid == ppid)
		return 0;
	t = task_get(d, pid);
	if (!t)
		return PD_ERR_NOMEM;
	if (t->ppid == -2)
		t->ppid = ppid;
	return 0;
}

static bool find_in(const struct rec_dsos *d, const struct task *t,
		    uint64_t addr, uint32_t *dso)
{
	for (size_t i = t->nr; i-- > 0;) {
		const struct map *m = &d->maps[t->maps[i]];

		if (addr >= m->start && addr < m->end) {
			*dso = m->dso;
			return true;
		}
	}
	return false;
}

void rec_dsos_hit(struct rec_dsos *d, int32_t pid, uint64_t addr,
		  bool kernel)
{
	size_t slot;
	uint32_t dso;
	int32_t p = kernel ? -1 : pid;

	if (addr >= (uint64_t)-4096) /* PERF_CONTEXT_* markers */
		return;
	slot = (size_t)(pdc_hash_u64(((uint64_t)(uint32_t)p << 32) ^
				     (addr >> 12)) &
			(HIT_CACHE - 1));
	if (d->cache[slot].dso && d->cache[slot].pid == p &&
	    d->cache[slot].page == addr >> 12)
		return; /* marked already */
	/* a child has its parents' maps until it maps its own */
	for (int depth = 0; depth < 16; depth++) {
		uint64_t h = pdc_hash_u64((uint64_t)(uint32_t)p);
		const struct task *t = pdc_hash_find(&d->tasks, h, task_eq,
						     &p);

		if (!t)
			return;
		if (find_in(d, t, addr, &dso)) {
			d->dsos[dso].hit = true;
			d->cache[slot].pid = kernel ? -1 : pid;
			d->cache[slot].page = addr >> 12;
			d->cache[slot].dso = dso + 1;
			return;
		}
		if (t->ppid < 0 || t->ppid == p)
			return;
		p = t->ppid;
	}
}

/* NT_GNU_BUILD_ID among ELF notes (p, len bytes, the host's order). */
static size_t note_build_id(const unsigned char *p, size_t len,
			    unsigned char *id)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (desc_off > len || descsz > len - desc_off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(p + name_off, "GNU", 4) == 0 && descsz > 0) {
			size_t n = descsz > BUILD_ID_MAX ? BUILD_ID_MAX : descsz;

			memcpy(id, p + desc_off, n);
			return n;
		}
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	return 0;
}

static size_t read_file(const char *path, unsigned char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got;

	if (fd < 0)
		return 0;
	got = pdc_read_up_to(fd, buf, size);
	close(fd);
	return got;
}

static bool pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len;
}

/* An ELF file's build-id from its PT_NOTE segments (either class, the
 * host's byte order: the binaries recorded run here). */
static size_t elf_build_id(const char *path, unsigned char *id)
{
	unsigned char eh[64], note[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	bool is64;
	uint64_t phoff;
	uint16_t phnum, phentsize;

	if (fd < 0)
		return 0;
	if (!pread_all(fd, eh, sizeof(eh), 0) || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2)) {
		close(fd);
		return 0;
	}
	is64 = eh[4] == 2;
	if (is64) {
		memcpy(&phoff, eh + 32, 8);
		memcpy(&phentsize, eh + 54, 2);
		memcpy(&phnum, eh + 56, 2);
	} else {
		uint32_t off32;

		memcpy(&off32, eh + 28, 4);
		phoff = off32;
		memcpy(&phentsize, eh + 42, 2);
		memcpy(&phnum, eh + 44, 2);
	}
	for (uint16_t i = 0; i < phnum && !got && phentsize >= 32; i++) {
		unsigned char ph[56];
		uint32_t type;
		uint64_t off, size;

		if (!pread_all(fd, ph, phentsize < 56 ? phentsize : 56,
			       phoff + (uint64_t)i * phentsize))
			break;
		memcpy(&type, ph, 4);
		if (type != 4 /* PT_NOTE */)
			continue;
		if (is64) {
			memcpy(&off, ph + 8, 8);
			memcpy(&size, ph + 32, 8);
		} else {
			uint32_t o, s;

			memcpy(&o, ph + 4, 4);
			memcpy(&s, ph + 16, 4);
			off = o, size = s;
		}
		if (size > sizeof(note))
			size = sizeof(note);
		if (pread_all(fd, note, (size_t)size, off))
			got = note_build_id(note, (size_t)size, id);
	}
	close(fd);
	return got;
}

/*
 * The vdso's build-id, from this process's own: the kernel maps one image
 * into every process of an ABI, so the workload's is the recorder's (perf
 * record reads its own the same way).  The image is mapped whole, file
 * offsets as addresses from its start.  0 when there is none.
 */
static size_t vdso_build_id(unsigned char *id)
{
	const unsigned char *base =
		(const unsigned char *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)base;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(const void *)(
			base + eh->e_phoff + (size_t)i * eh->e_phentsize);
		size_t n;

		if (ph->p_type != PT_NOTE)
			continue;
		n = note_build_id(base + ph->p_offset, ph->p_filesz, id);
		if (n)
			return n;
	}
	return 0;
}

static size_t dso_build_id(const struct dso *dso, unsigned char *id)
{
	unsigned char notes[4096];
	char path[512];
	size_t n;

	if (strcmp(dso->name, "[kernel.kallsyms]") == 0) {
		n = read_file("/sys/kernel/notes", notes, sizeof(notes));
		return note_build_id(notes, n, id);
	}
	if (dso->kernel && dso->name[0] == '[') {
		/* a module, named [name] as /proc/modules gives it */
		size_t len = strlen(dso->name);

		snprintf(path, sizeof(path),
			 "/sys/module/%.*s/notes/.note.gnu.build-id",
			 (int)(len - 2), dso->name + 1);
		n = read_file(path, notes, sizeof(notes));
		return note_build_id(notes, n, id);
	}
	if (strcmp(dso->name, "[vdso]") == 0)
		return vdso_build_id(id);
	if (dso->name[0] != '/')
		return 0; /* [heap], anon: no file to read */
	return elf_build_id(dso->name, id);
}

unsigned rec_dsos_build_ids(struct rec_dsos *d, struct pdc_strbuf *b)
{
	static const char zeros[64];
	unsigned nr = 0;

	for (size_t i = 0; i < d->nr_dsos; i++) {
		const struct dso *dso = &d->dsos[i];
		unsigned char id[BUILD_ID_MAX + 4];
		size_t n, name_len, padded;
		uint16_t misc;
		int32_t pid = -1; /* perf's HOST_KERNEL_ID: the host */

		if (!dso->hit)
			continue;
		memset(id, 0, sizeof(id));
		n = dso_build_id(dso, id);
		if (!n)
			continue;
		id[BUILD_ID_MAX] = (unsigned char)n;
		name_len = strlen(dso->name) + 1;
		padded = (name_len + 63) / 64 * 64;
		misc = (uint16_t)((dso->kernel ? PD_MISC_KERNEL : PD_MISC_USER) |
				  PD_MISC_BUILD_ID_SIZE);
		/* format.md §4.2: header, pid, build_id[20] + 4, name */
		pd_feat_u32(b, 0);
		pdc_strbuf_add(b, &misc, 2);
		{
			uint16_t size = (uint16_t)(8 + 4 + 24 + padded);

			pdc_strbuf_add(b, &size, 2);
		}
		pdc_strbuf_add(b, &pid, 4);
		pdc_strbuf_add(b, id, 24);
		pdc_strbuf_add(b, dso->name, name_len);
		pdc_strbuf_add(b, zeros, padded - name_len);
		nr++;
	}
	return nr;
}

/* ---- the host's feature sections --------------------------------- */

/* A /proc/cpuinfo field's value for the first CPU, or "". */
static void cpuinfo(const char *field, char *buf, size_t size)
{
	FILE *fp = fopen("/proc/cpuinfo", "re");
	char line[1024];
	size_t flen = strlen(field);

	buf[0] = '\0';
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':'), *v, *end;

		if (strncmp(line, field, flen) != 0 || !colon ||
		    strspn(line + flen, " \t") != (size_t)(colon - line) - flen)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		end = v + strcspn(v, "\n");
		*end = '\0';
		snprintf(buf, size, "%s", v);
		break;
	}
	fclose(fp);
}

static uint64_t meminfo_kb(const char *path, const char *field)
{
	FILE *fp = fopen(path, "re");
	char line[256];
	uint64_t v = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, field);

		if (p && p[strlen(field)] == ':') {
			v = strtoull(p + strlen(field) + 1, NULL, 10);
			break;
		}
	}
	fclose(fp);
	return v;
}

static int put_feat(struct pd_writer *w, unsigned feat, struct pdc_strbuf *b)
{
	int rc = b->oom ? PD_ERR_NOMEM
			: pd_writer_feature(w, feat, b->p, b->len);

	pdc_strbuf_release(b);
	return rc;
}

static int feat_string(struct pd_writer *w, unsigned feat, const char *s,
		       const struct pd_alloc *a)
{
	struct pdc_strbuf b;

	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_string(&b, s);
	return put_feat(w, feat, &b);
}

/* perf's cpuid: x86 "Vendor,family,model,stepping"; arm64 the MIDR. */
static void cpuid(char *buf, size_t size)
{
	char vendor[64], family[16], model[16], stepping[16];

	cpuinfo("vendor_id", vendor, sizeof(vendor));
	cpuinfo("cpu family", family, sizeof(family));
	cpuinfo("model", model, sizeof(model));
	cpuinfo("stepping", stepping, sizeof(stepping));
	if (vendor[0] && family[0] && model[0]) {
		snprintf(buf, size, "%s,%s,%s,%s", vendor, family, model,
			 stepping[0] ? stepping : "0");
		return;
	}
	buf[0] = '\0';
	if (rec_read_line("/sys/devices/system/cpu/cpu0/regs/identification/"
			  "midr_el1",
			  buf, size) < 0)
		buf[0] = '\0';
}

/* The CPU ids of this host's present CPUs: perf's nr_cpus_avail. */
static uint32_t max_present_cpu(void)
{
	char line[256];
	const char *p;
	unsigned long max = 0;

	if (rec_read_line("/sys/devices/system/cpu/present", line,
			  sizeof(line)) < 0)
		return (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	/* "0-3,5": the last number is the highest */
	p = line + strlen(line);
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	max = strtoul(p, NULL, 10);
	return (uint32_t)max + 1;
}

/* format.md §4.13: package and core sibling lists, then per-cpu ids,
 * then die lists and ids, all from sysfs's topology. */
static int cpu_topology(struct pd_writer *w, uint32_t nr_cpus,
			const struct pd_alloc *a)
{
	static const char *const lists[] = {"core_siblings_list",
					    "thread_siblings_list",
					    "die_cpus_list"};
	struct pdc_strbuf b;

	pdc_strbuf_init(&b, a, NULL, 0);
	for (size_t l = 0; l < 3; l++) {
		char seen[64][128];
		uint32_t nr = 0;

		for (uint32_t cpu = 0; cpu < nr_cpus && nr < 64; cpu++) {
			char path[256], line[128];
			bool dup = false;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%u/topology/%s",
				 cpu, lists[l]);
			if (rec_read_line(path, line, sizeof(line)) < 0)
				continue;
			for (uint32_t i = 0; i < nr && !dup; i++)
				dup = strcmp(seen[i], line) == 0;
			if (!dup)
				snprintf(seen[nr++], sizeof(seen[0]), "%s",
					 line);
		}
		pd_feat_u32(&b, nr);
		for (uint32_t i = 0; i < nr; i++)
			pd_feat_string(&b, seen[i]);
		if (l == 1) {
			for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
				static const char *const ids[] = {
					"core_id", "physical_package_id"};

				for (size_t k = 0; k < 2; k++) {
					char path[256], line[32];
					long v = -1;

					snprintf(path, sizeof(path),
						 "/sys/devices/system/cpu/"
						 "cpu%u/topology/%s",
						 cpu, ids[k]);
					if (rec_read_line(path, line,
							  sizeof(line)) == 0)
						v = strtol(line, NULL, 10);
					pd_feat_u32(&b, (uint32_t)v);
				}
			}
		}
	}
	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		char path[256], line[32];
		long v = 0;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/topology/die_id", cpu);
		if (rec_read_line(path, line, sizeof(line)) == 0)
			v = strtol(line, NULL, 10);
		pd_feat_u32(&b, (uint32_t)v);
	}
	return put_feat(w, PD_FEAT_CPU_TOPOLOGY, &b);
}

/* format.md §4.14: per node its memory and CPUs. */
static int numa_topology(struct pd_writer *w, const struct pd_alloc *a)
{
	struct pdc_strbuf b;
	uint32_t nodes[256], nr = 0;
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && nr < 256)
		if (strncmp(de->d_name, "node", 4) == 0 &&
		    de->d_name[4] >= '0' && de->d_name[4] <= '9')
			nodes[nr++] = (uint32_t)strtoul(de->d_name + 4, NULL,
							10);
	closedir(d);
	/* in node order, as perf walks them */
	for (uint32_t i = 1; i < nr; i++)
		for (uint32_t j = i; j > 0 && nodes[j - 1] > nodes[j]; j--) {
			uint32_t t = nodes[j];

			nodes[j] = nodes[j - 1];
			nodes[j - 1] = t;
		}
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, nr);
	for (uint32_t i = 0; i < nr; i++) {
		char path[256], cpus[256];

		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%u/meminfo", nodes[i]);
		pd_feat_u32(&b, nodes[i]);
		pd_feat_u64(&b, meminfo_kb(path, "MemTotal"));
		pd_feat_u64(&b, meminfo_kb(path, "MemFree"));
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%u/cpulist", nodes[i]);
		if (rec_read_line(path, cpus, sizeof(cpus)) < 0)
			cpus[0] = '\0';
		pd_feat_string(&b, cpus);
	}
	return put_feat(w, PD_FEAT_NUMA_TOPOLOGY, &b);
}

/* format.md §4.16: u32 nr, then per PMU u32 type and its name. */
static int pmu_mappings(struct pd_writer *w, const struct pd_alloc *a)
{
	struct pdc_strbuf b, list;
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	uint32_t nr = 0;
	int rc;

	if (!d)
		return 0;
	pdc_strbuf_init(&list, a, NULL, 0);
	while ((de = readdir(d)) != NULL) {
		char path[512], line[32];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/type", de->d_name);
		if (rec_read_line(path, line, sizeof(line)) < 0)
			continue;
		pd_feat_u32(&list, (uint32_t)strtoul(line, NULL, 10));
		pd_feat_string(&list, de->d_name);
		nr++;
	}
	closedir(d);
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, nr);
	pdc_strbuf_add(&b, list.p, list.len);
	rc = list.oom ? PD_ERR_NOMEM : 0;
	pdc_strbuf_release(&list);
	return rc < 0 ? rc : put_feat(w, PD_FEAT_PMU_MAPPINGS, &b);
}

/* A cache of the CACHE feature (format.md §4.20). */
struct cache_level {
	uint32_t level, line_size, sets, ways;
	char type[64], size[64], map[1024];
};

/* cpu's cache indexN as perf 6.1's cpu_cache_level__read: @return 0, 1
 * when there is no such index, -1 when a file cannot be read. */
static int cache_read(struct cache_level *c, const char *sysfs, uint32_t cpu,
		      unsigned idx)
{
	static const char *const nums[] = {"level", "coherency_line_size",
					   "number_of_sets",
					   "ways_of_associativity"};
	uint32_t *const vals[] = {&c->level, &c->line_size, &c->sets,
				  &c->ways};
	char dir[512], path[640], line[64];

	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%u/cache/index%u",
		 sysfs, cpu, idx);
	if (access(dir, F_OK) != 0)
		return 1;
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, nums[i]);
		if (rec_read_line(path, line, sizeof(line)) < 0)
			return -1;
		*vals[i] = (uint32_t)strtoul(line, NULL, 10);
	}
	snprintf(path, sizeof(path), "%s/type", dir);
	if (rec_read_line(path, c->type, sizeof(c->type)) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/size", dir);
	if (rec_read_line(path, c->size, sizeof(c->size)) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	return rec_read_line(path, c->map, sizeof(c->map)) < 0 ? -1 : 0;
}

static bool cache_same(const struct cache_level *x, const struct cache_level *y)
{
	return x->level == y->level && x->line_size == y->line_size &&
	       x->sets == y->sets && x->ways == y->ways &&
	       strcmp(x->type, y->type) == 0 &&
	       strcmp(x->size, y->size) == 0 && strcmp(x->map, y->map) == 0;
}

/*
 * The CACHE feature as perf 6.1's write_cache: every CPU's first four
 * cache indexes, each distinct cache once (CPUs that share it list it
 * alike), in order of level (a stable sort: the first CPU's first); u32
 * version 1, u32 count, then per cache its level, line size, sets and
 * ways and the type, size and CPU list strings.  Like perf, no section
 * when a file cannot be read.
 */
static int cache_feature(struct pd_writer *w, const char *sysfs,
			 uint32_t nr_cpus, const struct pd_alloc *a)
{
	struct cache_level *c = NULL, cur;
	size_t n = 0, alloc = 0;
	struct pdc_strbuf b;
	int rc = 0;

	for (uint32_t cpu = 0; cpu < nr_cpus && rc == 0; cpu++) {
		for (unsigned idx = 0; idx < 4; idx++) {
			size_t i;
			int got = cache_read(&cur, sysfs, cpu, idx);

			if (got != 0) {
				rc = got < 0 ? 1 : 0;
				break;
			}
			for (i = 0; i < n && !cache_same(&cur, &c[i]); i++)
				;
			if (i < n)
				continue;
			if (pdc_grow(a, (void **)&c, sizeof(*c), &alloc, n + 1,
				     SIZE_MAX / sizeof(*c)) < 0) {
				pdc_free(a, c);
				return PD_ERR_NOMEM;
			}
			/* stable by level: after the caches of its level */
			for (i = n; i > 0 && c[i - 1].level > cur.level; i--)
				c[i] = c[i - 1];
			c[i] = cur;
			n++;
		}
	}
	if (rc != 0 || n == 0) {
		pdc_free(a, c);
		return 0;
	}
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, 1);
	pd_feat_u32(&b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		pd_feat_u32(&b, c[i].level);
		pd_feat_u32(&b, c[i].line_size);
		pd_feat_u32(&b, c[i].sets);
		pd_feat_u32(&b, c[i].ways);
		pd_feat_string(&b, c[i].type);
		pd_feat_string(&b, c[i].size);
		pd_feat_string(&b, c[i].map);
	}
	pdc_free(a, c);
	return put_feat(w, PD_FEAT_CACHE, &b);
}

/* The memory blocks of sysfs's node dir as a bitmap in words (bit i:
 * block memoryi), into *words (freed by the caller); @return its size
 * in bits (the highest block + 1), 0 when the dir cannot be read. */
static uint64_t node_blocks(const char *dir, uint64_t **words,
			    const struct pd_alloc *a)
{
	uint64_t bits = 0;
	struct dirent *de;
	unsigned blk;
	DIR *d = opendir(dir);

	*words = NULL;
	if (!d)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		rewinddir(d);
		while ((de = readdir(d)) != NULL) {
			if (sscanf(de->d_name, "memory%u", &blk) != 1)
				continue;
			if (pass == 0 && blk + 1ull > bits)
				bits = blk + 1ull;
			else if (pass == 1)
				(*words)[blk / 64] |= 1ull << (blk % 64);
		}
		if (pass == 0) {
			/* perf's bitmap is one bit even with no block */
			bits = bits ? bits : 1;
			*words = pdc_zalloc(a, (bits + 63) / 64 * 8);
			if (!*words)
				break;
		}
	}
	closedir(d);
	return *words ? bits : 0;
}

/*
 * MEM_TOPOLOGY (format.md §4.22) as perf 6.1's write_mem_topology: u64
 * version 1, the memory block size, the node count, then per node (in
 * order) its number, its bitmap's size in bits and the bitmap (its
 * size once more, then u64 words; bit i: memory block i is the node's).  Like perf, no section
 * when sysfs does not say.
 */
static int mem_topology(struct pd_writer *w, const char *sysfs,
			const struct pd_alloc *a)
{
	char path[512], line[64];
	struct pdc_strbuf b;
	struct dirent *de;
	uint64_t nr = 0;
	unsigned node, max = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/devices/system/memory/block_size_bytes",
		 sysfs);
	if (rec_read_line(path, line, sizeof(line)) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (sscanf(de->d_name, "node%u", &node) == 1) {
			nr++;
			max = node > max ? node : max;
		}
	closedir(d);
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u64(&b, 1);
	pd_feat_u64(&b, strtoull(line, NULL, 16));
	pd_feat_u64(&b, nr);
	/* perf sorts the nodes by number: ask for each in turn */
	for (node = 0; nr && node <= max; node++) {
		uint64_t *words, bits;

		snprintf(path, sizeof(path), "%s/devices/system/node/node%u",
			 sysfs, node);
		if (access(path, F_OK) != 0)
			continue;
		bits = node_blocks(path, &words, a);
		if (bits == 0) {
			pdc_strbuf_release(&b);
			return 0;
		}
		pd_feat_u64(&b, node);
		pd_feat_u64(&b, bits);
		/* perf's do_write_bitmap: its size again, then the words */
		pd_feat_u64(&b, bits);
		pdc_strbuf_add(&b, words, (bits + 63) / 64 * 8);
		pdc_free(a, words);
	}
	return put_feat(w, PD_FEAT_MEM_TOPOLOGY, &b);
}

/* One PMU's capabilities (format.md §4.28: u32 nr, then {name, value}
 * strings) from its caps directory, as perf's __write_pmu_caps; the
 * PMU's name after them for PMU_CAPS.  @return the number of caps. */
static uint32_t pmu_caps_of(struct pdc_strbuf *b, const char *dir,
			    const char *pmu, bool named,
			    const struct pd_alloc *a)
{
	struct pdc_strbuf caps;
	char path[768], value[256];
	struct dirent *de;
	uint32_t nr = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/caps", dir, pmu);
	d = opendir(path);
	if (!d)
		return 0;
	pdc_strbuf_init(&caps, a, NULL, 0);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/caps/%s", dir, pmu,
			 de->d_name);
		/* perf keeps the first line, its newline dropped */
		if (rec_read_line(path, value, sizeof(value)) < 0)
			continue;
		pd_feat_string(&caps, de->d_name);
		pd_feat_string(&caps, value);
		nr++;
	}
	closedir(d);
	if (b) {
		pd_feat_u32(b, nr);
		if (caps.len)
			pdc_strbuf_add(b, caps.p, caps.len);
		if (named)
			pd_feat_string(b, pmu);
		if (caps.oom)
			b->oom = true;
	}
	pdc_strbuf_release(&caps);
	return nr;
}

int pda_record_pmu_caps(struct pd_writer *w, const char *sysfs,
			const struct pd_alloc *a)
{
	struct pdc_strbuf b, list;
	char dir[512], path[768];
	struct dirent *de;
	uint32_t nr = 0;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", sysfs);
	/* CPU_PMU_CAPS: the core PMU's (x86's "cpu"), written whenever the
	 * host has that PMU, as perf 6.1's write_cpu_pmu_caps */
	snprintf(path, sizeof(path), "%s/cpu", dir);
	if (access(path, F_OK) == 0) {
		pdc_strbuf_init(&b, a, NULL, 0);
		pmu_caps_of(&b, dir, "cpu", false, a);
		rc = put_feat(w, PD_FEAT_CPU_PMU_CAPS, &b);
		if (rc < 0)
			return rc;
	}
	/* PMU_CAPS: every other PMU with capabilities (Arm's slots, IBS's
	 * zen4_ibs_extensions...), a hybrid CPU's core PMUs (cpu_core,
	 * cpu_atom) first as perf 6.1 writes them for older readers; the
	 * section holds a zero count on a host without any, as perf's */
	pdc_strbuf_init(&list, a, NULL, 0);
	for (int hybrid = 1; hybrid >= 0; hybrid--) {
		d = opendir(dir);
		if (!d)
			break;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' ||
			    strcmp(de->d_name, "cpu") == 0 ||
			    (strncmp(de->d_name, "cpu_", 4) == 0) != hybrid)
				continue;
			if (pmu_caps_of(NULL, dir, de->d_name, true, a) == 0)
				continue;
			pmu_caps_of(&list, dir, de->d_name, true, a);
			nr++;
		}
		closedir(d);
	}
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, nr);
	if (list.len)
		pdc_strbuf_add(&b, list.p, list.len);
	if (list.oom)
		b.oom = true;
	pdc_strbuf_release(&list);
	return put_feat(w, PD_FEAT_PMU_CAPS, &b);
}

/* -k: CLOCKID (the clock's resolution in ns) and CLOCK_DATA (format.md
 * §4.29: version 1, the clock, one moment read as wall-clock time and
 * on the clock), as perf 6.1 writes them with use_clockid. */
static int clock_features(struct pd_writer *w, int clockid,
			  const struct pd_alloc *a)
{
	struct timespec res, wall, clk;
	struct pdc_strbuf b;
	int rc;

	if (clock_getres((clockid_t)clockid, &res) < 0 ||
	    clock_gettime(CLOCK_REALTIME, &wall) < 0 ||
	    clock_gettime((clockid_t)clockid, &clk) < 0)
		return PD_ERR_IO;
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u64(&b, (uint64_t)res.tv_sec * 1000000000u +
				(uint64_t)res.tv_nsec);
	rc = put_feat(w, PD_FEAT_CLOCKID, &b);
	if (rc < 0)
		return rc;
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, 1);
	pd_feat_u32(&b, (uint32_t)clockid);
	pd_feat_u64(&b, (uint64_t)wall.tv_sec * 1000000000u +
				(uint64_t)wall.tv_nsec);
	pd_feat_u64(&b, (uint64_t)clk.tv_sec * 1000000000u +
				(uint64_t)clk.tv_nsec);
	return put_feat(w, PD_FEAT_CLOCK_DATA, &b);
}

int rec_host_features(struct pd_writer *w, const struct pda_record_opts *o,
		      const struct pd_alloc *a)
{
	struct utsname u;
	struct pdc_strbuf b;
	char buf[512], exe[512];
	uint32_t avail = max_present_cpu();
	ssize_t n;
	int rc = 0;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	rc = feat_string(w, PD_FEAT_HOSTNAME, u.nodename, a);
	if (rc == 0)
		rc = feat_string(w, PD_FEAT_OSRELEASE, u.release, a);
	if (rc == 0)
		rc = feat_string(w, PD_FEAT_VERSION,
				 o->version ? o->version : PD_VERSION_STRING,
				 a);
	if (rc == 0)
		rc = feat_string(w, PD_FEAT_ARCH, u.machine, a);
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, avail);
	pd_feat_u32(&b, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	if (rc == 0)
		rc = put_feat(w, PD_FEAT_NRCPUS, &b);
	cpuinfo("model name", buf, sizeof(buf));
	if (rc == 0 && buf[0])
		rc = feat_string(w, PD_FEAT_CPUDESC, buf, a);
	cpuid(buf, sizeof(buf));
	if (rc == 0 && buf[0])
		rc = feat_string(w, PD_FEAT_CPUID, buf, a);
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u64(&b, meminfo_kb("/proc/meminfo", "MemTotal"));
	if (rc == 0)
		rc = put_feat(w, PD_FEAT_TOTAL_MEM, &b);
	/* perf's CMDLINE: the tool's own path, then its arguments */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	pdc_strbuf_init(&b, a, NULL, 0);
	pd_feat_u32(&b, (uint32_t)(o->nr_cmdline + 1));
	pd_feat_string(&b, exe);
	for (int i = 0; i < o->nr_cmdline; i++)
		pd_feat_string(&b, o->cmdline[i]);
	if (rc == 0)
		rc = put_feat(w, PD_FEAT_CMDLINE, &b);
	if (rc == 0)
		rc = cpu_topology(w, avail, a);
	if (rc == 0)
		rc = numa_topology(w, a);
	if (rc == 0)
		rc = pmu_mappings(w, a);
	if (rc == 0)
		rc = pda_record_pmu_caps(w, "/sys", a);
	if (rc == 0)
		rc = cache_feature(w, "/sys", avail, a);
	if (rc == 0)
		rc = mem_topology(w, "/sys", a);
	if (rc == 0 && o->use_clockid)
		rc = clock_features(w, o->clockid, a);
	return rc;
}

/* ---- synthesized records ------------------------------------------ */

static void synth_header(struct rec_synth *s, uint32_t type, uint16_t misc,
			 size_t size)
{
	uint16_t sz = (uint16_t)(size + s->id_hdr_size);

	pdc_strbuf_add(&s->out, &type, 4);
	pdc_strbuf_add(&s->out, &misc, 2);
	pdc_strbuf_add(&s->out, &sz, 2);
}

static void synth_trailer(struct rec_synth *s)
{
	static const char zeros[64];

	pdc_strbuf_add(&s->out, zeros, s->id_hdr_size);
}

/* A NUL-terminated name padded to 8 bytes. */
static void synth_name(struct rec_synth *s, const char *name, size_t len)
{
	static const char zeros[8];
	size_t padded = (len + 1 + 7) / 8 * 8;

	pdc_strbuf_add(&s->out, name, len);
	pdc_strbuf_add(&s->out, zeros, padded - len);
}

static size_t padded_name(size_t len)
{
	return (len + 1 + 7) / 8 * 8;
}

static void synth_mmap(struct rec_synth *s, int32_t pid, int32_t tid,
		       uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *name)
{
	size_t nlen = strlen(name);

	synth_header(s, PD_REC_MMAP, PD_MISC_KERNEL, 40 + padded_name(nlen));
	pdc_strbuf_add(&s->out, &pid, 4);
	pdc_strbuf_add(&s->out, &tid, 4);
	pdc_strbuf_add(&s->out, &start, 8);
	pdc_strbuf_add(&s->out, &len, 8);
	pdc_strbuf_add(&s->out, &pgoff, 8);
	synth_name(s, name, nlen);
	synth_trailer(s);
}

static bool kallsyms_addr(const char *sym, uint64_t *addr)
{
	FILE *fp = fopen("/proc/kallsyms", "re");
	char line[512];
	size_t len = strlen(sym);
	bool found = false;

	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *name = strchr(line, ' ');

		if (!name || !(name = strchr(name + 1, ' ')))
			continue;
		name++;
		if (strncmp(name, sym, len) == 0 &&
		    (name[len] == '\n' || name[len] == '\t' || !name[len])) {
			*addr = strtoull(line, NULL, 16);
			found = *addr != 0;
		}
	}
	fclose(fp);
	return found;
}

int rec_synth_kernel(struct rec_synth *s)
{
	uint64_t text, etext;
	FILE *fp;
	char line[512];

	/* perf's kernel map: _text to _etext, pgoff the relocation
	 * reference _text; with kptr_restrict hiding the addresses there
	 * is none, as perf has none */
	if (!kallsyms_addr("_text", &text) || !kallsyms_addr("_etext", &etext) ||
	    etext <= text)
		return 0;
	synth_mmap(s, -1, 0, text, etext - text, text,
		   "[kernel.kallsyms]_text");
	if (rec_dsos_map(s->dsos, -1, text, etext - text,
			 "[kernel.kallsyms]", true) < 0)
		return PD_ERR_NOMEM;
	fp = fopen("/proc/modules", "re");
	if (!fp)
		return s->out.oom ? PD_ERR_NOMEM : 0;
	while (fgets(line, sizeof(line), fp)) {
		char name[128], path[300];
		unsigned long long size, addr;

		if (sscanf(line, "%127s %llu %*s %*s %*s %llx", name, &size,
			   &addr) != 3 ||
		    !addr)
			continue;
		snprintf(path, sizeof(path), "[%s]", name);
		synth_mmap(s, -1, 0, addr, size, 0, path);
		if (rec_dsos_map(s->dsos, -1, addr, size, path, true) < 0) {
			fclose(fp);
			return PD_ERR_NOMEM;
		}
	}
	fclose(fp);
	return s->out.oom ? PD_ERR_NOMEM : 0;
}

/* Name and parent of a thread from /proc/PID/task/TID/status. */
static bool thread_status(int32_t pid, int32_t tid, char *comm, size_t size,
			  int32_t *ppid, int32_t *tgid)
{
	char path[128], line[256];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	comm[0] = '\0';
	*ppid = 0;
	*tgid = pid;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "Name:\t", 6) == 0) {
			size_t len = strcspn(line + 6, "\n");

			if (len >= size)
				len = size - 1;
			memcpy(comm, line + 6, len);
			comm[len] = '\0';
		} else if (strncmp(line, "PPid:\t", 6) == 0) {
			*ppid = (int32_t)strtol(line + 6, NULL, 10);
		} else if (strncmp(line, "Tgid:\t", 6) == 0) {
			*tgid = (int32_t)strtol(line + 6, NULL, 10);
		}
	}
	fclose(fp);
	return true;
}

/* MMAP2 records for a process's maps, as perf's
 * perf_event__synthesize_mmap_events: executable maps (all with -d),
 * and the anonymous executable ones as //anon. */
static int synth_maps(struct rec_synth *s, int32_t pid)
{
	char path[64], line[4096 + 256];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return PD_ERR_NOTFOUND;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perm[8];
		int name_at = 0;
		const char *name;
		uint32_t prot = 0, flags;
		uint64_t ino_gen = 0; /* MMAP2's ino_generation is a u64 */
		uint16_t misc = PD_MISC_USER;
		size_t nlen;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start,
			   &end, perm, &pgoff, &maj, &min, &ino,
			   &name_at) < 7)
			continue;
		name = name_at ? line + name_at : "";
		if (perm[2] != 'x' && !s->mmap_data)
			continue;
		if (perm[2] != 'x')
			misc |= PD_MISC_MMAP_DATA;
		if (!*name)
			name = "//anon";
		/* perf's names for the special maps */
		if (strcmp(name, "[vsyscall]") == 0)
			continue;
		prot = (perm[0] == 'r' ? 1u : 0) | (perm[1] == 'w' ? 2u : 0) |
		       (perm[2] == 'x' ? 4u : 0);
		flags = perm[3] == 's' ? 1u /* MAP_SHARED */ : 2u;
		nlen = strlen(name);
		synth_header(s, PD_REC_MMAP2, misc, 72 + padded_name(nlen));
		{
			uint64_t len = end - start;
			uint32_t mj = maj, mn = min;

			pdc_strbuf_add(&s->out, &pid, 4);
			pdc_strbuf_add(&s->out, &pid, 4);
			pdc_strbuf_add(&s->out, &start, 8);
			pdc_strbuf_add(&s->out, &len, 8);
			pdc_strbuf_add(&s->out, &pgoff, 8);
			pdc_strbuf_add(&s->out, &mj, 4);
			pdc_strbuf_add(&s->out, &mn, 4);
			pdc_strbuf_add(&s->out, &ino, 8);
			pdc_strbuf_add(&s->out, &ino_gen, 8);
			pdc_strbuf_add(&s->out, &prot, 4);
			pdc_strbuf_add(&s->out, &flags, 4);
			synth_name(s, name, nlen);
			synth_trailer(s);
			if (perm[2] == 'x' &&
			    rec_dsos_map(s->dsos, pid, start, len, name,
					 false) < 0) {
				fclose(fp);
				return PD_ERR_NOMEM;
			}
		}
	}
	fclose(fp);
	return s->out.oom ? PD_ERR_NOMEM : 0;
}

static void synth_comm(struct rec_synth *s, int32_t pid, int32_t tid,
		       const char *comm)
{
	const size_t clen = strlen(comm);

	synth_header(s, PD_REC_COMM, 0, 16 + padded_name(clen));
	pdc_strbuf_add(&s->out, &pid, 4);
	pdc_strbuf_add(&s->out, &tid, 4);
	synth_name(s, comm, clen);
	synth_trailer(s);
}

int rec_synth_comm(struct rec_synth *s, int32_t pid)
{
	char comm[64];
	int32_t ppid, tgid;

	if (!thread_status(pid, pid, comm, sizeof(comm), &ppid, &tgid))
		return PD_ERR_NOTFOUND;
	synth_comm(s, tgid, pid, comm);
	return s->out.oom ? PD_ERR_NOMEM : 0;
}

int rec_synth_process(struct rec_synth *s, int32_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	bool any = false;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return PD_ERR_NOTFOUND;
	while ((de = readdir(d)) != NULL) {
		char comm[64];
		int32_t tid, ppid, tgid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (int32_t)strtol(de->d_name, NULL, 10);
		if (!thread_status(pid, tid, comm, sizeof(comm), &ppid, &tgid))
			continue;
		any = true;
		/* FORK (pid:tid from ppid:ppid), then COMM, as perf's
		 * __event__synthesize_thread */
		synth_header(s, PD_REC_FORK, 0, 32);
		{
			int32_t parent = tid == tgid ? ppid : tgid;
			uint64_t time = 0;

			pdc_strbuf_add(&s->out, &tgid, 4);
			pdc_strbuf_add(&s->out, &parent, 4);
			pdc_strbuf_add(&s->out, &tid, 4);
			pdc_strbuf_add(&s->out, &parent, 4);
			pdc_strbuf_add(&s->out, &time, 8);
			synth_trailer(s);
			if (rec_dsos_fork(s->dsos, tid, tid == tgid ? ppid
								   : tgid) < 0)
				break;
		}
		synth_comm(s, tgid, tid, comm);
	}
	closedir(d);
	if (!any)
		return PD_ERR_NOTFOUND;
	return synth_maps(s, pid);
}
