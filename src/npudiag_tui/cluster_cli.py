"""`--cluster`: merge node summaries (files, folders, or a Ray run) and print or show the verdict.

Kept apart from cli.py so that the single-machine command line stays small; the merge itself is
`core/cluster.py`, the Ray run `ray_run.py` (imported only with --ray).
"""

from __future__ import annotations

import argparse
import sys

from npudiag_tui.core.formats.text import visible


def _say(msg: str) -> None:
    print(f"npudiag-tui: {visible(msg)}", file=sys.stderr)


def run_cluster(args: argparse.Namespace) -> int:
    from npudiag_tui.core.cluster import merge, read_summaries

    missing: list[tuple[str, str]] = []
    if args.ray is not None:
        from npudiag_tui.ray_run import RayUnavailable, gather

        if not args.logs:
            _say("--ray needs --logs PATH (the log folder to summarise on every node)")
            return 2
        try:
            summaries, missing = gather(args.ray, args.logs, save=args.save, registry=args.registry,
                                        progress=_say)
        except RayUnavailable as exc:
            _say(str(exc))
            return 2
        problems: list[str] = []
        if args.paths:
            more, problems = read_summaries(args.paths)
            summaries += more
    else:
        if not args.paths:
            _say("--cluster needs summary files or folders (or --ray --logs PATH)")
            return 2
        summaries, problems = read_summaries(args.paths)
    for p in problems:
        _say(p)
    for node, why in missing:
        _say(f"node {node}: {why}")
    if not summaries:
        _say("no node summary could be read")
        return 2
    verdict = merge(summaries, missing, problems)
    if args.report is None:
        try:
            from npudiag_tui.tui.cluster.app import run_cluster_tui
        except ImportError:
            args.report = "text"
        else:
            return run_cluster_tui(verdict, summaries)
    from npudiag_tui import cluster_report

    if args.report == "json":
        out = cluster_report.render_cluster_json(verdict)
    elif args.report == "markdown":
        out = cluster_report.render_cluster_markdown(verdict)
    elif args.report == "text":
        out = cluster_report.render_cluster_text(verdict)
    else:
        _say(f"--report {args.report} does not apply to --cluster (use text, markdown or json)")
        return 2
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
