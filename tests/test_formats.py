"""Line grammars and code extraction (docs/formats.md), on real and synthetic lines."""

from __future__ import annotations

import pytest

from npudiag_tui.core.formats import codes, console
from npudiag_tui.core.formats.plog import looks_like_plog, parse_plog

from conftest import case_line

# ----------------------------------------------------------------------------- host plog (2.1)


def test_runtime_glued_tid_and_func_real():
    p = parse_plog(case_line("rtMemcpy:ErrCode=107030", "va10630"))
    assert (p.level, p.module, p.pid, p.procname) == ("ERROR", "RUNTIME", 971, "")
    assert (p.source_file, p.source_line) == ("api_c.cc", 1081)
    assert (p.tid, p.func) == (971, "rtMemcpy")
    assert p.message.startswith("ErrCode=107030, desc=[the current capture mode")
    assert p.ts[:6] == (2026, 6, 17, 12, 12, 4)


def test_ascendcl_glued_real():
    p = parse_plog(case_line("[ERROR] ASCENDCL(971,)", "va10630"))
    assert p.module == "ASCENDCL" and p.tid == 971 and p.func == "aclrtMemcpyImpl"
    assert p.message.startswith("synchronized memcpy failed")


def test_ge_glued_tid_differs_from_pid_and_numeric_procname():
    p = parse_plog("[ERROR] GE(1200,4711):2026-01-02-03:04:05.006.007 [graph.cc:12]1234 RunGraph:build failed")
    assert (p.pid, p.procname, p.tid, p.func, p.message) == (1200, "4711", 1234, "RunGraph", "build failed")
    assert p.ts == (2026, 1, 2, 3, 4, 5, 6, 7)


def test_hccl_tid_and_tags_real():
    p = parse_plog(case_line("[128655][Wait][LinkEstablish]wait socket establish timeout", "va9447"))
    assert p.module == "HCCL" and p.pid == 106335 and p.tid == 128655
    assert p.tags == ["Wait", "LinkEstablish"]
    assert p.message.startswith("wait socket establish timeout, role[0] rank[0] timeout[120 s]")


def test_hccl_table_row_is_a_header_line_with_text():
    p = parse_plog(case_line("|  10.20.0.31(29)", "va9447"))
    assert p is not None and p.module == "HCCL" and p.tid == 128655
    assert "10.20.0.31(29)" in p.message


def test_hccp_tid_func_real():
    p = parse_plog(case_line("ra_hdc_rdev_init(1199) :", "va1815"))
    assert (p.module, p.pid, p.procname) == ("HCCP", 38011, "python")
    assert (p.tid, p.func) == (38011, "ra_hdc_rdev_init")
    assert p.message.startswith("[init][ra_hdc_rdev]ra hdc message process failed ret(-67)")


def test_op_nnop_tid_last_real():
    p = parse_plog(case_line("[NNOP][HcclAllocComResourceByTiling]", "va9447"))
    assert (p.module, p.func, p.tid) == ("OP", "HcclAllocComResourceByTiling", 106524)
    assert p.message.startswith("errno[561000] OpName:[MoeDistributeDispatchV2_0]")


@pytest.mark.parametrize("tail", ["[tid:55] msg", "(tid:55) msg", ">>> (tid:55) msg", "[Tid:55] msg"])
@pytest.mark.parametrize("module", ["TDT", "PROFILING", "IDEDD", "ATRACE", "TUNE"])
def test_other_module_tid_variants(module, tail):
    p = parse_plog(f"[ERROR] {module}(77,python):2026-01-02-03:04:05.006.007 [x.cpp:9]{tail}")
    assert p.module == module and p.tid == 55 and p.message == "msg"


def test_other_module_without_tid():
    p = parse_plog("[WARNING] TUNE(77,):2026-01-02-03:04:05.006.007 [x.cpp:9] plain message")
    assert p.tid is None and p.message == "plain message" and p.level == "WARNING"


