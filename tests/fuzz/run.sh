#!/bin/sh
# Runs each fuzz harness for N seconds (default 60) on a scratch copy of its
# corpus; new inputs that found new paths are kept in tests/fuzz/corpus-new/.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
for f in build/fuzz/fuzz_*; do
	name=${f##*/fuzz_}
	work=tests/fuzz/corpus-new/$name
	mkdir -p "$work"
	echo "fuzz $name: $secs s"
	"$f" -max_total_time="$secs" -max_len=8192 -timeout=5 -print_final_stats=1 \
		-artifact_prefix=tests/fuzz/crash- "$work" "tests/fuzz/corpus/$name" 2>&1 |
		grep -E '^(stat::number_of_executed_units|stat::peak_rss|==.*ERROR|SUMMARY)' || true
done
ls tests/fuzz/crash-* 2>/dev/null && { echo "crashes found"; exit 1; }
echo "no crashes"
