"""Next minimal actions and missing evidence for a diagnosis (docs/diagnosis.md, "Next actions").

Why a planner of its own: the advice depends only on a few facts about the situation (category, code,
which streams and ranks were seen, whether INFO lines exist), and keeping it pure makes it easy to test
and to show the same advice in the TUI and the JSON report. Text is the product's own wording.
"""

from __future__ import annotations

import re

from ..model import NextAction, Situation
from ..formats.console import stop_signal
from .classify import killed_notice
from .events import starved_device_warning

MAX_ACTIONS = 5
CAPTURE_CODES = range(107025, 107041)  # aclError graph-capture family
HCCL_LINK_CMD = "hccn_tool -i <dev> -link -g"


def _subject(s: Situation) -> str:
    """How to name the failing thing in advice: the op, else the code, else a generic phrase."""
    if s.op_name and s.code:
        return f"{s.op_name} ({s.code})"
    return s.op_name or s.code or "the failing call"


def _code_number(code: str | None) -> int | None:
    if code and code.isdigit():
        return int(code)
    return None


def _is_capture(s: Situation) -> bool:
    n = _code_number(s.code)
    text = s.text.lower()
    return (
        s.compile_stage in ("capture", "replay")
        or (n is not None and n in CAPTURE_CODES)
        or "capture" in text
    )


def _launch_blocking(s: Situation) -> NextAction:
    return NextAction(
        action=f"Rerun the failing step with ASCEND_LAUNCH_BLOCKING=1 (slow; unset it afterwards) to pin down {_subject(s)}",
        why="Kernels are launched asynchronously, so the Python stack usually points at a later call; "
        "synchronous launch makes the stack stop at the operator that really failed.",
        env={"ASCEND_LAUNCH_BLOCKING": "1"},
    )


def _operator(s: Situation) -> list[NextAction]:
    op = s.op_name or "the operator"
    acts = [_launch_blocking(s)]
    acts.append(NextAction(
        action=f"Print shape, dtype, format and contiguity of every input of {op} at the call site and compare "
        "them with the constraints in the error text" + (f" ({s.code})" if s.code else ""),
        why="Parameter-check and tiling failures (EZ0xxx, E5-E7xxxx, 161002, 561002) name the rejected input; "
        "the fix is usually a cast, a reshape or .contiguous() before the call.",
    ))
    text = s.text.lower()
    if "opp_kernel" in text or "561003" in text or "561112" in text or ("kernel" in text and "not found" in text):
        acts.append(NextAction(
            action="Check that the opp_kernel package for this SoC is installed: "
            "ls $ASCEND_HOME_PATH/opp/built-in/op_impl/ai_core/tbe/kernel",
            why="No kernel binary for the op means the kernel package is missing or belongs to another CANN version.",
        ))
    acts.append(NextAction(
        action=f"Reproduce {op} alone with the same input shapes and dtypes in a few lines of Python",
        why="A single-op repro confirms whether the op or the surrounding model is at fault and is what a bug "
        "report needs.",
    ))
    return acts


def _device(s: Situation) -> list[NextAction]:
    if starved_device_warning(s.text):
        return _starved_device()
    return [
        _launch_blocking(s),
        NextAction(
            action="Collect with `asys collect --output=<dir>` right after the failure, then decode with `msaicerr -p <dir>`",
            why="msaicerr (toolkit tools/msaicerr) reads the first AI Core/AIV exception, names the kernel and the "
            "faulting address, and can build a single-op repro.",
        ),
        NextAction(
            action=f"Check the inputs of {s.op_name or 'the failing op'} for out-of-range indices, NaN/Inf and "
            "non-contiguous views before the call",
            why="Device exceptions and illegal memory access are most often caused by bad indices or addresses "
            "passed into an operator, not by the hardware.",
        ),
        NextAction(
            action="Run `npu-smi info` and check the device health and other processes on it",
            why="Rules out a device already in a bad state or shared with another job.",
        ),
    ]