@pytest.mark.parametrize("level", ["ERROR", "WARNING", "INFO", "DEBUG", "EVENT", "TRACE"])
def test_levels(level):
    p = parse_plog(f"[{level}] FE(5,):2026-01-02-03:04:05.006.007 [f.cc:1]5 Func:m")
    assert p.level == level and p.func == "Func"


def test_negative_pid_and_noise_before_header():
    p = parse_plog("......[ERROR] RUNTIME(-1,):2026-01-02-03:04:05.006.007 [a.cc:1]3 f:x")
    assert p.pid == -1 and p.module == "RUNTIME"


def test_not_headers():
    for line in ("ERROR 04-18 08:22:17 engine.py:400] boom", "  File \"x.py\", line 1, in f",
                 "[ERROR] lowercase(1,):2026-01-02-03:04:05.006.007 x", "wrapped continuation text", ""):
        assert parse_plog(line) is None, line


# ----------------------------------------------------------------------------- device (2.2)

def test_device_lines_with_and_without_space_after_colon():
    a = parse_plog("[WARNING] AICPU(4127,aicpu_scheduler):2026-03-11-07:22:41.498.770 "
                   "[aicpu_sharder.cc:140][Prepare][tid:4141] retry kernel load")
    b = parse_plog("[ERROR] AICPU(4127,aicpu_scheduler): 2026-03-11-07:22:41.503.118 "
                   "[aicpu_sharder.cc:288][RunKernel][tid:4141] kernel param invalid, op type is Gather")
    for p in (a, b):
        assert p.module == "AICPU" and p.pid == 4127 and p.procname == "aicpu_scheduler"
        assert p.source_file.startswith("aicpu_sharder.cc")
        assert p.tid == 4141
    assert b.ts == (2026, 3, 11, 7, 22, 41, 503, 118)
    assert "kernel param invalid, op type is Gather" in b.message


# ----------------------------------------------------------------------------- MindSpore (2.6)

def test_mindspore_real():
    p = parse_plog(case_line("TaskFailCallback] Execute TaskFailCallback failed", "mindone269"))
    assert p.mindspore and p.module == "DEVICE" and p.pid == 16158 and p.procname == "python"
    assert p.func == "TaskFailCallback" and p.source_line == 674
    assert p.message.startswith("Execute TaskFailCallback failed")
    assert p.ts[:3] == (2023, 12, 29)


def test_sniffing():
    plog = b"\n".join([b"[INFO] GE(1,):2026-01-02-03:04:05.006.007 [a.cc:1]1 F:x"] * 5 + [b"wrapped"])
    assert looks_like_plog(plog)
    assert not looks_like_plog(b"Traceback (most recent call last):\nRuntimeError: x\n")
    assert not looks_like_plog(b"")


# ----------------------------------------------------------------------------- torch_npu (2.3)

def test_exception_and_torch_npu_function_error_real():
    line, pre = console.strip_prefixes(console.clean(case_line("NPU function error: AclrtSynchronizeDeviceWithTimeout",
                                                                 "va1443")))
    assert pre.worker == "train" and pre.pid == 8464
    m = console.EXCEPTION_RE.match(line)
    assert m and m.group(1) == "RuntimeError"
    f = console.TORCH_NPU_FUNC_RE.search(line)
    assert f.group(4) == "NPU" and f.group(5) == "AclrtSynchronizeDeviceWithTimeout" and f.group(6) == "507048"
    assert codes.numeric_codes(line) == {"acl": 507048}


def test_function_error_without_exception_name():
    f = console.TORCH_NPU_FUNC_RE.search("InnerRun:torch_npu/csrc/framework/OpParamMaker.cpp:230 OPS function error: "
                                         "RepeatInterleave, error code is 500002")
    assert f.group(4) == "OPS" and f.group(5) == "RepeatInterleave" and f.group(6) == "500002"
    assert console.EXCEPTION_RE.match("InnerRun:x.cpp:230 OPS function error: R, error code is 5") is None


