# Usage errors exit 64 and name the problem.
for args in "--colors nope x" "--countname a(b x" "--minwidth -1 x" \
	"--minwidth 5px x" "--width 50 x" "--format png x" "" "a b" \
	"--bogus x"; do
	# shellcheck disable=SC2086
	"$PDTOOL" flame $args
	echo "exit $?"
done
