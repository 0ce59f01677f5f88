"""Scanned lines -> error events: what each line *is* (detail, wrapper, sync failure, timeout...).

A kind is decided from the line alone, with a little context for multi-line shapes: a CANN
error-manager block owns the indented lines after it, a device exception is one event per
serial number, a TraceBack section is the outer layers of the detail above it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Callable

from npudiag_tui.core.formats import console as C
from npudiag_tui.core.formats import build as B
from npudiag_tui.core.formats.bounded import MAX_GRAMMAR_CHARS
from npudiag_tui.core.formats.codes import (CALL_RESULT_RE, CODE_PATTERN, ERRNO_FORM, HCCL_CALL_TRACE, SDK_STATUS_RE,
                                            is_inner_code, numeric_codes, string_codes)
from npudiag_tui.core.formats.levels import line_level
from npudiag_tui.core.formats.plog import PlogLine, parse_plog
from npudiag_tui.core.formats.timestamps import EPOCH_MARK, find_stamp, ts6_to_us
from npudiag_tui.core.index import FileIndex, UnreadableFile
from npudiag_tui.core.model import ErrorEvent, EventKind, Level, LineRef, Source, Stream
from npudiag_tui.core.registry import lookup_numeric
from npudiag_tui.core.scan import EMPTY_MESSAGE_LINES, POSITION_MESSAGE, POSITION_MESSAGE_LINES, LineHit
from npudiag_tui.core.timemodel import TimeModel

K = EventKind

# Known noise at ERROR level, keyed on module and exact phrase, never on a bare word: a filter on
# "symbol" also hid "undefined symbol", a loader failure.
_BENIGN_MODULES = {"ATRACE", "PROFILING", "TUNE", "MSPROF", "DVPP_TRACE"}
# the debug daemon's stub (IDEDD) is noise by phrase, not as a module: it fails to collect its
# symbols and writes dumps on every start, but its driver queries (`Get physical device number
# failed, err: 87`) fail only when the process cannot see a device
_BENIGN_IDEDD = re.compile(r"symbol collection|\bdlsym\b|\[Dump\]")
_BENIGN_PLOG = re.compile(
    r"open file failed|trace collect|^[\s_|=\-+*]*$|^[\s|]*[-_=]{6,}|LINK_ERROR_INFO|dest_ip\(user_rank\)|"
    r"comm error, device\[|^\s*\||FormatErrorMessage failed"  # the error manager could not format a message
)
# known noise printed at error level outside plog files: exact phrases only
_BENIGN_TEXT = re.compile(
    r"DrvMngGetConsoleLogLevel failed"  # driver tools cannot read the console log level in a container
)
# the last line of a Python traceback, whatever the exception class is called
_PY_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:: \S.*)?$")
# an error that says only that it is unspecified (OpenCV's `error: (-2:Unspecified error) in
# function 'f'`): what it wraps is printed after it
_UNSPECIFIED = re.compile(r"\(-?\d+:Unspecified error\)")
# an error printed as a chain of causes (uv, cargo, miette): head, middle links, last link
_CHAIN_HEAD = re.compile(r"^[x×] (?=\S)")
_CHAIN_LINK = re.compile(r"^(?:\|->|├─▶) ")
_CHAIN_LAST = re.compile(r"^(?:`->|╰─▶) ")
_TABLE_ROW = re.compile(r"^\s*\|.*\|")
_RELAY = re.compile(
    HCCL_CALL_TRACE + r"|is failed\. ret\[|[Ee]stablish completed failed|SetMachinePara error|"
    r"FuncErrorReason|Nnopbase fails to invoke the Hccl|Check nnopbase::|HcclAllocComResource|"
    r"execut(?:e|ion) failed, reason=|Memory copy sync failed|errNo\[0x[0-9a-fA-F]+\] .*return\[|"
    r"ret\[\d+\]\.?$|[Ff]ailed, ret = \d+|return: ret\[|Assert \(\(|Check .* failed\s*$|"
    # HCCL's status chain: the encoded result (`errNo[0x0000000005000007]`) and a step that failed,
    # nothing else (`hccl initialize failed`, `hcclComm init error`, `Initialize: HcomInitByFile failed.`)
    r"errNo\[0x[0-9a-fA-F]+\]\s*(?:[\w.]+:?\s){0,4}[\w.]*\s?(?:failed|error)\.?\s*$|"
    r"report error module_(?:type|name)=|rtGetDevMsg|"
    # the completion queue's notice that a task failed (`ProcLogicCqReport:Task run failed,
    # device_id=5, stream_id=…, sqe_type=7(notify wait), errType=…`): it names the task, not the
    # fault; the core error info the runtime prints next does
    r"ProcLogicCqReport:|^Task run failed, device_id=\d+, stream_id=|"
    r"^add error register:|"  # the runtime saving a core's registers before it prints the fault
    r"enter failure abort\b|"  # a stream stopped because a task on it failed
    # an offline model runs as one task: its failure (`Task exception! … [the model stream execute
    # failed]`, `model execute error`, `model execute task failed`) reports that a task inside the
    # model failed, and the runtime prints that task's own failure next
    r"\[the model stream execute failed\]|\bmodel execute (?:error|task failed)\b|"
    # MindSpore's null check (`The pointer[stream] is null.`): something was never created, and
    # what failed to create it is reported apart
    r"\bThe pointer\[\w+\] is null\b"
)
# glog's CHECK on a call's returned status (`Check failed: workspace_status == 0`, `ret ==
# ACL_SUCCESS`): it only says the call failed; the callee's own error says why
_STATUS_CHECK = re.compile(r"\bCheck failed: \(?\w*(?:status|ret|result|err(?:or)?|rc|code)\)? ?(?:==|!=) ?"
                           r"\(?(?:0|\w*SUCCESS\w*|\w*OK)\)?(?: \(.{0,40}\))?\s*$")
# a wrapper handing back the status of a step that failed (MindIE: `return initialize error
# result: {'status': 'error', …}`): the step's own error says why
_ERROR_RESULT = re.compile(r"return \w+ error result\b")  # led by a literal: every console line passes here
# a check macro's report of a call and its status, without the macro's own prefix (`HcclGetRootInfo(&id),
# error code is 19`): the call failed; the lines around it say why
_CALL_STATUS = re.compile(r"^(?:\w+::)*[A-Za-z_]\w*\([^()]{0,200}\),? error code is [1-9]\d*\.?\s*$")
# a detail that only says the call's arguments or context were wrong, or that fetching the error
# message itself failed: the block's deeper lines (a driver call, a device exception) explain it
_GENERIC_DETAIL = re.compile(
    # EE1001's `The argument is invalid.Reason: %s` is generic when its reason is a runtime call
    # that failed (or none): a reason naming the value refused (`Soc version [X] is invalid`) is
    # the cause
    r"[Tt]he argument is invalid(?!\.?\s*Reason:\s*(?!rt\w+ execut|.{0,80}(?:null pointer|not support|pointer null)))|"
    r"context is a null pointer|[Cc]heck param failed|rtGetDevMsg|"
    r"can not be NULL|can not be null|^\[AIC_INFO\]|\bfor parameter \w+ is invalid"
)
# The runtime's report of a kernel that faulted on the device, by its stable fields (the task that
# ran it and the faulting kernel's name), in the TraceBack of an AI Core info dump.
# the runtime's task error with the fault class in brackets: `Kernel task happen error,
# retCode=0x2a, [aicpu exception]`
# The runtime's own reason for a failed call, when it names a fault class of this device
# (`rtDeviceSynchronize execute failed, reason=[aicpu exception]`), says as much: with no
# device-side record in the log it is the best record of the fault. CANN 9 drops the brackets
# (`reason=aicore exception`), and a console may wrap the line right after the fault class.
_TASK_FAULT = re.compile(r"(?:retCode=0x[0-9a-fA-F]+, \[|reason=\[?)(?:aicpu|aicore|ai core|aivec|vector core)"
                         r"(?: exception\b|\s*$)", re.I)
# the runtime's core error information (`The extend info: errcode:(0, 0x800, 0)`, its `errorStr:`
# next), behind the name of the function that printed it when a copy kept it (`PrintCoreInfo: …`)
_EXTEND_INFO = re.compile(r"(?:[A-Za-z]\w*: ?)?The extend info\b")
# the error manager's PID field that opens its messages (`[PID: 903] …`); no other log prints it so
_MANAGER_PID = re.compile(r"\[PID: ?(\d+)\]\s+(?=\S)")
_KERNEL_FAULT = re.compile(  # bounded gaps: `.*` twice re-scanned the line per task_id (formats.bounded)
    r"kernel execute failed, device_id=\d+,.{0,2000}?\btask_id=\d+(?:.{0,2000}?\bfault kernel_name=|"
    # CANN 8.x names the kernel `kernelName=`, and a console may wrap the record after its task id
    r",?\s*$|.{0,2000}?\bkernelName=)", re.I)
_SYNC = re.compile(
    r"[Ss]ynchroni[sz]e|SyncStream|TaskFailCallback|wait for compute device to finish|"
    r"[Rr]eplay failed|task fail|[Ww]atchdog|StreamSynchronize|DeviceSynchronize"
)
_TIMEOUT = re.compile(  # not inside a name (`rtDeviceSynchronizeWithTimeout` is a sync call, `timeout_ms` a parameter)
    # nor that call's name in words (`synchronize stream with timeout failed, runtime result = 507035`)
    r"(?<![a-z])(?<!ream with )(?<!vent with )(?<!vice with )[Tt]ime ?out(?!_)|timed out|times out|EI0002|EI0006|Notify register|notify wait|socket establish"
)
# HCCL's sentences for a wait on a peer that expired, printed inside a block whose code line may be
# cut off (EI0002 notify wait, EI0006 socket)
_EXPIRED = re.compile(r"\b(?:[Tt]ime ?out|timed out) after \d+(?:\.\d+)? ?(?:ns|us|ms|s|sec\w*|min\w*)?\b")
_PEER_WAIT = re.compile(r"Notify register times out|notify wait timeout|wait socket establish timeout|"
                        r"socket establish timeout|[Ww]ait for .{0,40}rank.{0,40}time(?:d)? ?out|"
                        # PyTorch's process-group watchdog, quoted without c10's level prefix
                        # (`HCCL watchdog thread terminated with exception: [Rank 24] Watchdog caught
                        # collective operation timeout: WorkHCCL(…) ran for 600901 milliseconds …`)
                        r"\bWatchdog caught collective operation timeout\b")
_CORE_FAULT_REASON = r"execut(?:e|ion) failed, reason=\[?(?:ai ?core|vector core|aiv(?:ec)?|ai ?cpu) exception\b"
# a core of this device that failed its task: an AI Core / vector core execution that did not
# finish (a hung kernel, 507014/507034), not a wait on a peer (a bare 507014 is a status, and
# routes the category only), or a fault the error manager names as a call's reason
_CORE_FAILURE = re.compile(
    r"ai ?core (?:execution )?time ?out|aicore timeout|aiv(?:ec)? (?:execution )?time ?out|"
    r"vector core (?:execution )?time ?out|(?:aicore|vector core|aivec) execution times? out|"
    r"(?:ai ?core|aiv(?:ec)?|vector core) task time ?out|"
    # the runtime's reason for an AI CPU task that never finished (`retCode=0x28, [aicpu timeout]`)
    r"\[aicpu timeout\]|aicpu kernel (?:execution )?time ?out|"
    # the error manager's reason for a call that failed because a core faulted (`FuncErrorReason:
    # rtStreamSynchronizeWithTimeout execution failed, reason=vector core exception`): the device
    # event itself, told one layer up; a relay when the runtime's own record of it is in the log
    # (_reason_restates_a_device_record)
    + _CORE_FAULT_REASON, re.I)
# What reports a failure that another process or layer printed, said by the tools around the job.
# Every branch starts with a literal, so `re` skips ahead on their first letters (a branch that
# starts with \b or ^ would make it try every position: 4x slower on every console line).
# a server's report that a worker it started died (MindSpore Serving: `Fail to start workers
# because of death of one worker`): the worker's own output, if any, says why
_WORKER_DEATH = re.compile(r"because of (?:the )?death of (?:one|a|the) worker\b")
_WRAPPED_ELSEWHERE = re.compile(
    # MPICH's header over its error stack, whose deepest frame says why; a test tool's note of the
    # function an error happened in (hccl_test: `This is an error in init_hcclComm.`)
    r"error stack:\s*$|This is an error in [\w:]+\.?\s*$|"
    # gRPC's status around a server's message (`rpc error: code = Unknown desc = …`), TF Adapter's
    # graph op saying that its run failed (`GeOp33_0GEOP::::DoRunAsync Failed`): the reason follows
    r"rpc error: code = \w+ desc = |DoRunAsync Failed\b|"
    # torchrun's report that a child process failed: its summary (`train.py FAILED`, the exit code)
    # says only that the child's own output holds the error
    r"ChildFailedError\b|\.py FAILED\s*$|failed \(exitcode: -?\d+\) local_rank: \d+|"
    # Ray's view of a task or an actor that failed elsewhere: the worker's own output says why
    r"ray\.exceptions\.(?:ActorDiedError|RayTaskError\w*|WorkerCrashedError|ActorUnavailableError)\b|"
    r"A worker died or was killed while executing a task\b|" + _WORKER_DEATH.pattern
)
_WRAPPER_TEXT = re.compile(
    r"The Inner error is reported as above|Worker failed with error|Since the operator is called "
    r"asynchronously|Rectify the fault based on|process exits for this inner error|"
    r"EngineCore encountered|EngineDeadError|WorkerProc hit an exception|Engine core initialization failed|"
    r"EngineCore failed to start|"
    # vLLM's API server noticing that its engine process died (the engine's own error says why)
    r"MQLLMEngine is already dead\b|"
    # vLLM's API server over an engine process that died while starting: the engine's own traceback,
    # printed before it, says why (`Engine process failed to start. See stack trace for the root cause.`)
    r"Engine process failed to start\b|See (?:the )?stack trace for the root cause\b|"
    # an exception that carries a child process's output as its message (`RuntimeError: Error raised
    # in subprocess:` and the child's traceback under it): the child's own error says what failed
    r"raised in (?:a |the )?subprocess:\s*$|"
    # MindSpore's exception that hands its reason to the Ascend Error Message printed under it
    r"\bThe details refer to 'Ascend Error Message'\.?\s*$|"
    r"^\s*raise |^\s*\(function \w+\)|"
    # a header that introduces the error printed under it (`[ConvertLinalgRToBinary] encounters error:`)
    # (`Failed to import X because of the following error (look up to see its traceback):`)
    r"\bencounter(?:s|ed)? (?:an? )?errors?:\s*$|\bthe following errors?(?: \([^()]{0,60}\))?:\s*$|"
    # a compiler's summary that its pass pipeline failed; the pass's own diagnostics say why
    r"\bFailed to run [\w ]{1,40} pipeline\b|"
    # a server's exception that sends the reader to the operator library's log for the cause
    # (MindIE: `Setup fail, enable log: export ASDOPS_LOG_LEVEL=ERROR, … to find the first error`)
    r"to find the first error\b|"
    # pytest's header over an import that failed while it collected (its `E   ImportError: …` says why)
    r"ImportError while (?:loading conftest|importing test module)\b"
)
_OOM = re.compile(r"(?i:out of memory)|OutOfMemoryError|memory allocation failed|alloc(?:ate)? .*failed|"
                  r"ErrCode=207001|error code is 207001|No available memory for the cache blocks")
# A library or module that cannot be loaded is always a cause (an environment error), at any level.
_LOADER = re.compile(
    r"cannot open shared object|undefined symbol|[Dd]l[Oo]pen\b.{0,40}fail|dlopen failed|"
    # the dynamic loader out of static TLS for a library loaded late (an OpenMP runtime on aarch64)
    r"cannot allocate memory in static TLS block|"
    rf"{C.SO_LOAD_FAILED}|"
    r"No module named|^(?:ImportError|ModuleNotFoundError)\b|[Ff]ailed to import|set_env\.sh|"
    # a program's own words for a plugin, module or library it could not load (`Unable to load
    # loader plugin hf. Exiting.`: the import error under it was swallowed)
    r"\b[Uu]nable to (?:load|import) (?:the )?(?:[\w-]+ )?(?:plugin|module|library|extension)\b|"
    # a shell that cannot find a tool the job calls (`/bin/sh: 1: hccn_tool: not found`)
    r"^(?:/(?:usr/)?bin/)?(?:ba|z|da)?sh: (?:line )?(?:\d+: )?[\w./+-]+: (?:(?:command )?not found|未找到命令)|"
    # a script's own line that names no command it has (`ci/build.sh: line 2: $'\r': command not found`:
    # a tool missing, or the script saved with Windows line ends)
    r"^[\w./+-]+\.(?:sh|bash): line \d+: (?:[\w./+-]+|\$'\\r'): (?:command not found|未找到命令)"
)
# The linker's and the loader's own words, read only on lines that hold one of their literals (every
# line is asked whether it is a loader failure: each branch of _LOADER is tried at every position):
# the static linker that cannot find a library the build links (`/usr/bin/ld: cannot find -lascendcl`:
# the toolkit's library folder is not on the link path, or the library is not installed), and the
# dynamic loader resolving a program's libraries against another build of one of them (`make:
# relocation error: …/libguile-2.0.so.22: symbol ffi_type_uint32 version LIBFFI_BASE_7.0 not defined
# in file libffi.so.7`, `libstdc++.so.6: version `GLIBCXX_3.4.29' not found`)
_LINKER_LITERALS = ("cannot find -l", "relocation error", "not defined in file", "' not found")
_LINKER = re.compile(r"\bld(?:\.\w+)?: cannot find -l[\w.+-]+|\brelocation error: |"
                     r"\bsymbol \S+ version \S+ not defined in file\b|: version `[^'\s]{1,80}' not found\b")


# the kernel's module loader: a driver module needs a symbol no loaded module exports
# (`drv_vascend: Unknown symbol mdev_register_parent (err -2)`, behind dmesg's `[  12.3] ` or not:
# a dependency module missing); read only on lines that hold its words, as _LINKER
_KERNEL_MODULE_SYMBOL = re.compile(r"(?:^|\s)[\w-]+: Unknown symbol \w+ \(err -?\d+\)")


def _loader_failure(text: str) -> bool:
    """Whether a line says a library would not load or link (`_LOADER`, `_LINKER`,
    `_KERNEL_MODULE_SYMBOL`)."""
    return _LOADER.search(text) is not None or (
        any(lit in text for lit in _LINKER_LITERALS) and _LINKER.search(text) is not None) or (
        "Unknown symbol" in text and _KERNEL_MODULE_SYMBOL.search(text) is not None)


_DRIVER_TOOL_FAILED = re.compile(C.DRIVER_TOOL_FAILED)
# the driver's tools missing where a service looks for them (a device plugin's container), or any
# program Go's exec cannot find; read only on lines that say "not found" (common first letters)
_TOOL_MISSING = re.compile(r"(?:npu-smi|hccn_tool|ascend-dmi|msnpureport):? not found\b|executable file not found in \$PATH")
# ... except CUDA's libraries, which frameworks probe for and never find on an Ascend machine
# a server that cannot bind its port: another process (often a stale or second launcher) has it
_FAILED = re.compile(C.FAILURE_WORD)
_CHECK_CONDITION = re.compile(C.CHECK_CONDITION)
# a system call's error number, which only a failure has (`rename error. errno is 30`, `errno: 13`,
# Python's `'[Errno 101] Network is unreachable' thrown while requesting HEAD …`)
_ERRNO = re.compile(ERRNO_FORM + r"[1-9]\d{0,2}\b")
# a header over a list of what may have caused the error (HCCL's `There maybe some reasons to cause
# this error:`, `Possible causes:`): the list is advice, not the error's message
_ADVICE_INTRO = re.compile(r"(?i)^(?:there (?:may ?be|might be|are) (?:some |several |a few )?(?:possible )?"
                           r"(?:reasons|causes)\b|possible (?:reasons|causes)\b|(?:the )?(?:reasons|causes) (?:may|might|could) be\b|"
                           r".{0,120}\b(?:may|might|could) be (?:due to|caused by) (?:one of )?the following (?:reasons|causes))"
                           r".{0,80}:\s*$")
# an item of such a list (`1. the connection between this device and the target device is abnormal.`)
_ADVICE_ITEM = re.compile(r"^\s*\d{1,2}[.)、]\s*\S")
_PORT_TAKEN = re.compile(r"[Aa]ddress already in use|EADDRINUSE")
_HOST_LIMIT = re.compile(C.HOST_LIMIT)
# a package, model or kernel built for another chip than this one (`the socversion Ascend910B1 of bin
# package does not match the current device socverison Ascend310P3`): no error word, and the
# installer or loader refuses it; either word order, and the misspelling CANN's scripts print
_SOC_MISMATCH = re.compile(r"(?i)\bsoc ?ver\w*\b.{0,160}?\b(?:does not|doesn't|do not|not) match\b|"
                           r"\b(?:does not|doesn't|do not|not) match\b.{0,60}?\bsoc ?ver\w*")
# torch.distributed's rendezvous store that a peer never reached (`[W116 …socket.cpp:929] [c10d] The
# server socket on [::ffff:198.18.0.1]:43195 has timed out, will retry.`): c10d logs it as a warning
# and retries, and a job that hangs in its rendezvous shows nothing else
_STORE_SOCKET_TIMEOUT = re.compile(r"\[c10d\] The (?:server|client) socket (?:on \S+ )?has timed out\b")
_RETURN_ERR = re.compile(r"\breturn(?:ed|s)? err\b")
_PARENT_GONE = re.compile(r"\bmain process disappeared\b")
_PATH_MISSING = re.compile(C.PATH_MISSING)
_CORRUPTION_SEEN = re.compile(r"(?i)(?<!\bno )\bcorruption detected\b")
_RELEASES_DIFFER = re.compile(C.RELEASES_DIFFER)
_DATA_STARVED = re.compile(C.DATA_STARVED)
# a shell's prompt and the command typed after it, pasted with the output (`[root@host plog]# grep
# -rn "ERROR"`, `root@host:/srv/app# ./bin/daemon`, `(base) user@host:~$ python train.py`)
_SHELL_PROMPT = re.compile(r"^(?:\([\w.-]+\) ?)?(?:\[[\w.-]+@[\w.-]+(?: [^\]\n]{0,120})?\]|[\w.-]+@[\w.-]+:[^\s#$]{0,200}) ?[#$] ")
# the shell's report of an error in a script at a line (`build.sh: line 1567: [: missing `]'`)
_SCRIPT_ERROR = re.compile(r"^[\w./+-]+\.(?:sh|bash): line \d+: \S")
# the runtime's dump of a failed AI Core task (`[AIC_INFO] args(20 to 24) after execute:…`)
_TASK_DUMP = re.compile(r"\s*\[AIC_INFO\]")
_ERROR_LEVEL_WORD = re.compile(r"\b(?:ERROR|CRITICAL|FATAL)\b")  # a level word inside the message of an INFO line
# a line that is only the shell command sourcing CANN's environment script (a post's list of the
# commands run), not a message asking for it
_SOURCES_SET_ENV = re.compile(r"^\s*(?:[$#>] )?(?:sudo )?(?:source|\.) +\S*set_env\.(?:ba)?sh(?: +--?[\w=-]+)*\s*;?\s*$")
_MISSING_FUNCTION = re.compile(C.MISSING_FUNCTION)
# the device's initialisation failing in torch_npu or ACL (`c10_npu::SetDevice`, `_npu_init`, aclInit)
_DEVICE_INIT = re.compile(r"\bSetDevice\b|\b_npu_init\b|\baclInit\b")
MISSING_FUNCTION_LINES = 60
_REPORT_BOOKKEEPING = re.compile(r"\breport error module_(?:name|type)=\w+(?:, module_name=\w+)?\s*$")
_DEVICE_ANSWERED = re.compile(r"(?i)\bdevice ?msg ?proc\b|\bdevice response\b|\bresponse from device\b|"
                              r"\bopen response\b|\bTsdOpen failed\b")
# (and the message alone, with no exception class before it: what `print(e)` or a warning's text
# shows of an ImportError that was caught, as a version module's absence is)
_TOLERATED_IMPORT = re.compile(r"[Ff]ailed to import [\w.]+ ?: ?No module named |^\s*No module named '[\w.]+'\s*$")
_LOADER_FAILED = re.compile(r"cannot open shared object|undefined symbol|[Dd]l[Oo]pen|\.so\b")


def tolerated_import(text: str) -> bool:
    """An application's own notice that it caught a module's absence (`Failed to import X:No module
    named …`) and went on; a library that failed to load is no such notice."""
    return _TOLERATED_IMPORT.search(text) is not None and _LOADER_FAILED.search(text) is None


# torch.utils.data's note under an exception raised inside a DataPipe
_DATAPIPE_NOTE = "This exception is thrown by __iter__ of "
# CUDA's own libraries by name (`libcu…` alone would take libcurl and libcups, which are no probe)
_LOADER_NOISE = re.compile(r"libcu(?:da|dart|blas|fft|rand|sparse|solver|dnn|pti|file|tensor|inj|dss)\w*\.so|"
                           r"libnv\w*\.so|libnccl|vllm\._C\b|cuda", re.I)
_CRASH = re.compile(r"^#\d+\s+0x[0-9a-fA-F]+ in |Segmentation fault|\b[Ss]egfault\b|SIGSEGV|SIGABRT|SIGBUS|"
                    r"core dumped|Fatal Python error|\bAborted\b|terminate called|" + C.HEAP_CORRUPTION.pattern)
_DRIVER = re.compile(r"\[drv api\][^\n]*fail|\bhal\w+ failed|drvRetCode=\d+|\bdrvError\b")
# HCCL's verdict on a peer, in a run log (`[HeartbeatAbnormal] … crimer rank[…]`), as the exception
# location (`Cluster Exception Location[IP/ID]:[…], … ExceptionType:[Heartbeat Lost Occurred]`) or in
# the older wording of a timeout's report (`serverId[…], deviceId[4], Heartbeat Lost Occurred, …`)
_HEARTBEAT = re.compile(r"HeartbeatAbnormal|Cluster Exception Location|\bdeviceId\[\d+\], Heartbeat Lost Occurred\b")
_SERIAL = re.compile(r"serial number is (\d+)")
_REMOTE_RANK = re.compile(r"remote rank:? ?\[(\d+)\]")
_CRIMER = re.compile(r"crimer rank\[([^\]]*)\]")
# (torch_npu's `NPU function error: X, error code` names an operator, or a runtime or collective
# call that is none: `AclrtSynchronizeDeviceWithTimeout`, `HcclAllgather`)
_OPNAME = re.compile(r"OpName:\[([^\]]+)\]|call (aclnn\w+) failed|op type is (\w+)|Failed to compile Op \[?(\w+)|"
                     r"operator name is (\w+)|function error: (?![Aa]clrt|Hccl)(\w+), error code")


def _own_time(text: str, year_hint: int | None) -> int | None:
    st = find_stamp(text, year_hint)
    return st.us if st else None


# the runtime's dump of what each stream was doing when a wait expired (`PrintStreamTimeout
# SnapshotInfo:stream_id=2, task_id=…, taskType=3 (EVENT_WAIT)`): evidence, not a failure
_STATE_SNAPSHOT = re.compile(r"^\w*Snapshot\w*$")
_FAULT_PROBE = re.compile(r"^(?:Check\w*Fault\w*|Has\w*(?:Fault|Err)\w*)$")  # CheckSmmuFault, HasMemUceErr
_PROBE_ANSWER = re.compile(r"^Get is\w*Fault is \d+\.?$")  # what a probe printed: the answer, not a fault


# words that say something is wrong; an [ERROR] line with none of them is a state the runtime
# printed beside its failure (`MemCopySync:The current capture mode:threadCaptureMode=0, …`).
# Read with substring and set look-ups, not one big alternation: a storm of plog lines meets it.
_PROBLEM_INSIDE = ("err", "fail", "exception", "fault", "trap", "violat", "corrupt", "smmu", "oom", "panic",
                   "timeout", "time out", "timed", "code", "ret", "status", "result")
_PROBLEM_WORDS = frozenset({
    "not", "no", "cannot", "can't", "wrong", "unknown", "illegal", "must", "should", "only", "empty", "null",
    "unable", "bad", "lost", "stuck", "dead", "down", "full", "busy", "occupied", "unexpected", "nan", "inf",
    "reset", "unavailable", "unreachable", "out", "less", "greater", "than"})
_PROBLEM_STARTS = ("abort", "fatal", "invalid", "unsupport", "mismatch", "exceed", "overflow", "lack", "miss",
                   "abnormal", "refuse", "deny", "denied", "hang", "exist", "conflict", "limit", "crash", "kill",
                   "signal", "retry", "warn", "check", "assert", "over", "expect")
_PROBLEM_CODE = re.compile(r"\bE[0-9A-Z]\d{4}\b|\b0x[0-9a-fA-F]+|\b\d{6}\b")
_WORD = re.compile(r"[a-z']+")
_STATE_LABEL_WORDS = 5
# a `key=value` or `key: value` field; from word starts only, so a long word is read once
_FIELD = re.compile(r"\b\w+\s*[=:]\s*[^\s,;]*")


def _says_a_problem(msg: str) -> bool:
    low = msg.lower()
    if any(part in low for part in _PROBLEM_INSIDE) or _PROBLEM_CODE.search(msg):
        return True
    return any(w in _PROBLEM_WORDS or w.startswith(_PROBLEM_STARTS) for w in _WORD.findall(low))


def _states_no_problem(msg: str) -> bool:
    """An [ERROR] plog message that only names a state: a short label and fields, with no word
    of a problem; evidence beside the failure the same call reports in its next lines."""
    if _says_a_problem(msg):
        return False
    label = _FIELD.sub(" ", msg)
    return len(re.findall(r"[A-Za-z]{2,}", label)) <= _STATE_LABEL_WORDS


# the runtime's stage tags before a message (`[INIT][DEFAULT]`, `[EXEC][EXEC]`, CANN 8 and later)
_STAGE_TAGS = re.compile(r"^(?:\[[A-Z]+\])+\s*")


# the error manager's message on the announcing line itself (older MindSpore: `Ascend error
# occurred, error message: EI0004: Invalid ranktable, …`), not in the block under it
_MESSAGE_ON_LINE = re.compile(rf"\berror message: ?(?=E)(?:{CODE_PATTERN}): ")


def _plog_kind(p: PlogLine, level: Level) -> EventKind:
    msg = _STAGE_TAGS.sub("", p.message)
    if _WORKER_DEATH.search(msg):  # a server's report that a worker died elsewhere
        return K.WRAPPER
    if p.mindspore:
        # MindSpore prints what noticed the failure (the task callback, the stream sync, the graph
        # run) before the CANN block that says what failed, and announces that block
        if _SYNC.search((p.func or "") + " " + msg) or re.search(
                r"TaskFailCallback|SyncStream|RunTask|RunGraph|Sync", p.func or "") or "run task error" in msg:
            return K.SYNC
        if (p.func == "ReportErrorMessage" or "error occurred, error message:" in msg) and not _MESSAGE_ON_LINE.search(msg):
            return K.WRAPPER
        if p.func == "PrintQueryAclTypeErr":
            # its kernel selection asking ACL for an op's kernel: on a miss it goes on to its other
            # kernel libraries, so the miss explains nothing a later failure says better
            return K.RELAY
        if _TBE_BUILD_WRAPPER.search(msg):  # the kernel compiler's own traceback follows: its error says why
            return K.WRAPPER
    if _loader_failure(msg):
        return K.BENIGN if _LOADER_NOISE.search(msg) else K.IMPORT
    if _LOGGED_ASSERT.search(p.message):  # a kernel's assertion, from the exception dump's printf buffer
        return K.DEVICE_EXC
    if (p.module in _BENIGN_MODULES or (p.module == "IDEDD" and _BENIGN_IDEDD.search(msg))
            or _BENIGN_PLOG.search(msg) or C.BANNER_PAYLOAD.search(msg)):
        if _TABLE_ROW.match(msg) or "LINK_ERROR_INFO" in msg or "dest_ip" in msg or "comm error" in msg:
            return K.TABLE
        return K.BENIGN
    if _HEARTBEAT.search(msg):
        return K.HEARTBEAT
    if C.NATIVE_FRAME_RE.match(msg):
        return K.CONTEXT
    if _STATE_SNAPSHOT.match(p.func or "") or _TASK_DUMP.match(msg) or p.func == "GetArgsInfo":
        # (the runtime's dump of a failed AI Core task, `[AIC_INFO] args(20 to 24) after execute:…`,
        # `tiling_key:0`, printed around its verdict: evidence, at ERROR level, never the verdict)
        return K.TABLE
    if _REPORT_BOOKKEEPING.search(msg):
        # the runtime telling the error manager which code it is about to report: the message
        # itself is the next line
        return K.WRAPPER
    if p.module == "TDT" and _DEVICE_ANSWERED.search(msg):
        # the host's TSD client passing on what the device answered: the device's own log says why
        return K.RELAY
    if _FAULT_PROBE.match(p.func or "") or _PROBE_ANSWER.match(msg.strip()):
        # the runtime asking the device whether a fault happened (`CheckSmmuFault:Get isSmmuFault
        # is 1.`) while it handles a core error: the core error info it prints next names the fault
        return K.RELAY
    if level < Level.ERROR:
        if string_codes(msg) or numeric_codes(msg) or C.parse_device_exception(msg):
            return K.WARNING_CODE
        if level == Level.WARNING and (_RELEASES_DIFFER.search(msg) or _DATA_STARVED.search(msg)
                                       or _DEVICE_SET_UP_WARNED.search(f"{p.func or ''} {msg}")):
            # kept only when what it explains follows (_releases_differ_before_a_crash,
            # _starved_device_before_a_task_failure, _device_set_up_before_a_missing_context)
            return K.WARNING_CODE
        return K.CONTEXT
    dev = C.parse_device_exception(msg)
    if dev is not None:  # the runtime's record of a device fault, as on the console
        return K.TIMEOUT if dev.comm_wait else K.DEVICE_EXC
    if _EXTEND_INFO.match(msg) and "errorStr" in msg:
        return K.DEVICE_EXC  # joins the record above it and names its cause
    if _CORE_FAILURE.search(msg):
        return K.DEVICE_EXC
    if _RELAY.search(msg) or _relays_runtime(p):
        return K.RELAY
    if _TIMEOUT.search(msg):
        return K.TIMEOUT
    if _SYNC.search(msg) and not re.search(r"107030|capture", msg):
        return K.SYNC
    if _OOM.search(msg):
        return K.OOM
    if _DRIVER.search(msg):
        return K.DRIVER
    return K.TABLE if _states_no_problem(f"{p.func or ''} {msg}") else K.PLOG


# the modules that own a runtime failure; any other module printing a runtime status is its caller
_RUNTIME_MODULES = frozenset({"RUNTIME", "DRV", "HAL", "DEVMM", "TSCH"})


def _relays_runtime(p: PlogLine) -> bool:
    """A line that restates a failure the runtime or driver already logged. torch_npu's own plog
    lines (APP module, `[PTA]:`) report what a CANN call returned to it; another module's line
    that prints a call's 5xxxxx result (`get device num fail. ret = 507899`) is the caller of a
    runtime call that failed inside, where the runtime's lines say why."""
    if p.module == "APP" and '"[PTA]:' in p.message and not C.parse_device_exception(p.message):
        return True
    if p.module in _RUNTIME_MODULES or string_codes(p.message):
        return False
    result = _failed_call_result(p.message)
    return result is not None and result >= 500_000


