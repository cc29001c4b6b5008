#!/bin/sh
# record.sh - rebuild testdata programs and re-record captures.
#
#	sh testdata/record.sh [NAME...]		(as root, or with
#						 perf_event_paranoid <= 1 for
#						 the non-system-wide ones)
#
# Records each capture named (default: all) with the perf on $PATH (the
# captures in git were written by perf 6.1 on Debian 12; see each
# NAME.md), compresses any capture file over 64 KiB with zstd (STYLE T3),
# and rewrites the recipe NAME.md from the command actually run, so recipe
# and capture never disagree.  Of testdata/src's programs it builds into
# testdata/bin/ only those the named recipes run, each once a run: the
# other binaries, and the build-ids other captures and goldens name, stay
# as they are (with no name, every recipe runs and every one is built).
# Afterwards regenerate perf's goldens: sh tests/golden/perf/regen.sh.
# RECORD_KEEP_BIN=1 records with the binaries in testdata/bin as they are
# (no rebuild), for a capture re-recorded on a new host.
#
# The captures hold this host's name, kernel and CPU description in their
# header, like any perf.data; nothing else from the host.
set -eu
cd "$(dirname "$0")"

CFLAGS='-O1 -g -fno-omit-frame-pointer'
PERF=${PERF:-perf}
LIMIT=65536	# STYLE T3: bigger files are stored as NAME.zst

command -v "$PERF" >/dev/null || { echo "record.sh: no perf" >&2; exit 2; }
command -v zstd >/dev/null || { echo "record.sh: no zstd" >&2; exit 2; }
perf_version=$("$PERF" version | sed 's/^perf version //')
kernel=$(uname -r)
case $perf_version in
6.1.*) ;;
*) echo "record.sh: warning: perf $perf_version, the captures in git" \
	"were written by perf 6.1" >&2 ;;
esac

mkdir -p bin
# diffwork: two builds of one program for `pdtool diff` (testdata/diff.md);
# -fipa-cp lets GCC clone a function for a constant argument, as -O2 does
DIFF_CFLAGS="$CFLAGS -fipa-cp"
# dtypes: data-type attribution (dtypes.md); -O2 keeps its pointers in
# registers, where DWARF's location lists find them
DT_CFLAGS='-O2 -g -fno-omit-frame-pointer'
built=' '

# need PROGRAM...: build testdata/bin/PROGRAM, once a run ("none": the
# command is the workload).  The cross and i386 builds are their
# recipes' own.
need()
{
	for prog_wanted; do
		[ "$prog_wanted" != none ] || continue
		case $built in *" $prog_wanted "*) continue ;; esac
		# RECORD_KEEP_BIN=1: record with the committed binary, whose
		# build-id other captures and goldens name (a rebuild in
		# another checkout changes DW_AT_comp_dir and so the build-id)
		if [ "${RECORD_KEEP_BIN:-}" = 1 ] && [ -x "bin/$prog_wanted" ]; then
			built="$built$prog_wanted "
			continue
		fi
		built="$built$prog_wanted "
		echo "== bin/$prog_wanted" >&2
		case $prog_wanted in
		demo | phases | offcpu)
			gcc $CFLAGS -pthread -o "bin/$prog_wanted" \
				"src/$prog_wanted.c" ;;
		inline) g++ $CFLAGS -o bin/inline src/inline.cpp ;;
		# cold: -O2 splits main into main and main.cold (cold.c)
		cold) gcc $DT_CFLAGS -o bin/cold src/cold.c ;;
		diffwork_a) gcc $DIFF_CFLAGS -o bin/diffwork_a src/diffwork.c ;;
		diffwork_b)
			gcc $DIFF_CFLAGS -DBUILD_B -o bin/diffwork_b \
				src/diffwork.c ;;
		dtypes)
			gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
				-o bin/dtypes src/dtypes.c ;;
		# dtypes at -O0, where every pointer is reloaded from its
		# stack slot before each access (the walk's stack-slot
		# tracking; tests/unit/check_datatype.c)
		dtypes-O0)
			gcc -O0 -g -fno-omit-frame-pointer \
				-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
				-o bin/dtypes-O0 src/dtypes.c ;;
		# dtcxx: C++ (classes, references, this) and container_of
		# (dtcxx.md)
		dtcxx)
			g++ $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
				-o bin/dtcxx src/dtcxx.cpp ;;
		*) echo "record.sh: no build for bin/$prog_wanted" >&2
		   exit 2 ;;
		esac
	done
}

cc_version=$(gcc --version | head -n 1)
cxx_version=$(g++ --version | head -n 1)

# compress PATH: store a file over $LIMIT bytes as PATH.zst.
compress()
{
	if [ "$(wc -c <"$1")" -gt $LIMIT ]; then
		zstd -q -19 --rm -f "$1" -o "$1.zst"
	fi
}

# recipe NAME PROGRAM WHAT COMMAND: write NAME.md.
recipe()
{
	name=$1 prog=$2 what=$3 cmd=$4
	case $prog in
	demo) src=src/demo.c compiler="$cc_version"
	      build="gcc $CFLAGS -pthread -o bin/demo src/demo.c" ;;
	phases) src=src/phases.c compiler="$cc_version"
		build="gcc $CFLAGS -pthread -o bin/phases src/phases.c" ;;
	offcpu) src=src/offcpu.c compiler="$cc_version"
		build="gcc $CFLAGS -pthread -o bin/offcpu src/offcpu.c" ;;
	inline) src=src/inline.cpp compiler="$cxx_version"
		build="g++ $CFLAGS -o bin/inline src/inline.cpp" ;;
	cold) src=src/cold.c compiler="$cc_version"
	      build="gcc $DT_CFLAGS -o bin/cold src/cold.c" ;;
	*) src='(none: the command is the workload)' compiler=- build=- ;;
	esac
	if [ -d "$name.perf.data" ]; then
		stored="directory \`$name.perf.data/\` ($(ls "$name.perf.data" |
			tr '\n' ' ' | sed 's/ $//'))"
	elif [ -f "$name.perf.data.zst" ]; then
		plain=$(zstd -q -d -c "$name.perf.data.zst" | wc -c)
		stored="\`$name.perf.data.zst\` (zstd -19 of $plain bytes)"
	else
		stored="\`$name.perf.data\` ($(wc -c <"$name.perf.data") bytes)"
	fi
	cat >"$name.md" <<EOF
