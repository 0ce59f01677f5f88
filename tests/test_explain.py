"""The anchor explains itself (issue #9 item 4): why, confidence and the candidates that lost.

Unit tests build small event lists by hand (the relations the engine would have set), each
positive case next to a look-alike that must come out differently; the contract tests run the
real CLI over every fixture.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npudiag_tui.cli import main
from npudiag_tui.core.diagnosis.explain import CLOSE_S, explain, span
from npudiag_tui.core.model import ErrorEvent, Level, LineRef, RankRole, Stream

US = 1_000_000
T0 = 1_773_000_000 * US
ROOT = Path(__file__).resolve().parents[1]


def ev(line: int, kind: str, text: str, *, rank: int | None = 3, t: float | None = 0.0, codes=(), module=None,
       secondary=None, stream=Stream.STDOUT, inherited=False, level=Level.ERROR, file_id=0, **attrs) -> ErrorEvent:
    e = ErrorEvent(ref=LineRef(file_id, line), source_id=file_id, stream=stream, text=text, level=level,
                   time=None if t is None else T0 + int(t * US), time_inherited=inherited, kind=kind,
                   codes=list(codes), module=module, rank=rank, lines=[LineRef(file_id, line)], detail=text,
                   secondary=secondary)
    for name, value in attrs.items():
        setattr(e, name, value)
    return e


def root_case(extra: list[ErrorEvent] = ()) -> tuple[list[ErrorEvent], ErrorEvent, list[RankRole]]:
    """Rank 3 rejects an operator (EZ1001); its torch_npu wrappers follow; rank 1 times out."""
    anchor = ev(10, "cann_detail", "EZ1001: [PID: 42] 2026-03-11-07:22:41.498.770 aclnnSwiGlu input dtype invalid",
                codes=["EZ1001"])
    anchor.code = "EZ1001"
    events = [
        anchor,
        ev(5, "wrapper", "RuntimeError: call aclnnSwiGlu failed, error code is 161002", t=0.5, secondary="wrapper"),
        ev(6, "wrapper", "[ERROR] 2026-03-11-07:22:42 (PID:42, Device:3, RankID:3) ERR01100 OPS call acl api failed",
           t=0.5, secondary="wrapper"),
        ev(40, "timeout", "[rank1]: EI0002: [PID: 201] The wait execution of the Notify register times out.", rank=1,
           t=1800,
           codes=["EI0002"], secondary="timeout_victim", file_id=1),
        *extra,
    ]
    events.sort(key=lambda e: (e.time is None, e.time or 0))
    return events, anchor, [RankRole(1, T0 + 1800 * US, "victim"), RankRole(3, T0, "root")]


def test_specific_anchor_with_wrappers_and_victims_is_high():
    events, anchor, ranks = root_case()
    ex = explain(events, anchor, ranks)
    assert ex.confidence == "high"
    assert ex.why.startswith("earliest CANN error detail (EZ1001) of rank 3")
    assert "ERR01100 header" in ex.why and "aclnnSwiGlu exception" in ex.why and "wrappers" in ex.why
    assert "rank 1 fails only after it" in ex.why
    why_not = {c.event.ref.line: c.why_not for c in ex.candidates}
    assert why_not[40].startswith("timeout victim of rank 3")
    assert "wrapper of the anchor" in why_not.values()


def test_a_different_error_close_by_on_another_rank_drops_confidence():
    rival = ev(50, "cann_detail", "EZ0001: [PID: 77] an unrelated tiling failure in MatMul", rank=5, t=1.2,
               codes=["EZ0001"], secondary="consequence", file_id=2)
    events, anchor, ranks = root_case([rival])
    ex = explain(events, anchor, ranks)
    assert ex.confidence == "medium"
    assert "rank 5" in ex.reason
    assert any(c.event is rival for c in ex.candidates)


def test_the_same_error_on_another_rank_agrees_and_keeps_confidence():
    same = ev(50, "cann_detail", "EZ1001: [PID: 77] 2026-03-11-07:22:41.499.000 aclnnSwiGlu input dtype invalid",
              rank=5, t=0.001, codes=["EZ1001"], secondary="consequence", file_id=2)
    events, anchor, ranks = root_case([same])
    ex = explain(events, anchor, ranks)
    assert ex.confidence == "high"
    assert [c.why_not for c in ex.candidates if c.event is same] == ["same error on rank 5, later (+1 ms)"]


def test_a_rival_far_away_in_time_is_no_competitor():
    rival = ev(50, "cann_detail", "EZ0001: an unrelated tiling failure", rank=5, t=CLOSE_S * 4, codes=["EZ0001"],
               secondary="consequence", file_id=2)
    events, anchor, ranks = root_case([rival])
    assert explain(events, anchor, ranks).confidence == "high"


def test_inherited_time_makes_the_order_an_estimate():
    events, anchor, ranks = root_case()
    anchor.time_inherited = True
    ex = explain(events, anchor, ranks)
    assert ex.confidence == "medium" and "inherited" in ex.reason


def test_timeout_anchor_low_without_suspect_medium_with_one():
    a = ev(1, "timeout", "EI0002: The wait execution of the Notify register times out.", rank=0, codes=["EI0002"])
    other = ev(2, "timeout", "EI0002: The wait execution of the Notify register times out.", rank=1, t=0.01,
               codes=["EI0002"], secondary="timeout_victim", file_id=1)
    ranks = [RankRole(0, T0, "victim"), RankRole(1, T0, "victim")]
    low = explain([a, other], a, ranks)
    assert low.confidence == "low" and "no rank stands out" in low.why
    a.suspect_rank = 4
    medium = explain([a, other], a, ranks + [RankRole(4, None, "root")])
    assert medium.confidence == "medium" and "point at rank 4" in medium.why


def test_generic_error_line_without_code_is_low():
    a = ev(1, "log_error", "ERROR worker failed", rank=None)
    ex = explain([a], a, [])
    assert ex.confidence == "low" and ex.candidates == []
    # look-alike: an explicit ERROR of a named CANN module is specific
    b = ev(1, "plog", "[ERROR] HCCP(3285,hccp_service.bin):... error cqe found", rank=None, module="HCCP",
           stream=Stream.DEVICE)
    assert explain([b], b, []).confidence == "high"


def test_stale_benign_and_repeats_are_named_and_deduplicated():
    stale = ev(2, "cann_detail", "EZ3002: an old failure of the same process", t=-7300, codes=["EZ3002"], stale=True,
               stream=Stream.PLOG, file_id=3)
    noise = [ev(1, "benign", f"[ERROR] ATRACE({100 + r},python):2026-03-11-06:48:15.476.356 open file failed",
                rank=r, t=-9000 + r, module="ATRACE", stream=Stream.PLOG, file_id=10 + r) for r in range(8)]
    victims = [ev(60 + r, "timeout", f"[rank{r}]: EI0002: [PID: {200 + r}] The wait execution of the Notify register "
                  "times out.", rank=r, t=1800 + r / 1000, codes=["EI0002"], secondary="timeout_victim", file_id=1)
               for r in (0, 1, 2, 4, 5, 6, 7)]
    events, anchor, ranks = root_case([stale, *noise, *victims])
    ex = explain(events, anchor, ranks + [RankRole(r, None, "victim") for r in (0, 2, 4, 5, 6, 7)])
    texts = [c.why_not for c in ex.candidates]
    assert len(ex.candidates) <= 5
    assert "stale by 2 h (an earlier episode)" in texts
    assert any(t.startswith("benign noise (ATRACE)") for t in texts)
    timeouts = [t for t in texts if t.startswith("timeout victim of rank 3")]
    assert len(timeouts) == 1 and "(same on 7 ranks)" in timeouts[0]  # one line for seven ranks
    assert len({c.event.ref for c in ex.candidates}) == len(ex.candidates)


def test_no_anchor_explains_nothing():
    ex = explain([], None, [])
    assert (ex.why, ex.confidence, ex.candidates) == ("", None, [])


def test_span_reads_like_a_person():
    assert [span(x) for x in (21, 1500, 812_000, 1_300_000, 72 * US, 1800 * US, 7300 * US)] == \
        ["21 µs", "1.5 ms", "812 ms", "1.3 s", "72 s", "30 min", "2 h"]


SCENARIOS = sorted(p.parent for p in (ROOT / "fixtures").glob("*/expected.json")) + [ROOT / "src" / "npudiag_tui" / "demo"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_json_contract_why_confidence_candidates(scenario: Path, capsys):
    assert main(["--report", "json", str(scenario)]) == 0
    report = json.loads(capsys.readouterr().out)
    anchor = report["anchor"]
    assert anchor is not None
    assert isinstance(anchor["why"], str) and anchor["why"]
    assert anchor["confidence"] in ("high", "medium", "low")
    assert isinstance(report["candidates"], list) and len(report["candidates"]) <= 5
    keys = {"stream", "path", "line", "time", "rank", "text", "line_bytes", "why_not"}  # + path_bytes: odd names
    seen = set()
    for c in report["candidates"]:
        assert set(c) == keys and c["why_not"]
        assert (c["path"], c["line"]) != (anchor["path"], anchor["line"])
        assert (c["path"], c["line"]) not in seen
        seen.add((c["path"], c["line"]))
        path = scenario / c["path"]
        if path.exists():
            raw = path.read_bytes().split(b"\n")[c["line"] - 1].rstrip(b"\r")
            assert raw.decode("utf-8", "replace") == c["text"]  # the exact line, 1-based


def test_no_error_keeps_keys(tmp_path: Path, capsys):
    (tmp_path / "train.log").write_text("step 1 loss 2.0\nstep 2 loss 1.9\n")
    assert main(["--report", "json", "--stdout", str(tmp_path / "train.log")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["anchor"] is None and report["candidates"] == []


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_low_confidence_is_the_first_line(tmp_path: Path, capsys, fmt: str):
    log = tmp_path / "train.log"
    log.write_text("step 1 loss 2.0\nERROR something [bold]failed[/bold] `x` | y\n")
    assert main(["--report", fmt, "--stdout", str(log)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "Low confidence:" in first
    assert "Why this line" in out
    if fmt == "markdown":
        assert "`ERROR something [bold]failed[/bold] `x` | y`" not in out  # log text fenced, not broken


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_confident_reports_do_not_start_with_a_warning(capsys, fmt: str):
    assert main(["--report", fmt, str(ROOT / "fixtures" / "hccl-notify-wait-cascade")]) == 0
    out = capsys.readouterr().out
    assert not out.startswith("Low confidence") and not out.startswith("**Low confidence")
    assert "Why this line" in out and "Candidates that lost" in out and "timeout victim of rank 5" in out