_ERROR_WORDS = re.compile(r"(?i:error|fail|exception|abort|fatal|timeout|timed out|invalid)|ERR\d|\bE[0-9A-Z]\d{4}\b")


def _detail_message(detail: str) -> str:
    """A detail line's message without its code and stamp, so anchored patterns see its start."""
    parsed = C.parse_cann_detail(detail)
    return parsed.message.strip() if parsed is not None else detail


# the graph engine's call-chain report under an inner code (`[Init][Env]init env failed!`): which step
# failed, never why; the reason is printed before it or in its TraceBack
_CHAIN_ONLY = re.compile(r"^(?:\[\w+\]){2,}\s*[\w ]{0,40}\b[Ff]ailed[!.]?$")
# an exception whose whole message is a status and its name (`RuntimeError: [1004][Invalid parameter]`,
# `[1][ACL:invalid parameter]`): the failure it reports was described where it happened
_STATUS_ONLY = re.compile(r"^\s*(?:\[\d+\]\s*\[[^\]\[]{1,60}\]\s*)+$")


def _detail_kind(code: str, msg: str, info: dict) -> EventKind:
    """The kind of an error-manager message (not a device exception) from its code and text."""
    if _loader_failure(msg) or re.search(r"opp_kernel|binary_info_config", msg):
        info["env_hint"] = True
    if re.search(r"wait for compute device to finish failed", msg):
        return K.CANN_TRACE
    if _CORE_FAILURE.search(msg):
        return K.DEVICE_EXC
    if code in ("EI0002", "EI0006", "EE1002") or _TIMEOUT.search(msg.split("Reason")[0]):
        return K.TIMEOUT
    return K.CANN_DETAIL


