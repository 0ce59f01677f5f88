#!/usr/bin/env bash
# Outside view of the merged timeline: launch in tmux, wait for the anchored screen, press `m`
# and time until the merged pane is on screen with its rows' clocks in time order.
#   bash bench/tui_merge.sh TREE
set -u
tree=$1
here=$(cd "$(dirname "$0")/.." && pwd)
session=npudiag-merge-$$
start=$(date +%s.%N)
tmux new -d -s "$session" -x 160 -y 45 "cd '$here' && .venv/bin/npudiag-tui --no-follow '$tree'"
for _ in $(seq 1 1200); do
  [[ $(tmux capture-pane -p -t "$session" 2>/dev/null) == *"First causal error"* ]] && break
  read -r -t 0.02 <> <(:) || true
done
echo "first anchored screen: $(echo "$(date +%s.%N) - $start" | bc) s"
sleep 0.3
s=$(date +%s.%N)
tmux send-keys -t "$session" m
for _ in $(seq 1 3000); do
  screen=$(tmux capture-pane -p -t "$session")
  if [[ $screen == *"merged timeline"* ]]; then
    # clocks of the merged rows (HH:MM:SS.ffffff after the stream/rank column), in order?
    clocks=$(printf '%s\n' "$screen" | grep -oE '^.[PDC][0-9 ]{3} +~?[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3,6}' | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3,6}')
    if [ -n "$clocks" ] && [ "$clocks" = "$(printf '%s\n' "$clocks" | sort)" ]; then
      echo "m -> time-ordered merged screen: $(echo "($(date +%s.%N) - $s) * 1000" | bc | cut -d. -f1) ms ($(printf '%s\n' "$clocks" | wc -l) rows)"
      break
    fi
  fi
  sleep 0.005
done
tmux kill-session -t "$session"
