# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Instructions per operation by function of <infiniband/mlx4dv.h> and its
# parts (<infiniband/mlx4dv/*.h>).
#
# usage: awk -v ops=N -f header-costs.awk HEADER... ANNOTATION
#   HEADER      the umbrella and each part as the program was built, each
#               named by a path that ends in infiniband/mlx4dv.h or
#               infiniband/mlx4dv/PART.h
#   ANNOTATION  callgrind_annotate --auto=yes --context=1 output of one dump
#               (the last argument)
#
# The data path is inlined into the measured loop, so callgrind charges
# every instruction to a line of the header. Each line is given to the
# function whose body holds it (a function starts at a column-0 line that
# names mlx4dv_*( and opens with a column-0 brace); the result is the
# self cost of every header function, per operation.

# the header file a path names: "infiniband/mlx4dv.h" or
# "infiniband/mlx4dv/PART.h", "" for any other file
function header_key(path) {
	if (match(path, /infiniband\/mlx4dv(\/[a-z0-9_]+)?\.h$/))
		return substr(path, RSTART)
	return ""
}

BEGIN { annotation = ARGV[ARGC - 1] }

# pass 1: the function each header line belongs to
FILENAME != annotation {
	if (FNR == 1) {
		key = header_key(FILENAME)
		cand = ""; cur = ""
	}
	if ($0 ~ /^[A-Za-z_]/ && $0 ~ /mlx4dv_[a-z0-9_]+\(/ && $0 !~ /;[ \t]*$/) {
		match($0, /mlx4dv_[a-z0-9_]+\(/)
		cand = substr($0, RSTART, RLENGTH - 1)
	}
	if ($0 ~ /^\{/)
		cur = cand
	if (cur != "")
		fn[key, FNR] = cur
	if ($0 ~ /^\}/)
		cur = ""
	next
}

# pass 2: the annotated header; "-- line N ---" says the next line is N
/^-- Auto-annotated source: / {
	file = header_key($4)
	in_hdr = (file != ""); line = 0; next
}
in_hdr && /^-- line [0-9]+ / { line = $3; next }
in_hdr && /^-----/ && line > 0 { in_hdr = 0; next }
in_hdr && line > 0 {
	if (match($0, /^ *[0-9][0-9,]* /)) {
		v = substr($0, RSTART, RLENGTH)
		gsub(/[ ,]/, "", v)
		f = ((file, line) in fn) ? fn[file, line] : "(outside any function)"
		cost[f] += v
		total += v
	}
	line++
}

END {
	for (f in cost)
		printf "%9.1f  %s\n", cost[f] / ops, f | "sort -rn"
	close("sort -rn")
	printf "%9.1f  total in the header\n", total / ops
}