def test_header_real_and_synthetic():
    m = console.TORCH_HEADER_RE.search(case_line("ERR00008 PTA resource not found", "xoscar4"))
    assert m.groups()[:6] == ("2024-06-20-10:41:32", "59450", "-1", "-1", "ERR00008", "PTA")
    m = console.TORCH_HEADER_RE.search(case_line("(PID:13075, Device:0, RankID:8)", "va1443"))
    assert (m.group(2), m.group(3), m.group(4), m.group(5)) == ("13075", "0", "8", "ERR00100")


def test_error_text_line():
    m = console.ERROR_TEXT_RE.match(case_line("[Error]: The vector core execution is abnormal", "va2757").strip())
    assert m.group(1).startswith("The vector core execution is abnormal.")


def test_cann_detail_every_generation():
    d = console.parse_cann_detail("EE1002: 2024-09-03-16:50:00.041.231 Stream synchronize timeout. rtDeviceSynchronize")
    assert (d.code, d.stamp, d.pid) == ("EE1002", "2024-09-03-16:50:00.041.231", None)
    assert d.message.startswith("Stream synchronize timeout.")
    d = console.parse_cann_detail("EZ9999: [PID: 11657] 2025-12-24-02:36:12.999.877 expert count is: 128")
    assert (d.code, d.pid, d.message) == ("EZ9999", 11657, "expert count is: 128")
    d = console.parse_cann_detail("[PID: 30412] 2026-09-02-14:07:33.902.114 AclNN_Parameter_Error(EZ1001): "
                                  "the dtype of self is not supported.")
    assert (d.code, d.pid, d.title, d.message) == ("EZ1001", 30412, "AclNN_Parameter_Error",
                                                   "the dtype of self is not supported.")
    d = console.parse_cann_detail("EZ9999[PID: 30412] 2026-09-02-14:07:33.918.260 (EZ9999):  tiling check failed."
                                  "[FUNC:Tiling][FILE:mm_tiling.cpp][LINE:88]")
    assert d.code == "EZ9999" and d.message.startswith("tiling check failed.")


def test_cann_detail_irregular_shapes():
    """G2: an odd PID field, two spaces instead of a stamp, two spaces after the stamp."""
    d = console.parse_cann_detail("EE9999: [PID:  [881460] 2025-10-15-14:43:16.351.702 Not allow to synchronize "
                                  "captured stream stream_id=2.")
    assert (d.code, d.pid, d.stamp) == ("EE9999", 881460, "2025-10-15-14:43:16.351.702")
    d = console.parse_cann_detail("E39999  Aicpu kernel execute failed, device_id=0, stream_id=12, task_id=2.")
    assert d.code == "E39999" and d.message.startswith("Aicpu kernel execute failed") and d.stamp is None
    d = console.parse_cann_detail("EH9999: 2025-03-11-18:09:53.126.189  Get Allocation Granularity failed")
    assert d.stamp == "2025-03-11-18:09:53.126.189" and d.message == "Get Allocation Granularity failed"


def test_cann_detail_look_alikes_are_not_details():
    assert console.parse_cann_detail("E40021: see the table in the docs") is None  # no stamp, no PID
    assert console.parse_cann_detail("AE40021: 2024-09-03-16:50:00.041.231 x") is None
    assert console.parse_cann_detail("ERR00100 PTA call acl api failed") is None


def test_banners_whatever_carries_them():
    for line in ("EZ9999: Inner Error!", "EZ9999: Internal error!"):
        assert console.parse_cann_detail(line).banner
    text, pre = console.strip_prefixes(console.clean(
        "[rank7]:[W723 10:35:57.462407611 compiler_depend.ts:57] Warning: EZ9999: Inner Error!"))
    assert console.parse_cann_detail(text).banner and pre.level == "WARNING" and pre.rank == 7
    assert console.BANNER_PAYLOAD.search("some logger said EZ9999: Inner Error!")
    assert console.parse_cann_detail("EZ9999: Inner Error! and more text") is None