def classify_line(text: str, stream: Stream, logger_level: str | None = None) -> tuple[EventKind, Level, dict]:
    """(kind, level, extras) for one cleaned, prefix-stripped line; `logger_level` is the level
    word of the logger prefix that was stripped, if any."""
    info: dict = {}
    p = parse_plog(text)
    if p is not None:
        level = Level.parse(p.level)
        info["module"] = p.module
        info["pid"] = p.pid
        info["message"] = p.message
        dev = C.parse_device_exception(p.message)
        if dev is not None:
            info["device"] = dev  # what the fault is (a wait on a peer or an event, or a fault of its own)
        return _plog_kind(p, level), level, info

    stripped = text.strip()
    if not stripped or _is_frame(stripped):
        return K.CONTEXT, Level.NONE, info
    if _SHELL_PROMPT.match(stripped):  # a command as typed, whatever it looks for (`grep -rn "ERROR"`)
        return K.CONTEXT, Level.NONE, info
    if C.C10_FRAME_RE.match(stripped) or C.NATIVE_FRAME_RE.match(stripped):
        return K.CONTEXT, Level.ERROR, info
    if C.BANNER_PAYLOAD.search(stripped):  # a banner stays a banner whatever wraps it
        return K.WRAPPER, Level.ERROR, info
    if C.DEVICE_DUMP_HEAD.match(stripped) or (C.DEVICE_DUMP_INFO.match(text) and "exception" in stripped.lower()):
        info["dump"] = True
        return K.DEVICE_EXC, Level.ERROR, info
    dev = C.parse_device_exception(stripped)
    detail = C.parse_cann_detail(stripped)
    if detail is not None:
        info["cann_code"] = detail.code
        info["cann_pid"] = detail.pid
        msg = detail.message
        if dev is not None:
            info["device"] = dev
            return (K.TIMEOUT if dev.comm_wait else K.DEVICE_EXC), Level.ERROR, info
        return _detail_kind(detail.code, msg, info), Level.ERROR, info
    if C.CANN_TRACEBACK_RE.match(text):
        return K.CANN_TRACE, Level.ERROR, info
    bare = _BARE_DETAIL.match(stripped)
    if bare and not is_inner_code(bare.group(1)):
        # offline tools (ATC) print the error manager's message as `CODE: message`, with no stamp
        info["cann_code"] = bare.group(1)
        return _detail_kind(bare.group(1), stripped[bare.end():], info), Level.ERROR, info
    if dev is not None:
        info["device"] = dev
        return (K.TIMEOUT if dev.comm_wait else K.DEVICE_EXC), Level.ERROR, info
    manager = _MANAGER_PID.match(stripped)
    if manager and _ERROR_WORDS.search(stripped, manager.end()):
        # the error manager's message under its PID field, where a copy dropped its code and stamp
        # (`[PID: 903] ChgUserDevIdToDeviceId failed because value 0 for parameter …`)
        info["cann_pid"] = int(manager.group(1))
        return K.CANN_DETAIL, Level.ERROR, info
    if _EXTEND_INFO.match(stripped) or _KERNEL_FAULT.search(stripped) or _TASK_FAULT.search(stripped) \
            or KERNEL_ASSERT.match(stripped) or C.HARDWARE_FAULT.search(stripped):  # a device-side assert
        return K.DEVICE_EXC, Level.ERROR, info
    if C.OP_BINARY_MISSING.search(stripped):  # the error manager's message without its code
        return K.CANN_DETAIL, Level.ERROR, info
    if _HEARTBEAT.search(stripped):
        return K.HEARTBEAT, Level.ERROR, info
    if _ADVICE_INTRO.match(stripped):
        return K.CONTEXT, Level.INFO, info
    if C.is_torch_header(stripped):
        return K.WRAPPER, Level.ERROR, info
    if C.ERROR_TEXT_RE.match(stripped) or stripped.startswith("Rectify the fault"):
        return K.WRAPPER, Level.ERROR, info
    if _WRAPPER_TEXT.search(stripped) or _WRAPPED_ELSEWHERE.search(stripped):
        return K.WRAPPER, Level.ERROR, info
    if _BENIGN_TEXT.search(stripped):
        return K.BENIGN, Level.ERROR, info
    # build logs: a compiler's own diagnostic says what failed; the tool that ran it, CMake's
    # probes and the summaries after it do not
    if B.COMPILER_DIAGNOSTIC.search(stripped):
        return K.PLOG, Level.ERROR, info
    if B.LINK_LIBRARY_MISSING.search(stripped):  # a warning by level, the link's cause by effect
        return K.IMPORT, Level.ERROR, info
    if B.LINK_UNDEFINED.search(stripped):
        return K.LOG_ERROR, Level.ERROR, info
    if B.LINK_FAILED.search(stripped):
        return K.WRAPPER, Level.ERROR, info
    if B.BUILD_PROBE.match(stripped):
        return K.CONTEXT, Level.INFO, info
    if B.BUILD_SUMMARY.match(stripped):
        return K.WRAPPER, Level.ERROR, info
    if B.COMMAND_FAILED.search(stripped) or _STATUS_CHECK.search(stripped) or _CALL_STATUS.match(stripped) \
            or _ERROR_RESULT.search(stripped):
        # only says a call failed, and with which status
        return K.RELAY, Level.ERROR, info
    if _UNSPECIFIED.search(stripped):
        return K.WRAPPER, Level.ERROR, info
    # an error printed as a chain of causes (uv, cargo, miette: `x Failed to build`, `|-> Failed
    # to resolve`, `` `-> Because … ``): the last link is the reason, the others wrap it
    if _CHAIN_LAST.match(stripped):
        return K.LOG_ERROR, Level.ERROR, info
    if _CHAIN_HEAD.match(stripped) or _CHAIN_LINK.match(stripped):
        return K.WRAPPER, Level.ERROR, info
    if _loader_failure(stripped):
        if _SOURCES_SET_ENV.match(stripped):
            return K.CONTEXT, Level.INFO, info  # the command that sets the environment up, as typed
        if logger_level == "WARNING" and tolerated_import(stripped):
            # the application caught a module's absence and said, by its WARNING, that it goes on
            # without it (vllm-ascend's `Failed to import vllm_ascend_C:No module named …` disables
            # sleep mode); a library that failed to load stays a cause at any level
            return K.CONTEXT, Level.WARNING, info
        return (K.BENIGN if _LOADER_NOISE.search(stripped) else K.IMPORT), Level.ERROR, info
    if "not found" in stripped and _TOOL_MISSING.search(stripped):
        return K.IMPORT, Level.ERROR, info
    if _SCRIPT_ERROR.match(stripped) and not C.KILLED_NOTICE.match(stripped):
        # the shell's report of an error in the job's script at a line (`build.sh: line 1567: [:
        # missing `]'`): a failure of its own, whatever its words
        return K.LOG_ERROR, Level.ERROR, info
    if stripped.startswith(_DATAPIPE_NOTE):
        # an exception of the data pipeline, at whatever level the program logged its message above
        # it and went on
        return K.EXCEPTION, Level.ERROR, info
    if stripped.startswith(IGNORED_HEAD):  # Python's note over an exception it ignored (a destructor's)
        return K.BENIGN, Level.WARNING, info
    if _REPORT_BOOKKEEPING.search(stripped):  # a plog line whose header a copy garbled, too
        return K.WRAPPER, Level.ERROR, info
    if _PORT_TAKEN.search(stripped) or _HOST_LIMIT.search(stripped) or _DRIVER_TOOL_FAILED.search(stripped) \
            or _SOC_MISMATCH.search(stripped):
        return K.ENV, Level.ERROR, info
    if _RETURN_ERR.search(stripped) or _CORRUPTION_SEEN.search(stripped) or _PATH_MISSING.match(stripped):
        # a call's status as a tool reports it (hccl_test); a check that found data corrupted; a path
        # the system says is missing (ENOENT): untyped, so anything more specific comes first
        return K.LOG_ERROR, Level.ERROR, info
    if _PARENT_GONE.search(stripped) or C.KILLED_NOTICE.match(stripped) or C.stop_signal(stripped):
        # workers noticing their parent's death, a shell noticing its child's: the consequence of
        # any failure before it, and the only sign of one when nothing failed before
        return K.ABORT, Level.ERROR, info
    if "CalledProcessError" in stripped[:120] and C.EXCEPTION_RE.match(stripped):
        # a subprocess that failed, also one that died by a signal (a compiler that crashed on the
        # kernel): its own output, printed after it (a compiler's diagnostics), says why
        return K.RELAY, Level.ERROR, info
    if _CRASH.search(stripped):
        return K.CRASH, Level.CRITICAL, info
    if _OOM.search(stripped):
        return K.OOM, Level.ERROR, info
    if C.OLD_TORCH_WRAPPER_RE.search(stripped):
        return K.WRAPPER, Level.ERROR, info
    torch = C.TORCH_NPU_FUNC_RE.search(stripped)
    if torch:
        info["wrapped_code"] = int(torch.group(6))
        if re.search(r"NPU warning", stripped):
            return K.WRAPPER, Level.WARNING, info
        return K.WRAPPER, Level.ERROR, info
    if re.search(r"NPU warning, error code is|Warning: .{0,2000}?error code is", stripped):
        return K.WRAPPER, Level.WARNING, info
    if C.TRACEBACK_RE.match(stripped) or C.FRAME_RE.match(text) or stripped.startswith(
            ("During handling of the above exception", "The above exception was the direct cause")):
        return K.CONTEXT, Level.ERROR, info
    if _DRIVER.search(stripped):
        return K.DRIVER, Level.ERROR, info
    exc = C.EXCEPTION_RE.match(stripped)
    if exc and exc.group(2).lstrip().startswith("Traceback (most recent call last)"):
        # an error whose message is a traceback of its own (TVM's FFI errors): the error that
        # traceback ends with says what failed
        return K.WRAPPER, Level.ERROR, info
    if exc and _STATUS_ONLY.match(exc.group(2)):
        return K.RELAY, Level.ERROR, info
    if exc:
        name = exc.group(1)
        if name.endswith("Warning"):
            if string_codes(stripped) or _MISSING_FUNCTION.search(stripped):
                return K.WARNING_CODE, Level.WARNING, info
            return K.CONTEXT, Level.WARNING, info
        if _TIMEOUT.search(stripped):
            return K.TIMEOUT, Level.ERROR, info
        if _SYNC.search(stripped):
            return K.SYNC, Level.ERROR, info
        return K.EXCEPTION, Level.ERROR, info
    if logger_level == "WARNING" or re.search(r"\bWarning\b|\bWARNING\b|\[W\d{4}", stripped):
        if string_codes(stripped) or "error from device" in stripped or _MISSING_FUNCTION.search(stripped):
            return K.WARNING_CODE, Level.WARNING, info
        if _STORE_SOCKET_TIMEOUT.search(stripped):
            return K.TIMEOUT, Level.WARNING, info
        return K.CONTEXT, Level.WARNING, info
    if _PEER_WAIT.search(stripped) or _EXPIRED.search(stripped):
        # a wait that expired is a failure at any logger level (Mooncake logs its transfer
        # timeouts at glog INFO)
        return K.TIMEOUT, Level.ERROR, info
    if logger_level in ("ERROR", "CRITICAL") and text[:1].isspace() and not _ERROR_WORDS.search(stripped):
        # loggers that print a caught traceback line by line at ERROR (vLLM workers) also print
        # its indented source lines and caret rows: the level is the logger's, not the line's
        return K.CONTEXT, Level.ERROR, info
    if (logger_level in ("ERROR", "CRITICAL") or C.SETTING_REFUSED.match(stripped)
            or stripped.startswith(FAIL_TAG)  # a test harness's verdict on a check (`[FAIL] Output mismatch`)
            or re.search(r"\b(?:ERROR|CRITICAL|FATAL)\b|[Ee]rror:|[Ff]ailed|FAILED|^CMake Error\b|"
                         # an application's notice of an exception it caught (`!!! Exception during
                         # processing !!! <message>`), and `failed` in a Chinese locale (`初始化失败`)
                         r"\b[Ee]xception (?:during|while|occurred)\b|失败", stripped)
            or _ERRNO.search(stripped)):
        codes = string_codes(stripped)
        if codes and not all(is_inner_code(c) for c in codes):
            return K.PLOG, Level.ERROR, info
        sdk = SDK_STATUS_RE.search(stripped)
        if sdk is not None and lookup_numeric(int(sdk.group(1)), "acl") is not None:
            return K.PLOG, Level.ERROR, info
        if _CORE_FAILURE.search(stripped):
            return K.DEVICE_EXC, Level.ERROR, info
        if _TIMEOUT.search(stripped):
            return K.TIMEOUT, Level.ERROR, info
        if logger_level in ("INFO", "DEBUG") and not _ERROR_LEVEL_WORD.search(stripped):
            # a program that logs a failure at INFO went on from it (`BuildConfigFromFlags failed
            # for file …/.kube/config … using inClusterConfig`): what it says failed is context
            return K.CONTEXT, Level.INFO, info
        return K.LOG_ERROR, Level.ERROR, info
    result = _failed_call_result(stripped) if logger_level is None else None
    if result is not None:
        # 5xxxxx is the runtime's status of work that already failed on the device (a launch
        # or sync that noticed it); 1xxxxx/2xxxxx, a call that itself failed (argument, resource)
        return (K.RELAY if result >= 500_000 else K.PLOG), Level.ERROR, info
    return K.CONTEXT, Level.INFO, info


