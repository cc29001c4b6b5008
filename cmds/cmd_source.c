/*
 * cmd_source.c - where the commands that print source text read it
 * (annotate, script -F srccode): --source-dir, --prefix-map,
 * --host-sources and --no-host-sources, and the note on what they kept
 * from being read (analyze/annotate/pda_annotate_src.c has the rules).
 */
#include "pdtool.h"
#include "pda_annotate.h"

#include <string.h>

static void add(const struct pd_ctx *ctx, const char **v, size_t *nr,
		const char *opt, const char *arg)
{
	if (*nr == CMD_SOURCE_MAX)
		usage_error(ctx, "more than %d %s options", CMD_SOURCE_MAX, opt);
	v[(*nr)++] = arg;
}

bool cmd_source_opt(const struct pd_ctx *ctx, struct cmd_srcopts *o, int c,
		    const char *arg)
{
	switch (c) {
	case CMD_OPT_SOURCE_DIR:
		add(ctx, o->dirs, &o->nr_dirs, "--source-dir", arg);
		return true;
	case CMD_OPT_PREFIX_MAP:
		if (!strchr(arg, '=') || arg[0] == '=')
			usage_error(ctx, "--prefix-map '%s': expected OLD=NEW",
				    arg);
		add(ctx, o->maps, &o->nr_maps, "--prefix-map", arg);
		return true;
	case CMD_OPT_HOST_SOURCES:
		o->host = 1;
		return true;
	case CMD_OPT_NO_HOST_SOURCES:
		o->host = -1;
		return true;
	default:
		return false;
	}
}

void cmd_source_annot_opts(const struct cmd_srcopts *o,
			   struct pda_annot_opts *ao)
{
	ao->prefix_maps = o->maps;
	ao->nr_prefix_maps = o->nr_maps;
	ao->source_dirs = o->dirs;
	ao->nr_source_dirs = o->nr_dirs;
	ao->host_sources = o->host > 0	 ? PDA_HOST_SRC_ALWAYS
			   : o->host < 0 ? PDA_HOST_SRC_NEVER
					 : PDA_HOST_SRC_AUTO;
}

void cmd_source_withheld(const struct pd_ctx *ctx, const struct cmd_srcopts *o,
			 const struct cmd_symopts *sym, size_t nr)
{
	const char *why;

	if (!nr)
		return;
	if (o->host < 0)
		why = "--no-host-sources was given";
	else if (sym->symfs)
		why = "they are outside --symfs";
	else
		why = "the capture is not from this host";
	fprintf(stderr,
		"pdtool %s: %zu source file%s not read at the path%s the "
		"binaries name: %s; --host-sources reads them on this host, "
		"--source-dir DIR or --prefix-map OLD=NEW elsewhere\n",
		ctx->cmd, nr, nr == 1 ? "" : "s", nr == 1 ? "" : "s", why);
}
