# --from-script carries stackcollapse-perf.pl's rules: tidied names,
# [dso] for unknown frames, offsets dropped, inlined frames, annotations.
printf '%s\n' \
	'V8 WorkerThread 24636/25607 [000] 542.000001:   100 cpu-clock: ' \
	'	ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])' \
	'	    7f0011223344 [unknown] (/usr/lib/libfoo.so)' \
	'	    7f0011223346 Foo::bar(int, char const*) (/opt/app)' \
	'	    7f0011223347 ns::(anonymous namespace)::run(int) (/opt/app)' \
	'	    7f0011223348 outer->inner (/opt/app)' \
	'	    7f0011223349 jitted (/tmp/perf-24636.map)' \
	'' \
	'java 10 1.5: 7 instructions: ' \
	'	1 Lorg/x/Y;.run()V (/tmp/perf-10.map)' \
	'' >"${TMPDIR:-/tmp}/pdtool-fold-script.$$"
in="${TMPDIR:-/tmp}/pdtool-fold-script.$$"
$PDTOOL fold --from-script "$in"
$PDTOOL fold --from-script --all --addrs --tid --all-events "$in"
$PDTOOL fold --from-script --event instructions --weight period "$in"
rm -f "$in"
