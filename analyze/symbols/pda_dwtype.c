/*
 * pda_dwtype.c - the data type and member a memory access touches, from
 * the binary's DWARF alone, as perf >= 6.8's data-type profiling finds it
 * (tools/perf/util/annotate-data.c): the variable whose location at the
 * instruction is the access's base register, or the frame-base slot or
 * global the access falls in, then the member of its type at the
 * access's offset.
 *
 * The caller (analyze/datatype) decodes the instruction; this file
 * knows registers only by their DWARF numbers.  Per file it keeps the
 * globals and statics by address (built on the first address lookup,
 * once) and the call-frame information for DW_OP_call_frame_cfa.
 */
#include "pda_elf_int.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A global or static variable with a fixed address. */
struct gvar {
	uint64_t addr, size;
	Dwarf_Die die;
};

struct pda_dwtype {
	struct gvar *vars;	/* sorted by addr; built on first need */
	size_t nr_vars, alloc_vars;
	bool vars_built;
	Dwarf_CFI *cfi_eh;	/* .eh_frame's, or NULL */
	Dwarf_CFI *cfi_debug;	/* .debug_frame's (owned by libdw), or NULL */
	bool cfi_tried;
};

/* Caps on what one file may make us hold (O5), and on walks. */
#define MAX_GVARS ((size_t)1 << 22)
#define MAX_DEPTH 64
#define MAX_TYPE_HOPS 32
#define NAME_MAX_LEN 512

void pda_dwtype_free(struct pda_session *s, struct pda_dwtype *t)
{
	if (!t)
		return;
	if (t->cfi_eh)
		dwarf_cfi_end(t->cfi_eh);
	pda_free(s, t->vars);
	pda_free(s, t);
}

static struct pda_dwtype *state(struct pda_session *s, struct pda_elf *e)
{
	if (!e->dwtype)
		e->dwtype = pda_zalloc(s, sizeof(*e->dwtype));
	return e->dwtype;
}

/* ---- types ---------------------------------------------------------- */

/* die's DW_AT_type, or false. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) &&
	       dwarf_formref_die(&attr, out) != NULL;
}

/* type without its typedefs and qualifiers, as perf's
 * die_get_real_type(); false for void or a broken chain. */
static bool real_type(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type;

	for (int hops = 0; hops < MAX_TYPE_HOPS; hops++) {
		switch (dwarf_tag(&cur)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!type_of(&cur, &cur))
				return false;
			continue;
		default:
			*out = cur;
			return true;
		}
	}
	return false;
}

static uint64_t type_size(Dwarf_Die *type)
{
	Dwarf_Word size;

	return dwarf_aggregate_size(type, &size) == 0 ? size : 0;
}

/*
 * type's name as perf's die_get_typename_from_type() writes it: "struct
 * foo", "union u", "enum e", a class's, base type's or typedef's name, a
 * pointer as its target's name and '*', an array as its element's and "[]" (as
 * perf 7.2, checked; its element count is not in the name).
 */
static void type_name(Dwarf_Die *type, char *buf, size_t size, int depth)
{
	const char *tag = "", *name = dwarf_diename(type);
	Dwarf_Die next;
	size_t len;

	buf[0] = '\0';
	if (depth > MAX_TYPE_HOPS)
		return;
	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
		tag = "struct ";
		break;
	case DW_TAG_class_type:
		/* perf 7.2 names a C++ class without a keyword: "Account"
		 * (checked on testdata/dtcxx) */
		break;
	case DW_TAG_union_type:
		tag = "union ";
		break;
	case DW_TAG_enumeration_type:
		tag = "enum ";
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (type_of(type, &next))
			type_name(&next, buf, size, depth + 1);
		else
			snprintf(buf, size, "void");
		len = strlen(buf);
		snprintf(buf + len, size - len, "*");
		return;
	case DW_TAG_array_type:
		/* perf 7.x: "[]", whatever the count */
		if (type_of(type, &next))
			type_name(&next, buf, size, depth + 1);
		len = strlen(buf);
		snprintf(buf + len, size - len, "[]");
		return;
	case DW_TAG_subroutine_type:
		snprintf(buf, size, "(function_type)");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (type_of(type, &next))
			type_name(&next, buf, size, depth + 1);
		return;
	default:
		break;
	}
	snprintf(buf, size, "%s%s", tag, name ? name : "");
}

