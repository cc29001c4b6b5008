# Each palette's fills for the same small input: kernel, JIT, inlined,
# [unknown] and user frames under the default palette, then hot, mem, io.
in='p;main;f_[k] 3
p;main;[unknown];jit_[j] 2
p;main;g;h_[i] 1'
for pal in default hot mem io; do
	echo "== $pal"
	printf '%s\n' "$in" | "$PDTOOL" flame --colors $pal - |
		sed -n 's/.*<title>\([^ ]*\) .*fill="\([^"]*\)".*/\1 \2/p'
done
