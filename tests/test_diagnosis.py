"""Cascade rules of the diagnosis, each with a positive case and a look-alike negative case."""

from __future__ import annotations

from pathlib import Path

from npudiag_tui.core.workspace import Workspace


def diagnose(tmp_path: Path, files: dict[str, str]):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    ws = Workspace.open([str(tmp_path)])
    ws.index()
    return ws, ws.diagnose()


def anchor_text(ws, diag) -> str | None:
    if diag.anchor is None:
        return None
    from npudiag_tui.core.diagnosis.engine import anchor_ref

    ref = anchor_ref(diag.anchor)
    return ws.indexes[ref.file_id].line(ref.line)


def plog(level: str, module: str, pid: int, ts: str, rest: str) -> str:
    return f"[{level}] {module}({pid},python):2026-03-11-{ts} {rest}\n"


TORCH_BLOCK = (
    "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: "
    "AclrtSynchronizeDeviceWithTimeout, error code is 507015\n"
    "[ERROR] 2026-03-11-07:22:42 (PID:4127, Device:0, RankID:0) ERR00100 PTA call acl api failed\n"
    "[Error]: The aicore execution is abnormal.\n"
    "        Rectify the fault based on the error information in the ascend log.\n"
    "EZ9999: Inner Error!\n"
)


def test_wrappers_are_demoted_and_the_cann_detail_anchors(tmp_path):
    # a tiling failure happens on the host before launch: its wrapper reports the aclnn status
    block = TORCH_BLOCK.replace("AclrtSynchronizeDeviceWithTimeout, error code is 507015",
                                "call aclnnFoo failed, error code is 561002")
    ws, d = diagnose(tmp_path, {"train.log": block +
        "EZ9999: [PID: 4127] 2026-03-11-07:22:41.998.100 tiling failed: x dim is 3, but only support 2.[FUNC:Tiling][FILE:a.cpp][LINE:1]\n"})
    assert "tiling failed" in anchor_text(ws, d)
    rels = {e.text.split(" ")[0]: e.secondary for e in d.cascade}
    assert rels["[ERROR]"] == "wrapper"
    assert rels["RuntimeError:"] == "wrapper"
    assert d.category == "operator"


def test_lookalike_a_bare_banner_is_not_a_detail(tmp_path):
    # without any detail line the banner stays a wrapper and the anchor falls back to the exception
    ws, d = diagnose(tmp_path, {"train.log": TORCH_BLOCK})
    assert d.anchor is not None
    assert "Inner Error!" not in anchor_text(ws, d)


def test_inner_error_reported_above_is_a_wrapper(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current working operator name is aclnnMul.\n"
        "[ERROR] 2026-03-11-07:22:42 (PID:9, Device:0, RankID:0) ERR01100 OPS call acl api failed\n"
        "EZ1001: [PID: 9] 2026-03-11-07:22:41.500.000 the dtype of self is not supported.\n"})
    assert "dtype of self" in anchor_text(ws, d)
    wrappers = [e for e in d.cascade if "Inner error is reported" in e.text]
    assert wrappers and wrappers[0].secondary == "wrapper"


def test_lookalike_ordinary_runtime_error_is_causal(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "2026-01-05 16:03:27,514 - train - INFO - step 1\n"
        "RuntimeError: shape '[2, 3]' is invalid for input of size 7\n"})
    assert "is invalid for input" in anchor_text(ws, d)


def test_sync_failure_is_demoted(tmp_path):
    ws, d = diagnose(tmp_path, {"ms.log":
        "[ERROR] DEVICE(16158,fffe34f491e0,python):2023-12-29-12:03:03.764.629 [a/ascend_kernel_runtime.cc:674] TaskFailCallback] Execute TaskFailCallback failed.\n"
        "[ERROR] DEVICE(16158,fffe34f491e0,python):2023-12-29-12:03:04.156.780 [a/ascend_stream_manager.cc:194] SyncStream] Call runtime rtStreamSynchronize error.\n"
        "        The error from device(0), serial number is 7, there is an aicore error, core id is 3, error code = 0x800000, errorStr: The DDR address of the MTE instruction is out of range.\n"})
    assert "errorStr" in anchor_text(ws, d)
    assert d.category == "device"
    assert {e.secondary for e in d.cascade if "Sync" in e.text or "TaskFail" in e.text} == {"sync_failure"}


