/* cmd_info.c - `pdtool info` (being written). */
#include "pdtool.h"

const char cmd_info_usage[] = "pdtool info FILE";
const char cmd_info_summary[] = "(being written)";
const char cmd_info_options[] = "";

int cmd_info(int argc, char **argv, struct pd_ctx *ctx)
{
	(void)argc;
	(void)argv;
	return error(ctx, "not written yet");
}
