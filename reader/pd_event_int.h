/*
 * pd_event_int.h - what pd_event.c (dispatch, CPU maps, accessors),
 * pd_event_kernel.c and pd_event_user.c share: a bounds-checked cursor
 * over one record's body.
 *
 * Invariant: c->p <= c->end, and [p, end) lies inside the record (for a
 * kernel record, before its sample_id_all trailer).  Every take checks
 * the bytes left first, so a decoder can never read past end; a failed
 * take leaves the cursor where it was.
 *
 *	struct pd_evcur c = { f, rec, rec->data + 8, rec->data + rec->size,
 *			      f->swap };
 *	PD_EV_NEED(&c, evc_u64(&c, &ev->lost.id), "id");
 */
#ifndef PD_EVENT_INT_H
#define PD_EVENT_INT_H

#include "pd_int.h"

struct pd_evcur {
	struct pd_file *f;
	const struct pd_rec *rec;
	const unsigned char *p, *end;
	int swap;
};

static inline uint64_t evc_left(const struct pd_evcur *c)
{
	return (uint64_t)(c->end - c->p);
}

static inline bool evc_take(struct pd_evcur *c, uint64_t n,
			    const unsigned char **out)
{
	if (evc_left(c) < n)
		return false;
	*out = c->p;
	c->p += n;
	return true;
}

static inline bool evc_skip(struct pd_evcur *c, uint64_t n)
{
	const unsigned char *p;

	return evc_take(c, n, &p);
}

static inline bool evc_u64(struct pd_evcur *c, uint64_t *v)
{
	const unsigned char *p;

	if (!evc_take(c, 8, &p))
		return false;
	*v = pd_load_u64(p, c->swap);
	return true;
}

static inline bool evc_u32(struct pd_evcur *c, uint32_t *v)
{
	const unsigned char *p;

	if (!evc_take(c, 4, &p))
		return false;
	*v = pd_load_u32(p, c->swap);
	return true;
}

static inline bool evc_u16(struct pd_evcur *c, uint16_t *v)
{
	const unsigned char *p;

	if (!evc_take(c, 2, &p))
		return false;
	*v = pd_load_u16(p, c->swap);
	return true;
}

static inline bool evc_u8(struct pd_evcur *c, uint8_t *v)
{
	const unsigned char *p;

	if (!evc_take(c, 1, &p))
		return false;
	*v = p[0];
	return true;
}

/* A string of at most max bytes at p (the field's size). */
static inline void evc_str_at(const unsigned char *p, size_t max,
			      struct pd_str *s)
{
	const void *nul = memchr(p, 0, max);

	s->ptr = (const char *)p;
	s->len = nul ? (size_t)((const unsigned char *)nul - p) : max;
}

/*
 * A string field that takes the next min(max, left) bytes: the rest of
 * the body for a variable-length name, or a fixed-size char array that
 * a short record may have cut.
 */
static inline void evc_str(struct pd_evcur *c, uint64_t max, struct pd_str *s)
{
	const uint64_t n = evc_left(c) < max ? evc_left(c) : max;

	evc_str_at(c->p, (size_t)n, s);
	c->p += n;
}

/* An array of nr elements of elem bytes, nr taken from the file. */
static inline bool evc_array(struct pd_evcur *c, uint64_t nr, uint64_t elem,
			     const unsigned char **out)
{
	if (nr > evc_left(c) / elem)
		return false;
	return evc_take(c, nr * elem, out);
}

static inline bool evc_u64s(struct pd_evcur *c, uint64_t nr, struct pd_u64s *a)
{
	a->swap = c->swap;
	if (!evc_array(c, nr, 8, &a->raw))
		return false;
	a->nr = nr;
	return true;
}

/* Set the file's message for a field the record is too short for. */
int pd_ev_short(const struct pd_evcur *c, const char *field);

#define PD_EV_NEED(c, ok, field)                                               \
	do {                                                                   \
		if (!(ok))                                                     \
			return pd_ev_short((c), (field));                      \
	} while (0)

/* pd_event_kernel.c: types 1..63 but SAMPLE; c ends before the trailer */
int pd_ev_decode_kernel(struct pd_evcur *c, struct pd_event *ev);
/* pd_event_user.c: perf's records, types 64 and up */
int pd_ev_decode_user(struct pd_evcur *c, struct pd_event *ev);
/* pd_event.c: a perf_record_cpu_map_data at the cursor */
int pd_ev_cpu_map(struct pd_evcur *c, struct pd_cpu_map *m);

#endif /* PD_EVENT_INT_H */
