/*
 * pd_event_int.h - what pd_event.c (dispatch, CPU maps, accessors),
 * pd_event_kernel.c and pd_event_user.c share: a bounds-checked cursor
 * over one record's body.
 *
 * Invariant: c->cur (common/pdc_cur.h) lies inside the record (for a
 * kernel record, before its sample_id_all trailer).  Every take checks
 * the bytes left first, so a decoder can never read past end; a failed
 * take leaves the cursor where it was.
 *
 *	struct pd_evcur c = { f, rec };
 *	pdc_cur_init(&c.cur, rec->data + 8, rec->size - 8, f->swap);
 *	PD_EV_NEED(&c, evc_u64(&c, &ev->lost.id), "id");
 */
#ifndef PD_EVENT_INT_H
#define PD_EVENT_INT_H

#include "pd_int.h"
#include "pdc_cur.h"

struct pd_evcur {
	struct pd_file *f;
	const struct pd_rec *rec;
	struct pdc_cur cur;
};

/* The record decoders' names for common/pdc_cur.h on c->cur. */
static inline uint64_t evc_left(const struct pd_evcur *c)
{
	return pdc_cur_left(&c->cur);
}

static inline bool evc_take(struct pd_evcur *c, uint64_t n,
			    const unsigned char **out)
{
	return pdc_cur_take(&c->cur, n, out);
}

static inline bool evc_skip(struct pd_evcur *c, uint64_t n)
{
	return pdc_cur_skip(&c->cur, n);
}

static inline bool evc_u64(struct pd_evcur *c, uint64_t *v)
{
	return pdc_cur_u64(&c->cur, v);
}

static inline bool evc_u32(struct pd_evcur *c, uint32_t *v)
{
	return pdc_cur_u32(&c->cur, v);
}

static inline bool evc_u16(struct pd_evcur *c, uint16_t *v)
{
	return pdc_cur_u16(&c->cur, v);
}

static inline bool evc_u8(struct pd_evcur *c, uint8_t *v)
{
	return pdc_cur_u8(&c->cur, v);
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

	evc_str_at(c->cur.p, (size_t)n, s);
	c->cur.p += n;
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
	a->swap = c->cur.swap;
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
