#!/usr/bin/env python3
"""Cluster figures: summary size per node, summary time beside --report json, merge scale.

    python bench/run_cluster.py [--tree /tmp/npudiag-1g] [--work /tmp/npdbench-cluster] [--sizes 10,100,1000]

1. Generates 16 node trees of 8 ranks (bench/gen_cluster.py) and prints each node's summary size.
2. On TREE (the 1 GB bench tree, if present): `--report summary` wall time beside `--report json`
   (best of two each, warm cache), and the summary's size. Target: ratio <= 1.2, size <= 64 KB.
3. Builds 10, 100, 1,000 synthetic node summaries from the generated ones (the victim nodes'
   summaries renumbered with a rank base, the root node's once) and times `--cluster DIR
   --report json` with its peak RSS. Target: 1,000 nodes in <= 5 s and <= 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _measure import MB, run_measured, tree_files, warm  # noqa: E402
from gen_cluster import generate_cluster  # noqa: E402

CLI = [sys.executable, "-m", "npudiag_tui"]


def renumbered(s: dict, node: str, shift: int, world: int) -> dict:
    """A copy of a node summary for another node: every rank moved by `shift`."""
    raw = json.dumps(s)
    out = json.loads(raw)
    out["node"], out["world_size"] = node, world

    def move(d: dict, *keys: str) -> None:
        for k in keys:
            if isinstance(d.get(k), int):
                d[k] += shift

    for row in out["ranks"]:
        move(row, "rank")
    for p in out["processes"]:
        move(p, "rank")
    for t in out["timeouts"]:
        move(t, "rank")
    for b in out["heartbeats"]:
        move(b, "informer_rank")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default="/tmp/npudiag-1g")
    ap.add_argument("--work", default="/tmp/npdbench-cluster")
    ap.add_argument("--sizes", default="10,100,1000")
    a = ap.parse_args(argv)
    shutil.rmtree(a.work, ignore_errors=True)
    logs, sums = os.path.join(a.work, "logs"), os.path.join(a.work, "summaries")
    os.makedirs(sums)
    info = generate_cluster(logs, nodes=16, per_node=8, size_per_node=4 * MB)
    print("1. summary size per node (16 nodes x 8 ranks, 4 MB of logs each)")
    base: dict[str, dict] = {}
    for n in info["nodes"]:
        r = run_measured(CLI + [os.path.join(logs, n["node"]), "--report", "summary", "--node", n["node"]])
        if r["rc"] != 0:
            print(f"   {n['node']}: failed ({r['code']})")
            continue
        base[n["node"]] = json.loads(r["stdout"])
        print(f"   {n['node']}: {len(r['stdout'].encode()):6d} bytes, {r['wall']:.2f} s")

    if os.path.isdir(a.tree):
        print(f"2. summary beside --report json on {a.tree}")
        warm(tree_files(a.tree))
        best = {}
        for mode in ("json", "summary", "json", "summary"):
            r = run_measured(CLI + [a.tree, "--report", mode])
            best[mode] = min(best.get(mode, 1e9), r["wall"])
            if mode == "summary":
                size = len(r["stdout"].encode())
        print(f"   --report json {best['json']:.2f} s, --report summary {best['summary']:.2f} s, "
              f"ratio {best['summary'] / best['json']:.2f} (target <= 1.2); summary {size} bytes (<= 65536)")
    else:
        print(f"2. skipped: no tree at {a.tree} (python bench/gen_tree.py {a.tree} --size 1G)")

    print("3. merge of synthetic node summaries")
    root_node = info["root_node"]
    victims = [s for name, s in base.items() if name != root_node]
    per_node = 8
    for n in (int(x) for x in a.sizes.split(",")):
        d = os.path.join(a.work, f"merge-{n}")
        os.makedirs(d)
        world = n * per_node
        for k in range(n):
            if k == n // 2 and root_node in base:
                s = renumbered(base[root_node], f"synth-{k:04d}", (k - int(root_node.split("-")[1])) * per_node, world)
            else:
                src = victims[k % len(victims)]
                s = renumbered(src, f"synth-{k:04d}", k * per_node - src["ranks"][0]["rank"], world)
            with open(os.path.join(d, f"synth-{k:04d}.json"), "w", encoding="utf-8") as fh:
                json.dump(s, fh, separators=(",", ":"))
        r = run_measured(CLI + ["--cluster", d, "--report", "json"])
        v = json.loads(r["stdout"]) if r["rc"] == 0 else {}
        root = v.get("root") or {}
        print(f"   {n:5d} nodes ({world} ranks): {r['wall']:.2f} s, peak {r['rss'] / MB:.0f} MB; "
              f"root rank {root.get('rank')} on {root.get('node')}, {v.get('roles')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