/* A member's offset in its struct (0 in a union, or without one). */
static int64_t member_offset(Dwarf_Die *m)
{
	Dwarf_Attribute attr;
	Dwarf_Word off = 0;

	if (dwarf_attr(m, DW_AT_data_member_location, &attr) &&
	    dwarf_formudata(&attr, &off) != 0)
		off = 0;
	return (int64_t)off;
}

/* Append "sep name" to buf (len its length so far). */
static void append(char *buf, size_t size, size_t *len, const char *sep,
		   const char *name)
{
	int n;

	if (*len >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s%s", *len ? sep : "", name);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/*
 * Whether member m is a bit-field (DW_AT_bit_size with
 * DW_AT_data_bit_offset, as gcc and clang write them since DWARF 4):
 * its bits, with *off and *size set to the bytes holding them; 0 and
 * nothing changed for other members.
 */
static uint64_t bit_field(Dwarf_Die *m, int64_t *off, uint64_t *size)
{
	Dwarf_Attribute attr;
	Dwarf_Word bits = 0, bitoff = 0;

	if (!dwarf_attr(m, DW_AT_bit_size, &attr) ||
	    dwarf_formudata(&attr, &bits) != 0 || !bits ||
	    !dwarf_attr(m, DW_AT_data_bit_offset, &attr) ||
	    dwarf_formudata(&attr, &bitoff) != 0)
		return 0;
	*off = (int64_t)(bitoff / 8);
	*size = (bitoff % 8 + bits + 7) / 8;
	return bits;
}

/* *arr (an array type) becomes its element's type (real), *off the
 * offset in the element, *index the element's.  false: an element of
 * no known size. */
static bool array_elem(Dwarf_Die *arr, int64_t *off, uint64_t *index)
{
	Dwarf_Die et;
	uint64_t esize;

	if (!type_of(arr, &et) || !real_type(&et, &et) ||
	    !(esize = type_size(&et)))
		return false;
	*index = (uint64_t)*off / esize;
	*off %= (int64_t)esize;
	*arr = et;
	return true;
}

/*
 * The member of the struct, union or class agg whose bytes hold off:
 * its DIE into *m, its type (real) into *mt, its offset into *moff and,
 * for a bit-field, its bits into *bits (else 0).  false: none.
 */
static bool member_at(Dwarf_Die *agg, int64_t off, Dwarf_Die *m,
		      Dwarf_Die *mt, int64_t *moff, uint64_t *bits)
{
	const int tag = dwarf_tag(agg);

	if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	     tag != DW_TAG_class_type) ||
	    dwarf_child(agg, m) != 0)
		return false;
	do {
		uint64_t msize;

		if (dwarf_tag(m) != DW_TAG_member || !type_of(m, mt) ||
		    !real_type(mt, mt))
			continue;
		*moff = member_offset(m);
		msize = type_size(mt);
		*bits = bit_field(m, moff, &msize);
		if (off >= *moff && (uint64_t)(off - *moff) < msize)
			return true;
	} while (dwarf_siblingof(m, m) == 0);
	return false;
}

/*
 * The member of type at off, nested members joined with '.' (anonymous
 * structs and unions add no name, as perf's fill_member_name()), array
 * elements indexed ("slots[3].key").  Empty when type has no member
 * there.
 */
