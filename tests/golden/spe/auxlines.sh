#!/bin/sh
# auxlines.sh - the Arm SPE lines of `perf report -D` (or `pdtool dump
# --aux`) on stdin: the AUXTRACE_INFO metadata and, per AUXTRACE record,
# its size line and a line per packet.  Everything else (raw event bytes,
# other records, both tools' own record lines) is dropped.
grep -E '^\. \.\.\. ARM SPE data|^\.  [0-9a-f]{8}:|^  PMU Type|^  (Header|PMU type v2|CPU number)|^    (Magic|CPU #|Num of params|MIDR|PMU Type|Min Interval|Event Filter) '