# a call that prints its own result: `RegisterAscendBinary aiv ret 107000`, `rtMalloc ret=207001`


def _failed_call_result(text: str) -> int | None:
    """A call's printed result that is a known aclError or aclnn status: only failures have one,
    so the line reports a failure whatever words (or none) it uses."""
    m = CALL_RESULT_RE.search(text)
    if m is None:
        return None
    value = int(m.group(1))
    known = lookup_numeric(value, "acl") is not None or lookup_numeric(value, "aclnn") is not None
    return value if known else None


def build_events(source: Source, hits: list[LineHit], indexes: list[FileIndex],
                 times: "TimeModel | None" = None) -> list[ErrorEvent]:
    """Turn one source's hits into events, grouping multi-line shapes.

    `times` is the workspace's time model: a line without a stamp of its own takes the time it
    gives (the one the panes and reports show); without it, a model over `indexes` is made.

    A physical line that holds an escaped console block (literal `\n`) is read as the sub-lines it
    escapes, each keeping the physical line number. Inside a CANN block, a TraceBack line that is a
    device exception or a failed driver call is an event of its own that explains the block: the
    head detail is then a generic restatement (an invalid argument, a missing context) or residue
    recorded earlier, and is kept as a relay.
    """
    builder = EventBuilder(source, indexes, times)
    builder.feed(hits)
    return builder.events(detach=False)


def _joins_as_throw_site(text: str, hit: LineHit, open_block: ErrorEvent | None, events: list[ErrorEvent]) -> bool:
    """c10 prints where it threw (`Exception raised from OperationSetup at …`) under the message it
    threw, and a launcher prefixes only that message's first line: the site is a line of the event
    right above it in the file, whatever its channel, and tells which layer refused."""
    if "raised from" not in text:  # every hit line passes here: a literal find first
        return False
    throw = C.C10_THROW_RE.match(text.strip())
    if throw is None:
        return False
    owner = open_block
    if owner is None and events:
        last = events[-1].lines[-1] if events[-1].lines else events[-1].ref
        owner = events[-1] if last.file_id == hit.file_id and hit.line - last.line == 1 else None
    if owner is None:
        return False
    owner.lines.append(LineRef(hit.file_id, hit.line))
    owner.throw_site = owner.throw_site or f"{throw.group(1)} at {throw.group(2)}"
    return True


class EventBuilder:
    """`build_events`, resumable: hits are fed in order, as often as they come, and `events()`
    gives what `build_events` would give for every hit fed so far. The live tail keeps one per
    source, so an error storm costs each re-diagnosis the new lines only, not all of them.

    The reading state (each channel's open block, the device serials) is kept between feeds;
    the passes that look at the whole list (`_demote_aborts` and the others) run on copies,
    since the next hits may still change the events they look at."""

    def __init__(self, source: Source, indexes: list[FileIndex], times: "TimeModel | None" = None) -> None:
        if times is None:
            by_file = {f.file_id: source for f in source.files}
            times = TimeModel([source], indexes, by_file.__getitem__)
        self.source = source
        self.files = tuple(f.file_id for f in source.files)
        self.facts = _source_facts(source)
        self.times = times
        self.answers = _RecordedTimes(times)  # every time the model gave, checked before going on
        self.year_hint = _year_hint(source, indexes)
        # Ranks share one console line by line, even inside a block: every interleaving channel (a
        # launcher prefix) keeps its own open block, so one rank's TraceBack never takes another's lines.
        self.channels: dict[tuple | None, _Channel] = {}
        self.device_serials: dict[str, ErrorEvent] = {}
        self.raw: list[ErrorEvent] = []
        self.fed = 0
        self.last_hit: LineHit | None = None

    def continues(self, source: Source, hits: list[LineHit], times: "TimeModel",
                  indexes: list[FileIndex]) -> bool:
        """Whether feeding more gives what a full build of `hits` gives: they are the hits fed so
        far plus more, of the same files and source facts (a rank found since changes events),
        and every time the model gave is still its answer (a console line without a stamp takes
        its channel's next stamp, which may have arrived since)."""
        return (times is self.times and self.files == tuple(f.file_id for f in source.files)
                and self.facts == _source_facts(source)
                and len(hits) >= self.fed and (self.fed == 0 or hits[self.fed - 1] is self.last_hit)
                and self.year_hint == _year_hint(source, indexes) and self.answers.unchanged())

    def feed(self, hits: list[LineHit]) -> None:
        source, events, channels = self.source, self.raw, self.channels
        for hit in hits:
            segments = C.expand_escaped(hit.text)
            last_of_line: ErrorEvent | None = None  # the event the previous sub-line started
            for seg_no, raw in enumerate(segments):
                cleaned = C.clean(raw)
                text, pre = C.strip_prefixes(cleaned)
                chan = C.channel(pre) if source.stream is Stream.STDOUT else None
                state = channels.setdefault(chan, _Channel())
                if _MS_ASCEND_SECTION.match(text):
                    # MindSpore's exception sums up the sections printed under it: the CANN
                    # block of its `- Ascend Error Message:` is the error it reports
                    last = next((e for e in reversed(events[-3:]) if e.kind != K.CONTEXT), None)
                    if last is not None and last.kind == K.EXCEPTION and last.ref.file_id == hit.file_id \
                            and 0 < hit.line - last.ref.line <= 3:
                        last.kind = K.WRAPPER
                gap = hit.line - state.last_line.line if state.last_line.file_id == hit.file_id else -1
                contiguous = seg_no > 0 or gap == 1 or (chan is not None and 0 < gap <= CHANNEL_GAP)
                if state.open_block is None and events and C.CANN_TRACEBACK_RE.match(text):
                    # a logger that prefixes every line but the first of an exception's message puts
                    # the head detail on another channel right above its TraceBack: adopt it
                    # (the block's own advice lines, `Solution: …`, may sit between them)
                    last = next((e for e in reversed(events[-3:]) if e.kind != K.CONTEXT), events[-1])
                    if last.kind == K.CANN_DETAIL and last.lines[-1].file_id == hit.file_id \
                            and 0 < hit.line - last.lines[-1].line <= 2:
                        state.open_block, contiguous = last, True
                if _joins_as_throw_site(text, hit, state.open_block if contiguous else None, events):
                    state.last_line = LineRef(hit.file_id, hit.line)
                    continue
                state.last_line = LineRef(hit.file_id, hit.line)
                quiet, state.quiet = state.quiet, None
                if quiet is not None and _HCCL_TRACE.match(text) and quiet[4] == LineRef(hit.file_id, hit.line - 1):
                    # HCCL's trace of a failed call (`call trace: hcclRet -> 4`) follows the failing
                    # statement's own report: a line that read as plain text was that report
                    origin, state.open_block, state.in_traceback = _read_line(
                        source, *quiet, state, self.device_serials, self.answers, self.year_hint, promote=True)
                    if origin is not None:
                        events.append(origin)
                checked = None
                if quiet is not None and quiet[4] == LineRef(hit.file_id, hit.line - 1) and _FAILED.search(text) \
                        and _CHECK_CONDITION.search(quiet[2]):
                    # a failed check printed its condition (`input_shape.size() < 2.`), then its
                    # caller reported the step failed: the condition is the reason it gives
                    checked, state.open_block, state.in_traceback = _read_line(
                        source, *quiet, state, self.device_serials, self.answers, self.year_hint, promote=True)
                    if checked is not None:
                        events.append(checked)
                args = (raw, cleaned, text, pre, LineRef(hit.file_id, hit.line), raw if len(segments) > 1 else None,
                        contiguous)
                ev, state.open_block, state.in_traceback = _read_line(
                    source, *args, state, self.device_serials, self.answers, self.year_hint)
                if ev is None:
                    state.quiet = args
                elif checked is not None and ev.kind in (K.LOG_ERROR, K.EXCEPTION, K.RELAY):
                    ev.kind = K.WRAPPER
                if _IGNORE_ABOVE.search(text):
                    _dismiss_above(events, LineRef(hit.file_id, hit.line), text)
                if last_of_line is not None and last_of_line.fragment is not None and "acl" in last_of_line.numeric \
                        and C.ERROR_TEXT_RE.match(text.strip()):
                    # torch_npu's description of the status just printed (`error code is 107002` then
                    # `[Error]: The context is empty.`) is part of the anchored fragment's message
                    last_of_line.fragment += "\\n" + raw
                last_of_line = ev
                if ev is not None:
                    events.append(ev)
                    if _introduces_its_message(ev, text):
                        state.message_of, state.message_lines = ev, EMPTY_MESSAGE_LINES
                        state.message_level = pre.level
                        state.caret_first = _position_only(ev, text)
                        state.message_introduced = False
                        if state.caret_first:
                            state.message_lines = POSITION_MESSAGE_LINES
        self.fed += len(hits)
        if hits:
            self.last_hit = hits[-1]

    def events(self, detach: bool = True) -> list[ErrorEvent]:
        """The events of every hit fed, after the whole-list passes. `detach` (the default) works
        on copies, so the builder can go on; `build_events` finishes its own."""
        events = [_detached(ev) for ev in self.raw] if detach else self.raw
        _releases_differ_before_a_crash(events)  # before a crash after it is read as its abort
        _missing_function_before_device_init(events)
        _starved_device_before_a_task_failure(events)
        _device_set_up_before_a_missing_context(events)
        _reports_that_point_to_a_log(events)
        _printed_before_a_bare_raise(events)
        _demote_aborts(events)
        _demote_restating_exceptions(events)
        _demote_message_fetch(events)
        _headers_whose_message_follows(events)
        _message_under_a_torch_header(events)
        _op_info_entries_skipped(events)  # before a lone status looks for what explains it
        _promote_lone_status(events)
        _raised_before_its_report(events)
        _pcie_bar_probe(events)
        _reason_restates_a_device_record(events)  # before the assertions look for their trap
        _assertion_explains_fault(events)
        _statement_errors_follow_its_first(events)
        _nested_reports_name_their_cause_last(events)
        _json_record_cause(events, self.times.indexes)
        _head_restated_by_its_traceback(events, self.times.indexes)
        _dump_of_a_named_task(events)
        _advice_lists(events)
        _mpi_error_stack(events)
        _ignored_exceptions(events)
        off = self.times.offsets.get(self.source.source_id, 0)  # read on the source's clock: now moved by its offset
        for ev in events if off else ():
            if ev.time is not None:
                ev.time += off
        return events

    def fork(self) -> "EventBuilder":
        """A copy that can be fed hits that may not stay (a last line without its newline yet)."""
        memo = {id(self.source): self.source, id(self.times): self.times}
        return copy.deepcopy(self, memo)


class _RecordedTimes:
    """The time model as `_read_line` asks it, each answer kept to be asked again later."""

    def __init__(self, times: "TimeModel") -> None:
        self.times = times
        self.given: dict[tuple[int, int, bool], object] = {}

    def line_time(self, file_id: int, line: int, offset: bool = True):
        got = self.times.line_time(file_id, line, offset=offset)
        self.given[(file_id, line, offset)] = got
        return got

    def unchanged(self) -> bool:
        times = self.times
        return all(times.line_time(f, ln, offset=o) == got for (f, ln, o), got in self.given.items())


def _source_facts(source: Source) -> tuple:
    return (source.stream, source.pid, source.rank, source.device)


def _year_hint(source: Source, indexes: list[FileIndex]) -> int | None:
    for f in source.files:
        y = indexes[f.file_id].guess_year()
        if y:
            return y
    return None


