"""Side panel: what the diagnosis says (category, why this anchor and how sure, registry entry,
root cause, next actions, missing evidence), the candidates that lost to the anchor (walked
with o / O), and the cascade list, whose entries jump the panes.

All text is built with rich Text; nothing from the logs or the registry is parsed as markup.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from npudiag_tui.core.formats.timestamps import format_us
from npudiag_tui.core.model import Candidate, Diagnosis, ErrorEvent, Stream
from npudiag_tui.tui.lines import sanitize
from npudiag_tui.tui.widgets.compact import compact


def _short(text: str, limit: int = 160) -> str:
    text = sanitize(text.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _event_label(ev: ErrorEvent, anchor: bool = False) -> Text:
    t = format_us(ev.time)
    stamp = t[11:23] if t else "--:--:--.---"
    rank = ev.rank
    stream = ev.stream.value
    rel = "ANCHOR" if anchor else (ev.secondary or "cascade")
    head = Text()
    head.append(f"{stamp} ", "dim")
    head.append(f"{stream}{'' if rank is None else f' r{rank}'} ", "bold")
    head.append(f"[{rel}]", "bold red" if anchor else "yellow")
    head.append("\n")
    head.append(_short(message_of(ev.detail or ev.text), 110))
    return head



_QUOTED_HEAD = re.compile(r"\[(?:ERROR|WARNING|INFO|DEBUG|EVENT|TRACE|CRITICAL|EXCEPTION)\] [A-Z]")


def _summary_message(diagnosis: Diagnosis) -> str:
    """The summary ("First causal error X on rank 2: [ERROR] HCCP(...)") with the anchor's line
    quoted whole and its plog header cut to `MODULE: message`: the engine's summary cuts the line
    at 160 characters, header and any prefix included, which can leave no message at all."""
    summary, anchor = diagnosis.summary, diagnosis.anchor
    if anchor is not None:
        quoted = (anchor.detail or anchor.text).strip()
        at = summary.find(quoted[:40])
        if at > 0:
            summary = summary[:at] + quoted
    m = _QUOTED_HEAD.search(summary)
    return summary if m is None else summary[: m.start()] + message_of(summary[m.start():])


def message_of(text: str) -> str:
    """`MODULE: message` for a plog-like line, the text itself otherwise: the lists are narrow
    and show the time and rank beside it already, so the header is cut, not the message."""
    form = compact(text, Stream.PLOG)
    if form is None:
        return text
    context = f"{form.context} " if form.context else ""
    return f"{form.module}: {context}{form.message}"
_CONFIDENCE_STYLE = {"high": "bold green", "medium": "bold yellow", "low": "bold red"}


def anchor_code(diagnosis: Diagnosis) -> str | None:
    """The code the verdict names: the registry entry's, else the anchor's first code."""
    code = (diagnosis.guidance or {}).get("code")
    if code:
        return str(code)
    anchor = diagnosis.anchor
    return anchor.codes[0] if anchor is not None and anchor.codes else None


def verdict_text(diagnosis: Diagnosis, logs_read: bool = True) -> Text:
    """One line: category, code, rank, confidence. Without an anchor it says which of the two
    it is: logs were read and hold no error, or there was no log file to read at all."""
    t = Text()
    anchor = diagnosis.anchor
    if anchor is None:
        if logs_read:
            t.append("No error found in the logs read", "bold green")
        else:
            t.append("No log files found in the inputs", "bold yellow")
        return t
    t.append(sanitize(diagnosis.category), "bold magenta")
    code = anchor_code(diagnosis)
    if code:
        t.append(" " + sanitize(code), "bold cyan")
    if anchor.rank is not None:
        t.append(f" rank {anchor.rank}", "bold")
    if diagnosis.confidence:
        t.append(" ")
        t.append(diagnosis.confidence, _CONFIDENCE_STYLE.get(diagnosis.confidence, "bold"))
    return t


FIRST_CASCADE_ROWS = 24
"""Cascade entries the side panel lists in the anchored screen's first frame; the rest join next."""