def test_inline_detail():
    d = console.parse_cann_detail("RuntimeError: call aclnnSwiGlu failed, detail:EZ1001: [PID: 426] "
                                  "2025-04-18-08:22:17.195.330 Get path and read binary_info_config.json failed")
    assert (d.code, d.pid, d.stamp) == ("EZ1001", 426, "2025-04-18-08:22:17.195.330")
    assert d.message.startswith("Get path and read binary_info_config.json failed")


def test_device_exception_every_wording():
    """G2: recognised by the device, the serial number and the core, in any release's sentence."""
    e = console.parse_device_exception(
        "The error from device(chipId:7, dieId:0), serial number is 1, there is an exception of aivec error, "
        "core id is 38, error code = 0x4000000000000000, dump info: ...")
    assert (e.device, e.serial, e.kind, e.core, e.comm_wait) == (7, "1", "aivec", 38, False)
    e = console.parse_device_exception("The error from device(0), serial number is 111, there is an aicore error, "
                                       "core id is 25, error code = 0x800000,")
    assert (e.device, e.serial, e.kind, e.core) == (0, "111", "aicore", 25)
    e = console.parse_device_exception("The error from device(chipId:7, dieId:0), serial number is 2, there is an "
                                       "aivec error exception, core id is 5, error code = 0, dump info:")
    assert (e.kind, e.core) == ("aivec", 5)
    e = console.parse_device_exception("An error occurs on the device(chipId:1, dieId:0), the serial number is 4, "
                                       "the error is fftsplus aivector error, core id is 3, error code = 0x1")
    assert (e.device, e.serial, e.kind) == (1, "4", "fftsplus aivector")
    assert console.parse_device_exception("the device was reset, serial number is 4") is None


def test_device_task_timeouts_are_waits_on_peers():
    """G7/G8: an HCCL or event-wait task timeout in the device envelope is a collective wait."""
    e = console.parse_device_exception("EI9999  The error from device(chipId:5, dieId:0), serial number is 3, hccl "
                                       "fftsplus task timeout occurred during task execution, stream_id:7")
    assert e.comm_wait and e.kind == "hccl fftsplus task timeout"
    e = console.parse_device_exception("The error from device(chipId:5, dieId:0), serial number is 4, event wait "
                                       "timeout occurred during task execution")
    assert e.comm_wait
    e = console.parse_device_exception("The error from device(chipId:1, dieId:0), serial number is 9, there is an "
                                       "exception of fftsplus aivector error, core id is 1, error code = 0")
    assert not e.comm_wait


def test_cann_traceback_and_errorstr():
    assert console.CANN_TRACEBACK_RE.match("        TraceBack (most recent call last):")
    assert not console.TRACEBACK_RE.match("        TraceBack (most recent call last):")
    e = console.ERRORSTR_RE.search("The extend info: errcode:(0x800000, 0x0, 0x0) errorStr: VEC instruction error: "
                                   "the ub address out of bounds. fixp_error0 info: 0x49c61f8")
    assert e.group(1) == "VEC instruction error: the ub address out of bounds."


def test_envelopes_are_removed_before_grammars():
    """G1: a Markdown quote, a fence's backtick, a runner's marker, a compose column, an app label."""
    plog = "[ERROR] GE(946748,main):2025-05-19-15:59:07.739.753 [host_cpu_engine.cc:288]947062 LoadLib: failed."
    for wrapped in ("> " + plog, "`" + plog, "E       " + plog, "svc-1   | " + plog):
        assert console.clean(wrapped) == plog
    text, _ = console.strip_prefixes(console.clean("CANN error: EE9999: Inner Error!"))
    assert text == "EE9999: Inner Error!"
    text, _ = console.strip_prefixes(console.clean(
        "[ERROR] RecentErrMsg: [PID: 354370] 2026-07-21-09:16:41.017.602 Invalid_Argument(EE1001): x"))
    assert console.parse_cann_detail(text).code == "EE1001"
    # look-alikes keep their text: a plog header is not an envelope, nor is a sentence with a colon
    assert console.clean(plog) == plog
    text, _ = console.strip_prefixes("Note: the EZ9999 code is an inner code")
    assert text == "Note: the EZ9999 code is an inner code"


