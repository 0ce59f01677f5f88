#!/usr/bin/env bash
# Key latency during background work, before/after in the same run: alternate two checkouts'
# `tui_keys.sh` on one tree, N rounds; print each side's median and p95 over all key presses
# with the load average (1 min) of the runs.
#   bash bench/ab_keys.sh BEFORE_DIR AFTER_DIR TREE [N]
set -u
before=$1 after=$2 tree=$3 n=${4:-3}
out=$(mktemp)
for i in $(seq 1 "$n"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    load=$(cut -d' ' -f1 /proc/loadavg)
    bash "$dir/bench/tui_keys.sh" "$tree" 2>/dev/null | sed -n 's/^key \(.*\): \([0-9]*\) ms.*/\1 \2/p' |
      while read -r key ms; do echo "$side $key $ms $load" >> "$out"; done
    echo "$side $i done (load $load)"
    sleep 2
  done
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for side in ("before", "after"):
    ms = sorted(int(r[2]) for r in rows if r[0] == side)
    load = [float(r[3]) for r in rows if r[0] == side]
    if not ms:
        print(f"{side}: no key timed"); continue
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    print(f"{side}: keys median {statistics.median(ms):.0f} ms, p95 {p95} ms, max {ms[-1]} ms "
          f"(n={len(ms)}), load {min(load):.1f}-{max(load):.1f}")
PY
rm -f "$out"
