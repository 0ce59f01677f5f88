"""Subsystem routing (DOMAIN.md 4.2): which category an error event belongs to.

Codes decide first (they are the most specific words in a line), then the plog module, then
keywords. Keywords are hints: a few anchored shapes override them, e.g. EZ1001 about the
opp_kernel package is an environment problem, 107030 under graph capture is a compile one.
"""

from __future__ import annotations

import re

from npudiag_tui.core.model import ErrorEvent

_ENV_CODES = {"E40020", "E40002", "E30006", "EJ0001", "E40024", "E40003", "EE1001"}
_MEM_CODES = {"EL0004", "EI0011"}
_STREAM_CODES = {"EE1002"}
_ENV_TEXT = re.compile(
    r"cannot open shared object|ImportError|ModuleNotFoundError|No module named|set_env\.sh|"
    r"undefined symbol|version mismatch|[Ss]oc ?[Vv]ersion|opp_kernel|binary_info_config|"
    r"[Aa]ddress already in use|port .* in use|is been using by other|PY_SSIZE_T_CLEAN|"
    r"not installed|cann package|driver version|libascend|GLIBC"
)
_DEVICE_TEXT = re.compile(
    r"error from device|aicore error|aivec error|aicpu error|ai(?:core|vec|cpu) exception|core_id=|AI ?Core|AI ?CPU|AIV\b|vector core|"
    r"device-side assert|illegal memory access|errorStr|core id is|ub address"
)
_MEM_TEXT = re.compile(r"out of memory|OutOfMemory|\bOOM\b|[Mm]emory allocation failed|alloc(?:ate)? .*fail|HBM")
_COMPILE_TEXT = re.compile(
    r"[Dd]ynamo|graph break|BackendCompilerFailed|FakeTensor|[Mm]eta tensor|capture mode|[Cc]apture|"
    r"aclgraph|npugraph|torchair|[Cc]ompil|TBE|tbe|kernel_meta|AOTAutograd|aot_eager|replay"
)
_OP_TEXT = re.compile(r"aclnn|aclop|[Tt]iling|InferShape|OpName:|op type is|operator|NNOP|[Kk]ernel param")
_COMM_TEXT = re.compile(
    r"HCCL|hccl|HCCP|hccp|ranktable|[Ss]ocket|[Nn]otify|LinkEstablish|[Tt]ransport|rdma|RDMA|"
    r"error cqe|Hccl\w+|\bRoCE\b|link down|port down"
)
_STREAM_TEXT = re.compile(r"[Ss]tream|[Ee]vent|[Ss]ynchroni[sz]e")
_CRASH_TEXT = re.compile(r"^#\d+\s+0x|Segmentation fault|SIGSEGV|core dumped|SIGABRT")


def category_of_code(code: str) -> str | None:
    if code in _ENV_CODES:
        return "environment"
    if code in _MEM_CODES:
        return "memory"
    if code in _STREAM_CODES:
        return "stream_event"
    if code.startswith(("EI", "EJ")):
        return "communication"
    if code.startswith("EL"):
        return "device"
    if code.startswith("EZ"):
        return None if code.endswith("9999") else "operator"
    if code.startswith(("E9", "EA", "EB", "E2", "E4")) and not code.endswith("9999"):
        return "compile"
    if code.startswith(("E5", "E6", "E7")):
        return "operator"
    if code.startswith("E8"):
        return "environment"
    if code.startswith("E3") and not code.endswith("9999"):
        return "device"
    if code.startswith("E1") and not code.endswith("9999"):
        return "compile"
    return None


def category_of_number(domain: str, value: int) -> str | None:
    if domain == "aclnn":
        if value in (561002, 561003) or value // 1000 == 161:
            return "operator"
        if value == 561112:
            return "environment"
        return None
    if domain == "hccl":
        return "communication"
    if domain == "acl":
        if 107025 <= value <= 107040:
            return "compile"
        if value in (207001, 207018, 207000):
            return "memory"
        if value in (507014, 507015, 507018, 507034, 507035):
            return "device"
        if value in (507046, 107020, 507048):
            return "stream_event"
        if value == 500002:
            return "compile"
        return None
    return None


def classify(ev: ErrorEvent) -> str:
    text = ev.detail or ev.text
    if ev.kind == "crash" or _CRASH_TEXT.search(text.strip()):
        return "unknown"
    if ev.kind == "import" or ev.attrs.get("env_hint") or _ENV_TEXT.search(text):
        return "environment"
    if ev.kind == "oom":
        return "memory"
    if ev.kind == "device_exc":
        return "device"
    for code in ev.codes:
        cat = category_of_code(code)
        if cat:
            if cat == "operator" and _MEM_TEXT.search(text):
                return "memory"
            return cat
    for domain in ("acl", "aclnn", "hccl"):
        if domain in ev.numeric:
            if domain == "aclnn" and ev.numeric[domain] == 561000 and _COMM_TEXT.search(text):
                return "communication"
            cat = category_of_number(domain, ev.numeric[domain])
            if cat:
                return cat
    if ev.module in ("HCCL", "HCCP"):
        return "communication"
    if _MEM_TEXT.search(text):
        return "memory"
    if _DEVICE_TEXT.search(text):
        return "device"
    if _COMM_TEXT.search(text):
        return "communication"
    if _COMPILE_TEXT.search(text):
        return "compile"
    if _OP_TEXT.search(text) or ev.module == "OP":
        return "operator"
    if _STREAM_TEXT.search(text):
        return "stream_event"
    return "unknown"


def compile_stage(texts: list[str]) -> str | None:
    """Which stage of torch.compile / ACL graph failed, from the words around the failure."""
    joined = "\n".join(texts)
    if re.search(r"10702[5-9]|10703\d|107040|capture mode|[Cc]apture", joined):
        return "capture"
    if re.search(r"[Rr]eplay", joined):
        return "replay"
    if re.search(r"npugraph_ex|torchair|npu_backend", joined):
        return "backend"
    if re.search(r"[Dd]ynamo|AOTAutograd|aot_eager|FakeTensor|graph break|BackendCompilerFailed", joined):
        return "dynamo"
    return None
