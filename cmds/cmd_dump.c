/* cmd_dump.c - `pdtool dump` (being written). */
#include "pdtool.h"

const char cmd_dump_usage[] = "pdtool dump FILE";
const char cmd_dump_summary[] = "(being written)";
const char cmd_dump_options[] = "";

int cmd_dump(int argc, char **argv, struct pd_ctx *ctx)
{
	(void)argc;
	(void)argv;
	return error(ctx, "not written yet");
}
