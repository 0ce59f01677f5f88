"""Archive extraction for logs attached to bug reports: regular files only, nothing outside."""
from __future__ import annotations

import os
import re
import shutil
import tarfile
import zipfile

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar")
MAX_ARCHIVE_BYTES = 8 << 30
ARCHIVE_ERRORS = (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError)


def _safe_member(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return False
    parts = re.split(r"[\\/]+", name)
    return ".." not in parts


def extract_archive(path: str, dest: str) -> list[str]:
    """Extract regular files only, refusing traversal, links and devices. Returns refused names."""
    refused: list[str] = []
    total = [0]

    def write(name: str, size: int, opener) -> None:
        total[0] += size
        if total[0] > MAX_ARCHIVE_BYTES:
            raise ValueError("archive expands beyond 8 GiB")
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        src = opener()
        if src is None:
            return
        with src, open(target, "wb") as out:
            shutil.copyfileobj(src, out, 1 << 20)

    if path.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir():
                    continue
                if not _safe_member(info.filename):
                    refused.append(info.filename)
                    continue
                write(info.filename, info.file_size, lambda info=info: zf.open(info))
        return refused
    with tarfile.open(path, "r:*") as tf:
        for member in tf:
            if member.isdir():
                continue
            if not _safe_member(member.name):
                refused.append(member.name)
                continue
            if not member.isfile():
                continue  # links and devices are not followed
            write(member.name, member.size, lambda member=member: tf.extractfile(member))
    return refused
