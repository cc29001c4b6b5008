# pdtool script's refusals: -F's syntax and fields the events do not
# sample (as perf script refuses them), contradicting options, no input.
f=testdata/fp.perf.data
$PDTOOL script -F bogus $f; echo "exit $?"
$PDTOOL script -F +ip,sym $f; echo "exit $?"
$PDTOOL script -F zz:ip $f; echo "exit $?"
$PDTOOL script -F comm,addr $f; echo "exit $?"
$PDTOOL script -F comm,cpu $f; echo "exit $?"
$PDTOOL script --inline --no-inline $f; echo "exit $?"
$PDTOOL script --cpu x $f; echo "exit $?"
$PDTOOL script --time 5,4 $f; echo "exit $?"
# perf's lists of ranges: blanks between them, in order and apart
$PDTOOL script --time 1,2,3,4 $f; echo "exit $?"
$PDTOOL script --time '3,4 1,2' $f; echo "exit $?"
$PDTOOL script --time 10%/0 $f; echo "exit $?"
$PDTOOL script --time 10%,20% $f; echo "exit $?"
$PDTOOL script testdata/statrec.perf.data; echo "exit $?"
$PDTOOL script -F comm,tid,time --pid 9604 -C 0 $f | head -n 2; echo "exit $?"
# the fields of the registers and of the code between branches need what
# the capture did not record (perf's refusals)
$PDTOOL script -F +iregs $f; echo "exit $?"
$PDTOOL script -F comm,uregs $f; echo "exit $?"
$PDTOOL script -F +brstackinsn $f; echo "exit $?"
