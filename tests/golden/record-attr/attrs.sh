#!/bin/sh
# attrs.sh - the perf_event_attr blocks of a `record -vv` log on stdin
# (perf's or pdtool's), up to the first ring buffer mapped.
awk '/^mmap size/ { exit }
/^perf_event_attr:/ { on = 1 }
on { print }
/^-----/ { on = 0 }'
