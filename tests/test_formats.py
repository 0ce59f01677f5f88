"""Line grammars of DOMAIN.md 2 and code extraction of DOMAIN.md 3, on real and synthetic lines."""

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


def test_cann_gen1_real():
    m = console.CANN_GEN1.match(case_line("EE1002: 2024-09-03-16:50:00.041.231", "pt48").strip())
    assert m.group(1) == "EE1002" and m.group(2) == "2024-09-03-16:50:00.041.231"
    assert m.group(3).startswith("Stream synchronize timeout.")


def test_cann_gen2_real():
    text, _ = console.strip_prefixes(case_line("EZ9999: [PID: 11657] 2025-12-24-02:36:12.999.877", "va5310"))
    m = console.CANN_GEN2.match(text)
    assert (m.group(1), m.group(2)) == ("EZ9999", "11657")
    assert m.group(4).startswith("expert count is: 128")


def test_cann_gen3_both_forms():
    m = console.CANN_GEN3.match("[PID: 30412] 2026-09-02-14:07:33.902.114 AclNN_Parameter_Error(EZ1001): "
                                "the dtype of self is not supported.")
    assert m.group(1) is None and m.group(2) == "30412" and m.group(5) == "EZ1001"
    assert m.group(6) == "the dtype of self is not supported."
    m = console.CANN_GEN3.match("EZ9999[PID: 30412] 2026-09-02-14:07:33.918.260 (EZ9999):  tiling check failed."
                                "[FUNC:Tiling][FILE:mm_tiling.cpp][LINE:88]")
    assert m.group(1) == "EZ9999" and m.group(5) == "EZ9999" and m.group(6).startswith("tiling check failed.")


def test_banners():
    assert console.CANN_BANNER.match("EZ9999: Inner Error!")
    assert console.CANN_BANNER.match("EZ9999: Internal error!")
    text, _ = console.strip_prefixes(case_line("EZ9999: Inner Error!", "va5310"))
    assert console.CANN_BANNER.match(text.strip())
    assert not console.CANN_BANNER.match("EZ9999: Inner Error! and more text")


def test_inline_detail_real():
    m = console.CANN_INLINE.search(case_line("detail:EZ1001", "va573"))
    assert m.group(1) == "EZ1001" and m.group(2) == "426" and m.group(3) == "2025-04-18-08:22:17.195.330"
    assert m.group(4).startswith("Get path and read binary_info_config.json failed")


def test_cann_traceback_and_device_exception():
    assert console.CANN_TRACEBACK_RE.match("        TraceBack (most recent call last):")
    assert not console.TRACEBACK_RE.match("        TraceBack (most recent call last):")
    m = console.DEVICE_EXC_RE.search(case_line("there is an exception of aivec error, core id is 38", "va2757"))
    assert (m.group(1), m.group(2), m.group(4), m.group(5), m.group(6), m.group(7)) == (
        "7", "0", "1", "aivec", "38", "0x4000000000000000")
    m = console.DEVICE_EXC_RE.search(case_line("there is an aicore error, core id is 25", "mindone269"))
    assert (m.group(3), m.group(4), m.group(5), m.group(7)) == ("0", "111", "aicore", "0x800000")
    e = console.ERRORSTR_RE.search(case_line("errorStr: VEC instruction error", "va2757"))
    assert e.group(1) == "VEC instruction error: the ub address out of bounds."


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
    assert pre.rank == 5 and text.startswith("[W0311 07:22:09")
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


def test_console_scan_keeps_native_stack_frames_at_line_starts():
    from npudiag_tui.core.model import Stream
    from npudiag_tui.core.scan import SourceScan

    scan = SourceScan(Stream.STDOUT)
    scan._feed_console(0, b"#0 0x1234 in foo\nok line\n#12 0xabc bar\nnot #3 0x1 mid-line\n", 0)
    assert [(h.line, h.text) for h in scan.hits] == [(0, "#0 0x1234 in foo"), (2, "#12 0xabc bar")]
