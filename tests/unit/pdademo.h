/*
 * pdademo.h - the fixture of the suites that map testdata/bin/demo into
 * synthetic captures (check_dso.c, check_diagnose.c): a temporary
 * directory, also the build-id cache OPTS gives the session, and demo's
 * ELF facts (pdatest.h's pt_demo).  Included once by each such suite,
 * after pdatest.h: it defines the suite's setup() and teardown().
 */
#ifndef PDADEMO_H
#define PDADEMO_H

#include "pdatest.h"

#include <stdlib.h>

#define U PD_MISC_USER
#define K PD_MISC_KERNEL
#define PROT_RX 5u
#define PROT_RWX 7u
#define MAP_PRIVATE_ 2u
#define PMAX ET_PATH_MAX

static char *tmp;
static struct pt_demo dm;
#define demo dm.path
#define elf dm.elf

static void setup(void)
{
	tmp = et_tmpdir();
	pt_demo_load(&dm);
}

static void teardown(void)
{
	et_rmtree(tmp);
	free(tmp);
}

#define OPTS(name, ...)                                                        \
	PDA_OPTS(name, .buildid_dir = tmp, .no_debuginfod = true,              \
		 .no_inline = true, __VA_ARGS__)

#define demo_ip(start) pt_demo_ip(&dm, start)
#define map_demo(t, pid, start, name, id)                                      \
	pt_map_demo(t, &dm, pid, start, name, id)

#endif /* PDADEMO_H */