def test_lookalike_capture_memcpy_is_not_a_sync_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"debug/plog/plog-971_20260617121204000.log":
        "[ERROR] ASCENDCL(971,):2026-06-17-12:12:04.881.908 [memory.cpp:608]971 aclrtMemcpyImpl:synchronized memcpy failed, kind = 1, runtime result = 107030\n"
        "[ERROR] RUNTIME(971,):2026-06-17-12:12:04.882.282 [error_message_manage.cc:65]971 FuncErrorReason:rtMemcpy execution failed, reason=the current capture mode does not support this operation\n"})
    assert "runtime result = 107030" in anchor_text(ws, d)
    assert d.category == "compile"
    assert d.cascade[0].secondary == "consequence"


def _rank_plog(rank: int, pid: int, body: str) -> tuple[str, str]:
    head = plog("INFO", "HCCL", pid, "07:00:00.000.000",
                f"[op_base.cc:412] [{pid}][Init][HcclCommInitRootInfo]ranks[4], rank[{rank}], rootinfo: x, deviceLogicId[{rank}]")
    return f"debug/plog/plog-{pid}_20260311070000000.log", head + body


def test_timeouts_on_healthy_ranks_are_victims_of_the_root_rank(tmp_path):
    files = dict([
        _rank_plog(2, 102, plog("ERROR", "RUNTIME", 102, "07:22:41.503.118",
                                "[device_error_proc.cc:1] 102 ProcessCoreErrorInfo:The error from device(2), serial number is 5, there is an aicore error, core id is 1, error code = 0x800000")),
    ] + [
        _rank_plog(r, 100 + r, plog("ERROR", "HCCL", 100 + r, "07:53:17.000.000",
                                    f"[task_exception_handler.cc:1] [1][TaskException]EI0002 The wait execution of the Notify register times out. remote rank: [2]"))
        for r in (0, 1, 3)
    ])
    ws, d = diagnose(tmp_path, files)
    assert d.anchor is not None and d.anchor.rank == 2
    roles = {r.rank: r.role for r in d.ranks}
    assert roles[2] == "root"
    assert roles[0] == roles[1] == roles[3] == "victim"
    assert all(e.secondary == "timeout_victim" for e in d.cascade if "Notify" in e.text)


def test_lookalike_a_lone_timeout_is_the_anchor(tmp_path):
    files = dict([_rank_plog(0, 100, plog("ERROR", "HCCL", 100, "07:53:17.000.000",
                  "[hccl_socket_manager.cc:796] [1][Wait][LinkEstablish]wait socket establish timeout, role[0] rank[0] timeout[120 s]") +
                  plog("ERROR", "HCCL", 100, "07:53:17.000.100", "[transport_manager.cc:1031] [1][SetMachinePara]call trace: hcclRet -> 9"))])
    ws, d = diagnose(tmp_path, files)
    assert "socket establish timeout" in anchor_text(ws, d)
    assert d.category == "communication"
    assert [e.secondary for e in d.cascade] == ["consequence"]


def test_relay_is_not_the_anchor_but_a_real_hccp_error_is(tmp_path):
    files = dict([_rank_plog(0, 100,
        plog("ERROR", "HCCP", 100, "07:10:00.000.100", "[ra_hdc_rdma.c:1199]tid:100,ra_hdc_rdev_init(1199) : [init][ra_hdc_rdev]ra hdc message process failed ret(-67) phy_id(0)") +
        plog("ERROR", "HCCL", 100, "07:10:00.000.200", "[adapter_hccp.cc:647] [100][Init][RaRdma]errNo[0x0000000005000013] rdma init fail. return: ret[328004]") +
        plog("ERROR", "OP", 100, "07:10:01.000.000", "[indv_lib_wrapper.h:168][NNOP][HcclAllocComResourceByTiling][106524] errno[561000] OpName:[MoeDistributeDispatchV2_0] Nnopbase fails to invoke the HcclAllocComResourceByTiling function of the hccl module. ret = 9"))])
    ws, d = diagnose(tmp_path, files)
    assert "ra hdc message process failed" in anchor_text(ws, d)
    assert all(e.secondary == "consequence" for e in d.cascade)


def test_exact_repeats_are_marked(tmp_path):
    line = "[ERROR] RUNTIME(5,python):2026-03-11-07:00:0{n}.000.000 [a.cc:1]5 rtKernelLaunch:ErrCode=507015, desc=[aicore exception]\n"
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311070000000.log": "".join(line.format(n=n) for n in range(3))})
    assert d.anchor is not None and d.anchor.ref.line == 0
    assert [e.secondary for e in d.cascade] == ["repeat", "repeat"]


