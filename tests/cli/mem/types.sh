# pdtool mem -T: the data type and member each memory sample's
# instruction accesses, by data source level (perf mem report -T's mem
# and type keys), with the data address checking DWARF's answer.
#
# testdata/dtypes-mem-aarch64 (dtypes.md) holds memory samples at chosen
# loads and stores of bin/dtypes-aarch64 with their data addresses
# (dtypes-mem-aarch64.samples); the source's markers say what each
# instruction accesses (tests/unit/check_datatype.c holds the module to
# them), so the rows are known: count()'s accesses are to the global
# `stats` (struct counters): hits 5 + 1 loads and 2 stores, 7 of them at
# an address in stats ("in var") and 1 the spec put in completed.0
# ("elsewhere"); misses 3 + 2, last.y 3 stores; walk_list's p->val 6 and
# p->next 4, nested's o->in.pt.y 2, through pointers to stack addresses
# (no symbol: neither column).
B="--buildid-dir testdata/buildid"
"$PDTOOL" mem $B -T --view type testdata/dtypes-mem-aarch64.perf.data
echo "exit $?"
"$PDTOOL" mem $B --view type --format csv \
	testdata/dtypes-mem-aarch64.perf.data; echo "exit $?"
# SPE's synthesized samples: their instructions typed as any sample's
"$PDTOOL" mem $B --view type --format md testdata/spe/n1.perf.data
echo "exit $?"
# the type view needs a data source too
"$PDTOOL" mem $B -T testdata/dtypes-aarch64.perf.data; echo "exit $?"