class SidePanel(VerticalScroll):
    """Diagnosis summary plus the cascade list."""

    DEFAULT_CSS = """
    SidePanel {
        width: 44;
        border-left: solid $panel-lighten-2;
        background: $panel;
        padding: 0 1;
        & > #diag-head { margin-bottom: 0; }
        & > #candidates { margin-bottom: 1; }
        & > #cascade { height: auto; max-height: 16; border: none; background: $panel; padding: 0; }
        & > #diag-body { margin-top: 1; }
        &.-whole { width: 1fr; border-left: none; border-top: solid $accent; border-title-color: $text; }
    }
    """

    class EntryChosen(Message):
        """The user chose entry `index` of the cascade list (0 = the anchor)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[ErrorEvent] = []
        self.candidates: list[Candidate] = []
        self.candidate_mark = -1
        self._shown = 0  # which show() the options being added belong to

    def compose(self) -> ComposeResult:
        yield Static(Text("Diagnosis: indexing…", style="bold"), id="diag-head")
        yield Static(Text(""), id="candidates")
        yield OptionList(id="cascade")
        yield Static(Text(""), id="diag-body")

    def show_pending(self, message: str) -> None:
        self.query_one("#diag-head", Static).update(Text(message, style="bold"))

    def show(self, diagnosis: Diagnosis | None, error: str | None = None, logs_read: bool = True) -> None:
        """Verdict first (#11): the one-line verdict, next action, root cause and evidence are
        at the top, where an 80x24 panel shows them without scrolling; then why and how sure,
        the registry text, the candidates and the cascade; missing evidence and ranks last."""
        head = self.query_one("#diag-head", Static)
        body = self.query_one("#diag-body", Static)
        options = self.query_one("#cascade", OptionList)
        options.clear_options()
        self.entries = []
        self._shown += 1
        if diagnosis is None:
            head.update(Text(f"Diagnosis unavailable\n{sanitize(error or '')}".strip(), style="bold yellow"))
            body.update(Text(""))
            return
        anchor = diagnosis.anchor
        t = verdict_text(diagnosis, logs_read)
        t.append("\n")
        if diagnosis.summary and logs_read:
            t.append(_short(_summary_message(diagnosis), 220) + "\n")
        if diagnosis.next_actions:
            t.append("\nNext action\n", "bold underline")
            for k, act in enumerate(diagnosis.next_actions[:4], 1):
                t.append(f"{k}. ", "bold green")
                t.append(_short(act.action, 300) + "\n", "green")
                for name, value in (act.env or {}).items():
                    t.append(f"   {sanitize(str(name))}={sanitize(str(value))}\n", "cyan")
                if act.why:
                    t.append("   " + _short(act.why, 300) + "\n", "dim")
        if diagnosis.root_cause:
            t.append("\nRoot cause\n", "bold underline")
            t.append(_short(diagnosis.root_cause, 600) + "\n")
        if diagnosis.evidence:
            t.append("\nEvidence\n", "bold underline")
            for item in diagnosis.evidence[:12]:
                t.append("- " + _short(str(item), 300) + "\n")
        confidence = diagnosis.confidence
        if anchor is not None and confidence:
            t.append("\nConfidence: ", "bold")
            t.append(confidence, _CONFIDENCE_STYLE.get(confidence, "bold"))
            reason = diagnosis.confidence_reason
            if reason:
                t.append(f" ({_short(reason, 200)})", "dim")
            t.append("\n")
        why = diagnosis.why
        if anchor is not None and why:
            t.append("Why this line: ", "bold")
            t.append(_short(why, 400) + "\n")
        guidance = diagnosis.guidance or {}
        if guidance:
            t.append("\nRegistry ", "bold underline")
            code = guidance.get("code")
            t.append(f"{sanitize(str(code or ''))}", "bold cyan")
            fam = guidance.get("family")
            if fam:
                t.append(f"  {sanitize(str(fam))}", "dim")
            t.append("\n")
            for key, label in (("title", "Title"), ("message", "Message"),
                               ("possible_cause", "Possible cause"), ("solution", "Solution")):
                val = guidance.get(key)
                if val:
                    t.append(f"{label}: ", "bold")
                    t.append(_short(str(val), 600) + "\n")
            args = guidance.get("args") or {}
            if isinstance(args, dict) and args:
                t.append("Args: ", "bold")
                t.append(", ".join(f"{k}={_short(str(v), 60)}" for k, v in args.items()) + "\n")
            if guidance.get("registry"):
                t.append("Registry file: ", "bold")
                t.append(_short(str(guidance["registry"]), 200) + "\n", "dim")
        head.update(t)
        self.candidates = list(diagnosis.candidates)
        self.candidate_mark = -1
        self._show_candidates()

        if anchor is not None:
            self.entries.append(anchor)
        self.entries.extend(diagnosis.cascade)
        if self.entries:  # one call: adding options one by one re-measures the list each time
            labels = [Option(_event_label(ev, k == 0 and anchor is not None)) for k, ev in enumerate(self.entries)]
            # the list measures every option to lay itself out (a wrap of each): a long cascade
            # joins after the first frame, which the anchored screen then does not wait for
            options.add_options(labels[:FIRST_CASCADE_ROWS])
            if len(labels) > FIRST_CASCADE_ROWS:
                self.call_after_refresh(self._add_options, labels[FIRST_CASCADE_ROWS:], self._shown)
        else:
            options.add_option(Option(Text("(none)", style="dim"), disabled=True))

        b = Text()
        if diagnosis.missing:
            b.append("\nMissing evidence\n", "bold underline")
            for item in diagnosis.missing[:8]:
                b.append("- " + _short(str(item), 300) + "\n", "yellow")
        if diagnosis.ranks:
            b.append("\nRanks\n", "bold underline")
            for r in diagnosis.ranks[:32]:
                b.append(f"rank {r.rank}: {r.role}\n", "red" if r.role == "root" else "")
        body.update(b)

    def _add_options(self, more: list[Option], shown: int) -> None:
        if shown == self._shown:  # not shown over since
            self.query_one("#cascade", OptionList).add_options(more)

    def _show_candidates(self) -> None:
        t = Text()
        if self.candidates:
            t.append("\nCandidates (o / O walk)\n", "bold underline")
            for k, cand in enumerate(self.candidates):
                ev = cand.event
                on = k == self.candidate_mark
                t.append("▶ " if on else "  ", "bold reverse" if on else "")
                t.append(f"{k + 1}. ", "bold")
                t.append(_short(cand.why_not, 120) + "\n", "bold yellow" if on else "yellow")
                stamp = format_us(ev.time)
                rank = ev.rank
                t.append(f"   {stamp[11:23] if stamp else '--:--:--.---'} ", "dim")
                t.append(f"{ev.stream.value}{'' if rank is None else f' r{rank}'} ", "bold")
                t.append(_short(message_of(ev.detail or ev.text), 90) + "\n")
        t.append("\nCascade (enter jumps)", "bold underline")
        self.query_one("#candidates", Static).update(t)

    def mark_candidate(self, index: int) -> None:
        """Point at candidate `index` (the one the panes were just moved to)."""
        self.candidate_mark = index
        self._show_candidates()
        self.scroll_to_widget(self.query_one("#candidates", Static), top=True, animate=False)

    def highlight(self, index: int) -> None:
        options = self.query_one("#cascade", OptionList)
        if 0 <= index < options.option_count:
            options.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.EntryChosen(event.option_index))
