/*
 * cmd_pager.c - long text on a terminal goes through a pager, as git
 * does it: $PAGER (less when unset, with LESS=FRX when LESS is unset, so
 * a short text is printed and colours pass), none when standard output
 * is not a terminal or PAGER is empty or "cat"; and colour only where
 * standard output is a terminal and NO_COLOR is unset or empty
 * (https://no-color.org).
 */
#include "pdtool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool ctx_use_color(void)
{
	const char *no_color = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
}

void ctx_start_pager(struct pd_ctx *ctx)
{
	const char *pager = getenv("PAGER");
	int fds[2];
	pid_t pid;

	if (!isatty(STDOUT_FILENO) || ctx->pager_pid > 0)
		return;
	if (!pager)
		pager = "less";
	if (!pager[0] || !strcmp(pager, "cat"))
		return;
	fflush(stdout);
	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", "FRX", 0);
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		fprintf(stderr, "pdtool %s: cannot run pager '%s': %s\n",
			ctx->cmd, pager, strerror(errno));
		_exit(127);
	}
	/* stderr goes to the pager too when it is the same terminal, so
	 * the pager's screen is not written over */
	ctx->pager_stderr = -1;
	if (isatty(STDERR_FILENO)) {
		fflush(stderr);
		ctx->pager_stderr = dup(STDERR_FILENO);
		if (ctx->pager_stderr >= 0)
			dup2(fds[1], STDERR_FILENO);
	}
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	ctx->pager_pid = pid;
}

void ctx_end_pager(const struct pd_ctx *ctx)
{
	if (ctx->pager_pid <= 0)
		return;
	fflush(stdout);
	fflush(stderr);
	/* the pager ends at end of input: every write end must close */
	close(STDOUT_FILENO);
	if (ctx->pager_stderr >= 0)
		dup2(ctx->pager_stderr, STDERR_FILENO);
	while (waitpid(ctx->pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
}
