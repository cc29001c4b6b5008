# pdtool record's usage errors: exit 64 with the reason, before any
# event is opened or any file written
for args in "" "-F 99 -c 1000 -- true" "-p 1 -a" "-m 3 -- true" \
	"--call-graph lbrx -- true" "-F 0 -- true" "--duration x -a" \
	"-z23 -- true" "--bogus -- true" "-k bogus -- true" "--latency -a" \
	"-e {cpu-clock -- true" "-b -j any -- true" "-j any,bogus -- true" \
	"-j any, -- true" "--stat -b -o x -- true" "--stat -s -o x -- true"; do
	# shellcheck disable=SC2086
	"$PDTOOL" record $args
	echo "exit $?"
done
"$PDTOOL" record -e no-such-event -o /nonexistent/x -- true
echo "exit $?"
"$PDTOOL" record -e cpu-clock -p 999999999 -o /nonexistent/x
echo "exit $?"
