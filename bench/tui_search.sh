#!/usr/bin/env bash
# Outside view of a search across all panes of a big tree: launch in tmux, wait for the anchored
# screen, type `/TERM` Enter, and time (a) until the status bar shows the search's progress,
# (b) until it shows the result (`hit k/N` or `N hits`). With NPDBENCH_KEYS=1, `j` every 0.3 s
# meanwhile, timed until the screen changes, is the key latency during that background work (each
# key pauses the workers for 0.3 s, app._should_stop: the search then takes longer).
#   bash bench/tui_search.sh TREE [TERM]   (TERM default: aicore, in the plog, device and console)
set -u
tree=$1
term=${2:-aicore}
here=$(cd "$(dirname "$0")/.." && pwd)
session=npudiag-search-$$
ms() { echo "($2 - $1) * 1000" | bc | cut -d. -f1; }
start=$(date +%s.%N)
tmux new -d -s "$session" -x 160 -y 45 "cd '$here' && .venv/bin/npudiag-tui --no-follow '$tree'"
for _ in $(seq 1 1200); do
  [[ $(tmux capture-pane -p -t "$session" 2>/dev/null) == *"First causal error"* ]] && break
  read -r -t 0.02 <> <(:) || true
done
echo "first anchored screen: $(echo "$(date +%s.%N) - $start" | bc) s   load: $(cut -d' ' -f1 /proc/loadavg)"
sleep 0.5
for _ in $(seq 1 500); do  # `/` until the search box shows (a key sent too early may be lost)
  tmux send-keys -t "$session" /
  for _ in $(seq 1 50); do
    [[ $(tmux capture-pane -p -t "$session") == *"enter to find"* ]] && break 2
    sleep 0.02
  done
done
tmux send-keys -t "$session" "$term"
sleep 0.2
s=$(date +%s.%N)
tmux send-keys -t "$session" Enter
progress="" done_="" keys=() last_key=$s
for _ in $(seq 1 6000); do
  screen=$(tmux capture-pane -p -t "$session")
  now=$(date +%s.%N)
  if [ -z "$progress" ] && [[ $screen == *"searching /$term"* ]]; then
    progress=$(ms "$s" "$now"); echo "progress shown after $progress ms: $(printf '%s\n' "$screen" | grep -o "searching /$term[^│]*" | head -1)"
  fi
  if [[ $screen == *" hits"* || $screen =~ hit\ [0-9]+/ ]]; then
    done_=$(ms "$s" "$now"); echo "search done after $done_ ms: $(printf '%s\n' "$screen" | grep -oE 'hit [0-9]+/[0-9,]+|[0-9,]+ hits' | head -1)"
    break
  fi
  if [ "${NPDBENCH_KEYS:-0}" = 1 ] && [ "$(ms "$last_key" "$now")" -ge 300 ]; then  # a key during the search, timed to the change
    before=$(printf '%s' "$screen" | md5sum); k0=$(date +%s.%N)
    tmux send-keys -t "$session" j
    for _ in $(seq 1 300); do
      [ "$(tmux capture-pane -p -t "$session" | md5sum)" != "$before" ] && break
      sleep 0.01
    done
    keys+=("$(ms "$k0" "$(date +%s.%N)")"); last_key=$(date +%s.%N)
  fi
  sleep 0.01
done
[ -z "$progress" ] && echo "progress: never seen"
[ -z "$done_" ] && echo "search: no result within the deadline"
echo "keys during the search (ms until the screen changed): ${keys[*]:-none}"
tmux kill-session -t "$session"