def _starved_device() -> list[NextAction]:
    """The device's GetNext gave up waiting for the host's data (MindData warned first)."""
    return [
        NextAction(
            action="Time the dataset pipeline alone (iterate the dataset without the model) and speed it up: more "
            "num_parallel_workers, lighter per-sample transforms, prefetch, or a smaller batch",
            why="In sink mode the device fetches each batch from a queue the host fills; when the host takes longer "
            "than the device waits, the device's data-fetch task fails and the run stops.",
        ),
        NextAction(
            action="Rerun with dataset_sink_mode=False to confirm",
            why="Without sinking, the host hands each batch over itself: a slow pipeline then only slows the "
            "run instead of failing it, which confirms the cause.",
        ),
        NextAction(
            action="Check the host's CPU and disk load while the job runs (top, iostat)",
            why="Other jobs on the host, or data read from a slow or remote disk, starve the pipeline too.",
        ),
    ]


def _communication(s: Situation) -> list[NextAction]:
    acts = []
    if s.root_rank is not None and not s.timeouts_only:
        acts.append(NextAction(
            action=f"Start at rank {s.root_rank}: read its first error before anything on the other ranks",
            why="The earliest non-timeout error is the root candidate; the timeouts on other ranks are victims "
            "waiting for it.",
        ))
    acts.append(NextAction(
        action="Rerun with ASCEND_GLOBAL_EVENT_ENABLE=1 and ASCEND_GLOBAL_LOG_LEVEL=1 and keep the plogs of all ranks",
        why="Event and INFO lines add HCCL flow and heartbeat records that show which rank stopped first.",
        env={"ASCEND_GLOBAL_EVENT_ENABLE": "1", "ASCEND_GLOBAL_LOG_LEVEL": "1"},
    ))
    if s.timeouts_only:
        acts.append(NextAction(
            action="Rerun with HCCL_ENTRY_LOG_ENABLE=1 and diff the collective sequence between ranks",
            why="When every rank only times out, ranks usually issued different collectives (order, count or "
            "shape) or one rank hung; a log line per collective call shows where they diverge.",
            env={"HCCL_ENTRY_LOG_ENABLE": "1"},
        ))
    acts.append(NextAction(
        action=f"Check the NIC link of every device in the job with `{HCCL_LINK_CMD}` (and `-stat -g`), "
        "and `grep -rn 'error cqe' <log root>`",
        why="A link that is down or flapping, or error CQEs, point to the network rather than the program.",
    ))
    acts.append(NextAction(
        action="Set HCCL_CONNECT_TIMEOUT below HCCL_EXEC_TIMEOUT (e.g. HCCL_CONNECT_TIMEOUT=120, HCCL_EXEC_TIMEOUT=1800)",
        why="Connection failures then surface first and name the missing peer instead of turning into a long "
        "notify-wait timeout (EI0002).",
        env={"HCCL_CONNECT_TIMEOUT": "120", "HCCL_EXEC_TIMEOUT": "1800"},
    ))
    return acts


def _memory(s: Situation) -> list[NextAction]:
    acts = [NextAction(
        action="Run `npu-smi info` while the job runs (and right before it starts)",
        why="Shows how much HBM each process holds: another or stale job on the same device is a common cause.",
    )]
    text = s.text.lower()
    acts.append(NextAction(
        action="If reserved memory is far above allocated in the OOM message, rerun with "
        "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
        why="Fragmentation of the caching allocator makes large blocks fail even when enough memory is free in total.",
        env={"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True"},
    ))
    if "hccl" in text or (s.code or "").startswith("EI") or s.rank_count > 1:
        acts.append(NextAction(
            action="Lower HCCL_BUFFSIZE (MB, default 200, taken twice per communicator) or create fewer process groups",
            why="Every communicator reserves its own buffers in HBM; many groups can eat gigabytes.",
            env={"HCCL_BUFFSIZE": "100"},
        ))
    acts.append(NextAction(
        action="Reduce the peak: smaller micro-batch, activation checkpointing, or shorter sequence/KV cache "
        "(vLLM: lower gpu_memory_utilization or max_model_len)",
        why="Confirms it is a real capacity problem rather than a leak, and gives a working configuration.",
    ))
    return acts