def _detached(ev: ErrorEvent) -> ErrorEvent:
    """A copy whose lists and dicts are its own: a diagnosis sets fields of its events, and the
    builder may still extend the ones it has open."""
    out = copy.copy(ev)
    out.codes, out.numeric, out.lines = list(ev.codes), dict(ev.numeric), list(ev.lines)
    out.block_numeric = dict(ev.block_numeric)
    return out


CHANNEL_GAP = 8
"""Lines of one channel count as adjacent across this many lines of other channels."""


@dataclass
class _Channel:
    """The block being read on one interleaving channel."""

    open_block: ErrorEvent | None = None  # a CANN detail / device event that owns indented lines
    in_traceback: bool = False
    headless: bool = False  # a TraceBack whose head detail is not in the log (cut, or only a banner)
    last_line: LineRef = LineRef(-1, -10)
    message_of: ErrorEvent | None = None  # an exception printed with an empty first line
    message_lines: int = 0  # how many more lines may still hold its message
    message_level: str | None = None  # the logger level the exception was printed under
    caret_first: bool = False  # its message follows a source excerpt and its caret row
    message_introduced: bool = False  # a header introduced its message (`… with the following error:`)
    after_py_frame: bool = False  # the last line was a Python traceback frame (`  File "…", line N`)
    py_frame: str | None = None  # the innermost frame of the traceback being read (`func at file`)
    py_traceback_indent: int | None = None  # inside a Python traceback whose header had this indent
    in_banner: bool = False  # inside an analyser's framed report (`----CONNECT TIMEOUT DETECT RESULT----`)
    quiet: tuple | None = None  # the last line read that started no event (what `_read_line` was given)


# An analyser's report framed by rules (HCCL's connect-timeout detection prints its verdict between
# `-----TITLE-----` and a closing rule): its sentences are evidence and advice, never the cause.
_BANNER_TITLE = re.compile(r"^[-=*#]{5,} ?[A-Z][A-Z0-9 _:/]{3,80}? ?[-=*#]{5,}$")
_BANNER_RULE = re.compile(r"^[-=*#]{10,}$")


def _in_banner(state: _Channel, body: str, contiguous: bool) -> bool:
    """Whether this line is inside (or frames) an analyser's banner; keeps the channel's state."""
    body = body.strip()
    if _BANNER_TITLE.match(body):
        state.in_banner = True
        return True
    if not state.in_banner:
        return False
    if not contiguous or _BANNER_RULE.match(body):
        state.in_banner = False
        return contiguous
    return True


# a line that only decorates or introduces an exception's message (`///----[ERROR][Triton][BEG]---`,
# `[ConvertLinalgRToBinary] encounters error:`), not the message itself
_BARE_PLOG_HEAD = re.compile(r"^\s*\[(?:ERROR|WARNING|CRITICAL|EVENT|INFO|DEBUG)\] [A-Z][A-Z0-9_]*\((\d+)[,)]")
_HCCL_TRACE = re.compile(rf"^\s*{HCCL_CALL_TRACE}[1-9]")
# MindSpore's report that a TBE kernel did not build (`Single op compile failed, op: …`, `task compile
# Failed, task id:3, cause:TBEException:ERROR:`), printed before the compiler's traceback and error
_TBE_BUILD_WRAPPER = re.compile(r"\bSingle op compile failed\b|\btask compile [Ff]ailed, task id:\s*\d+")
_INTRODUCES = re.compile(r":\s*$")
# a logger line that ends with an exception's name and nothing after it (`capture fail: RuntimeError:`):
# the exception's message is on the next line
_EMPTY_EXCEPTION_TAIL = re.compile(r"\b[A-Z]\w*(?:Error|Exception):\s*$")
_BRACKETED = re.compile(r"\[[^\]]{0,80}\]")


def _is_frame(text: str) -> bool:
    """Nothing but rules and bracketed tags (`///-----[ERROR][Triton][BEG]-----`)."""
    return not any(ch.isalnum() for ch in _BRACKETED.sub("", text))


def _message_line(text: str) -> bool:
    """Words of a message, not a frame or a bare header: a header that ends in a colon introduces
    what follows unless it already says something of its own before that colon (a chain of causes
    `enable node device-share: npu-smi set …: exit status 203:` is a message)."""
    if _is_frame(text):
        return False
    body = _BRACKETED.sub("", text).strip()
    return not _INTRODUCES.search(body) or ": " in body.rstrip(": \t")


# a framework saying the error printed just above is expected and harmless (MindSpore's device
# queue, stopped when the training ends: `you can ignore the above error: 'failed to send...'`)
_IGNORE_ABOVE = re.compile(r"\b(?:you can|you may|can be|please) ignore the (?:above|previous) error\b|"
                           r"\bthe (?:above|previous) error can be ignored\b", re.I)
_IGNORED_QUOTE = re.compile(r"ignored?\b.{0,40}?error\W{0,3}'([^']{4,200}?)(?:\.{2,}|…)?'")
IGNORE_ABOVE_LINES = 3


def _dismiss_above(events: list[ErrorEvent], ref: LineRef, text: str) -> None:
    """The error a line dismisses: the nearest one within IGNORE_ABOVE_LINES above it in the
    same file (the one whose text it quotes, when it quotes one) becomes benign."""
    quoted = _IGNORED_QUOTE.search(text)
    for ev in reversed(events[-8:]):
        if ev.ref.file_id != ref.file_id or not 0 < ref.line - ev.ref.line <= IGNORE_ABOVE_LINES:
            continue
        if quoted is None or quoted.group(1) in ev.text:
            ev.kind, ev.benign = K.BENIGN, True
            return


def _introduces_its_message(ev: ErrorEvent, text: str) -> bool:
    """An exception with an empty first line, or an error line that ends in a colon (`Failed to
    start plugin server:`): what failed is said on the lines after it."""
    body = text.strip()
    if ev.kind == K.EXCEPTION:
        exc = C.EXCEPTION_RE.match(body)
        return exc is not None and (not exc.group(2).strip() or _position_only(ev, text))
    return ev.kind == K.LOG_ERROR and body.endswith(":") and (
        ": " not in body.rstrip(": \t") or _EMPTY_EXCEPTION_TAIL.search(body) is not None)


def _headers_whose_message_follows(events: list[ErrorEvent]) -> None:
    """An error line that only introduces its message (`Failed error:`) says nothing itself: when
    an event of its own follows within the message's lines (a build's stop on its failed target),
    that is what it introduced, and the header is context."""
    for i, ev in enumerate(events):
        if ev.kind != K.LOG_ERROR or not _introduces_its_message(ev, ev.detail or ev.text):
            continue
        for j in range(i + 1, len(events)):  # the next event of its own
            after = events[j]
            if after.kind.tier < 9:
                if after.ref.file_id == ev.ref.file_id and 0 < after.ref.line - ev.ref.line <= EMPTY_MESSAGE_LINES:
                    ev.kind = K.CONTEXT
                break
            if after.ref.file_id != ev.ref.file_id or after.ref.line - ev.ref.line > EMPTY_MESSAGE_LINES:
                break


def _position_only(ev: ErrorEvent, text: str) -> bool:
    """An exception whose message is only the place it failed (`CompilationError: at 3:4:`)."""
    exc = C.EXCEPTION_RE.match(text.strip()) if ev.kind == K.EXCEPTION else None
    return exc is not None and POSITION_MESSAGE.fullmatch(exc.group(2).strip()) is not None


_CARET_ROW = re.compile(r"^\s*\^[\^~]*\s*$")


def _awaited_message(state: _Channel, kind: EventKind, text: str, contiguous: bool, level: str | None,
                     escaped: bool = False) -> bool:
    """Whether this line is the message of the exception above it that printed none on its own
    line; the exception is then a wrapper of it. A logger that printed the exception under its
    prefix (a vLLM worker's `ERROR ... [core.py:1100]`) prints its message under the same one;
    a line under another logger level is a log line of its own. A line that holds an escaped block
    (an exception's repr with the source it quotes, `CompilationError('def f(x):\n    # …')`) is
    no message line: its sub-lines are code, and the exception keeps its own words."""
    header = state.message_of
    if header is None:
        return False
    if escaped:
        state.message_of = None
        return False
    logged = level is not None and level != state.message_level
    state.message_lines -= 1
    if kind == K.WRAPPER and contiguous and _INTRODUCES.search(text):
        state.message_introduced = True
        return False  # a header that introduces the message: keep waiting for it
    if C.TRACEBACK_RE.match(text.strip()) or C.FRAME_RE.match(text):
        # a traceback is no message line: introduced (`-- Process 8 terminated with the following
        # error:`), it is another process's, which the exception only relays; the exception that
        # ends it is an event of its own
        if state.message_introduced:
            header.kind = K.WRAPPER
        state.message_of = None
        return False
    if state.caret_first and contiguous and state.message_lines >= 0 and not logged:
        # the kernel's source lines, then the caret row under the place: the message is next
        state.caret_first = _CARET_ROW.match(text) is None
        return False
    if not contiguous or state.message_lines < 0 or kind not in (K.CONTEXT, K.LOG_ERROR) or logged:
        state.message_of = None  # a shape of its own, a logger's line (or nothing) follows: as usual
        return False
    if B.COMPILER_WARNING.search(text) or B.SOURCE_EXCERPT.match(text):
        return False  # a compiler's warning (and the source it quotes) is not the failure: keep waiting
    if not text.strip() or not (_message_line(text) or (
            # CMake's message is the indented block under its header, a colon at its end or not
            text[:1].isspace() and B.CMAKE_ERROR.match(C.strip_prefixes(C.clean(header.text))[0].strip()))):
        return False
    header.kind, state.message_of = K.WRAPPER, None
    return True


