/* pd_env.c - decoding the feature sections into struct pd_env. */
#include "pd_int.h"

void pd_file_env_invalidate(struct pd_file *f)
{
	f->env_stale = true;
}

void pd_env_free(struct pd_file *f, struct pd_env *env)
{
	pd_free(&f->mem, env);
}

const struct pd_env *pd_file_env(const struct pd_file *f)
{
	return f->env;
}