def _compile(s: Situation) -> list[NextAction]:
    if _is_capture(s):
        return [
            NextAction(
                action="Run the failing step eagerly (disable graph capture / npugraph for that part, e.g. "
                "torch.compiler.disable on the offending function, or enforce_eager=True in vLLM)",
                why="Codes 107025-107040 mean an operation that is forbidden or inconsistent during stream capture; "
                "eager execution for that part is a safe workaround and confirms the diagnosis.",
            ),
            NextAction(
                action="Look for host synchronisation, .item()/.cpu(), new memory allocation or stream/event "
                "changes inside the captured region",
                why="These are the typical operations that break ACL graph capture.",
            ),
            NextAction(
                action="Rerun with TORCH_LOGS=+dynamo,+aot,+graph_breaks",
                why="Shows which node was being captured when it failed.",
                env={"TORCH_LOGS": "+dynamo,+aot,+graph_breaks"},
            ),
        ]
    acts = [
        NextAction(
            action="Bisect the stage: run eager, then torch.compile(backend=\"aot_eager\"), then the npugraph_ex backend",
            why="Eager fails -> torch_npu/op; aot_eager fails -> Dynamo/FX/AOTAutograd; only npugraph_ex fails -> "
            "backend, Meta/FakeTensor inference or graph capture.",
        ),
        NextAction(
            action="Rerun with TORCH_LOGS=+dynamo,+aot,+graph_breaks and TORCH_COMPILE_DEBUG=1",
            why="Logs the traced graph, graph breaks and the node being lowered when it failed.",
            env={"TORCH_LOGS": "+dynamo,+aot,+graph_breaks", "TORCH_COMPILE_DEBUG": "1"},
        ),
    ]
    code = s.code or ""
    if code.startswith(("E4", "E2", "E9", "EA", "EB")) or "compile op" in s.text.lower():
        acts.insert(0, NextAction(
            action=f"Open the host plog around {_subject(s)} and read the TEFUSION/FE lines and the Python stack "
            "before it (look for E40020, E40024, E40003)",
            why="An operator compile failure code only says that compilation failed; the reason is logged just "
            "before it, often an environment problem.",
        ))
    return acts


# set-up failures whose line says what to fix: a file's owner or mode that a check refused, a
# configuration that would not load, the copy of a library the dynamic loader bound
_PERMISSION_CHECK = re.compile(r"(?i)\bpermission\b|\b(?:should|does not|doesn't) belong to\b|\bpath\b.{0,40}\binsecure\b")
_CONFIGURATION = re.compile(r"(?i)\bconfig(?:uration)?[ _]?manager\b|\bconfig\w*\b.{0,60}\bfrom (?:json|yaml|(?:the )?file)\b|"
                            r"\b(?:init\w*|load\w*|pars\w*) (?:the )?config\w*\b|\bvalidation errors? for\b")
# (a library the loader finds at all: one it cannot find is the generic set-up, set_env.sh first)
_LOADER_BINDING = re.compile(r"undefined symbol|relocation error|version `[^'\s]+' not found|\bversion \S+ not defined in file\b")


def set_up_failure(text: str) -> str | None:
    """Which set-up failure a line names ("permission", "configuration", "loader"), or None."""
    for kind, pattern in (("permission", _PERMISSION_CHECK), ("configuration", _CONFIGURATION),
                          ("loader", _LOADER_BINDING)):
        if pattern.search(text):
            return kind
    return None


