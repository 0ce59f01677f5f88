"""What a CANN string code says by its shape alone (docs/formats.md, "Error codes").

Why: the registry answers for known codes, but a code never seen before still tells which component
raised it and whether it is an inner "details follow" banner, which is what ranking needs.
"""

from __future__ import annotations

import re

from npudiag_tui.core.formats.codes import CODE_PATTERN
from npudiag_tui.core.formats.codes import is_inner_code as _is_inner

CODE_RE = re.compile(rf"^{CODE_PATTERN}$")  # the one grammar (formats.codes), anchored

# Two-character prefixes with a letter component (E/W + letter).
_LETTER = {
    "E": "runtime",
    "H": "ACL",
    "I": "HCCL",
    "J": "HCCP",
    "L": "driver",
    "K": "profiling",
    "P": "dump",
    "Z": "operators/aclnn",
    "A": "operator compile",
    "B": "operator compile",
    "C": "auto tune",
    "D": "RL tune",
    "F": "LX fusion / auto deploy",
    "M": "queue schedule",
    "N": "DVPP",
    "O": "AMCT",
}
# First digit of E + 5 digits.
_DIGIT = {
    "1": "GE",
    "2": "FE",
    "3": "AI CPU",
    "4": "TEFusion",
    "5": "operator checks",
    "6": "operator checks",
    "7": "operator checks",
    "8": "vector/OPP config",
    "9": "operator compile",
}


def is_inner_code(code: str) -> bool:
    """Inner codes (…9999 / …8888) mean "component failed internally, details follow"; never a root cause."""
    code = code.strip().upper()
    return bool(CODE_RE.match(code)) and _is_inner(code)


def component_of(code: str) -> str:
    """Component that owns a code, e.g. "EI0002" -> "HCCL"; "unknown" when the shape is not a CANN code."""
    code = code.strip().upper()
    if not CODE_RE.match(code):
        return "unknown"
    second = code[1]
    if second.isdigit():
        if code[0] == "W" and code.startswith("W11"):
            return "GE"
        if code[0] == "W" and code.startswith("W40"):
            return "TEFusion"
        return _DIGIT.get(second, "unknown")
    return _LETTER.get(second, "unknown")


def describe_code(code: str) -> str:
    """One phrase: the component, plus a note when it is an inner code (e.g. "EZ9999" -> "operators/aclnn, inner code …")."""
    comp = component_of(code)
    if comp == "unknown":
        return "unknown component (not a CANN error code)"
    if is_inner_code(code):
        return f"{comp}, inner code (internal failure banner; the details before or after it carry the cause)"
    if code.strip().upper().startswith("W"):
        return f"{comp} (warning)"
    return comp
