/*
 * pda_diff_names.c - frame names without the suffixes that compilers add
 * to one function's name, so that two builds of a program line up in
 * `pdtool diff`.
 *
 * GCC names the parts and clones of a function f as f.cold (the cold
 * part it splits off; f.cold.N in older releases), f.part.N (partial
 * inlining), f.isra.N (scalar replacement of arguments), f.constprop.N
 * (constant propagation) and f.lto_priv.N (a static function made
 * global by LTO), in chains like f.constprop.0.isra.0; demangled C++
 * names carry them as "f() [clone .isra.0]".  Which of them a build has
 * depends on the compiler, its flags and the code around f, so they are
 * noise to a diff.  Rust's legacy mangling ends a demangled name in
 * "::h" and a 16-digit hash of the crate's build.  Suffixes are stripped
 * from the end, one at a time, until none is left.
 */
#include "pd_config.h"
#include "pda_diff.h"

#include <string.h>

static const char *const gcc_kinds[] = {
	"cold", "isra", "constprop", "part", "lto_priv",
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

/*
 * The length of the GCC suffix that ends s[0..end): ".KIND.N" (N one or
 * more digits) or ".cold"; 0 when there is none.
 */
static size_t gcc_suffix(const char *s, size_t end)
{
	size_t i = end, digits;

	while (i > 0 && is_digit(s[i - 1]))
		i--;
	digits = end - i;
	if (digits) {
		if (i == 0 || s[i - 1] != '.')
			return 0;
		i--;
	}
	for (size_t k = 0; k < sizeof(gcc_kinds) / sizeof(gcc_kinds[0]);
	     k++) {
		const size_t n = strlen(gcc_kinds[k]);

		/* only .cold goes without a number */
		if (!digits && strcmp(gcc_kinds[k], "cold") != 0)
			continue;
		if (i >= n + 1 && s[i - n - 1] == '.' &&
		    memcmp(s + i - n, gcc_kinds[k], n) == 0)
			return end - (i - n - 1);
	}
	return 0;
}

/* Where s[0..end) is without its last suffix; end when it has none. */
static size_t strip_one(const char *s, size_t end)
{
	static const char clone[] = " [clone ";
	const size_t clone_len = sizeof(clone) - 1;
	size_t n;

	/* Rust: "::h" and 16 lowercase hex digits */
	if (end >= 19 && memcmp(s + end - 19, "::h", 3) == 0) {
		size_t i = end - 16;

		while (i < end && is_hex(s[i]))
			i++;
		if (i == end)
			return end - 19;
	}
	/* C++, demangled: " [clone .isra.0]" */
	if (end > 0 && s[end - 1] == ']') {
		n = gcc_suffix(s, end - 1);
		if (n && end - 1 - n >= clone_len &&
		    memcmp(s + end - 1 - n - clone_len, clone, clone_len) == 0)
			return end - 1 - n - clone_len;
	}
	n = gcc_suffix(s, end);
	return end - n;
}

size_t pda_diff_normalize_name(const char *name, size_t len, char *out)
{
	size_t end = len, tail = len, prev;

	/* the annotations of pdtool fold --kernel and stackcollapse-perf.pl:
	 * kernel, JIT, inlined */
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' &&
	    (name[len - 2] == 'k' || name[len - 2] == 'j' ||
	     name[len - 2] == 'i') &&
	    name[len - 1] == ']')
		end = tail = len - 4;
	do {
		prev = end;
		end = strip_one(name, end);
	} while (end != prev && end > 0);
	if (end == 0) {
		/* nothing but suffixes: no function name to keep */
		memcpy(out, name, len);
		return len;
	}
	memmove(out, name, end);
	memmove(out + end, name + tail, len - tail);
	return end + (len - tail);
}
