"""Archive extraction for logs attached to bug reports: regular files only, nothing outside.

An archive is untrusted input. Why each rule exists:

* One `ExtractBudget` for the whole input (bytes written and members seen, nested archives
  included): a per-archive budget multiplies with nesting (a 2 MB zip of zips wrote 2.1 GiB).
  Bytes are counted as they are written, not as headers declare (a hard link's header says 0).
* A nesting depth limit: a 400-level `.tar.gz` otherwise recursed until Python gave up.
* Free space in the temp folder is checked before each member, so a bundle cannot fill the disk.
* One odd member (a file and a folder of the same name, a 300-character name, a corrupt or
  encrypted entry) is skipped with a reason; the rest of the archive is still read, and a stream
  that breaks half way (a gzip CRC error, truncation) keeps the members read before it.
* Hard links to regular members are read (their data is in the archive); symbolic links, devices
  and FIFOs are never followed or created, and are listed with the reason.
"""
from __future__ import annotations

import atexit
import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import IO, Callable

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar")
# What a damaged or hostile archive raises while it is opened or read. zlib and lzma errors are
# not OSError; zipfile raises RuntimeError for an encrypted member and NotImplementedError for an
# unknown compression method.
ARCHIVE_ERRORS = (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError, zlib.error,
                  lzma.LZMAError, RuntimeError, NotImplementedError, KeyError)
_COPY_CHUNK = 1 << 20


@dataclass(frozen=True)
class ExtractLimits:
    """Limits for everything extracted from one input (all archives, nested ones included)."""

    max_bytes: int = 2 << 30  # a real bundle of logs is far smaller; a bomb is not
    max_members: int = 100_000
    max_depth: int = 8  # archives inside archives inside ... the outermost is depth 1
    min_free_bytes: int = 512 << 20  # what extraction leaves free in the temp folder


LIMITS = ExtractLimits()
"""The limits discovery uses; a test may replace it to exercise a limit with small inputs."""


class LimitReached(Exception):
    """A budget is spent: extraction stops here, what was written so far is kept."""


@dataclass
class ExtractBudget:
    """What the whole input has used so far; shared by every archive of one discovery."""

    limits: ExtractLimits = field(default_factory=lambda: LIMITS)
    bytes_used: int = 0
    members_seen: int = 0
    exhausted: str | None = None  # the limit that stopped extraction, once one did

    def take_member(self) -> None:
        self.members_seen += 1
        if self.members_seen > self.limits.max_members:
            self._stop(f"more than {self.limits.max_members:,} archive members in the input")

    def check_room(self, dest: str, declared: int) -> None:
        if self.bytes_used + declared > self.limits.max_bytes:
            self._stop(f"archives expand beyond {_size(self.limits.max_bytes)} in total")
        try:
            free = shutil.disk_usage(dest).free
        except OSError:
            return
        if free - declared < self.limits.min_free_bytes:
            self._stop(f"temp folder {os.path.dirname(dest) or dest} has only {_size(free)} free")

    def take_bytes(self, n: int) -> None:
        self.bytes_used += n
        if self.bytes_used > self.limits.max_bytes:
            self._stop(f"archives expand beyond {_size(self.limits.max_bytes)} in total")

    def _stop(self, why: str) -> None:
        self.exhausted = self.exhausted or why
        raise LimitReached(self.exhausted)


@dataclass
class ExtractResult:
    """Member names with a reason: `problems` could not be read, `skipped` were left out on purpose;
    `stopped` says why extraction ended early (a spent budget or a broken stream), if it did."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    stopped: str | None = None
    extracted: int = 0


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def _safe_member(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return False
    parts = re.split(r"[\\/]+", name)
    return ".." not in parts


def reason(exc: BaseException) -> str:
    """One line for an exception: the OS's words for OSError, the message otherwise."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower() if exc.strerror[:1].isupper() and exc.strerror[1:2].islower() else exc.strerror
    lines = str(exc).splitlines()
    text = lines[0] if lines else exc.__class__.__name__
    if text.endswith(":") and len(lines) > 1:
        # tarfile's "could not be opened successfully:" lists why each compression failed below
        # it: the reasons are the useful part, so they join the line instead of being dropped
        text += " " + "; ".join(_METHOD.sub(r"\1: \2", ln.strip("- ")) for ln in lines[1:] if ln.strip())
    return text[:300]


_METHOD = re.compile(r"^method (\w+): \w+\('?(.*?)'?\)$")


class _Writer:
    """Writes members below `dest`, counting every byte against the shared budget."""

    def __init__(self, dest: str, budget: ExtractBudget, result: ExtractResult) -> None:
        self.dest = dest
        self.budget = budget
        self.result = result

    def write(self, name: str, declared: int, opener: Callable[[], IO[bytes] | None]) -> None:
        """One member; a member-level failure is recorded and extraction goes on."""
        parts = [p for p in re.split(r"[\\/]+", name) if p]
        if not parts or parts[-1] in (".", "..") or name.endswith(("/", "\\")):
            self.result.problems.append((name, "not a file name; skipped"))
            return
        self.budget.check_room(self.dest, declared)
        target = os.path.join(self.dest, *parts)
        written = 0
        created = False  # only a file this member made may be removed again (another's stays)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            src = opener()
            if src is None:
                self.result.skipped.append((name, "not a regular file"))
                return
            with src, open(target, "xb") as out:
                created = True
                while True:
                    block = src.read(_COPY_CHUNK)
                    if not block:
                        break
                    self.budget.take_bytes(len(block))
                    written += len(block)
                    out.write(block)
        except LimitReached:
            raise
        except FileExistsError:
            self.result.problems.append((name, "its name clashes with another member's; skipped"))
            return
        except ARCHIVE_ERRORS as exc:
            if written:
                self.result.problems.append((name, f"corrupt ({reason(exc)}); the {written:,} bytes before "
                                                   "the error are read"))
                self.result.extracted += 1
            else:
                self.result.problems.append((name, f"cannot extract ({reason(exc)}); skipped"))
                if created:
                    _remove_empty(target)
            return
        self.result.extracted += 1


