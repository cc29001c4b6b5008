#!/usr/bin/env python3
"""unwind_gen.py N OUT: a C++ file for bench/unwind.sh to compile under
`perf record --call-graph dwarf`.

It includes every standard header (<bits/stdc++.h>) and has N functions,
each instantiating maps, unordered maps, sets, regexes, variants,
std::function, shared pointers, sorts and streams over a key type of its
own (K<i>), so that g++ -O2 spends its time deep in template
instantiation, inlining and the optimizers: deep, varied stacks in a
large binary (cc1plus), with libc and libstdc++ under them.
"""
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    lines = [
        "#include <bits/stdc++.h>",
        "template <int N> struct K {",
        "\tint v;",
        "\tbool operator<(const K &o) const { return v < o.v; }",
        "\tbool operator==(const K &o) const { return v == o.v; }",
        "};",
        "template <int N> struct std::hash<K<N>> {",
        "\tsize_t operator()(const K<N> &k) const",
        "\t{",
        "\t\treturn std::hash<int>()(k.v * N);",
        "\t}",
        "};",
    ]
    for i in range(n):
        lines.append(f"""
int f{i}(const std::string &s)
{{
	std::map<K<{i}>, std::vector<std::string>> m;
	std::unordered_map<K<{i}>, std::set<double>> u;
	std::regex re("([a-z]+)[0-9]{{{i % 5 + 1}}}");
	std::vector<std::tuple<K<{i}>, std::string, double>> v;
	for (int j = 0; j < (int)s.size(); j++) {{
		m[K<{i}>{{j}}].push_back(s.substr(j));
		u[K<{i}>{{j}}].insert(j * 0.5);
		v.emplace_back(K<{i}>{{j}}, s, j);
	}}
	std::sort(v.begin(), v.end(), [](auto &a, auto &b) {{
		return std::get<1>(a) < std::get<1>(b);
	}});
	std::variant<int, std::string, K<{i}>> var = K<{i}>{{3}};
	std::function<int(int)> fn = [&](int x) {{ return x + (int)m.size(); }};
	auto p = std::make_shared<std::deque<K<{i}>>>();
	std::smatch sm;
	std::regex_search(s, sm, re);
	std::ostringstream os;
	os << std::quoted(s) << std::setw(8) << {i};
	return fn((int)v.size()) + (int)u.size() + (int)sm.size() +
	       (int)os.str().size() + (int)var.index() + (int)p->size();
}}""")
    calls = " + ".join(f"f{i}(s)" for i in range(n))
    lines.append(f"""
int main(int argc, char **argv)
{{
	std::string s(argv[0]);

	(void)argc;
	return {calls};
}}""")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