def test_lookalike_different_errors_are_not_repeats(tmp_path):
    text = ("[ERROR] RUNTIME(5,python):2026-03-11-07:00:00.000.000 [a.cc:1]5 rtKernelLaunch:ErrCode=507015, desc=[aicore exception]\n"
            "[ERROR] RUNTIME(5,python):2026-03-11-07:00:01.000.000 [a.cc:1]5 rtMalloc:ErrCode=207001, desc=[memory allocation failed]\n")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311070000000.log": text})
    assert [e.secondary for e in d.cascade] != ["repeat"]


def test_benign_error_lines_are_never_the_anchor(tmp_path):
    text = (plog("ERROR", "ATRACE", 5, "07:00:00.000.000", "[atrace_api.c:1](tid:5) open file failed, file=/var/log/x") +
            plog("ERROR", "PROFILING", 5, "07:00:00.100.000", "[prof.cpp:1] >>> (tid:5) profiling collect failed") +
            plog("ERROR", "RUNTIME", 5, "07:05:00.000.000", "[a.cc:1]5 rtMalloc:ErrCode=207001, desc=[memory allocation failed]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311070000000.log": text})
    assert "207001" in anchor_text(ws, d)
    assert d.category == "memory"


def test_lookalike_only_benign_lines_give_no_anchor(tmp_path):
    text = plog("ERROR", "ATRACE", 5, "07:00:00.000.000", "[atrace_api.c:1](tid:5) open file failed, file=/var/log/x")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311070000000.log": text})
    assert d.anchor is None


def test_a_cause_seen_only_as_a_warning_can_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank5]:[W311 07:22:09.118630254 NPUStream.cpp:371] Warning: EE1002: 2026-03-11-07:22:08.000.000 Stream synchronize timeout. rtDeviceSynchronize execute failed\n"})
    assert d.anchor is not None and "EE1002" in anchor_text(ws, d)


def test_lookalike_plain_warning_is_not_an_error(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "WARNING 03-11 07:22:09 [config.py:10] slow tokenizer in use\n"})
    assert d.anchor is None


def test_recorded_time_beats_printed_order(tmp_path):
    # torch_npu prints the CANN block 44 s after it was recorded; an unrelated plog error in between
    console = ("ERROR 03-04 12:57:08 [engine.py:409] InnerRun:x.cpp:230 OPS function error: RepeatInterleave, error code is 500002\n"
               "ERROR 03-04 12:57:08 [engine.py:409] E40024: 2026-03-04-12:56:24.963.302 Failed call Python Func/Meathod [get_hash], Reason[SystemError: PY_SSIZE_T_CLEAN macro must be defined]\n")
    other = plog("ERROR", "GE", 77, "12:56:50.000.000", "[graph.cc:1]77 Build:build graph failed").replace("2026-03-11", "2026-03-04")
    ws, d = diagnose(tmp_path, {"vllm.log": console, "debug/plog/plog-77_20260304125600000.log": other})
    assert "E40024" in anchor_text(ws, d)
    assert d.category == "environment"


