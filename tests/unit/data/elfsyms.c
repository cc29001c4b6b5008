/*
 * elfsyms.c - a program whose symbols have the shapes check_elf.c tests,
 * built into several binaries by build.sh (PIE, non-PIE, IBT PLT, BIND_NOW,
 * stripped, with MiniDebugInfo, with a separate debug file, as a
 * relocatable object).  Built with -fno-toplevel-reorder, so the functions
 * sit in .text in this order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int elfsyms_sink;

/* A sized global function. */
__attribute__((noinline)) int sized_leaf(int x)
{
	return x * 3 + elfsyms_sink;
}

/* A local function: in .symtab only, so in MiniDebugInfo when stripped. */
static __attribute__((noinline)) int local_helper(int x)
{
	elfsyms_sink += x;
	return sized_leaf(x) ^ elfsyms_sink;
}

/* Aligned, so the alignment padding before it belongs to no symbol. */
__attribute__((noinline, aligned(256))) int after_gap(int x)
{
	return local_helper(x) + 1;
}

/*
 * A function without .size, as hand-written assembly often is: perf
 * gives it everything up to the next symbol.
 */
asm(".text\n"
	".p2align 4\n"
	".globl bare_asm\n"
	".type bare_asm, %function\n"
	"bare_asm:\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tret\n");

/* Two names for one function, a global and a weak one. */
__attribute__((noinline)) int alias_target(int x)
{
	return x + 7;
}
int alias_weak(int x) __attribute__((weak, alias("alias_target")));

int main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : "x";

	printf("%d\n", after_gap((int)strlen(arg)) + alias_weak(argc));
	puts(getenv("ELFSYMS") ? "set" : "unset");
	return 0;
}