# testdata/$name

$what

- Stored as: $stored
- Program: $src, built into testdata/bin/ by record.sh with
  \`$build\` ($compiler)
- Recorded with: perf $perf_version, kernel $kernel, x86_64, as root
  (a VM with only software events: no PMU)
- Command (run in testdata/ by \`sh testdata/record.sh $name\`):

      $cmd

- perf's view: tests/golden/perf/testdata/$name.stats and .samples
  (\`sh tests/golden/perf/regen.sh\`); checked by tests/cli/diff/.
EOF
}

# record NAME PROGRAM WHAT COMMAND...: run COMMAND (which writes
# NAME.perf.data), compress, write the recipe.
record()
{
	name=$1 prog=$2 what=$3
	shift 3
	need "$prog"
	rm -rf "$name.perf.data" "$name.perf.data.zst" "$name.perf.data.old"
	echo "== $name: $*" >&2
	sh -c "$*" >/dev/null
	rm -rf "$name.perf.data.old"
	if [ -d "$name.perf.data" ]; then
		for f in "$name.perf.data"/*; do
			compress "$f"
		done
	else
		compress "$name.perf.data"
	fi
	recipe "$name" "$prog" "$what" "$*"
}

want()
{
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$name_wanted" ] && return 0; done
	return 1
}

# -N: do not fill ~/.debug; the build-id table in the header is still
# written.
R="$PERF record -N"

name_wanted=demo; if want "$@"; then
record demo demo "The README's demo: cpu-clock at 149 Hz with frame-pointer \
callchains (-g) of the C program (main plus two threads, each in a small \
tree of nested functions: walk -> mix -> hash_block/sum_squares) for one \
second.  Exercises: a plain file-mode capture with CALLCHAIN samples from \
three threads, FORK/COMM/EXIT/MMAP2, and the build-id table." \
	"$R -e cpu-clock -F 149 -g -o demo.perf.data -- bin/demo 1000"
fi

name_wanted=cgns; if want "$@"; then
record cgns none "Cgroup namespaces for the cgroup_id key: --namespaces \
(PERF_RECORD_NAMESPACES at every fork, unshare and for the threads \
running at the start) with frame-pointer callchains of src/cgns.sh, a \
dash script that spins, forks a subshell that spins, then execs \
unshare --cgroup to go on in a cgroup namespace of its own (the same \
thread: its namespace changes mid-run) with a subshell there too; \
cpu-clock at 999 Hz, about 0.2 s." \
	"$R --namespaces -g -e cpu-clock -F 999 -o cgns.perf.data -- sh src/cgns.sh"
fi

name_wanted=fp; if want "$@"; then
record fp inline "Frame-pointer callchains (-g) of the C++ program, user \
space only (cpu-clock:u), 499 Hz for 0.3 s.  Exercises: callchains without \
kernel frames (PERF_CONTEXT_USER only), C++ symbols and an always_inline \
function (square_sum in Accumulator::run) for inline-frame symbolization." \
	"$R -e cpu-clock:u -F 499 -g -o fp.perf.data -- bin/inline 300"
fi

name_wanted=dwarf; if want "$@"; then
record dwarf demo "DWARF callchains (--call-graph dwarf,2048) of the C \
program, 249 Hz for 0.3 s.  Exercises: REGS_USER (the x86_64 user register \
mask) and STACK_USER (2048 bytes of stack per sample, with dyn_size), the \
kernel-only CALLCHAIN perf records in DWARF mode, and the ADDR and DATA_SRC \
bits perf turns on with it." \
	"$R -e cpu-clock -F 249 --call-graph dwarf,2048 -o dwarf.perf.data -- bin/demo 300"
fi

name_wanted=dwarfcpp; if want "$@"; then
record dwarfcpp inline "DWARF callchains (--call-graph dwarf,4096) of the \
C++ program, 499 Hz for 0.3 s.  Exercises: unwinding through C++ code and \
libc from the stack copies, and the inlined frames perf 6.1 shows on \
DWARF-unwound stacks (square_sum inlined into Accumulator::run, named as \
addr2line names them)." \
	"$R -e cpu-clock -F 499 --call-graph dwarf,4096 -o dwarfcpp.perf.data -- bin/inline 300"
fi

name_wanted=dwcold; if want "$@"; then
record dwcold cold "DWARF callchains (--call-graph dwarf,2048) of a C program \
GCC -O2 splits into main and main.cold, 499 Hz, 1500 rounds of work.  \
Exercises: perf 6.1's call graph nodes matched by name when either frame \
is inlined (match_chain()): main.cold's frame, whose DWARF names main, is \
\"main (inlined)\" and joins the main node its callers already have." \
	"$R -e cpu-clock -F 499 --call-graph dwarf,2048 -o dwcold.perf.data -- bin/cold"
fi

name_wanted=zstd; if want "$@"; then
record zstd demo "A zstd-compressed capture (-z): the records after the \
synthesized ones sit in PERF_RECORD_COMPRESSED chunks, and the header has \
the COMPRESSED feature.  cpu-clock, 499 Hz, -g, 0.3 s of the C program." \
	"$R -z -e cpu-clock -F 499 -g -o zstd.perf.data -- bin/demo 300"
fi

name_wanted=pipe; if want "$@"; then
record pipe demo "Pipe mode (-o -): a perf.data stream with the short pipe \
header, HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE and the other synthesized \
records in the data stream instead of header sections.  cpu-clock, 499 Hz, \
-g, 0.3 s of the C program." \
	"$R -e cpu-clock -F 499 -g -o - -- bin/demo 300 > pipe.perf.data"
fi

name_wanted=threads; if want "$@"; then
record threads demo "The directory format of perf record --threads: \
threads.perf.data/ holds 'data' (the header, with the DIR_FORMAT feature, \
and the synthesized records) and one data.N per recording thread (one per \
CPU here) with that thread's kernel records; no FINISHED_ROUND.  cpu-clock, \
499 Hz, -g, 0.3 s of the C program." \
	"$R --threads -e cpu-clock -F 499 -g -o threads.perf.data -- bin/demo 300"
fi

name_wanted=multi; if want "$@"; then
record multi demo "Three software events with different sample types in \
one capture: cpu-clock with frame-pointer callchains, task-clock, and \
page-faults with a fixed period of 1 (sample_period, not freq); \
--sample-cpu adds CPU to all.  The samples carry ID, so each maps to its \
attr by id.  0.2 s of the C program." \
	"$R -e cpu-clock/call-graph=fp/ -e task-clock -e page-faults/period=1/ -F 499 --sample-cpu -o multi.perf.data -- bin/demo 200"
fi

name_wanted=switch; if want "$@"; then
record switch demo "Context-switch records (--switch-events): \
PERF_RECORD_SWITCH with and without the SWITCH_OUT (and preempt) misc bits, \
each with a sample_id_all trailer.  cpu-clock, 499 Hz, 0.2 s of the C \
program." \
	"$R --switch-events -e cpu-clock -F 499 -o switch.perf.data -- bin/demo 200"
fi

name_wanted=phases; if want "$@"; then
record phases phases "A workload of known parallelism for latency \
profiles (pdtool report --latency): serial() alone, then pair() on 2 \
threads, then quad() on 4 threads, 0.1 s each, with context-switch \
records (--switch-events) as perf >= 6.15 computes parallelism from.  \
cpu-clock, 499 Hz, on a 2-CPU host." \
	"$R --switch-events -e cpu-clock -F 499 -o phases.perf.data -- bin/phases 100"
fi

name_wanted=phasescg; if want "$@"; then
record phasescg phases "The phases workload (serial, 2 threads, 4 threads, \
0.1 s each) with frame-pointer callchains (-g) as well as context-switch \
records: latency with children (pdtool report --latency --children), \
whose callers' columns phases.perf.data, without callchains, cannot \
tell from the rows' own.  cpu-clock, 499 Hz, on a 2-CPU host." \
	"$R --switch-events -g -e cpu-clock -F 499 -o phasescg.perf.data -- bin/phases 100"
fi

name_wanted=offcpu; if want "$@"; then
record offcpu offcpu "A workload that waits, for off-CPU profiles \
(pdtool fold --off-cpu): main() spins 20 ms in each of sleep_wait() (then \
sleeps 100 ms), lock_wait() (then blocks on a mutex a second thread took \
just before and holds for 80 ms) and pipe_wait() (then reads a pipe a \
third thread writes 60 ms after it starts); on an idle host the waits are \
100, 60 and 40 ms, on a busy one (this capture) the spins are preempted \
and the last two shorter.  Context-switch records (--switch-events) and \
callchains (-g) on the cpu-clock samples, 999 Hz." \
	"$R --switch-events -g -e cpu-clock -F 999 -o offcpu.perf.data -- bin/offcpu 100"
fi

name_wanted=tpcg; if want "$@"; then
record tpcg offcpu "The offcpu workload (testdata/offcpu.md) recorded \
with four tracepoints and callchains (-g), no other event: perf report's \
default rows are then by the trace key (its tracepoint mode), and with \
--children each row's text is measured for the column (perf compares a \
sample's entry with its callchain's).  Rows of equal share from \
different threads order by the text, not by the call graphs' depths, \
which perf compares within one thread only." \
	"$R -e sched:sched_switch -e syscalls:sys_enter_nanosleep -e syscalls:sys_enter_read -e syscalls:sys_enter_write -g -o tpcg.perf.data -- bin/offcpu 100"
fi

# needs tracefs mounted (mount -t tracefs nodev /sys/kernel/tracing): perf
# reads the tracepoint's format from it into HEADER_TRACING_DATA
name_wanted=sched/offcpusw; if want "$@"; then
record sched/offcpusw offcpu "The offcpu workload (testdata/offcpu.md) \
recorded with the sched:sched_switch tracepoint and its callchains (-g) as \
the only sampled event, and context-switch records (--switch-events): \
each sample is a switch-out of the workload's thread, with the stack it \
blocked in and the next task's pid; the switch records give the same waits \
(pdtool fold --off-cpu pairs the two; tests/cli/fold/offcpu-sched.test).  \
The tracepoint's fields are read from the capture's HEADER_TRACING_DATA." \
	"$R --switch-events -g -e sched:sched_switch -o sched/offcpusw.perf.data -- bin/offcpu 100"
fi

# needs tracefs mounted, as sched/offcpusw
name_wanted=sched/offcpupipe; if want "$@"; then
record sched/offcpupipe offcpu "The offcpu workload (testdata/offcpu.md) \
in pipe mode (-o -): cpu-clock samples at 999 Hz and the \
sched:sched_switch tracepoint, both with callchains (-g), and \
context-switch records (--switch-events).  The events, the features and \
the tracing data (the tracepoint's format) come as records in the stream \
(HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA) before the samples: \
off-CPU time and latency read from a pipe as from a file \
(tests/cli/fold/offcpu-pipe.test converts it to file mode and compares)." \
	"$R --switch-events -g -e cpu-clock/freq=999/ -e sched:sched_switch -o - -- bin/offcpu 100 > sched/offcpupipe.perf.data"
fi

name_wanted=sched/tpmix; if want "$@"; then
record sched/tpmix offcpu "The offcpu workload (testdata/offcpu.md) \
recorded with 26 kinds of tracepoints and no other event: sched's \
switch, wakeup, waking, wakeup_new, process exec/fork/exit, migrate_task \
and stat_runtime, every irq, timer, workqueue, raw_syscalls and signal \
event.  Their print fmts use field references, arithmetic, casts, ?:, \
__print_flags, __print_symbolic, array elements (REC->args[0]), %ps and \
enum names; pdtool script prints them as perf 6.1 does \
(tests/golden/script/testdata/sched/tpmix.*)." \
	"$R -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new,sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit,sched:sched_migrate_task,sched:sched_stat_runtime -e 'irq:*' -e 'timer:*' -e 'workqueue:*' -e 'raw_syscalls:*' -e 'signal:*' -o sched/tpmix.perf.data -- bin/offcpu 100"
fi

# needs tracefs mounted, as sched/offcpusw
name_wanted=sched/tpkmem; if want "$@"; then
record sched/tpkmem offcpu "The offcpu workload (testdata/offcpu.md) \
recorded with every kmem and percpu tracepoint, rcu:rcu_utilization, \
task's and a few syscalls' enter/exit events, and no other event.  Their \
print fmts hold what tpmix's do not: gfp_flags' __print_flags table \
(casts of gfp_t, a \"{ 0, ((void *)0) }\" ending), %s of a const char * \
field that points to a kernel string (rcu_utilization's \"Start context \
switch\": the tracing data's printk formats name it), %pS call sites and \
a pointer computed from a field (mm_page_alloc's page); pdtool script \
prints them as perf 6.1 does (tests/golden/script/testdata/sched/tpkmem.*)." \
	"$R -e 'kmem:*' -e 'percpu:*' -e rcu:rcu_utilization -e 'task:*' -e syscalls:sys_enter_openat,syscalls:sys_exit_openat,syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_mmap,syscalls:sys_exit_mmap,syscalls:sys_enter_clone3,syscalls:sys_exit_clone3,syscalls:sys_enter_execve -o sched/tpkmem.perf.data -- bin/offcpu 100"
fi

# system-wide: the host's other tasks are in it too (their comms and maps)
name_wanted=sched/sysw; if want "$@"; then
record sched/sysw phases "The phases workload (serial, 2 threads, 4 \
threads, 0.1 s each) recorded system-wide (-a) with context-switch records \
(--switch-events: CPU-wide ones) beside whatever else the host ran: \
latency for one process of a system-wide capture (pdtool report --pid, \
fold --pid-filter; tests/cli/report/sysw-pid.test).  cpu-clock, 499 Hz, \
on a 2-CPU host; chrt as in phasescg." \
	"$R -a --switch-events -e cpu-clock -F 499 -o sched/sysw.perf.data -- chrt -f 1 bin/phases 100"
fi

# perf >= 6.15's own --latency recording (perf 7.2 from a Debian sid
# chroot, run on this host: the chroot has no /sys), a capture perf 6.1
# cannot read (perf_event_attr of 144 bytes, build-ids in MMAP2): the
# oracle's own input for report --latency (tests/golden/perf/perf7/,
# perf7-latency-regen.sh).  Recorded only when PERF7 runs.
PERF7=${PERF7:-/tmp/dt3/perf7}
name_wanted=sched/phases7; if want "$@" && "$PERF7" version >/dev/null 2>&1; then
perf61_version=$perf_version
perf_version=$("$PERF7" version | sed 's/^perf version //')
record sched/phases7 phases "The phases workload (serial, 2 threads, 4 \
threads, 0.1 s each) recorded by perf 7.2's own \`perf record --latency\` \
(context-switch records; attrs of 144 bytes and MMAP2 records with \
build-ids, which perf 6.1 cannot read): pdtool report --latency, -s \
parallelism and --parallelism against perf 7.2's reports of the same \
file (tests/cli/report/perf7-latency.test).  cpu-clock, 499 Hz, on a \
2-CPU host; perf and the workload at SCHED_FIFO priority 1 (chrt), or a \
loaded host runs the threads of the parallel phases one at a time." \
	"chrt -f 1 $PERF7 record -N --latency -e cpu-clock -F 499 -o sched/phases7.perf.data -- bin/phases 100"
perf_version=$perf61_version
fi

name_wanted=group; if want "$@"; then
record group demo "Event groups: {cpu-clock,task-clock}:S, leader \
sampling (the leader samples; each sample reads the group: \
PERF_SAMPLE_READ with read_format ID|GROUP|LOST, the member with no \
period of its own) beside page-faults outside any group; GROUP_DESC \
names the group.  perf 6.1 delivers each sample once per member, the \
member's count since its previous sample as the period.  -g, 999 Hz, \
0.3 s of the C program." \
	"$R -e '{cpu-clock,task-clock}:S' -e page-faults -g -F 999 -o group.perf.data -- bin/demo 300"
fi

name_wanted=lost; if want "$@"; then
record lost demo "Lost samples: cpu-clock every 4000 ns with callchains \
(-g) into a one-page ring buffer (-m 1) for 10 ms of the C program, so the \
kernel drops samples: LOST records while recording, and, as perf >= 6.0 \
writes, one LOST_SAMPLES record per event at the end (its read_format has \
PERF_FORMAT_LOST) counting the same samples again.  perf report says \
\"Total Lost Samples\" is the LOST_SAMPLES count." \
	"$R -e cpu-clock -c 4000 -m 1 -g -o lost.perf.data -- bin/demo 10"
fi

name_wanted=statrec; if want "$@"; then
record statrec demo "perf stat record: no samples; attrs with sample_type \
IDENTIFIER and read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, the STAT \
feature, and the records STAT_CONFIG, STAT (one per event, cpu and thread), \
STAT_ROUND, THREAD_MAP, CPU_MAP and EVENT_UPDATE (names) plus one MMAP.  0.1 \
s of the C program." \
	"$PERF stat record -o statrec.perf.data -e cpu-clock,task-clock,context-switches -- bin/demo 100"
fi

# More perf stat record captures (pdtool stat): per CPU, intervals, per
# thread, and three runs of one command.
name_wanted=stat-cpu; if want "$@"; then
record stat-cpu demo "perf stat record -a -A: per-CPU counts (aggregation \
mode AGGR_NONE saved in STAT_CONFIG), a STAT per event and CPU, a CPU_MAP \
of both CPUs, the capture's CPU topology (for --per-socket, --per-core \
...).  0.1 s of the C program." \
	"$PERF stat record -a -A -o stat-cpu.perf.data -e task-clock,context-switches,cpu-migrations,page-faults -- bin/demo 100"
fi

name_wanted=stat-interval; if want "$@"; then
record stat-interval demo "perf stat record -I 50: a STAT_ROUND of type \
INTERVAL every 50 ms and STAT records holding cumulative counts, which \
perf 6.1 prints as each interval's own.  0.2 s of the C program." \
	"$PERF stat record -I 50 -o stat-interval.perf.data -e task-clock,context-switches,page-faults -- bin/demo 200"
fi

name_wanted=stat-cpu-interval; if want "$@"; then
record stat-cpu-interval none "perf stat record -a -A -I 40: per-CPU counts \
every 40 ms (the interval header and prefix of each aggregation), of a \
mostly idle machine for 0.1 s." \
	"$PERF stat record -a -A -I 40 -o stat-cpu-interval.perf.data -e task-clock,context-switches -- sleep 0.1"
fi

name_wanted=stat-thread; if want "$@"; then
record stat-thread demo "perf stat record --per-thread -p PID: a \
THREAD_MAP of the program's three threads (pid and comm), a STAT per event \
and thread, aggregation mode AGGR_THREAD; 0.1 s of a running program." \
	"bin/demo 400 & p=\$!; sleep 0.1; $PERF stat record --per-thread -p \$p -o stat-thread.perf.data -e task-clock,context-switches -- sleep 0.1; wait"
fi

for run in 1 2 3; do
name_wanted=stat-run$run; if want "$@"; then
record stat-run$run demo "Run $run of three perf stat record runs of one \
command (stat-run1..3): pdtool stat given all three prints their mean and \
spread as perf stat -r does." \
	"$PERF stat record -o stat-run$run.perf.data -e task-clock,context-switches,page-faults -- bin/demo 50"
fi
done

name_wanted=sysw; if want "$@"; then
record sysw none "A system-wide capture (-a) for 0.2 s of a mostly idle \
machine: cpu-clock at 99 Hz on every CPU with callchains, samples of the \
idle task (pid 0) and of other processes, CPU in the sample type, a dummy \
event for the side-band records, and the synthesized MMAP/COMM records of \
every process that was running." \
	"$R -a -e cpu-clock -F 99 -g -o sysw.perf.data -- sleep 0.2"
fi

# The `pdtool diff` set: captures of the two diffwork builds, each run as
# "diffwork" from a directory of its own (diff-a/, diff-b/, removed
# afterwards; the captures find the binaries by build-id in
# testdata/buildid), as two builds of one program are.  They are not
# testdata/NAME.perf.data captures: they live in testdata/diff/ and share
# one recipe, testdata/diff.md.
DIFF_NAMES='a1 b1 a2 b2 a3 b3 a4 a5 a6'
name_wanted=exec; if want "$@"; then
record exec demo "DWARF callchains (--call-graph dwarf,4096, user space \
only) of the C program started by bash, which forks and execs it, with \
address-space randomization off (setarch -R), 499 Hz for 0.3 s.  \
Exercises: a process whose maps are copied from its parent at FORK and \
replaced by its own at exec; the parent's libc and ld.so lie below the \
child's (bash also loads libtinfo), which makes perf 6.1 look for their \
.eh_frame_hdr in the parent's stale map: its libunwind then finds no CFI \
for libc's frames and its stacks stop there (tests/cli/fold/dwarf.test \
judges it).  pdtool places each map by its own load bias." \
	"$R -e cpu-clock:u -F 499 --call-graph dwarf,4096 -o exec.perf.data -- setarch -R bash -c 'bin/demo 300; true'"
fi
name_wanted=diff; if want "$@"; then
	need diffwork_a diffwork_b
	rm -rf diff diff-a diff-b
	mkdir -p diff diff-a diff-b
	cp bin/diffwork_a diff-a/diffwork
	cp bin/diffwork_b diff-b/diffwork
	diff_cmd="$R -e cpu-clock -F 999 -g -o diff/NAME.perf.data -- diff-X/diffwork 3000"
	# a1 b1 a2 b2 a3 b3 interleaved, so that both builds meet the same
	# machine; a4..a6 then make six captures of build A
	for c in $DIFF_NAMES; do
		b=$(echo "$c" | cut -c1)
		cmd=$(echo "$diff_cmd" | sed "s|NAME|$c|; s|diff-X|diff-$b|")
		echo "== diff/$c: $cmd" >&2
		sh -c "$cmd" >/dev/null 2>&1
		zstd -q -19 --rm -f "diff/$c.perf.data" -o "diff/$c.perf.data.zst"
	done
	rm -rf diff-a diff-b
	# the build-id cache entries, as the others: .build-id/xx/rest ->
	# the binary
	for b in a b; do
		id=$(python3 -c 'import sys
sys.path.insert(0, "../tests/golden/fold")
import buildid_dir
print(buildid_dir.build_id(sys.argv[1]))' "bin/diffwork_$b")
		d=buildid/.build-id/$(echo "$id" | cut -c1-2)
		mkdir -p "$d"
		ln -sfn "../../../bin/diffwork_$b" "$d/$(echo "$id" | cut -c3-)"
	done
	sizes=$(for c in $DIFF_NAMES; do
		printf '%s %s/%s, ' "$c" \
			"$(wc -c <"diff/$c.perf.data.zst" | tr -d ' ')" \
			"$(zstd -q -d -c "diff/$c.perf.data.zst" | wc -c | tr -d ' ')"
	done | sed 's/, $//')
	cat >diff.md <<EOF
# testdata/diff

Two builds of one program for \`pdtool diff\`.  src/diffwork.c repeats a
step of four functions (parse, checksum, transform, report) for a given
time.  Build A (bin/diffwork_a) runs transform's loop once a step;
build B (bin/diffwork_b, \`-DBUILD_B\`) has two rounds compiled in, so
transform does twice the work, and GCC clones it for the constant as
transform.constprop.0 (and step as step.constprop.0): the names differ
between the builds as compiler clones' names do.  Each capture is
cpu-clock at 999 Hz with frame-pointer callchains (-g) for three
seconds: a first recording of one second each, on this machine shared
with other jobs, had one capture of B with transform at 45% of the
samples against 54% and 57% in the others; longer runs average out more
of the other jobs' interference.
GCC gives the work functions (leaves) no frame, so their caller, step,
is missing from their stacks, in both builds alike.

- Stored as: testdata/diff/NAME.perf.data.zst, NAME a1..a6 (build A) and
  b1..b3 (build B), recorded in the order $DIFF_NAMES; bytes (zstd -19
  / plain): $sizes
- Program: src/diffwork.c, built into testdata/bin/ by record.sh with
  \`gcc $DIFF_CFLAGS -o bin/diffwork_a src/diffwork.c\` and
  \`gcc $DIFF_CFLAGS -DBUILD_B -o bin/diffwork_b src/diffwork.c\`
  ($cc_version).  Both ran as diff-a/diffwork and diff-b/diffwork
  (copies, removed afterwards), so that comm and binary name match
  between the builds; the captures find the binaries by build-id in
  testdata/buildid.
- Recorded with: perf $perf_version, kernel $kernel, x86_64, as root
  (a VM with only software events: no PMU), while other jobs ran on the
  machine: run-to-run variation is part of what these captures hold.
- Command (run in testdata/ by \`sh testdata/record.sh diff\`), for each
  NAME, X its build (a or b):

      $diff_cmd

- Used by tests/cli/diff/: the top regression and its significance with
  one and with three captures a side (builds.test), three captures of
  build A against three others, where nothing may be significant, and a
  pair of them, whose changes are sampling-only (noise.test), and the
  folded, table and SVG outputs (folded.test, svg.test, browser.test).
EOF
fi

# A capture of another architecture: this x86_64 VM cannot record one, so
# tests/gen/pd_arch_synth.py writes the samples of an aarch64 build of
# src/loop.c as perf record would have written them there (see
# loop-aarch64.md).  Needs aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu).
name_wanted=loop-aarch64; if want "$@"; then
	# the build directory recorded in DWARF is /pdtool/testdata, wherever
	# this runs: tests map it back with --prefix-map
	aarch64-linux-gnu-gcc $CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/loop-aarch64 src/loop.c
	python3 ../tests/gen/pd_arch_synth.py bin/loop-aarch64 \
		/opt/pdtool/loop-aarch64 aarch64 loop-aarch64.perf.data \
		$(cat loop-aarch64.samples)
fi

# dtypes: the struct accesses of src/dtypes.c, on x86_64 (recorded) and
# aarch64 (written by pd_arch_synth.py at its loads and stores), for
# data-type attribution (dtypes.md).
name_wanted=dtypes; if want "$@"; then
	need dtypes dtypes-O0
	rm -f dtypes.perf.data dtypes.perf.data.zst
	$R -e cpu-clock:u -F 999 -o dtypes.perf.data -- bin/dtypes 100000 >/dev/null
	compress dtypes.perf.data
fi
name_wanted=dtcxx; if want "$@"; then
	need dtcxx
	rm -f dtcxx.perf.data dtcxx.perf.data.zst
	$R -e cpu-clock:u -F 999 -o dtcxx.perf.data -- bin/dtcxx 40000000 >/dev/null
	compress dtcxx.perf.data
fi
name_wanted=dtcxx-aarch64; if want "$@"; then
	aarch64-linux-gnu-g++ $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtcxx-aarch64 src/dtcxx.cpp
fi
name_wanted=dtypes-aarch64; if want "$@"; then
	aarch64-linux-gnu-gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtypes-aarch64 src/dtypes.c
	aarch64-linux-gnu-gcc -O0 -g -fno-omit-frame-pointer \
		-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtypes-O0-aarch64 src/dtypes.c
	python3 ../tests/gen/pd_arch_synth.py bin/dtypes-aarch64 \
		/opt/pdtool/dtypes-aarch64 aarch64 dtypes-aarch64.perf.data \
		$(cat dtypes-aarch64.samples)
fi
# dtarm: aarch64's addressing modes (dtypes.md), checked per instruction
# by tests/unit/check_datatype.c; no capture
name_wanted=dtarm-aarch64; if want "$@"; then
	aarch64-linux-gnu-gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtarm-aarch64 src/dtarm.c
fi
# dtcall: accesses through a call's result (dtypes.md), checked per
# instruction by tests/unit/check_datatype.c; no capture
name_wanted=dtcall; if want "$@"; then
	gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtcall src/dtcall.c
	aarch64-linux-gnu-gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtcall-aarch64 src/dtcall.c
fi
# dtchain: pointers loaded through loaded pointers (dtypes.md), at -O2
# and -O0, x86_64 (recorded) and aarch64, checked per instruction by
# tests/unit/check_datatype.c; perf 7.2 is the capture's oracle
# (tests/golden/datatype/regen.sh)
name_wanted=dtchain; if want "$@"; then
	for cc in gcc aarch64-linux-gnu-gcc; do
		sfx=; [ "$cc" = gcc ] || sfx=-aarch64
		$cc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
			-o bin/dtchain$sfx src/dtchain.c
		$cc -O0 -g -fno-omit-frame-pointer \
			-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
			-o bin/dtchain-O0$sfx src/dtchain.c
	done
	rm -f dtchain.perf.data dtchain.perf.data.zst
	$R -e cpu-clock:u -F 999 -o dtchain.perf.data -- bin/dtchain 200000000 >/dev/null
	compress dtchain.perf.data
fi
# dtypes-fp, dtypes-dwarf, dtchain-fp, dtchain-dwarf: the dt programs
# with frame-pointer (-g) and DWARF (--call-graph dwarf,2048) callchains
# (dtypes.md), whose data types must be those of the captures without
# (tests/cli/types/callchain.test); -F 199 keeps dtchain's DWARF one
# small
name_wanted=dtypes-fp; if want "$@"; then
	need dtypes
	rm -f dtypes-fp.perf.data dtypes-fp.perf.data.zst
	$R -e cpu-clock:u -F 999 -g -o dtypes-fp.perf.data -- bin/dtypes 100000 >/dev/null
	compress dtypes-fp.perf.data
fi
name_wanted=dtypes-dwarf; if want "$@"; then
	need dtypes
	rm -f dtypes-dwarf.perf.data dtypes-dwarf.perf.data.zst
	$R -e cpu-clock:u -F 999 --call-graph dwarf,2048 -o dtypes-dwarf.perf.data -- bin/dtypes 100000 >/dev/null
	compress dtypes-dwarf.perf.data
fi
name_wanted=dtchain-fp; if want "$@"; then
	rm -f dtchain-fp.perf.data dtchain-fp.perf.data.zst
	$R -e cpu-clock:u -F 999 -g -o dtchain-fp.perf.data -- bin/dtchain 200000000 >/dev/null
	compress dtchain-fp.perf.data
fi
name_wanted=dtchain-dwarf; if want "$@"; then
	rm -f dtchain-dwarf.perf.data dtchain-dwarf.perf.data.zst
	$R -e cpu-clock:u -F 199 --call-graph dwarf,2048 -o dtchain-dwarf.perf.data -- bin/dtchain 200000000 >/dev/null
	compress dtchain-dwarf.perf.data
fi
# dtfuse: samples after the access, on the second of two fused
# instructions (dtypes.md), x86_64; perf 7.2 is the capture's oracle
# (tests/golden/datatype/regen.sh), check_datatype.c the binary's
name_wanted=dtfuse; if want "$@"; then
	gcc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtfuse src/dtfuse.c
	rm -f dtfuse.perf.data dtfuse.perf.data.zst
	$R -e cpu-clock:u -F 999 -o dtfuse.perf.data -- bin/dtfuse 200000000 >/dev/null
	compress dtfuse.perf.data
fi
# arm (Thumb-2, and two in ARM state) builds of dtypes, dtcall and dtchain (dtypes.md; Debian's
# gcc-arm-linux-gnueabihf), checked per instruction; no capture
name_wanted=dtypes-arm; if want "$@"; then
	for n in dtypes dtcall dtchain; do
		arm-linux-gnueabihf-gcc $DT_CFLAGS \
			-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
			-o bin/$n-arm src/$n.c
	done
	arm-linux-gnueabihf-gcc -O0 -g -fno-omit-frame-pointer \
		-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtchain-O0-arm src/dtchain.c
	# and in ARM state
	for n in dtypes dtchain; do
		arm-linux-gnueabihf-gcc -marm $DT_CFLAGS \
			-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
			-o bin/$n-a32-arm src/$n.c
	done
fi
# ppc64 and s390x builds of dtypes, dtcall, dtchain and dtxform (dtypes.md):
# ppc64le, little-endian ELFv2 (Debian's gcc-powerpc64le-linux-gnu),
# ppc64, big-endian ELFv1 (gcc-powerpc64-linux-gnu: function descriptors
# in .opd) and s390x (gcc-s390x-linux-gnu), dtypes and dtchain at -O0
# too; checked per instruction.  pd_arch_synth.py writes a capture of
# each -O2 dtypes at its loads and stores (dtypes-ARCH.samples).
name_wanted=dtypes-ppc-s390x; if want "$@"; then
	for arch in ppc64le ppc64 s390x; do
		case $arch in
		ppc*) cc=powerpc${arch#ppc}-linux-gnu-gcc ;;
		*) cc=$arch-linux-gnu-gcc ;;
		esac
		for n in dtypes dtcall dtchain; do
			$cc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
				-o bin/$n-$arch src/$n.c
		done
		for n in dtypes dtchain; do
			$cc -O0 -g -fno-omit-frame-pointer \
				-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
				-o bin/$n-O0-$arch src/$n.c
		done
		$cc $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
			-o bin/dtxform-$arch src/dtxform.c
		python3 ../tests/gen/pd_arch_synth.py bin/dtypes-$arch \
			/opt/pdtool/dtypes-$arch $arch dtypes-$arch.perf.data \
			$(cat dtypes-$arch.samples)
	done
fi
# dtgot: globals reached through the GOT (dtgot.md): bin/libdtgot.so
# (src/dtgot.c, -fPIC -shared) and the PIE bin/dtgot (src/dtgotmain.c)
# that runs it, x86_64, recorded; perf 7.2 is the capture's oracle
# (tests/golden/datatype/regen.sh), check_datatype.c the binaries'
dtgot_build()	# CC SUFFIX [FLAGS...]: bin/libdtgotSUFFIX.so, bin/dtgotSUFFIX
{
	cc=$1 sfx=$2
	shift 2
	$cc $DT_CFLAGS "$@" -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-fPIC -shared -Wl,-soname,libdtgot$sfx.so \
		-o bin/libdtgot$sfx.so src/dtgot.c
	$cc $DT_CFLAGS "$@" -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-fPIE -pie -o bin/dtgot$sfx src/dtgotmain.c \
		-Lbin -ldtgot$sfx -Wl,-rpath,'$ORIGIN'
}
name_wanted=dtgot; if want "$@"; then
	dtgot_build gcc ""
	rm -f dtgot.perf.data dtgot.perf.data.zst
	$R -e cpu-clock:u -F 999 -o dtgot.perf.data -- bin/dtgot 100000000 >/dev/null
	compress dtgot.perf.data
fi
# dtgot's aarch64, ppc64le, ppc64, s390x, i386 (gcc -m32, as
# dtypes-i386) and arm (Thumb-2) builds, and ppc64le's for
# Power10 (-mcpu=power10: PC-relative prefixed pld of the GOT slots;
# with dtypes.c's bin/dtypes-p10-ppc64le, globals through pla, plwz and
# pld @pcrel; not unrolled, which power10's tuning would do to points():
# v[i + 1].y at 12 of an 8-byte struct point); pd_arch_synth.py writes a capture of each library at its
# loads and stores (dtgot-ARCH.samples)
# memory samples at bin/dtgot's accesses to glimits and mlimits
# (dtgot-mem.samples: SYM+OFF=COUNT@DATA), for mem's data object columns
name_wanted=dtgot-mem; if want "$@"; then
	python3 ../tests/gen/pd_arch_synth.py --mem bin/dtgot \
		/opt/pdtool/dtgot x86_64 dtgot-mem.perf.data \
		$(cat dtgot-mem.samples)
fi
name_wanted=dtgot-cross; if want "$@"; then
	for arch in aarch64 ppc64le ppc64 s390x; do
		case $arch in
		ppc*) cc=powerpc${arch#ppc}-linux-gnu-gcc ;;
		*) cc=$arch-linux-gnu-gcc ;;
		esac
		dtgot_build $cc -$arch
	done
	dtgot_build powerpc64le-linux-gnu-gcc -p10-ppc64le -mcpu=power10
	dtgot_build "gcc -m32" -i386
	dtgot_build arm-linux-gnueabihf-gcc -arm
	powerpc64le-linux-gnu-gcc -mcpu=power10 -fno-unroll-loops $DT_CFLAGS \
		-fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtypes-p10-ppc64le src/dtypes.c
	for arch in aarch64 ppc64le ppc64 s390x p10-ppc64le; do
		python3 ../tests/gen/pd_arch_synth.py bin/libdtgot-$arch.so \
			/opt/pdtool/libdtgot-$arch.so ${arch#p10-} \
			dtgot-$arch.perf.data $(cat dtgot-$arch.samples)
	done
	python3 ../tests/gen/pd_arch_synth.py bin/libdtgot-i386.so \
		/opt/pdtool/libdtgot-i386.so i686 \
		dtgot-i386.perf.data $(cat dtgot-i386.samples)
	python3 ../tests/gen/pd_arch_synth.py bin/libdtgot-arm.so \
		/opt/pdtool/libdtgot-arm.so armv7l \
		dtgot-arm.perf.data $(cat dtgot-arm.samples)
	# dtypes-p10-ppc64le's prefixed loads and stores (annotate's
	# listing of them, tests/cli/annotate/ppc10.test)
	python3 ../tests/gen/pd_arch_synth.py bin/dtypes-p10-ppc64le \
		/opt/pdtool/dtypes-p10-ppc64le ppc64le \
		dtypes-p10-ppc64le.perf.data $(cat dtypes-p10-ppc64le.samples)
fi
# i386 builds of dtypes and dtcall (dtypes.md; gcc -m32 needs Debian's
# libc6-dev-i386 and lib32gcc-12-dev: gcc-multilib would remove the
# aarch64 cross compilers), checked per instruction; no capture
name_wanted=dtypes-i386; if want "$@"; then
	gcc -m32 $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtypes-i386 src/dtypes.c
	gcc -m32 $DT_CFLAGS -fdebug-prefix-map="$(pwd)"=/pdtool/testdata \
		-o bin/dtcall-i386 src/dtcall.c
fi
name_wanted=dtcall-mem-aarch64; if want "$@"; then
	python3 ../tests/gen/pd_arch_synth.py --mem bin/dtcall-aarch64 \
		/opt/pdtool/dtcall-aarch64 aarch64 dtcall-mem-aarch64.perf.data \
		$(cat dtcall-mem-aarch64.samples)
fi
name_wanted=dtypes-mem-aarch64; if want "$@"; then
	python3 ../tests/gen/pd_arch_synth.py --mem bin/dtypes-aarch64 \
		/opt/pdtool/dtypes-aarch64 aarch64 dtypes-mem-aarch64.perf.data \
		$(cat dtypes-mem-aarch64.samples)
fi

# this kernel's vdso, which the [vdso] frames of what was recorded name:
# the tests read it from vdso/ARCH/BUILDID on any kernel (commit it)
python3 ../tests/golden/perf/hostvdso.py --image vdso
echo "record.sh: done; now run sh tests/golden/perf/regen.sh" >&2