def _read_line(source: Source, raw: str, cleaned: str, text: str, pre: C.Prefix, ref: LineRef,
               fragment: str | None, contiguous: bool, state: _Channel,
               device_serials: dict[str, ErrorEvent], times: TimeModel, year_hint: int | None,
               promote: bool = False) -> tuple[ErrorEvent | None, ErrorEvent | None, bool]:
    """One (sub-)line of a channel: the event it starts (None when it joins the open block or is
    context), and the channel's open block and TraceBack state after it. `promote`: the line is
    known to report a failure (what follows it says so), whatever its words."""
    open_block, in_traceback = state.open_block, state.in_traceback
    kind, level, info = classify_line(text, source.stream, pre.level)
    if promote and kind == K.CONTEXT and text.strip():
        kind, level = K.LOG_ERROR, Level.ERROR
    # the source line Python prints under a traceback frame is code, whatever its words say
    # (`result = get_response(w, dequeue_timeout,`), also under a logger's ERROR prefix
    frame = C.FRAME_RE.match(text)
    after_frame, state.after_py_frame = state.after_py_frame and contiguous, bool(frame)
    # the frame an exception was raised in says which code refused (a configuration's own check)
    raised_in = state.py_frame if contiguous else None
    state.py_frame = f"{frame.group(3)} at {frame.group(1)}" if frame else (
        raised_in if after_frame and text.startswith("    ") else None)
    # a traceback ends with its exception at the indent of its `Traceback` line, whatever the
    # class is called (`__main__.TooFewObj: There is no obj file …`)
    indent = len(text) - len(text.lstrip())
    if C.TRACEBACK_RE.match(text.lstrip()):
        state.py_traceback_indent = indent
    elif state.py_traceback_indent is not None and (not contiguous or indent < state.py_traceback_indent):
        state.py_traceback_indent = None
    elif state.py_traceback_indent == indent and text.strip():
        state.py_traceback_indent = None
        if kind in (K.CONTEXT, K.LOG_ERROR) and _PY_EXCEPTION_LINE.match(text.strip()):
            kind, level = K.EXCEPTION, Level.ERROR
    elif raised_in is not None and not frame and text[:1] not in (" ", "\t", "") \
            and kind in (K.CONTEXT, K.LOG_ERROR) and _PY_EXCEPTION_LINE.match(text.strip()):
        # a traceback cut above its header still ends with its exception, unindented right under
        # its last frame and source line (`raise EOFError`, then `EOFError`)
        kind, level = K.EXCEPTION, Level.ERROR
    if after_frame and text.startswith("    ") and not state.after_py_frame and kind not in (
            K.CANN_DETAIL, K.DEVICE_EXC, K.BENIGN, K.CONTEXT):
        kind, level = K.CONTEXT, Level.parse(pre.level) if pre.level else Level.NONE
    if pre.level in ("WARNING", "INFO", "DEBUG") and kind.tier <= 1 and kind not in (
            K.WARNING_CODE, K.IMPORT) and not (kind == K.ENV and _FAILED.search(text)):
        # a logger WARNING/INFO line is a cause only with a code, an aclError number, device text,
        # a library that failed to load or a bind that failed on a taken port (c10d warns of each
        # address it could not bind before it gives up)
        if not (string_codes(text) or numeric_codes(text) or "error from device" in text):
            kind, level = K.CONTEXT, Level.parse(pre.level)
    if _awaited_message(state, kind, text, contiguous, pre.level, escaped=fragment is not None):
        kind, level = K.EXCEPTION, Level.ERROR
    if _in_banner(state, info.get("message", text), contiguous) and kind.tier < EventKind.TABLE.tier:
        kind = K.TABLE
    indented = C.is_continuation(text)
    dump_info = C.DEVICE_DUMP_INFO.match(text)
    if C.CANN_TRACEBACK_RE.match(text):
        in_traceback = True
        state.headless = open_block is None or open_block.kind not in (
            K.CANN_DETAIL, K.DEVICE_EXC, K.TIMEOUT, K.PLOG, K.DRIVER, K.RELAY)
        if (open_block is not None and open_block.lines[-1].file_id == ref.file_id
                and 0 < ref.line - open_block.lines[-1].line <= 3):
            contiguous = True  # a block's Possible Cause / Solution lines sit between its head and TraceBack
    elif not indented and not dump_info and not (
            contiguous and (C.MANAGER_TAIL.search(text) or "info from device" in text or "error from device" in text
                            or _EXTEND_INFO.match(text))):
        # the block ends at its first line that is not indented; a paste that lost the indent
        # keeps the block's own shapes (the error manager's tail, device exception lines)
        in_traceback = False
    if C.BANNER_PAYLOAD.search(text):
        # old releases print the detail as indented lines right under the banner: read them as a
        # TraceBack whose head is missing (its first informative line is the detail)
        in_traceback, state.headless = True, True
    if (open_block is not None and contiguous and dump_info and open_block.dump):
        _join_dump(open_block, text, ref, year_hint, source)
        return None, open_block, in_traceback
    if kind == K.CONTEXT and not indented:
        return None, open_block, in_traceback
    numeric = numeric_codes(text)
    dev = info.get("device")
    generic_head = in_traceback and open_block is not None and bool(
        _GENERIC_DETAIL.search(_detail_message(open_block.detail)))
    deeper = in_traceback and open_block is not None and open_block.kind in (K.CANN_DETAIL, K.PLOG) and (
        (kind == K.DRIVER and generic_head)
        or (kind == K.DEVICE_EXC and not open_block.device_event
            and (generic_head if dev is None else not dev.comm_wait)
            and not _RESOURCE_HEAD.search(open_block.detail))
        or (generic_head and bool(C.OP_CHECK_SOURCE.search(text)))
        # the first line of its TraceBack that reports a failure of its own (`TsdOpen failed.
        # devId=1[FUNC:…]`), not a check or a restatement, says why the arguments were wrong
        or (generic_head and open_block.kind != K.RELAY and kind in (K.LOG_ERROR, K.PLOG)
            and bool(_OWN_FAILURE.search(text)) and not _GENERIC_DETAIL.search(text)
            and not _RESTATED.search(text) and not _MESSAGE_FETCH.search(text))
        # a status of its own under a head that only says the error message could not be fetched
        or (generic_head and bool(numeric) and not _MESSAGE_FETCH.search(text)
            and bool(_MESSAGE_FETCH.search(open_block.detail))))
    if deeper and kind.tier > 0:
        kind = K.CANN_DETAIL  # an operator's own check under a generic launch error explains it
    serial = dev.serial if dev is not None else None
    # continuation lines join the open block (device exceptions and deeper causes form their own events)
    if open_block is not None and contiguous and indented and kind != K.DEVICE_EXC and not deeper:
        open_block.lines.append(ref)
        for domain, value in numeric.items():
            open_block.block_numeric.setdefault(domain, value)
        if in_traceback and _SINGLE_OP_BUILD.search(text):
            open_block.block_stage = "operator"  # one operator built on its own, not a graph
        elif in_traceback and open_block.block_stage is None and _GRAPH_COMPILE_STAGE.search(text):
            open_block.block_stage = "compile"
        if in_traceback and kind != K.CANN_DETAIL:
            return None, open_block, in_traceback
        if kind in (K.CONTEXT, K.LOG_ERROR, K.PLOG, K.RELAY, K.CANN_TRACE) or _BLOCK_ADVICE.match(text):
            # the registry's advice printed with the block is part of its message, never an event
            return None, open_block, in_traceback
    if not contiguous and not indented:
        open_block = None
    own = _own_time(text, year_hint)
    if own is not None and EPOCH_MARK in text:
        own = times.line_time(ref.file_id, ref.line, offset=False).us  # a UTC epoch stamp, on the local clock
    # a line of an open block's TraceBack was recorded with the block: a logger prefix on it
    # only says when the whole block was printed (often a second later, to the second)
    in_block = open_block is not None and (deeper or (in_traceback and contiguous))
    if own is None and not in_block:
        # the line's own logger stamp (vLLM, c10, Python logging) is its print time
        own = _own_time(cleaned[: len(cleaned) - len(text)], year_hint) if len(cleaned) > len(text) else None
    from_block = in_block and own is None
    if from_block:
        t, inherited = open_block.time, True  # the block's time: recorded with the block
    elif own is not None:
        t, inherited = own, False
    else:
        # the time model's time, the one every pane and report shows for this line (its own
        # channel's stamps around it; None when the channel has none: filled in later)
        t, inherited = times.line_time(ref.file_id, ref.line, offset=False).us, True
    if in_traceback and state.headless and kind != K.RELAY and (
            kind not in (K.CANN_TRACE, K.CONTEXT) or (kind == K.CONTEXT and C.MANAGER_TAIL.search(text))) \
            and text.strip() and not _RELAY.search(text) and not _RESTATED.search(text) \
            and not C.CANN_TRACEBACK_RE.match(text) and not C.BANNER_PAYLOAD.search(text):
        # the first line of a TraceBack whose head is missing is the most specific one left
        kind, state.headless = (K.CANN_DETAIL if kind not in (K.DEVICE_EXC, K.DRIVER, K.TIMEOUT) else kind), False
    elif in_traceback and state.headless and C.CANN_TRACEBACK_RE.match(text) and kind not in (
            K.CANN_DETAIL, K.DEVICE_EXC, K.DRIVER, K.TIMEOUT):
        # `TraceBack (most recent call last):` whose head is not in the log says nothing itself:
        # it frames the lines under it, which outrank it
        kind = K.WRAPPER
    elif in_traceback and kind not in (K.CANN_DETAIL, K.DEVICE_EXC, K.DRIVER, K.TIMEOUT):
        kind = K.CANN_TRACE
    ev = ErrorEvent(
        ref=ref, source_id=source.source_id, stream=source.stream, text=raw,
        level=line_level(raw, source.stream),  # the level the panes show (formats.levels)
        time=t,
        printed_time=t, time_inherited=inherited, kind=kind,
        codes=string_codes(text), numeric=numeric, module=info.get("module"),
        pid=pre.pid if pre.pid is not None else (info.get("pid") or source.pid),
        rank=pre.rank if pre.rank is not None else source.rank,
        device=source.device, lines=[ref], detail=text.strip(), fragment=fragment,
    )
    if info.get("cann_code") and info["cann_code"] not in ev.codes:
        ev.codes.insert(0, info["cann_code"])
    if info.get("cann_pid"):
        ev.cann_pid = info["cann_pid"]
    head = _BARE_PLOG_HEAD.match(text) if source.stream is Stream.STDOUT else None
    if head is not None:  # `[ERROR] RUNTIME(160809)kernel task …`: a plog head without its stamp names the process
        ev.cann_pid = int(head.group(1))
    hdr = C.TORCH_HEADER_RE.search(text)
    if hdr:
        ev.cann_pid = int(hdr.group(2))
        if int(hdr.group(4)) >= 0:
            ev.rank = int(hdr.group(4))
        if int(hdr.group(3)) >= 0:
            ev.device = int(hdr.group(3))
    om = _OPNAME.search(text)
    if om:
        ev.op_name = next(g for g in om.groups() if g)
    rm = _REMOTE_RANK.search(text)
    if rm:
        ev.remote_rank = int(rm.group(1))
    hm = _CRIMER.search(text)
    if hm:
        ev.crimer = hm.group(1)
    if info.get("env_hint"):
        ev.env_hint = True
    if kind == K.EXCEPTION:
        ev.raised_in = raised_in
    if pre.worker:
        ev.worker = pre.worker
    if info.get("dump") and open_block is not None and open_block.dump and contiguous \
            and open_block.first_exc_line is None and open_block.anchor_line is None \
            and C.DEVICE_DUMP_HEAD.match(text.strip()):
        # `DEVICE[0] PID[…]:` then `EXCEPTION TASK:` head one dump (the first has no error word,
        # so it is only seen when a logger prefix carries one)
        open_block.lines.append(ref)
        return None, open_block, in_traceback
    if info.get("dump"):
        ev.dump = ev.device_event = True
        if C.DEVICE_DUMP_INFO.match(text):
            _join_dump(ev, text, ref, year_hint, source)
        return ev, ev, in_traceback
    if kind in (K.DEVICE_EXC, K.TIMEOUT) and ("device" in info or _SERIAL.search(text)) and not deeper:
        # one serial number = one event: restatements (`The extend info from device`, the same
        # exception inside another detail's TraceBack) join the first line that told it
        if serial is None:
            sm = _SERIAL.search(text)
            serial = sm.group(1) if sm else None
        head = device_serials.get(serial) if serial else None
        if head is None and open_block is not None and open_block.device_event and contiguous \
                and open_block.serial in (None, serial) and "device" not in info:
            head = open_block
        if head is not None:
            head.lines.append(ref)
            if serial and head.serial is None:
                head.serial = serial
                device_serials[serial] = head
            if "errorStr" in text and head.anchor_line is None:
                es = C.ERRORSTR_RE.search(text)
                head.detail = es.group(1) if es else text.strip()
                head.anchor_line = ref
            return None, open_block, in_traceback
        if serial:
            device_serials[serial] = ev
        ev.serial, ev.device_event = serial, True
        if "device" in info:
            ev.comm_wait = info["device"].comm_wait
            ev.first_exc_line = ref
    elif kind == K.DEVICE_EXC and "errorStr" in text and open_block is not None \
            and open_block.device_event and contiguous:
        # `The extend info: … errorStr: …` belongs to the exception above it and names its cause
        open_block.lines.append(ref)
        if open_block.anchor_line is None:
            es = C.ERRORSTR_RE.search(text)
            open_block.detail = es.group(1) if es else text.strip()
            open_block.anchor_line = ref
        return None, open_block, in_traceback
    if kind == K.DEVICE_EXC and "errorStr" in text:
        ev.anchor_line = ref
        es = C.ERRORSTR_RE.search(text)
        if es:
            ev.detail = es.group(1)
    if deeper and open_block is not None:
        open_block.kind = K.RELAY  # restated or residue: the deeper line explains the block
        ev.block_numeric.update(open_block.block_numeric)
        ev.block_stage = ev.block_stage or open_block.block_stage
        return ev, open_block, in_traceback
    if kind in (K.CANN_DETAIL, K.DEVICE_EXC, K.TIMEOUT, K.CANN_TRACE) and (
            info.get("cann_code") or ev.device_event):
        return ev, ev, in_traceback
    return ev, open_block, in_traceback


def _join_dump(block: ErrorEvent, text: str, ref: LineRef, year_hint: int | None, source: Source) -> None:
    """A line of a console device-exception dump: the message names the fault, `Other info` its time."""
    if ref not in block.lines:
        block.lines.append(ref)
    stripped = text.strip()
    if stripped.startswith("Message info") and re.search(r"exception|error", stripped, re.I):
        block.anchor_line = ref
        block.detail = stripped
    elif stripped.startswith("Exception info") and block.first_exc_line is None:
        block.first_exc_line = ref
        block.detail = block.detail if block.anchor_line is not None else stripped
    elif stripped.startswith("Other info"):
        t = ts6_to_us(stripped)
        if t is not None and (block.time is None or block.time_inherited):
            block.time = t
            block.printed_time = t
            block.time_inherited = False


ABORT_WINDOW_US = 60 * 1_000_000
ABORT_WINDOW_LINES = 50
ABORT_LOOKBACK_EVENTS = 200  # bounds the walk back: a storm of crash lines stays linear


# A head that reports a resource that could not be had explains the device faults that follow it
# (a copy into memory that was never mapped), so those do not supersede it.
_RESOURCE_HEAD = re.compile(r"[Ff]ailed to allocate memory|out of memory|[Mm]emory (?:is )?not enough")
# the error manager's restatements of a failed call (FuncErrorReason, ReportCallError: docs/diagnosis.md)
_RESTATED = re.compile(r"\[FUNC:(?:FuncErrorReason|ReportCallError)\]")
_BARE_DETAIL = re.compile(rf"^(?=E)({CODE_PATTERN}): +(?=[A-Za-z\[])")  # error codes; W codes are warnings
# the error manager failing to fetch the device's message (`rtGetDevMsg execute failed`, and on
# a board in offline/RC mode `get device msg feature can not support offline mode`)
_MESSAGE_FETCH = re.compile(r"rtGetDevMsg execute failed|GetDevErrMsg|\bget device msg\b.{0,40}\bnot support")
# the graph engine's compile passes in a block's TraceBack (`process pass InferShapePass on node:…
# failed`, `[Compile][Graph]Compile graph failed`, `build graph failed`): the detail above them
# failed while a graph was being compiled, whatever the check was
_GRAPH_COMPILE_STAGE = re.compile(r"\bprocess pass \w+Pass\b|\bCompile graph failed\b|\bbuild graph failed\b|"
                                  r"\[FUNC:(?:CompileGraph|BuildModel|BuildGraph|RunPassesOnNode)\]")
# an operator run through the single-op path builds a model of that one operator (`[Build][SingleOpModel]`,
# `build op model failed`): its passes are the operator's, not a graph's
_SINGLE_OP_BUILD = re.compile(r"\bSingleOpModel\b|\bbuild op model failed\b|\bFail to build op model\b")
_BLOCK_ADVICE = re.compile(r"\s*(?:Possible Cause|Solution)\s*:")
_OWN_FAILURE = re.compile(r"\b(?:failed|failure)\b.{0,300}\[FUNC:\w+\]")


RESTATE_WINDOW_LINES = 60
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def _demote_restating_exceptions(events: list[ErrorEvent]) -> None:
    """A Python exception that only repeats what a native error line of the same file said just
    before it (`RuntimeError: [-1][ACL: general failure]` after `E… Failed to recognize Ascend
    chip. (Code = -1, Message = "ACL: general failure")`) relays that line: the binding raised it."""
    for i, ev in enumerate(events):
        if ev.kind != K.EXCEPTION:
            continue
        m = C.EXCEPTION_RE.match(ev.detail)
        words = set(_WORD.findall(m.group(2))) if m else set()
        if len(words) < 2:
            continue  # too little said to tell a restatement from a coincidence
        for prev in reversed(events[max(0, i - ABORT_LOOKBACK_EVENTS):i]):
            if prev.ref.file_id != ev.ref.file_id or ev.ref.line - prev.ref.line > RESTATE_WINDOW_LINES:
                break
            if prev.kind.tier <= 3 and prev.kind != K.EXCEPTION and words <= set(_WORD.findall(prev.text)):
                ev.kind = K.RELAY
                break


def _demote_message_fetch(events: list[ErrorEvent]) -> None:
    """A detail saying only that fetching the error message failed (`rtGetDevMsg execute failed`)
    restates the missing context or device of the call that failed; when nothing deeper in its
    block explains it, the printed status of that call is the better anchor. It is a relay, not
    noise: when a copy kept nothing else (a launcher's `CANN error: EE1001: …`), it is all there is."""
    for ev in events:
        if ev.kind in (K.CANN_DETAIL, K.PLOG, K.LOG_ERROR) and _MESSAGE_FETCH.search(ev.detail or ev.text):
            ev.kind = K.RELAY


_CALL_STATUS_TOLD = re.compile(r"\berror code is -?\d+")


def _message_under_a_torch_header(events: list[ErrorEvent]) -> None:
    """torch_npu prints its exception first, then its header, then the error manager's message:
    the line right under the header is that message even when a copy lost its code
    (`Failed to bind the IP port. …` for EJ0003), so it outranks the exception above."""
    def split(text: str) -> tuple[str, str]:  # (launcher and logger prefixes, the words)
        text = C.clean(text)
        words = C.strip_prefixes(text)[0]
        return text[:len(text) - len(words)], words.strip()

    def adjacent(a: ErrorEvent, b: ErrorEvent) -> bool:
        return a.ref.file_id == b.ref.file_id and b.ref.line == a.ref.line + 1

    for k in range(1, len(events) - 1):
        above, ev, nxt = events[k - 1], events[k], events[k + 1]
        # the exception above the header reports a call's status (`… error code is 7`): what the
        # error manager's message explains (an out-of-memory exception's header has none under it)
        if ev.kind is K.WRAPPER and nxt.kind is K.LOG_ERROR and adjacent(ev, nxt) and nxt.fragment is None \
                and adjacent(above, ev) and _CALL_STATUS_TOLD.search(above.text):
            (head_prefix, head), (prefix, message) = split(ev.text), split(nxt.text)
            # the same process's print (the same prefixes), and a message's first word, not the
            # tail of a quoted exception text (`', please check the stack trace above …`); an
            # error by its own words, not only by the level of a logger that printed every line
            # of a traceback (a Ray notice, a teardown line)
            if prefix == head_prefix and message[:1].isalpha() \
                    and C.is_torch_header(head) \
                    and classify_line(message, nxt.stream)[0] is K.LOG_ERROR:
                nxt.kind = K.CANN_DETAIL


LONE_STATUS_WINDOW_LINES = 60
"""How far (in lines of the same file) an explaining event may sit from a wrapper's status."""
LONE_STATUS_WINDOW_US = 7200 * 1_000_000
"""... and how far in time: within engine.STALE_GAP_S a peer's failure may be what a victim's
status reports (HCCL's execution timeout is 30 min); further back lies another run."""


# the runtime's optional PCIe-BAR buffer pool for host-to-device copies: when the driver cannot map it
# (`Mem_remote_map ioctl error`), `MallocPcieBarBuffer: Pcie Host Register failed` and the pool's
# `BufferAllocator:allocFunc failed` follow, and the runtime copies the ordinary way
_PCIE_BAR = re.compile(r"MallocPcieBarBuffer:|\bBufferAllocator:allocFunc failed\b")
_REMOTE_MAP = re.compile(r"\bMem_remote_map ioctl error\b", re.I)
PCIE_BAR_LINES = 3


