# Kernel, [unknown], C++ and deep stacks as an icicle graph, coloured by
# name, with a title and subtitle to escape, another count name and a
# minimum width as a share of the samples.
"$PDTOOL" flame --inverted --hash --title 'four <captures> & more' \
	--subtitle "sysw, dwarf, fp, multi" --countname events \
	--minwidth 0.5% --width 1000 --height 18 --fontsize 11 \
	tests/cli/flame/inputs/mixed.folded
