"""Paths -> sources: the CANN log layout at any depth, loose console files, and bundles.

Every file the user gave is accounted for: it becomes part of a source, or it lands in
`problems`/`skipped` with a one-line reason naming it. Archives are unpacked only into a private
temporary folder, refusing members that would escape it.
"""

from __future__ import annotations

import os
import re
import stat
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from npudiag_tui.core.archives import ARCHIVE_ERRORS, ARCHIVE_SUFFIXES, ArchiveSession, extract_archive
from npudiag_tui.core.archives import reason as archive_reason
from npudiag_tui.core.files import open_regular
from npudiag_tui.core.formats.plog import looks_like_plog
from npudiag_tui.core.formats.timestamps import name_time
from npudiag_tui.core.model import Source, SourceFile, Stream

PLOG_NAME = re.compile(r"^plog-(\d+)_(\d{17})\.log$")
DEVICE_NAME = re.compile(r"^device-(?:app-)?(\d+)_(\d{17})\.log$")
DEVICE_DIR = re.compile(r"^device-(\d+)$")
# Files that are clearly not logs; listed as skipped rather than read as console output.
NOT_LOG_SUFFIXES = {
    ".json", ".yaml", ".yml", ".toml", ".md", ".py", ".pyc", ".sh", ".cfg", ".ini", ".csv",
    ".html", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".so", ".o", ".a", ".whl", ".pt", ".pth",
    ".bin", ".om", ".onnx", ".safetensors", ".gz", ".xz", ".bz2", ".7z", ".pdf", ".lock",
}
SNIFF_BYTES = 64 * 1024


@dataclass
class Discovery:
    sources: list[Source] = field(default_factory=list)
    files: list[SourceFile] = field(default_factory=list)  # every readable file, file_id = position
    problems: list[str] = field(default_factory=list)  # one-line messages: "<path>: <reason>"
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (display path, reason)
    roots: list[str] = field(default_factory=list)  # real folders the inputs live in (for watching)
    temp_dirs: list[str] = field(default_factory=list)
    # (absolute folder, display prefix): a file below the folder is shown as prefix + its path
    # relative to it, so files found later (live) are named the way discovery named the others
    display_roots: list[tuple[str, str]] = field(default_factory=list)
    source_keys: list[SourceKey | None] = field(default_factory=list)  # per source id (see source_key)
    # what following may read (core.live.Scope): the files the user named (absolute), and the
    # folders the user named, below which it takes what this walk would take
    named_files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    # (real path of an archive the user has, its display name): how `ARCHIVE!member` names its
    # members, for the options that name a path (`--clock-offset bundle.tgz!node1=-2.5`)
    archives: list[tuple[str, str]] = field(default_factory=list)

    def cleanup(self) -> None:
        for d in self.temp_dirs:
            shutil.rmtree(d, ignore_errors=True)
        self.temp_dirs.clear()


def default_paths(env: dict[str, str] | None = None) -> list[str]:
    env = dict(os.environ) if env is None else env
    if env.get("ASCEND_PROCESS_LOG_PATH"):
        return [env["ASCEND_PROCESS_LOG_PATH"]]
    if env.get("ASCEND_WORK_PATH"):
        return [os.path.join(env["ASCEND_WORK_PATH"], "log")]
    return [os.path.join(os.path.expanduser("~"), "ascend", "log")]


_TEXT_BYTES = bytes(b for b in range(256) if b >= 0x20 or b in (9, 10, 13))  # deleted: control bytes remain


def is_binary(sample: bytes) -> bool:
    """Binary, as opposed to a text log that happens to hold a few NUL or GBK bytes."""
    if not sample:
        return False
    head = sample[:8192]
    if head.startswith((b"\x7fELF", b"\x1f\x8b", b"PK\x03\x04", b"\x89PNG", b"BZh", b"\xfd7zXZ")):
        return True
    # runs of NUL are what a crash tail or a copytruncate leaves in a text log: judge the rest
    text = head.replace(b"\x00", b"")
    if not text:
        return True  # nothing but NUL
    control = len(text.translate(None, _TEXT_BYTES))  # C speed: a per-byte loop cost 0.1 s per tree
    return len(text) - control < len(text) * 0.7


