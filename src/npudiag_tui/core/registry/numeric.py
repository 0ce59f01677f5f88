"""Numeric status codes (aclError, aclnnStatus, HcclResult, torch_npu ERR) with product wording.

Why separate domains: the same number means different things per API (HCCL 9 is a timeout, aclError 9 is
nothing), so a lookup always names its domain (docs/formats.md, "Error codes").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "numeric_codes.json"
DOMAINS = ("acl", "aclnn", "hccl", "torch_npu")
_ERR_RE = re.compile(r"^ERR(\d{5})$", re.IGNORECASE)


@dataclass(frozen=True)
class NumericCode:
    """One numeric code. For torch_npu, `value` is the five digits of ERRxxxxx (ERR00100 -> 100)."""

    value: int
    name: str
    domain: str
    meaning: str


_TABLE: dict[tuple[str, int], NumericCode] | None = None


def _table() -> dict[tuple[str, int], NumericCode]:
    global _TABLE
    if _TABLE is None:
        table: dict[tuple[str, int], NumericCode] = {}
        try:
            rows = json.loads(DATA.read_text(encoding="utf-8")).get("codes", [])
        except (OSError, ValueError):
            rows = []
        for r in rows:
            key = (r["domain"], int(r["value"]))
            table.setdefault(key, NumericCode(int(r["value"]), r["name"], r["domain"], r["meaning"]))
        _TABLE = table
    return _TABLE


def lookup_numeric(value: int | str, domain: str) -> NumericCode | None:
    """Code in a domain ("acl" | "aclnn" | "hccl" | "torch_npu"); torch_npu also takes "ERR00100"."""
    domain = domain.strip().lower()
    if isinstance(value, str):
        s = value.strip()
        m = _ERR_RE.match(s)
        if m:
            value, domain = int(m.group(1)), "torch_npu"
        else:
            try:
                value = int(s, 0)
            except ValueError:
                return None
    return _table().get((domain, int(value)))


def format_torch_code(value: int) -> str:
    """ERR code text for a torch_npu value (100 -> "ERR00100")."""
    return f"ERR{value:05d}"
