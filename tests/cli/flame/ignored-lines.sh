# Lines that are not "stack count" are ignored and counted; blank lines
# and zero counts are not an error.
printf 'a;b 2\nnot a folded line\n\na;c 0\na;b x\r\nc 1' |
	"$PDTOOL" flame --format speedscope -