def _pcie_bar_probe(events: list[ErrorEvent]) -> None:
    """The PCIe-BAR pool's set-up failing is a probe the runtime recovers from: its lines, and
    the driver's map failure right above them, are benign."""
    for i, ev in enumerate(events):
        if not _PCIE_BAR.search(ev.text):
            continue
        ev.kind, ev.benign = K.BENIGN, True
        for prev in events[max(0, i - PCIE_BAR_LINES):i]:
            if prev.ref.file_id == ev.ref.file_id and 0 < ev.ref.line - prev.ref.line <= PCIE_BAR_LINES \
                    and _REMOTE_MAP.search(prev.text):
                prev.kind, prev.benign = K.BENIGN, True


def _raised_before_its_report(events: list[ErrorEvent]) -> None:
    """A Python component of CANN (the TE compiler) raises, and the error manager then reports
    the step that failed (`EH9999: Inner Error!` / `[Init][Env]init env failed!`): when the
    exception sits right above the banner and the detail names only the step, the exception is
    the reason and the detail relays it."""
    for i, ev in enumerate(events[:-2]):
        banner, detail = events[i + 1], events[i + 2]
        if ev.kind != K.EXCEPTION or not C.BANNER_PAYLOAD.search(banner.text) or \
                {banner.ref.file_id, detail.ref.file_id} != {ev.ref.file_id} or \
                not 0 < banner.ref.line - ev.ref.line <= 2 or not 0 < detail.ref.line - banner.ref.line <= 1:
            continue
        message = C.MANAGER_TAIL.sub("", _detail_message(detail.detail or detail.text)).strip()
        if detail.kind == K.CANN_DETAIL and _CHAIN_ONLY.match(message):
            detail.kind = K.RELAY


def _promote_lone_status(events: list[ErrorEvent]) -> None:
    """A wrapper that prints the status of the call that failed (`NPU function error: X, error
    code is N`) restates an error told elsewhere; when nothing near it in the same process tells
    one, its status is the most specific evidence there is, and it ranks like an exception."""
    explained = [e for e in events if e.kind.tier <= 2 and e.kind != K.EXCEPTION and not e.tolerated]
    for ev in events:
        statuses = {(d, v) for d, v in ev.numeric.items() if d in ("acl", "aclnn", "hccl")}
        if ev.kind != K.WRAPPER or ev.level < Level.ERROR or not statuses:
            continue
        told = any(e is not ev and e.kind.tier <= 3 and statuses & set(e.numeric.items()) for e in events)
        if not told and not any(
                e.ref.file_id == ev.ref.file_id and abs(e.ref.line - ev.ref.line) <= LONE_STATUS_WINDOW_LINES
                and (e.pid is None or ev.pid is None or e.pid == ev.pid)
                # (an earlier run's error at the top of an appended log explains nothing of this one)
                and (e.time is None or ev.time is None or abs(e.time - ev.time) <= LONE_STATUS_WINDOW_US)
                for e in explained):
            ev.kind = K.EXCEPTION


# an Ascend C kernel's own assertion anywhere in a line, as a plog line prints it
# (`[dump_printf.cpp:548][tid:7] [ASSERT] …`)
_LOGGED_ASSERT = re.compile(r"\[ASSERT\]\s.{0,400}?\bAssertion\b"
                            # its head alone, where a copy wrapped the assertion onto the next lines
                            # (`[ASSERT] …/gather_v3_base.h:137:`)
                            r"|\[ASSERT\]\s+(?:\[[^\]\n]{0,80}\]\s*)*\S{1,300}\.\w{1,4}:\d+:\s*$")
# the same assertion printed by the device at a line's start (`[ASSERT] [CANN_VERSION : …]
# …/gather_v3_base.h:137: Assertion `(0 <= val && …)' Index 2938 out of range`)
KERNEL_ASSERT = re.compile(r"^(?:\[[\w /]{1,40}\]\s*)?(?:" + _LOGGED_ASSERT.pattern + ")")  # `[AIV Block 1/48] [ASSERT] …`
ASSERT_TRAP_WINDOW_LINES = 12
"""How far below a kernel assertion the device's record of the trap it raised may sit."""
ASSERT_DUMP_WINDOW_LINES = 64
"""How far below the trap the exception dump may print the kernel's assertion (its printf
buffer, after the dumps of the kernel's arguments)."""


_CORE_FAULT_REASON_RE = re.compile(_CORE_FAULT_REASON, re.I)
# the op-info library (read at the graph engine's start-up) refusing one operator's entry: it
# skips that operator and loads the rest (`[InitOpInfoLib][InitOpKernel] Node[X]: failed to
# initialize …`, `OpKernelInfo X initialization failed`)
_OP_INFO_ENTRY = re.compile(r"\[InitOpInfoLib\]|\[ConstructOpKernelInfo\]|\bOpKernelInfo \w+ initialization failed")
_TRACEBACK_HEAD = re.compile(r"^\s*TraceBack \(most recent call last\)")


def _op_info_entries_skipped(events: list[ErrorEvent]) -> None:
    """An operator entry the op-info library could not initialise is reported into the error
    queue and skipped; the job fails only if it uses that operator, and then that use reports
    its own error. So the entry's lines (with the banner that introduces them and the TraceBack
    head between them) are tolerated: the anchor only when nothing else failed. torch_npu prints
    the queue with a later failure, often minutes after it was recorded."""
    for i, ev in enumerate(events):
        text = ev.detail or ev.text
        # literal finds first: every event of a storm passes here
        if ("OpInfoLib" not in text and "OpKernelInfo" not in text) or not _OP_INFO_ENTRY.search(text):
            continue
        ev.tolerated = True
        prev = events[i - 1] if i > 0 else None
        if prev is not None and prev.ref.file_id == ev.ref.file_id and 0 < ev.ref.line - prev.ref.line <= 1 \
                and C.BANNER_PAYLOAD.search(prev.text):
            prev.tolerated = True  # `E29999: Inner Error!` over this detail
        for nxt in events[i + 1:]:  # the TraceBack head under it; its entries are judged each alone
            if nxt.ref.file_id != ev.ref.file_id or nxt.ref.line - ev.ref.line > 2:
                break
            if _TRACEBACK_HEAD.match(nxt.text):
                nxt.tolerated = True


def _reason_restates_a_device_record(events: list[ErrorEvent]) -> None:
    """The error manager's reason for a failed call (`execution failed, reason=vector core
    exception`) tells a device fault one layer up; where the runtime's or the device's own record
    of a fault is in the same log or process, that record says more, and the reason relays it."""
    reasons = [e for e in events if e.kind == K.DEVICE_EXC and _CORE_FAULT_REASON_RE.search(e.text)]
    if not reasons:
        return
    records = [e for e in events if e.kind == K.DEVICE_EXC and not _CORE_FAULT_REASON_RE.search(e.text)]
    for ev in reasons:
        if any(r.ref.file_id == ev.ref.file_id or (r.pid is not None and r.pid == ev.pid) for r in records):
            ev.kind = K.RELAY


def _assertion_explains_fault(events: list[ErrorEvent]) -> None:
    """A kernel that fails its own assertion traps its core: the device exception recorded right
    after it is that trap, and the assertion says why. It sorts at the trap's time (its print
    carries no clock of its own)."""
    def asserts(e: ErrorEvent) -> bool:  # read past a launcher's prefix (`[rank3]:[ASSERT] …`)
        return (KERNEL_ASSERT.match(C.strip_prefixes(C.clean(e.text))[0].strip()) is not None
                or (e.stream is not Stream.STDOUT and _LOGGED_ASSERT.search(e.text) is not None))

    def explains(ev: ErrorEvent, trap: ErrorEvent) -> None:
        trap.kind = K.RELAY
        if trap.time is not None and (ev.time is None or ev.time > trap.time):
            ev.time, ev.time_inherited = trap.time, True

    for i, ev in enumerate(events):
        if ev.kind != K.DEVICE_EXC or not asserts(ev):
            continue
        found = False
        for trap in events[i + 1:]:
            if trap.ref.file_id != ev.ref.file_id or trap.ref.line - ev.ref.line > ASSERT_TRAP_WINDOW_LINES:
                break
            if trap.kind == K.DEVICE_EXC and not asserts(trap):
                explains(ev, trap)
                found = True
        if found or ev.stream is Stream.STDOUT:
            continue
        # a plog's exception dump prints the assertion after the trap it raised, in the same process
        for trap in reversed(events[:i]):
            if trap.ref.file_id != ev.ref.file_id or ev.ref.line - trap.ref.line > ASSERT_DUMP_WINDOW_LINES:
                break
            if trap.kind == K.DEVICE_EXC and not asserts(trap) and trap.pid == ev.pid:
                explains(ev, trap)


def _statement_errors_follow_its_first(events: list[ErrorEvent]) -> None:
    """A compiler reports one statement's errors out of source order when one comes from a later
    phase (`no member named 'f'` at column 27, printed after the parse errors at columns 41 and
    45 that the unknown name caused). The error at the statement's first column explains those
    further along the same line; they relay it."""
    first: dict[tuple[int, str, int], tuple[int, ErrorEvent]] = {}
    located: list[tuple[tuple[int, str, int], int, ErrorEvent]] = []
    for ev in events:
        if ev.kind != K.PLOG or "error: " not in ev.text:  # a plog line, not a compiler's
            continue
        m = B.DIAGNOSTIC_AT.search(C.strip_prefixes(C.clean(ev.text))[0])  # past a launcher's prefix
        if m is None:
            continue
        where, column = (ev.ref.file_id, m.group(1), int(m.group(2))), int(m.group(3) or 0)
        located.append((where, column, ev))
        if where not in first or column < first[where][0]:
            first[where] = (column, ev)
    for where, column, ev in located:
        leader = first[where][1]
        if leader is not ev and column > first[where][0] and leader.ref.line > ev.ref.line:
            ev.kind = K.RELAY  # printed before the error that caused it


def _nested_reports_name_their_cause_last(events: list[ErrorEvent]) -> None:
    """A failure relayed through layers (a session that reports its worker's start-up failure)
    prints each layer's line ending in a colon and the layers below it indented under it: in such
    a block every line that ends in a colon only introduces what follows, and the line that does
    not is what failed."""
    end = -1
    for i, ev in enumerate(events):
        if i <= end or ev.stream is not Stream.STDOUT or ev.kind not in _INTRODUCING_KINDS:
            continue
        body = C.strip_prefixes(C.clean(ev.text))[0]
        if not body.rstrip().endswith(":"):
            continue
        depth, block = _indent(body), []
        for j in range(i + 1, len(events)):  # the contiguous lines indented under it
            below = events[j]
            if below.ref.file_id != ev.ref.file_id or below.ref.line != events[j - 1].ref.line + 1:
                break
            text = C.strip_prefixes(C.clean(below.text))[0]
            if not text.strip() or _indent(text) <= depth:
                break
            block.append((below, text.rstrip().endswith(":")))
        end = i + len(block)
        causes = [e for e, colon in block if e.kind.tier <= 3 and not colon]
        if not causes:
            continue
        for e in [ev] + [e for e, colon in block if colon and e.kind in _INTRODUCING_KINDS]:
            e.kind = K.WRAPPER


_INTRODUCING_KINDS = (K.EXCEPTION, K.LOG_ERROR)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


# A failure record printed as JSON, one field a line (a converter's check report): the verdict
# field only says that it failed; the record's message field says what failed
_JSON_VERDICT = re.compile(r'^\s*"(?:result|status|state)"\s*:\s*"(?:fail(?:ed|ure)?|error)"\s*,?\s*$', re.I)
_JSON_MESSAGE = re.compile(rb'^\s*"(?:message|reason|error|err_?msg|detail|cause)"\s*:\s*"(.+?)"\s*,?\s*$')
JSON_RECORD_LINES = 16


def _json_record_cause(events: list[ErrorEvent], indexes: list[FileIndex]) -> None:
    """A JSON verdict (`"result": "failed",`) shows the nearest message field of its own record
    above it (within JSON_RECORD_LINES, its nested objects included)."""
    for ev in events:
        # a quote first, at C speed: a live re-diagnosis passes every event through here again
        if ev.stream is not Stream.STDOUT or '"' not in ev.text or not _JSON_VERDICT.match(C.clean(ev.text)):
            continue
        first = max(0, ev.ref.line - JSON_RECORD_LINES)
        try:
            raws = indexes[ev.ref.file_id].raw_lines(first, ev.ref.line - first)
        except (UnreadableFile, IndexError):
            continue
        depth = 0  # brackets closed minus opened, reading up: below zero is past the record's start
        for k in range(len(raws) - 1, -1, -1):
            raw = raws[k][:MAX_GRAMMAR_CHARS]  # a huge line is read no further than any grammar reads
            depth += raw.count(b"}") + raw.count(b"]") - raw.count(b"{") - raw.count(b"[")
            if depth < 0:
                break
            m = _JSON_MESSAGE.match(raw)
            if m:
                ev.anchor_line = LineRef(ev.ref.file_id, first + k)
                ev.detail = m.group(1).decode("utf-8", "replace")
                break


def _layer_words(text: str) -> str:
    """A CANN message line's words without prefixes, the error manager's tail and end punctuation."""
    body = C.strip_prefixes(C.clean(text))[0]
    return C.MANAGER_TAIL.sub("", body).strip().rstrip(".!").strip()


def _head_restated_by_its_traceback(events: list[ErrorEvent], indexes: list[FileIndex]) -> None:
    """A detail whose own TraceBack ends with the same words is the outermost layer of a chain
    (`PromptFlashAttention LaunchAicore failed.` over `Tiling failed` over the check that
    refused): the TraceBack lists the layers from the first, which says why."""
    for ev in events:
        if ev.kind != K.CANN_DETAIL or ev.anchor_line is not None or len(ev.lines) < 4 or not ev.detail:
            continue
        refs = [r for r in ev.lines if r.file_id == ev.ref.file_id]
        first, last = refs[0].line, refs[-1].line
        if last - first > 64:
            continue
        try:
            raws = indexes[ev.ref.file_id].raw_lines(first, last - first + 1)
        except (UnreadableFile, IndexError):
            continue
        texts = {r.line: raws[r.line - first][:MAX_GRAMMAR_CHARS].decode("utf-8", "replace") for r in refs}
        at = next((k for k, r in enumerate(refs) if C.CANN_TRACEBACK_RE.match(C.strip_prefixes(C.clean(texts[r.line]))[0])),
                  None)
        entries = [r for r in refs[at + 1:] if _layer_words(texts[r.line])] if at is not None else []
        head = _layer_words(_detail_message(ev.detail))
        if len(entries) < 2 or not head or _layer_words(texts[entries[-1].line]) != head:
            continue
        ev.anchor_line = entries[0]
        ev.detail = C.strip_prefixes(C.clean(texts[entries[0].line]))[0].strip()


_MS_ASCEND_SECTION = re.compile(r"^\s*-? ?Ascend Error Message:\s*$")
_STREAM_ID = re.compile(r"\bstream[ _]?id\s*[:=]\s*(\d+)", re.I)
_TASK_ID = re.compile(r"\btask[ _]?id\s*[:=]\s*(\d+)", re.I)
DUMP_DETAIL_LINES = 40  # how far apart a device dump and the detail of the same task are printed


def _task_of(text: str) -> tuple[str, str] | None:
    s, t = _STREAM_ID.search(text), _TASK_ID.search(text)
    return (s.group(1), t.group(1)) if s and t else None


