# pdtool types's formats on the data-type test program's capture
# (testdata/dtypes.md): the binary is found by basename and build-id
# under testdata/bin; json, md and csv, one type by the operand, and
# --cacheline in each.
f="--search-path testdata/bin --no-pager"
$PDTOOL types $f --format json testdata/dtypes.perf.data
$PDTOOL types $f --format md testdata/dtypes.perf.data
$PDTOOL types $f --format csv testdata/dtypes.perf.data
$PDTOOL types $f --format csv --cacheline testdata/dtypes.perf.data
$PDTOOL types $f --stdio --cacheline testdata/dtypes.perf.data node
$PDTOOL types $f --format md --cacheline testdata/dtypes.perf.data 'struct outer'
$PDTOOL types $f --format json --cacheline -i testdata/dtypes.perf.data outer