def _remove_empty(path: str) -> None:
    try:
        if os.path.isfile(path) and os.path.getsize(path) == 0:
            os.unlink(path)
    except OSError:
        pass


def _link_kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device file"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    return "not a regular file"


def _extract_zip(path: str, w: _Writer) -> None:
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            w.budget.take_member()
            if info.is_dir():
                continue
            if not _safe_member(info.filename):
                w.result.problems.append((info.filename, "refused (path escapes the archive)"))
                continue
            mode = info.external_attr >> 16  # Unix mode when made on Unix; the type bits may be 0
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                w.result.skipped.append((info.filename, f"{_link_kind(mode)} in the archive; not followed"))
                continue
            w.write(info.filename, info.file_size, lambda info=info: zf.open(info))


def _extract_tar(path: str, w: _Writer) -> None:
    with tarfile.open(path, "r:*") as tf:
        members = iter(tf)  # not tf.next(): reading a hard link loads the member list, which next() skips
        while True:
            try:
                member = next(members, None)
            except ARCHIVE_ERRORS as exc:  # a broken stream: keep what was read before it
                w.result.stopped = f"archive damaged after {w.result.extracted} member(s) ({reason(exc)})"
                return
            if member is None:
                break
            w.budget.take_member()
            if member.isdir():
                continue
            if not _safe_member(member.name):
                w.result.problems.append((member.name, "refused (path escapes the archive)"))
                continue
            if member.issym():
                w.result.skipped.append((member.name, f"symbolic link to {member.linkname}; not followed"))
                continue
            if member.islnk():
                # a hard link's data is a regular member of the same archive: safe to read
                w.write(member.name, 0, lambda member=member: tf.extractfile(member))
                continue
            if not member.isfile():
                kind = "device file" if member.isdev() and not member.isfifo() else (
                    "FIFO" if member.isfifo() else "not a regular file")
                w.result.skipped.append((member.name, f"{kind} in the archive; not extracted"))
                continue
            w.write(member.name, member.size, lambda member=member: tf.extractfile(member))
        # the gzip trailer (CRC and length) is checked only once the stream is read to its end
        try:
            fileobj = tf.fileobj
            if fileobj is not None:
                while fileobj.read(_COPY_CHUNK):
                    pass
        except ARCHIVE_ERRORS as exc:
            w.result.stopped = f"archive damaged ({reason(exc)}); the {w.result.extracted} member(s) read are kept"


def extract_archive(path: str, dest: str, budget: ExtractBudget | None = None) -> ExtractResult:
    """Extract regular files (and hard links to them) below `dest`, refusing traversal, symbolic
    links and devices, within `budget`. Raises ARCHIVE_ERRORS only when the archive cannot be
    opened at all; everything later is recorded in the result."""
    budget = budget if budget is not None else ExtractBudget()
    result = ExtractResult()
    w = _Writer(dest, budget, result)
    try:
        if path.lower().endswith(".zip"):
            _extract_zip(path, w)
        else:
            _extract_tar(path, w)
    except LimitReached as exc:
        result.stopped = f"extraction stopped: {exc}"
    except ARCHIVE_ERRORS:
        if not result.extracted and not result.problems and not result.skipped:
            raise  # not an archive at all, or unreadable: the caller names it in one line
        result.stopped = "archive damaged; the members read before are kept"
    return result


# Temp roots this process made, removed at exit even when discovery never returned (Ctrl-C or a
# SIGTERM turned into SystemExit between extraction and the workspace taking them over). Only the
# process that made a root removes it: forked index workers must not delete their parent's files.
_LIVE_ROOTS: dict[str, int] = {}


@atexit.register
def _remove_live_roots() -> None:
    for root, pid in list(_LIVE_ROOTS.items()):
        if pid == os.getpid():
            shutil.rmtree(root, ignore_errors=True)
            _LIVE_ROOTS.pop(root, None)


class ArchiveSession:
    """The archive state of one input: one budget, one private temp root, the nesting depth."""

    def __init__(self, limits: ExtractLimits | None = None) -> None:
        self.budget = ExtractBudget(limits or LIMITS)
        self.depth = 0  # archives currently open around the one being read
        self.root: str | None = None

    def new_folder(self) -> str:
        """A fresh folder for one archive, inside the one root (so one rmtree removes them all)."""
        if self.root is None or not os.path.isdir(self.root):
            self.root = tempfile.mkdtemp(prefix="npudiag-")
            _LIVE_ROOTS[self.root] = os.getpid()
        return tempfile.mkdtemp(prefix="a", dir=self.root)

    def too_deep(self) -> str | None:
        """Why the next archive must not be opened, or None."""
        if self.depth >= self.budget.limits.max_depth:
            return f"not opened: archives nested more than {self.budget.limits.max_depth} deep"
        if self.budget.exhausted:
            return f"not opened: {self.budget.exhausted}"
        return None