static void member_name(Dwarf_Die *type, int64_t off, char *buf, size_t size)
{
	Dwarf_Die cur = *type, child, mt;
	size_t len = 0;
	char idx[32], bname[NAME_MAX_LEN];
	uint64_t bits;
	int64_t moff;
	const char *name;

	buf[0] = '\0';
	for (int depth = 0; depth < MAX_DEPTH && off >= 0; depth++) {
		if (dwarf_tag(&cur) == DW_TAG_array_type) {
			uint64_t index;

			if (!array_elem(&cur, &off, &index))
				return;
			snprintf(idx, sizeof(idx), "[%" PRIu64 "]", index);
			if (len)
				append(buf, size, &len, "", idx);
			continue;
		}
		if (!member_at(&cur, off, &child, &mt, &moff, &bits))
			return;
		name = dwarf_diename(&child);
		if (name && bits) {
			/* perf 7.2: "flags:3" */
			snprintf(bname, sizeof(bname), "%s:%" PRIu64, name,
				 bits);
			name = bname;
		}
		if (name)
			append(buf, size, &len, ".", name);
		off -= moff;
		cur = mt;
	}
}

/* Fill out for the variable var of type type (real) at off into it. */
static int found(struct pda_session *s, struct pda_elf *e, Dwarf_Die *var,
		 Dwarf_Die *named, Dwarf_Die *type, int64_t off,
		 struct pda_dt_type *out, enum pda_dt_why *why)
{
	char name[NAME_MAX_LEN], member[NAME_MAX_LEN];
	const char *vname;
	Dwarf_Attribute attr;
	uint64_t size = type_size(type);

	if (off < 0 || (uint64_t)off >= size) {
		*why = PDA_DT_BAD_OFFSET;
		return 0;
	}
	/* by its declared name, a typedef's too ("Elf64_Dyn"), as perf
	 * 7.2 names it; its members by the type under the typedefs */
	type_name(named, name, sizeof(name), 0);
	member_name(type, off, member, sizeof(member));
	vname = dwarf_attr_integrate(var, DW_AT_name, &attr)
			? dwarf_formstring(&attr)
			: NULL;
	out->type = pda_intern(s, name, strlen(name));
	out->member = member[0] ? pda_intern(s, member, strlen(member)) : NULL;
	out->var = vname ? pda_intern(s, vname, strlen(vname)) : NULL;
	if (!out->type || (member[0] && !out->member) || (vname && !out->var))
		return PD_ERR_NOMEM;
	out->offset = off;
	out->size = size;
	/* a type of a dwz alt file has its offset in another Dwarf */
	out->die = dwarf_cu_getdwarf(named->cu) == pda_dwarf_handle(s, e)
			   ? dwarf_dieoffset(named)
			   : 0;
	*why = PDA_DT_FOUND;
	return 0;
}

/* ---- locations ------------------------------------------------------ */

/* The register a one-op location names (DW_OP_regN, regx), or -1. */
static int op_reg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx)
		return (int)op->number;
	return -1;
}

/* The register and offset of DW_OP_bregN / bregx, or -1. */
static int op_breg(const Dwarf_Op *op, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*off = (int64_t)op->number;
		return op->atom - DW_OP_breg0;
	}
	if (op->atom == DW_OP_bregx) {
		*off = (int64_t)op->number2;
		return (int)op->number;
	}
	return -1;
}

/* The CFA at pc as register + offset, through .eh_frame or
 * .debug_frame.  @return the register, or -1. */
static int cfa_at(struct pda_session *s, struct pda_elf *e, uint64_t pc,
		  int64_t *off)
{
	struct pda_dwtype *t = state(s, e);
	Dwarf_CFI *cfis[2];
	int reg = -1;

	if (!t)
		return -1;
	if (!t->cfi_tried) {
		Dwarf *dw = pda_dwarf_handle(s, e);

		t->cfi_tried = true;
		t->cfi_eh = dwarf_getcfi_elf(e->elf);
		t->cfi_debug = dw ? dwarf_getcfi(dw) : NULL;
	}
	cfis[0] = t->cfi_eh;
	cfis[1] = t->cfi_debug;
	for (int i = 0; i < 2 && reg < 0; i++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t nops;

		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc, &frame) != 0)
			continue;
		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1)
			reg = op_breg(&ops[0], off);
		free(frame);
	}
	return reg;
}

