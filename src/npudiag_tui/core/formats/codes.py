"""Error codes in every shape they are printed in (docs/formats.md, "Error codes").

CANN string codes (E/W + letter + 4 digits, E + 5 digits), aclError numbers, aclnn statuses,
torch_npu ERRxxxxx and HcclResult values. Each numeric code is returned with its domain,
because the same number means different things in different tables.
"""

from __future__ import annotations

import re

CODE_PATTERN = r"[EW][0-9A-Z]\d{4}"
"""The one grammar of a CANN string code (E/W, a component letter or digit, four digits);
every other pattern builds on it."""
# the code stands alone: not inside a word, but it may touch a `\n` escape or a bracket
CODE_RE = re.compile(rf"(?:(?<![A-Za-z0-9_])|(?<=\\n)|(?<=\\t))({CODE_PATTERN})(?![0-9A-Za-z])")
TORCH_ERR_RE = re.compile(r"(?<![A-Za-z0-9])(ERR\d{5})(?!\d)")
ACL_RE = re.compile(
    r"(?:[Ee]rror ?[Cc]ode(?: is|\s*[=:])|\breturn(?:ed|s)? (?:error )?code\s|runtime result =|ErrCode=|\bfailed\b[^=\n]{0,80}?\berr=|CANN failure |\bret\s*[=:]?\s*|[Rr]et[Cc]ode[=:]|\bERROR|[Ee]rror:|failed\s*:|failed with (?:error )?code|"
    r"\[(?=\d{6}\]\[[Ee]rror\b)|\bret\[(?=\d{6}\])|"  # SDK_STATUS_RE's shape; MindSpore's `ret[107001]`
    r"\bCalling Function = \w+, Code =)\s*"  # MindX SDK names the CANN call and its status
    r"([1-5]\d{5})(?!\d|\.\d)"  # a sentence may end right after the number; a version may not
)
ACLNN_RE = re.compile(r"errno\[(\d{6})\]")
# a system call's error number as C and Python print it (`errno is 30`, `errno: 13`, `[Errno 101]`),
# the number to follow; led by a literal, so `re` skips ahead (it is read on console lines)
ERRNO_FORM = r"(?:errno(?: is|:|=| ?\[) ?|\[Errno )"
# MindX SDK logs the status of the CANN call that failed under it first, in brackets
# (`[507011][Error code unknown] Failed to model infer execute`): the failure where it happened
SDK_STATUS_RE = re.compile(r"\[([1-5]\d{5})\]\[[Ee]rror\b")
# a call that prints its own result, with or without words around it (`RegisterAscendBinary aiv
# ret 107000`, `Register mem ret:207000.`, MindSpore's `Call aclrtSetDevice failed, ret[107001].`,
# ONNX Runtime's `CANN failure 100002: ACL_ERROR_REPEAT_INITIALIZE`): the
# one grammar the scan and the engine read it by
CALL_RESULT_RE = re.compile(r"(?:ret(?:Code)?(?:[ =:]+|\[)|CANN failure )([1-5]\d{5})(?!\d|\.\d)")
HCCL_CALL_TRACE = r"call trace: (?:hccl)?[Rr]et -> "
"""HCCL's trace of a call that returned a failure (`call trace: hcclRet -> 4`, older `ret -> 7`):
printed after the failing statement's own report, never a reason of its own."""
HCCL_RE = re.compile(r"(?:hcclRet -> |HCCL function error: .*?, error code is )(\d{1,4})(?!\d)")
HCCL_RET_RE = re.compile(r"\b(?:ret|return)\[(\d{1,4})\]")


def string_codes(text: str) -> list[str]:
    """CANN string codes in order of appearance, without duplicates.

    A W-code is only kept when it looks like a registry code (W + digit or known letter);
    words like `W0311` in c10 stamps are excluded by requiring a letter/digit mix typical of
    CANN (`W11001`, `WE0001`).
    """
    out: list[str] = []
    for m in CODE_RE.finditer(text):
        code = m.group(1)
        if code[0] == "W" and code[1:3].isdigit() and len(code) == 5:
            continue  # c10 `W0311` month-day stamps, not a code
        if code not in out:
            out.append(code)
    return out


def numeric_codes(text: str) -> dict[str, int]:
    """Numeric codes keyed by domain: acl, aclnn, hccl, torch_npu (first of each wins)."""
    found: dict[str, int] = {}
    m = TORCH_ERR_RE.search(text)
    if m:
        found["torch_npu"] = int(m.group(1)[3:])
    if "HCCL function error" in text or "hcclRet" in text:
        m = HCCL_RE.search(text)
        if m:
            found["hccl"] = int(m.group(1))
    if "hccl" not in found and ("HCCL" in text or "Hccl" in text or "hccl" in text):
        m = HCCL_RET_RE.search(text)  # ret[9], return[19]: HcclResult in HCCL lines only
        if m:
            found["hccl"] = int(m.group(1))
    m = ACLNN_RE.search(text)
    if m:
        found["aclnn"] = int(m.group(1))
    m = ACL_RE.search(text)
    if m and "hccl" not in found:
        value = int(m.group(1))
        # aclnn statuses live in 161xxx/361xxx/561xxx; no aclError shares those ranges
        if value // 1000 in (161, 361, 561):
            found.setdefault("aclnn", value)
        else:
            found["acl"] = value
    return found


def torch_err(text: str) -> str | None:
    m = TORCH_ERR_RE.search(text)
    return m.group(1) if m else None


def is_inner_code(code: str) -> bool:
    return code.endswith("9999") or code.endswith("8888")
