#!/bin/sh
# record.sh - re-record the captures of testdata/script/, which only
# pdtool script's goldens read (tests/golden/script/cases), and rewrite
# their recipes NAME.md from the command run.
#
#	sh testdata/script/record.sh [NAME...]	(as root, or with
#					 perf_event_paranoid <= 1)
#
# (NAME...: only those captures; none: all)
#
# The program is testdata/bin/demo, run at /work/main (PD_RECORDED_TOP
# of tests/golden/perf/lib.sh: where the other captures were recorded),
# so that the capture names it where the tests look for it.  Afterwards:
# sh tests/golden/script/regen.sh script/NAME.
set -eu
cd "$(dirname "$0")"
PERF=${PERF:-perf}
DEMO=/work/main/testdata/bin/demo

[ -x "$DEMO" ] || { echo "record.sh: no $DEMO" >&2; exit 2; }
only="$*"

# record NAME WHAT COMMAND: run COMMAND (it writes NAME.perf.data), then
# write NAME.md
record()
{
	name=$1 what=$2 cmd=$3
	if [ -n "$only" ]; then
		case " $only " in *" $name "*) ;; *) return 0 ;; esac
	fi
	rm -f "$name.perf.data"
	sh -c "$cmd" >/dev/null
	cat >"$name.md" <<MD
# testdata/script/$name

$what

- Stored as: \`$name.perf.data\` ($(wc -c <"$name.perf.data") bytes)
- Program: testdata/bin/demo (testdata/demo.md), run from $DEMO
- Recorded with: perf $("$PERF" version | sed 's/^perf version //'), kernel $(uname -r), x86_64, as root
- Command (run in testdata/script/ by \`sh testdata/script/record.sh\`):

      $cmd

- perf's view: tests/golden/script/testdata/script/$name.*.script
  (\`sh tests/golden/script/regen.sh script/$name\`).
MD
}

record faults "Page faults with their addresses: page-faults with a period \
of 1 and -d (PERF_SAMPLE_ADDR), 20 ms of the C program.  Exercises: the \
symbol and DSO perf script prints after a page fault's addr (code, data \
and stack addresses, the kernel's and the program's ips)." \
	"$PERF record -N -e page-faults -c 1 -d -o faults.perf.data -- $DEMO 20"

record pagesize "Page faults with the page sizes of their data and code: \
page-faults with a period of 1, -d, --data-page-size and \
--code-page-size (PERF_SAMPLE_DATA_PAGE_SIZE, CODE_PAGE_SIZE), 20 ms of \
the C program.  Exercises: perf script -F data_page_size,code_page_size \
(4K, 2M, N/A where the kernel gave none)." \
	"$PERF record -N -e page-faults -c 1 -d --data-page-size --code-page-size -o pagesize.perf.data -- $DEMO 20"

record clock "Page faults on CLOCK_MONOTONIC with the clock's reference \
pair: -k CLOCK_MONOTONIC (HEADER_CLOCK_DATA: the wall clock at a moment \
of the samples' clock), a period of 1, 20 ms of the C program.  \
Exercises: perf script -F tod (each sample's wall-clock time)." \
	"$PERF record -k CLOCK_MONOTONIC -N -e page-faults -c 1 -o clock.perf.data -- $DEMO 20"

record regs "Page faults with the registers at the fault and in user \
space: page-faults with a period of 1, -I (PERF_SAMPLE_REGS_INTR: the \
general registers) and --user-regs of six (PERF_SAMPLE_REGS_USER), 20 ms \
of the C program.  Exercises: perf script -F iregs,uregs (x86 register \
names, the ABI, a kernel fault's user registers)." \
	"$PERF record -N -e page-faults -c 1 -I --user-regs=ax,bx,cx,dx,sp,ip -o regs.perf.data -- $DEMO 20"