/* The frame base of subprogram fn at pc as register + offset, or -1. */
static int frame_base(struct pda_session *s, struct pda_elf *e,
		      Dwarf_Die *fn, uint64_t pc, int64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	int reg;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1 ||
	    nops != 1)
		return -1;
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return cfa_at(s, e, pc, off);
	*off = 0;
	reg = op_breg(&ops[0], off);
	if (reg < 0 && (reg = op_reg(&ops[0])) >= 0)
		*off = 0;
	return reg;
}

/*
 * The pointer at offset at of type (real): type itself at 0, or a
 * member's or an element's starting there, innermost first; its target
 * into *named (as declared) and *target (real).  false: no pointer
 * starts there.
 */
static bool pointer_at(Dwarf_Die *type, int64_t at, Dwarf_Die *named,
		       Dwarf_Die *target)
{
	Dwarf_Die cur = *type, child, mt;
	int64_t moff;
	uint64_t bits;

	for (int depth = 0; depth < MAX_DEPTH && at >= 0; depth++) {
		const int tag = dwarf_tag(&cur);

		if (tag == DW_TAG_pointer_type && at == 0)
			return type_of(&cur, named) && real_type(named, target);
		if (tag == DW_TAG_array_type) {
			uint64_t index;

			if (!array_elem(&cur, &at, &index))
				return false;
			continue;
		}
		if (!member_at(&cur, at, &child, &mt, &moff, &bits))
			return false;
		at -= moff;
		cur = mt;
	}
	return false;
}

/* acc's offset in a pointer's target: with elem, an element's. */
static int64_t deref_off(const struct pda_dt_access *acc, Dwarf_Die *target)
{
	const uint64_t size = type_size(target);
	int64_t off = acc->disp;

	if (acc->elem && size) {
		off %= (int64_t)size;
		if (off < 0)
			off += (int64_t)size;
	}
	return off;
}

/*
 * The pointers acc->path loads, from *target (real; *named as declared)
 * on: each the pointer at its offset in the previous one's target, its
 * target the next (perf's type state: a register loaded from a member
 * of a typed pointer's target holds the member's type).  false, *why
 * set: no pointer at one of them.
 */
static bool follow_path(const struct pda_dt_access *acc, Dwarf_Die *named,
			Dwarf_Die *target, enum pda_dt_why *why)
{
	for (unsigned k = 0; k < acc->nr_path && k < PDA_DT_MAX_PATH; k++) {
		const uint64_t size = type_size(target);
		int64_t at = acc->path[k];

		if ((acc->path_elems >> k & 1) && size) {
			at %= (int64_t)size;
			if (at < 0)
				at += (int64_t)size;
		}
		if (!pointer_at(target, at, named, target)) {
			*why = PDA_DT_NO_POINTER;
			return false;
		}
	}
	return true;
}

/* The access at acc's disp in the target of the pointer loaded first
 * (*named as declared, *target real), through acc->path. */
static int deref_found(struct pda_session *s, struct pda_elf *e,
		       Dwarf_Die *var, const struct pda_dt_access *acc,
		       Dwarf_Die *named, Dwarf_Die *target,
		       struct pda_dt_type *out, enum pda_dt_why *why)
{
	if (!follow_path(acc, named, target, why))
		return 0;
	return found(s, e, var, named, target, deref_off(acc, target), out,
		     why);
}

/* Whether type (real) holds an address: a pointer, or a C++ reference
 * (perf 7.2 takes only pointers, and leaves accesses through references
 * (unknown): `this` is a pointer, `Account &a` is not). */
static bool is_address(Dwarf_Die *type)
{
	const int tag = dwarf_tag(type);

	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type;
}