def test_registry_guidance_and_actions_are_filled(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[PID: 5120] 2026-01-10-09:15:02.114.220 Compilation_Error(E40021): Failed to compile Op QuantBatchMatmulV3. oppath is /usr/local/Ascend/cann/opp and optype is QuantBatchMatmulV3.\n"})
    assert d.guidance is not None and d.guidance["code"] == "E40021"
    assert d.guidance["args"].get("op_type") == "QuantBatchMatmulV3"
    assert d.guidance["registry"] == "built-in"
    assert d.next_actions
    # console only: the report says how to collect the plogs
    assert any("ASCEND_PROCESS_LOG_PATH" in m or "ASCEND_GLOBAL_LOG_LEVEL" in m for m in d.missing)


def test_interleaved_ranks_inherit_time_from_their_own_channel(tmp_path):
    console = (
        "[rank0]:2026-03-11 07:00:00,000 - INFO - step 1\n"
        "[rank5]:2026-03-11 07:22:00,000 - INFO - step 9\n"
        "[rank5]: RuntimeError: x.cpp:1 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015\n"
        "[rank5]: EZ9999: [PID: 5] 2026-03-11-07:22:41.498.770 The error from device(chipId:5, dieId:0), serial number is 3, there is an aicore error, core id is 1, error code = 0x800000\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]:   File \"/w/train.py\", line 3, in <module>\n"
        "[rank0]: RuntimeError: y.cpp:2 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n"
        "[rank0]: [ERROR] 2026-03-11-07:53:17 (PID:2, Device:0, RankID:0) ERR00100 PTA call acl api failed\n"
    )
    ws, d = diagnose(tmp_path, {"train.log": console})
    assert d.anchor is not None and d.anchor.rank == 5
    rank0 = [e for e in d.events if e.rank == 0 and "507048" in e.text][0]
    # rank 0's exception happens at its own block's time, not at rank 5's recorded stamp
    assert rank0.time is not None and rank0.time > d.anchor.time + 1_000_000
    assert rank0.secondary == "wrapper"


def test_stale_episode_hours_earlier_from_another_process_is_ignored(tmp_path):
    stale = plog("ERROR", "HCCL", 900, "04:00:00.000.000",
                 "[hccl_socket_manager.cc:796] [1][Wait][LinkEstablish]wait socket establish timeout, role[0] rank[0] timeout[120 s]")
    fresh = plog("ERROR", "RUNTIME", 77, "07:00:00.000.000", "[a.cc:1]77 rtMalloc:ErrCode=207001, desc=[memory allocation failed]")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-900_20260311035900000.log": stale,
                                "debug/plog/plog-77_20260311065900000.log": fresh})
    assert "207001" in anchor_text(ws, d)
    assert any(e.stale for e in d.events)


def test_lookalike_same_process_errors_hours_apart_stay_one_episode(tmp_path):
    early = plog("ERROR", "RUNTIME", 77, "04:00:00.000.000", "[a.cc:1]77 rtKernelLaunch:ErrCode=507015, desc=[aicore exception]")
    late = plog("ERROR", "RUNTIME", 77, "07:00:00.000.000", "[a.cc:1]77 rtMalloc:ErrCode=207001, desc=[memory allocation failed]")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-77_20260311035900000.log": early + late})
    assert "507015" in anchor_text(ws, d)


def test_timeout_suspect_is_the_silent_peer_named_in_link_error_rows(tmp_path):
    def timeout_body(pid):
        return (plog("ERROR", "HCCL", pid, "07:53:17.000.000",
                     "[hccl_socket_manager.cc:796] [1][Wait][LinkEstablish]wait socket establish timeout, role[0] rank[0] timeout[120 s]") +
                plog("ERROR", "HCCL", pid, "07:53:17.000.100",
                     "[hccl_socket_manager.cc:582] [1]   |  10.0.0.4(3)   |  16666  |   10.0.0.1(0)   |  1  |  server  | time out |   DISABLE  | LinkInfo"))
    files = dict([_rank_plog(0, 100, timeout_body(100)), _rank_plog(1, 101, timeout_body(101)),
                  _rank_plog(3, 103, plog("INFO", "GE", 103, "07:01:00.000.000", "[g.cc:1]103 Load:loading weights"))])
    ws, d = diagnose(tmp_path, files)
    roles = {r.rank: r.role for r in d.ranks}
    assert roles[3] == "root"
    assert roles[0] == roles[1] == "victim"
    assert any("rank 3" in m.lower() for m in d.missing)


def test_inner_code_detail_takes_the_status_its_wrapper_reported(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: npu_moe_gating_top_k:x.cpp:48 NPU function error: call aclnnMoeGatingTopK failed, error code is 561002\n"
        "[ERROR] 2025-12-24-02:36:13 (PID:11657, Device:0, RankID:0) ERR00100 PTA call acl api failed.\n"
        "EZ9999: Inner Error!\n"
        "EZ9999: [PID: 11657] 2025-12-24-02:36:12.999.877 expert count is: 128, but currently only support 256.[FUNC:CheckInputShape][FILE:t.cpp][LINE:166]\n"})
    assert "expert count" in anchor_text(ws, d)
    assert d.anchor.code == "561002"
    assert d.guidance is not None and d.guidance["code"] == "561002"


def test_lookalike_a_real_code_on_the_anchor_wins_over_related_numbers(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: f:x.cpp:48 NPU function error: call aclnnSwiGlu failed, error code is 561003\n"
        "EZ1001: [PID: 7] 2025-12-24-02:36:12.999.877 the dtype of self is not supported.\n"})
    assert d.anchor.code == "EZ1001"
    assert d.guidance["code"] == "EZ1001"