SET_UP_CAUSES = {
    "permission": "A file or folder the job reads failed a check of its owner or mode: the service refuses what "
                  "other users could change (or read).",
    "configuration": "The service could not build its configuration from its file at start-up: the file's syntax, "
                     "or a key or value this release does not accept.",
    "loader": "The dynamic loader bound a program or library to another build of a library than it was linked "
              "against: a copy earlier on the search path shadows the right one.",
}
"""The most likely cause of each set-up failure a line names (`set_up_failure`)."""


def _named_set_up(s: Situation) -> NextAction | None:
    """The step a set-up failure's own line asks for, when it names one."""
    kind = set_up_failure(s.text)
    if kind == "permission":
        return NextAction(
            action="Fix the owner and mode of the file or folder the line names: owned by the user that runs "
            "the job, not writable (for MindIE's checks, not readable) by group or others, e.g. `chown <user> "
            "<path>` and `chmod 640 <file>` (750 for a folder); then start again",
            why="Ascend's services and tools check the owner and mode of what they read before using it and refuse "
            "what others could change; the line says which check failed.",
        )
    if kind == "configuration":
        return NextAction(
            action="Check the configuration file the service loads: its syntax (`python -m json.tool <file>` for "
            "JSON), then each key and value against the documentation of this release",
            why="The service could not build its configuration from the file, so nothing after start-up ran; a key, "
            "a type or a structure of another release fails the same way.",
        )
    if kind == "loader":
        return NextAction(
            action="Find which copy of the library the loader bound: `ldd <program or .so> | grep <library>` and "
            "`echo $LD_LIBRARY_PATH` (a conda or venv lib folder listed first shadows the system's)",
            why="The program was bound to another build of a library than it was linked against; the copy found "
            "first on the search path is most often the wrong one.",
        )
    return None


def _environment(s: Situation) -> list[NextAction]:
    lead = _named_set_up(s)
    return ([lead] if lead else []) + [
        NextAction(
            action="source <install>/set_env.sh (e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh) in the job's "
            "shell, then `echo $ASCEND_HOME_PATH $LD_LIBRARY_PATH`",
            why="Missing libraries, ASCEND_OPP_PATH or a half-set environment produce import and load failures.",
        ),
        NextAction(
            action="Compare versions: `cat $ASCEND_HOME_PATH/version.cfg` (or *_install.info), "
            "`pip show torch torch_npu`, `npu-smi info` (driver), `python --version`",
            why="CANN, torch_npu, driver and Python must be a supported combination; mismatches show up as load, "
            "import or compile errors.",
        ),
        NextAction(
            action="Check the opp_kernel package for this SoC is installed: "
            "ls $ASCEND_HOME_PATH/opp/built-in/op_impl/ai_core/tbe/kernel",
            why="Without the kernel package operators fail to load or report missing kernels.",
        ),
        NextAction(
            action="Look for leftover processes from an earlier run (`npu-smi info`, `ps -ef | grep python`) and stop them",
            why="Stale jobs hold devices and ports (EJ0001, address in use).",
        ),
    ]


def _stream_event(s: Situation) -> list[NextAction]:
    return [
        NextAction(
            action="Treat the synchronize/event timeout as a symptom: collect the plogs of all ranks with "
            "ASCEND_GLOBAL_LOG_LEVEL=1 and look for an earlier device or HCCL error",
            why="A stream sync fails when something earlier on the stream hung or failed; that earlier error is the cause.",
            env={"ASCEND_GLOBAL_LOG_LEVEL": "1"},
        ),
        _launch_blocking(s),
        NextAction(
            action="Collect device logs (`msnpureport`) from the failing node",
            why="Device-side task exceptions and timeouts are logged on the device, not in the host plog.",
        ),
    ]


def _record_versions(what: str) -> NextAction:
    return NextAction(
        action="Record versions: CANN (version.cfg), `pip show torch torch_npu`, driver (`npu-smi info`), Python",
        why=f"Needed to match the {what} with known issues.",
    )