/* Whether the location ops is DW_OP_bregN off; DW_OP_stack_value: the
 * variable's value is register N plus off (a pointer to a container
 * computed from a pointer to its member: container_of). */
static int breg_value(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	return nops == 2 && ops[1].atom == DW_OP_stack_value
		       ? op_breg(&ops[0], off)
		       : -1;
}

/*
 * The access at off in the target of var's address type: found (1), or,
 * off outside the target, *why says so and 0 (not it: another variable
 * in the register may fit, as perf's match_var_offset() goes on).
 */
static int in_target(struct pda_session *s, struct pda_elf *e, Dwarf_Die *var,
		     Dwarf_Die *type, const struct pda_dt_access *acc,
		     int64_t off, struct pda_dt_type *out, enum pda_dt_why *why)
{
	Dwarf_Die tnamed, target;
	int rc;

	if (!is_address(type) || !type_of(type, &tnamed) ||
	    !real_type(&tnamed, &target)) {
		*why = PDA_DT_NO_POINTER;
		return 0;
	}
	/* a call's result, then pointers loaded through it */
	if (acc->nr_path && !follow_path(acc, &tnamed, &target, why))
		return 0;
	if (acc->elem && type_size(&target)) {
		off %= (int64_t)type_size(&target);
		if (off < 0)
			off += (int64_t)type_size(&target);
	}
	if (off < 0 || (uint64_t)off >= type_size(&target)) {
		*why = PDA_DT_BAD_OFFSET;
		return 0;
	}
	rc = found(s, e, var, &tnamed, &target, off, out, why);
	return rc < 0 ? rc : 1;
}

/*
 * Whether var (a variable or parameter) at pc is what acc addresses:
 * 1 found (*out, *why), 0 not it, <0 error.  fb_reg/fb_off: the
 * function's frame base at pc (fb_reg -1: unknown).
 */
static int match_var(struct pda_session *s, struct pda_elf *e, Dwarf_Die *var,
		     const struct pda_dt_access *acc, int fb_reg,
		     int64_t fb_off, struct pda_dt_type *out,
		     enum pda_dt_why *why)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die named, type, tnamed, target;
	int64_t off = 0, at;
	int reg, rc;

	if (!dwarf_attr_integrate(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, acc->pc, &ops, &nops, 1) != 1 ||
	    !nops || !type_of(var, &named) || !real_type(&named, &type))
		return 0;
	if (acc->deref && op_reg(&ops[0]) == acc->reg) {
		/* a pointer member loaded through the variable, a pointer:
		 * p->next->val */
		if (!is_address(&type) ||
		    !type_of(&type, &tnamed) || !real_type(&tnamed, &target) ||
		    !pointer_at(&target, acc->slot, &tnamed, &target)) {
			*why = PDA_DT_NO_POINTER;
			return 0;
		}
		rc = deref_found(s, e, var, acc, &tnamed, &target, out, why);
		return rc < 0 ? rc : 1;
	}
	if (op_reg(&ops[0]) == acc->reg)
		/* the register holds the variable: a pointer to the type */
		return in_target(s, e, var, &type, acc, acc->disp, out, why);
	if (!acc->deref && breg_value(ops, nops, &off) == acc->reg)
		/* the variable is the register plus off: the access is at
		 * disp - off in its target */
		return in_target(s, e, var, &type, acc, acc->disp - off, out,
				 why);
	if (nops != 1)
		return 0;
	/* the variable is in memory: at a register, or the frame base */
	reg = op_breg(&ops[0], &off);
	if (reg < 0 && ops[0].atom == DW_OP_fbreg && fb_reg >= 0) {
		reg = fb_reg;
		off = fb_off + (int64_t)ops[0].number;
	}
	if (reg < 0 || reg != acc->reg)
		return 0;
	at = (acc->deref ? acc->slot : acc->disp) - off;
	if (at < 0 || (uint64_t)at >= type_size(&type))
		return 0;
	if (acc->deref) {
		/* loaded from the variable: a pointer there, and the
		 * access in its target */
		if (!pointer_at(&type, at, &tnamed, &target)) {
			*why = PDA_DT_NO_POINTER;
			return 0;
		}
		rc = deref_found(s, e, var, acc, &tnamed, &target, out, why);
		return rc < 0 ? rc : 1;
	}
	rc = found(s, e, var, &named, &type, at, out, why);
	return rc < 0 ? rc : 1;
}

