#!/usr/bin/env bash
# Before/after in the same run: alternate two checkouts' `tui_merge.sh` on one tree, N rounds,
# and print the medians with the load average (1 min) of each run.
#   bash bench/ab_tui.sh BEFORE_DIR AFTER_DIR TREE [N]
# Each DIR is a checkout with its own .venv/bin/npudiag-tui (a wrapper script will do). The
# alternation puts both sides under the same background load; read the ratio, not the seconds.
set -u
before=$1 after=$2 tree=$3 n=${4:-5}
out=$(mktemp)
for i in $(seq 1 "$n"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    load=$(cut -d' ' -f1 /proc/loadavg)
    res=$(bash "$dir/bench/tui_merge.sh" "$tree" 2>/dev/null)
    first=$(printf '%s\n' "$res" | sed -n 's/^first anchored screen: \([0-9.]*\) s.*/\1/p')
    m=$(printf '%s\n' "$res" | sed -n 's/^m -> time-ordered merged screen: \([0-9]*\) ms.*/\1/p')
    echo "$side $i first=${first:-NA}s m=${m:-NA}ms load=$load"
    echo "$side ${first:-nan} ${m:-nan} $load" >> "$out"
    sleep 2
  done
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for side in ("before", "after"):
    got = [r for r in rows if r[0] == side]
    first = [float(r[1]) for r in got if r[1] != "nan"]
    m = [float(r[2]) for r in got if r[2] != "nan"]
    load = [float(r[3]) for r in got]
    med = lambda xs: f"{statistics.median(xs):.2f}" if xs else "NA"
    print(f"{side}: first anchored screen median {med(first)} s ({min(first, default=0):.2f}-{max(first, default=0):.2f}, n={len(first)}), "
          f"m median {med(m)} ms, load {min(load):.1f}-{max(load):.1f}")
PY
rm -f "$out"
