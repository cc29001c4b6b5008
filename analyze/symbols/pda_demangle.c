/*
 * pda_demangle.c - symbol names as perf 6.1 prints them.
 *
 * perf 6.1 (util/symbol-elf.c demangle_sym, built against libiberty as
 * Debian builds it) demangles an ELF symbol with cplus_demangle(name,
 * DMGL_NO_OPTS), or DMGL_PARAMS | DMGL_ANSI with -v (pda_opts
 * demangle_params): libiberty's automatic style tries
 * Rust (legacy "_ZN...17h<hash>E", printed without the hash, and v0
 * "_R...") and then the C++ ABI, and without DMGL_PARAMS a C++ function
 * comes out without its parameter list ("ns::f", not "ns::f(int)").
 * When that fails it tries OCaml ("camlModule__name_12" as
 * "Module.name_12": "__" becomes "." and "$xx" a hex-coded byte) and
 * Java signatures, which need a ')' no ELF name carries.  PLT entries are
 * demangled before "@plt" is appended.
 *
 * Beyond perf: D names ("_D3foo3barFiZv"), which libiberty demangles only
 * when asked for D, and which perf leaves mangled.
 */
#include "pda_symbols_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* perf's ocaml_demangle_sym, into out (at least strlen(name) + 1). */
static bool ocaml_demangle(const char *name, size_t len, char *out)
{
	size_t i = 4, j = 0;
	int hi, lo;

	if (len < 5 || strncmp(name, "caml", 4) ||
	    !isupper((unsigned char)name[4]))
		return false;
	while (i < len) {
		if (name[i] == '_' && i + 1 < len && name[i + 1] == '_') {
			out[j++] = '.';
			i += 2;
		} else if (name[i] == '$' && i + 2 < len &&
			   (hi = pda_hex_digit((unsigned char)name[i + 1])) >=
				   0 &&
			   (lo = pda_hex_digit((unsigned char)name[i + 2])) >=
				   0) {
			out[j++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			out[j++] = name[i++];
		}
	}
	out[j] = '\0';
	return true;
}

/*
 * name (len bytes, NUL-terminated there) demangled into a malloc'd
 * string, or NULL when it is not a mangled name (or memory ran out).
 */
static char *demangle_base(const char *name, size_t len, bool params)
{
	char *dem = cplus_demangle(name, params ? DMGL_PARAMS | DMGL_ANSI
						: DMGL_NO_OPTS);

	if (dem)
		return dem;
	dem = malloc(len + 1);
	if (!dem)
		return NULL;
	if (ocaml_demangle(name, len, dem))
		return dem;
	free(dem);
	if (len > 2 && name[0] == '_' && name[1] == 'D')
		return cplus_demangle(name, DMGL_DLANG);
	return NULL;
}

const char *pda_demangle(struct pda_session *s, const char *name)
{
	static const char plt[] = "@plt";
	size_t len = strlen(name), base_len = len;
	const char *in = name;
	char *copy = NULL, *dem, *joined;
	const char *ret;

	if (len > sizeof(plt) - 1 &&
	    !strcmp(name + len - (sizeof(plt) - 1), plt)) {
		base_len = len - (sizeof(plt) - 1);
		copy = pda_malloc(s, base_len + 1);
		if (!copy)
			return NULL;
		memcpy(copy, name, base_len);
		copy[base_len] = '\0';
		in = copy;
	}
	dem = demangle_base(in, base_len,
			    pda_session_opts(s)->demangle_params);
	pda_free(s, copy);
	if (!dem)
		return pda_intern(s, name, len);
	if (base_len == len) {
		ret = pda_intern(s, dem, strlen(dem));
		free(dem);
		return ret;
	}
	joined = pda_malloc(s, strlen(dem) + sizeof(plt));
	if (!joined) {
		free(dem);
		return NULL;
	}
	memcpy(joined, dem, strlen(dem));
	memcpy(joined + strlen(dem), plt, sizeof(plt));
	free(dem);
	ret = pda_intern(s, joined, strlen(joined));
	pda_free(s, joined);
	return ret;
}
