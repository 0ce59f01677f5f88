"""Whether a node's logs can be opened here: a folder of the same name is not proof (every node
keeps ~/ascend/log), a quoted line found unchanged at its place is."""

from __future__ import annotations

from pathlib import Path

from npudiag_tui.core.node_logs import locate


def summary(node: str, root: Path, line: int = 3, text: str = "[ERROR] aicore exception…") -> dict:
    e = {"time": "2026-03-11T07:00:00.000000", "path": "debug/plog/p.log", "line": line, "text": text}
    return {"node": node, "inputs": {"roots": [str(root)]}, "anchor": None,
            "processes": [{"rank": 0, "first_error": e, "causal": [e]}], "timeouts": []}


def plog(root: Path, lines: list[str]) -> None:
    (root / "debug" / "plog").mkdir(parents=True)
    (root / "debug" / "plog" / "p.log").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_quoted_line_found_at_its_place_means_shared_storage(tmp_path):
    plog(tmp_path, ["a", "b", "[ERROR] aicore exception, core 12", "d"])
    got = locate(summary("node-7", tmp_path), host="elsewhere")
    assert got.reachable and got.paths == [str(tmp_path)] and "p.log:3 matches" in got.why


def test_a_folder_of_the_same_name_with_other_logs_is_not_the_node(tmp_path):
    plog(tmp_path, ["a", "b", "[INFO] this machine's own run", "d"])
    got = locate(summary("node-7", tmp_path), host="elsewhere")
    assert not got.reachable and "holds other logs than node-7's" in got.why


def test_a_folder_that_is_not_here(tmp_path):
    got = locate(summary("node-7", tmp_path / "gone"), host="elsewhere")
    assert not got.reachable and "(on node-7) is not reachable from this machine" in got.why


def test_this_machine_is_the_node(tmp_path):
    tmp_path.joinpath("x.log").write_text("x\n", encoding="utf-8")
    got = locate(summary("node-7", tmp_path), host="node-7")
    assert got.reachable and "this machine is node-7" in got.why


def test_nothing_quoted_cannot_be_told(tmp_path):
    s = summary("node-7", tmp_path)
    s["processes"] = []
    got = locate(s, host="elsewhere")
    assert not got.reachable and "quotes no line" in got.why
