# --help prints the usage, summary and options (the man page's SYNOPSIS).
"$PDTOOL" flame --help
