"""CANN string-code registry: built-in facts and guidance, overridden by local error_code.json files.

Why: the installed registry on the user's machine is the best match for the CANN release that wrote the
logs, but it is incomplete (GE/HCCL/aclnn embed their own entries) and often absent where logs are read.
So the built-in table answers first, local files override it, and `--registry` files override both.
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from npudiag_tui.core.formats.codes import is_inner_code

DATA_DIR = Path(__file__).resolve().parent / "data"
BUILTIN = "built-in"
REGISTRY_GLOBS = (
    "conf/error_manager/error_code.json",
    "*/conf/error_manager/error_code.json",
    "*/*/conf/error_manager/error_code.json",
    "*/*/*/conf/error_manager/error_code.json",
)
MAX_REGISTRY_BYTES = 64 * 1024 * 1024  # a real registry is < 1 MB; refuse pathological files
MAX_EXTRACT_CHARS = 4096  # real CANN messages are far shorter; bounds regex work on hostile lines
PLACEHOLDER_RE = re.compile(r"%(?:ll|l|z)?[sdu]")
_NA = {"", "n/a", "na", "none", "null"}


def installed_roots(env: Mapping[str, str]) -> list[str]:
    """Where an installed CANN keeps its registries: `/usr/local/Ascend`, or the folders in
    $NPUDIAG_CANN_ROOTS (`os.pathsep`-separated; empty means none), so that a run, or a test
    suite, can ignore the machine's install."""
    chosen = env.get("NPUDIAG_CANN_ROOTS")
    if chosen is None:
        return ["/usr/local/Ascend"]
    return [p for p in chosen.split(os.pathsep) if p]


@dataclass
class RegistryEntry:
    """One code: verbatim facts plus product guidance (or the local registry's suggestion)."""

    code: str
    family: str | None
    title: str | None
    template: str | None
    arglist: list[str] = field(default_factory=list)
    variants: list[tuple[str, list[str]]] = field(default_factory=list)
    possible_cause: str | None = None
    solution: str | None = None
    is_inner: bool = False
    source: str = BUILTIN


def _split_arglist(raw: object) -> list[str]:
    if isinstance(raw, list):
        return [str(a).strip() for a in raw if str(a).strip()]
    if not isinstance(raw, str):
        return []
    return [a.strip() for a in raw.split(",") if a.strip()]


def _key(d: Mapping[str, object], *names: str) -> object:
    """Case/space-insensitive key lookup: registry files spell errTitle, ErrTitle, err_title …"""
    wanted = {n.lower().replace(" ", "").replace("_", "") for n in names}
    for k, v in d.items():
        if isinstance(k, str) and k.lower().replace(" ", "").replace("_", "") in wanted:
            return v
    return None


def _text(v: object) -> str | None:
    """A suggestion field, or None when absent or "N/A" (which means no text in CANN registries)."""
    if not isinstance(v, str):
        return None
    v = v.strip()
    return None if v.lower() in _NA else v


def _load_builtin() -> dict[str, RegistryEntry]:
    path = DATA_DIR / "builtin_registry.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, RegistryEntry] = {}
    for code, e in data.get("codes", {}).items():
        out[code] = RegistryEntry(
            code=code,
            family=e.get("family"),
            title=e.get("title"),
            template=e.get("template"),
            arglist=list(e.get("arglist") or []),
            variants=[(v["template"], list(v.get("arglist") or [])) for v in e.get("variants") or []],
            possible_cause=e.get("possible_cause"),
            solution=e.get("solution"),
            is_inner=bool(e.get("is_inner")),
            source=BUILTIN,
        )
    return out


_BUILTIN_CACHE: dict[str, RegistryEntry] | None = None


def _builtin() -> dict[str, RegistryEntry]:
    global _BUILTIN_CACHE
    if _BUILTIN_CACHE is None:
        _BUILTIN_CACHE = _load_builtin()
    return _BUILTIN_CACHE


