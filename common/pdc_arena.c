/*
 * pdc_arena.c - the arena of pdc_arena.h.
 */
#include "pdc_arena.h"

#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

struct pdc_arena_block {
	struct pdc_arena_block *next;
	alignas(PDC_ARENA_ALIGN) unsigned char data[];
};

/* A block of at least size bytes, linked in behind head when own. */
static unsigned char *new_block(struct pdc_arena *ar, const struct pd_alloc *a,
				size_t size, bool own)
{
	struct pdc_arena_block *b;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = pdc_malloc(a, sizeof(*b) + size);
	if (!b)
		return NULL;
	ar->total += sizeof(*b) + size;
	if (own && ar->head) {
		/* keep the current block current */
		b->next = ar->head->next;
		ar->head->next = b;
	} else {
		b->next = ar->head;
		ar->head = b;
		if (!own) {
			ar->cur = b->data;
			ar->left = size;
		}
	}
	return b->data;
}

void *pdc_arena_alloc(struct pdc_arena *ar, const struct pd_alloc *a,
		      size_t size)
{
	unsigned char *p;

	if (size > SIZE_MAX - PDC_ARENA_ALIGN)
		return NULL;
	size = (size + PDC_ARENA_ALIGN - 1) & ~(size_t)(PDC_ARENA_ALIGN - 1);
	if (size == 0)
		size = PDC_ARENA_ALIGN;
	if (size > PDC_ARENA_BLOCK / 4)
		return new_block(ar, a, size, true);
	if (size > ar->left && !new_block(ar, a, PDC_ARENA_BLOCK, false))
		return NULL;
	p = ar->cur;
	ar->cur += size;
	ar->left -= size;
	return p;
}

void pdc_arena_adopt(struct pdc_arena *ar, struct pdc_arena *from)
{
	struct pdc_arena_block *tail = from->head;

	if (!tail)
		return;
	if (!ar->head) {
		*ar = *from;
		*from = (struct pdc_arena)PDC_ARENA_INIT;
		return;
	}
	while (tail->next)
		tail = tail->next;
	/* behind head: ar's current block stays current */
	tail->next = ar->head->next;
	ar->head->next = from->head;
	ar->total += from->total;
	*from = (struct pdc_arena)PDC_ARENA_INIT;
}

void *pdc_arena_zalloc(struct pdc_arena *ar, const struct pd_alloc *a,
		       size_t size)
{
	void *p = pdc_arena_alloc(ar, a, size);

	if (p)
		memset(p, 0, size);
	return p;
}

char *pdc_arena_strndup(struct pdc_arena *ar, const struct pd_alloc *a,
			const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = pdc_arena_alloc(ar, a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void pdc_arena_release(struct pdc_arena *ar, const struct pd_alloc *a)
{
	struct pdc_arena_block *b = ar->head, *next;

	for (; b; b = next) {
		next = b->next;
		pdc_free(a, b);
	}
	ar->head = NULL;
	ar->cur = NULL;
	ar->left = 0;
	ar->total = 0;
}
