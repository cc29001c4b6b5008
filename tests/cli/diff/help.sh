"$PDTOOL" diff --help
