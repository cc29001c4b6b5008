/*
 * pd_env.h - part of pd.h (included at its end): the decoded feature
 * sections.
 */
#ifndef PD_ENV_H
#define PD_ENV_H

struct pd_env {
	const char *hostname;
};

#endif
