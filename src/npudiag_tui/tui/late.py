"""Handlers of worker messages that may arrive after the app began to quit.

Workers post from their threads until they notice the cancellation, and Textual, when the app
quits, takes the screen's widgets down while queued messages are still handed over: a handler
that queries a pane then raised NoMatches (`#pane-hccl` in bench/run_live.py's storm, about
every other run). The app stops running before the first widget goes, so that is the test.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from textual.app import App
from textual.message_pump import MessagePump

F = TypeVar("F", bound=Callable[..., Any])


def app_running(node: MessagePump) -> bool:
    """Whether the node's app still runs (its widgets are all there)."""
    app = node if isinstance(node, App) else node.app
    return app.is_running


def while_running(handler: F) -> F:
    """Drop the call (a late message, a callback after the refresh) once the app is quitting."""

    @functools.wraps(handler)
    def guarded(self: MessagePump, *args: Any, **kwargs: Any) -> Any:
        if not app_running(self):
            return None
        return handler(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]
