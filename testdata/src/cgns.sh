#!/bin/sh
# cgns.sh - the workload of testdata/cgns (the cgroup_id key): dash
# spinning in the host's cgroup namespace, a forked subshell in it, then
# the same thread going on (exec) in a cgroup namespace of its own, with
# a forked subshell there too.
spin()
{
	i=0
	while [ "$i" -lt "$1" ]; do i=$((i + 1)); done
}

if [ "${1:-}" = inner ]; then
	spin 60000
	(spin 40000)
	exit 0
fi
spin 60000
(spin 40000)
exec unshare --cgroup sh "$0" inner
