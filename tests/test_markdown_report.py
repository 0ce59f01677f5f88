"""The Markdown report people paste into GitHub and Gitee threads (issue 15), the terminal
report and the --help text.

The report is parsed, not compared with a frozen copy: with markdown-it-py (CommonMark + GFM
tables, what Textual brings) and, when installed, cmarkgfm (GitHub's own renderer). Hostile log
text and file names carry the sentinel `ZZ` next to Markdown, HTML, pipes, backticks and
control characters; every sentinel must end up inside a code span or a code block.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from npudiag_tui.cli import HELP_EPILOG, build_parser, main
from npudiag_tui.core.formats.text import CONTROL_RE, visible
from npudiag_tui.mdtext import code_span, details, escape, fence, prose, table

ROOT = Path(__file__).resolve().parents[1]
MULTI_RANK = ROOT / "fixtures" / "hccl-notify-wait-cascade"
SINGLE = ROOT / "fixtures" / "aclnn-param-error"

GFM = MarkdownIt("gfm-like")
STRICT = MarkdownIt("commonmark").enable(["table", "strikethrough"])  # no linkify: text stays text

HOSTILE = ("**ZZb** <b>ZZh</b> __ZZu__ `ZZt` a|ZZp ``` ZZf [ZZl](http://e.x) </details>ZZd <!--ZZc "
           "\x1b[2JZZe | # ZZg \\|ZZk ~~ZZs~~")
HOSTILE_NAME = "train |`ZZn`| **ZZm** <i>.log"


def hostile_tree(tmp_path: Path) -> Path:
    """A two-rank console log whose every error line carries HOSTILE, with a hostile name, and
    a skipped file with a hostile name."""
    lines = [
        "[rank0]: step 1 ok",
        "[rank1]: [W311 07:22:40] Warning: EZ1001: ZZw " + HOSTILE,
        "[rank1]: RuntimeError: NPU function error: aclnnMatmul, error code is 161002 " + HOSTILE,
        "[rank1]: EZ1001: [PID: 2800] 2026-03-11-07:22:41.499.582 ZZx get input tensor failed " + HOSTILE,
        "[rank1]: [ERROR] 2026-03-11-07:22:41 (PID:2800, Device:1, RankID:1) ERR00100 PTA call acl api failed " + HOSTILE,
        "[rank0]: EI0002: [PID: 2234] 2026-03-11-07:52:41.499.693 The wait execution of the Notify register times out. "
        + HOSTILE,
        "[rank0]: RuntimeError: npuSynchronizeDevice: NPU function error: AclrtSynchronizeDevice, error code is 507048 "
        + HOSTILE,
    ]
    root = tmp_path / "logs"
    root.mkdir()
    (root / HOSTILE_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "notes **ZZy** |.yaml").write_text("a: 1\n")
    return root


def report(capsys, argv: list[str]) -> str:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return out


def outside_code(html: str) -> str:
    """The rendered HTML with every code span and code block removed."""
    return re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", html, flags=re.S)


def renderers():
    out = [("markdown-it", GFM.render)]
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options
    except ImportError:  # optional: GitHub's renderer, when installed
        return out
    return out + [("cmark-gfm", lambda s: cmarkgfm.github_flavored_markdown_to_html(s, options=Options.CMARK_OPT_UNSAFE))]


def tables(md: str) -> list[tuple[int, list[int]]]:
    """(header cells, cells of each body row) of every table markdown-it finds."""
    found, cells, header = [], [], 0
    for tok in GFM.parse(md):
        if tok.type == "table_open":
            cells, header = [], 0
        elif tok.type == "th_open":
            header += 1
        elif tok.type == "tr_open":
            cells.append(0)
        elif tok.type == "td_open":
            cells[-1] += 1
        elif tok.type == "table_close":
            found.append((header, [c for c in cells if c]))
    return found


def above_folds(md: str) -> str:
    return re.sub(r"<details>.*?</details>\n", "", md, flags=re.S)


# --------------------------------------------------------------------------- the escaping functions
@settings(max_examples=300, deadline=None)
@given(st.text())
def test_a_code_span_shows_any_text_verbatim(text):
    for src, in_table in ((code_span(text), False), ("| a |\n|---|\n| " + code_span(text, table=True) + " |", True)):
        tokens = STRICT.parse(src)
        children = [t for t in tokens if t.type == "inline"][-1].children or []  # the body cell's
        assert [c.type for c in children] == ["code_inline"], (src, children)
        shown = visible(text)
        assert children[0].content == (shown if shown.strip(" ") else "\u2420" * max(1, len(shown)))
        if in_table:
            assert [t.type for t in tokens].count("td_open") == 1  # a pipe in the text split no cell


@settings(max_examples=300, deadline=None)
@given(st.text().map(str.strip).filter(bool))
def test_escaped_text_is_only_text(text):
    tokens = STRICT.parse(escape(text))
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], tokens
    children = tokens[1].children or []
    assert {c.type for c in children} <= {"text"}, children
    assert "".join(c.content for c in children) == visible(text).strip()
    # and the same in a table cell: one cell whatever the text holds
    cell = STRICT.parse("| a |\n|---|\n| " + escape(text, line_start=False) + " |")
    assert [t.type for t in cell].count("td_open") == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet=st.characters(blacklist_characters="`"), max_size=20).map(str.strip),
                          st.text(alphabet=st.characters(blacklist_characters="`"), min_size=1, max_size=20)),
                min_size=1, max_size=3))
def test_prose_turns_backticked_names_into_code_and_escapes_the_rest(parts):
    parts = [(words, code) for words, code in parts if code.strip() and words]
    sentence = " ".join(f"{words} `{code}`" for words, code in parts) or "plain"
    children = STRICT.parse(prose(sentence))[1].children or []
    assert {c.type for c in children} <= {"text", "code_inline"}
    codes = [c.content for c in children if c.type == "code_inline"]
    assert codes == [visible(code) for _, code in parts]


def test_fences_and_folds_hold_their_content():
    block = fence("a ``` b\n````\nc")
    tokens = GFM.parse("\n".join(block) + "\n")
    assert [t.type for t in tokens] == ["fence"] and tokens[0].content == "a ``` b\n````\nc\n"
    html = GFM.render("\n".join(details("5 <b>lines</b> & more", ["- **x**"])))
    assert "<summary>5 &lt;b&gt;lines&lt;/b&gt; &amp; more</summary>" in html and "<strong>x</strong>" in html
    assert tables("\n".join(table(["a", "b|c"], [["1", ""]])) + "\n") == [(2, [2])]


# --------------------------------------------------------------------------- the markdown report
def test_hostile_log_text_and_names_stay_code(tmp_path, capsys):
    md = report(capsys, [str(hostile_tree(tmp_path)), "--report", "markdown"])
    assert "ZZb" in md and "ZZn" in md and "ZZy" in md  # the hostile text is in the report ...
    assert not CONTROL_RE.search(md.replace("\n", ""))
    for name, render in renderers():
        html = render(md)
        assert "ZZ" in html
        leaked = re.findall(r".{0,40}ZZ.{0,20}", outside_code(html))
        assert not leaked, (name, leaked)  # ... and all of it inside code spans or blocks
        assert "<b>" not in outside_code(html) and "<i>" not in outside_code(html), name
        assert html.count("<details>") == html.count("</details>") == md.count("<details>"), name
    assert "\u241b[2JZZe" in md  # the escape sequence is shown, inert


def test_tables_keep_their_columns_whatever_the_text_holds(tmp_path, capsys):
    md = report(capsys, [str(hostile_tree(tmp_path)), "--report", "markdown"])
    found = tables(md)
    assert len(found) >= 3  # cascade, ranks, inputs
    for header, rows in found:
        assert rows and all(n == header for n in rows), (header, rows)


@pytest.mark.parametrize("fixture", [MULTI_RANK, SINGLE], ids=lambda p: p.name)
def test_details_are_balanced_and_the_verdict_comes_first(capsys, fixture):
    md = report(capsys, [str(fixture), "--report", "markdown"])
    lines = md.splitlines()
    assert lines[0].startswith("# ") and "error" in lines[0] and "confidence)" in lines[0]
    depth = 0
    for line in lines:
        depth += line.startswith("<details>") - (line == "</details>")
        assert 0 <= depth <= 1, "a fold inside a fold, or a close without an open"
    assert depth == 0
    html = GFM.render(md)
    headings = re.findall(r"<h2>(.*?)</h2>", html)
    assert headings[:4] == ["Why this line", "Most likely root cause", "Next minimal action", "Evidence"]
    summaries = re.findall(r"<summary>(.*?)</summary>", html)
    for fold in ("Registry entry", "Candidates that lost", "Cascade:", "Inputs:"):
        assert any(s.startswith(fold) for s in summaries), (fold, summaries)
    assert lines[-1].startswith("npudiag-tui ") and "registry: `built-in`" in lines[-1]


def test_multi_rank_report_is_short_above_its_folds(capsys):
    md = report(capsys, [str(MULTI_RANK), "--report", "markdown"])
    visible_part = above_folds(md)
    assert len(visible_part.encode()) <= 3 * 1024, len(visible_part.encode())
    assert "# Communication error `EI0013` on rank 5 (high confidence)" in visible_part
    assert "Ranks: 8 (1 root, 7 victim)" in md  # the folds hold the rest
    assert "Inputs: 23 files (device, plog, stdout), 1,722 lines, ranks 0-7, 1 skipped" in md
    # the anchor line in a fence, whole: the summary is no longer cut mid-sentence
    fences = [t.content for t in GFM.parse(md) if t.type == "fence"]
    assert fences and fences[0].rstrip("\n").endswith("remote ip[192.168.1.11]")


def test_an_unusable_registry_is_a_problem_in_the_inputs_fold(tmp_path, capsys):
    bad = tmp_path / "error_code.json"
    bad.write_text("{bad")
    assert main([str(SINGLE), "--registry", str(bad), "--report", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert f"{bad}: not valid JSON" in err and len(err.splitlines()) == 1
    inputs = out[out.index("<summary>Inputs:"):]
    assert "1 problem" in inputs.splitlines()[0] and "**Input problems**" in inputs and f"`{bad}: not valid JSON" in inputs


# --------------------------------------------------------------------------- the terminal report
def test_text_report_puts_the_verdict_first_and_fits_the_width(tmp_path, capsys):
    out = report(capsys, [str(hostile_tree(tmp_path)), "--report", "text"])
    lines = out.splitlines()
    assert lines[0] == "Operator error EZ1001 on rank 1 (medium confidence)"
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert "\x1b" not in out  # no colour off a terminal; the log's ESC shown as a symbol
    assert "**ZZb** <b>ZZh</b>" in out  # log text as it is, no markup applied
    titles = ("Why this line", "Most likely root cause", "Next minimal action", "Evidence", "Registry",
              "Candidates that lost", "Ranks", "Cascade (", "Inputs", "Skipped (not read)")
    where = [next(i for i, ln in enumerate(lines) if ln.startswith(t)) for t in titles]
    assert where == sorted(where), dict(zip(titles, where))
    assert lines[-1].startswith("npudiag-tui ") and "registry: built-in" in lines[-1]


# --------------------------------------------------------------------------- --help
def test_help_teaches(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for needle in ("examples:", "exit codes:", "ASCEND_PROCESS_LOG_PATH", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME",
                   "NO_COLOR", "error-code registry:", "--registry FILE", "docs/architecture.md"):
        assert needle in out, needle
    assert re.search(r"^  0 +the logs were read", out, re.M) and re.search(r"^  2 +usage error", out, re.M)


def test_every_example_in_help_is_a_valid_command_line():
    examples = [ln.strip() for ln in HELP_EPILOG.split("examples:")[1].split("\n\n")[0].splitlines()
                if ln.strip().startswith("npudiag-tui ")]
    assert len(examples) >= 3  # at least the three the reports were written for
    for example in examples:
        argv = example.split(">")[0].split()[1:]
        args = build_parser().parse_args([a.strip('"') for a in argv])  # exits 2 on a bad option
        assert args.paths


# --------------------------------------------------------------------------- one-line errors
def test_a_corrupt_tar_gz_says_why_on_one_line(tmp_path, capsys):
    """The reason was cut to "file could not be opened successfully:", dropping every why."""
    bundle = tmp_path / "broken.tar.gz"
    bundle.write_bytes(b"\x1f\x8b\x08\x00garbagegarbage")
    assert main([str(bundle), "--report", "text"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "broken.tar.gz: cannot read archive (" in err
    assert "gz: " in err and "not a bzip2 file" in err and not err.rstrip().endswith(":)")
