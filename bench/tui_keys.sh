#!/usr/bin/env bash
# Run the app in tmux as a person would: time to the first anchored screen, then how long each
# key takes until the screen changes (capture-pane polled every 10 ms).
#   bash bench/tui_keys.sh TREE [--follow]   (--follow: as `npudiag-tui TREE` runs by default)
# NPDBENCH_SRC=DIR runs the package from DIR (a copy of src/ at another commit) for an A/B pair.
set -u
tree=$1
mode=--no-follow
[ "${2:-}" = "--follow" ] && mode=""
here=$(cd "$(dirname "$0")/.." && pwd)
# the bytecode cache current, as an installed package has it (bench/_measure.py warm_bytecode)
"$here/.venv/bin/python" -m compileall -q "${NPDBENCH_SRC:-$here/src}" >/dev/null
session=npudiag-bench-$$
tmux kill-session -t "$session" 2>/dev/null
start=$(date +%s.%N)
src=${NPDBENCH_SRC:+PYTHONPATH=$NPDBENCH_SRC }
tmux new -d -s "$session" -x 160 -y 45 "cd '$here' && ${src}.venv/bin/npudiag-tui $mode '$tree'"
# one tmux client per poll and no other process: the poller shares the machine with the app
for _ in $(seq 1 600); do
  screen=$(tmux capture-pane -p -t "$session" 2>/dev/null)
  if [[ $screen == *"First causal error"* ]]; then
    end=$(date +%s.%N)
    echo "first anchored screen: $(echo "$end - $start" | bc) s (target < 2 s)"
    break
  fi
  read -r -t 0.05 <> <(:) || true
done
sleep 0.5
# up first: the anchor is often a file's last lines, where j and Down change nothing to time
for key in k k Up G a g e E w; do
  before=$(tmux capture-pane -p -e -t "$session" | md5sum)
  s=$(date +%s.%N)
  tmux send-keys -t "$session" "$key"
  for _ in $(seq 1 300); do
    [ "$(tmux capture-pane -p -e -t "$session" | md5sum)" != "$before" ] && break
    sleep 0.01
  done
  e=$(date +%s.%N)
  echo "key $key: $(echo "($e - $s) * 1000" | bc | cut -d. -f1) ms until the screen changed"
done
tmux kill-session -t "$session"