def _sanitize(name: str, index: int) -> str:
    ident = re.sub(r"\W", "_", name.strip())
    if not ident or ident[0].isdigit():
        ident = f"arg{index}_{ident}" if ident else f"arg{index}"
    return ident


def _group_names(arglist: list[str]) -> list[str]:
    """Regex-safe, unique names in arglist order (duplicates get _2, _3 …)."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(arglist):
        base = _sanitize(raw, i)
        n = seen.get(base, 0) + 1
        seen[base] = n
        names.append(base if n == 1 else f"{base}_{n}")
    return names


def _literal(text: str) -> str:
    """Escape a template literal and let any whitespace run match any (or no) whitespace."""
    parts = re.split(r"\s+", text)
    return r"\s*".join(re.escape(p) for p in parts)


def compile_template(template: str, arglist: list[str]) -> re.Pattern[str] | None:
    """Template -> search regex with lazy named groups (docs/diagnosis.md, "Guidance").

    The last group ends at the first real occurrence of the template's final literal (not followed by a
    word character, so "a.b." keeps "a.b") or at the end of the line, since messages are often cut short.
    `_tail_literal` lets the caller widen it to a final literal that closes the line.
    """
    pieces = PLACEHOLDER_RE.split(template)
    n_groups = len(pieces) - 1
    if n_groups == 0:
        return None
    names = _group_names(arglist)
    out = [_literal(pieces[0])]
    for i in range(n_groups):
        group = f"(?P<{names[i]}>" if i < len(names) else "("
        if i < n_groups - 1:
            out.append(group + r".*?)")
            out.append(_literal(pieces[i + 1]))
        else:
            lit = _literal(pieces[-1].rstrip())
            if lit:
                out.append(group + r"[^\n]*?)(?:" + lit + r"(?!\w)|\s*$)")
            else:
                out.append(group + r"[^\n]*?)\s*$")
    try:
        return re.compile("".join(out), re.MULTILINE)
    except re.error:
        return None


def _tail_literal(template: str) -> re.Pattern[str] | None:
    """Regex for "value, then the final literal, then end of line" used to widen the last group."""
    lit = _literal(PLACEHOLDER_RE.split(template)[-1].rstrip())
    if not lit:
        return None
    return re.compile(r"([^\n]*?)" + lit + r"\s*$")


def _widen_last(rx: re.Pattern[str], m: re.Match[str], template: str, text: str) -> dict[str, str]:
    """Groups of `m`, with the last one running to a final literal that closes the line when there is one
    (so values holding "]" or "." stay whole, e.g. "group:[g], rankSize[8]")."""
    args = {k: v for k, v in m.groupdict().items() if v is not None}
    last = rx.groups
    start = m.start(last)
    if start < 0:
        return args
    end = text.find("\n", start)
    segment = text[start:] if end < 0 else text[start:end]
    tail = _TAIL_CACHE.get(template, False)
    if tail is False:
        tail = _TAIL_CACHE[template] = _tail_literal(template)
    if tail is not None:
        wide = tail.match(segment)
        if wide:
            for name, idx in rx.groupindex.items():
                if idx == last:
                    args[name] = wide.group(1)
    return args


_TAIL_CACHE: dict[str, re.Pattern[str] | None] = {}


def _literals_in_order(template: str) -> list[re.Pattern[str]]:
    """The template's literal pieces as small regexes, for a cheap in-order presence check."""
    out = []
    for piece in PLACEHOLDER_RE.split(template):
        piece = piece.strip()
        if piece:
            out.append(re.compile(_literal(piece)))
    return out


def _plausible(literals: list[re.Pattern[str]], text: str) -> bool:
    """True when every literal occurs, in order. Lazy groups backtrack badly (polynomially) when a
    chain almost matches; rejecting texts that cannot match keeps hostile lines cheap."""
    pos = 0
    for rx in literals:
        m = rx.search(text, pos)
        if m is None:
            return False
        pos = m.end()
    return True


_LITERAL_CACHE: dict[str, list[re.Pattern[str]]] = {}
_REGEX_CACHE: dict[tuple[str, tuple[str, ...]], re.Pattern[str] | None] = {}