def test_logger_prefixes_give_their_level():
    for line, level, body in (
        ("(WorkerDict pid=904548) [E331 20:50:12.688969421 socket.cpp:1011] [c10d] The client socket timed out",
         "ERROR", "[c10d] The client socket timed out"),
        ("[2025-12-05 13:26:00.197+08:00] [7887] [7889] [server] [ERROR] [endpoint.cpp:37] : [MIE04E02011C] x",
         "ERROR", "[MIE04E02011C] x"),
        ("2025-03-26 13:18:06,621 - lmdeploy - ERROR - model_agent.py:470 - Task failed", "ERROR", "Task failed"),
        ("svc   | 2025-11-19 11:14:59.028 | ERROR    | __main__:doc_parse:95 | Dispatch error", "ERROR",
         "Dispatch error"),
        ("0.18.782.692 E CANN error: EZ9999: Inner Error!", "ERROR", "EZ9999: Inner Error!"),
        ("[W NPUStream.cpp:382] Warning: NPU warning, error code is 107020", "WARNING",
         "Warning: NPU warning, error code is 107020"),
    ):
        text, pre = console.strip_prefixes(console.clean(line))
        assert (text, pre.level) == (body, level), line


def test_escaped_block_expands_into_sub_lines():
    line = 'svc | {"detail":"x error code is 507033\\n[Error]: Failed\\nE30006: 2025-11-19-11:14:58.516.606 bad\\n"}'
    parts = console.expand_escaped(line)
    assert parts[1] == "[Error]: Failed" and parts[2].startswith("E30006: 2025-11-19")
    assert console.expand_escaped("path C:\\new\\dir") == ["path C:\\new\\dir"]  # one escape is not a block


# ----------------------------------------------------------------------------- tracebacks (2.4)

def test_traceback_pieces():
    assert console.TRACEBACK_RE.match("Traceback (most recent call last):")
    text, pre = console.strip_prefixes(case_line("line 60, in synchronize", "va1443"))
    m = console.FRAME_RE.match(text)
    assert pre.pid == 8464
    assert m.group(1).endswith("torch_npu/npu/utils.py") and m.group(2) == "60" and m.group(3) == "synchronize"
    assert console.CARET_RE.match("        ^^^^^^^^^^^^")
    assert console.is_continuation("    return torch_npu._C._npu_synchronize()")
    assert console.is_continuation("   ^^^^")
    assert not console.is_continuation("RuntimeError: x")
    m = console.EXCEPTION_RE.match("torch.OutOfMemoryError: NPU out of memory.")
    assert m.group(1) == "torch.OutOfMemoryError"


# ----------------------------------------------------------------------------- prefixes (2.5)

def test_ray_prefix_with_ip_and_repeat():
    text, pre = console.strip_prefixes("(train pid=8464, ip=10.0.0.7) [repeated 3x across cluster] RuntimeError: x")
    assert text == "RuntimeError: x"
    assert (pre.worker, pre.pid, pre.ip, pre.repeated) == ("train", 8464, "10.0.0.7", 3)


def test_vllm_v1_worker_rank():
    text, pre = console.strip_prefixes(
        "(VllmWorker rank=3 pid=123) ERROR 02-14 06:01:55 [multiproc_executor.py:601] EZ9999: Inner Error!")
    assert text == "EZ9999: Inner Error!"
    assert (pre.worker, pre.rank, pre.pid, pre.level) == ("VllmWorker", 3, 123, "ERROR")
    assert pre.logger_time == "02-14 06:01:55" and pre.logger_file == "multiproc_executor.py:601"


