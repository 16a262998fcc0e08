# Sourced by the benches that summarise rounds of a shell loop (launch.sh,
# cli_filter.sh, defer.sh): numbers one per line on stdin.
# shellcheck shell=bash
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The lowest and highest order statistics that bound the median with at
# least 95 % confidence, whatever the distribution: the largest k with
# P(Binomial(n, 1/2) < k) <= 0.025 gives [v(k), v(n + 1 - k)]; "none none"
# when n is too small for any.
median_ci() {
	sort -n | awk '{ v[NR] = $1 } END {
		n = NR; p = 0.5 ^ n; cdf = 0; k = 0
		for (i = 0; i < n && cdf + p <= 0.025; i++) { cdf += p; p = p * (n - i) / (i + 1); k = i + 1 }
		if (k < 1) { print "none none"; exit }
		print v[k], v[n + 1 - k] }'
}
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }	# microseconds as ms