def skip_reason(name: str) -> str | None:
    """Why a file is not read as a log, judged by its name: "archive", or "not a log (.x file)"."""
    lower = name.lower()
    if lower.endswith(ARCHIVE_SUFFIXES):
        return "archive"
    suffix = os.path.splitext(lower)[1]
    return f"not a log ({suffix} file)" if suffix in NOT_LOG_SUFFIXES else None


def read_sample(path: str) -> bytes:
    """The head of a file that classification looks at. Raises OSError."""
    fd = open_regular(path)  # a FIFO swapped in after the stat must not block the walk
    try:
        return os.pread(fd, SNIFF_BYTES, 0)
    finally:
        os.close(fd)


class FileClass(NamedTuple):
    """What a log file is: its stream, the process and device it names, and whether its name
    follows the CANN grammar (named files chain by pid; a sniffed one is a source of its own)."""

    stream: Stream
    pid: int | None
    device: int | None
    named: bool


SourceKey = tuple
"""Files with equal keys are one source (a rotated chain); see `source_key`."""


def classify(path: str, sample: bytes) -> FileClass:
    """Stream, pid and device of a (text) file from its name, its folder and its first bytes."""
    name = os.path.basename(path)
    dm = DEVICE_DIR.match(os.path.basename(os.path.dirname(path)))
    dev = int(dm.group(1)) if dm else None
    m = PLOG_NAME.match(name)
    if m:
        return FileClass(Stream.PLOG, int(m.group(1)), None, True)
    m = DEVICE_NAME.match(name)
    if m:
        return FileClass(Stream.DEVICE, int(m.group(1)), dev, True)
    if sample and looks_like_plog(sample):
        return FileClass(Stream.DEVICE if dm else Stream.PLOG, _pid_from_sample(sample), dev, False)
    return FileClass(Stream.STDOUT, None, None, False)


def source_key(path: str, cls: FileClass) -> SourceKey | None:
    """The chain a file belongs to: its folder, stream, pid (and device folder); a sniffed plog
    outside a device folder is a source of its own; None for console files (one source each)."""
    d = os.path.dirname(path)
    pid = cls.pid if cls.pid is not None else -1
    if cls.stream is Stream.PLOG:
        return (d if cls.named else d + "#" + os.path.basename(path), pid)
    if cls.stream is Stream.DEVICE:
        return (d, pid, cls.device if cls.device is not None else -1)
    return None