def test_vllm_v0_real():
    text, pre = console.strip_prefixes(case_line("multiproc_worker_utils.py:240] RuntimeError: NPU out of memory",
                                                 "va19"))
    assert pre.worker == "VllmWorkerProcess" and pre.pid == 20493 and pre.level == "ERROR"
    assert text.startswith("RuntimeError: NPU out of memory.")
    text, pre = console.strip_prefixes(case_line("engine.py:400] call aclnnSwiGlu failed", "va573"))
    assert text.startswith("call aclnnSwiGlu failed") and pre.logger_file == "engine.py:400"


def test_engine_core_real():
    text, pre = console.strip_prefixes(case_line("Initializing a V1 LLM engine", "va9447"))
    assert pre.worker == "EngineCore_DP0" and pre.pid == 106187 and pre.level == "INFO"
    assert text.startswith("Initializing a V1 LLM engine")


def test_c10_rank_prefix():
    text, pre = console.strip_prefixes("[rank5]:[W0311 07:22:09.118630254 NPUStream.cpp:371] Warning: EZ9999: x")
    assert pre.rank == 5 and pre.level == "WARNING" and text == "EZ9999: x"
    assert codes.string_codes(text) == ["EZ9999"]


def test_pdsh_and_nested():
    text, pre = console.strip_prefixes(
        "worker-1: (VllmWorker rank=2 pid=77) ERROR 02-14 06:01:55 [x.py:1] RuntimeError: boom")
    assert text == "RuntimeError: boom"
    assert (pre.host, pre.worker, pre.rank, pre.pid, pre.level) == ("worker-1", "VllmWorker", 2, 77, "ERROR")


def test_plain_lines_untouched():
    for line in ("RuntimeError: x", "Traceback (most recent call last):", "    indented"):
        assert console.strip_prefixes(line)[0] == line


# ----------------------------------------------------------------------------- noise (2.8)

@pytest.mark.parametrize("raw", [
    "\x1b[0;36m(Worker_TP5 pid=4411)\x1b[0;0m RuntimeError: x",
    "^[[0;36m(Worker_TP5 pid=4411)^[[0;0m RuntimeError: x",
    "[0;36m(Worker_TP5 pid=4411)[0;0m RuntimeError: x",
])
def test_ansi_forms(raw):
    text = console.clean(raw)
    assert text == "(Worker_TP5 pid=4411) RuntimeError: x"
    body, pre = console.strip_prefixes(text)
    assert pre.worker == "Worker_TP5" and pre.pid == 4411 and body == "RuntimeError: x"


def test_ansi_keeps_log_brackets():
    line = "[ERROR] HCCL(1,):2026-01-02-03:04:05.006.007 [a.cc:1] [5][Wait]x"
    assert console.clean(line) == line


def test_cr_progress_bar():
    assert console.clean("Loading: 10%|#  |\rLoading: 50%|### |\rRuntimeError: boom\r") == "RuntimeError: boom"
    assert console.clean("text\r") == "text"
    # errors glued to progress dots are still found by the unanchored plog search
    p = parse_plog("....[ERROR] RUNTIME(1,):2026-01-02-03:04:05.006.007 [a.cc:1]1 f:x")
    assert p is not None and p.func == "f"


def test_markdown_quote():
    assert console.clean("> RuntimeError: boom") == "RuntimeError: boom"
    assert console.clean(">Traceback (most recent call last):") == "Traceback (most recent call last):"


def test_control_characters_removed():
    assert console.clean("a\x00b\x07c") == "abc"


# ----------------------------------------------------------------------------- codes (3)

@pytest.mark.parametrize("text, expect", [
    ("EZ9999: Inner Error!", ["EZ9999"]),
    ("E40021 then EI0002 and W11001, WE0001", ["E40021", "EI0002", "W11001", "WE0001"]),
    ("E19999 E19999 EE1002", ["E19999", "EE1002"]),
    ("EZ9999[PID: 1] 2026-09-02-14:07:33.918.260 (EZ9999): x", ["EZ9999"]),
    ("detail:EZ1001: [PID: 426]", ["EZ1001"]),
    ("[W0311 07:22:09.118630254 NPUStream.cpp:371]", []),
    ("SE40021X E400210 XEZ9999", []),
    ("ERR00100 PTA call acl api failed", []),
    ("error code = 0x800000", []),
])
def test_string_codes(text, expect):
    assert codes.string_codes(text) == expect


