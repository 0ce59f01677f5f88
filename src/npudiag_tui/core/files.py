"""Opening input files safely: a path that became a FIFO, socket or device after discovery
must not block the reader (a FIFO's open waits for a writer forever) nor be read as a log."""

from __future__ import annotations

import errno
import os
import stat


class NotRegularFile(OSError):
    """The path holds something other than a regular file now."""


def open_regular(path: str) -> int:
    """A read-only descriptor on path, which must be a regular file. Opened non-blocking, so a
    FIFO swapped in under the same name returns at once and is refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegularFile(errno.EINVAL, "not a regular file (a FIFO, socket or device)", path)
    return fd