def _unknown(s: Situation) -> list[NextAction]:
    if killed_notice(s.text):
        return _killed(s)
    if stop_signal(s.text):
        return _stopped()
    if not s.crashed:
        return _unclassified(s)
    return [
        NextAction(
            action="Get a native backtrace: `ulimit -c unlimited` and rerun, then `gdb -batch -ex bt python core`; "
            "or run with `python -X faulthandler`",
            why="A crash without a CANN code needs the native stack to tell an operator from a host bug.",
        ),
        _record_versions("crash"),
        _launch_blocking(s),
    ]


def _killed(s: Situation) -> list[NextAction]:
    """Killed with nothing failed before it: who killed it, and why, is outside the job's logs."""
    return [
        NextAction(
            action="Look for the kernel's out-of-memory killer on that host: "
            "`dmesg -T | grep -i -E 'killed process|out of memory'`, and `free -g` while the job loads",
            why="A process killed without an error of its own was most often killed by the kernel when host "
            "memory ran out (weights are read into host memory before they reach the NPU).",
        ),
        NextAction(
            action="Check the limits of what started it: the container's memory limit, the scheduler's job "
            "time and memory limits, a watchdog that kills hung workers",
            why="Without an OOM record the kill came from outside the process, and its sender logged why.",
        ),
        _record_versions("failure"),
    ]


def _stopped() -> list[NextAction]:
    """Told to stop before anything failed: the sender, not the job, knows why."""
    return [
        NextAction(
            action="Find who sent the stop: the scheduler's record of the job (cancelled, time limit, "
            "preemption; e.g. `sacct -j <job> -o State,Elapsed,Timelimit`), or the shell or orchestrator "
            "that ran the launcher",
            why="The launcher logs that it received the signal, not who sent it or why.",
        ),
        NextAction(
            action="If the job spans several nodes, open the other nodes' logs and look there for an error "
            "before this moment",
            why="A launcher on a healthy node is stopped when the job fails elsewhere.",
        ),
    ]


def _unclassified(s: Situation) -> list[NextAction]:
    """An error no rule routes and no crash follows: read what led to it before anything native."""
    return [
        NextAction(
            action="Read the lines logged just before the anchor in its file, and rerun with "
            "ASCEND_GLOBAL_LOG_LEVEL=1 to see the steps that led to it",
            why="An error line without a CANN code is explained by what the process did just before it.",
            env={"ASCEND_GLOBAL_LOG_LEVEL": "1"},
        ),
        _record_versions("error"),
        _launch_blocking(s),
    ]


def _build(s: Situation) -> list[NextAction]:
    """A build, an install or an offline conversion failed: its own output is the evidence, and
    the usual suspect is the toolkit it built against, not a running job."""
    acts = []
    if s.category == "environment":
        acts.append(NextAction(
            action="Check the toolkit the build found: `source <install>/set_env.sh`, `echo $ASCEND_HOME_PATH`, "
            "`cat $ASCEND_HOME_PATH/version.cfg`, and that the SoC it names is in the toolkit's support list",
            why="A configure step that cannot find a package, or refuses the SoC, is reading another or an "
            "incomplete CANN install (two installs on one machine, an unsourced set_env.sh, a chip the release "
            "does not build for).",
        ))
    else:
        acts.append(NextAction(
            action="Fix the first error the compiler or converter printed (the anchor) at the file and line it "
            "names; the errors after it are usually its consequences",
            why="A build stops at its first error; later errors and the make/pip summaries only repeat that it failed.",
        ))
    acts.append(NextAction(
        action="Get the whole output from the first error on: a build with `pip install -v .`, `VERBOSE=1 make` "
        "or `cmake --build . -v`; a converter at `--log=info`; a kernel compiled at run time, the compile log or "
        "cache folder its error names",
        why="The commands and the lines before the first error show which toolkit, headers and flags were used.",
    ))
    acts.append(NextAction(
        action="Compare the toolkit version with the one the sources support (the project's README or "
        "requirements, `cat $ASCEND_HOME_PATH/version.cfg`, `pip show torch torch_npu`)",
        why="Kernels and extensions built against another CANN or torch_npu release fail on renamed types, "
        "moved headers or missing packages.",
    ))
    return acts