def _regex(template: str, arglist: list[str]) -> re.Pattern[str] | None:
    key = (template, tuple(arglist))
    if key not in _REGEX_CACHE:
        if len(_REGEX_CACHE) > 4096:
            _REGEX_CACHE.clear()
            _TAIL_CACHE.clear()
        _REGEX_CACHE[key] = compile_template(template, arglist)
    return _REGEX_CACHE[key]


class Registry:
    """Code -> entry, with the provenance of every answer."""

    def __init__(self, entries: dict[str, RegistryEntry]) -> None:
        self._entries = entries
        self._wordings: dict[str, dict[str, list[str]]] = {}  # code -> other templates, oldest first
        self.warnings: list[str] = []
        self.files: list[str] = []

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        extra: list[str] | None = None,
        env: Mapping[str, str] | None = None,
        search_roots: list[str] | None = None,
    ) -> "Registry":
        """Built-in, then installed registries, then `extra` files; later sources win. Never raises.

        Local order: `/usr/local/Ascend` (or `search_roots`), then $ASCEND_TOOLKIT_HOME, then
        $ASCEND_HOME_PATH, so the install the job's environment points at has the last word.
        """
        env = os.environ if env is None else env
        reg = cls({code: replace(e) for code, e in _builtin().items()})
        if not reg._entries:
            reg.warnings.append(f"{DATA_DIR / 'builtin_registry.json'}: built-in registry missing or unreadable")
        roots = list(search_roots) if search_roots is not None else installed_roots(env)
        roots += [env.get("ASCEND_TOOLKIT_HOME") or "", env.get("ASCEND_HOME_PATH") or ""]
        seen: set[str] = set()
        for path in reg._discover(roots):
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                reg._merge_file(path)
        for path in extra or []:
            reg._merge_file(path)
        return reg

    @staticmethod
    def _discover(roots: list[str]) -> list[str]:
        """Bounded-depth glob under each root; never walks a whole disk."""
        found: list[str] = []
        done: set[str] = set()
        for root in roots:
            if not root or root in done or not os.path.isdir(root):
                continue
            done.add(root)
            hits: list[str] = []
            for pattern in REGISTRY_GLOBS:
                try:
                    hits += glob.glob(os.path.join(glob.escape(root), pattern))
                except OSError:
                    continue
            found += sorted(h for h in hits if os.path.isfile(h))
        return found

    def _merge_file(self, path: str) -> None:
        """Read one error_code.json; a bad file becomes one warning line and is skipped."""
        try:
            size = os.path.getsize(path)
            if size > MAX_REGISTRY_BYTES:
                self.warnings.append(f"{path}: too large ({size} bytes)")
                return
            with open(path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            self.warnings.append(f"{path}: file not found")
            return
        except OSError as exc:
            self.warnings.append(f"{path}: unreadable ({exc.strerror or exc.__class__.__name__})")
            return
        try:
            data = json.loads(raw.decode("utf-8-sig", errors="replace"))
        except ValueError as exc:
            self.warnings.append(f"{path}: not valid JSON ({str(exc).splitlines()[0][:120]})")
            return
        except RecursionError:  # `[[[[…` a hundred thousand deep: the parser gives up
            self.warnings.append(f"{path}: not a registry (JSON nested too deeply)")
            return
        items = _key(data, "error_info_list") if isinstance(data, dict) else None
        if not isinstance(items, list):
            self.warnings.append(f"{path}: not a registry (no error_info_list array)")
            return
        merged = skipped = 0
        touched: set[str] = set()
        for item in items:
            if not isinstance(item, dict):
                skipped += 1
                continue
            code = _key(item, "ErrCode")
            if not isinstance(code, str) or not code.strip():
                skipped += 1
                continue
            code = code.strip().upper()
            self._merge_item(code, item, path)
            touched.add(code)
            merged += 1
        for code in touched:  # once per code and file: per item, duplicates made loading cubic
            self._entries[code].variants = list(reversed(self._wordings[code].items()))
        if skipped:
            self.warnings.append(f"{path}: skipped {skipped} malformed entr{'y' if skipped == 1 else 'ies'}")
        if merged == 0 and not skipped and items:
            self.warnings.append(f"{path}: no usable entries")
        self.files.append(path)

    def _merge_item(self, code: str, item: Mapping[str, object], path: str) -> None:
        old = self._entries.get(code)
        template = _key(item, "ErrMessage")
        template = template if isinstance(template, str) and template else None
        arglist = _split_arglist(_key(item, "Arglist"))
        title = _key(item, "errTitle")
        family = _key(item, "errClass")
        sugg = _key(item, "suggestion")
        cause = solution = None
        if isinstance(sugg, dict):
            cause = _text(_key(sugg, "Possible Cause", "PossibleCause"))
            solution = _text(_key(sugg, "Solution"))
        # Keep every known wording so extraction still works on logs from other releases: the
        # latest first, each once, never the entry's own template. Kept as a dict in insertion
        # order (oldest first) so that a code repeated n times costs O(n), not O(n^3).
        wordings = self._wordings.get(code)
        if wordings is None:
            wordings = self._wordings[code] = dict(reversed(old.variants)) if old is not None else {}
        if old is not None and old.template:
            wordings.pop(old.template, None)
            wordings[old.template] = list(old.arglist)
        if template is None and old is not None:
            template, arglist = old.template, (arglist or list(old.arglist))
        if template is not None:
            wordings.pop(template, None)
        variants: list[tuple[str, list[str]]] = []  # filled from `wordings` once the file is read
        self._entries[code] = RegistryEntry(
            code=code,
            family=family if isinstance(family, str) and family.strip() else (old.family if old else None),
            title=title if isinstance(title, str) and title.strip() else (old.title if old else None),
            template=template,
            arglist=arglist,
            variants=variants,
            possible_cause=cause or (old.possible_cause if old else None),
            solution=solution or (old.solution if old else None),
            is_inner=(old.is_inner if old else False) or is_inner_code(code),
            source=path,
        )

    # -- queries ---------------------------------------------------------------------------------
    def lookup(self, code: str) -> RegistryEntry | None:
        """Entry for a code (case-insensitive), or None when no source knows it."""
        if not code:
            return None
        return self._entries.get(code.strip().upper())

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and self.lookup(code) is not None

    def __len__(self) -> int:
        return len(self._entries)

    def extract_args(self, entry: RegistryEntry, text: str) -> dict[str, str]:
        """Arguments of the first template (main, then variants) found in `text`; {} if none matches."""
        if not text:
            return {}
        text = text[:MAX_EXTRACT_CHARS]
        candidates: list[tuple[str, list[str]]] = []
        if entry.template:
            candidates.append((entry.template, entry.arglist))
        candidates += entry.variants
        for template, arglist in candidates:
            lits = _LITERAL_CACHE.get(template)
            if lits is None:
                if len(_LITERAL_CACHE) > 4096:
                    _LITERAL_CACHE.clear()
                lits = _LITERAL_CACHE[template] = _literals_in_order(template)
            if not _plausible(lits, text):
                continue
            rx = _regex(template, arglist)
            m = rx.search(text) if rx is not None else None
            if m:
                return {k: v.strip() for k, v in _widen_last(rx, m, template, text).items()}
        return {}

    def fill(self, entry: RegistryEntry, args: dict[str, str]) -> str | None:
        """Template with each Arglist value put at the first remaining placeholder (CANN's rule)."""
        if not entry.template:
            return None
        names = _group_names(entry.arglist)
        out: list[str] = []
        pos = 0
        template = entry.template
        for i, m in enumerate(PLACEHOLDER_RE.finditer(template)):
            out.append(template[pos:m.start()])
            value = None
            if i < len(entry.arglist):
                value = args.get(entry.arglist[i])
                if value is None:
                    value = args.get(names[i])
            out.append(m.group(0) if value is None else str(value))
            pos = m.end()
        out.append(template[pos:])
        return "".join(out)