/* ---- globals -------------------------------------------------------- */

static int add_gvar(struct pda_session *s, struct pda_dwtype *t,
		    Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die type;
	uint64_t size;

	if (!dwarf_attr_integrate(die, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_addr || !type_of(die, &type) ||
	    !real_type(&type, &type) || !(size = type_size(&type)))
		return 0;
	if (t->nr_vars >= MAX_GVARS)
		return 0;
	if (t->nr_vars == t->alloc_vars) {
		size_t want = t->alloc_vars ? t->alloc_vars * 2 : 64;
		struct gvar *v = pda_realloc(s, t->vars, want * sizeof(*v));

		if (!v)
			return PD_ERR_NOMEM;
		t->vars = v;
		t->alloc_vars = want;
	}
	t->vars[t->nr_vars].addr = ops[0].number;
	t->vars[t->nr_vars].size = size;
	t->vars[t->nr_vars].die = *die;
	t->nr_vars++;
	return 0;
}

/* Every variable with a fixed address under die: file-scope ones and
 * the statics of functions and blocks. */
static int walk_gvars(struct pda_session *s, struct pda_dwtype *t,
		      Dwarf_Die *die, int depth)
{
	Dwarf_Die child;
	int err;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_variable:
			err = add_gvar(s, t, &child);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_inlined_subroutine:
			err = walk_gvars(s, t, &child, depth + 1);
			break;
		default:
			err = 0;
		}
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int cmp_gvar(const void *a, const void *b)
{
	const struct gvar *va = a, *vb = b;

	if (va->addr != vb->addr)
		return va->addr < vb->addr ? -1 : 1;
	/* of variables at one address the larger holds the others */
	return va->size > vb->size ? -1 : va->size < vb->size;
}

static int build_gvars(struct pda_session *s, struct pda_elf *e,
		       struct pda_dwtype *t)
{
	Dwarf *dw = pda_dwarf_handle(s, e);
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cudie;
	int err;

	t->vars_built = true;
	if (!dw)
		return 0;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cudie)) {
			err = walk_gvars(s, t, &cudie, 0);
			if (err)
				return err;
		}
		off = next;
	}
	if (t->nr_vars > 1)
		qsort(t->vars, t->nr_vars, sizeof(*t->vars), cmp_gvar);
	return 0;
}

/* The access at off in the global var; with acc->deref, the pointer
 * loaded from there, the access at acc->disp in its target. */
static int in_global(struct pda_session *s, struct pda_elf *e, Dwarf_Die *var,
		     int64_t off, const struct pda_dt_access *acc,
		     struct pda_dt_type *out, enum pda_dt_why *why)
{
	Dwarf_Die named, type;

	if (!type_of(var, &named) || !real_type(&named, &type))
		return 0;
	if (acc->deref) {
		/* a pointer loaded from the global */
		if (!pointer_at(&type, off, &named, &type)) {
			*why = PDA_DT_NO_POINTER;
			return 0;
		}
		return deref_found(s, e, var, acc, &named, &type, out, why);
	}
	return found(s, e, var, &named, &type, off, out, why);
}

/* The global at addr; with acc->deref, the pointer loaded from there,
 * the access at acc->disp in its target. */
static int global_at(struct pda_session *s, struct pda_elf *e, uint64_t addr,
		     const struct pda_dt_access *acc, struct pda_dt_type *out,
		     enum pda_dt_why *why)
{
	struct pda_dwtype *t = state(s, e);
	size_t lo = 0, hi;
	int err;

