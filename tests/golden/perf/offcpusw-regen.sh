#!/bin/sh
# offcpusw-regen.sh - perf 6.1's own decoding of the sched:sched_switch
# samples of testdata/sched/offcpusw.perf.data (the fields from the
# capture's HEADER_TRACING_DATA, by libtraceevent): offcpusw.trace, which
# tests/cli/fold/offcpu-sched.test pairs into waits independently of
# pdtool's decoding.  Run from the top of the tree; needs perf (make check
# does not).
set -eu
perf script -i testdata/sched/offcpusw.perf.data --ns -F tid,time,trace \
	>tests/golden/perf/testdata/offcpusw.trace
# the same from the pipe-mode capture (tests/cli/fold/offcpu-pipe.test):
# perf reads the stream's tracing data record as the file's section (in
# pipe mode it prints callchains unless -G, and the cpu-clock samples too)
perf script -i testdata/sched/offcpupipe.perf.data --ns -G \
	-F tid,time,trace 2>/dev/null | grep 'prev_comm=' \
	>tests/golden/perf/testdata/offcpupipe.trace
