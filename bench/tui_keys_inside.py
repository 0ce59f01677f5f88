"""Key latency right after the anchored screen, seen from inside the app and from outside.

    python bench/tui_keys_inside.py TREE [--rounds 3] [--size 160x45]

Runs `npudiag-tui TREE` (no follow) in tmux at 160x45 and, as soon as the anchored screen shows,
presses the `tui_keys.sh` set (k k Up G a g e E w) `--rounds` times, each key once the screen
changed after the previous one (`--pace MS` waits that long more, as a person reading the screen
would): the background work (the line count, the console channels, the level marks and the merges)
runs meanwhile.

Two figures per key:
- inside: from the moment the app's input thread made the key event to the end of writing the
  first frame after its bound action ran (the app's own part of the latency; the process is
  patched to time it);
- outside: from `tmux send-keys` until `capture-pane -e` shows a changed screen, styles included
  (a cursor move inside the page only recolours two rows; what `tui_keys.sh`
  reports; it adds tmux's own work and the poller, which share the two cores with the app).

Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _measure import warm_bytecode  # noqa: E402

CHILD = textwrap.dedent('''
    import json, os, sys, time
    from npudiag_tui.cli import open_for_tui
    ws = open_for_tui([sys.argv[1]], [], [])
    from textual import events
    from textual.app import App
    from npudiag_tui.tui.app import NpuDiagApp

    out = []
    pending = {}
    keys = []

    class TimedApp(NpuDiagApp):
        # a class made in `python -c` has no source file to find its CSS next to
        CSS_PATH = os.path.join(os.path.dirname(sys.modules[NpuDiagApp.__module__].__file__), "app.tcss")

        async def on_event(self, event):
            if isinstance(event, events.Key) and not event.is_forwarded and event not in keys:
                keys.append(event)  # a key comes back here when it bubbles: count it once
            await super().on_event(event)

    async def _dispatch_action(self, *args, _orig=App._dispatch_action, **kwargs):
        # the focused pane runs a key's action from its own queue, after the app's on_event:
        # the first frame written after the action is the one that shows the key
        result = await _orig(self, *args, **kwargs)
        while keys:
            event = keys.pop()
            pending[id(event)] = (event.key, event.time)
        return result

    def _display(self, screen, renderable, _orig=App._display):
        result = _orig(self, screen, renderable)
        if pending and renderable is not None:
            now = time.monotonic()
            for key, made in pending.values():
                out.append((key, round((now - made) * 1000, 1)))
            pending.clear()
            with open(sys.argv[2], "w") as fh:
                json.dump(out, fh)
        return result

    App._display = _display
    App._dispatch_action = _dispatch_action
    TimedApp(ws, follow=False).run()
''')

# up first: the anchor is often a file's last lines, where j and Down change nothing to time
KEYS = ["k", "k", "Up", "G", "a", "g", "e", "E", "w"]


def _screen(session: str) -> str:
    # with the styles (-e): a cursor move inside the page changes only the colours of two rows
    return subprocess.run(["tmux", "capture-pane", "-p", "-e", "-t", session], capture_output=True, text=True).stdout


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="160x45")
    ap.add_argument("--pace", type=int, default=0,
                    help="ms to wait after the screen changed before the next key (0: at once, as tui_keys.sh)")
    args = ap.parse_args()
    warm_bytecode()
    subprocess.run(["cat"] + [os.path.join(r, f) for r, _, fs in os.walk(args.tree) for f in fs],
                   stdout=subprocess.DEVNULL, check=False)  # warm the page cache like the other runners
    outside: list[tuple[str, float]] = []
    inside: list[tuple[str, float]] = []
    for _ in range(args.rounds):
        log = os.path.join(tempfile.mkdtemp(prefix="npdkeys-"), "keys.json")
        session = f"npdkeys-{os.getpid()}"
        w, h = args.size.split("x")
        cmd = " ".join(shlex.quote(x) for x in [sys.executable, "-c", CHILD, args.tree, log])
        subprocess.run(["tmux", "new", "-d", "-s", session, "-x", w, "-y", h, cmd], check=True)
        try:
            deadline = time.monotonic() + 120
            while "First causal error" not in _screen(session):
                if time.monotonic() > deadline:
                    print("no anchored screen within 120 s", file=sys.stderr)
                    return 1
                time.sleep(0.05)
            time.sleep(0.5)
            for key in KEYS:
                before = _screen(session)
                start = time.monotonic()
                subprocess.run(["tmux", "send-keys", "-t", session, key], check=True)
                while _screen(session) == before and time.monotonic() - start < 3:
                    time.sleep(0.01)
                outside.append((key, round((time.monotonic() - start) * 1000, 1)))
                time.sleep(args.pace / 1000)
            time.sleep(0.5)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL, check=False)
        if os.path.exists(log):
            with open(log) as fh:
                inside.extend((k, ms) for k, ms in json.load(fh))
    for name, got in (("inside (key event -> frame written)", inside), ("outside (send-keys -> screen changed)", outside)):
        ms = [v for _, v in got]
        if not ms:
            print(f"{name}: no keys timed")
            continue
        print(f"{name}: n={len(ms)} median {statistics.median(ms):.0f} ms, p95 {_pct(ms, 0.95):.0f} ms, "
              f"max {max(ms):.0f} ms (target p95 <= 100 ms)")
        print("   " + " ".join(f"{k}={v:.0f}" for k, v in got))
    return 0


if __name__ == "__main__":
    sys.exit(main())