@pytest.mark.parametrize("text, expect", [
    ("NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048", {"acl": 507048}),
    ("synchronized memcpy failed, kind = 1, runtime result = 107030", {"acl": 107030}),
    ("rtMemcpy:ErrCode=107030, desc=[x]", {"acl": 107030}),
    ("call aclnnSwiGlu failed, error code is 561003", {"aclnn": 561003}),
    ("call aclnnAdd failed, error code is 161002", {"aclnn": 161002}),
    ("errno[561000] OpName:[MoeDistributeDispatchV2_0]", {"aclnn": 561000}),
    ("ERR00100 PTA call acl api failed", {"torch_npu": 100}),
    ("ERR02200 DIST call hccl api failed", {"torch_npu": 2200}),
    ("[SetMachinePara]call trace: hcclRet -> 9", {"hccl": 9}),
    ("HCCL function error: HcclAllReduce, error code is 11", {"hccl": 11}),
    ("error code is 5070480", {}),
    ("nothing here", {}),
])
def test_numeric_codes(text, expect):
    assert codes.numeric_codes(text) == expect


def test_codes_in_real_lines():
    assert codes.numeric_codes(case_line("[ERROR] ASCENDCL(971,)", "va10630"))["acl"] == 107030
    assert codes.numeric_codes(case_line("errno[561000]", "va9447"))["aclnn"] == 561000
    assert codes.numeric_codes(case_line("call trace: hcclRet -> 9", "va9447")) == {"hccl": 9}
    line = case_line("ERR00008 PTA resource not found", "xoscar4")
    assert codes.torch_err(line) == "ERR00008"
    assert codes.string_codes(case_line("EE1002: 2024-09-03", "pt48")) == ["EE1002"]


def test_inner_codes():
    assert codes.is_inner_code("EZ9999") and codes.is_inner_code("E19999") and codes.is_inner_code("EE8888")
    assert not codes.is_inner_code("EZ1001") and not codes.is_inner_code("EI0002")


@pytest.mark.parametrize("line", [
    "[ERROR] ASCENDCL(971,):2026-06-17-12:12:04.881.908 [memory.cpp:608]971 aclrtMemcpyImpl:x",
    "(VllmWorker rank=3 pid=123) ERROR 02-14 06:01:55 [multiproc_executor.py:601] EZ9999: Inner Error!",
    "ERROR 03-04 12:57:08 [model_runner.py:1] [mindspore] x",
])
def test_clean_keeps_brackets_starting_with_m(line):
    assert console.clean(line) == line


def test_clean_then_prefixes_keep_logger_file():
    text, pre = console.strip_prefixes(console.clean(
        "\x1b[36m(VllmWorker rank=3 pid=123)\x1b[0m ERROR 02-14 06:01:55 [multiproc_executor.py:601] EZ9999: x"))
    assert text == "EZ9999: x" and pre.logger_file == "multiproc_executor.py:601"
    assert console.clean("x \x1b[m y [0m z [1;31mred") == "x  y  z red"


def test_console_scan_keeps_native_stack_frames_at_line_starts(tmp_path):
    from npudiag_tui.core.index import FileIndex
    from npudiag_tui.core.model import Stream
    from npudiag_tui.core.scan import SourceScan

    path = tmp_path / "train.log"
    path.write_bytes(b"#0 0x1234 in foo\nok line\n#12 0xabc bar\nnot #3 0x1 mid-line\n")
    scan = SourceScan(Stream.STDOUT)
    FileIndex(str(path), 0).extend(on_chunk=lambda chunk: scan.feed(0, chunk))
    assert [(h.line, h.text) for h in scan.hits] == [(0, "#0 0x1234 in foo"), (2, "#12 0xabc bar")]