def _dump_of_a_named_task(events: list[ErrorEvent]) -> None:
    """A device's dump of a failed task (`EXCEPTION TASK:` … `stream id=56, … task id=3319`)
    and the error manager's detail that names the same stream and task are one exception: the
    detail says what failed, the dump restates it (with the device's earlier clock)."""
    dumps = [e for e in events if e.dump and e.kind.tier == 0]
    if not dumps:  # most logs: no device dump, and no detail to read for its task
        return
    named = [(e, _task_of(e.detail or e.text)) for e in events if e.kind.tier == 0 and not e.dump]
    for ev in dumps:
        task = _task_of(ev.detail or ev.text)
        if task is not None and any(
                of == task and d.ref.file_id == ev.ref.file_id and abs(d.ref.line - ev.ref.line) <= DUMP_DETAIL_LINES
                for d, of in named):
            ev.kind = K.RELAY


_THROWN = re.compile(r"terminate called after throwing")


def _demote_aborts(events: list[ErrorEvent]) -> None:
    """An abort, terminate or core-dump notice is the consequence of an explicit error the same
    process printed shortly before it; with nothing before it, a crash stays causal."""
    for i, ev in enumerate(events):
        if ev.kind != K.CRASH or ev.text.lstrip().startswith("#"):
            continue
        if _THROWN.search(ev.text) and any(
                nxt.kind.tier <= 3 and nxt.kind not in (K.CRASH, K.ABORT) and nxt.ref.file_id == ev.ref.file_id
                and 0 < nxt.ref.line - ev.ref.line <= ABORT_WINDOW_LINES for nxt in events[i + 1:i + 1 + ABORT_LOOKBACK_EVENTS]):
            # an uncaught exception's abort; threads that die together print it before the error
            ev.kind = K.ABORT
            continue
        for prev in reversed(events[max(0, i - ABORT_LOOKBACK_EVENTS):i]):
            if prev.kind.tier > 3 or prev.kind in (K.CRASH, K.ABORT):
                continue
            near = (prev.ref.file_id == ev.ref.file_id and 0 <= ev.ref.line - prev.ref.line <= ABORT_WINDOW_LINES) or (
                prev.time is not None and ev.time is not None and 0 <= ev.time - prev.time <= ABORT_WINDOW_US)
            same = prev.pid is None or ev.pid is None or prev.pid == ev.pid
            if near and same:
                ev.kind = K.ABORT
                break


def _message_of(ev: ErrorEvent) -> str:
    """The words of an event's line without its header or envelopes."""
    if ev.stream is not Stream.STDOUT:
        p = parse_plog(ev.text)
        if p is not None:
            return p.message.strip()
    return C.strip_prefixes(C.clean(ev.text))[0].strip()


def _advice_lists(events: list[ErrorEvent]) -> None:
    """A header over a list of what may have caused an error, and the numbered items right under
    it, are advice (HCCL prints its generic reasons after a link failure), not failures."""
    intro: ErrorEvent | None = None
    for ev in events:
        if intro is not None and ev.ref.file_id == intro.ref.file_id and ev.ref.line == intro.ref.line + 1 \
                and _ADVICE_ITEM.match(_message_of(ev)):
            ev.kind, intro = K.CONTEXT, ev
            continue
        intro = None
        # (a header ends in its colon: the line's words are read only then, a storm has many)
        if ev.kind.tier <= 3 and ev.text.rstrip().endswith(":") and _ADVICE_INTRO.match(_message_of(ev)):
            ev.kind, intro = K.CONTEXT, ev


# MPICH's error stack: `Fatal error in MPI_Init: …, error stack:` over `Func(line)....: message`
# frames, the outermost first; the deepest frame with a message says why
_MPI_FRAME = re.compile(r"^[A-Za-z_]\w*\(\d+\)\.*:\s*\S")
_MPI_FRAME_ANY = re.compile(r"\w\(\d+\)\.*:")  # the same anywhere in the raw line: a cheap test first
MPI_STACK_GAP = 12  # frames without a message in between are no events


def _mpi_error_stack(events: list[ErrorEvent]) -> None:
    frames = [ev for ev in events if ev.stream is Stream.STDOUT and ev.kind.tier <= 3 and _MPI_FRAME_ANY.search(ev.text)
              and _MPI_FRAME.match(_message_of(ev))]
    for ev, nxt in zip(frames, frames[1:]):
        if nxt.ref.file_id == ev.ref.file_id and 0 < nxt.ref.line - ev.ref.line <= MPI_STACK_GAP:
            ev.kind = K.WRAPPER


def _warnings_that_explain(events: list[ErrorEvent], is_warning: Callable[[ErrorEvent], bool], window_lines: int,
                           verdict: Callable[[ErrorEvent, ErrorEvent], bool | None]) -> None:
    """A warning kept as a candidate (WARNING_CODE) stays one only when an event after it in the
    same file, within `window_lines`, is what it explains: `verdict(warning, later)` says yes,
    no, or None to look further. Otherwise the warning is context."""
    for i, ev in enumerate(events):
        if ev.kind != K.WARNING_CODE or not is_warning(ev):
            continue
        explains = False
        for later in events[i + 1:]:
            if later.ref.file_id != ev.ref.file_id or later.ref.line - ev.ref.line > window_lines:
                break
            said = verdict(ev, later)
            if said is not None:
                explains = said
                break
        if not explains:
            ev.kind = K.CONTEXT


def _missing_function_before_device_init(events: list[ErrorEvent]) -> None:
    """torch_npu's warning that a CANN function it looks up is missing (a CANN older than the
    build expects) explains the device initialisation that fails after it in the same file
    (SetDevice, `_npu_init`) when no CANN detail says otherwise; torch_npu goes on after such a
    lookup, so otherwise the warning stays a warning."""
    def verdict(_: ErrorEvent, later: ErrorEvent) -> bool | None:
        if later.kind.tier == 0 and later.kind != K.WARNING_CODE:
            return False  # a detail of its own says why
        return True if later.kind.tier <= 6 and _DEVICE_INIT.search(later.text) else None

    _warnings_that_explain(events, lambda ev: not ev.codes and _MISSING_FUNCTION.search(ev.text) is not None,
                           MISSING_FUNCTION_LINES, verdict)


# ACL's warning that setting the device up went wrong (`aclrtSetDevice: update platform info with device
# failed, deviceId = 0`), and the runtime's failure for want of the context SetDevice creates
_DEVICE_SET_UP_WARNED = re.compile(r"\b(?:acl)?(?:rt)?SetDevice\w*:?.{0,80}\bfail(?:ed|ure)?\b")
_CONTEXT_MISSING = re.compile(r"\bctx is NULL\b|\bcontext ?pointer null\b|\b107002\b")
CONTEXT_WINDOW_LINES = 1 << 20  # a plog's INFO lines stand between them (tens of thousands in a real one)


def _device_set_up_before_a_missing_context(events: list[ErrorEvent]) -> None:
    """ACL's warning that the device set-up went wrong explains the runtime's later failures of
    the same process for want of a context (`ctx is NULL!`, 107002 context pointer null): the
    device was never set, so no context was created. The first error of that process after the
    warning decides; anything else, and the warning stays context."""
    def verdict(ev: ErrorEvent, later: ErrorEvent) -> bool | None:
        if later.kind.tier > 3 or (ev.pid is not None and later.pid is not None and later.pid != ev.pid):
            return None  # wrappers and relays say nothing of their own; another process's error is not it
        return _CONTEXT_MISSING.search(later.text) is not None

    _warnings_that_explain(events, lambda ev: not ev.codes and _DEVICE_SET_UP_WARNED.search(ev.text) is not None,
                           CONTEXT_WINDOW_LINES, verdict)


# a device task's failure reported with no cause of its own: MindSpore's task dump (`Task fail infos
# … retcode: 507011 ( model execute failed)`), the GetNext op named, or the graph's run that failed
_BARE_TASK_FAILURE = re.compile(r"\bmodel execute failed\b|\bTask fail infos\b|\bGetNext\b|\bRun task for graph\b")
STARVED_WAIT_US = 120 * 1_000_000  # the failure follows the warning within this; MindData warns at 25 s a batch
STARVED_WAIT_LINES = 60


def starved_device_warning(text: str) -> bool:
    """Whether a line is MindData's warning that the device waits on the host's data
    (`formats.console.DATA_STARVED`): the anchor's cause and advice say so."""
    return _DATA_STARVED.search(text) is not None


def _starved_device_before_a_task_failure(events: list[ErrorEvent]) -> None:
    """MindData's warning that a batch took too long to fetch (sink mode: the device's GetNext
    waits on the host) explains the device task failure that follows it in the same file when
    that failure has no cause of its own (no code, nothing else failed between); otherwise the
    warning stays a warning."""
    def verdict(ev: ErrorEvent, later: ErrorEvent) -> bool | None:
        if later.kind.tier > 3 or later.kind == K.WARNING_CODE:
            return None
        return (_BARE_TASK_FAILURE.search(later.text) is not None and not later.codes
                and (ev.time is None or later.time is None or 0 <= later.time - ev.time <= STARVED_WAIT_US))

    _warnings_that_explain(events, lambda ev: starved_device_warning(ev.text), STARVED_WAIT_LINES, verdict)


# a report that sends the reader to another log for the reason (`Failed to init endpoint! Please
# check the service log or console output.`, `Please check the detail log`)
_POINTS_TO_A_LOG = re.compile(r"\b[Pp]lease check the (?:[\w-]+ ){0,2}log\b")
REPORT_LINES_ABOVE = 3
# a line that gives the reason of its own failure (`Check path: config.json failed, by: Check Other
# group permission failed: Current permission is 4, but required no greater than 0.`): the reason
# the report above it points elsewhere for is here
_STATES_ITS_REASON = re.compile(r"\b(?:because|due to|caused by)\b|\b[Rr]eason(?: is)?: ?\S|, by: ?\S|"
                                r"\bbut (?:required|expected|got|given)\b")


def _reports_that_point_to_a_log(events: list[ErrorEvent]) -> None:
    """An error report that asks the reader to check another log says its reason is told there:
    it wraps that error, as do the lines of the same report right above it (contiguous, with no
    stamp, code or status of their own: `LLMInferEngine failed to init LLMInferModels` over
    `ERR: Failed to init endpoint! Please check the service log`). A line above that states its
    own reason is that error, told here, and ends the report."""
    for i, ev in enumerate(events):
        if ev.kind not in (K.LOG_ERROR, K.EXCEPTION) or not _POINTS_TO_A_LOG.search(ev.text):
            continue
        ev.kind = K.WRAPPER
        line = ev.ref.line
        for prev in reversed(events[max(0, i - REPORT_LINES_ABOVE):i]):
            if prev.ref.file_id != ev.ref.file_id or prev.ref.line != line - 1 or prev.kind != K.LOG_ERROR \
                    or prev.codes or prev.numeric or _own_time(prev.text, None) is not None \
                    or _STATES_ITS_REASON.search(prev.text):
                break
            prev.kind, line = K.WRAPPER, prev.ref.line


# an exception whose message only says that a named step failed (`RuntimeError: NPU kernel
# .npu_kernels_xxx execution failed(-1)`): no reason, no code
_BARE_FAILURE = re.compile(r"^(?:[\w.:/-]+ ){0,6}[\w.:/-]+ failed(?: ?\(-?\w{1,12}\))?[.!]?$")
# an exception that introduces the one printed under it (`BackendCompilerFailed: backend='inductor' raised:`)
_RAISED_ENVELOPE = re.compile(r"\braised:$")


def _printed_before_a_bare_raise(events: list[ErrorEvent]) -> None:
    """A library that prints which step failed and then raises an exception that only says a
    step failed (`Kernel load failed for autofused_add_sum_…`, then a traceback ending in
    `RuntimeError: NPU kernel … init failed`): the printed failure, right above the traceback, is
    the reason, and the exception relays it. An exception that only introduces the one under it
    (Dynamo's `… raised:`) is a wrapper of that one."""
    for i, ev in enumerate(events):
        if ev.kind != K.EXCEPTION:
            continue
        nxt = events[i + 1] if i + 1 < len(events) else None
        if nxt is not None and nxt.kind == K.EXCEPTION and nxt.ref.file_id == ev.ref.file_id \
                and nxt.ref.line == ev.ref.line + 1 and _RAISED_ENVELOPE.search(ev.text.rstrip()):
            ev.kind = K.WRAPPER  # Dynamo's `BackendCompilerFailed: backend='inductor' raised:` over the error
            continue
        exc = C.EXCEPTION_RE.match(_message_of(ev))
        if exc is None or ev.codes or ev.numeric or not _BARE_FAILURE.match(exc.group(2).strip()):
            continue
        j, line = i - 1, ev.ref.line  # walk up past the exceptions that introduce it, then its frames
        while j >= 0 and events[j].kind == K.WRAPPER and events[j].ref.file_id == ev.ref.file_id \
                and _RAISED_ENVELOPE.search(events[j].text.rstrip()):
            line, j = events[j].ref.line, j - 1
        top = None
        while j >= 0 and events[j].kind == K.CONTEXT and events[j].ref.file_id == ev.ref.file_id \
                and events[j].ref.line == line - 1:
            top = line = events[j].ref.line
            j -= 1
        if top is None or j < 0:
            continue
        printed = events[j]
        # (the line must say that something failed: a logger's intro of the traceback, `Error executing
        # method 'x'`, reports the exception itself)
        if printed.kind == K.LOG_ERROR and printed.ref.file_id == ev.ref.file_id and 1 <= top - printed.ref.line <= 2 \
                and _FAILED.search(_message_of(printed)):
            ev.kind = K.RELAY


def _releases_differ_before_a_crash(events: list[ErrorEvent]) -> None:
    """A framework's own warning that the installed CANN is not the release it was built for
    (MindSpore's run_check: `MindSpore version 2.3.1 and Ascend AI software package … version 7.5
    does not match`) explains a native crash of that process that follows with no error of its
    own; otherwise the warning stays a warning."""
    # a native crash, or a server's report that a worker died (of what its log does not say)
    crashes = [i for i, ev in enumerate(events) if ev.kind == K.CRASH or _WORKER_DEATH.search(ev.text)]
    for i, ev in enumerate(events):
        if ev.kind != K.WARNING_CODE or ev.level != Level.WARNING or ev.codes or ev.numeric \
                or not _RELEASES_DIFFER.search(ev.text):
            continue
        explains = any(c > i and events[c].ref.file_id == ev.ref.file_id and not any(
            e.kind.tier <= 3 and e.kind != K.WARNING_CODE for e in events[i + 1:c] if e.ref.file_id == ev.ref.file_id)
            for c in crashes)
        if not explains:
            ev.kind = K.CONTEXT


# Python prints `Exception ignored in: <function X.__del__ …>` over the traceback of an exception
# it could not raise (in a destructor, at shutdown): it failed nothing, whatever its words
IGNORED_HEAD = "Exception ignored in"
IGNORED_TRACEBACK_LINES = 40
# a test harness's tag for a check that failed, whatever words follow it (`[FAIL] Output mismatch,
# max diff: nan`); a longer tag (`[FAILOVER]`) is another word
FAIL_TAG = "[FAIL] "


def _ignored_exceptions(events: list[ErrorEvent]) -> None:
    for i, ev in enumerate(events):
        if ev.kind != K.BENIGN or IGNORED_HEAD not in ev.text or not _message_of(ev).startswith(IGNORED_HEAD):
            continue
        for nxt in events[i + 1:]:
            if nxt.ref.file_id != ev.ref.file_id or nxt.ref.line - ev.ref.line > IGNORED_TRACEBACK_LINES:
                break
            if nxt.kind == K.CONTEXT:
                continue
            if nxt.kind.tier <= 3:  # the exception the traceback ends with
                nxt.kind = K.BENIGN
                nxt.benign = True
            break