_PLANNERS = {
    "operator": _operator,
    "device": _device,
    "communication": _communication,
    "memory": _memory,
    "compile": _compile,
    "environment": _environment,
    "stream_event": _stream_event,
    "unknown": _unknown,
}


def _missing(s: Situation) -> tuple[list[str], list[NextAction]]:
    """What evidence is absent and how to collect it, plus any collection step worth running first."""
    missing: list[str] = []
    extra: list[NextAction] = []
    streams = {str(x) for x in s.streams}
    if s.building:  # no job ran: its logs would not say more than the build's own output
        missing.append(
            "The build's whole output from its first error, with the commands it ran (`pip install -v .`, "
            "`VERBOSE=1 make`), and the versions it built against (CANN version.cfg, torch, torch_npu)."
        )
        return missing, extra
    if "plog" not in streams:
        missing.append(
            "No CANN host plog among the inputs: rerun with ASCEND_PROCESS_LOG_PATH=<fresh dir> and "
            "ASCEND_GLOBAL_LOG_LEVEL=1 (or ASCEND_SLOG_PRINT_TO_STDOUT=1 to put plog lines on the console), "
            "then open that folder too."
        )
        extra.append(NextAction(
            action="Rerun with ASCEND_PROCESS_LOG_PATH=<fresh dir> ASCEND_GLOBAL_LOG_LEVEL=1 and open that folder",
            why="The console only shows the last wrapper; the plog has the first causal error with its time.",
            env={"ASCEND_PROCESS_LOG_PATH": "<fresh dir>", "ASCEND_GLOBAL_LOG_LEVEL": "1"},
        ))
    elif not s.has_info_lines:
        missing.append(
            "Only WARNING/ERROR lines are present: rerun at ASCEND_GLOBAL_LOG_LEVEL=1 (INFO) to see the steps "
            "before the error (0 = DEBUG, very heavy)."
        )
    if s.category in ("device", "operator") and not s.has_device_logs and "device" not in streams:
        missing.append(
            "No device logs: set ASCEND_LOG_DEVICE_FLUSH_TIMEOUT (ms) so device logs are flushed before the process "
            "exits, or export them with `msnpureport` on the node, and open them with the host logs."
        )
    if s.category == "communication" and (s.rank_count <= 1 or s.timeouts_only):
        why = "only one rank's logs are present" if s.rank_count <= 1 else "every rank seen only times out"
        missing.append(
            f"Logs of all ranks are needed ({why}): copy the plog folders of every rank/node; the root cause is "
            "usually on the rank that stopped first."
        )
    if s.category in ("communication", "stream_event", "device") or s.rank_count > 1:
        missing.append(
            "For long jobs raise ASCEND_HOST_LOG_FILE_NUM (up to 1000) so the early plog files holding the first "
            "error are not rotated away."
        )
    return missing, extra


def plan_actions(situation: Situation) -> tuple[list[NextAction], list[str]]:
    """(next actions, most useful first; what evidence is missing and how to collect it)."""
    planner = _build if situation.building else _PLANNERS.get(situation.category, _unknown)
    actions = planner(situation)
    missing, extra = _missing(situation)
    # When the plog itself is missing, collecting it is the most useful next step (not for a job
    # told to stop from outside: a rerun's plog would not say who sent the signal).
    # (nor for a set-up failure whose own line says what to fix: a rerun would print the same line)
    told = situation.category == "environment" and set_up_failure(situation.text) is not None
    actions = actions + extra if stop_signal(situation.text) or told else extra + actions
    seen: set[str] = set()
    unique: list[NextAction] = []
    for a in actions:
        if a.action not in seen:
            seen.add(a.action)
            unique.append(a)
    return unique[:MAX_ACTIONS], missing
