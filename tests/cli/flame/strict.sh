# --strict: ignored lines make the exit status 1 (the output is written).
printf 'a;b 2\nbad\n' | "$PDTOOL" flame --strict --format speedscope -