class _Builder:
    def __init__(self) -> None:
        self.out = Discovery()
        self.plog_groups: dict[tuple[str, int], list[SourceFile]] = {}
        self.device_groups: dict[tuple[str, int, int], list[SourceFile]] = {}
        self.console: list[SourceFile] = []
        self.run_kind: dict[tuple[str, int], str | None] = {}
        self.seen: set[str] = set()

    def add_file(self, path: str, display: str, forced_console: bool = False) -> None:
        real = os.path.realpath(path)
        if real in self.seen:
            return
        self.seen.add(real)
        name = os.path.basename(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self.out.problems.append(f"{display}: broken symbolic link or vanished file")
            return
        except OSError as exc:
            self.out.problems.append(f"{display}: {exc.strerror or exc}")
            return
        if not stat.S_ISREG(st.st_mode):
            self.out.skipped.append((display, "not a regular file"))
            return
        try:
            sample = read_sample(path)
        except OSError as exc:
            self.out.problems.append(f"{display}: cannot read ({exc.strerror or exc})")
            return
        reason = None if forced_console else skip_reason(name)
        if reason == "archive":
            self.add_archive(path, display)
            return
        if not forced_console and is_binary(sample):
            self.out.problems.append(f"{display}: binary file, not a log; skipped")
            return
        if reason is not None:
            self.out.skipped.append((display, reason))
            return
        sf = SourceFile(path=path, display=display, size=st.st_size, name_time=name_time(name))
        cls = FileClass(Stream.STDOUT, None, None, False) if forced_console else classify(path, sample)
        key = source_key(path, cls)
        if key is None:
            self.console.append(sf)
        elif cls.stream is Stream.PLOG:
            self.plog_groups.setdefault(key, []).append(sf)
            self.run_kind[key] = run_kind(path)
        else:
            self.device_groups.setdefault(key, []).append(sf)

    def add_archive(self, path: str, display: str) -> None:
        """Read an archive's members as files; one budget, one temp root and a depth limit for
        the whole input (core.archives says why). Never leaves a temp folder on an interrupt."""
        arc = getattr(self, "archives", None)
        if arc is None:
            arc = self.archives = ArchiveSession()
        refusal = arc.too_deep()
        if refusal:
            self.out.problems.append(f"{display}: {refusal}")
            return
        try:
            tmp = arc.new_folder()
            if arc.root not in self.out.temp_dirs:
                self.out.temp_dirs.append(arc.root)
            try:
                result = extract_archive(path, tmp, arc.budget)
            except ARCHIVE_ERRORS as exc:
                self.out.problems.append(f"{display}: cannot read archive ({archive_reason(exc)})")
                return
            for member, why in result.problems:
                self.out.problems.append(f"{display}!{member}: {why}")
            self.out.skipped.extend((f"{display}!{member}", why) for member, why in result.skipped)
            if result.stopped:
                self.out.problems.append(f"{display}: {result.stopped}")
            self.out.archives.append((os.path.realpath(path), display))
            arc.depth += 1
            try:
                self.walk(tmp, display + "!")
            finally:
                arc.depth -= 1
        except BaseException:  # Ctrl-C or SIGTERM mid-way: the caller never gets the Discovery
            self.out.cleanup()
            raise

    def walk(self, root: str, display_prefix: str) -> None:
        """Every file under root, following folder links as `find -L` does: each real folder is
        read once (a link back up the tree is a loop, listed in `skipped`), and a folder that
        cannot be read is named in `problems` with its reason. Iterative, so depth costs no
        recursion; paths beyond the system's limit are named, not dropped."""
        visited = {os.path.realpath(root)}
        stack: list[tuple[str, str, str]] = [(root, "", os.path.realpath(root))]
        while stack:
            folder, rel, folder_real = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.out.problems.append(f"{display_prefix}{rel or '.'}: cannot read folder "
                                         f"({exc.strerror or exc.__class__.__name__})")
                continue
            subdirs: list[tuple[str, str, str]] = []
            for entry in entries:
                name_rel = f"{rel}{entry.name}"
                try:
                    is_dir = entry.is_dir(follow_symlinks=True)
                except OSError as exc:
                    self.out.problems.append(f"{display_prefix}{name_rel}: {exc.strerror or exc}")
                    continue
                if not is_dir:
                    self.add_file(entry.path, display_prefix + name_rel)
                    continue
                if entry.name.startswith("."):  # .git, caches: not logs, but said (an archive's
                    self.out.skipped.append((display_prefix + name_rel, "hidden folder; not read"))
                    continue  # members below one would otherwise vanish without a word)
                link = entry.is_symlink()
                real = os.path.realpath(entry.path) if link else os.path.join(folder_real, entry.name)
                if real in visited:
                    if link:
                        loop = (folder_real + os.sep).startswith(real + os.sep)
                        self.out.skipped.append((display_prefix + name_rel, "folder link loop" if loop
                                                 else "folder link to a folder already read"))
                    continue
                visited.add(real)
                subdirs.append((entry.path, name_rel + "/", real))
            stack.extend(reversed(subdirs))  # depth first, in name order

    def finish(self) -> Discovery:
        files: list[SourceFile] = []
        sources: list[Source] = []

        keys: list[SourceKey | None] = []

        def register(stream: Stream, group: list[SourceFile], key: SourceKey | None, **kw: object) -> None:
            group.sort(key=lambda f: (f.name_time or 0, f.display))
            for f in group:
                f.file_id = len(files)
                files.append(f)
            src = Source(source_id=len(sources), stream=stream, files=group, **kw)  # type: ignore[arg-type]
            src.label = source_label(src)
            sources.append(src)
            keys.append(key)

        device_by_pid: dict[int, int] = {}
        for (d, pid, dev), group in sorted(self.device_groups.items(), key=lambda kv: kv[0]):
            if dev >= 0 and pid >= 0:
                device_by_pid.setdefault(pid, dev)
        for (d, pid), group in sorted(self.plog_groups.items(), key=lambda kv: kv[0]):
            register(Stream.PLOG, group, (d, pid), pid=pid if pid >= 0 else None,
                     device=device_by_pid.get(pid), run_kind=self.run_kind.get((d, pid)))
        for (d, pid, dev), group in sorted(self.device_groups.items(), key=lambda kv: kv[0]):
            register(Stream.DEVICE, group, (d, pid, dev), pid=pid if pid >= 0 else None,
                     device=dev if dev >= 0 else None, run_kind=run_kind(d))
        for f in sorted(self.console, key=lambda f: f.display):
            register(Stream.STDOUT, [f], None)
        self.out.sources = sources
        self.out.files = files
        self.out.source_keys = keys
        return self.out


def run_kind(path: str) -> str | None:
    parts = Path(path).parts
    for kind in ("debug", "run", "security", "operation"):
        if kind in parts:
            return kind
    return None


def _pid_from_sample(sample: bytes) -> int | None:
    m = re.search(rb"\] [A-Z][A-Z0-9_]*\((\d+),", sample)
    return int(m.group(1)) if m else None


def source_label(src: Source) -> str:
    if src.stream is Stream.STDOUT:
        return os.path.basename(src.files[0].display)
    bits = [src.stream.value]
    if src.pid is not None:
        bits.append(f"pid {src.pid}")
    if src.device is not None:
        bits.append(f"dev {src.device}")
    if src.run_kind and src.run_kind != "debug":
        bits.append(src.run_kind)
    return " ".join(bits)


def discover(paths: list[str], stdout_files: list[str] | None = None) -> Discovery:
    """Turn user paths into sources. Never raises for bad input: problems are collected."""
    b = _Builder()
    for p in stdout_files or []:
        if not os.path.exists(p):
            b.out.problems.append(f"{p}: no such file")
            continue
        b.add_file(p, os.path.basename(p), forced_console=True)
        b.out.named_files.append(os.path.abspath(p))
        b.out.roots.append(os.path.dirname(os.path.abspath(p)))
        b.out.display_roots.append((os.path.dirname(os.path.abspath(p)), ""))
    common = os.path.commonpath([os.path.abspath(p) for p in paths]) if len(paths) > 1 else ""
    for p in paths:
        if os.path.isdir(p):
            b.out.roots.append(os.path.abspath(p))
            b.out.folders.append(os.path.abspath(p))
            # several folders: name each by its path below their common parent, so that
            # node1/log and node2/log stay apart
            prefix = "" if len(paths) == 1 else (os.path.relpath(os.path.abspath(p), common)
                                                 if os.path.abspath(p) != common else os.path.basename(common)) + "/"
            b.out.display_roots.append((os.path.abspath(p), prefix))
            b.walk(p, prefix)
        elif os.path.lexists(p) and not os.path.exists(p):
            b.out.problems.append(f"{p}: broken symbolic link")
        elif os.path.exists(p):
            b.out.roots.append(os.path.dirname(os.path.abspath(p)))
            b.out.display_roots.append((os.path.dirname(os.path.abspath(p)), ""))
            b.out.named_files.append(os.path.abspath(p))
            b.add_file(p, os.path.basename(p))
        else:
            b.out.problems.append(f"{p}: no such file or directory")
    return b.finish()
