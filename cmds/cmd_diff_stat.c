/*
 * cmd_diff_stat.c - `pdtool diff A.stat B.stat` (several a side as
 * A1 A2 -- B1 B2): perf stat record captures compared at the counter
 * level: each side's runs read as `pdtool stat FILE...` reads them,
 * then analyze/counters' pda_statdiff and emit's pde_statdiff_text() or
 * pde_statdiff_json().
 */
#include "pdtool.h"
#include "pda_stat.h"
#include "pda_statdiff.h"

#include <stdlib.h>
#include <string.h>

bool cmd_is_stat_capture(struct pd_ctx *ctx, const char *path)
{
	struct pd_file *f = ctx_open(ctx, path);
	const struct pd_env *env = NULL;
	bool stat;

	stat = pd_file_env(f, &env) == 0 && env &&
	       env->status[PD_FEAT_STAT] == PD_ENV_OK;
	pd_file_close(f);
	return stat;
}

/* "a, b, c" of the side's paths. */
static char *label(struct pd_ctx *ctx, const char *const *paths, unsigned nr)
{
	size_t n = 1, at = 0;
	char *s;

	for (unsigned i = 0; i < nr; i++)
		n += strlen(paths[i]) + 2;
	s = malloc(n);
	if (!s)
		die(ctx, "out of memory");
	for (unsigned i = 0; i < nr; i++) {
		const size_t len = strlen(paths[i]);

		if (i) {
			memcpy(s + at, ", ", 2);
			at += 2;
		}
		memcpy(s + at, paths[i], len);
		at += len;
		s[at] = '\0';
	}
	if (!nr)
		s[0] = '\0';
	return s;
}

int cmd_diff_stat(struct pd_ctx *ctx, const char *const *const paths[2],
		  const unsigned nr[2], const char *output, bool json)
{
	struct pda_stat *st[2];
	struct pd_file *first[2] = {NULL, NULL};
	const struct pd_env *env[2] = {NULL, NULL};
	struct pda_statdiff sd;
	char *lab[2];
	FILE *out;

	for (int side = 0; side < 2; side++) {
		st[side] = cmd_stat_read_runs(ctx, paths[side], nr[side],
					      &first[side]);
		if (pd_file_env(first[side], &env[side]) < 0)
			env[side] = NULL;
		lab[side] = label(ctx, paths[side], nr[side]);
	}
	if (pda_statdiff_compute(pda_stat_report(st[0]), env[0],
				 pda_stat_report(st[1]), env[1], NULL, &sd) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	out = ctx_open_output(ctx, output);
	ctx_check_write(ctx,
			json ? pde_statdiff_json(out, &sd, lab[0], lab[1])
			     : pde_statdiff_text(out, &sd, lab[0], lab[1]),
			output);
	ctx_close_output(ctx, out, output);
	pda_statdiff_release(&sd, NULL);
	for (int side = 0; side < 2; side++) {
		pda_stat_free(st[side]);
		pd_file_close(first[side]);
		free(lab[side]);
	}
	return ctx->strict && ctx->nr_warnings ? EXIT_UNRESOLVED : 0;
}
