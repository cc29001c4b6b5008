/*
 * pda_dwahead.c - binaries' DWARF loaded ahead of its first lookup, on
 * another thread (pda_symbols_int.h).
 *
 * A two-pass DWARF run looks each unwound address up for the first time
 * in one serial replay, in addr2line's naming order (pda_first_replay),
 * and that replay used to load each binary's DWARF as it met it: inflate
 * its compressed sections (two thirds of the replay on the bench's
 * capture: libc's debug file), read its aranges, index the units and read
 * their line tables.  The unwind pass queues each address as it meets it
 * (pda_dwahead_add); an idle worker of the pipeline does that loading
 * (pda_dwahead_run) while the unwinds go on, so that the replay finds it
 * done.  It builds the binary's symbol table there too (a third of the
 * replay was building them, demangling included), and with it what the
 * first lookup in it would: the table, its PLT names, the names compared
 * demangled interned (pda_intern takes a lock while threads run).
 * Nothing loaded depends on the order it is loaded in: interned strings
 * are kept by address only, and the names that do depend on it
 * (pda_dwarf.c a2l_name) are fixed by the replay's lookups only.
 *
 * Threads: items are added on the session's thread; one thread at a time
 * loads (busy), without the queue's lock; pda_dwahead_close() waits for
 * it, after which the session's thread owns every queued binary again.
 * Between its first add and the close, the session's thread uses none of
 * a queued binary's libelf handle, DWARF or addr2line table (the unwind
 * pass looks no symbols up, and its unwinders read the mapped image).
 * Loading ahead is only for speed: an address dropped (the queue full,
 * out of memory, closed before its turn) is loaded by its lookup.
 */
#include "pda_elf_int.h"

#include <pthread.h>
#include <string.h>

/* Addresses queued at most: the bench's capture queues about 30k. */
#define MAX_QUEUED ((size_t)1 << 20)
/* Addresses one pda_dwahead_run() takes. */
#define CHUNK 16

struct ahead_item {
	struct pda_elf *e;
	uint64_t vaddr;
};

/* Invariants: v[next..nr) wait; busy while a thread loads a chunk. */
struct pda_dwahead {
	pthread_mutex_t mu;
	pthread_cond_t idle;
	struct ahead_item *v;
	size_t nr, next, alloc;
	bool busy, closed;
	uint64_t nr_loaded, nr_dropped;
};

int pda_dwahead_new(struct pda_session *s, struct pda_dwahead **out)
{
	struct pda_dwahead *a;

	*out = NULL;
	a = pda_zalloc(s, sizeof(*a));
	if (!a)
		return PD_ERR_NOMEM;
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		pda_free(s, a);
		return PD_ERR_NOMEM;
	}
	if (pthread_cond_init(&a->idle, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		pda_free(s, a);
		return PD_ERR_NOMEM;
	}
	*out = a;
	return 0;
}

void pda_dwahead_free(struct pda_session *s, struct pda_dwahead *a)
{
	if (!a)
		return;
	pthread_cond_destroy(&a->idle);
	pthread_mutex_destroy(&a->mu);
	pda_free(s, a->v);
	pda_free(s, a);
}

void pda_dwahead_add(struct pda_session *s, struct pda_dwahead *a,
		     struct pda_elf *e, uint64_t vaddr)
{
	pthread_mutex_lock(&a->mu);
	if (a->closed)
		goto out;
	/* what was taken is dropped from the front once it is half */
	if (a->next && a->next * 2 >= a->nr) {
		memmove(a->v, a->v + a->next,
			(a->nr - a->next) * sizeof(*a->v));
		a->nr -= a->next;
		a->next = 0;
	}
	if (PDA_GROW(s, a->v, a->alloc, a->nr + 1, MAX_QUEUED) < 0) {
		a->nr_dropped++;
		goto out;
	}
	a->v[a->nr].e = e;
	a->v[a->nr].vaddr = vaddr;
	a->nr++;
out:
	pthread_mutex_unlock(&a->mu);
}

bool pda_dwahead_run(struct pda_session *s, struct pda_dwahead *a)
{
	struct ahead_item chunk[CHUNK];
	size_t nr = 0;

	pthread_mutex_lock(&a->mu);
	if (!a->closed && !a->busy && a->next < a->nr) {
		nr = a->nr - a->next < CHUNK ? a->nr - a->next : CHUNK;
		memcpy(chunk, a->v + a->next, nr * sizeof(*chunk));
		a->next += nr;
		a->busy = true;
	}
	pthread_mutex_unlock(&a->mu);
	if (!nr)
		return false;
	for (size_t i = 0; i < nr; i++) {
		/* NOMEM: the lookup loads it, and says so */
		if (pda_elf_dwarf_ahead(s, chunk[i].e, chunk[i].vaddr) < 0 ||
		    pda_elf_a2l_ahead(s, chunk[i].e) < 0 ||
		    pda_elf_symtab_ahead(s, chunk[i].e) < 0)
			break;
	}
	pthread_mutex_lock(&a->mu);
	a->nr_loaded += nr;
	a->busy = false;
	pthread_cond_broadcast(&a->idle);
	pthread_mutex_unlock(&a->mu);
	return true;
}

void pda_dwahead_close(struct pda_session *s, struct pda_dwahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->closed = true;
	while (a->busy)
		pthread_cond_wait(&a->idle, &a->mu);
	a->nr_dropped += a->nr - a->next;
	a->nr = a->next = 0;
	pthread_mutex_unlock(&a->mu);
	pda_logf(s, PD_LOG_DEBUG,
		 "DWARF loaded ahead at %llu addresses, %llu left to their "
		 "lookups",
		 (unsigned long long)a->nr_loaded,
		 (unsigned long long)a->nr_dropped);
}

void pda_dwahead_open(struct pda_dwahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->closed = false;
	pthread_mutex_unlock(&a->mu);
}