	if (!t)
		return PD_ERR_NOMEM;
	if (!t->vars_built && (err = build_gvars(s, e, t)) < 0) {
		t->vars_built = false;
		return err;
	}
	hi = t->nr_vars;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->vars[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*why = PDA_DT_NO_GLOBAL;
	/* the last variable starting at or before addr, or one holding it */
	for (size_t n = 0; lo-- && n < 16; n++) {
		struct gvar *v = &t->vars[lo];

		if (addr - v->addr >= v->size)
			continue;
		err = in_global(s, e, &v->die, (int64_t)(addr - v->addr), acc,
				out, why);
		out->global = *why == PDA_DT_FOUND && !acc->deref;
		out->gaddr = out->global ? v->addr : 0;
		return err;
	}
	return 0;
}

/* The variable named acc->gname (another binary's: its declaration in
 * cudie, pc's unit, says its type), the access at acc->addr in it. */
static int global_named(struct pda_session *s, struct pda_elf *e,
			Dwarf_Die *cudie, const struct pda_dt_access *acc,
			struct pda_dt_type *out, enum pda_dt_why *why)
{
	Dwarf_Die child;
	const char *name;

	*why = PDA_DT_NO_GLOBAL;
	if (dwarf_child(cudie, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_variable &&
		    (name = dwarf_diename(&child)) &&
		    !strcmp(name, acc->gname)) {
			const int err = in_global(s, e, &child,
						  (int64_t)acc->addr, acc, out,
						  why);

			/* its address is the other binary's: none here */
			out->global = *why == PDA_DT_FOUND && !acc->deref;
			return err;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* ---- the lookup ----------------------------------------------------- */

/* The access at acc->disp in the target of the pointer the function at
 * acc->callee returns, its subprogram's DW_AT_type (through a
 * declaration or an abstract origin), as perf types the return register
 * after a call. */
static int returned(struct pda_session *s, struct pda_elf *e,
		    const struct pda_dt_access *acc, struct pda_dt_type *out,
		    enum pda_dt_why *why)
{
	Dwarf_Die cudie, *scopes = NULL, named, type;
	int nscopes, rc;

	rc = pda_dwarf_unit(s, e, acc->callee, &cudie);
	if (rc <= 0)
		return rc;
	*why = PDA_DT_NO_VAR;
	nscopes = dwarf_getscopes(&cudie, acc->callee, &scopes);
	rc = 0;
	for (int i = 0; i < nscopes; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (!type_of(&scopes[i], &named) || !real_type(&named, &type))
			*why = PDA_DT_NO_POINTER; /* void, or no type */
		else
			rc = in_target(s, e, &scopes[i], &type, acc, acc->disp,
				       out, why);
		break;
	}
	free(scopes);
	return rc < 0 ? rc : 0;
}

int pda_elf_data_type(struct pda_session *s, struct pda_elf *e,
		      const struct pda_dt_access *acc, struct pda_dt_type *out,
		      enum pda_dt_why *why)
{
	Dwarf_Die cudie, *scopes = NULL;
	int nscopes, fb_reg = -1, rc = 0;
	int64_t fb_off = 0;

	memset(out, 0, sizeof(*out));
	*why = PDA_DT_NO_DWARF;
	rc = pda_dwarf_unit(s, e, acc->pc, &cudie);
	if (rc <= 0)
		return rc;
	if (acc->callee)
		return returned(s, e, acc, out, why);
	if (acc->reg < 0 && acc->gname)
		return global_named(s, e, &cudie, acc, out, why);
	if (acc->reg < 0)
		return global_at(s, e, acc->addr, acc, out, why);
	*why = PDA_DT_NO_VAR;
	rc = 0;
	nscopes = dwarf_getscopes(&cudie, acc->pc, &scopes);
	if (nscopes <= 0)
		return 0;
	/* the out-of-line function's frame base */
	for (int i = 0; i < nscopes; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			fb_reg = frame_base(s, e, &scopes[i], acc->pc, &fb_off);
			break;
		}
	/* innermost scope first, as perf's die_find_variable_by_reg() */
	for (int i = 0; i < nscopes && !rc; i++) {
		Dwarf_Die child;

		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			const int tag = dwarf_tag(&child);

			if (tag != DW_TAG_variable &&
			    tag != DW_TAG_formal_parameter)
				continue;
			rc = match_var(s, e, &child, acc, fb_reg, fb_off, out, why);
		} while (!rc && dwarf_siblingof(&child, &child) == 0);
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return rc < 0 ? rc : 0;
}

/* ---- layouts ------------------------------------------------------- */

#define MAX_LAYOUT ((size_t)1 << 16)

struct layout {
	struct pda_session *s;
	struct pda_dt_member *rows;
	size_t nr, alloc;
};

/* A row for type (its name as a member's type: a typedef by its name,
 * perf's die_get_typename()) named name at off, then its members, if a
 * struct or union, perf's __add_member_cb(). */
static int add_row(struct layout *l, Dwarf_Die *type, const char *name,
		   int64_t off, unsigned depth, uint64_t bits)
{
	char tname[NAME_MAX_LEN], bname[NAME_MAX_LEN];
	Dwarf_Die real, child;
	struct pda_dt_member *r;
	size_t at;
	int tag, rc;

	if (depth > MAX_DEPTH)
		return 0;
	if (PDC_GROW(pda_session_alloc(l->s), l->rows, l->alloc, l->nr + 1,
		     MAX_LAYOUT) < 0)
		return PD_ERR_NOMEM;
	type_name(type, tname, sizeof(tname), 0);
	at = l->nr++;
	r = &l->rows[at];
	r->offset = off;
	r->depth = depth;
	/* a bit-field as perf 7.2 shows it: "name:bits", its bytes */
	if (bits && name) {
		snprintf(bname, sizeof(bname), "%s:%" PRIu64, name, bits);
		name = bname;
	}
	r->type = pda_intern(l->s, tname, strlen(tname));
	r->name = name ? pda_intern(l->s, name, strlen(name)) : NULL;
	if (!r->type || (name && !r->name))
		return PD_ERR_NOMEM;
	r->size = real_type(type, &real) ? type_size(&real) : 0;
	if (bits)
		r->size = 0;
	tag = r->size ? dwarf_tag(&real) : DW_TAG_base_type;
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	     tag == DW_TAG_class_type) &&
	    dwarf_child(&real, &child) == 0) {
		do {
			Dwarf_Die mt;
			int64_t moff = member_offset(&child);
			uint64_t mbits, msize = 0;

			if (dwarf_tag(&child) != DW_TAG_member ||
			    !type_of(&child, &mt))
				continue;
			mbits = bit_field(&child, &moff, &msize);
			rc = add_row(l, &mt, dwarf_diename(&child), off + moff,
				     depth + 1, mbits);
			if (rc)
				return rc;
			if (mbits)
				l->rows[l->nr - 1].size = msize;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	l->rows[at].end = l->nr;
	return 0;
}

int pda_elf_type_layout(struct pda_session *s, struct pda_elf *e, uint64_t die,
			struct pda_dt_member **out, size_t *nr)
{
	Dwarf *dw = pda_dwarf_handle(s, e);
	struct layout l = {.s = s};
	Dwarf_Die type;
	int rc;

	*out = NULL;
	*nr = 0;
	if (!dw || !die || !dwarf_offdie(dw, die, &type))
		return PD_ERR_NOTFOUND;
	rc = add_row(&l, &type, NULL, 0, 0, 0);
	if (rc) {
		pda_free(s, l.rows);
		return rc;
	}
	*out = l.rows;
	*nr = l.nr;
	return 0;
}
