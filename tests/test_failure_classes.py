"""The eight failure classes of unseen logs (issue #9, G1-G8): each rule with a positive case and
a look-alike that must not trigger it. Inputs are synthetic lines in the documented shapes; no
case of the corpus is quoted."""

from __future__ import annotations

from npudiag_tui.core.formats.codes import numeric_codes
from npudiag_tui.core.formats.timestamps import format_us

from test_diagnosis import anchor_text, diagnose


def plog(level: str, module: str, pid: int, ts: str, rest: str, day: str = "2026-03-11") -> str:
    return f"[{level}] {module}({pid},python):{day}-{ts} {rest}\n"


def test_g1_quoted_plog_header_is_scanned(tmp_path):
    text = ("> " + plog("ERROR", "GE", 41, "10:00:00.000.100", "[engine.cc:9]42 LoadLib: [Invoke][DlOpen] failed.")
            + plog("INFO", "GE", 41, "10:00:00.000.200", "[engine.cc:9]42 Init: ok"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-41_20260311100000000.log": text})
    assert "DlOpen] failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_g1_lookalike_quote_of_an_info_line_finds_nothing(tmp_path):
    text = ("> " + plog("INFO", "GE", 41, "10:00:00.000.100", "[engine.cc:9]42 LoadLib: ok")
            + plog("INFO", "GE", 41, "10:00:00.000.200", "[engine.cc:9]42 Init: ok"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-41_20260311100000000.log": text})
    assert d.anchor is None


def test_g1_escaped_block_is_read_line_by_line(tmp_path):
    escaped = ("svc  | 2026-03-11 10:00:01.000 | ERROR | app:run:9 | Dispatch error: 500: {\"detail\":\"x.cpp:152 NPU "
               "function error: c10_npu::SetDevice(0), error code is 507033\\n[ERROR] 2026-03-11-10:00:00 (PID:9, "
               "Device:0, RankID:-1) ERR00100 PTA call acl api failed\\nE30006: 2026-03-11-10:00:00.516.606 Failed to "
               "verify the OPP package signature.\\n        TraceBack (most recent call last):\\n        New device "
               "failed, retCode=0x7010006\\n\"}\n")
    ws, d = diagnose(tmp_path, {"server.log": escaped})
    assert d.anchor.fragment.startswith("E30006: 2026-03-11-10:00:00.516.606")
    assert d.anchor.ref.line == 0  # the physical line stays reachable
    assert d.category == "environment"


def test_g1_lookalike_one_escape_is_not_a_block(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "ERROR: cannot write C:\\new_dir\\log: permission denied\n"})
    assert d.anchor.fragment is None


def test_g1_app_label_before_a_banner_stays_a_banner(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "/src/ggml-cann.cpp:61: CANN error: EE9999: Inner Error!\n"
        "EE9999: [PID:  [881] 2026-03-11-10:00:00.351.702 Not allow to synchronize captured stream stream_id=2.\n"
        "TraceBack (most recent call last):\n"
        "synchronize stream failed, runtime result = 107027[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"})
    assert "Not allow to synchronize captured stream" in anchor_text(ws, d)
    assert d.category == "compile"  # 107027: the stream is being captured


def test_g2_device_exception_in_another_wording(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank3]:[W311 10:00:05.1 compiler_depend.ts:57] Warning: EZ9999: Inner Error!\n"
        "EZ9999: [PID: 77] 2026-03-11-10:00:01.381.401 The error from device(chipId:3, dieId:0), serial number is 2, "
        "there is an aivec error exception, core id is 5, error code = 0, dump info: pc start: 0x1\n"})
    assert "serial number is 2" in anchor_text(ws, d)
    assert d.category == "device"


def test_g2_lookalike_sentence_without_stable_fields_is_not_a_device_exception(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "ERROR 03-11 10:00:01 [worker.py:1] the device was reset by the operator, retrying\n"})
    assert d.category != "device"


def test_g4_device_exception_in_traceback_explains_an_older_head(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EH9999: 2026-03-11-09:50:00.126.189  Get Allocation Granularity failed, runtime result = 207000"
        "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
        "        TraceBack (most recent call last):\n"
        "        The error from device(chipId:1, dieId:0), serial number is 1, there is an aivec error exception, "
        "core id is 19, error code = 0\n"})
    assert "serial number is 1" in anchor_text(ws, d)
    assert d.category == "device"


def test_g4_lookalike_outer_layers_stay_outer_layers(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EZ9999: [PID: 5] 2026-03-11-10:00:00.000.001 op[Foo] tiling failed, x dim is 3.[FUNC:T][FILE:t.cc][LINE:1]\n"
        "        TraceBack (most recent call last):\n"
        "        Check NnopbaseExecutorDoTiling(executor) failed\n"
        "        [drv api] halFoo failed: drvRetCode=3!\n"})
    assert "tiling failed" in anchor_text(ws, d)  # a specific head is not demoted by a driver line


def test_g4_driver_failure_under_a_generic_head(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "[ERROR] RecentErrMsg: [PID: 35] 2026-03-11-10:00:00.017.602 Invalid_Argument(EE1001): The argument is "
        "invalid.Reason: rtGetDevMsg execution failed, the context is a null pointer.\n"
        "        TraceBack (most recent call last):\n"
        "        [drv api] halDeviceOpen failed. device_id=1, drvRetCode=7.[FUNC:DeviceOpen][FILE:d.cc][LINE:438]\n"})
    assert "halDeviceOpen failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_g5_banner_in_a_warning_is_a_wrapper(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]:[W311 10:00:05.1 NPUStream.cpp:371] Warning: EZ9999: Internal error!\n"
        "RuntimeError: call aclnnFoo failed, detail:EZ1001: [PID: 7] 2026-03-11-10:00:04.000.001 the dtype of x "
        "is not supported.\n"})
    assert "EZ1001" in anchor_text(ws, d)


def test_g5_core_dump_after_an_error_is_its_consequence(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "[FATAL]  Acl return error .../kernels/attention.cc:140, with ERROR 561103\n"
        "\n"
        "Segmentation fault (core dumped)\n"})
    assert "with ERROR 561103" in anchor_text(ws, d)
    assert d.category == "operator"


def test_g5_lookalike_a_segfault_with_nothing_before_stays_causal(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log": "INFO loading model\nSegmentation fault (core dumped)\n"})
    assert "Segmentation fault" in anchor_text(ws, d)
    assert d.category == "unknown"


def test_g6_loader_failure_at_warning_level_is_causal(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "(EngineCore pid=1) WARNING 03-11 10:00:00 [camem.py:64] Failed to import vllm_ascend_C:libfoo_kernels.so: "
        "cannot open shared object file: No such file or directory.\n"
        "(EngineCore pid=1) ERROR 03-11 10:05:00 [core.py:1] AttributeError: '_OpNamespace' object has no attribute "
        "'weak_ref_tensor'\n"})
    assert "cannot open shared object" in anchor_text(ws, d)
    assert d.category == "environment"


def test_g6_lookalike_cuda_probe_on_an_ascend_host_is_noise(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "WARNING 03-11 10:00:00 [_custom_ops.py:21] Failed to import from vllm._C with ImportError('libcudart.so.12: "
        "cannot open shared object file: No such file or directory')\n"
        "ERROR 03-11 10:05:00 [core.py:1] RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"})
    assert "out of memory" in anchor_text(ws, d)
    assert d.category == "memory"


def test_g6_a_system_library_named_like_cudas_is_no_cuda_probe(tmp_path):
    """libcurl and libcups start as CUDA's libraries do (`libcu…`): their failure to bind is a
    real loader failure (here another libssl put first on the library path), not a probe."""
    ws, d = diagnose(tmp_path, {"print.log":
        "ImportError: /usr/lib64/libcups.so.2: symbol EVP_md5 version OPENSSL_3.0.0 not defined in file "
        "libcrypto.so.3 with link time reference\n"
        "ModuleNotFoundError: No module named 'cups_backend'\n"})
    assert "libcups.so.2: symbol EVP_md5" in anchor_text(ws, d)
    assert d.category == "environment"


def test_g6_benign_filter_keys_on_module_not_on_a_word(tmp_path):
    text = (plog("ERROR", "IDEDD", 5, "10:00:00.000.001", "[idedd.cc:1] symbol collection failed")
            + plog("ERROR", "GE", 5, "10:00:00.000.002", "[so.cc:3]5 Load: undefined symbol: _ZN2ge3FooEv"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311100000000.log": text})
    assert "undefined symbol" in anchor_text(ws, d)
    assert d.category == "environment"


def test_g7_category_follows_the_printed_status_not_a_stream_word(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[W311 10:00:05.530 compiler_depend.ts:527] Warning: NPU warning, error code is 507014[Error]: \n"
        "[Error]: The aicore execution times out.\n"
        "EH9999: Inner Error!\n"
        "        rtDeviceSynchronizeWithTimeout execute failed, reason=[aicore timeout][FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:53]\n"})
    assert d.category == "device"  # 507014, an AI Core execution timeout; not the word "Synchronize"


def test_g7_lookalike_a_stream_field_name_routes_nothing(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "E39999  Aicpu kernel execute failed, device_id=0, stream_id=12, task_id=2.[FUNC:P][FILE:task.cc][LINE:7]\n"})
    assert d.category == "device"  # stream_id is a field, not a stream failure


def test_g7_service_bind_failure_is_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"server.log":
        "[2026-03-11 10:00:00.681+08:00] [38] [452] [server] [ERROR] [http_server.cpp:163] : [MIE04E02041C] "
        "[endpoint] Failed to listen 127.0.0.1:1025, Address already in use\n"})
    assert d.category == "environment"


def test_g7_hccl_task_timeout_from_device_is_communication(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EI9999: Inner Error!\n"
        "EI9999  The error from device(chipId:5, dieId:0), serial number is 3, hccl fftsplus task timeout occurred "
        "during task execution, stream_id:7, sq_id:7, task_id:5990, stuck notify num:1, timeout:1836.\n"})
    assert "hccl fftsplus task timeout" in anchor_text(ws, d)
    assert d.category == "communication"


def test_g8_aicore_execution_timeout_is_a_device_cause_not_a_victim(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: [PID: 7] 2026-03-11-10:00:00.000.001 The error from device(chipId:0, dieId:0), serial number is 4, "
        "aicore timeout occurred during task execution, stream_id:3\n"
        "EI0002: [PID: 8] 2026-03-11-10:30:00.000.001 The wait execution of the Notify register times out. "
        "Reason: The Notify register has not received the Notify record from remote rank: [unknown].\n"})
    assert "aicore timeout" in anchor_text(ws, d)
    assert d.category == "device"


def test_interleaved_ranks_keep_their_own_blocks(tmp_path):
    p = "(Worker_TP{r} pid=9{r}) ERROR 03-11 10:00:00 [multiproc_executor.py:671] "
    ws, d = diagnose(tmp_path, {"serve.log":
        p.format(r=3) + "       Check NnopbaseRunForWorkspace(*executor, workspaceSize) failed\n"
        + p.format(r=2) + "        TraceBack (most recent call last):\n"
        + p.format(r=0) + "  File \"/x/moe.py\", line 318, in forward\n"
        + p.format(r=2) + "       MoeDispatch do tiling failed, ret is -1.\n"
        + p.format(r=0) + "    out = self.apply(x)\n"
        + p.format(r=2) + "       Check NnopbaseExecutorDoTiling(executor) failed\n"})
    assert "do tiling failed" in anchor_text(ws, d)
    assert d.category == "operator"


def test_g3_year_less_stamps_take_the_year_of_full_dates_not_the_copy_time(tmp_path):
    import os

    log = tmp_path / "train.log"
    log.write_text("[W1230 06:28:14.530030670 compiler_depend.ts:527] Warning: NPU warning, error code is 507014"
                   "[Error]: \n"
                   "EH9999[PID: 94] 2025-12-30-06:28:14.936.982 (EH9999):  wait for compute device to finish failed, "
                   "runtime result = 507014.\n")
    os.utime(log, (1798612094, 1798612094))  # copied in 2026
    ws, d = diagnose(tmp_path, {})
    times = sorted(e.time for e in d.events if e.time is not None)
    assert times and times[-1] - times[0] < 3600 * 1_000_000  # all in 2025, not a year apart


def test_g3_c10_month_day_is_unpadded_and_good_to_the_second():
    from npudiag_tui.core.formats.timestamps import find_stamp, format_us

    st = find_stamp("[W311 07:22:09.118630254 NPUStream.cpp:371] Warning: x", 2026)
    assert format_us(st.us) == "2026-03-11T07:22:09.000000" and st.resolution == 1_000_000
    st = find_stamp("[E1212 07:22:09.5 socket.cpp:1] x", 2025)
    assert format_us(st.us).startswith("2025-12-12T07:22:09")
    assert find_stamp("[W1341 07:22:09.5 a.cpp:1] x", 2025) is None  # month 13 is no date


def test_traceback_source_lines_logged_at_error_are_context(tmp_path):
    """vLLM workers log a caught traceback line by line at ERROR: the indented source line above
    the exception is not an error of its own, so the lone wrapper that names the call is the anchor."""
    prefix = "(Worker rank=1 pid=31) ERROR 03-11 10:00:05 [executor.py:9] "
    ws, d = diagnose(tmp_path, {"serve.log":
        prefix + "    dist.barrier(group).wait()\n"
        + prefix + "RuntimeError: make:x.cpp:148 HCCL function error: HcclCommInitRootInfo(n, &info, r, &c), "
        "error code is 2\n"
        + prefix + "[ERROR] 2026-03-11-10:00:05 (PID:31, Device:1, RankID:-1) ERR02200 DIST call hccl api failed.\n"})
    assert "HCCL function error: HcclCommInitRootInfo" in anchor_text(ws, d)
    assert d.category == "communication"


def test_lookalike_indented_error_logged_at_error_stays_an_error(tmp_path):
    prefix = "(Worker rank=1 pid=31) ERROR 03-11 10:00:05 [executor.py:9] "
    ws, d = diagnose(tmp_path, {"serve.log": prefix + "    load of weights failed: shard 3 missing\n"})
    assert "load of weights failed" in anchor_text(ws, d)


def test_operator_source_file_routes_an_inner_coded_detail_to_operator(tmp_path):
    """An inner code says "failed internally"; the error manager's [FILE:] shows the operator's
    tiling or shape-inference code refused its inputs."""
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: Inner Error!\n"
        "EZ9999: [PID: 50] 2026-03-11-10:00:01.000.100 head dim is 96, but only 64 and 128 are allowed."
        "[FUNC:CheckHead][FILE:flash_attn_score_tiling.cpp][LINE:77]\n"})
    assert "head dim is 96" in anchor_text(ws, d)
    assert d.category == "operator"


def test_lookalike_runtime_source_file_does_not_route_to_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: Inner Error!\n"
        "EZ9999: [PID: 50] 2026-03-11-10:00:01.000.100 head dim is 96, but only 64 and 128 are allowed."
        "[FUNC:Launch][FILE:kernel_launch.cc][LINE:77]\n"})
    assert d.category != "operator"


def test_kernel_fault_under_an_aic_info_dump_head_is_the_anchor(tmp_path):
    """A block whose head detail is the last line of an AI Core argument dump says nothing; the
    runtime's kernel-fault report in its TraceBack names the task and kernel that faulted."""
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: Inner Error!\n"
        "EZ9999[PID: 70] 2026-03-11-10:00:01.000.100 (EZ9999):  [AIC_INFO] after execute:args print end"
        "[FUNC:GetError][FILE:stream.cc][LINE:1191]\n"
        "        TraceBack (most recent call last):\n"
        "       Aicore kernel execute failed, device_id=0, stream_id=2, report_stream_id=2, task_id=77, "
        "flip_num=1, fault kernel_name=my_fused_kernel_3, program id=1\n"
        "       wait for compute device to finish failed, runtime result = 507035.\n"})
    assert "Aicore kernel execute failed" in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_kernel_fault_under_a_specific_head_keeps_the_head(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: Inner Error!\n"
        "EZ9999: [PID: 70] 2026-03-11-10:00:01.000.100 gather index 9000 is out of range [0, 4096)."
        "[FUNC:CheckIndex][FILE:gather_v2.cc][LINE:11]\n"
        "        TraceBack (most recent call last):\n"
        "       Aicore kernel execute failed, device_id=0, stream_id=2, report_stream_id=2, task_id=77, "
        "flip_num=1, fault kernel_name=gather_v2_3, program id=1\n"})
    assert "gather index 9000 is out of range" in anchor_text(ws, d)


def test_operator_check_behind_a_rank_prefix_explains_a_generic_launch_error(tmp_path):
    """Launchers prefix every line of a block, so its TraceBack is indented behind `[rank0]:`; an
    operator's tiling check there explains a launch refused for an invalid argument."""
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]: [PID: 9] 2026-03-11-10:00:01.000.100 Invalid_Argument(EE1003): LaunchKernelV2 failed because "
        "value 0 for parameter blockDim is invalid. Expected value: not equal to 0.\n"
        "[rank0]:         TraceBack (most recent call last):\n"
        "[rank0]:         head num 7 is not a divisor of 32[FUNC:MyAttnTilingFunc][FILE:my_attn_tiling.cpp][LINE:9]\n"
        "[rank0]:         MyAttn do tiling failed, ret is -1.\n"})
    assert "head num 7 is not a divisor of 32" in anchor_text(ws, d)
    assert d.category == "operator"


def test_lookalike_operator_check_under_a_specific_head_keeps_the_head(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]: [PID: 9] 2026-03-11-10:00:01.000.100 Execution_Error(EZ1001): expert count 128 exceeds 64.\n"
        "[rank0]:         TraceBack (most recent call last):\n"
        "[rank0]:         head num 7 is not a divisor of 32[FUNC:MyAttnTilingFunc][FILE:my_attn_tiling.cpp][LINE:9]\n"})
    assert "expert count 128 exceeds 64" in anchor_text(ws, d)


def test_init_env_failed_is_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EH9999: Inner Error!\n"
        "EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"
        "        TraceBack (most recent call last):\n"
        "        build op model failed, result = 500001[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"})
    assert "init env failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_init_model_failed_is_not_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EH9999: Inner Error!\n"
        "EH9999  [Init][Model]init model failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"})
    assert d.category != "environment"


def test_glog_error_letter_makes_a_line_an_error_and_ret_carries_the_status(tmp_path):
    """glog prints the level as a letter; a line at E with no error word is still an error, and
    `ret:207000.` is an aclError status (the sentence's full stop is not a decimal)."""
    ws, d = diagnose(tmp_path, {"client.log":
        "I0419 16:59:47.796775 19844 client.cpp:264] Mounting segment: 1073741824 bytes\n"
        "E0419 16:59:47.826516 19842 transport.cpp:487] Register mem ret:207000.\n"
        "E0419 16:59:47.826553 19842 service.cpp:1521] register_local_memory_failed size=1073741824, error=-1\n"})
    assert "Register mem ret:207000." in anchor_text(ws, d)
    assert d.category == "environment"  # 207xxx: not supported on this hardware or install


def test_lookalike_glog_info_with_a_status_is_no_error(tmp_path):
    ws, d = diagnose(tmp_path, {"client.log":
        "I0419 16:59:47.826516 19842 transport.cpp:487] Register mem ret:0.\n"
        "I0419 16:59:47.826553 19842 build.cpp:12] toolkit version 100000.5 loaded\n"})
    assert d.anchor is None


def test_device_exception_with_a_full_stop_after_the_serial_number(tmp_path):
    ws, d = diagnose(tmp_path, {"infer.log":
        "EI9999: Inner Error!\n"
        "        The error from device(1), serial number is 13. there is a sdma error, sdma channel is 0, the "
        "channel exist the following problems: The SMMU returns a Terminate error during page table translation.\n"
        "EI9999: 2026-03-11-10:00:01.000.100  Memory async copy failed, device_id=1, stream_id=3, task_id=703"
        "[FUNC:GetError][FILE:stream.cc][LINE:1082]\n"})
    assert "there is a sdma error" in anchor_text(ws, d)
    assert d.category == "device"


def test_error_manager_format_glitch_is_noise_and_a_plugin_so_that_fails_to_load_is_environment(tmp_path):
    text = (plog("ERROR", "GE", 7, "10:00:00.000.100", "[error_manager.cc:91]7 FormatErrorMessage: FormatErrorMessage "
                 "failed, ret:-1, pattern:%s[FUNC:%s][FILE:%s][LINE:%d]")
            + plog("ERROR", "FE", 7, "10:00:00.000.200", "[plugin_manager.cc:62]7 OpenPlugin:\"[FEInit][OpPluginSo] Fail to "
                   "load so file /opt/cann/opp/fusion_pass/libx_fusion_pass.so, error message is (null).\""))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-7_20260311100000000.log": text})
    assert "Fail to load so file" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_failing_to_load_a_model_file_is_not_a_library(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "RuntimeError: Fail to load model file /data/w.safetensors\n"})
    assert d.category != "environment"


def test_missing_distributed_backend_is_environment_and_atb_setup_is_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "RuntimeError: Distributed package doesn't have NCCL built in\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "[rank0]:[E806 06:36:53.094766090 compiler_depend.ts:429] PagedAttentionOperation setup failed!\n"})
    assert d.category == "operator"


def test_lookalike_setup_of_something_else_is_not_an_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log": "[rank0]:[E806 06:36:53.0947 server.cpp:9] logging setup failed!\n"})
    assert d.category != "operator"


def test_segfault_banner_is_a_native_crash(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "  File \"Modules/main.c\", line 768, in Py_BytesMain\n\n"
        "!!!!!!! Segfault encountered !!!!!!!\n"
        "  File \"Objects/obmalloc.c\", line 866, in get_state\n"})
    assert "Segfault encountered" in anchor_text(ws, d)
    assert d.category == "unknown"


def test_lookalike_segfault_handler_notice_at_info_is_not_a_crash(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log": "INFO 03-11 10:00:00 [init.py:9] segfault handler installed\n"})
    assert d.anchor is None


def test_a_message_fetch_failure_yields_to_the_status_beneath_or_before_it(tmp_path):
    """`rtGetDevMsg execute failed` says only that the error message could not be fetched: a
    status of its own in the block explains it, else the wrapper's printed status does."""
    ws, d = diagnose(tmp_path, {"a.log":
        "RuntimeError: GetDevice:x.cpp:60 NPU function error: aclrtGetCurrentContext(&c), error code is 107002\n"
        "EE1001: [PID: 207] 2026-03-11-10:00:01.000.100 The argument is invalid.Reason: rtGetDevMsg execute failed, "
        "reason=[context pointer null]\n"
        "        TraceBack (most recent call last):\n"
        "        [Init][Version]init soc version failed, ret = 507008[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"})
    assert "init soc version failed" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"b.log":
        "** SERVER BUSY: ERROR, PLEASE RETRY **\n"
        "(allocate:NPUCachingAllocator.cpp:2050 NPU error, error code is 107002\n"
        "EE1001: The argument is invalid.Reason: rtGetDevMsg execute failed, reason=[context pointer null]\n"})
    assert "error code is 107002" in anchor_text(ws, d)


def test_a_message_fetch_failure_is_anchored_when_a_copy_kept_nothing_else(tmp_path):
    """A launcher that prints only the error manager's first line (`E CANN error: EE1001: … rtGetDevMsg
    execute failed`) kept nothing deeper: the line is weak, but it is the failure there is."""
    ws, d = diagnose(tmp_path, {"serve.log":
        "0.00.005.380 I target     : aarch64-linux-gnu\n"
        "0.00.476.376 E CANN error: EE1001: 2026-03-11-10:00:01.000.100 The argument is invalid.Reason: "
        "rtGetDevMsg execute failed, reason=[context pointer null]\n"})
    assert "rtGetDevMsg execute failed" in anchor_text(ws, d)


def test_lookalike_a_wrapper_status_with_a_detail_near_stays_a_wrapper(tmp_path):
    ws, d = diagnose(tmp_path, {"a.log":
        "** SERVER BUSY: ERROR, PLEASE RETRY **\n"
        "RuntimeError: f:x.cpp:9 NPU function error: call aclnnMatmul failed, error code is 161002\n"
        "EZ1001: [PID: 9] 2026-03-11-10:00:01.000.100 the dtype of self is not supported.\n"})
    assert "the dtype of self is not supported" in anchor_text(ws, d)


def test_event_wait_timeout_on_the_device_is_stream_event_and_notify_wait_is_communication(tmp_path):
    line = ("EE9999[PID: 8] 2026-03-11-10:00:01.000.100 (EE9999):  The error from device(chipId:5, dieId:0), serial "
            "number is 1, {} timeout occurred during task execution, stream_id:44, sq_id:44, task_id:9\n")
    ws, d = diagnose(tmp_path, {"a.log": line.format("event wait")})
    assert d.category == "stream_event"
    ws, d = diagnose(tmp_path / "b", {"a.log": line.format("hccl fftsplus task")})
    assert d.category == "communication"


def test_infershape_in_any_case_is_operator(tmp_path):
    text = plog("ERROR", "GE", 6, "10:00:00.000.100", "[ge_generator.cc:799]6 GenerateModel: ErrorNo: 1343242270"
                "(Prepare Graph infershape failed) [COMP][DEFAULT][Build][Model] failed, ret:1343242270.")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-6_20260311100000000.log": text})
    assert d.category == "operator"


def test_an_allocation_failure_head_is_not_superseded_by_the_device_fault_beneath(tmp_path):
    ws, d = diagnose(tmp_path, {"a.log":
        "EL0004: [PID: 553] 2026-03-11-10:00:01.000.100 Failed to allocate memory.\n"
        "        Possible Cause: Available memory is insufficient.\n"
        "        TraceBack (most recent call last):\n"
        "        alloc device memory failed, runtime result = 207001[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
        "        The error from device(0), serial number is 1. there is a sdma error, sdma channel is 0\n"})
    assert "Failed to allocate memory" in anchor_text(ws, d)
    assert d.category == "memory"


def test_lookalike_a_generic_head_is_superseded_by_the_device_fault_beneath(tmp_path):
    ws, d = diagnose(tmp_path, {"a.log":
        "EE1001: [PID: 553] 2026-03-11-10:00:01.000.100 The argument is invalid.\n"
        "        TraceBack (most recent call last):\n"
        "        The error from device(0), serial number is 1, there is an aivec error exception, core id is 3, "
        "error code = 0\n"})
    assert "there is an aivec error" in anchor_text(ws, d)


def test_old_banner_with_its_detail_indented_beneath(tmp_path):
    """Old releases print the detail as indented lines right under `Inner Error!`."""
    ws, d = diagnose(tmp_path, {"a.log":
        "Ascend kernel runtime initialization failed.\n"
        "EE8888: Inner Error!\n"
        "        Unsupport flags, flags=4[FUNC:StreamCreate][FILE:api_error.cc][LINE:300]\n"
        "        rtStreamCreateWithFlags execute failed, reason=[feature not support][FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:49]\n"})
    assert "Unsupport flags, flags=4" in anchor_text(ws, d)


def test_lookalike_banner_with_only_a_restatement_beneath_anchors_no_restatement(tmp_path):
    ws, d = diagnose(tmp_path, {"a.log":
        "EH9999: Inner Error!\n"
        "        rtDeviceSynchronize execute failed, reason=[task timeout][FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:53]\n"})
    kinds = {e.ref.line: e.kind for e in d.events}
    assert kinds.get(1) != "cann_detail"  # a restatement never becomes the block's detail


def test_offline_tool_prints_a_bare_code_message(tmp_path):
    """ATC prints the error manager's message as `CODE: message`, no stamp: it is the detail."""
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
        "E19010: No parser is registered for Op [/blocks.1/MyOp, optype [ai.onnx::11::MyOp]].\n"
        "        Solution: Check the version of the installation package and reinstall the package.\n"})
    assert "No parser is registered for Op" in anchor_text(ws, d)


def test_lookalike_bare_inner_code_or_warning_code_is_no_detail(tmp_path):
    ws, d = diagnose(tmp_path, {"atc.log":
        "W11001: High-priority service of op[x] is invalid, low-priority service is used.\n"
        "ATC run failed, Please check the detail log\n"})
    assert "ATC run failed" in anchor_text(ws, d)


def test_a_status_told_earlier_keeps_its_wrapper_a_wrapper(tmp_path):
    """The wrapper's status 107000 was first printed by the runtime's own error line: that line
    is the origin, the wrapper (from an unrelated later call) restates it."""
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR] [Bisheng] Kernel binary register failure! ret 107000\n"
        "[ERROR] [Bisheng] Get kernel function failure! ret 100000\n"
        "RuntimeError: SetPrecisionMode:x.cpp:175 NPU function error: AclSetCompileopt(mode), error code is 107000\n"})
    assert "Kernel binary register failure" in anchor_text(ws, d)
    assert d.category == "environment"


def test_terminate_printed_before_the_error_it_aborts_on_is_a_consequence(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "[PID: 859] 2026-03-11-10:00:01.000.100 AclNN_Runtime_Error(EZ9903): aclrtLaunchKernelWithHostArgs failed: 507011\n"
        "        TraceBack (most recent call last):\n"
        "        The error from device(chipId:1, dieId:0), serial number is 6, there is an exception of fftsplus "
        "aivector error, core id is 1, error code = 0x800000\n"})
    assert "fftsplus aivector error" in anchor_text(ws, d)


def test_lookalike_terminate_with_nothing_after_it_stays_the_crash(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "INFO 03-11 10:00:00 [a.py:1] serving\n"
        "terminate called after throwing an instance of 'std::bad_alloc'\n"})
    assert "terminate called" in anchor_text(ws, d)


def test_c10_short_prefix_with_a_ts_file_carries_the_level(tmp_path):
    """torch_npu's build names its sources `.ts`: `[E compiler_depend.ts:421]` is an ERROR logger
    prefix, so the watchdog's timeout after a glued progress bar is the first error."""
    ws, d = diagnose(tmp_path, {"train.log":
        "Train:   0%|  | 0/24 [00:00<?, ?it/s][W compiler_depend.ts:26] Warning: kernel [ArgSort] runs on AiCpu\n"
        " [E compiler_depend.ts:421] [Rank 19] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=3, "
        "OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800278 milliseconds before timing out.\n"
        "[E compiler_depend.ts:475] Some HCCL operations have failed or timed out.\n"})
    assert "Watchdog caught collective operation timeout" in anchor_text(ws, d)
    assert d.category == "communication"


def test_lookalike_bracketed_letter_before_a_non_source_name_is_no_prefix():
    from npudiag_tui.core.formats.console import strip_prefixes

    assert strip_prefixes("[E notes.txt:4] Watchdog caught collective operation timeout")[1].level is None
    assert strip_prefixes(" [E compiler_depend.ts:4] Watchdog caught")[1].level == "ERROR"


def test_the_reason_of_a_failed_call_routes_it(tmp_path):
    """`reason=aicpu exception` is the message, not a key=value field to strip."""
    ws, d = diagnose(tmp_path, {"a.log":
        "EE9999: Inner Error!\n"
        "EE9999[PID: 7] 2026-03-11-10:00:01.000.100 (EE9999):  rtEventSynchronize execution failed, "
        "reason=aicpu exception[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"})
    assert d.category == "device"


def test_driver_log_level_noise_yields_to_the_dcmi_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"smi.log":
        "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\n"
        "dcmi module initialize failed. ret is -8005\n"})
    assert "dcmi module initialize failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_failed_op_compiler_option_is_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"repl.log":
        "RuntimeError: SetPrecisionMode:x.ts:155 NPU function error: at_npu::native::AclSetCompileopt("
        "aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001\n"
        "[ERROR] 2026-03-11-10:00:01 (PID:5, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"})
    assert d.category == "environment"


def test_gen3_detail_carried_inline_after_detail_colon_heads_its_traceback(tmp_path):
    """vLLM prints an exception's first line bare and prefixes the rest: the inline gen3 detail
    on the bare line heads the TraceBack that follows on the prefixed channel."""
    prefix = "(EngineCore pid=229) ERROR 03-11 10:00:05 [core.py:1195] "
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: init failed, error is call aclnnMyOp failed, detail:[PID: 229] 2026-03-11-10:00:05.102.492 "
        "AclNN_Parameter_Error(EZ1001): ADD_TO_LAUNCHER_LIST_AICORE failed.\n"
        + prefix + "        TraceBack (most recent call last):\n"
        + prefix + "        Cannot find binary for op MyOp.\n"
        + prefix + "        Kernel GetWorkspace failed. opType: 46\n"})
    assert "ADD_TO_LAUNCHER_LIST_AICORE failed" in anchor_text(ws, d)
    assert d.anchor.ref.line == 0


def test_lookalike_traceback_far_below_a_detail_stays_headless(tmp_path):
    prefix = "(EngineCore pid=229) ERROR 03-11 10:00:05 [core.py:1195] "
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: call aclnnMyOp failed, detail:[PID: 229] 2026-03-11-10:00:05.102.492 "
        "AclNN_Parameter_Error(EZ1001): old failure.\n"
        "INFO 03-11 10:00:06 [a.py:1] retrying\n" * 4
        + prefix + "        TraceBack (most recent call last):\n"
        + prefix + "        Cannot find binary for op MyOp.\n"})
    kinds = {e.ref.line: e.kind for e in d.events}
    assert kinds.get(6) == "cann_detail"  # the first informative line of a head-less TraceBack


def test_a_traceback_pasted_as_one_line_is_read_as_its_lines(tmp_path):
    """A traceback whose newlines became spaces: its frames and statements are read apart, so the
    runtime's task fault on the next line is not hidden behind the old wrapper."""
    frames = " ".join(f'File "/w/m{i}.py", line {i}, in f{i} x{i}()' for i in range(4))
    ws, d = diagnose(tmp_path, {"init.log":
        f"Traceback (most recent call last): {frames} RuntimeError: Run:x.cpp:128 NPU error,NPU error code "
        "is:100000 EZ9999: Inner Error, Please contact support engineer!\n"
        "EZ9999 Kernel task happen error, retCode=0x2a, [aicpu exception].[FUNC:PreCheckTaskErr][FILE:task.cc]"
        "[LINE:1068]\n"})
    assert "retCode=0x2a, [aicpu exception]" in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_a_message_quoting_two_paths_stays_one_line():
    from npudiag_tui.core.formats.console import expand_escaped

    line = 'RuntimeError: cannot compare File "/a.py", line 1 with File "/b.py", line 2'
    assert expand_escaped(line) == [line]


def test_runtime_reason_naming_a_device_fault_is_the_anchor_over_its_relays(tmp_path):
    """Old releases print only the host side: the runtime's `reason=[aicpu exception]` under the
    banner is the one record of the fault; `wait for compute device to finish failed` relays it."""
    block = ("[rank0]:[W NPUStream.cpp:365] Warning: NPU warning, error code is 507018[Error]: \n"
             "[Error]: The aicpu execution is abnormal. \n"
             "        Rectify the fault based on the error information in the ascend log.\n"
             "EH9999: Inner Error!\n"
             "        rtDeviceSynchronize execute failed, reason=[aicpu exception]"
             "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
             "EH9999: 2026-03-11-10:00:01.{ms:03d}.674  wait for compute device to finish failed, runtime result = "
             "507018.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
             "        TraceBack (most recent call last):\n"
             " (function npuSynchronizeDevice)\n")
    # the log starts inside an earlier, cut copy of the same block
    text = ("EH9999: 2026-03-11-10:00:01.100.674  wait for compute device to finish failed, runtime result = "
            "507018.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n        TraceBack (most recent call last):\n"
            " (function npuSynchronizeDevice)\n" + block.format(ms=200) + block.format(ms=300))
    ws, d = diagnose(tmp_path, {"train.log": text})
    assert "reason=[aicpu exception]" in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_runtime_reason_without_a_device_fault_stays_a_relay(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: Inner Error!\n"
        "EZ9999: [PID: 7] 2026-03-11-10:00:01.100.100 Not allow to synchronize captured stream stream_id=2.\n"
        "        TraceBack (most recent call last):\n"
        "        rtStreamSynchronize execute failed, reason=[stream not in capture mode]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"})
    assert "Not allow to synchronize captured stream" in anchor_text(ws, d)


def test_a_call_that_prints_its_own_failed_result_is_an_error_line(tmp_path):
    """No level, no error word: `ret 107000` (an invalid argument) is the call's own failure, and
    it explains the operator errors that follow it."""
    ws, d = diagnose(tmp_path, {"server.log":
        "loading kernels\n"
        "RegisterAscendBinary aiv ret 107000\n"
        "serving on port 8080\n"
        "[FATAL]  Acl return error kernels/attention.cc:140, with ERROR 561103\n"})
    assert anchor_text(ws, d) == "RegisterAscendBinary aiv ret 107000"


def test_lookalike_a_runtime_status_printed_by_a_launch_is_a_relay(tmp_path):
    """507011 is the status of work that already failed on the device: the launch that printed it
    only noticed; the device exception below explains it."""
    ws, d = diagnose(tmp_path, {"server.log":
        "LaunchAscendKernel ret 507011\n"
        "[PID: 36134] 2026-07-07-13:03:41.196.024 AclNN_Runtime_Error(EZ9903): aclrtLaunchKernelWithHostArgs failed: 507011\n"
        "        TraceBack (most recent call last):\n"
        "        The error from device(chipId:1, dieId:0), serial number is 1, there is an exception of fftsplus "
        "aivector error, core id is 33, error code = 0x800000\n"})
    assert "fftsplus aivector error" in anchor_text(ws, d)


def test_lookalike_a_number_that_is_no_error_code_is_not_a_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"server.log": "tokens ret 123456 in 3 s\nserving on port 8080\n"})
    assert d.anchor is None


def _runtime(ts: str, where: str, msg: str, pid: int = 4242) -> str:
    return f"[ERROR] RUNTIME({pid},python):2026-03-11-10:00:{ts} [{where}]4300 {msg}\n"


def test_plog_device_fault_record_explains_the_task_failure_reported_before_it(tmp_path):
    """The runtime reports a failed task from its completion queue first, saves the core's
    registers, then prints the fault: the fault (and its errorStr) is the event, the rest relays it."""
    text = (_runtime("01.377.431", "stars_engine.cc:1548", "ProcLogicCqReport:Task run failed, device_id=1, stream_id=3, "
                     "task_id=31, sqe_type=7(notify wait), errType=0x20(sq sw status error), sqSwStatus=0")
            + _runtime("01.406.860", "device_error_core_proc.cc:619", "AddExceptionRegInfo:add error register: core_id=8, "
                       "stream_id=3, task_id=31")
            + _runtime("01.406.871", "device_error_core_proc.cc:645", "PrintCoreInfo:The error from device(chipId:1, "
                       "dieId:0), serial number is 11, there is an exception of aivec error, core id is 8, error code = 0x800000")
            + _runtime("01.406.926", "device_error_core_proc.cc:658", "PrintCoreInfo:The extend info: errcode:(0x800000, 0, 0) "
                       "errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x6"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert "errorStr: The DDR address of the MTE instruction is out of range." in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_a_task_failure_report_alone_is_still_shown(tmp_path):
    """With no fault record after it, the completion report is the only evidence there is."""
    text = _runtime("01.377.431", "stars_engine.cc:1548", "ProcLogicCqReport:Task run failed, device_id=1, stream_id=3, "
                    "task_id=31, sqe_type=0(ffts), errType=0x1(task exception), sqSwStatus=0")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert "ProcLogicCqReport:Task run failed" in anchor_text(ws, d)


def test_an_exception_with_an_empty_first_line_is_explained_by_the_message_under_it(tmp_path):
    """A compiler's exception prints its message on the lines after it, past a banner and a stage
    header; the tool's own complaint there names no error word, and it is the cause."""
    ws, d = diagnose(tmp_path, {"serve.log":
        '  File "/site-packages/triton/compiler/compiler.py", line 320, in compile\n'
        "    raise MLIRCompilationError(stage_name, error_detail)\n"
        "triton.compiler.errors.MLIRCompilationError: \n"
        "///------------------[ERROR][Triton][BEG]------------------\n"
        "[ConvertLinalgRToBinary] encounters error:\n"
        "bishengir-compile: for the --target option: Cannot find option named 'Ascend910Z9'!\n"
        "\n"
        "///------------------[ERROR][Triton][END]------------------\n"
        "[2026-01-04 01:51:58] Received sigquit from a child process. It usually means the child failed.\n"})
    assert "Cannot find option named 'Ascend910Z9'" in anchor_text(ws, d)
    assert d.category == "environment"  # the compiler does not know the chip: a toolchain mismatch


def test_lookalike_an_exception_with_its_message_on_its_line_keeps_it(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: kernel build failed for target Ascend910Z9\n"
        "serving stopped\n"})
    assert anchor_text(ws, d) == "RuntimeError: kernel build failed for target Ascend910Z9"


def test_lookalike_an_empty_exception_followed_by_a_shape_of_its_own_reads_that_shape(tmp_path):
    """When the lines under an empty exception hold a CANN block, the block is read as usual."""
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: \n"
        "EZ1001: [PID: 7] 2026-03-11-10:00:01.100.100 The shape of input x is invalid.\n"
        "        TraceBack (most recent call last):\n"
        "        aclnnAdd failed\n"})
    assert "EZ1001" in anchor_text(ws, d)


VLLM = "(Worker_TP1 pid=4242) ERROR 01-19 05:52:40 [multiproc_executor.py:880] "


def test_registry_advice_printed_with_a_block_is_part_of_it_under_a_logger_prefix(tmp_path):
    """`Possible Cause:` names a notify register: it is the block's advice, not a timeout of its own,
    even when a worker's logger stamps it (to the second) before the block's recorded time."""
    ws, d = diagnose(tmp_path, {"serve.log":
        VLLM + "[PID: 9288] 2026-01-19-05:52:40.052.351 Allocation_Failure(EI0007): Failed to allocate resource[qp] "
               "with info [aicpu rank:15]\n"
        + VLLM + "        Possible Cause: Failed to allocate memory or the Notify register due to resource insufficiency.\n"
        + VLLM + "        Solution: Check the memory and the notify resources of the device.\n"
        + VLLM + "        TraceBack (most recent call last):\n"
        + VLLM + "        Transport init error.\n"})
    assert "Allocation_Failure(EI0007)" in anchor_text(ws, d)
    assert not any("Possible Cause" in ws.indexes[e.ref.file_id].line(e.ref.line) for e in d.events)


def test_lookalike_a_possible_cause_line_outside_a_block_is_read_as_usual(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log": "Possible Cause: notify wait timeout on rank 3\n"})
    assert d.anchor is not None and "notify wait timeout" in anchor_text(ws, d)


def test_a_traceback_line_under_a_logger_prefix_keeps_its_block_recorded_time(tmp_path):
    """The worker's logger prints the whole block a moment after CANN recorded it, to the second:
    the device fault in the block's TraceBack is not earlier than the block's head."""
    pre = "(Worker pid=8146) ERROR 03-16 20:13:22 [multiproc_executor.py:880] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre + "EZ9999: Inner Error!\n"
        + pre + "EZ9999[PID: 8146] 2026-03-16-20:13:22.806.034 (EZ9999):  The error from device(chipId:7, dieId:0), "
                "serial number is 6, there is an exception of fftsplus aicore error, core id is 12, error code = 0x20000\n"
        + pre + "        TraceBack (most recent call last):\n"
        + pre + "       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr]"
                "[FILE:davinci_kernel_task.cc][LINE:1493]\n"})
    assert "there is an exception of fftsplus aicore error" in anchor_text(ws, d)
    fault = next(e for e in d.events if "Kernel task happen error" in e.text)
    assert fault.time == d.anchor.time


def test_lookalike_a_line_after_the_block_keeps_its_own_logger_time(tmp_path):
    pre = "(Worker pid=8146) ERROR 03-16 20:13:{s} [multiproc_executor.py:880] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre.format(s="22") + "EZ9999[PID: 8146] 2026-03-16-20:13:22.806.034 (EZ9999):  The error from device(chipId:7, "
                             "dieId:0), serial number is 6, there is an exception of aivec error, core id is 1, error code = 0x20\n"
        + pre.format(s="25") + "RuntimeError: The Inner error is reported as above.\n"})
    later = next(e for e in d.events if "reported as above" in e.text)
    assert later.time > d.anchor.time


def test_a_device_dump_head_under_a_logger_prefix_is_one_dump(tmp_path):
    """`DEVICE[0] PID[…]:` has no error word, so it only becomes a hit when a logger prefix with ERROR
    carries it: it must head the same dump as `EXCEPTION TASK:`, whose info lines name the fault."""
    pre = "(Worker pid=2095) ERROR 07-03 16:32:52 [multiproc_executor.py:880] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre + "DEVICE[0] PID[2095]: \n"
        + pre + "EXCEPTION TASK:\n"
        + pre + "  Exception info:TGID=3724449, model id=65535, stream id=2, stream phase=SCHEDULE, task id=2173, "
                "task type=aicpu kernel, recently received task id=2173\n"
        + pre + "    Other info[0]:time=2024-07-03-16:32:52.954.172, function=proc_aicpu_task_done, line=970, "
                "error code=0x2a\n"})
    assert "task type=aicpu kernel" in anchor_text(ws, d)


_RANK_BLOCK = [
    "[rank0]: RuntimeError: The Inner error is reported as above.",
    "[rank0]: [PID: 31] 2026-07-04-17:27:10.618.062 Invalid_Argument(EE1003): LaunchKernelV2 failed because value 0 "
    "for parameter blockDim is invalid",
    "[rank0]:         TraceBack (most recent call last):",
    "[rank0]:         unsupported inputLayout , expect BSND/TND[FUNC:CausalConv1dBwdTilingFunc][FILE:tiling.cpp][LINE:100]",
]


def test_a_quoted_or_runner_wrapped_launcher_block_keeps_its_continuation_lines(tmp_path):
    """A paste quotes every line (`> `) and pytest prints `E` plus seven spaces before each: the
    launcher prefix and the block's own indentation survive under either envelope."""
    for n, envelope in enumerate(("> ", "E       ")):
        ws, d = diagnose(tmp_path / str(n), {"run.log": "".join(envelope + line + "\n" for line in _RANK_BLOCK)})
        assert "unsupported inputLayout" in anchor_text(ws, d), envelope


def test_lookalike_an_unwrapped_rank_block_is_read_the_same(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "".join(line + "\n" for line in _RANK_BLOCK)})
    assert "unsupported inputLayout" in anchor_text(ws, d)


def test_a_call_result_at_the_end_of_a_sentence_is_read(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "> Register mem ret:207000.\n> mount failed: INVALID_PARAMS\n"})
    assert "Register mem ret:207000." in anchor_text(ws, d)


_SETDEVICE_HEAD = ("[ERROR] RecentErrMsg: [PID: 30] 2026-08-04-19:51:12.800.885 Invalid_Argument(EE1001): The argument "
                   "is invalid.Reason: rtGetDevMsg execution failed, the context is a null pointer.\n"
                   "        TraceBack (most recent call last):\n")


def test_under_a_generic_head_the_first_failure_of_its_own_in_the_traceback_is_the_cause(tmp_path):
    """`the argument is invalid ... context is a null pointer` only says set-up failed; the first
    TraceBack line that reports a failure of its own says why (the device's TSD would not open)."""
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR] aclrtSetDevice(deviceId) failed: 507033 (main.cpp:102)\n" + _SETDEVICE_HEAD
        + "        TsdOpen failed. devId=1, tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2618]\n"
        "        Check param failed, dev can not be NULL![FUNC:DeviceRetain][FILE:runtime.cc][LINE:3536]\n"
        "        rtSetDevice execution failed, reason=device retain error[FUNC:FuncErrorReason][FILE:e.cc][LINE:65]\n"
        "        open device 1 failed, runtime result = 507033.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n"})
    assert "TsdOpen failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_checks_and_restatements_under_a_generic_head_are_not_causes(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": _SETDEVICE_HEAD
        + "        Check param failed, dev can not be NULL![FUNC:DeviceRetain][FILE:runtime.cc][LINE:3536]\n"
        "        rtSetDevice execution failed, reason=device retain error[FUNC:FuncErrorReason][FILE:e.cc][LINE:65]\n"})
    assert "TsdOpen" not in (anchor_text(ws, d) or "")
    assert "Check param failed" not in (anchor_text(ws, d) or "")


def test_a_device_set_up_failure_with_no_reason_is_environment_not_its_later_calls(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[INFO]  acl init success\n"
        "[ERROR]  acl set device 0 failed, errorCode = 507033\n"
        "[ERROR]  sample init resource failed\n"
        "[INFO]  end to destroy stream\n"
        "[ERROR]  reset device 0 failed, errorCode = 507007\n"})
    assert "acl set device 0 failed" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_a_device_set_up_failure_that_says_memory_is_memory(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR]  acl set device 0 failed, errorCode = 507033: out of memory while creating the memory pool\n"})
    assert d.category == "memory"


def _hccl(ts: str, where: str, msg: str) -> str:
    return f"[ERROR] HCCL(808,):2026-06-17-02:21:{ts} [{where}] [862]{msg}\n"


def test_g5_an_analysers_framed_verdict_is_evidence_not_the_cause(tmp_path):
    """HCCL's connect-timeout detection prints its verdict between a titled rule and a closing rule,
    at ERROR, before the failure it analyses: the sentences inside the frame are advice."""
    text = (_hccl("43.853.226", "detect_connect_anomalies.cc:126", "-" * 19 + "CONNECT TIMEOUT DETECT RESULT" + "-" * 23)
            + _hccl("43.853.244", "detect_connect_anomalies.cc:140", "No abnormal periods were discovered. please "
                    "prioritize investigating the consistency of cluster script behaviors.")
            + _hccl("43.853.249", "detect_connect_anomalies.cc:143", "-" * 70)
            + _hccl("43.853.333", "transport_manager.cc:954", "[InitChannelStage][RunFailed]Transport init error! "
                    "createLink para:rank[7]-localUserrank[7], remoteRank[15]")
            + _hccl("43.853.666", "transport_manager.cc:470", "[Alloc]call trace: hcclRet -> 4"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-808_20260617022100000.log": text})
    assert "Transport init error!" in anchor_text(ws, d)
    assert d.category == "communication"


def test_g5_lookalike_an_error_after_the_closing_rule_is_read_as_usual(tmp_path):
    """Only what sits inside the frame is advice: a line after the closing rule is an error again."""
    text = (_hccl("43.853.226", "detect_connect_anomalies.cc:126", "-" * 19 + "CONNECT TIMEOUT DETECT RESULT" + "-" * 23)
            + _hccl("43.853.249", "detect_connect_anomalies.cc:143", "-" * 70)
            + _hccl("43.853.300", "hccl_socket_manager.cc:796", "[Wait][LinkEstablish]socket setup failed, rank[0]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-808_20260617022100000.log": text})
    assert "socket setup failed" in anchor_text(ws, d)


_GLOG_SDK = (
    "I20241122 10:02:56.407680 281462569663328 FileUtils.cpp:339] The input file is empty\n"
    "E20241122 10:02:57.047970 281462569663328 ImageProcessorDptr.hpp:819] Failed to recognize Ascend chip. "
    "(Code = -1, Message = \"ACL: general failure\")\n"
    "E20241122 10:02:57.048184 281462569663328 ImageProcessorDptr.hpp:879] Get predict size failed. "
    "(Code = -1, Message = \"ACL: general failure\")\n"
    "Traceback (most recent call last):\n"
    '  File "/app/main.py", line 21, in <module>\n'
    "    decoded_image = imageProcessor.decode(image_path, base.nv12)\n"
)


def test_an_exception_that_repeats_the_native_error_above_it_relays_it(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": _GLOG_SDK + "RuntimeError: [-1][ACL: general failure]\n"})
    assert "Failed to recognize Ascend chip" in anchor_text(ws, d)
    assert d.category == "environment"  # the software cannot tell which chip it runs on


def test_lookalike_an_exception_that_says_something_new_stays_the_exception(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": _GLOG_SDK + "RuntimeError: decode needs an nv12 buffer of even width\n"})
    assert "RuntimeError: decode needs" in anchor_text(ws, d)


def test_glog_stamps_keep_their_microseconds_and_full_dates():
    from npudiag_tui.core.formats.timestamps import find_stamp, format_us

    full = find_stamp("E20241122 10:02:57.047970 281462569663328 ImageProcessorDptr.hpp:819] Failed", 2026)
    short = find_stamp("E0419 16:59:47.826553 19842 client_service.cpp:1521] register failed", 2026)
    assert (format_us(full.us), full.resolution) == ("2024-11-22T10:02:57.047970", 1)
    assert format_us(short.us) == "2026-04-19T16:59:47.826553"
    # look-alike: c10's fraction after the second is not wall-clock, and stays cut to the second
    c10 = find_stamp("[W1215 11:30:10.136265096 NPUStream.cpp:545] Warning: NPU warning", 2025)
    assert format_us(c10.us) == "2025-12-15T11:30:10.000000" and c10.kind == "c10"


def test_a_shell_that_cannot_find_a_tool_is_an_environment_cause(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "device_num_list: [0, 1, 2, 3]\n"
        "/bin/sh: 1: hccn_tool: not found\n"
        "Failed to call hccn_tool, try to read /etc/hccn.conf instead\n"
        "Traceback (most recent call last):\n"
        '  File "hccl_tools.py", line 137, in main\n'
        "    device_ip = device_ips[device_id]\n"
        "KeyError: '0'\n"})
    assert anchor_text(ws, d) == "/bin/sh: 1: hccn_tool: not found"
    assert d.category == "environment"


def test_lookalike_a_file_not_found_message_is_no_shell_error(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "config: cache.json: not found, starting empty\nserving on port 80\n"})
    assert d.anchor is None


def test_a_plog_event_wait_timeout_is_a_stream_wait_not_a_device_fault(tmp_path):
    """The runtime's device record of an event wait that expired names a wait, in a plog as on the
    console: a stream that waited on an event nobody recorded, not a fault of the core."""
    text = _runtime("40.617.065", "device_error_proc.cc:1593", "ProcessStarsWaitTimeoutErrorInfo:The error from device"
                    "(chipId:6, dieId:0), serial number is 1, event wait timeout occurred during task execution, "
                    "stream_id:41, sq_id:8, task_id:30091, event_id=127, timeout=234s.")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert "event wait timeout" in anchor_text(ws, d)
    assert d.category == "stream_event"


def test_lookalike_a_plog_aivec_exception_stays_a_device_fault(tmp_path):
    text = _runtime("40.617.065", "device_error_core_proc.cc:645", "PrintCoreInfo:The error from device(chipId:6, "
                    "dieId:0), serial number is 1, there is an exception of aivec error, core id is 8, error code = 0x10")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert d.category == "device"


def test_g8_an_aicore_task_timeout_is_a_hung_kernel_of_this_device(tmp_path):
    """`aicore task timeout` is a kernel that never finished on this device: a device cause that
    precedes the failures it leaves in other processes, not a wait on a peer."""
    files = {
        "debug/plog/plog-2444_20260815015103500.log": _runtime(
            "03.466.805", "device_error_proc.cc:1992", "ProcessStarsTimeoutDfxSlotInfo:aicore task timeout dfx, show "
            "slot info, slot_id=5, device_id=14, stream_id=3, task_id=12", pid=2444),
        "debug/plog/plog-2218_20260815015103495.log": _runtime(
            "03.493.844", "davinci_kernel_task.cc:1639", "PrintErrorInfoForDavinciTask:[DFX_INFO]Aicore kernel execute "
            "failed, device_id=12, stream_id=11, task_id=876", pid=2218),
    }
    ws, d = diagnose(tmp_path, files)
    assert "aicore task timeout" in anchor_text(ws, d)
    assert d.category == "device"


def test_g8_lookalike_a_notify_wait_timeout_stays_a_wait(tmp_path):
    text = _runtime("03.466.805", "device_error_proc.cc:1992", "ProcessStarsWaitTimeoutErrorInfo:The error from device"
                    "(chipId:6, dieId:0), serial number is 1, notify wait timeout occurred during task execution, stream_id:3")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-2444_20260815015103500.log": text})
    assert d.anchor.kind == "timeout"


_MLIR = 'loc("/tmp/k/kernel.ttadapter.mlir":{pos}): error: {msg}\n'


def test_a_kernel_compilers_first_located_diagnostic_is_the_cause(tmp_path):
    """The frame (`///---[ERROR][Triton][BEG]---`), the stage header that introduces the error and
    the pass pipeline's summary at the module's first character all say that something failed; the
    first diagnostic with a real location says what."""
    ws, d = diagnose(tmp_path, {"compile.log":
        "///------------------[ERROR][Triton][BEG]------------------\n"
        "[ConvertLinalgRToBinary] encounters error:\n"
        + _MLIR.format(pos="1:1", msg="Failed to run BiShengHIR pipeline") + "\n"
        + _MLIR.format(pos="17:10", msg="'memref.alloc' op Failed to propagate memory scope ub for allocOp")
        + _MLIR.format(pos="59:15", msg="'arith.select' op Unsupported user for root alloc op.")
        + "///------------------[ERROR][Triton][END]------------------\n"})
    assert "'memref.alloc' op Failed to propagate memory scope" in anchor_text(ws, d)
    assert d.category == "compile"


def test_lookalike_a_line_with_words_between_rules_is_no_frame(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "------ [ERROR] worker 3 lost its device ------\n"})
    assert "worker 3 lost its device" in anchor_text(ws, d)


def test_a_whole_second_stamp_after_a_finer_one_in_the_same_second_does_not_jump_ahead(tmp_path):
    """glog prints microseconds, the worker's logger whole seconds: its `06:43:02` line printed
    after glog's `06:43:02.966156` is not earlier, and the link failure stays the anchor."""
    ws, d = diagnose(tmp_path, {"serve.log":
        "E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to target: "
        "172.17.0.16:25482, status: 103900\n"
        "(EngineCore_DP0 pid=5704) ERROR 01-06 06:43:02 [mooncake_connector.py:419] Mooncake transfer failed for "
        "request cmpl-1\n"})
    assert "Failed to connect to target" in anchor_text(ws, d)
    assert d.category == "communication"
    line = next(e for e in d.events if "Mooncake transfer failed" in e.text)
    assert line.time % 1_000_000 == 0  # the time shown stays the line's own stamp


def test_lookalike_a_whole_second_stamp_a_second_earlier_still_comes_first(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "E20260106 06:43:03.966156  5793 transport.cpp:820] Failed to connect to target: 172.17.0.16:25482\n"
        "(EngineCore_DP0 pid=5704) ERROR 01-06 06:43:02 [connector.py:419] transfer failed for request cmpl-1\n"})
    assert "transfer failed for request" in anchor_text(ws, d)


def test_an_operators_own_limit_check_is_an_operator_error(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR][FusedDeepMoe] batchSize(bs) must <= 256.\n[ERROR][FusedDeepMoe] CheckData failed.\n"})
    assert "must <= 256" in anchor_text(ws, d)
    assert d.category == "operator"


_MS_PLOG = ("[WARNING] DISTRIBUTED(31,ffff9791,python):2025-08-19-10:34:38.043.689 [tcp_comm.cc:195] "
            "StartServerSocket] Failed to call socket listen, url: 127.0.0.1:2229\n"
            "[ERROR] DISTRIBUTED(31,ffff9791,python):2025-08-19-10:34:38.043.706 [meta_server_node.cc:114] "
            "InitTCPServer] Failed to init the tcp server\n")


def test_console_text_mixed_into_a_plog_format_file_is_read(tmp_path):
    """MindSpore's stdout mixes plain lines with plog-format ones, so the file reads as a plog: the
    plain line that says why (the port is taken) sits before the headers, and is the cause."""
    ws, d = diagnose(tmp_path, {"ms_stdout.log": "Failed to call bind, url: 127.0.0.1:2229 Address already in use\n"
                                                 + _MS_PLOG})
    assert "Address already in use" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_without_the_plain_line_the_plog_error_is_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"ms_stdout.log": _MS_PLOG})
    assert "Failed to init the tcp server" in anchor_text(ws, d)


def test_an_error_line_that_introduces_its_cause_is_explained_by_the_next_line(tmp_path):
    """Go-style chains end a line with a colon and say on the next what failed: the summary is a
    wrapper, and the chain of causes under it is the anchor (here the driver's tool refused)."""
    ws, d = diagnose(tmp_path, {"plugin.log":
        "Successfully matched node config for node-1:\n"
        "Failed to start plugin server:\n"
        "enable node device-share: npu-smi set device-share -i 6 -c 0 -d 1: exit status 203:\n"
        "There are security risks when opening device sharing,\n"
        "    Status                         : Fail\n"})
    assert "npu-smi set device-share" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_a_logged_line_after_an_introducer_is_not_its_message(tmp_path):
    ws, d = diagnose(tmp_path, {"plugin.log":
        "Failed to start plugin server:\n"
        "2026-01-19 10:06:44,248 - plugin - INFO - retrying in 5 s\n"})
    assert anchor_text(ws, d) == "Failed to start plugin server:"


def test_ai_cpu_set_up_codes_are_environment_but_an_ai_cpu_operator_timeout_is_device(tmp_path):
    from npudiag_tui.core.diagnosis.classify import category_of_code

    assert category_of_code("E39007") == "environment"  # a subprocess on the device did not start
    assert category_of_code("E30006") == "environment"  # the OPP failed verification
    assert category_of_code("E30008") == "device"  # an AI CPU operator timed out
    assert category_of_code("E39999") is None  # the inner code names nothing


def test_routes_by_the_words_of_set_up_failures(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "[2025-12-08 11:52:44.735471] [error] [69197] [operation_util.h:156] rankSize [16] is invalid\n"})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "ERROR - Error provisioning model instance: Failed to create container: OCI runtime create failed: "
        "prestart hook #0 exited: failed to mount src: /usr/local/bin/npu-smi.\n"})
    assert d.category == "environment"


def test_torch_npu_error_modules_route_their_event(tmp_path):
    """ERR01xxx is torch_npu's OPS module: the call that failed was an operator's."""
    ws, d = diagnose(tmp_path, {"run.log":
        "RuntimeError: nonzero:build/op_plugin/ops/NonZeroKernelNpu.cpp:48 OPS function error: NonZero, "
        "error code is 100000\n"
        "[ERROR] 2025-02-13-10:46:42 (PID:7, Device:0, RankID:-1) ERR01100 OPS call acl api failed\n"
        "E19999: Inner Error!\n"
        "E19999: 2025-02-13-10:46:42.375.514  The node If_NonZero394 input 0 does not have peer"
        "[FUNC:ConstructIoEquivalent][FILE:single_op.cc][LINE:100]\n"})
    assert "does not have peer" in anchor_text(ws, d)
    assert d.category == "operator"


def test_a_caller_printing_a_runtime_status_relays_the_runtimes_own_failure(tmp_path):
    """A non-runtime module's `fail. ret = 5xxxxx` and torch_npu's `[PTA]:` plog lines restate a
    runtime call that failed inside; the runtime's (driver's) line says why."""
    text = (plog("ERROR", "APP", 52, "09:59:57.000.100", '[log_inner.cpp:77]52 device_count:41: "[PTA]:"get device '
                 'count of NPU failed""')
            + plog("ERROR", "DVPP", 52, "10:00:00.000.100", "[Platform.cpp:37][DVPP] [GetVersion:37] get device num "
                   "fail. ret = 507899")
            + plog("ERROR", "RUNTIME", 52, "10:00:00.000.200", "[driver.cc:64]52 GetDeviceCount:Call drvGetDevNum, "
                   "drvRetCode=87.")
            + plog("ERROR", "RUNTIME", 52, "10:00:00.000.300", "[api_c_device.cc:28]52 rtGetDeviceCount:ErrCode=507899, "
                   "desc=[driver error:internal error], InnerCode=0x7020010"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-52_20260311100000000.log": text})
    assert "drvGetDevNum, drvRetCode=87" in anchor_text(ws, d)


def test_lookalike_a_callers_own_resource_status_is_its_failure(tmp_path):
    """A 2xxxxx result is the call's own failure (a resource), not a relay of the runtime."""
    text = (plog("ERROR", "DVPP", 52, "10:00:00.000.100", "[Platform.cpp:37][DVPP] [Alloc:37] malloc device buffer "
                 "fail. ret = 207001")
            + plog("ERROR", "RUNTIME", 52, "10:00:00.000.300", "[api_c.cc:28]52 rtFree:ErrCode=107003, "
                   "desc=[invalid value]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-52_20260311100000000.log": text})
    assert "ret = 207001" in anchor_text(ws, d)


def test_an_empty_exception_under_a_worker_logger_takes_its_message_from_the_next_lines(tmp_path):
    pre = "(EngineCore_DP0 pid=9) ERROR 03-11 10:00:00 [core.py:700] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre + "    raise KernelBuildError(stage, detail)\n"
        + pre + "kernels.errors.KernelBuildError: \n"
        + pre + "[LowerToBinary] encounters error:\n"
        + pre + "kc-compile: for the --arch option: Cannot find option named 'npu9000'!\n"})
    assert "Cannot find option named" in anchor_text(ws, d)
    assert d.category == "environment"  # the toolchain does not know this chip


def test_lookalike_a_worker_line_under_another_level_is_not_the_exceptions_message(tmp_path):
    pre = "(EngineCore_DP0 pid=9) {} 03-11 10:00:00 [core.py:700] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre.format("ERROR") + "kernels.errors.KernelBuildError: \n"
        + pre.format("INFO") + "retrying the build with a smaller tile\n"})
    assert "KernelBuildError" in anchor_text(ws, d)


def test_routes_an_unsupported_model_and_a_peer_that_never_answered(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "[2026-03-11 10:00:00.100] [7] [llm] [ERROR] [deploy.cpp:10] Failed to load tokenizer with exception: "
        "NotImplementedError: unsupported model type: foo_moe\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"decode.log":
        "E20260311 10:00:00.100000 4242 kv_transport.cpp:1107] Connect timeout to: 10.0.0.2:20033, you can "
        "increase the timeout duration\n"})
    assert d.category == "communication"


def test_lookalike_a_supported_model_note_and_a_store_timeout_route_elsewhere(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[E311 10:00:00.1 socket.cpp:900] [c10d] The client socket has timed out after 600s while trying to "
        "connect to (10.0.0.2, 29500).\n"})
    assert d.category == "environment"  # the rendezvous store, not a device link
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "ERROR 03-11 10:00:00 [worker.py:10] model type foo is supported, but out of memory while loading weights\n"})
    assert d.category == "memory"


def test_mindspore_task_exception_dump_is_a_device_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[ERROR] DEVICE(77,ffff,python):2026-03-11-10:00:00.100.000 [mindspore/ccsrc/ascend_kernel_runtime.cc:761] "
        "DumpTaskExceptionInfo] Task fail infos task_id: 2, stream_id: 45, tid: 77, device_id: 0, retcode: 507011 "
        "( model execute failed)\n"})
    assert d.category == "device"
    ws, d = diagnose(tmp_path / "b", {"train.log":
        "[ERROR] DEVICE(77,ffff,python):2026-03-11-10:00:00.100.000 [mindspore/ccsrc/ascend_stream.cc:61] "
        "SyncStream] Sync stream failed, stream id: 45\n"})
    assert d.category == "stream_event"


def test_a_sync_call_named_with_timeout_is_not_a_timeout_and_a_wrapped_reason_still_names_the_fault(tmp_path):
    ws, d = diagnose(tmp_path, {"job.log":
        "[ERROR] ERR00100 PTA call acl api failed\n"
        "[Error]: The vector core execution is abnormal.\n"
        "EH9999: Inner Error!\n"
        " rtDeviceSynchronizeWithTimeout execute failed, reason=[vector core\n"
        "exception]\n"
        "EH9999[PID: 7] wait for compute device to finish failed, runtime result =\n"
        "507035.\n"
        "RuntimeError: the pipeline could not run on the selected device\n"})
    assert "reason=[vector core" in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_a_wait_that_timed_out_is_still_a_timeout(tmp_path):
    ws, d = diagnose(tmp_path, {"job.log":
        "RuntimeError: wait timeout after 1800 s in HcclAllReduce, remote rank: [3]\n"})
    assert d.anchor.kind == "timeout"


def test_routes_a_listen_failure_and_a_named_soc_version_to_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "E20260311 10:00:00.100000 4203 transport_mem.cpp:129] nicServerSocket_ Listen failed, retrying... "
        "(1/3), ret :19\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"train.log":
        "[ERROR] KERNEL(77,ffff,python):2026-03-11-10:00:00.100.000 [mindspore/ccsrc/op_info_utils.cc:172] "
        "LoadOpInfoJson] Get op info json suffix path failed, soc_version: Ascend999Z\n"})
    assert d.category == "environment"


def test_a_runtime_state_dump_is_evidence_and_the_failed_call_is_the_anchor(tmp_path):
    text = (_runtime("01.000.100", "device_error_proc.cc:1431", "PrintStreamTimeoutSnapshotInfo:stream_id=2, task_id=4, "
                     "taskType=3 (EVENT_WAIT), EventId=146.")
            + _runtime("01.000.200", "api_impl.cc:2725", "MemCopySync:The current capture mode:threadCaptureMode=0, "
                       "exchangeCaptureMode=0")
            + _runtime("01.000.300", "api_c.cc:1081", "rtMemcpy:ErrCode=107030, desc=[the current capture mode does not "
                       "support this operation], InnerCode=0x703001c"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert "ErrCode=107030" in anchor_text(ws, d)


def test_lookalike_a_short_error_line_with_a_problem_word_stays_causal(tmp_path):
    text = (_runtime("01.000.100", "api_impl.cc:2725", "MemCopySync:The current size is not aligned: size=7")
            + _runtime("01.000.300", "api_c.cc:1081", "rtMemcpy:ErrCode=107000, desc=[param invalid]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": text})
    assert "not aligned" in anchor_text(ws, d)


def test_a_stage_tag_before_the_logger_level_is_a_prefix_and_a_rejected_config_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "(Worker pid=82) [Stage-0] ERROR 03-11 10:00:01 [executor.py:783]   Value error, Invalid backend for piecewise "
        "compilation: plugin.compiler.NpuCompiler [type=value_error]\n"
        "(EngineCore_DP0 pid=80) [Stage-0] ERROR 03-11 10:00:05 [core.py:1006] EngineCore failed to start.\n"
        "(EngineCore_DP0 pid=80) [Stage-0] ERROR 03-11 10:00:05 [core.py:1006] Traceback (most recent call last):\n"
        '(EngineCore_DP0 pid=80) [Stage-0] ERROR 03-11 10:00:05 [core.py:1006]   File "/w/core.py", line 996, in run\n'})
    assert "Invalid backend for piecewise" in anchor_text(ws, d)
    assert d.category == "environment"


def test_routes_unsupported_operators_and_symbols_a_library_lacks_to_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
        "EZ3003: No supported Ops kernel and engine are found for [MyOp], optype [MyOp].\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "Exception: Capture graph failed: aclnnFooBar or aclnnFooBarGetWorkspaceSize not in libopapi.so, or "
        "libopapi.so not found.\n"})
    assert d.category == "environment"


def test_lookalike_an_invalid_argument_code_stays_an_operators(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EZ0024: [PID: 9] 2026-03-11-10:00:00.100.000 Parameter x of Add has incorrect value 3. It should be 1.\n"})
    assert d.category == "operator"


def test_kv_transfer_failures_are_communication(tmp_path):
    ws, d = diagnose(tmp_path, {"decode.log":
        "(Worker_TP4 pid=85) llm_datadist.status.LLMException: [link] failed, error code is "
        "LLMStatusCode.LLM_LINK_FAILED, {5: 0}.\n"})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "b", {"decode.log":
        "E0328 09:06:16.412760 112 kv_transport.cpp:836] Transfer slice failed with status: 503900\n"})
    assert d.category == "communication"


def test_lookalike_a_host_copy_that_ran_out_of_memory_is_memory(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: copy of the weights to the host failed: out of memory\n"})
    assert d.category == "memory"


def test_a_wait_that_expired_is_a_timeout_at_any_logger_level(tmp_path):
    ws, d = diagnose(tmp_path, {"decode.log":
        "I0331 02:48:57.801054 803 transport.cpp:1119] Connected to segment: 10.0.0.2:20513, cost:237734 us.\n"
        "I0331 02:49:30.617945 804 transfer_engine_py.cpp:454] Sync batch data transfer timeout after 33061142969ns\n"
        "(Worker pid=78) ERROR 03-31 02:49:30 [connector.py:547] KV pull failed for request chatcmpl-1\n"})
    assert "timeout after 33061142969ns" in anchor_text(ws, d)
    assert d.category == "communication"


def test_lookalike_an_info_line_naming_a_timeout_setting_is_context(tmp_path):
    ws, d = diagnose(tmp_path, {"decode.log":
        "I0331 02:48:57.801054 803 transport.cpp:10] Using a transfer timeout of 30 s\n"
        "(Worker pid=78) ERROR 03-31 02:49:30 [connector.py:547] KV pull failed for request chatcmpl-1\n"})
    assert "KV pull failed" in anchor_text(ws, d)


def test_a_status_after_failed_and_a_colon_routes_and_a_failed_allocator_call_is_memory(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "Call aclInit(nullptr) failed : 507008 at file /src/runtime.cc line 403\n"})
    assert d.category == "environment"  # 507008: the runtime could not tell the chip
    text = (_runtime("01.000.100", "npu_driver.cc:1274", "DevMemAllocManaged:[INIT] halMemAlloc failed:size=32(Byte), "
                     "type=17, drvRetCode=6, device_id=0!"))
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-4242_20260311100000000.log": text})
    assert d.category == "memory"
    text = _runtime("01.000.100", "npu_driver.cc:300", "GetDevInfo: halGetDeviceInfo failed, drvRetCode=6, device_id=0")
    ws, d = diagnose(tmp_path / "c", {"debug/plog/plog-4242_20260311100000000.log": text})
    assert d.category == "environment"  # a driver query, not an allocation


def test_a_failed_subprocess_is_explained_by_its_own_diagnostics(tmp_path):
    ws, d = diagnose(tmp_path, {"test.log":
        "  subprocess.CalledProcessError: Command '['/opt/bin/kc-compile', 'kernel.mlir']' returned non-zero exit "
        "status 1.\n"
        "/usr/lib/python3.11/subprocess.py:571: CalledProcessError\n"
        'E        loc("/tmp/module.mlir":126:16): error: \'tensor.empty\' op Unsupported op for finding the root '
        "alloc.\n"})
    assert "Unsupported op for finding the root" in anchor_text(ws, d)


def test_lookalike_a_failed_subprocess_alone_is_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "subprocess.CalledProcessError: Command '['npu-smi', 'info', '-t', 'board']' returned non-zero exit status "
        "215.\n"})
    assert "CalledProcessError" in anchor_text(ws, d)


def test_a_traceback_source_line_under_a_logger_is_code_not_a_timeout(tmp_path):
    pre = "(EngineCore_DP0 pid=3) ERROR 10-10 17:15:01 [core.py:708] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre + '  File "/vllm/executor.py", line 264, in collective_rpc\n'
        + pre + "    result = get_response(w, dequeue_timeout,\n"
        + pre + "RuntimeError: Worker failed with error 'x.cpp:148 HCCL function error: HcclCommInitRootInfo(n), "
        "error code is 1'\n"})
    assert "HCCL function error" in anchor_text(ws, d)


def test_a_kernels_own_assertion_explains_the_trap_the_device_records(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]:[ASSERT] [CANN_VERSION : 8.1.RC1][TimeStamp : 0] /opp/ascendc/gather/gather_base.h:137: Assertion "
        "`(0 <= val && val < this->size_)' Index 70 out of range[0 70)!\n"
        "[rank0]:[W311 10:00:05.1 compiler_depend.ts:188] Warning: EZ9999: Inner Error!\n"
        "EZ9999: [PID: 77] 2026-03-11-10:00:01.381.401 The error from device(chipId:1, dieId:0), serial number is 3, "
        "there is an aivec error exception, core id is 4, error code = 0, dump info: pc start: 0x1\n"
        "        TraceBack (most recent call last):\n"
        "       The extend info: errcode:(0, 0, 0) errorStr: timeout or trap error. subErrType:2.\n"})
    assert "Index 70 out of range" in anchor_text(ws, d)
    assert d.category == "device"


def test_lookalike_a_device_exception_with_no_assertion_before_it_is_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "INFO 03-11 10:00:00 [runner.py:1] assert checks enabled for this run\n"
        "EZ9999: [PID: 77] 2026-03-11-10:00:01.381.401 The error from device(chipId:1, dieId:0), serial number is 3, "
        "there is an aivec error exception, core id is 4, error code = 0, dump info: pc start: 0x1\n"})
    assert "there is an aivec error exception" in anchor_text(ws, d)


def test_a_compilers_diagnostic_is_the_cause_of_a_failed_build(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log":
        "Function KernelCompiler at line 98, Command excution failed, the returnCode is non-zero!\n"
        "Output of kernel_compiler: /src/kernels/rope.cpp:357:9: error: use of undeclared identifier 'rope_half'\n"
        "1 error generated.\n"
        "make[2]: *** [CMakeFiles/kern.dir/build.make:76: rope.o] Error 1\n"})
    assert "use of undeclared identifier" in anchor_text(ws, d)
    assert d.category == "compile"


def test_lookalike_a_librarys_unspecified_error_wraps_the_code_after_it(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "terminate called after throwing an instance of 'cv::Exception'\n"
        "  what():  OpenCV(4.10.0) /src/cann_call.cpp:97: error: (-2:Unspecified error) in function 'copy2d'\n"
        "> EL0014: The operation is unsupported.\n"
        ">         TraceBack (most recent call last):\n"})
    assert "EL0014: The operation is unsupported." in anchor_text(ws, d)
    assert d.category == "environment"


def test_cmake_errors_say_their_message_below_and_probes_are_not_errors(tmp_path):
    ws, d = diagnose(tmp_path, {"cmake.log":
        "-- Performing Test COMPILER_SUPPORTS_FP16 - Failed\n"
        "-- CANN: SOC_VERSION auto-detected is:Ascend999Z\n"
        "CMake Error at /opt/cann/kernel_cmake/host_config.cmake:20 (message):\n"
        "  SOC_VERSION ascend999z does not support, the support list is\n"
        "  ascend910b1;ascend910b2\n"
        "-- Configuring incomplete, errors occurred!\n"})
    assert "does not support, the support list is" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"cmake.log":
        "CMake Error at CMakeLists.txt:264 (message):\n"
        "  kernel_cmake does not exist, please check whether the toolkit package\n"
        "  is installed\n"})
    assert "kernel_cmake does not exist" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_a_file_named_after_a_segfault_is_no_crash(tmp_path):
    ws, d = diagnose(tmp_path, {"repro.log":
        "unzip nms_segfault_repro.zip\n"
        "atc --model=crash.onnx --soc_version=Ascend310P3\n"
        "/opt/bin/atc: line 22: 147 Segmentation fault (core dumped) /opt/bin/atc.bin \"$@\"\n"})
    assert "Segmentation fault (core dumped)" in anchor_text(ws, d)


def test_routes_a_package_missing_an_attribute_and_a_device_type_mismatch_to_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "[rank0]: AttributeError: module 'torch_npu' has no attribute '_npu_fa'\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "AssertionError: Current device type: DeviceType._A3 does not match the installed version's device type: "
        "DeviceType._A2\n"})
    assert d.category == "environment"


def test_a_graph_engine_refusing_the_applications_model_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "[DvppDecoder::Init] h: 720 w:1280\n"
        "/src/acl_model.cpp:13 aclError:145000\n"
        "/src/acl_model.cpp:14 aclError:100000\n"})
    assert "aclError:145000" in anchor_text(ws, d)
    assert d.category == "environment"  # ACL_ERROR_GE_PARAM_INVALID: the model handed to GE


def test_a_shape_check_inside_an_offline_conversion_is_compile_but_at_run_time_an_operators(tmp_path):
    block = ("E89999: Inner Error!\n"
             "        op[Concat_9], the input shape dims should be equal except merge axis[FUNC:ConcatInferShape]"
             "[FILE:split_combination_ops.cc][LINE:1101]\n")
    ws, d = diagnose(tmp_path, {"atc.log": "ATC run failed, Please check the detail log, Try 'atc --help'\n" + block})
    assert "input shape dims should be equal" in anchor_text(ws, d)
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"train.log": block})
    assert d.category == "operator"


def test_a_json_failure_record_shows_its_message_not_its_verdict(tmp_path):
    ws, d = diagnose(tmp_path, {"report.log":
        "    {\n"
        '      "cause": [\n'
        "        {\n"
        '          "code": 1,\n'
        '          "message": "The type is not supported."\n'
        "        }\n"
        "      ],\n"
        '      "name": "Resize_117",\n'
        '      "result": "failed",\n'
        '      "type": "ai.onnx::13::Resize"\n'
        "    },\n"})
    assert '"message": "The type is not supported."' in anchor_text(ws, d)


def test_lookalike_a_verdict_without_a_message_stays_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"report.log":
        '    {\n      "message": "ok"\n    },\n    {\n      "name": "Resize_1",\n      "result": "failed"\n    }\n'})
    assert '"result": "failed"' in anchor_text(ws, d)


def test_a_traceback_ends_in_its_exception_whatever_the_class_is_called(tmp_path):
    ws, d = diagnose(tmp_path, {"pip.log":
        "      Traceback (most recent call last):\n"
        '        File "/opt/cann/tools/recompile_binary.py", line 64, in get_add_obj\n'
        '          raise TooFewObj(f"There is no obj file in this directory: {add_dir}")\n'
        "      __main__.TooFewObj: There is no obj file in this directory: /tmp/build/host_dir\n"
        "      gmake[3]: *** [CMakeFiles/kern.dir/build.make:90: lib/libkern.so] Error 1\n"
        "      gmake: *** [Makefile:286: kern] Error 2\n"})
    assert "TooFewObj: There is no obj file" in anchor_text(ws, d)
    assert d.category == "compile"  # it failed inside a build


def test_lookalike_prose_after_a_traceback_at_another_indent_is_not_its_exception(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/w/run.py", line 3, in <module>\n'
        "    main()\n"
        "RuntimeError: the launcher exited\n"
        "  see the log of the first rank\n"})
    assert "RuntimeError: the launcher exited" in anchor_text(ws, d)


def test_cmake_messages_ending_in_a_colon_and_missing_packages_are_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log":
        "CMake Error at /opt/cann/lib64/cmake/ASCConfig.cmake:20 (include):\n"
        "  include could not find requested file:\n"
        "\n"
        "    /opt/other-cann/ASC_CMake/FindASC.cmake\n"
        "-- Configuring incomplete, errors occurred!\n"})
    assert "include could not find requested file" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"build.log":
        "CMake Error at /usr/share/cmake/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n"
        "  Could NOT find Torch_npu (missing: TORCH_NPU_INCLUDE_DIRS)\n"})
    assert d.category == "environment"


def test_a_resolvers_chain_of_causes_ends_in_the_reason(tmp_path):
    ws, d = diagnose(tmp_path, {"install.log":
        "  x Failed to download and build `pkg @ git+https://example.invalid/pkg.git`\n"
        "  |-> Failed to resolve requirements from `build-system.requires`\n"
        "  |-> No solution found when resolving: `torch==2.10.0`, `torch-npu==2.10.0`\n"
        "  `-> Because torch-npu==2.10.0 depends on torch==2.10.0+cpu and there is no version of torch==2.10.0+cpu, we\n"
        "      can conclude that torch-npu==2.10.0 cannot be used.\n"})
    assert "Because torch-npu==2.10.0 depends on" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_chains_reason_is_found_whatever_its_words(tmp_path):
    """uv prints its resolver's failure with box-drawing links and no error word on either line:
    the last link is still the reason (a package not on the index, a wrong pin)."""
    ws, d = diagnose(tmp_path, {"install.log":
        "Resolved 12 packages in 1.02s\n"
        "  \u00d7 No solution found when resolving dependencies:\n"
        "  \u2570\u2500\u25b6 Because there is no version of pkg-npu==9.9.9 and you require pkg-npu==9.9.9, we can\n"
        "      conclude that your requirements are unsatisfiable.\n"})
    assert "Because there is no version of pkg-npu==9.9.9" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_tree_drawing_is_no_chain_of_causes(tmp_path):
    """Box-drawing corners without the arrow head are a tree (a listing, a progress display)."""
    ws, d = diagnose(tmp_path, {"run.log":
        "model/\n"
        "  \u251c\u2500\u2500 config.json\n"
        "  \u2570\u2500\u2500 Because of the cache, weights are read once\n"})
    assert d.anchor is None


def test_an_mlir_operations_diagnostic_is_compile_whatever_its_words(tmp_path):
    """An MLIR-based kernel compiler names the operation it refused as `'dialect.op' op`, at a
    call-site location in the kernel's Python source: the kernel did not compile."""
    ws, d = diagnose(tmp_path / "a", {"run.log":
        'loc(callsite(callsite("/opt/py/triton/language/standard.py":351:38 at "/w/kern.py":12:4) at "/w/kern.py":30:8)):'
        " error: 'builtin.unrealized_conversion_cast' op Unsupported user for root alloc op.\n"})
    assert "Unsupported user for root alloc op" in anchor_text(ws, d)
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"run.log": "error: 'hivm.copy' op operand #0 must be memref, got tensor\n"})
    assert d.category == "compile"


def test_a_quoted_dotted_name_is_no_mlir_operation(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "AttributeError: 'torch_npu.npu' object has no attribute 'set_op_options' (an op of the old release)\n"})
    assert d.anchor is not None and d.category != "compile"


def test_a_traceback_cut_above_its_head_anchors_its_first_line_not_its_header(tmp_path):
    """A CANN block whose detail was cut away starts at `TraceBack (most recent call last):`: that
    line frames the call chain and says nothing itself; the chain's first line is the most specific."""
    ws, d = diagnose(tmp_path, {"serve.log":
        "(Worker_TP3 pid=9) ERROR 07-28 01:24:15 [multiproc_executor.py:824]         TraceBack (most recent call last):\n"
        "(Worker_TP3 pid=9) ERROR 07-28 01:24:15 [multiproc_executor.py:824]        rtsLaunchKernelWithHostArgs failed, "
        "runtime result = 207001.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n"})
    assert "runtime result = 207001" in anchor_text(ws, d)
    assert d.category == "memory"


def test_a_traceback_under_its_head_leaves_the_head_anchored(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EZ9999: [PID: 9] 2026-03-11-10:00:00.100.100 Kernel launch refused: block dim 0 is invalid.\n"
        "        TraceBack (most recent call last):\n"
        "        rtsLaunchKernelWithHostArgs failed, runtime result = 207001.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n"})
    assert "block dim 0 is invalid" in anchor_text(ws, d)


def test_a_caret_cr_at_a_lines_end_is_a_line_end(tmp_path):
    """A log pasted from a terminal copy keeps CR as the two characters `^M` (as ESC as `^[`): a
    logger line that held only a CR is empty, not an error line of its own."""
    ws, d = diagnose(tmp_path, {"serve.log":
        "^[[0;36m(Worker pid=9)^[[0;0m ERROR 07-28 01:24:15 [worker.py:80]         TraceBack (most recent call last):^M\n"
        "^[[0;36m(Worker pid=9)^[[0;0m ERROR 07-28 01:24:15 [worker.py:80]        rtsLaunchKernelWithHostArgs failed, "
        "runtime result = 207001.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]^M\n"
        "^[[0;36m(Worker pid=9)^[[0;0m ERROR 07-28 01:24:15 [worker.py:80] ^M\n"})
    assert d.anchor.ref.line == 1 and d.category == "memory"


def test_a_caret_m_inside_a_line_is_text(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "ValueError: token ^M is not allowed in a prompt template\n"})
    assert "token ^M is not allowed" in anchor_text(ws, d)


def test_a_kernel_module_missing_a_symbol_is_the_installation(tmp_path):
    """The kernel's module loader refusing a driver module (a module it needs is not loaded)."""
    ws, d = diagnose(tmp_path, {"dmesg.log":
        "[  12.100000] usbcore: registered new interface driver usbhid\n"
        "[  12.300000] drv_demo: Unknown symbol mdev_register_device (err -2)\n"})
    assert "Unknown symbol mdev_register_device" in anchor_text(ws, d)
    assert d.category == "environment"


def test_an_unknown_symbol_in_an_expression_is_no_module_loader(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "ValueError: unknown symbol 'x' (err -2 means nothing here) in the expression\n"})
    assert d.category != "environment"


def test_a_compilers_error_in_a_chinese_locale(tmp_path):
    ws, d = diagnose(tmp_path / "a", {"build.log":
        "make[2]: Entering directory '/home/u/ops/build'\n"
        "/home/u/ops/kernel/tiling.c:62: 错误：\u2018tile_num\u2019未声明(在此函数内第一次使用)\n"
        "make[2]: *** [tiling.o] Error 1\n"})
    assert "未声明" in anchor_text(ws, d)
    assert d.category == "compile"
    # the same error while the driver's kernel modules build as it installs: the installation
    ws, d = diagnose(tmp_path / "b", {"make.log":
        "/var/lib/dkms/drv_demo/1.0/build/core/mem.c:62: 错误：\u201cMIN\u201d重定义 [-Werror]\n"})
    assert "重定义" in anchor_text(ws, d)
    assert d.category == "environment"


def test_an_apps_chinese_error_message_is_no_compiler_diagnostic(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "2026-03-11 10:00:00 ERROR 加载模型失败，错误：文件不存在 /data/model.om\n"})
    assert d.anchor is not None and d.category != "compile"


def test_llvms_code_generator_failing_is_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log":
        "fatal error: error in backend: Cannot select: intrinsic %llvm.demo.MOV.UB.TO.OUT\n"
        "PLEASE submit a bug report to https://example.invalid and include the crash backtrace.\n"})
    assert "Cannot select: intrinsic" in anchor_text(ws, d)
    assert d.category == "compile"


def test_an_error_in_a_backend_service_is_not_llvm(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log": "RuntimeError: error in backend server 10.0.0.5, request dropped\n"})
    assert d.anchor is not None and d.category != "compile"


def test_a_torch_npu_check_that_names_no_call_is_routed_by_its_function(tmp_path):
    """torch_npu's check prints `<function>:<file>:<line> NPU function error: <call>, error code is N`;
    cut after `error`, the function is what failed (setting the op compiler's precision mode: the
    CANN packages)."""
    ws, d = diagnose(tmp_path / "a", {"train.log":
        "    torch_npu._C._npu_init()\n"
        "RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error\n"})
    assert d.category == "environment"
    # with the call named after it, the call decides, not the function around the check
    ws, d = diagnose(tmp_path / "b", {"train.log":
        "RuntimeError: RunGraph:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error: "
        "aclnnAddmm, error code is 161002\n"})
    assert d.category == "operator"


def test_a_failed_checks_condition_is_the_reason_of_the_step_reported_failed(tmp_path):
    """A framework's check prints only its condition (no error word), then the caller reports the
    step failed: the condition is the reason, the report wraps it."""
    ws, d = diagnose(tmp_path, {"infer.log":
        "I/demo_tag: init [File dev.cc][Line 28] set device 0\n"
        "E/demo_tag: reshape [File op_pool.cc][Line 41] kernel_dims.size() >= 3.\n"
        "E/demo_tag: reshape [File graph.cc][Line 90] Node reshape failed: /backbone/pool_2\n"})
    assert "kernel_dims.size() >= 3" in anchor_text(ws, d)


def test_a_line_above_a_failure_that_states_no_condition_stays_context(tmp_path):
    ws, d = diagnose(tmp_path, {"infer.log":
        "E/demo_tag: main [File main.cc][Line 100] model_inputs = images.\n"
        "E/demo_tag: reshape [File graph.cc][Line 90] Node reshape failed: /backbone/pool_2\n"})
    assert "Node reshape failed" in anchor_text(ws, d)


def test_an_applications_notice_of_a_caught_exception_is_an_error_line(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "got prompt\n"
        "!!! Exception during processing !!! Torch not compiled with CUDA enabled\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/app/execution.py", line 327, in execute\n'})
    assert "Torch not compiled with CUDA enabled" in anchor_text(ws, d)
    assert d.category == "environment"  # a CUDA-only path taken on an NPU host


def test_an_exception_handler_being_set_up_is_no_error(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log": "registering the exception handler for worker 3\nready\n"})
    assert d.anchor is None


def test_failed_in_a_chinese_locale_is_an_error_line(tmp_path):
    ws, d = diagnose(tmp_path, {"ocr.log":
        "使用华为NPU设备: npu:0\n"
        "DemoOCR 初始化失败: Unsupported soc version: Ascend310\n"
        "\u274c 实例初始化失败: Unsupported soc version: Ascend310\n"})
    assert "DemoOCR 初始化失败" in anchor_text(ws, d)
    assert d.category == "environment"


def test_chinese_text_without_failed_is_no_error_line(tmp_path):
    ws, d = diagnose(tmp_path, {"ocr.log": "使用华为NPU设备: npu:0\n模型加载成功\n"})
    assert d.anchor is None


def test_operators_a_converter_cannot_run_are_an_operator_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"convert.log":
        "Error: This model is not supported, because 2 ops are not supported on 'demo_backend'. These unsupported ops "
        "are: 'gru', 'lstm'.\n"})
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "b", {"convert.log":
        "Error: this model is not supported by the installed runtime release; upgrade the toolkit\n"})
    assert d.category != "operator"


def test_a_programs_check_of_a_calls_status_is_routed_by_the_call(tmp_path):
    """A sample's own check prints the call and its status (`aclrtKernelArgsAppend(h) returned
    error code 100000`): a generic invalid-parameter status says nothing of the stage, the call
    does (the launch arguments of a kernel)."""
    ws, d = diagnose(tmp_path / "a", {"run.log":
        "[ERROR] Operation failed: aclrtKernelArgsAppend(argsHandle, &arg) returned error code 100000\n"})
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "[ERROR] Operation failed: aclrtSetDevice(deviceId) returned error code 507033\n"})
    assert d.category != "operator"


def test_an_offline_converters_parse_failure_is_compile(tmp_path):
    text = ("[ERROR] LITE(475,ffff,converter_lite):2026-03-11-10:00:00.100.000 [parser/onnx_op_parser.cc:7529] Parse] "
            "pooling op not support dilations now\n"
            "[ERROR] LITE(475,ffff,converter_lite):2026-03-11-10:00:00.100.100 [parser/onnx_op_parser.cc:5659] "
            "ConvertNodes] parse node MaxPool failed.\n")
    ws, d = diagnose(tmp_path, {"convert.log": text})
    assert "pooling op not support dilations" in anchor_text(ws, d)
    assert d.category == "compile"


def test_a_device_fault_in_a_traceback_under_a_prefixed_head_explains_the_launch(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank7]:[E311 10:00:07.7 OpParamMaker.cpp:355] call aclnnFooAttention failed, detail:[PID: 97] "
        "2026-03-11-10:00:07.563.105 AclNN_Runtime_Error(EZ9903): Assert ((NnopbaseExecutorLaunchKernel(executor, "
        "stream, numBlocks)) == 0) failed\n"
        "        Solution: In this scenario, collect the plog when the fault occurs.\n"
        "        TraceBack (most recent call last):\n"
        "        The error from device(chipId:7, dieId:0), serial number is 8, there is an exception of fftsplus aicore "
        "error, core id is 7, error code = 0x800000, dump info: pc start: 0x1\n"})
    assert "there is an exception of fftsplus aicore error" in anchor_text(ws, d)


def test_the_runtimes_smmu_check_relays_the_core_error_it_prints_next(tmp_path):
    check = _runtime("27.012.914", "device_error_core_proc.cc:399", "CheckSmmuFault:Get isSmmuFault is 1.")
    core = _runtime("27.013.100", "device_error_core_proc.cc:1060", "PrintCoreInfo:The error from device(chipId:1, "
                    "dieId:0), serial number is 5, there is an exception of aivec error, core id is 32, error code = 0")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": check + core})
    assert "there is an exception of aivec error" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-4242_20260311100000000.log": check})
    assert "CheckSmmuFault" in anchor_text(ws, d)  # alone, it is all there is
    assert d.category == "device"


def test_a_relayed_log_line_keeps_its_own_inner_level(tmp_path):
    """A process that relays another's output under its own ERROR prefix: the inner logger's
    level (glog `I`, vLLM `INFO`) is the line's own; only the relayed error is an error."""
    pre = "(EngineCore pid=9) ERROR 03-31 02:49:30 [executor.py:880] "
    ws, d = diagnose(tmp_path, {"serve.log":
        pre + "I0331 02:49:29.100000 803 loader.cpp:65] Loading model shards, resumed list: none\n"
        + pre + "INFO 03-31 02:49:29 [loader.py:262] Loading weights took 3.10 seconds, retry budget 2\n"
        + pre + "E0331 02:49:30.617945 803 transport.cpp:454] Transfer engine init failed, status: 503900\n"})
    assert "Transfer engine init failed" in anchor_text(ws, d)


def test_lookalike_an_outer_error_prefix_alone_still_marks_an_error(tmp_path):
    pre = "(EngineCore pid=9) ERROR 03-31 02:49:30 [executor.py:880] "
    ws, d = diagnose(tmp_path, {"serve.log": pre + "Worker proc VllmWorker-4 died unexpectedly, shutting down\n"})
    assert "died unexpectedly" in anchor_text(ws, d)


def test_c10_backtrace_frames_are_code_and_the_throw_site_names_the_layer(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank2]:[E311 10:00:05.100000000 compiler_depend.ts:422] setup failed!\n"
        "Exception raised from OperationSetup at build/op-plugin/op_plugin/CMakeFiles/op_plugin_atb.dir/x.ts:131 "
        "(most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8 (0xffff7c3b7908 in libc10.so)\n"
        "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, char const*) + 0x70\n"})
    assert anchor_text(ws, d).endswith("setup failed!")
    assert d.category == "operator"  # thrown by the operator layer (op-plugin, an ATB operation)
    assert not any(e.text.startswith("frame #") for e in d.events if e.kind.tier < 9)


def test_lookalike_a_throw_site_outside_the_operator_layer_names_no_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank2]:[E311 10:00:05.100000000 compiler_depend.ts:422] setup failed!\n"
        "Exception raised from query at build/CMakeFiles/torch_npu.dir/compiler_depend.ts:59 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8 (0xffff7c3b7908 in libc10.so)\n"})
    assert anchor_text(ws, d).endswith("setup failed!")
    assert d.category != "operator"


def test_a_frame_under_a_plog_message_is_never_the_anchor(tmp_path):
    text = (plog("ERROR", "APP", 85, "10:00:00.000.100", '[log_inner.cpp:77]87 ExecFuncOpApi:448: "[PTA]:"Custom hand '
                 "error:FooAttentionOperation setup failed!")
            + "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xd4 (0xffffae6b3ea4 in libc10.so)\n"
            + plog("ERROR", "APP", 85, "10:00:00.000.200", '[log_inner.cpp:77]87 ExecFuncOpApi:452: "[PTA]:"Custom hand '
                   'fail! name=FooAttentionOperation, ret=100000""'))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-85_20260311100000000.log": text})
    assert "setup failed!" in anchor_text(ws, d)
    assert d.category == "operator"


def test_the_debug_daemon_failing_to_count_devices_is_a_cause_and_its_symbol_noise_is_not(tmp_path):
    head = (plog("ERROR", "RUNTIME", 1, "10:00:00.025.050", "[error_message_manage.cc:48]1 FuncErrorReason:report error "
                 "module_name=EE1001")
            + plog("ERROR", "RUNTIME", 1, "10:00:00.025.157", "[error_message_manage.cc:48]1 FuncErrorReason:rtGetDevMsg "
                   "execute failed, reason=[context pointer null]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-1_20260311100000000.log": head + plog(
        "ERROR", "IDEDD", 1, "10:00:00.097.930", "[adx_dsmi.cpp:54][tid:201]>>> Get physical device number failed, err: 87")})
    assert "Get physical device number failed" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "noise", {"debug/plog/plog-1_20260311100000000.log": head + plog(
        "ERROR", "IDEDD", 1, "10:00:00.097.930", "[ide_daemon_stub.cc:74] >>> (tid:1) symbol collection for "
        "libide_daemon.so failed, dlsym(IdeDumpStart) not found")})
    assert "symbol collection" not in anchor_text(ws, d)


def test_a_device_management_library_missing_or_busy_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"worker.log":
        "Traceback (most recent call last):\n"
        '  File "detector.py", line 9, in init\n'
        "    raise DCMIError(DCMI_ERROR_LIBRARY_NOT_FOUND)\n"
        "runtime.pydcmi.DCMIError_LibraryNotFound: Library Not Found\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "busy", {"smi.log": "dcmi model initialized failed, because the device is used. ret is -8020\n"})
    assert d.category == "environment"


def test_onnx_runtimes_logger_level_and_the_call_it_names(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "2026-03-11 10:00:00.100000001 [W:onnxruntime:Default, provider.cc:20 Warn] Some nodes were not assigned\n"
        "2026-03-11 10:00:01.351330063 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN failure 500001: "
        "ACL_ERROR_FAILURE ; NPU=0 ; expr=aclopCompileAndExecute(opname.c_str(), Stream(ctx));\n"
        "2026-03-11 10:00:01.351379137 [E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status "
        "code returned while running Conv node.\n"})
    assert "CANN failure 500001" in anchor_text(ws, d)
    assert d.category == "compile"  # the operator was being compiled online (not the `Stream(ctx)` argument)
    ws, d = diagnose(tmp_path / "op", {"run.log":
        "2026-03-11 10:00:01.351330063 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN failure 561103: "
        "X ; NPU=0 ; expr=aclnnAdd(a, b, Stream(ctx));\n"})
    assert d.category == "operator"


def test_the_graph_engines_operator_support_and_single_op_checks_are_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"debug/plog/plog-37_20260311100000000.log": plog(
        "ERROR", "GE", 37, "10:00:00.716.918", "[dnnengine_manager.cc:273]37 GetDNNEngineName: ErrorNo: 1343242282(assign "
        "engine failed) [COMP][SUB_OPT][Check][OpSupported]Op type Foo of ops kernel AIcoreEngine is unsupported, reason : "
        "op type Foo is not found in op information library[tbe-custom].")})
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "single", {"debug/plog/plog-38_20260311100000000.log": plog(
        "ERROR", "GE", 38, "10:00:00.781.549", "[single_op.cc:331]38 ValidateArgs: ErrorNo: 145000(Parameter invalid.) "
        "[FINAL][FINAL][Check][Param:outputs]Output size mismatch. index = 0,") + plog(
        "ERROR", "ASCENDCL", 38, "10:00:00.781.584", "[op_executor.cpp:192]38 DoExecuteAsync: [FINAL][FINAL][Exec][Op]"
        "Execute op failed. ge result = 145000")})
    assert d.category == "operator"


def test_an_inline_detail_whose_pid_and_stamp_were_masked_is_still_the_detail(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]: RuntimeError: call aclnnFoo failed, detail:EZ1001: [PID: xxx] 2025-xx-xx-17:44:xxx Foo only supports "
        "groups = 1\n"
        "[rank0]:         TraceBack (most recent call last):\n"
        "[rank0]:         foo raise an unknown error\n"
        '[rank0]:         check the condition which is "ret == ACLNN_SUCCESS" failed, except the condition is true.\n'})
    assert "Foo only supports groups = 1" in anchor_text(ws, d)
    assert d.category == "operator"


def test_a_line_that_announces_the_following_error_wraps_it(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "05/22 09:09:35 - runner - WARNING - command error: 'Failed to import pkg.optim because of the following "
        "error (look up to see its traceback):\n"
        "/env/lib/python3.9/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: _ZN5torch3FooEv'!\n"})
    assert "undefined symbol" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "alone", {"train.log": "ERROR - Failed to import pkg.optim: No module named 'pkg'\n"})
    assert "Failed to import pkg.optim" in anchor_text(ws, d)


def test_a_stamp_cut_to_the_second_does_not_precede_a_finer_stamp_of_that_second(tmp_path):
    console = ("(Worker rank=1 pid=30) ERROR 03-11 10:00:05 [executor.py:546]         TraceBack (most recent call last):\n"
               "(Worker rank=1 pid=30) ERROR 03-11 10:00:05 [executor.py:546]         Transport init error. Reason: "
               "[Create][DestLink]Create Dest error! LocalRank[1]\n")
    cause = plog("ERROR", "HCCL", 31, "10:00:05.747.057", "[adapter_hccp.cc:2286] [41]this package does not support "
                 "hrtRaAiQpCreate for device, please change new package")
    ws, d = diagnose(tmp_path, {"worker.log": console, "debug/plog/plog-31_20260311100000000.log": cause})
    assert "this package does not support" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the console's error one second before the plog's is still first
    early = console.replace("10:00:05 [", "10:00:04 [")
    ws, d = diagnose(tmp_path / "early", {"worker.log": early, "debug/plog/plog-31_20260311100000000.log": cause})
    assert "Transport init error" in anchor_text(ws, d)


def test_a_shared_virtual_memory_call_that_failed_is_memory(tmp_path):
    ws, d = diagnose(tmp_path, {"kv.log":
        "2026-03-11 10:00:40.102319 error 127 pid[127] [BM devmm_ioctl.cpp:122] svm advise failed:-1 : 3 : No such process\n"
        "2026-03-11 10:00:40.102376 error 127 pid[127] [ADAPTER pytransfer.cpp:49] Failed to init smem_trans, ret=-3\n"})
    assert "svm advise failed" in anchor_text(ws, d)
    assert d.category == "memory"


def test_an_uncaught_exception_first_is_the_cause_of_the_engine_failing_to_start(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "terminate called after throwing an instance of 'std::logic_error'\n"
        "  what():  basic_string::_S_construct null not valid\n"
        "(EngineCore_DP2 pid=26) ERROR 03-11 10:00:47 [core.py:1165] EngineCore failed to start.\n"
        "(EngineCore_DP2 pid=26) ERROR 03-11 10:00:47 [core.py:1165] Traceback (most recent call last):\n"
        '(EngineCore_DP2 pid=26) ERROR 03-11 10:00:47 [core.py:1165]   File "core.py", line 1131, in run_engine_core\n'})
    assert anchor_text(ws, d).startswith("terminate called after throwing")


def test_initialising_the_runtime_twice_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "2026-03-11 10:00:48,117 - 2814 - factory.py-factory:118 - ERROR: Loading operator with error:Initialize:"
        "torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:135 NPU error, error code is 100002\n"
        "[Error]: Repeated initialization or repeated loading.\n"})
    assert "error code is 100002" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_check_on_a_calls_status_relays_the_callees_own_error(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "F20260511 npu_conv.cpp:43] Check failed: workspace_status == 0\n"
        "call aclnnFooConv failed, detail:EH9999: Inner Error!\n"
        "FooConv do tiling failed, ret is -1.\n"})
    assert anchor_text(ws, d) == "FooConv do tiling failed, ret is -1."
    assert d.category == "operator"
    # look-alike: a check on the values themselves is the cause
    ws, d = diagnose(tmp_path / "shape", {"serve.log":
        "F20260511 npu_conv.cpp:43] Check failed: input.size(0) == weight.size(1)\n"
        "call aclnnFooConv failed, detail:EH9999: Inner Error!\n"})
    assert "Check failed: input.size(0)" in anchor_text(ws, d)


def test_a_node_without_npus_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "(EngineCore_DP0 pid=14) ERROR 03-11 10:01:22 [core.py:718] ValueError: Current node has no NPU available. "
        "current_node_resource={'CPU': 192.0, 'GPU': 8.0}\n"})
    assert d.category == "environment"


def test_a_statements_first_column_error_explains_those_printed_before_it(tmp_path):
    build = ("/tmp/k.cpp:111:41: error: unexpected type name 'half': expected expression\n"
             "/tmp/k.cpp:111:45: error: expected ';' after expression\n"
             "/tmp/k.cpp:111:27: error: no member named 'copy_a_to_b' in namespace 'tl::ns'\n"
             "/tmp/k.cpp:111:51: error: expected unqualified-id\n"
             "4 errors generated.\n")
    ws, d = diagnose(tmp_path, {"build.log": build})
    assert "no member named 'copy_a_to_b'" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: errors on different lines keep the order they were printed in
    ws, d = diagnose(tmp_path / "lines", {"build.log": build.replace("111:27", "112:27")})
    assert "unexpected type name 'half'" in anchor_text(ws, d)


def test_a_paste_with_line_numbers_keeps_its_grammar(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "  1120\t[ERROR] 2026-03-11-10:00:06 (PID:374, Device:0, RankID:-1) ERR00100 PTA call acl api failed.\n"
        "  1121\tEH9999: Inner Error!\n"
        "  1122\t        rtStreamEndCapture execute failed, reason=[capture model contains a stream that was not "
        "joined to the original stream][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
        "  1123\tEH9999: [PID: 374] 2026-03-11-10:00:06.119.103 end capture stream failed, runtime result = 107025"
        "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
        "  1124\t2026-03-11 10:00:06,120 - __main__ - ERROR - Please check your model paths and configuration.\n"})
    assert "capture" in anchor_text(ws, d)
    assert d.category == "compile"


def test_a_device_pytorch_does_not_know_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "RuntimeError: Expected one of cpu, cuda, xpu, meta, hpu, privateuseone device type at start of device "
        "string: npu\n"})
    assert d.category == "environment"


def test_compiler_and_cmake_grammar_hold_under_a_launchers_prefix(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log":
        "[rank3]:/tmp/k.cpp:111:41: error: unexpected type name 'half': expected expression\n"
        "[rank3]:/tmp/k.cpp:111:27: error: no member named 'copy_a_to_b' in namespace 'tl::ns'\n"})
    assert "no member named 'copy_a_to_b'" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "cmake", {"build.log":
        "[rank3]:CMake Error at /opt/cann/lib64/cmake/FooConfig.cmake:20 (include):\n"
        "[rank3]:  include could not find requested file:\n"
        "[rank3]:\n"
        "[rank3]:    /opt/cann/lib64/cmake/foo-targets.cmake\n"})
    assert d.category == "environment"


LINK = ("/opt/cann/lib64/libruntime.so: undefined reference to `halMemAlloc'\n"
        "/opt/cann/lib64/libruntime.so: undefined reference to `halMemFree'\n"
        "collect2: error: ld returned 1 exit status\n"
        "make[2]: *** [app] Error 1\n")


def test_a_library_the_linker_could_not_find_is_why_the_link_failed(tmp_path):
    """GNU ld names the missing shared library in a warning; the undefined references to its
    symbols follow from it, printed before it too when make links targets in parallel."""
    ws, d = diagnose(tmp_path, {"build.log": LINK + "/usr/bin/ld: warning: libascend_hal.so, needed by "
                                "/opt/cann/lib64/libruntime.so, not found (try using -rpath or -rpath-link)\n"})
    assert "libascend_hal.so, needed by" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_a_link_without_a_missing_library_fails_on_its_first_symbol(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log": LINK})
    assert "undefined reference to `halMemAlloc'" in anchor_text(ws, d)  # not collect2's summary
    assert d.category == "compile"


def test_a_probe_that_answers_no_fault_is_not_the_fault(tmp_path):
    """The runtime asks the device about UCE and SMMU faults while it handles a core error; the
    answer (`Get isSmmuFault is 0.`) is its own line at ERROR, and the core error comes after it."""
    probe = _runtime("27.012.914", "device_error_core_proc.cc:250", "HasMemUceErr:Get isSmmuFault is 0.")
    core = _runtime("27.013.100", "device_error_core_proc.cc:347", "PrintCoreInfo:The error from device(chipId:1, "
                    "dieId:0), serial number is 5, there is an exception of aivec error, core id is 3, error code = 0")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-4242_20260311100000000.log": probe + core})
    assert "there is an exception of aivec error" in anchor_text(ws, d)
    # look-alike: a failure of the same function is a failure (not an answer)
    failed = _runtime("27.012.914", "device_error_core_proc.cc:250", "GetMemUceInfo:drvGetMemUceInfo failed, ret=7.")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-4242_20260311100000000.log": failed + core})
    assert "drvGetMemUceInfo failed" in anchor_text(ws, d)


def test_backtrace_frames_in_plog_lines_locate_the_error_below_them(tmp_path):
    """HCCL logs glibc backtrace() frames as [ERROR] lines of their own, before and after its
    message: code locations, not errors."""
    def hccl(ts: str, rest: str) -> str:
        return plog("ERROR", "HCCL", 74, ts, rest)
    text = (hccl("10:00:00.945.615", "[rank_info_detect_service.cc:88][75]/lib/x86_64-linux-gnu/libc.so.6(+0x9caa4) "
                 "[0x7f0c35235aa4]")
            + hccl("10:00:00.945.618", "[rank_info_detect_service.cc:88][75][RankInfoDetectService::GetConnections] "
                   "server get socket fail")
            + hccl("10:00:00.946.211", "[rank_info_detect.cc:199][75]/opt/cann/lib64/libhcomm.so(_ZN4Hccl13HcclException"
                   "C2ERKNS_13ExceptionTypeERKSs+0xc2) [0x7f0bfee6b492]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-74_20260311100000000.log": text})
    assert "server get socket fail" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: a library that failed to load names a .so too, and is an error
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-74_20260311100000000.log":
                                      hccl("10:00:00.945.615", "[adapter.cc:40][75]dlopen libhccl_v2.so failed, "
                                           "error: libhccl_v2.so: cannot open shared object file")})
    assert d.anchor is not None and d.category == "environment"


def test_the_heap_corruption_glibc_reports_is_the_crash_not_the_abort_after_it(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "$ python3 test.py\n\ndouble free or corruption (!prev)\n"
                                "Aborted (core dumped)\n"})
    assert "double free or corruption" in anchor_text(ws, d)
    assert d.category == "unknown"  # a native crash without a code
    # look-alike: a checkpoint the job calls corrupted is not a crash
    ws, d = diagnose(tmp_path / "b", {"run.log": "WARNING: shard 3 is corrupted, downloading it again\n"})
    assert d.anchor is None or d.anchor.kind != "crash"


def test_an_sdk_status_in_brackets_is_the_failure_a_later_python_error_follows(tmp_path):
    """MindX SDK logs the CANN status of the call that failed (`[507011][Error code unknown]`);
    the script's IndexError on the empty result comes after it."""
    log = ("E20231116 09:50:41.157967  2326 ModelDesc.cpp:855] [507011][Error code unknown] Failed to model infer "
           "execute, details seen in CANN document.\n"
           "E20231116 09:50:41.158447  2326 ModelDesc.cpp:129] Model Infer failed.\n"
           "Traceback (most recent call last):\n"
           '  File "predict.py", line 116, in detect\n'
           "    out = network.infer(img)[0]\n"
           "IndexError: list index out of range\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert "[507011][Error code unknown]" in anchor_text(ws, d)
    assert d.category == "device"  # a task inside the model failed on the device
    # look-alike: a thread id in brackets before a bracketed name is no status
    ws, d = diagnose(tmp_path / "b", {"run.log": log.replace("[507011][Error code unknown]", "[507011][Worker]")})
    assert "IndexError" in anchor_text(ws, d)


def test_a_component_marker_and_pythons_base_exception_are_read(tmp_path):
    """MindIE tags its Python side's lines with `[Component]\\t>>> `; `raise Exception(...)`
    prints the base class's bare name."""
    ws, d = diagnose(tmp_path, {"server.log":
        '[Tokenizer]\t>>> Exception:The conversation "content" should be a List[Dict].\n'
        "[2025-04-17 16:53:32.880924+08:00] [6781] [4809] [server] [ERROR] [infer_tokenizer.cpp:62] : "
        "[InferTokenizer::EncodeChatToken] Encode chat fail: RuntimeError: [Tokenizer] encode chat template failed.\n"})
    assert 'should be a List[Dict]' in anchor_text(ws, d)
    # look-alike: a count of exceptions is no exception
    ws, d = diagnose(tmp_path / "b", {"server.log": "[Tokenizer]\t>>> Exceptions: 0, requests: 12\n"})
    assert d.anchor is None


def test_a_custom_operator_package_not_found_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "FileNotFoundError: Unable to find the NPU custom OPP. Expected /site-packages/x_npu/opp/vendors/x. If you "
        "installed it separately, source the custom OPP set_env.bash.\n"})
    assert d.category == "environment"


def test_a_file_the_job_needs_that_is_not_there_is_the_environment(tmp_path):
    """Python's FileNotFoundError is a path of the set-up (a dataset never prepared, a model folder)."""
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/opt/x/datasets/data_files.py", line 40, in resolve_pattern\n'
        "    raise FileNotFoundError(error_msg)\n"
        "FileNotFoundError: Unable to find '/data/corpus/train_0001.parquet'\n"})
    assert "Unable to find" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a compiler that cannot find a header keeps the compiler's shape
    ws, d = diagnose(tmp_path / "b", {"build.log":
        "/src/ext/kernel.cpp:3:10: fatal error: Python.h: No such file or directory\n"
        "compilation terminated.\n"})
    assert d.category == "compile"


def test_a_kernel_launch_grid_over_the_limit_is_the_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        '[rank0]: RuntimeError: grid should be less than 65536! You can try "export TRITON_ALL_BLOCKS_PARALLEL=1" '
        "to avoid this problem.\n"})
    assert d.category == "operator"
    # look-alike: a hyper-parameter grid search is no kernel launch
    ws, d = diagnose(tmp_path / "b", {"train.log": "RuntimeError: grid search failed: no trial finished\n"})
    assert d.category != "operator"


def test_a_glog_line_pasted_through_markdown_keeps_its_level(tmp_path):
    """Markdown turns a file name's underscores into emphasis and may drop the bracket after its
    line: the glog line's level letter still says it is an error."""
    log = ("I0805 09:42:09.763325 80495 ascend direct transport.cpp:444 register mem addr:0x12da, length:1833\n"
           "E0805 09:42:09.763501 80495 ascend direct transport.cpp:460 Register mem ret:103900.\n"
           "Worker pid=80495 ERROR 08-05 09:42:09 [multiproc_executor.py:962] WorkerProc hit an exception.\n")
    ws, d = diagnose(tmp_path, {"serve.log": log})
    assert "Register mem ret:103900" in anchor_text(ws, d)
    # look-alike: the same line at level I is no error
    ws, d = diagnose(tmp_path / "b", {"serve.log": log.splitlines(keepends=True)[0]})
    assert d.anchor is None


def test_a_failure_relayed_through_layers_is_the_line_that_does_not_introduce_another(tmp_path):
    """Each layer's line ends in a colon and the layer below is indented under it: the innermost
    line without a colon says what failed (here with the runtime's status)."""
    ws, d = diagnose(tmp_path, {"ci.log":
        "RuntimeError: remote session open failed for worker 1:\n"
        "  remote session startup failed for worker 1: startup:\n"
        '    File ".../worker.py", line 831, in _await_children_ready\n'
        '      raise RuntimeError(f"{kind} worker {i} failed during init: ...")\n'
        "  RuntimeError: chip worker 0 (pid 3362) failed during init:\n"
        "    chip_process dev=14 init: RuntimeError: runtime_init failed with code 507033\n"})
    assert "runtime_init failed with code 507033" in anchor_text(ws, d)
    assert d.category == "environment"  # the device could not be set up
    # look-alike: a header whose indented lines are only its traceback's frames stays the error
    ws, d = diagnose(tmp_path / "b", {"ci.log":
        "RuntimeError: remote session open failed for worker 1:\n"
        '    File ".../worker.py", line 831, in _await_children_ready\n'
        "      self.start()\n"})
    assert "remote session open failed" in anchor_text(ws, d)


def test_a_compiler_error_without_a_column_is_a_compiler_error(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log":
        "/repo/lib/Transforms/Emitter.cpp:87: error: 'mlir::LLVM::LLVMFloat8E5M2Type' has not been declared\n"
        "   87 |     return LLVM::LLVMFloat8E5M2Type::get(context);\n"})
    assert d.category == "compile"
    # look-alike: OpenCV's exception prints a file and a line too, and is no compiler
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "  what():  OpenCV(4.10.0) /src/modules/cannops/src/cann_call.cpp:97: error: (-2:Unspecified error) in "
        "function 'aclrtMemcpy2d'\n"})
    assert d.category != "compile"


def test_a_kernel_launch_the_runtime_refused_is_the_operators_launch(tmp_path):
    """The launch's status is a parameter error, not a fault of the device: the kernel's launch
    configuration (here a block count over the limit) is what is wrong."""
    log = ("[ERROR] [AscPlugin] AscendKernelLaunchWithFlagV2 ret 107000\n"
           "[ERROR] [AscPlugin] Kernel: [main_kernel] Stream: [0x5db1] BlockDim: [65536] kernel launch failure!\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert d.category == "operator"
    # look-alike: a launch that reports the device's fault is the device's
    ws, d = diagnose(tmp_path / "b", {"run.log": log.replace("ret 107000", "ret 507015")})
    assert d.category == "device"


def test_kernel_compiler_passes_and_graph_converters_are_the_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "InternalError: Check failed: (0 <= i && i < p->size_) is false:\n"
                                "IndexError: indexing 0 on an array of size 0\n"})
    assert d.category == "compile"  # a TVM-based kernel compiler's pass
    ws, d = diagnose(tmp_path / "t", {"run.log": "[executor.py:654] RuntimeError: Ascend op converter is not "
                                      "implemented of: npu.npu_moe_token_unpermute.default\n"})
    assert d.category == "compile"  # torchair has no converter for the op
    # look-alike: an internal server error or a feature not implemented is no compiler's
    ws, d = diagnose(tmp_path / "b", {"run.log": "InternalError: the scheduler queue is full\n"
                                      "NotImplementedError: streaming output is not implemented\n"})
    assert d.category != "compile"


def test_a_pastes_elision_mark_before_a_cann_detail_is_an_envelope(tmp_path):
    block = ("EZ3003: [PID: 653] 2026-01-21-07:28:39.393.991 No supported Ops kernel and engine are found for "
             "[ResizeD154], optype [ResizeD].\n"
             "        TraceBack (most recent call last):\n"
             "        RunAllSubgraphs failed, graph=online.[FUNC:RunAllSubgraphs][FILE:engine_place.cc][LINE:122]\n"
             "        build op model failed, result = 500002[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n")
    ws, d = diagnose(tmp_path, {"run.log": "....." + block})
    assert "No supported Ops kernel and engine" in anchor_text(ws, d)
    # look-alike: dots in a progress line are no elision before a code
    ws, d = diagnose(tmp_path / "b", {"run.log": "loading.....EZ3003 weights done\n"})
    assert d.anchor is None or "EZ3003" not in anchor_text(ws, d)


def test_fetching_the_device_message_failing_is_not_the_failure(tmp_path):
    """On a board in offline (RC) mode the error manager cannot fetch the device's message: the
    failure is the node that failed, the lines after it only say the message is missing."""
    ws, d = diagnose(tmp_path, {"run.log":
        "[E:onnxruntime:,  sequential_executor.cc:369 Execute] Non-zero status code returned while running Conv "
        "node. Name:'conv0'  Status Message: CANN errorEE9999: Inner Error!\n"
        "EE9999  get device msg feature can not support offline mode.[FUNC:GetDevMsg][FILE:api_impl.cc][LINE:3483]\n"
        "rtGetDevMsg execute failed, reason=[feature not support][FUNC:FuncErrorReason][FILE:error_message_manage.cc]"
        "[LINE:49]\n"})
    assert "while running Conv node" in anchor_text(ws, d)
    # look-alike: a feature the device itself does not support is a failure of its own
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "EE9999  set device feature can not support on this chip.[FUNC:SetDevice][FILE:api_impl.cc][LINE:34]\n"})
    assert "set device feature" in anchor_text(ws, d)


def test_a_graph_the_graph_engine_refuses_is_the_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "[ERROR:0@5.094] global net_cann.cpp:317 compileCannGraph CANN graph "
                                "check failed, ret = 1343266818\n"})
    assert d.category == "compile"
    # look-alike: a health check of a service is no graph
    ws, d = diagnose(tmp_path / "b", {"run.log": "[ERROR:0@5.094] global server.cpp:31 health check failed, "
                                      "ret = 13\n"})
    assert d.category != "compile"


def test_an_inner_codes_detail_with_its_spaces_collapsed_is_the_detail(tmp_path):
    """A page or a copy collapses the error manager's two spaces (`E89999  op[…]`) into one: the
    line after the banner is still the detail that names the cause, not the TraceBack under it."""
    log = ("ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
           "E89999: Inner Error!\n"
           "E89999 op[Mul_12], The Mul_12 op dtype is not same, type1:DT_FLOAT16, type2:DT_INT32"
           "[FUNC:CheckTwoInputDtypeSame][FILE:util.cc][LINE:103]\n"
           "Verifying Mul_12 failed.[FUNC:InferShapeAndType][FILE:infershape_pass.cc][LINE:135]\n")
    ws, d = diagnose(tmp_path, {"atc.log": log})
    assert "op dtype is not same" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: an inner code's banner with one space is still a banner, never a cause
    ws, d = diagnose(tmp_path / "b", {"run.log": "EZ9999 Inner Error!\n"
                                      "RuntimeError: call aclnnMul failed, error code is 561103\n"})
    assert "aclnnMul" in anchor_text(ws, d)


def test_a_block_whose_traceback_is_the_graph_compile_is_the_compile(tmp_path):
    block = ("E89999:[PID:77] 2026-03-11-10:00:01.218.474 op[Div_3] op dtype is not same, type1:DT_FLOAT, "
             "type2:DT_INT64[FUNC:CheckTwoInputDtypeSame]\n"
             "       TraceBack (most recent call last):\n"
             "       Verifying Div_3 failed.[FUNC:InferShapeAndType][FILE:infershape_pass.cc][LINE:129]\n"
             "       process pass InferShapePass on node:Div_3 failed, ret:4294967295[FUNC:RunPassesOnNode]"
             "[FILE:base_pass.cc][LINE:563]\n")
    ws, d = diagnose(tmp_path, {"run.log": block})
    assert "op dtype is not same" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: the same inner detail with a TraceBack of a run (a launch) names no compile stage
    ws, d = diagnose(tmp_path / "b", {"run.log": block.split("       Verifying")[0]
                                      + "       launch kernel failed, kernel=Div_3[FUNC:LaunchKernel]\n"})
    assert d.category != "compile"
    # look-alike: one operator built on its own (the single-op path) fails as that operator
    ws, d = diagnose(tmp_path / "c", {"run.log": block + "       [Build][SingleOpModel]call ge interface "
                                      "generator.BuildSingleOpModel failed. ge result = 1343242270\n"})
    assert d.category == "operator"


def test_the_task_schedulers_own_report_is_the_device(tmp_path):
    line = ("[ERROR] TSCH(-1,null):2026-03-11-10:00:09.520.395 28 (cpuid:0) ai_core_dispatcher.c:1012 "
            "bs_done_exception_proc_timeout: slot_id=1,TS_ctrl=0x4,exception_core_list=0x0,fault_task=0\n")
    ws, d = diagnose(tmp_path, {"slog/device-0/device-0_20260311100000000.log": line})
    assert d.category == "device"
    # look-alike: the scheduler reporting a notify wait on a peer stays a collective's
    ws, d = diagnose(tmp_path / "b", {"slog/device-0/device-0_20260311100000000.log": line.replace(
        "bs_done_exception_proc_timeout: slot_id=1", "notify wait timeout for hccl task: slot_id=1")})
    assert d.category == "communication"


def test_a_driver_allocation_out_of_memory_is_memory(tmp_path):
    head = "[ERROR] DRV(41,python3):2026-03-11-10:00:04.{} [ascend][curpid: 41, 50][drv][devmm]{}\n"
    log = (head.format("222.597", "[devmm_ioctl_advise 190]<errno:12, 6> Ioctl device error! ptr=0x1088, count=150, advise=0x8c.")
           + head.format("908.459", "[devmm_alloc_managed 126]<errno:12, 6> heap_alloc_managed out of memory, bytesize=150."))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-41_20260311100000000.log": log})
    assert "Ioctl device error" in anchor_text(ws, d)
    assert d.category == "memory"
    # look-alike: a driver call refused for another reason (no such device) is the set-up
    log = head.format("222.597", "[devmm_ioctl_open 91]<errno:19, 1> open davinci_manager failed.")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-41_20260311100000000.log": log})
    assert d.category == "environment"


def test_a_hardware_error_record_is_the_device(tmp_path):
    log = ("[2454.830692] {6}[Hardware Error] Hardware error from APEI Generic Hardware Error Source: 0\n"
           "[2454.830693] {6}[Hardware Error] event severity: recoverable\n"
           "[2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC\n")
    ws, d = diagnose(tmp_path, {"kbox.txt": log})
    assert "Hardware error from APEI" in anchor_text(ws, d)
    assert d.category == "device"
    # look-alike: a kernel line that only mentions hardware is no fault
    ws, d = diagnose(tmp_path / "b", {"kbox.txt": "[2454.830692] hardware clock set to 10:00, ECC enabled\n"})
    assert d.anchor is None


def test_a_taken_port_warned_before_the_bind_gives_up_is_the_cause(tmp_path):
    log = ("[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 "
           "(errno: 98 - Address already in use).\n"
           "[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.\n"
           "RuntimeError: The server socket has failed to listen on any local network address.\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "failed to bind to [::]:29500" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a warning that a port is taken and another one is used is no failure
    ws, d = diagnose(tmp_path / "b", {"train.log": "[W socket.cpp:436] port 29500: Address already in use, "
                                      "using 29501\n"
                                      "[E socket.cpp:472] [c10d] The client socket has timed out after 600s\n"})
    assert "timed out" in anchor_text(ws, d)


def test_a_list_of_possible_reasons_is_advice_not_the_error(tmp_path):
    log = ("[OpRetryConnection][Init] Connect to server failed, serverPort [60000]\n"
           "There maybe some reasons to cause this error:\n"
           "   1. The port may have been used so we will bind error.\n"
           "   2. Somebody may have already listen on those ports\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert "Connect to server failed" in anchor_text(ws, d)
    # look-alike: an error whose message follows its colon is read as before
    ws, d = diagnose(tmp_path / "b", {"run.log": "Failed to build the engine with the following error:\n"
                                      "   cannot open shared object file libascendcl.so\n"})
    assert "libascendcl.so" in anchor_text(ws, d)


def test_a_protobuf_double_registration_is_two_packages(tmp_path):
    log = ("[libprotobuf ERROR descriptor_database.cc:644] File already exists in database: ge_ir.proto\n"
           "[libprotobuf FATAL descriptor.cc:1371] CHECK failed: GeneratedDatabase()->Add(encoded, size):\n"
           "torch._dynamo.exc.BackendCompilerFailed: backend='npu_backend' raised:\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert "File already exists in database" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a file that exists in a user's own database is no package clash
    ws, d = diagnose(tmp_path / "b", {"run.log": "ERROR: File already exists in database: train_0001.bin\n"})
    assert d.category != "environment"


def test_an_offline_models_task_exception_wraps_the_task_inside_it(tmp_path):
    head = "[ERROR] RUNTIME(42,msame):2026-03-11-10:00:06.{} [task.cc:1]42 {}\n"
    log = (head.format("338.095", "ReportExceptProc:Task exception! device_id=0, stream_id=0, task_id=1, type=13, "
                       "retCode=0x91, [the model stream execute failed].")
           + head.format("339.075", "PrintErrorInfo:Memory async copy failed, device_id=0, stream_id=3, task_id=2.")
           + head.format("339.082", "ReportErrorInfo:model execute error, retCode=0x91, [the model stream execute failed].")
           + head.format("339.091", "Notify:notify [_DEFAULT_MODEL_NAME_] task fail start.notify taskid:2 retcode:507011"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-42_20260311100000000.log": log})
    assert "Memory async copy failed" in anchor_text(ws, d)
    # look-alike: a task exception of a kernel (not of a model) is the failure itself
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-42_20260311100000000.log": head.format(
        "338.095", "ReportExceptProc:Task exception! device_id=0, stream_id=0, task_id=1, type=1, retCode=0x91, "
                   "[aicore exception].")})
    assert "Task exception!" in anchor_text(ws, d)


def test_a_logger_line_ending_in_an_exception_name_awaits_its_message(tmp_path):
    log = ("ERROR 03-11 10:00:07 [model_runner.py:3029] Graph sizes capture fail: RuntimeError:\n"
           "ERROR 03-11 10:00:07 [model_runner.py:3029] not enough streams left to capture 40 sizes\n")
    ws, d = diagnose(tmp_path, {"serve.log": log})
    assert "not enough streams" in anchor_text(ws, d)
    # look-alike: an error that names its exception and then its message on the same line
    ws, d = diagnose(tmp_path / "b", {"serve.log": "ERROR 03-11 10:00:07 [runner.py:9] capture fail: RuntimeError: "
                                      "stream limit reached\n"
                                      "ERROR 03-11 10:00:08 [runner.py:9] shutting down the engine: done\n"})
    assert "stream limit reached" in anchor_text(ws, d)


def test_an_error_the_framework_says_to_ignore_is_not_the_cause(tmp_path):
    head = "[{}] {}(83,ffff,python):2026-03-11-10:00:0{}.000.{} [f.cc:1] {}\n"
    log = (head.format("ERROR", "ASCENDCL", 1, "100", "Push] failed to send, tdt result = -1, device is 1")
           + head.format("WARNING", "DEVICE", 1, "200", "Push] Device queue thread had been interrupted, you can "
                         "ignore the above error: 'failed to send...'. The training ended first.")
           + "EI0006: Getting socket times out. Reason: 1. The remote does not initiate a connect request.\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "EI0006" in anchor_text(ws, d)
    # look-alike: a warning that ignores something else leaves the error above it standing
    ws, d = diagnose(tmp_path / "b", {"train.log": log.replace("you can ignore the above error: 'failed to send...'",
                                                               "the queue size was ignored")})
    assert "failed to send" in anchor_text(ws, d)


def test_mindspores_pointer_to_the_ascend_error_message_is_a_wrapper(tmp_path):
    log = ("RuntimeError: Ascend kernel runtime initialization failed, device id: 9. The details refer to "
           "'Ascend Error Message'.\n\n"
           "-Framework Error Message: (For framework developers)\n"
           "Call aclrtSetDevice failed, ret[107001]. Got device count[8] and device id[9].\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "Call aclrtSetDevice failed" in anchor_text(ws, d)
    assert d.category == "environment"  # 107001: an invalid device id
    # look-alike: the same pointer followed by the message on its own line keeps that message
    ws, d = diagnose(tmp_path / "b", {"train.log": "[CRITICAL] DEVICE(1,f,python):2026-03-11-10:00:00.000.001 "
                                      "[g.cc:9] RunGraph] Run task error! The details refer to 'Ascend Error "
                                      "Message'.Ascend Error Message:EI0002: The wait execution of the Notify "
                                      "register times out.\n"})
    assert "EI0002" in anchor_text(ws, d)


def test_a_check_macros_call_and_status_only_relays_the_failure(tmp_path):
    log = "HcclGetRootInfo(&hcclID), error code is 19\nra init failed, return[19] devicePhyId_[4], nicPosition[0]\n"
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert "ra init failed" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: a call that reports success is no failure at all
    ws, d = diagnose(tmp_path / "b", {"run.log": "HcclGetRootInfo(&hcclID), error code is 0\n"})
    assert d.anchor is None


def test_out_of_memory_in_capitals_is_memory(tmp_path):
    log = ("- Framework Error Message:\n"
           "Out of Memory!!! Request memory size: 1088627200B, Memory Statistic:\n"
           "Device HBM memory size: 32768M\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "Out of Memory!!!" in anchor_text(ws, d)
    assert d.category == "memory"
    # look-alike: a statistic of memory is no error
    ws, d = diagnose(tmp_path / "b", {"train.log": "Device HBM memory size: 32768M\nMemory Statistic: ok\n"})
    assert d.anchor is None


def test_a_model_converted_to_an_offline_model_fails_in_its_compile(tmp_path):
    head = "[ERROR] ME(43,7f02,python3):2026-03-11-10:00:45.{} [mindspore/ccsrc/cxx_api/model/acl/{}] {}\n"
    log = (head.format("206.120", "model_converter.cc:200", "operator()] Save ge model to buffer failed.")
           + head.format("235.224", "model_converter.cc:251", "LoadMindIR] Convert MindIR model to OM model failed"))
    ws, d = diagnose(tmp_path, {"infer.log": log})
    assert "Save ge model to buffer failed" in anchor_text(ws, d)
    assert d.category == "compile"  # and not `operator` from the function tag `operator()]`
    # look-alike: the same function tag on a line of its own routes nothing by itself
    ws, d = diagnose(tmp_path / "b", {"infer.log": head.format("206.120", "model_converter.cc:200",
                                                               "operator()] Save buffer failed.")})
    assert d.category != "operator"


def test_a_null_pointer_check_relays_what_failed_to_create_it(tmp_path):
    log = ("[CRITICAL] DEVICE(16,ffff,python):2026-03-11-10:00:52.033.238 [kernel_runtime.cc:124] LockRuntime] "
           "The pointer[stream] is null.\n"
           "RuntimeError: Ascend kernel runtime initialization failed. The details refer to 'Ascend Error Message'.\n"
           "- Framework Error Message:\n"
           "Malloc device memory failed, free memory size is less than half of total memory size.\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "Malloc device memory failed" in anchor_text(ws, d)
    assert d.category == "memory"
    # look-alike: a pointer reported null with nothing else is still shown
    ws, d = diagnose(tmp_path / "b", {"train.log": log.splitlines(True)[0]})
    assert "The pointer[stream] is null" in anchor_text(ws, d)


def test_set_up_that_a_leftover_process_or_a_missing_driver_library_blocks_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"a.log": "RuntimeError: Failed to register node 4. Reason: Repeated registration. "
                                "Please check if there's another scheduler process with port:2222 still running.\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "d", {"c.log": "[ERROR] 2026/03/11 10:00:04.458 1 devmanager.go:83 deviceManager "
                                      "init failed, err: cannot found valid driver lib, check uid or mode failed\n"})
    assert d.category == "environment"
    # look-alike: another rank's process failing is no leftover holding a port
    ws, d = diagnose(tmp_path / "b", {"a.log": "RuntimeError: another rank process reported aclnnMatmul failed, "
                                      "error code is 561103\n"})
    assert d.category == "operator"


def test_the_profiling_tools_codes_are_their_settings(tmp_path):
    log = ("[ERROR] PROFILER(13,ffff,python):2026-03-11-10:00:56.741.053 [profiling.cc:51] ReportErrorMessage] "
           "Ascend error occurred, error message:\n"
           "EK0001: Path [/data/prof_中文] for [profilerResultPath] is invalid or does not exist.\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "EK0001" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the profiler short of host memory is memory
    ws, d = diagnose(tmp_path / "b", {"train.log": "EK0201: Failed to allocate 64MB host memory for Profiling.\n"})
    assert d.category == "memory"


def test_an_assertion_in_the_operator_plugin_is_the_operators(tmp_path):
    log = ('RuntimeError: t == c10::DeviceType::PrivateUse1 INTERNAL ASSERT FAILED at "third_party/op-plugin/'
           'op_plugin/ops/opapi/AddKernelNpuOpApi.cpp":26, please report a bug to PyTorch. DeviceType must be NPU.\n'
           "[ERROR] 2026-03-11-10:00:48 (PID:70, Device:0, RankID:-1) ERR00001 PTA invalid parameter\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert d.category == "operator"
    # look-alike: an assertion in the framework's own code names no operator
    ws, d = diagnose(tmp_path / "b", {"run.log": log.replace("third_party/op-plugin/op_plugin/ops/opapi/"
                                                             "AddKernelNpuOpApi.cpp", "torch/csrc/autograd/engine.cpp")})
    assert d.category != "operator"


def test_a_go_subprocess_exit_status_relays_the_failure(tmp_path):
    log = ("2026/03/11 10:00:04 command exec failed, &exec.ExitError{ProcessState:(*os.ProcessState)(0x40), "
           "Stderr:[]uint8(nil)}\n"
           "[ERROR]    2026/03/11 10:00:04.458386 1  devmanager.go:83  deviceManager init failed, prepare dcmi "
           "failed, err: dcmi init failed\n")
    ws, d = diagnose(tmp_path, {"exporter.log": log})
    assert "deviceManager init failed" in anchor_text(ws, d)
    # look-alike: an exec failure with nothing after it is shown
    ws, d = diagnose(tmp_path / "b", {"exporter.log": log.splitlines(True)[0]})
    assert "command exec failed" in anchor_text(ws, d)


def test_the_kernel_compilers_own_error_explains_the_build_report(tmp_path):
    log = ("[ERROR] KERNEL(10,fffe,python):2026-03-11-10:00:53.881.210 [tbe_kernel_parallel_build.cc:99] "
           "TbeOpParallelBuild] task compile Failed, task id:3, cause:TBEException:ERROR:\n"
           "Traceback (most recent call last):\n"
           '  File "/te/fusion_manager.py", line 1258, in build_single_op\n'
           "    compile_info = call_op()\n"
           "tvm._ffi.base.TVMError: Traceback (most recent call last):\n"
           "  [bt] (0) /lib64/libtvm.so(tvm_dmlc::LogMessageFatal::~LogMessageFatal()+0x4c) [0xffff9ff6602c]\n"
           "TVMError: [EB0000] Check failed: need_nbits <= info->max_num_bits : data_ub exceed bound of memory\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "[EB0000] Check failed" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: the build report alone is still shown
    ws, d = diagnose(tmp_path / "b", {"train.log": log.splitlines(True)[0]})
    assert "task compile Failed" in anchor_text(ws, d)


def test_the_vector_error_managers_input_check_is_the_operators(tmp_path):
    log = ("RuntimeError: ({'errCode': 'E80000', 'op_name': 'strided_slice_grad_d', 'param_name': 'strides[0]'}, "
           "'In op[strided_slice_grad_d], the parameter[strides[0]] should be 1, but actually is [2].')\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert d.category == "operator"
    # look-alike: E8 of the operator package's configuration stays the environment's
    ws, d = diagnose(tmp_path / "b", {"train.log": "E80001: The soc information is missing in the binary "
                                      "configuration file of OPP package.\n"})
    assert d.category == "environment"


def test_a_library_out_of_static_tls_is_a_loader_failure(tmp_path):
    log = ("RuntimeError: Failed to import transformers.data because of the following error (look up to see its "
           "traceback):\n"
           "/usr/lib/python3/site-packages/scikit_learn.libs/libgomp-947d.so.1.0.0: cannot allocate memory in "
           "static TLS block\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "static TLS block" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a device allocation that cannot get memory is memory
    ws, d = diagnose(tmp_path / "b", {"train.log": "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"})
    assert d.category == "memory"


def test_a_failed_check_on_the_graph_build_api_is_the_compile(tmp_path):
    log = ("[F  3/11 10:00:16.910 ...driver/utility.cc:221 BuildOMModelToBuffer] Check failed: "
           "(reinterpret_cast<ge::graphStatus>(aclgrphBuildModel(ir_graph, options, om_buffer)) == "
           "ge::GRAPH_SUCCESS): 1343266818!==0 1343266818 Unknown error code(1343266818)\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert d.category == "compile"
    # look-alike: a check on the device set-up call is not the compile
    ws, d = diagnose(tmp_path / "b", {"run.log": log.replace("aclgrphBuildModel(ir_graph, options, om_buffer)",
                                                             "aclrtSetDevice(device_id)")})
    assert d.category != "compile"


def test_the_line_hccls_call_trace_follows_is_the_failing_report(tmp_path):
    """HCCL prints `call trace: hcclRet -> N` after the statement that failed has reported itself;
    a copy without the plog headers leaves that report with no error word of its own."""
    log = ("[OpRetryConnection][RecvAckTag] Recv unmatched ack  [1381] expect [64]\n"
           "call trace: hcclRet -> 4\n"
           "[OpRetryConnection][Init] Connect to server failed, serverPort [60000]\n"
           "call trace: hcclRet -> 4\n")
    ws, d = diagnose(tmp_path, {"hccl.log": log})
    assert "Recv unmatched ack" in anchor_text(ws, d)
    # look-alike: a plain line above a trace that reports success is no failure
    ws, d = diagnose(tmp_path / "b", {"hccl.log": "[OpRetryConnection][Init] connected to server\n"
                                      "call trace: hcclRet -> 0\n"
                                      "[Init] Connect to server failed, serverPort [60000]\n"})
    assert "Connect to server failed" in anchor_text(ws, d)


def test_an_ai_cpu_task_that_timed_out_is_a_hung_kernel_of_this_device(tmp_path):
    log = ("[ERROR] RUNTIME(16)kernel task happen error, retCode=0x28, [aicpu timeout].\n"
           "[ERROR] RUNTIME(16)aicpu kernel execute failed, device_id=0, stream_id=512, task_id=24.\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "aicpu timeout" in anchor_text(ws, d)
    assert d.category == "device"
    assert d.anchor.kind == "device_exc"  # a fault of its own, not a victim's wait (G8)
    # look-alike: a collective that timed out waiting stays a communication wait
    ws, d = diagnose(tmp_path / "b", {"train.log": "EI0002: The wait execution of the Notify register times out.\n"})
    assert d.category == "communication"


def test_the_consoles_own_process_wins_over_another_processs_plog(tmp_path):
    """A console without stamps cannot be ordered against a plog; when it names its one process
    and the plog is another's, what the job printed is its failure."""
    plog = ("[ERROR] RUNTIME(12731,python3):2026-03-11-10:00:56.475.679 [npu_driver.cc:1408]12828 "
            "MemCopySync:drvMemcpy failed: size=1240, kind=1, drvRetCode=17!\n")
    console = ("[ERROR] RUNTIME(160809)kernel task happen error, retCode=0x28, [aicpu timeout].\n"
               "RuntimeError: npuSynchronizeDevice: NPU error, error code is 507011\n")
    ws, d = diagnose(tmp_path, {"plog/plog-12731_20260311100000000.log": plog, "train.log": console})
    assert "aicpu timeout" in anchor_text(ws, d)
    # look-alike: the plog of the console's own process keeps its earlier, stamped error
    ws, d = diagnose(tmp_path / "b", {"plog/plog-160809_20260311100000000.log": plog.replace("12731", "160809"),
                                      "train.log": console})
    assert "drvMemcpy failed" in anchor_text(ws, d)
    # a launcher's rank prefix on that one process's console changes nothing
    ranked = "".join("[rank3]:" + ln for ln in console.splitlines(True))
    ws, d = diagnose(tmp_path / "r", {"plog/plog-12731_20260311100000000.log": plog, "train.log": ranked})
    assert "aicpu timeout" in anchor_text(ws, d)


def test_an_exception_that_only_names_a_status_relays_the_failure(tmp_path):
    log = "[ERROR] load model from file failed, model file is model_bs1.om\nRuntimeError:[1][ACL:invalid parameter]\n"
    ws, d = diagnose(tmp_path, {"bench.log": log})
    assert "load model from file failed" in anchor_text(ws, d)
    # look-alike: an exception with words of its own after the status is read as before
    ws, d = diagnose(tmp_path / "b", {"bench.log": "[INFO] loading\nRuntimeError: [1][ACL:invalid parameter] the "
                                      "model file model_bs1.om cannot be parsed\n"})
    assert "cannot be parsed" in anchor_text(ws, d)


def test_a_kernel_missing_for_a_dtype_is_the_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "RuntimeError: \"lerp_kernel_scalar\" not implemented for 'Half'\n"})
    assert d.category == "operator"
    # look-alike: a feature not implemented is nobody's kernel
    ws, d = diagnose(tmp_path / "b", {"train.log": "NotImplementedError: resuming is not implemented for 'ddp'\n"})
    assert d.category != "operator"


def test_files_the_user_may_not_use_are_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"tool.log": "2026-03-11 09:24:29,190 ERROR : load opp data failed, err: [ERROR] The "
                                "input path may be insecure because it does not belong to you.\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "p", {"tool.log": "PermissionError: [Errno 13] Permission denied: '/dev/davinci0'\n"})
    assert d.category == "environment"
    # look-alike: a path named in an operator's error is no permission problem
    ws, d = diagnose(tmp_path / "b", {"tool.log": "RuntimeError: call aclnnAdd failed, error code is 561103, "
                                      "path /tmp/x\n"})
    assert d.category == "operator"


def test_an_exception_raised_before_the_error_managers_step_report_is_its_reason(tmp_path):
    block = ("EH9999: Inner Error!\n"
             "EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"
             "        TraceBack (most recent call last):\n"
             "        build op model failed, result = 500001[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n")
    ws, d = diagnose(tmp_path, {"run.log": "AssertionError: daemonic processes are not allowed to have children\n"
                                + block})
    assert "daemonic processes" in anchor_text(ws, d)
    # look-alike: without an exception above it the step report is the most specific line left
    ws, d = diagnose(tmp_path / "b", {"run.log": block})
    assert "init env failed" in anchor_text(ws, d)


def test_hccls_older_call_trace_form_relays_too(tmp_path):
    head = "[ERROR] HCCL(17,python):2026-03-11-10:02:29.001.{} [{}][hccl-17-0-1-hccl_world_group][0]{}\n"
    log = (head.format("054", "network_manager.cc:64", "call trace: ret -> 7")
           + head.format("104", "hccl_comm.cc:100", "[HcclComm][Init]hccl initialize failed, rankNum[8], rank[0]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-17_20260311100000000.log": log})
    assert "hccl initialize failed" in anchor_text(ws, d)
    # look-alike: a trace line that reports success is no relay of a failure
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-17_20260311100000000.log":
                                      head.format("054", "network_manager.cc:64", "ret code -> 7, socket closed")})
    assert "socket closed" in anchor_text(ws, d)


def test_the_pcie_bar_pools_probe_is_not_the_failure(tmp_path):
    head = "[ERROR] {}(10,msame):2026-03-11-15:09:4{}.{} [{}]10 {}\n"
    probe = (head.format("DRV", 5, "659.913", "devmm", "[drv][devmm][_devmm_mem_remote_map 1888]<errno:22, 8> "
                         "Mem_remote_map ioctl error. (size=4194304; devid=0; ret=8)")
             + head.format("RUNTIME", 5, "659.990", "h2d_copy_mgr.cc:360", "MallocPcieBarBuffer:Pcie Host Register "
                           "failed, retCode=0x7020010, size=4194304(Byte), dev_id=0.")
             + head.format("RUNTIME", 5, "659.998", "buffer_allocator.cc:52", "BufferAllocator:allocFunc failed, "
                           "init count=1024"))
    fault = head.format("RUNTIME", 6, "643.861", "hwts_engine.cc:123", "ReportExceptProc:[EXEC][DEFAULT]Real task "
                        "exception! device_id=0, stream_id=5, task_id=2, task_type=0 (KERNEL_AICORE)")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-10_20260311100000000.log": probe + fault})
    assert "Real task exception" in anchor_text(ws, d)
    assert d.category == "device"
    # look-alike: a remote-map failure with no PCIe-BAR pool after it stays an error
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-10_20260311100000000.log": probe.splitlines(True)[0] + fault})
    assert "Mem_remote_map" in anchor_text(ws, d)


def test_out_of_notify_resources_is_the_runtimes_streams_and_events(tmp_path):
    log = ("[ERROR] RUNTIME(95,app):2026-07-16-19:24:34.804.811 [api_impl.cc:4631]95 NotifyCreate:Alloc Notify "
           "resource failed. Reason: Too many Notify objects are created.\n"
           "[ERROR] RUNTIME(95,app):2026-07-16-19:24:34.804.900 [api_c.cc:1]95 rtNotifyCreateWithFlag:ErrCode=207009, "
           "desc=[notify resource not enough]\n")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-95_20260716192434000.log": log})
    assert d.category == "stream_event"
    # look-alike: a notify wait on a peer stays a collective's
    ws, d = diagnose(tmp_path / "b", {"run.log": "EI0002: The wait execution of the Notify register times out.\n"})
    assert d.category == "communication"


def test_the_detail_says_more_than_the_graph_engines_generic_status(tmp_path):
    block = ("RuntimeError: The Inner error is reported as above. error code is 500002\n"
             "EZ3003: No supported Ops kernel and engine are found for [MaxPoolGrad18], optype [MaxPoolGrad].\n")
    ws, d = diagnose(tmp_path, {"run.log": block})
    assert d.category == "environment"  # EZ3003: no kernel installed for it
    ws, d = diagnose(tmp_path / "t", {"run.log": "E89999: [PID: 4] 2026-03-11-15:35:08.619.694 op[GridSampler3D75], "
                                      "runParams is null.[FUNC:Tiling4GridSampler3D][FILE:grid.cc][LINE:157]\n"
                                      "RuntimeError: error code is 500002\n"})
    assert d.category == "operator"  # the operator's tiling
    # look-alike: the generic status alone is still the graph engine's
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: build graph failed, error code is 500002\n"})
    assert d.category == "compile"


def test_hccls_status_chain_lines_relay_the_failure(tmp_path):
    head = "[ERROR] HCCL(17,python):2026-03-11-10:02:29.001.{} [{}][hccl-17-0-1-hccl_world_group][0]{}\n"
    log = (head.format("104", "hccl_comm.cc:100", "[HcclComm][Init]errNo[0x0000000005000007] hccl initialize failed")
           + head.format("116", "hcom.cc:80", "[Init][Result]errNo[0x0000000005010007] hcclComm init error")
           + head.format("129", "hcom.cc:94", "[Init][Result]hcom init failed, rankNum[8], rank[0], device[0]"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-17_20260311100000000.log": log})
    assert "hcom init failed, rankNum[8]" in anchor_text(ws, d)
    # look-alike: an errNo line that says what went wrong is a failure of its own
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-17_20260311100000000.log": head.format(
        "104", "transport.cc:9", "errNo[0x0000000005000007] transport init failed, ip[10.0.0.2] port[60001] refused")})
    assert "transport init failed" in anchor_text(ws, d)


def test_the_exception_a_traceback_ends_with_is_read_whatever_its_words(tmp_path):
    log = ("Traceback (most recent call last):\n"
           '  File "tools/train.py", line 177, in <module>\n'
           "    main()\n"
           '  File "mmdet/apis/train.py", line 61, in train_step\n'
           "    losses = self(**data)\n"
           "StopIteration\n")
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert anchor_text(ws, d).strip() == "StopIteration"
    # look-alike: a plain line after a finished traceback's exception is no second exception
    ws, d = diagnose(tmp_path / "b", {"train.log": log.replace("StopIteration", "KeyError: 'loss'") + "Done\n"})
    assert "KeyError" in anchor_text(ws, d)


def test_a_script_that_runs_no_command_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"build.log": "ci/build.sh: line 2: $'\\r': command not found\n"
                                "ci/build.sh: line 8: syntax error near unexpected token\n"})
    assert "command not found" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a script that says a file was not found is no missing command
    ws, d = diagnose(tmp_path / "b", {"build.log": "ci/build.sh: line 2: checking data.bin failed\n"})
    assert d.category != "environment"


def test_what_dynamo_cannot_trace_is_the_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "torch._dynamo.exc.Unsupported: unsupported operator: npu.custom.default "
                                "(see the docs for how to fix)\n"})
    assert "unsupported operator" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: an unsupported setting of the serving engine is no Dynamo failure
    ws, d = diagnose(tmp_path / "b", {"run.log": "ValueError: unsupported quantization: awq_marlin\n"})
    assert d.category != "compile"


def test_parts_of_different_releases_are_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "E19999 The opp version of the model does not match the current opp run "
                                "package, Model is [6.4.T11], opp run package is [7.0.T3]\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "c", {"build.log": "CMake Error at third_party/libuv/CMakeLists.txt:1 "
                                      "(cmake_minimum_required):\n"
                                      "  Compatibility with CMake < 3.5 has been removed from CMake.\n"})
    assert d.category == "environment"
    # look-alike: shapes that do not match are the operator's
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: call aclnnAdd failed, error code is 561103: the "
                                      "shapes of the inputs do not match\n"})
    assert d.category == "operator"


def test_a_step_that_failed_gives_way_to_the_error_managers_reason(tmp_path):
    """HCCL reports that its init failed with nothing but a status; MindSpore prints the error
    manager's message with its reason a millisecond later in the same process."""
    plog = ("[ERROR] HCCL(17,python):2026-03-11-03:02:29.001.129 [hcom.cc:94][hccl-17-0-1-hccl_world_group][0]"
            "[Init][Result]hcom init failed, rankNum[8], rank[0], device[0], return[83951623]\n")
    reason = ("[CRITICAL] DEVICE(17,ffff,python):2026-03-11-03:02:29.002.576 [ascend_collective_comm_lib.cc:112] "
              "Initialize] Ascend collective communication initialization failed.Ascend Error Message:EJ0001: Failed "
              "to initialize the HCCP process. Reason: Maybe the last training process is running.\n")
    ws, d = diagnose(tmp_path, {"train.log": plog + reason})
    assert "EJ0001" in anchor_text(ws, d)
    assert d.category == "environment"  # EJ0001: the HCCP process could not start (a leftover job)
    # look-alike: a message printed long after (another failure) does not explain the step
    late = reason.replace("03:02:29.002.576", "03:09:40.002.576")
    ws, d = diagnose(tmp_path / "b", {"train.log": plog + late})
    assert "hcom init failed" in anchor_text(ws, d)


def test_a_failure_inside_atcs_own_process_is_the_conversion(tmp_path):
    log = ("ATC start working now, please wait for a moment.\n"
           "[ERROR][ProcessScale][52] Not support scale greater than 1 / FLT_EPSILON.\n"
           "[ERROR] AMCT(14815,atc.bin):2026-03-11-12:23:19[weight_calibration_pass.cpp:90]Fail to execute "
           "WeightFakeQuant without trans!\n")
    ws, d = diagnose(tmp_path, {"atc.log": log})
    assert "Not support scale" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: the same quantizer inside a training process is no model conversion
    ws, d = diagnose(tmp_path / "b", {"train.log": log.replace("atc.bin", "python3").replace(
        "ATC start working now, please wait for a moment.\n", "")})
    assert d.category != "compile"


_VICTIM_RANK7 = (
    "[rank7]: Traceback (most recent call last):\n"
    "[rank7]:   File \"/workspace/train.py\", line 212, in <module>\n"
    "[rank7]:     torch.npu.synchronize()\n"
    "[rank7]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function "
    "error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n"
    "[rank7]: [ERROR] 2026-03-11-10:40:07 (PID:51234, Device:7, RankID:7) ERR00100 PTA call acl api failed\n"
    "[rank7]: EI0002: [PID: 51234] 2026-03-11-10:40:01.123.456 The wait execution of the Notify register times out. "
    "Reason: The Notify register has not received the Notify record from remote rank [3].base information: "
    "[streamID:[9], taskID[21], taskType[Notify Wait], tag[AllReduce_10.0.0.1%eth0_60000_0_1]]\n")


def test_an_error_of_another_rank_before_a_timeout_is_the_anchor(tmp_path):
    """Rank 3 logs its failure (no CANN code, an untyped ERROR line); rank 7 times out waiting on
    it ten minutes later. The healthy rank's timeout is the victim, whatever its code."""
    rank3 = ("[rank3]: 2026-03-11 10:30:00,120 - ERROR - loader.py:88 - shard 5 of the checkpoint is truncated: "
             "expected 4194304 bytes, read 1048576\n")
    ws, d = diagnose(tmp_path, {"rank3.log": rank3, "rank7.log": _VICTIM_RANK7})
    assert "shard 5 of the checkpoint is truncated" in anchor_text(ws, d)
    # a call's failure relayed by another process counts the same
    relay = "subprocess.CalledProcessError: Command '['npu-smi', 'info']' returned non-zero exit status 215.\n"
    ws, d = diagnose(tmp_path / "b", {"prep.log": relay, "rank7.log": _VICTIM_RANK7.replace("[rank7]: ", "")})
    assert "CalledProcessError" in anchor_text(ws, d)


def test_the_header_of_a_timeouts_own_report_is_not_the_anchor(tmp_path):
    """A logger prints 'Rank[7] failed.' and then the traceback that ends in the timeout: the
    header belongs to the timeout's report, in the same process."""
    own = "[rank7]: 2026-03-11 10:40:00,010 - ERROR - model_agent.py:489 - Rank[7] failed.\n" + _VICTIM_RANK7
    ws, d = diagnose(tmp_path, {"rank7.log": own})
    assert "EI0002" in anchor_text(ws, d)
    assert d.category == "communication"


def test_the_hosts_own_limit_is_the_cause_whatever_tool_prints_it(tmp_path):
    """A packing step fails: makeself and CMake say so first, tar's reason comes last and
    carries no error word (the C library's ENAMETOOLONG in tar's words)."""
    log = ("ERROR: failed to create temporary archive: /tmp/mkself4242.tar\n"
           "CMake Error at cmake/makeself.cmake:12 (message):\n"
           "  CPack Command error: 1\n"
           "\n"
           "  tar:\n"
           "  ./packages/vendors/a_very_long_vendor_name/op_impl/ai_core/tbe/a_very_long_vendor_name_impl\n"
           "  file name is too long (max 256); not dumped\n")
    ws, d = diagnose(tmp_path, {"build.log": log})
    assert "file name is too long" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"save.log": "cp: error writing '/ckpt/model.safetensors': No space left on "
                                      "device\n"})
    assert d.category == "environment"
    # look-alike: a model's input that is too long is the request, not the host
    ws, d = diagnose(tmp_path / "c", {"serve.log": "ValueError: The decoder prompt (length 40961) is longer than the "
                                      "maximum model length of 40960. Make sure that `max_model_len` is no smaller "
                                      "than the number of text tokens.\n"})
    assert d.category != "environment"


def test_a_shell_in_a_chinese_locale_that_finds_no_command(tmp_path):
    log = ("bash: orted: 未找到命令\n"
           "--------------------------------------------------------------------------\n"
           "A daemon (pid 8793) died unexpectedly with status 127 while attempting\n"
           "to launch so we are aborting.\n")
    ws, d = diagnose(tmp_path, {"mpirun.log": log})
    assert "未找到命令" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the same words inside a program's own message name no missing command
    ws, d = diagnose(tmp_path / "b", {"run.log": "提示: 未找到命令行参数 --config, 使用默认值\n"})
    assert d.anchor is None


def test_mpis_error_stack_names_its_cause_in_the_deepest_frame(tmp_path):
    log = ("Fatal error in MPI_Init: Other MPI error, error stack:\n"
           "MPIR_Init_thread(474)...................:\n"
           "MPID_Init(190)..........................: channel initialization failed\n"
           "MPIDI_CH3_Init(89)......................:\n"
           "MPID_nem_tcp_init(379)..................: gethostbyname failed, node-7 (errno 2)\n")
    ws, d = diagnose(tmp_path, {"hccl_test.log": log})
    assert "gethostbyname failed" in anchor_text(ws, d)
    assert d.category == "environment"  # the host's name resolution (/etc/hosts)
    # look-alike: two failures of that shape far apart are two reports, the first stays first
    far = "MPID_Init(190)....: channel initialization failed\n" + "step done\n" * 20 + \
          "MPID_nem_tcp_init(379)....: socket closed\n"
    ws, d = diagnose(tmp_path / "b", {"run.log": far})
    assert "channel initialization failed" in anchor_text(ws, d)


def test_a_test_tools_call_status_is_the_error_and_its_note_of_where_wraps_it(tmp_path):
    log = ("the minbytes is 8192, maxbytes is 2147483648, iters is 20, warmup_iters is 5\n"
           "hccl interface return err ./common/src/hccl_test_common.cc:538, retcode: 7 \n"
           "This is an error in init_hcclComm.\n")
    ws, d = diagnose(tmp_path, {"hccl_test.log": log})
    assert "return err" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: a note of where an error happened, with nothing else, is still the only error
    ws, d = diagnose(tmp_path / "b", {"run.log": "This is an error in init_hcclComm.\n"})
    assert d.anchor is not None


def test_hccls_list_of_possible_reasons_is_advice_and_its_table_row_names_the_peer(tmp_path):
    rows = ["_________________________LINK_ERROR_INFO___________________________",
            "| comm error, device[0] num[1]",
            "| dest_ip(rank_id) | src_ip(rank_id) | Role | Status |",
            "|--------------------|--------------------|----------|------------|",
            "| 10.0.0.2(1) | 10.0.0.1(0) | server | no connect |",
            "___________________________________________________________________",
            "the connection failure between this device and target device may be due to the following reasons:",
            "1. the connection between this device and the target device is abnormal.",
            "2. an exception occurred at the target devices."]
    text = "".join(plog("ERROR", "HCCL", 23, f"08:41:56.291.{700 + i}", f"[comm_base.cc:{967 + i}][23468]{r}")
                   for i, r in enumerate(rows))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-23_20260311084156000.log": text})
    assert "no connect" in anchor_text(ws, d)
    # look-alike: an error of its own before the table is still the anchor
    first = plog("ERROR", "HCCP", 23, "08:39:56.291.100", "[ra_host.c:1672]tid:23468,ra_socket_init(1672) : "
                 "socket listen failed, ret(-98)")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-23_20260311084156000.log": first + text})
    assert "socket listen failed" in anchor_text(ws, d)


def test_the_host_tsd_client_passes_on_what_the_device_log_explains(tmp_path):
    host = (plog("ERROR", "TDT", 685, "11:55:41.334.702", "[process_mode_manager.cpp:587][DeviceMsgProcess]"
                 "[tid:685] [TsdClient] DeviceMsgProc  errcode[EJ0001]")
            + plog("ERROR", "TDT", 685, "11:55:41.334.873", "[process_mode_manager.cpp:269][WaitRsp][tid:685] "
                   "tsd client wait response fail, device response code[1]. unknown device error.")
            + plog("ERROR", "TDT", 685, "11:55:41.334.897", "[tsd_client.cpp:31][TsdOpen][tid:685] TsdOpen "
                   "failed, deviceId[4]."))
    device = (plog("ERROR", "HCCP", 137, "11:55:41.806.183", "[ra_adp.c:1425]tid:137,ra_hdc_server_init(1425) : "
                   "Create Server failed, ret(61)").replace("python", "hccp_service.bin")
              + plog("ERROR", "HCCP", 137, "11:55:41.806.265", "[main.c:224]tid:137,main(224) : hccp init "
                     "error[-22]").replace("python", "hccp_service.bin"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-685_20260311115541000.log": host,
                                "debug/device-4/device-137_20260311115541000.log": device})
    assert "Create Server failed" in anchor_text(ws, d)
    # look-alike: without the device's log the host's own report is all there is
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-685_20260311115541000.log": host})
    assert "EJ0001" in anchor_text(ws, d)


def test_a_signed_message_without_a_stamp_is_the_detail_and_a_parameter_named_timeout_is_none(tmp_path):
    log = ("[CLIENT INFO] RegisterMem success\n"
           "[CLIENT ERROR] Connect failed, ret = 103900, err_msg: E19999: Inner Error!\n"
           "E19999[PID: 1340518]:  timeout_in_millis:0 must > 0[FUNC:Connect][FILE:hixl_impl.cc][LINE:235]\n")
    ws, d = diagnose(tmp_path, {"client.log": log})
    assert "must > 0" in anchor_text(ws, d)
    assert d.anchor.kind != "timeout"
    # look-alike: a code and a PID without the error manager's source tail is no message of its
    ws, d = diagnose(tmp_path / "b", {"client.log": "E19999[PID: 1340518]: see above\n"})
    assert d.anchor is None or d.anchor.kind != "cann_detail"


def test_the_runtimes_note_of_the_code_it_reports_is_no_message(tmp_path):
    """Plog lines pasted from a web page whose stamps lost a colon (`19:2856.519`): no header is
    recognised, and the note naming the code must still not be read as the message."""
    text = (plog("ERROR", "RUNTIME", 29, "19:2856.519.792", "[api_error.cc:963]291 MemcpyAsyncCheckKindAndLocation:"
                 "[EXEC][EXEC]report error module_name=EE1001")
            + plog("ERROR", "RUNTIME", 29, "19:2856.519.799", "[api_error.cc:963]291 MemcpyAsyncCheckKindAndLocation:"
                   "[EXEC][EXEC]Memory async failed, src loc type=2, dst loc type=2, kind=1 is invalid!"))
    ws, d = diagnose(tmp_path, {"page.log": text})
    assert "kind=1 is invalid" in anchor_text(ws, d)
    # look-alike: a message that names a module because it failed is a message
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-29_20260311192856000.log": plog(
        "ERROR", "RUNTIME", 29, "19:28:56.519.792", "[api.cc:9]291 Init: load module_name=libascend_hal failed")})
    assert "load module_name" in anchor_text(ws, d)


def test_relays_of_a_service_and_a_graph_op_give_way_to_what_they_carry(tmp_path):
    log = ("Allocate failed due to rpc error: code = Unknown desc = apply device-share for pod\n"
           "infer-0:\n"
           "npu-smi set device-share -i 1 -c 0 -d 1: npu-smi not found in\n"
           "[/usr/local/Ascend/driver/tools/npu-smi /usr/local/bin/npu-smi]\n")
    ws, d = diagnose(tmp_path, {"kubelet.log": log})
    assert "npu-smi not found" in anchor_text(ws, d)
    assert d.category == "environment"
    tf = ("[2020-11-27 11:26:53.638664: F tf_adapter/kernels/geop_npu.cc:669] GeOp33_0GEOP::::DoRunAsync Failed\n"
          "[ERROR] RUNTIME(62299)model execute error, retCode=0x91, [the model stream execute failed].\n")
    ws, d = diagnose(tmp_path / "b", {"train.log": tf})
    assert "model execute error" in anchor_text(ws, d)
    # look-alike: a key not found in a table is no missing tool
    ws, d = diagnose(tmp_path / "c", {"run.log": "KeyError: 'npu' not found in the registry\n"})
    assert d.category != "environment"


def test_stages_and_resources_named_by_older_and_newer_tools(tmp_path):
    omg = ('[ERROR] FMK:2019-06-21-06:05:57.729.503 GetOutputDesc:framework/domi/omg/../omg/model/op_builder/'
           'concat_op_builder.cpp:181:"all input must have the same dim value except concat_axis"\n')
    ws, d = diagnose(tmp_path, {"omg.log": omg})
    assert d.category == "compile"  # the offline model generator, before ATC
    alloc = "[ERROR] RUNTIME:2019-09-12-04:53:55.522.058 69671 runtime/feature/src/logger.cc:240 DevMalloc:dev memory " \
            "alloc error, errno = 2\n"
    ws, d = diagnose(tmp_path / "b", {"omg.log": alloc})
    assert d.category == "memory"
    cmake = ("CMake Error at cmake/dependencies.cmake:36 (message):\n"
             "  Failed to extract the CANN version, please set the correct\n")
    ws, d = diagnose(tmp_path / "c", {"build.log": cmake})
    assert d.category == "environment"
    clang = ("error: stack frame size (47928) exceeds limit (32768) in function 'kernel_0'\n"
             "1 error generated.\n")
    ws, d = diagnose(tmp_path / "d", {"build.log": clang})
    assert d.category == "compile"
    passes = ("2025-12-18 10:33:06.107 E | [ExpandFunction][Function][ERROR]: ExpandFunction failed: Tile shape "
              "size 1 is not matched the output shape size 2.\n"
              "2025-12-18 10:33:06.107 E | Run pass [ExpandFunction] failed.\n")
    ws, d = diagnose(tmp_path / "e", {"run.log": passes})
    assert "Tile shape size" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: a line at E under that logger is an error even in the present tense
    ws, d = diagnose(tmp_path / "f", {"run.log": "2025-12-17 14:31:32.491 I | device id 0\n"
                                      "2025-12-17 14:31:32.491 E | fail get device id, check if set device id\n"})
    assert "fail get device id" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "g", {"run.log": "2025-12-17 14:31:32.491 I | fail over to the second queue\n"})
    assert d.anchor is None


def test_onnx_runtimes_cann_status_is_the_failed_calls(tmp_path):
    log = ("2025-08-30 03:30:44.189484484 [E:onnxruntime:Default, provider_bridge_ort.cc:2279 TryGetProviderInfo_CANN] "
           "/src/onnxruntime/core/providers/cann/cann_call.cc:143 bool onnxruntime::CannCall(ERRTYPE, const char*) "
           "[with ERRTYPE = int; bool THRW = true]\n"
           "/src/onnxruntime/core/providers/cann/cann_call.cc:137 bool onnxruntime::CannCall(ERRTYPE, const char*) "
           "[with ERRTYPE = int; bool THRW = true] CANN failure 100002: ACL_ERROR_REPEAT_INITIALIZE ; NPU=0 ; \n")
    ws, d = diagnose(tmp_path, {"ort.log": log})
    assert "CANN failure 100002" in anchor_text(ws, d)
    assert d.category == "environment"  # ACL set up twice in one process
    # look-alike: a failure counted in a summary is no CANN call's status
    ws, d = diagnose(tmp_path / "b", {"ort.log": "test summary: CANN failure 3 of 120 cases\n"})
    assert d.anchor is None


def test_installers_refuse_links_and_tools_too_old_and_devices_held_elsewhere(tmp_path):
    ws, d = diagnose(tmp_path, {"install.log": "[INFO] platform(aarch64) matched!\n"
                                "[ERROR] /etc/os-release is soft link\n"
                                "[ERROR] install failed, a200ia2 not support this os\n"})
    assert "soft link" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"build.log": '#error "You\'re trying to build PyTorch with a too old version of '
                                      'GCC. We need GCC 9 or later."\n'})
    assert "#error" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "c", {"exporter.log": "[ERROR]    2024/10/28 08:50:46.650662 10      devmanager/"
                                      "devmanager.go:91    deviceManager init failed, prepare dcmi failed, err: dcmi "
                                      "init failed, error code: -8005\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "d", {"debug/device-0/device-3720_20260311085226000.log": plog(
        "ERROR", "KERNEL", 3720, "08:52:26.632.632", "[klogd.c:246][3146.786343] [drv_vo][ERR][vo_open:433]:VO "
        "functions must work in the same pid!!!").replace("python", "sklogd")})
    assert d.category == "environment"
    # look-alike: a header comment that names the preprocessor directive is no error
    ws, d = diagnose(tmp_path / "e", {"build.log": "#errors are reported at the end of the build\n"})
    assert d.anchor is None


def test_a_release_mismatch_warning_explains_a_crash_that_follows_it_and_nothing_else(tmp_path):
    warn = ("[WARNING] ME(1049:2814,MainProcess):2026-03-11-12:23:11.112.000 [mindspore/run_check/_check_version.py:357] "
            "MindSpore version 2.3.1 and Ascend AI software package (Ascend Data Center Solution)version 7.5 does not "
            "match, the version of software package expect one of ['7.2', '7.3']\n")
    ws, d = diagnose(tmp_path, {"train.log": warn + "MindSpore version:  2.3.1\nSegmentation fault (core dumped)\n"})
    assert "does not match" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: an explicit error after the warning is what failed
    err = "RuntimeError: aclnnAdd failed, error code is 161002: the shapes of x1 and x2 cannot broadcast\n"
    ws, d = diagnose(tmp_path / "b", {"train.log": warn + err + "Segmentation fault (core dumped)\n"})
    assert "161002" in anchor_text(ws, d)


def test_the_device_logs_hccp_error_explains_the_hosts_relay_of_its_result(tmp_path):
    host = plog("ERROR", "HCCP", 2210, "10:04:09.261.464", "[ra_host.c:1390]tid:11543,ra_qp_create_with_attrs(1390) : "
                "[create][ra_qp_with_attrs]create qp fail, ret(-12) phy_id(0)")
    device = plog("ERROR", "ROCE", 23559, "10:04:10.520.362", "[hns_roce_u_buf.c:210]roce_init_mem_pool(210) : hns init "
                  "pool failed, hal_alloc_buf failed ret = -12").replace("python", "hccp_service.bin")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-2210_20260311100409000.log": host,
                                "debug/device-0/device-23559_20260311100410000.log": device})
    assert "hns init pool failed" in anchor_text(ws, d)
    assert d.category == "memory"  # -12 is ENOMEM
    # look-alike: a device error with another result explains nothing of the host's
    other = device.replace("ret = -12", "ret = -5")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-2210_20260311100409000.log": host,
                                      "debug/device-0/device-23559_20260311100410000.log": other})
    assert "create qp fail" in anchor_text(ws, d)


def test_runtime_stage_tags_and_kernel_block_prefixes_do_not_hide_a_shape(tmp_path):
    text = (plog("ERROR", "RUNTIME", 2082, "14:14:25.036.721", "[stars_engine.cc:1321]2082 ProcLogicCqReport:[INIT][DEFAULT]"
                 "Task run failed, device_id=0, stream_id=2, task_id=1, sqe_type=0(ffts), errType=0x1(task exception)")
            + plog("ERROR", "RUNTIME", 2082, "14:14:25.049.115", "[device_error_proc.cc:1218]2082 ProcessStarsCoreErrorInfo:"
                   "[INIT][DEFAULT]The error from device(chipId:3, dieId:0), serial number is 20, there is an aivec error "
                   "exception, core id is 4, error code = 0, dump info: pc start: 0x1240c0000000")
            + plog("ERROR", "RUNTIME", 2082, "14:14:25.049.519", "[stream.cc:3084]2082 EnterFailureAbort:[INIT][DEFAULT]"
                   "stream_id=2 enter failure abort."))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-2082_20260311141425000.log": text})
    assert "aivec error exception" in anchor_text(ws, d)
    log = ("[AIV Block 1/48] [ASSERT] /ops/index_check.h:130: void IndexCheckKernel<long>::ProcessScalar(uint64_t) "
           "[T = long]: Assertion `(idx < bound)' failed.\n"
           "The extend info: errcode:(0, 0, 0) errorStr: timeout or trap error. fixp_error0 info: 0x3bf761f, tslot:6\n")
    ws, d = diagnose(tmp_path / "b", {"run.log": log})
    assert "Assertion `(idx < bound)' failed" in anchor_text(ws, d)
    # look-alike: a bracketed tag before an assertion of the host's own code is no kernel's
    ws, d = diagnose(tmp_path / "c", {"run.log": "[Worker 1] [ASSERT] config.yaml: batch size must be set\n"})
    assert d.anchor is None or d.anchor.kind != "device_exc"


def test_deaths_noticed_by_workers_and_corruption_found_by_a_check(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "[ERROR] TBE Subprocess[task_distribute] raise error[], main process "
                                "disappeared!\n"})
    assert "main process disappeared" in anchor_text(ws, d)
    assert d.category == "unknown"  # a death without a code (most often the OOM killer)
    ddp = ("RuntimeError: DDP expects same model across all ranks, but Rank 0 has 174 params, while rank 1 has "
           "inconsistent 0 params.\n" + "  File \"train.py\", line 9, in <module>\n" * 3
           + "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!\n")
    ws, d = diagnose(tmp_path / "b", {"run.log": ddp})
    assert "DDP expects same model" in anchor_text(ws, d)
    assert d.category != "compile"  # the compile workers' notice of the death routes nothing
    gloo = ("[2026-04-07 13:24:13 TP0] Context corruption detected: Request 3b5d (bootstrap_room=745) received "
            "metadata from bootstrap_room=412. This indicates metadata buffer index collision.\n"
            "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
            " what():  [enforce fail at gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes. 4 vs 3\n"
            "Fatal Python error: Aborted\n")
    ws, d = diagnose(tmp_path / "c", {"decode.log": gloo})
    assert "Context corruption detected" in anchor_text(ws, d)
    # look-alike: a check that found no corruption is no error
    ws, d = diagnose(tmp_path / "d", {"run.log": "checkpoint verified: no corruption detected in 12 shards\n"})
    assert d.anchor is None


def test_categories_read_the_message_not_the_plog_header(tmp_path):
    check = plog("ERROR", "AICPU", 28880, "17:32:22.832.371", "[gatherv2.cc:157][GetInputAndCheck][tid:28891]Shape "
                 "must be at least rank [1] but is rank [0]").replace("python", "aicpu_scheduler")
    ws, d = diagnose(tmp_path, {"debug/device-0/device-28880_20260311173222000.log": check})
    assert d.category == "operator"  # an AI CPU kernel refused its input; the module only says who printed it
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: LinearOperation CreateOperation failed!\n"})
    assert d.category == "operator"  # an ATB operation
    shm = ("[2025-03-10 20:26:36.604+08:00] [324] [325] [mindie-server] [ERROR] [share_memory.cpp:172] : [MIE04E120407] "
           "[model_backend] Shared memory available is not enough on the filesystem.\n")
    ws, d = diagnose(tmp_path / "c", {"server.log": shm})
    assert d.category == "environment"  # the container's /dev/shm
    # look-alike: the AI CPU's own exception is the device's
    exc = plog("ERROR", "AICPU", 28880, "17:32:22.832.371", "[aicpu_sharder.cc:288][RunKernel][tid:4141] aicpu "
               "exception, kernel execute failed, ret 507018").replace("python", "aicpu_scheduler")
    ws, d = diagnose(tmp_path / "d", {"debug/device-0/device-28880_20260311173222000.log": exc})
    assert d.category != "operator"


def test_a_traceback_is_read_through_another_ranks_lines(tmp_path):
    lines = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
             "    var = next(v for v in var.values())", "StopIteration"]
    peer = "[rank1]: step 120/1000 loss=2.3141 lr=1.0e-04"
    log = "".join(f"[rank0]: {line}\n{peer}\n" for line in lines)
    ws, d = diagnose(tmp_path, {"train.log": log})
    assert "StopIteration" in anchor_text(ws, d)
    assert d.anchor.rank == 0


def test_a_timeout_gives_way_to_another_process_death_or_failed_link(tmp_path):
    death = "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!\n"
    ws, d = diagnose(tmp_path, {"worker3.log": death, "rank7.log": _VICTIM_RANK7.replace("[rank7]: ", "")})
    assert "main process disappeared" in anchor_text(ws, d)
    row = plog("ERROR", "HCCL", 23, "10:30:00.291.797", "[comm_base.cc:1018][23468] | 10.0.0.2(1) | 10.0.0.1(0) | "
               "server | no connect |")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-23_20260311103000000.log": row, "rank7.log": _VICTIM_RANK7})
    assert "no connect" in anchor_text(ws, d)
    # look-alike: a table row that states no failure gives no way
    ws, d = diagnose(tmp_path / "c", {"debug/plog/plog-23_20260311103000000.log": row.replace("no connect", "connected"),
                                      "rank7.log": _VICTIM_RANK7})
    assert "EI0002" in anchor_text(ws, d)


def test_a_block_is_read_through_a_terminals_colours(tmp_path):
    """Ray colours its prefix, and a file written from a terminal keeps the codes."""
    pre = "\x1b[36m(RayWorkerWrapper pid=91798, ip=10.0.0.2)\x1b[0m "
    lines = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
             "    var = next(v for v in var.values())", "StopIteration"]
    ws, d = diagnose(tmp_path, {"ray.log": "".join(pre + line + "\n" for line in lines)})
    assert "StopIteration" in anchor_text(ws, d)
    # look-alike: colours around an INFO line make no error of it
    ws, d = diagnose(tmp_path / "b", {"ray.log": pre + "\x1b[32mINFO\x1b[0m model loaded in 12.3 s\n"})
    assert d.anchor is None


def _earlier_run(day: str) -> str:
    return (f"{day} 14:04:09,120 - INFO - trainer.py:88 - start training, world size 8\n"
            "Traceback (most recent call last):\n"
            '  File "/workspace/train.py", line 212, in <module>\n'
            "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
            f"[ERROR] {day}-14:04:09 (PID:1111, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n")


def test_an_earlier_runs_failure_in_an_appended_log_is_stale(tmp_path):
    """`nohup … >> train.log`: yesterday's run failed on memory, today's on HCCL init, with only
    torch_npu's wrapper to show for it. Today's failure is the answer, and its category is not
    read from yesterday's lines."""
    today = ("(VllmWorker rank=0 pid=48) ERROR 03-11 17:09:23 [multiproc_executor.py:546] RuntimeError: create_config:"
             "torch_npu/csrc/distributed/HCCLUtils.cpp:148 HCCL function error: hcclCommInitRootInfoConfig(numRanks, "
             "&rootInfo, rank, config, &(comm->hcclComm_)), error code is 5\n")
    ws, d = diagnose(tmp_path, {"train.log": _earlier_run("2026-03-10") + today})
    assert "hcclCommInitRootInfoConfig" in anchor_text(ws, d)
    assert d.category == "communication"
    # a converter whose plog-style lines name its pid: the pid is the converter's, not yesterday's
    conv = ("[ERROR] LITE(475,ffff911bf010,converter_lite):2026-03-11-14:04:09.122.911 [mindspore/lite/tools/converter/"
            "parser/onnx/onnx_op_parser.cc:7529] Parse] pooling op not support dilations\n")
    ws, d = diagnose(tmp_path / "b", {"convert.log": _earlier_run("2026-03-10") + conv})
    assert "pooling op not support" in anchor_text(ws, d)
    # look-alike: the same failure ten minutes before is this run's own
    ws, d = diagnose(tmp_path / "c", {"train.log": _earlier_run("2026-03-11").replace("14:04:09", "16:59:00") + today})
    assert "out of memory" in anchor_text(ws, d)


def test_an_exception_python_ignored_at_shutdown_failed_nothing(tmp_path):
    cause = "[ERROR] 2026-03-11 10:00:01 worker.py:88 - shard 5 of the checkpoint is truncated: read 1048576 bytes\n"
    teardown = ("Exception ignored in: <function LLMEngine.__del__ at 0x7f3a2c1e5d80>\n"
                "Traceback (most recent call last):\n"
                '  File "/usr/lib/python3.10/site-packages/vllm/engine/llm_engine.py", line 503, in __del__\n'
                "    self.model_executor.shutdown()\n"
                "AttributeError: 'NoneType' object has no attribute 'shutdown'\n")
    ws, d = diagnose(tmp_path, {"serve.log": cause + teardown})
    assert "shard 5 of the checkpoint is truncated" in anchor_text(ws, d)
    # look-alike: the same exception raised, not ignored, is an error of its own
    ws, d = diagnose(tmp_path / "b", {"serve.log": teardown.replace("Exception ignored in: <function "
                                                                    "LLMEngine.__del__ at 0x7f3a2c1e5d80>\n", "")})
    assert "AttributeError" in anchor_text(ws, d)


def test_torchruns_summary_of_a_failed_child_relays_it(tmp_path):
    cause = "[ERROR] 2026-03-11 10:00:01 worker.py:88 - shard 5 of the checkpoint is truncated: read 1048576 bytes\n"
    summary = ("[2026-03-11 10:00:05,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
               "local_rank: 0 (pid: 1234) of binary: /usr/bin/python3\n"
               "Traceback (most recent call last):\n"
               '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
               "    sys.exit(main())\n"
               "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
               "============================================================\n"
               "train.py FAILED\n"
               "------------------------------------------------------------\n")
    ws, d = diagnose(tmp_path, {"torchrun.log": cause + summary})
    assert "shard 5 of the checkpoint is truncated" in anchor_text(ws, d)
    # look-alike: a test named like a script that failed is pytest's report, not torchrun's
    ws, d = diagnose(tmp_path / "b", {"pytest.log": "FAILED tests/test_ops.py::test_add - AssertionError: mismatch\n"})
    assert "AssertionError" in anchor_text(ws, d)


def test_rays_notices_of_a_dead_worker_relay_its_failure(tmp_path):
    cause = "[ERROR] 2026-03-11 10:00:01 worker.py:88 - shard 5 of the checkpoint is truncated: read 1048576 bytes\n"
    ray = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. Worker PID: "
           "91798 Worker exit type: SYSTEM_ERROR\n"
           "Traceback (most recent call last):\n"
           '  File "/workspace/main_ppo.py", line 64, in main\n'
           "    ray.get(runner.run.remote(config))\n"
           "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n")
    ws, d = diagnose(tmp_path, {"driver.log": cause + ray})
    assert "shard 5 of the checkpoint is truncated" in anchor_text(ws, d)
    # look-alike: the driver's own exception, not Ray's notice, is an error of its own
    ws, d = diagnose(tmp_path / "b", {"driver.log": cause + ray.replace("ray.exceptions.ActorDiedError: The actor died "
                                                                        "unexpectedly before finishing this task.",
                                                                        "KeyError: 'actor_rollout_ref'")})
    assert "KeyError" in anchor_text(ws, d)


def test_a_log_copied_from_a_web_page_keeps_its_indents(tmp_path):
    """A forum or blog copy turns the indent of a traceback's lines into no-break spaces."""
    nb = "\u00a0"
    log = ("Traceback (most recent call last):\n"
           f'{nb * 2}File "train.py", line 9, in <module>\n'
           f"{nb * 4}var = next(v for v in var.values())\n"
           "StopIteration\n")
    ws, d = diagnose(tmp_path, {"forum.log": log})
    assert "StopIteration" in anchor_text(ws, d)
    # look-alike: a no-break space inside a line's words makes no indent of it
    ws, d = diagnose(tmp_path / "b", {"run.log": f"step{nb}120 done\n"})
    assert d.anchor is None


def _watchdog_rank7(c10_stamp: str) -> str:
    """A healthy rank's torch watchdog timeout (c10's stamp: month*100+day, no year)."""
    return (f"[rank7]:[{c10_stamp}.123456789 ProcessGroupHCCL.cpp:1412] [Rank 7] Watchdog caught collective "
            "operation timeout: WorkHCCL(SeqNum=5123, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800021 "
            "milliseconds before timing out.\n")


def test_a_glog_date_gives_its_year_to_another_files_yearless_stamps(tmp_path):
    """xLLM's glog prints `F20251111 12:28:58…`; rank 7's torch watchdog (c10: `E1111`, no year)
    times out thirty minutes later, in the glog's year, not its file's modification year."""
    cause = ("F20251111 12:28:58.504206 214989 collective_service.cpp:37] Check failed: status == HCCL_SUCCESS "
             "(4 vs. 0) HcclGetRootInfo failed\n")
    victim = _watchdog_rank7("E1111 12:58:58")
    ws, d = diagnose(tmp_path, {"xllm.log": cause, "rank7.log": victim})
    assert "HcclGetRootInfo failed" in anchor_text(ws, d)
    # look-alike: the watchdog with no other rank's failure in the inputs is what there is
    ws, d = diagnose(tmp_path / "b", {"rank7.log": victim})
    assert "Watchdog caught" in anchor_text(ws, d)


def test_a_crash_headers_epoch_gives_its_year_to_another_files_yearless_stamps(tmp_path):
    """A Ray worker's crash header carries the only date (epoch seconds); rank 7's watchdog
    (c10: no year) must not take the file's modification year and leave the crash stale."""
    crash = ("(IntegratedWorker pid=2105, ip=172.16.6.47) *** SIGSEGV received at time=1752458717 on cpu 103 ***\n"
             "(IntegratedWorker pid=2105, ip=172.16.6.47) PC: @     0xfffe7b2c8a30  (unknown)  list_extend\n")
    victim = _watchdog_rank7("E714 02:35:17")
    ws, d = diagnose(tmp_path, {"worker.log": crash, "rank7.log": victim})
    assert "SIGSEGV" in anchor_text(ws, d)
    # look-alike: an epoch that is no crash header's (a counter) dates nothing
    ws, d = diagnose(tmp_path / "b", {"worker.log": "processed 1752458717 tokens\n", "rank7.log": victim})
    assert "Watchdog caught" in anchor_text(ws, d)


def test_a_compilation_error_at_a_position_is_explained_under_its_caret(tmp_path):
    # Triton's CompilationError prints only where it failed (`at 3:4:`), the kernel's source
    # lines and a caret; the error that stopped the compiler is the line under the caret
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/opt/triton/compiler/compiler.py", line 102, in make_ir\n'
        "    return ast_to_ttir(self.fn, self, context=context, options=options)\n"
        "triton.compiler.errors.CompilationError: at 3:4:\n"
        "def scale_kernel(x_ptr, y_ptr, n):\n"
        "    pid = tl.program_id(0)\n"
        "    y = tl.load(x_ptr + pid).to(tl.float8e4nv)\n"
        "    ^\n"
        "ValueError(\"type fp8e4nv not supported in this architecture\")\n"})
    assert anchor_text(ws, d).startswith('ValueError("type fp8e4nv not supported')
    assert d.category == "compile"


def test_lookalike_a_compilation_error_with_its_own_message_stays_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/opt/triton/compiler/compiler.py", line 102, in make_ir\n'
        "    return ast_to_ttir(self.fn, self, context=context, options=options)\n"
        "triton.compiler.errors.CompilationError: unsupported pointer type in scale_kernel\n"
        "step 3 done\n"})
    assert anchor_text(ws, d).startswith("triton.compiler.errors.CompilationError: unsupported pointer type")


def test_an_invalid_environment_variable_is_the_set_up(tmp_path):
    # CANN's templates for a variable whose value fails a check (E20002, E19024, EE2002, EZ1002
    # and others) name the variable: whichever family reports it, the set-up is wrong
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
        "E20002: Value [/opt/Ascend/nnrt/opp/] for environment variable [ASCEND_OPP_PATH] is invalid when load "
        "buildin op store.\n"
        "        TraceBack (most recent call last):\n"
        "        OpsManager initialize failed.[FUNC:InnerInitialize][FILE:gelib.cc][LINE:177]\n"})
    assert "for environment variable [ASCEND_OPP_PATH] is invalid" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_an_invalid_parameter_in_the_same_family_stays_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
        "E20001: Operator [trans_TransData_3] compilation failed. Optype is [TransData].\n"
        "        TraceBack (most recent call last):\n"
        "        Compile op failed.[FUNC:CompileOp][FILE:fe_util.cc][LINE:77]\n"})
    assert d.category == "compile"


def test_a_detail_its_own_traceback_ends_with_is_the_outer_layer(tmp_path):
    # the head says what the last layer said (`MatMulV3 LaunchAicore failed.`) and its TraceBack
    # lists every layer down to it: the first entry is where the chain started
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]: RuntimeError: call aclnnMatmul failed, detail:EZ1001: [PID: 51] 2026-03-11-10:00:01.100.200 "
        "MatMulV3 LaunchAicore failed.\n"
        "[rank0]:         TraceBack (most recent call last):\n"
        "[rank0]:         k dim 7 of x1 is not aligned to 16[FUNC:CheckShape][FILE:matmul_v3_tiling.cpp][LINE:210]\n"
        "[rank0]:         Tiling failed\n"
        "[rank0]:         Kernel GetWorkspace failed. opType: 12\n"
        "[rank0]:         MatMulV3 LaunchAicore failed.\n"})
    assert "k dim 7 of x1 is not aligned to 16" in anchor_text(ws, d)
    assert d.category == "operator"


def test_lookalike_a_specific_detail_over_its_layers_stays_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank0]: RuntimeError: call aclnnMatmul failed, detail:EZ1001: [PID: 51] 2026-03-11-10:00:01.100.200 "
        "k dim 7 of x1 is not aligned to 16.\n"
        "[rank0]:         TraceBack (most recent call last):\n"
        "[rank0]:         Tiling failed\n"
        "[rank0]:         Kernel GetWorkspace failed. opType: 12\n"
        "[rank0]:         MatMulV3 LaunchAicore failed.\n"})
    assert "detail:EZ1001: [PID: 51] 2026-03-11-10:00:01.100.200 k dim 7" in anchor_text(ws, d)


def test_a_shells_killed_notice_alone_is_the_anchor(tmp_path):
    # the shell's notice that its child died of SIGKILL (the OOM killer, an operator's kill):
    # with nothing failed before it, the log does hold an error, and no code says why
    ws, d = diagnose(tmp_path, {"serve.log":
        "Start to parse ranktable file\n"
        "Finished parsing ranktable file.\n"
        "./start.sh: line 12: 48211 Killed                  ./bin/mindieservice_daemon\n"})
    assert "48211 Killed" in anchor_text(ws, d)
    assert d.category == "unknown"
    assert "killed (SIGKILL)" in d.root_cause
    assert any("dmesg" in a.action for a in d.next_actions)


def test_lookalike_a_killed_notice_after_an_error_is_its_consequence(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity)\n"
        + "".join(f"step {i} waiting\n" for i in range(120))
        + "Killed\n"
        "the job killed its workers\n"})
    assert anchor_text(ws, d).startswith("RuntimeError: NPU out of memory")


def test_a_setting_a_checker_does_not_allow_is_the_cause_of_the_kill(tmp_path):
    # a service's configuration check, printed without a level (`npuDeviceID does not allow
    # repetitive element`), before the daemon is killed: the check is the cause, the kill its end
    ws, d = diagnose(tmp_path, {"serve.log":
        "Finished parsing ranktable file.\n"
        "Update worldSize and npuDeviceIds of backend config successfully for Multi Nodes Inference.\n"
        "worldSize does not allow a value above 64\n"
        "Killed\n"})
    assert anchor_text(ws, d) == "worldSize does not allow a value above 64"
    assert d.category == "environment"


def test_lookalike_prose_that_does_not_allow_something_is_no_error(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "Note: this model does not allow a batch above 8, batch set to 8\n"
        "step 1 done\n"})
    assert d.anchor is None


def test_a_spawned_processs_traceback_is_not_the_message_of_the_parents_exception(tmp_path):
    # torch.multiprocessing's ProcessRaisedException prints no message of its own: the child's
    # whole traceback follows, and the child's exception at its end is the error
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/opt/py/torch/multiprocessing/spawn.py", line 211, in join\n'
        "    raise ProcessRaisedException(msg, error_index, failed_process.pid)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException:\n"
        "\n"
        "-- Process 3 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/py/torch/multiprocessing/spawn.py", line 87, in _wrap\n'
        "    fn(i, *args)\n"
        '  File "/work/test_moe.py", line 40, in run_case\n'
        "    out = layer.forward(x)\n"
        "KeyError: 'expert_map'\n"})
    assert anchor_text(ws, d) == "KeyError: 'expert_map'"


def test_lookalike_an_exception_handled_into_another_stays_the_first(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "Traceback (most recent call last):\n"
        '  File "/work/loader.py", line 3, in next_batch\n'
        "    return next(self.it)\n"
        "KeyError:\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/work/loader.py", line 5, in next_batch\n'
        '    raise RuntimeError("no batch left")\n'
        "RuntimeError: no batch left\n"})
    assert anchor_text(ws, d) == "KeyError:"


def test_an_invalid_argument_with_its_own_reason_is_the_detail(tmp_path):
    # EE1001's template is `The argument is invalid.Reason: %s`: a reason that names the value
    # refused (a SoC name, a device index) is the cause; its TraceBack lists the calls above it
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
        "EE1001: The argument is invalid.Reason: Soc version [Ascend310X9] is invalid\n"
        "TraceBack (most recent call last):\n"
        "Call rtSetSocVersion(it->second.c_str()) fail, ret: 0x1A1F8[FUNC:SetRTSocVersion][FILE:gelib.cc][LINE:278]\n"
        "SetRTSocVersion failed.[FUNC:Initialize][FILE:gelib.cc][LINE:72]\n"})
    assert "Soc version [Ascend310X9] is invalid" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_an_invalid_argument_whose_reason_is_a_failed_call_yields(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "EE1001: [PID: 77] 2026-03-11-10:00:01.100.200 The argument is invalid.Reason: rtGetDevMsg execute failed, "
        "reason=[context pointer null]\n"
        "        TraceBack (most recent call last):\n"
        "        TsdOpen failed. devId=1, tdt error=31[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:1466]\n"})
    assert "TsdOpen failed. devId=1" in anchor_text(ws, d)


def test_a_device_dump_of_the_task_a_detail_names_is_the_same_event(tmp_path):
    # the device's dump (`EXCEPTION TASK:` … `stream id=56, … task id=3319`) carries the fault's
    # device time, earlier than the host's record of it; the error manager's detail naming the
    # same stream and task says what failed
    ws, d = diagnose(tmp_path, {"infer.log":
        "E39999: Inner Error!\n"
        "E39999: 2026-05-21-12:06:49.978.985 An exception occurred during AICPU execution, stream_id:56, task_id:3319, "
        "errcode:21008, msg:inner error[FUNC:ProcessAicpuErrorInfo][FILE:device_error_proc.cc][LINE:712]\n"
        "TraceBack (most recent call last):\n"
        "Kernel task happen error, retCode=0x2a, [aicpu exception].[FUNC:PreCheckTaskErr][FILE:task_info.cc][LINE:1776]\n"
        "\n"
        "DEVICE[0] PID[308274]:\n"
        "EXCEPTION TASK:\n"
        "Exception info:TGID=2533077, model id=65535, stream id=56, stream phase=3, task id=3319, task type=aicpu "
        "kernel, recently received task id=3323, recently send task id=3318, task phase=RUN\n"
        "Message info[0]:aicpu=0,slot_id=0,report_mailbox_flag=0x5a5a5a5a,state=0x5210\n"
        "Other info[0]:time=2026-05-21-12:06:49.250.837, function=proc_aicpu_task_done, line=970, error code=0x2a\n"
        "RuntimeError: ACL stream synchronize failed, error code:507018\n"})
    assert "An exception occurred during AICPU execution, stream_id:56, task_id:3319" in anchor_text(ws, d)


def test_lookalike_a_device_dump_of_another_task_keeps_its_earlier_time(tmp_path):
    ws, d = diagnose(tmp_path, {"infer.log":
        "E39999: Inner Error!\n"
        "E39999: 2026-05-21-12:06:49.978.985 An exception occurred during AICPU execution, stream_id:56, task_id:3319, "
        "errcode:21008, msg:inner error[FUNC:ProcessAicpuErrorInfo][FILE:device_error_proc.cc][LINE:712]\n"
        "\n"
        "DEVICE[0] PID[308274]:\n"
        "EXCEPTION TASK:\n"
        "Exception info:TGID=2533077, model id=65535, stream id=12, stream phase=3, task id=80, task type=aicpu "
        "kernel, recently received task id=81, recently send task id=79, task phase=RUN\n"
        "Message info[0]:aicpu=0,slot_id=0,report_mailbox_flag=0x5a5a5a5a,state=0x5210\n"
        "Other info[0]:time=2026-05-21-12:06:49.250.837, function=proc_aicpu_task_done, line=970, error code=0x2a\n"})
    assert "stream id=12" in anchor_text(ws, d)


def test_mindsporess_summary_over_its_ascend_error_message_relays_it(tmp_path):
    # MindSpore prints its exception's summary first, then the sections it summarises: the
    # CANN block under `- Ascend Error Message:` is the error
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: Preprocess failed before run graph 1.\n"
        "----------------------------------------------------\n"
        "- Ascend Error Message:\n"
        "----------------------------------------------------\n"
        "EI9999: Inner Error!\n"
        "EI9999 connected p2p timeout, timeout:600 s.local logicDevid:0,remote physic id:7\n"
        "TraceBack (most recent call last):\n"
        "----------------------------------------------------\n"
        "- Framework Error Message: (For framework developers)\n"
        "----------------------------------------------------\n"
        "Distribute Task Failed,\n"})
    assert "connected p2p timeout" in anchor_text(ws, d)
    assert d.category == "communication"


def test_lookalike_an_exception_without_the_section_stays_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "RuntimeError: Preprocess failed before run graph 1.\n"
        "----------------------------------------------------\n"
        "step 3 done\n"
        "EI9999 connected p2p timeout, timeout:600 s.local logicDevid:0,remote physic id:7\n"})
    assert anchor_text(ws, d).startswith("RuntimeError: Preprocess failed")


def test_a_release_mismatch_warning_explains_a_workers_death(tmp_path):
    # a server whose worker died at start-up, after the framework warned that two of its
    # packages are of different releases: the worker died of the mismatch, nothing else is said
    ws, d = diagnose(tmp_path, {"serving.log":
        "[WARNING] SERVING(658:2814731,MainProcess):2026-05-31-07:56:57.170.12 [mindspore.py:59] MindSpore version "
        "2.3.0 and MindSpore Serving version 2.0.2 are expected to be consistent. If not, there may be compatibility "
        "problems.\n"
        "Serving: Master server start success, listening on unix:unix_socket_files/serving_master_658\n"
        "[ERROR] SERVING(658:2814731,MainProcess):2026-05-31-07:57:07.148.026 [mindspore_serving/server/_server.py:235] "
        "Fail to start workers because of death of one worker\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/py/mindspore_serving/server/_server.py", line 237, in _listening_workers_when_startup\n'
        '    raise RuntimeError("Fail to start workers because of death of one worker")\n'
        "RuntimeError: Fail to start workers because of death of one worker\n"})
    assert "are expected to be consistent" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_a_release_warning_before_a_workers_own_error_stays_a_warning(tmp_path):
    ws, d = diagnose(tmp_path, {"serving.log":
        "[WARNING] SERVING(658:2814731,MainProcess):2026-05-31-07:56:57.170.120 [mindspore.py:59] MindSpore version "
        "2.3.0 and MindSpore Serving version 2.0.2 are expected to be consistent. If not, there may be compatibility "
        "problems.\n"
        "[ERROR] SERVING(659:2814732,Worker):2026-05-31-07:57:06.100.000 [worker.py:80] Load model failed: "
        "/models/resnet50.mindir does not exist\n"
        "[ERROR] SERVING(658:2814731,MainProcess):2026-05-31-07:57:07.148.026 [mindspore_serving/server/_server.py:235] "
        "Fail to start workers because of death of one worker\n"})
    assert "Load model failed" in anchor_text(ws, d)


def test_a_kernel_assert_dumped_after_its_trap_explains_it(tmp_path):
    # the exception dump prints the kernel's printf buffer after the runtime recorded the trap:
    # the assertion in it says why the core trapped
    def rt(ts: str, rest: str) -> str:
        return plog("ERROR", "RUNTIME", 7, ts, rest)
    text = (rt("10:00:00.526.761", "[device_error_proc.cc:1635]7 ProcessStarsCoreErrorInfo:The error from device("
               "chipId:0, dieId:0), serial number is 3, there is an aivec error exception, core id is 0, error code = 0, "
               "dump info: pc start: 0x124080000000, current: 0x124080001f38")
            + rt("10:00:00.527.404", "[stream.cc:1172]7 GetError:Stream Synchronize failed, stream_id=2, retCode=0x31, "
                 "[vector core exception].")
            + "".join(plog("ERROR", "IDEDD", 7, f"10:00:01.{n:03d}.000", "[dump_operator.cpp:400][tid:7] [Dump][Exception] "
                           f"dump arg {n} to file") for n in range(20))
            + plog("ERROR", "IDEDD", 7, "10:00:02.763.494", "[dump_printf.cpp:548][tid:7] [ASSERT] [CANN_VERSION : 8.0]"
                   "[TimeStamp : 0] /opt/Ascend/ops/gather_v3_base.h:137: Assertion `(0 <= val && val < this->gxSize_)' "
                   "Index 100000000 out of range[0 655360)!"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-7_20260311100000000.log": text})
    assert "Index 100000000 out of range" in anchor_text(ws, d)


def test_lookalike_an_assert_in_another_process_leaves_the_trap(tmp_path):
    text = (plog("ERROR", "RUNTIME", 7, "10:00:00.526.761", "[device_error_proc.cc:1635]7 ProcessStarsCoreErrorInfo:The "
                 "error from device(chipId:0, dieId:0), serial number is 3, there is an aivec error exception, core id is "
                 "0, error code = 0, dump info: pc start: 0x124080000000, current: 0x124080001f38")
            + plog("ERROR", "IDEDD", 9, "10:00:02.763.494", "[dump_printf.cpp:548][tid:9] [ASSERT] [CANN_VERSION : 8.0]"
                   "[TimeStamp : 0] /opt/Ascend/ops/gather_v3_base.h:137: Assertion `(0 <= val && val < this->gxSize_)' "
                   "Index 7 out of range[0 4)!"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-7_20260311100000000.log": text})
    assert "aivec error exception" in anchor_text(ws, d)


def test_an_offline_model_that_will_not_load_is_the_set_up(tmp_path):
    # aclmdlLoadFromFile failing, even with the graph engine's generic status (500002): the
    # model file, its path, or a model built for another SoC or CANN release
    ws, d = diagnose(tmp_path, {"infer.log":
        "[INFO] Init model resource start...\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/samples/acllite_utils.py", line 17, in check_ret\n'
        '    raise Exception("{} failed ret_int={}"\n'
        "Exception: acl.mdl.load_from_file failed ret_int=500002\n"})
    assert anchor_text(ws, d).startswith("Exception: acl.mdl.load_from_file failed")
    assert d.category == "environment"


def test_lookalike_the_graph_engines_failure_while_compiling_stays_compile(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log":
        "Traceback (most recent call last):\n"
        '  File "/opt/train.py", line 17, in step\n'
        "    out = model(x)\n"
        "RuntimeError: GEInitialize / graph build failed, error code is 500002\n"})
    assert d.category == "compile"


def test_the_sdks_report_of_a_cann_calls_code_is_read(tmp_path):
    # MindX SDK names the CANN call and its status (`Calling Function = aclrtCreateContext, Code =
    # 507033`): the device set-up failed, whatever the SDK's own codes say after it
    ws, d = diagnose(tmp_path, {"app.log":
        'E20260704 19:33:26.891712 147473 DeviceManager.cpp:274] Calling acl inferface failed. (Calling Function = '
        'aclrtCreateContext, Code = 507033, Message = "ACL error, please refer to the document of CANN.")\n'
        'E20260704 19:33:26.892529 147473 PyModel.cpp:31] Failed to create model_ object. (Code = 1007, Message = '
        '"memory allocation error")\n'})
    assert "aclrtCreateContext, Code = 507033" in anchor_text(ws, d)
    assert d.category == "environment"


def test_lookalike_an_sdk_code_alone_is_not_a_cann_status(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        'E20260704 19:33:26.892529 147473 PyModel.cpp:31] Failed to create model_ object. (Code = 1007, Message = '
        '"memory allocation error")\n'})
    assert d.anchor.numeric.get("acl") is None


def test_the_model_parsers_failure_is_a_conversion(tmp_path):
    # ATC's model parser under an inner code: the conversion failed while the model was parsed
    ws, d = diagnose(tmp_path, {"atc.log":
        "E19999: Inner Error!\n"
        "E19999 Shape of input [img] has a negative dim[FUNC:ParseShape][FILE:onnx_data_parser.cc][LINE:84]\n"
        "Model parse to graph failed, graph name:om.[FUNC:ModelParseToGraph][FILE:onnx_parser.cc][LINE:904]\n"
        "ATC model parse ret fail.[FUNC:ParseGraph][FILE:omg.cc][LINE:788]\n"})
    assert "negative dim" in anchor_text(ws, d)
    assert d.category == "compile"


def test_lookalike_an_inner_error_outside_a_conversion_stays_undetermined(tmp_path):
    ws, d = diagnose(tmp_path, {"app.log":
        "E19999: Inner Error!\n"
        "E19999 Shape of input [img] has a negative dim[FUNC:ParseShape][FILE:data_util.cc][LINE:84]\n"})
    assert d.category == "unknown"


def test_a_file_or_weight_that_does_not_exist_is_the_set_up(tmp_path):
    # a path, a file or a named weight the job needs is not there: its set-up, not its run
    for line in ("RuntimeError: The path does not exist: /opt/models/qwen/config.json",
                 "2026-04-17 11:02:57,872 [ERROR] model.py:39 - [Model] >>> Exception:weight lm_head.weight does not exist"):
        ws, d = diagnose(tmp_path / str(len(line)), {"serve.log": line + "\n"})
        assert d.category == "environment", line


def test_a_model_hub_that_cannot_be_reached_is_the_set_up(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "OSError: We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the "
        "cached files.\n"})
    assert d.category == "environment"


def test_lookalike_a_tensor_that_does_not_exist_yet_is_not_the_set_up(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "RuntimeError: the grad of tensor x does not exist at step 3\n"})
    assert d.category != "environment"


def _ms(level: str, module: str, ts: str, rest: str) -> str:
    return f"[{level}] {module}(1130203,ffff85d4b010,python):2026-06-28-{ts} {rest}\n"


def test_mindsporess_kernel_selection_probe_yields_to_the_failure_after_it(tmp_path):
    # MindSpore asks ACL for a kernel of each op and, when none matches, goes on to its other
    # kernel libraries: the probe's miss is no failure; the launch that fails later is
    text = (_ms("ERROR", "DEVICE", "16:46:49.413.553", "[mindspore/ccsrc/plugin/device/ascend/hal/hardware/"
                "ge_kernel_executor.cc:139] PrintQueryAclTypeErr] The current [Default/AvgPool3DGrad-op507] operator did "
                "not match any operator prototype library")
            + "step 1 ...\n"
            + _ms("ERROR", "KERNEL", "16:47:04.115.426", "[mindspore/ccsrc/plugin/device/ascend/kernel/acl/"
                  "acl_kernel_mod.cc:253] Launch] Kernel launch failed, msg: Acl compile and execute failed, op_type_:Pow"))
    ws, d = diagnose(tmp_path, {"train.log": text})
    assert "Kernel launch failed" in anchor_text(ws, d)


def test_lookalike_a_kernel_selection_probe_alone_is_still_reported(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": _ms(
        "ERROR", "DEVICE", "16:46:49.413.553", "[mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_kernel_executor.cc:"
        "139] PrintQueryAclTypeErr] The current [Default/AvgPool3DGrad-op507] operator did not match any operator "
        "prototype library")})
    assert "PrintQueryAclTypeErr" in anchor_text(ws, d)


def test_a_device_wait_timeout_on_a_notify_is_a_communication_wait(tmp_path):
    # the task scheduler's wait timeout names the task's subtype: a notify wait is a wait on a
    # peer's record (a collective, a transfer engine), not a fault of this device
    ws, d = diagnose(tmp_path, {"bench.log":
        "[ERROR] TransferSync failed, ret = 507001, errmsg: EE9999: Internal error!\n"
        "EE9999[PID: 51] 2026-07-28-02:24:05.290.325 (EE9999):  The error from device(chipId:0, dieId:0), serial number "
        "is 4, wait timeout occurred during task execution, stream_id:155, sq_id:203, task_pos:1, id=224, "
        "timeout=1800s, cntFlag = 0, subType = 1(single notify wait), cntValue = 0.[FUNC:ProcessWaitTimeoutErrorInfo]"
        "[FILE:device_error_proc_c.cc][LINE:90]\n"
        "TraceBack (most recent call last):\n"
        "       rtStreamSynchronizeWithTimeout execution failed, reason=hccl other error[FUNC:FuncErrorReason]"
        "[FILE:error_message_manage.cc][LINE:69]\n"})
    assert "wait timeout occurred during task execution" in anchor_text(ws, d)
    assert d.category == "communication"


def test_lookalike_a_device_wait_timeout_on_an_event_stays_the_devices(tmp_path):
    ws, d = diagnose(tmp_path, {"bench.log":
        "EE9999[PID: 51] 2026-07-28-02:24:05.290.325 (EE9999):  The error from device(chipId:0, dieId:0), serial number "
        "is 4, wait timeout occurred during task execution, stream_id:155, sq_id:203, task_pos:1, id=224, "
        "timeout=1800s, cntFlag = 0, subType = 3(kernel execute), cntValue = 0.[FUNC:ProcessWaitTimeoutErrorInfo]"
        "[FILE:device_error_proc_c.cc][LINE:90]\n"})
    assert d.category != "communication"


def test_acl_that_will_not_initialise_is_the_set_up(tmp_path):
    # aclInit is the first call of any ACL program: its failure is the driver, the device or the
    # configuration, whatever the program was about to run
    ws, d = diagnose(tmp_path, {"run.log":
        "[2026-06-29 12:56:08] aclInit failed. ERROR: 500000\n"
        "[2026-06-29 12:56:08] Init acl failed. ERROR: 500000\n"
        "[2026-06-29 12:56:08] aclnnQuantMaxTest failed. ERROR: 500000\n"})
    assert anchor_text(ws, d).endswith("aclInit failed. ERROR: 500000")
    assert d.category == "environment"


def test_lookalike_a_successful_acl_init_then_an_operator_failure(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[2026-06-29 12:56:08] aclInit success\n"
        "[2026-06-29 12:56:09] aclnnQuantMaxGetWorkspaceSize failed. ERROR: 161002\n"})
    assert d.category == "operator"


def test_a_tokenizer_that_will_not_load_is_the_set_up(tmp_path):
    # a serving engine reads the tokenizer from the model folder: a failure to load it is the
    # folder, its files or the installed transformers, not the run
    ws, d = diagnose(tmp_path, {"serve.log":
        "[2026-03-31 15:05:09.700528] [133133] [2814728] [llm] [ERROR] [model_deploy_config.cpp:159] Failed to get vocab "
        "size from tokenizer wrapper with exception: ValueError: safe_get_tokenizer_from_pretrained failed.\n"})
    assert d.category == "environment"


def test_lookalike_a_token_id_out_of_range_is_not_the_set_up(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "[2026-03-31 15:05:09.700528] [133133] [2814728] [llm] [ERROR] [sampler.cpp:59] token id 151936 is out of the "
        "vocab range of the embedding table\n"})
    assert d.category != "environment"


def test_an_aclnn_runtime_status_is_the_operators(tmp_path):
    # aclnn's statuses: 161xxx parameter checks, 361xxx failures inside the call, 561xxx inner errors
    ws, d = diagnose(tmp_path, {"run.log": "[ERROR] Get Operator Workspace failed. error code is 361001\n"})
    assert d.category == "operator"


def test_an_atb_operations_tensor_combination_check_is_the_operators(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[2026-04-30 02:41:20.858873] [error] [830216] [operation_base.cpp:408] MultiLatentAttentionOperation_0 "
        "CheckIniMatch Failed! Supported Combs:\n"})
    assert d.category == "operator"


def test_lookalike_an_unknown_status_band_stays_undetermined(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "[ERROR] Get Operator Workspace failed. error code is 461001\n"})
    assert d.category != "operator"


def test_a_configuration_refusing_a_setting_in_its_own_check_is_the_environment(tmp_path):
    """An exception raised by a configuration's own check (`__post_init__` of `*_config.py`,
    `validate_args` of `arguments.py`) refuses a setting of the job."""
    ws, d = diagnose(tmp_path, {"train.log":
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/w/model/builder.py", line 12, in build\n'
        "[rank3]:     cfg = TransformerConfig(**kw)\n"
        '[rank3]:   File "/w/megatron/core/transformer/transformer_config.py", line 600, in __post_init__\n'
        "[rank3]:     raise ValueError('moe_router_topk must be set when experts are used.')\n"
        "[rank3]: ValueError: moe_router_topk must be set when experts are used.\n"})
    assert "ValueError: moe_router_topk" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the same exception raised by the model's forward is no setting refused
    ws, d = diagnose(tmp_path / "b", {"train.log":
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/w/model/layers.py", line 80, in forward\n'
        "[rank3]:     raise ValueError('moe_router_topk must be set when experts are used.')\n"
        "[rank3]: ValueError: moe_router_topk must be set when experts are used.\n"})
    assert "ValueError: moe_router_topk" in anchor_text(ws, d)
    assert d.category != "environment"


def test_mlir_failing_to_legalize_an_operation_is_the_compiler(tmp_path):
    ws, d = diagnose(tmp_path, {"compile.log":
        "error: failed to legalize operation 'scf.for' that was explicitly marked illegal\n"})
    assert d.category == "compile"
    # look-alike: a legal review that failed says nothing of a compiler
    ws, d = diagnose(tmp_path / "b", {"run.log": "ERROR: failed to load legal notice file /etc/x/NOTICE\n"})
    assert d.category != "compile"


def test_an_ascend_c_kernel_api_check_is_the_operator(tmp_path):
    """Ascend C's debug build prints its API checks per block and core."""
    ws, d = diagnose(tmp_path, {"run.log":
        "[2026-01-05 10:00:01] [ERROR][Block_0][AIC_1][/opt/asc/impl/basic_api/kernel_operator_mm_impl.h:88][Mmad][4242] "
        "Failed to check m in Mmad, current value is 17, should be aligned to 16.\n"
        "[2026-01-05 10:00:01] [ERROR][CORE_0][pid 4242] error happened! =========\n"})
    assert "Failed to check m in Mmad" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: a logger that names a worker block prints no kernel's check
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "[2026-01-05 10:00:01] [ERROR][Block_0] Failed to check quota of the storage pool\n"})
    assert d.category != "operator"


def test_a_driver_code_for_exhausted_runtime_objects_is_the_streams_not_the_set_up(tmp_path):
    """EL0006 and EL0008-EL0013 say the runtime's objects ran out (streams, events, notifies);
    the anchor's own driver code outweighs the context status its wrapper printed later."""
    ws, d = diagnose(tmp_path, {"run.log":
        "EL0009: 2026-01-05-10:00:01.000.001 The stream resources are insufficient.\n"
        "[ERROR] 2026-01-05-10:00:02 (PID:7, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"})
    assert "EL0009" in anchor_text(ws, d)
    assert d.category == "stream_event"
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "EL0005: 2026-01-05-10:00:01.000.001 The resources are busy.\n"
        "RuntimeError: x.cpp:52 NPU function error: aclrtGetCurrentContext(&ctx), error code is 107002\n"
        "[ERROR] 2026-01-05-10:00:02 (PID:7, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"})
    assert "EL0005" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_registry_titled_detail_without_its_stamp_is_still_a_detail(tmp_path):
    """`Title_Name(CODE): message` is the error manager's own shape, even when a paste dropped the stamp."""
    ws, d = diagnose(tmp_path, {"run.log":
        "AclNN_Parameter_Error(EZ1001): The dim of query should be 4, but got 3\n"})
    assert "The dim of query should be 4" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: a word without the registry's underscores in front of a code is prose
    ws, d = diagnose(tmp_path / "b", {"run.log": "Changelog(EZ1001): The dim check was relaxed\n"})
    assert d.anchor is None


def test_atb_logger_without_its_stamp_keeps_its_level_and_operation(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[info] [1079] [model_runner.cpp:20] loading weights\n"
        "[error] [1079] [paged_attention_operation.cpp:91] kvHeadNum should be {1,2,4,8}\n"})
    assert "kvHeadNum should be" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: the same logger at level info is no error
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "[info] [1079] [paged_attention_operation.cpp:91] kvHeadNum is 8\n"})
    assert d.anchor is None


def test_a_server_exception_that_sends_the_reader_to_the_first_error_is_a_wrapper(tmp_path):
    """MindIE's `Setup fail, enable log … to find the first error` and its `return initialize error
    result` report a step whose own error is printed elsewhere (here by ATB, whose finer stamp runs
    later than the server logger's)."""
    log = ("[2025-10-29 09:59:13.967655] [557] [2816] [llm] [ERROR] [acl_nn_operation.cpp:143] "
           "mmNode call SetAclNNWorkspaceExecutor fail, error:161002\n"
           "[2025-10-29 09:59:13.029+0800] [557] [2817] [mindie-server] [ERROR] [model.py:40] : [Model]\t>>> "
           "Exception:Setup fail, enable log: export ASDOPS_LOG_LEVEL=ERROR, export ASDOPS_LOG_TO_STDOUT=1 to find "
           "the first error. For more details, see the official document.\n"
           "[2025-10-29 09:59:13.029+0800] [557] [2817] [mindie-server] [ERROR] [model.py:43] : [MIE04E13030A] "
           "[Model]\t>>> return initialize error result: {'status': 'error', 'npuBlockNum': '0'}\n")
    ws, d = diagnose(tmp_path, {"server.log": log})
    assert "error:161002" in anchor_text(ws, d)
    # look-alike: a server's own error that names its reason is the cause
    ws, d = diagnose(tmp_path / "b", {"server.log":
        "[2025-10-29 09:59:13.029+0800] [557] [2817] [mindie-server] [ERROR] [model.py:40] : [Model]\t>>> "
        "Exception:config.json not found in /models/x\n"})
    assert "config.json not found" in anchor_text(ws, d)


def test_an_asynchronous_copy_task_that_failed_is_the_device(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EE9999[PID: 74] 2026-07-03-04:01:26.793.281 (EE9999): Asynchronous memory copy failed, device_id=0, "
        "stream_id=61, task_id=0, flip_num=0, copy_type=1, memcpy_type=1, copy_data_type=0, length=2097152\n"})
    assert d.category == "device"
    # look-alike: a copy the host refused before any task ran is no device fault
    ws, d = diagnose(tmp_path / "b", {"run.log": "ERROR: copy of the checkpoint to /backup failed: disk full\n"})
    assert d.category != "device"


def test_a_service_or_model_hub_the_job_cannot_reach_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR] APP(23,app):2019-01-01-00:35:43.606.308 [agent/net/socket_factory.cpp:99] Failed to connect to "
        "server: 192.168.0.19:7006 , Msg: the args not right\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "ERROR 05-13 11:59:07 engine.py:400] modelscope.hub.errors.NotExistError: The model: org/model has no "
        "revision: main !\n"})
    assert d.category == "environment"
    # look-alike: a device link to a peer that would not connect is the collective's
    ws, d = diagnose(tmp_path / "c", {"run.log":
        "[ERROR] HCCL(9,python):2026-01-05-10:00:01.000.001 [transport.cc:9] Failed to connect to the remote "
        "peer 10.0.0.2, rank 3\n"})
    assert d.category != "environment"


def test_a_graph_engine_api_named_with_its_namespace_routes_by_its_stage(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "2024-05-09 07:05:28.107324198 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANNGRAPH failure -1: "
        "GRAPH_FAILED ; NPU=0 ; hostname=h ; expr=ge::aclgrphParseONNXFromMem(data, size, params, graph); \n"})
    assert d.category == "compile"
    # look-alike: a namespaced call that is no CANN API routes nothing by its name
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "2024-05-09 07:05:28.107324198 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN failure -1: "
        "unknown ; NPU=0 ; hostname=h ; expr=ge::GetThreadLocalContext(); \n"})
    assert d.category != "compile"


def test_a_vector_operator_check_without_the_operator_name_is_the_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "RuntimeError: ({'errCode': 'E80012', 'op_name': 'reduce_sum_d', 'param_name': 'x'}, 'In op, the num of "
        "dimensions of input/output[x] should be in the range of [0, 8], but actually is [10].')\n"})
    assert d.category == "operator"
    # look-alike: the E8 family's own configuration errors stay the environment
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "E80001: 2026-01-05-10:00:01.000.001 The operator package config file is invalid: opp/config.ini\n"})
    assert d.category == "environment"


def test_the_old_model_generators_quantizer_is_a_conversion(tmp_path):
    ws, d = diagnose(tmp_path, {"omg.log":
        '[ERROR] FMK:2019-05-23-10:20:29.220.547 CreateOp:framework/domi/calibration/op/op_factory.cpp:20:'
        '"OpFactory::CreateOp: Not supported OP, type = ShuffleChannel"\n'})
    assert d.category == "compile"
    # look-alike: a run's own operator factory is no conversion
    ws, d = diagnose(tmp_path / "b", {"run.log":
        '[ERROR] FMK:2019-05-23-10:20:29.220.547 CreateOp:framework/runtime/op/op_factory.cpp:20:'
        '"OpFactory::CreateOp: Not supported OP, type = ShuffleChannel"\n'})
    assert d.category != "compile"


def test_pytests_header_over_a_failed_import_is_a_wrapper(tmp_path):
    """`ImportError while loading conftest '…'` introduces the import chain and the `E   ImportError:`
    line that says why."""
    log = ("ImportError while loading conftest '/w/tests/conftest.py'.\n"
           "conftest.py:8: in <module>\n"
           "    from x_runtime import init\n"
           "E   ImportError: /w/lib/libx_impl.so: undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationE\n")
    ws, d = diagnose(tmp_path, {"test.log": log})
    assert "undefined symbol" in anchor_text(ws, d)
    # look-alike: an ImportError of the job itself is the cause
    ws, d = diagnose(tmp_path / "b", {"test.log": "ImportError: cannot import name 'npu_rope' from 'x_ops'\n"})
    assert "cannot import name" in anchor_text(ws, d)


def test_hccls_process_group_refusing_a_collective_is_the_collectives(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "RuntimeError: ProcessGroupHCCL does not support scatter\n"})
    assert d.category == "communication"
    # look-alike: another process group's refusal names no HCCL
    ws, d = diagnose(tmp_path / "b", {"train.log": "RuntimeError: ProcessGroupGloo does not support reduce_scatter\n"})
    assert d.category != "communication"


def test_the_dispatcher_refusing_an_operator_call_against_its_schema_is_the_operator(tmp_path):
    ws, d = diagnose(tmp_path, {"serve.log":
        "RuntimeError: _C_ascend::npu_rope_custom() Expected a value of type 'List[int]' for argument 'positions' "
        "but instead found type 'Tensor'.\n"})
    assert d.category == "operator"
    # look-alike: a configuration value of the wrong type is no operator call
    ws, d = diagnose(tmp_path / "b", {"serve.log": "RuntimeError: config field 'positions' expected an int\n"})
    assert d.category != "operator"


def test_a_system_calls_error_number_marks_the_failure_and_the_host_refusal_is_the_environment(tmp_path):
    """`rename error. errno is 30`: an errno only a failure has; read-only, full, missing or forbidden
    paths are the host's set-up. The statuses its callers returned after it relay it."""
    log = ("[2025/11/14 03:02:54][0041][root][127.0.0.1][cfg_operate.c,cfg_check_path,587]:rename error. errno is 30\n"
           "[2025/11/14 03:02:54][0041][root][127.0.0.1][cfg_operate.c,cfg_insert,952]:cfg_write_to_file failed, "
           "ret is -8001\n")
    ws, d = diagnose(tmp_path, {"device.log": log})
    assert "errno is 30" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: an errno of 0 is no failure
    ws, d = diagnose(tmp_path / "b", {"device.log":
        "[2025/11/14 03:02:54][0041][root][127.0.0.1][cfg_operate.c,cfg_check_path,587]:rename done. errno is 0\n"})
    assert d.anchor is None


def test_a_model_file_a_tool_cannot_read_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"convert.log":
        "[ERROR] LITE(119,7fbd,converter_lite):2021-12-13-16:20:49.506.122 [tools/converter/parser/onnx/"
        "onnx_op_parser.cc:3079] InitOriginModel] Read onnx model file failed, model path: ./m.onnx\n"})
    assert d.category == "environment"
    # look-alike: the converter refusing an operator of the model it read is a conversion's
    ws, d = diagnose(tmp_path / "b", {"convert.log":
        "[ERROR] LITE(119,7fbd,converter_lite):2021-12-13-16:20:49.506.122 [tools/converter/parser/onnx/"
        "onnx_op_parser.cc:3079] Parse] op GridSample parse failed\n"})
    assert d.category == "compile"


def test_the_task_scheduler_refusing_a_stream_operation_is_the_streams(tmp_path):
    ws, d = diagnose(tmp_path, {"device-0/device-1_20200904.log":
        "[ERROR] TSCH(-1,null):2020-09-04-21:51:13.452.762 63696 (cpuid:0) task_scheduler_engine.c:707 "
        "proc_model_stream_unbind: unbind model stream failed, stream is running. model_id=512\n"})
    assert d.category == "stream_event"
    # look-alike: a task the scheduler saw fail is the device's
    ws, d = diagnose(tmp_path / "b", {"device-0/device-1_20200904.log":
        "[ERROR] TSCH(-1,null):2020-09-04-21:51:13.452.762 63696 (cpuid:0) task_scheduler_engine.c:707 "
        "proc_task_exception: task failed, sq_id=514, task_id=3\n"})
    assert d.category == "device"


def test_a_media_drivers_parameter_check_is_the_operator_whatever_the_host_status(tmp_path):
    log = ("[ERROR] KERNEL(2234,sklogd):2023-06-13-19:21:22.987.969 [klogd.c:246][652145.056916] [HiDvpp][A618] "
           "[Vdec]:vdec_check_resize_param [Line]:6768 pid 23973 chn 0 the out format 0 is not supported.\n"
           "[ERROR] ASCENDCL(23973,app):2023-06-13-19:21:23.001.000 [vdec.cpp:88] rtStreamSynchronize failed, "
           "runtime result = 507018\n")
    ws, d = diagnose(tmp_path, {"plog/plog-23973_20230613.log": log})
    assert "the out format 0 is not supported" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: the media driver's own fault names no parameter check
    ws, d = diagnose(tmp_path / "b", {"plog/plog-23973_20230613.log":
        "[ERROR] KERNEL(2234,sklogd):2023-06-13-19:21:22.987.969 [klogd.c:246][652145.056916] [HiDvpp][A618] "
        "[Vdec]:vdec_irq_handler [Line]:90 chn 0 hardware decode timeout\n"})
    assert d.category != "operator"


def test_an_acl_operator_call_that_prints_its_status_routes_by_its_stage(tmp_path):
    """`aclopInferShape ret:500002`: the graph engine's generic status from a single-operator call
    is the operator stage's, not a graph compile's."""
    log = ("[ERROR] GE(30,app):2025-01-13-07:32:37.703.815 [operator_factory_impl.cc:75]30 GetOpsTypeList: "
           "ErrorNo: 4294967295(failed) [INFER][DEFAULT][Check][Param] no operator creators found\n"
           "[INFO] aclopInferShape ret:500002\n"
           "Exception ignored in: <function Engine.__del__ at 0x7f3a2c1e5d80>\n"
           "Segmentation fault (core dumped)\n")
    ws, d = diagnose(tmp_path, {"run.log": log})
    assert "no operator creators found" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: a graph build's call that printed the same status is the compile's
    ws, d = diagnose(tmp_path / "b", {"run.log": log.replace("aclopInferShape", "aclgrphBuildModel")})
    assert d.category == "compile"


def test_c10s_throw_site_outweighs_the_python_frame_that_called_into_it(tmp_path):
    """A Python traceback's innermost frame (the model's forward) and c10's `Exception raised from`
    site both say where; the operator layer that threw names the category."""
    ws, d = diagnose(tmp_path, {"train.log":
        "Traceback (most recent call last):\n"
        '  File "/w/model/config.py", line 80, in __post_init__\n'
        "    out = torch_npu.npu_fused_attention(q, k, v)\n"
        "RuntimeError: setup failed!\n"
        "Exception raised from OperationSetup at build/op-plugin/op_plugin/CMakeFiles/op_plugin_atb.dir/x.ts:131 "
        "(most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8 (0xffff7c3b7908 in libc10.so)\n"})
    assert "setup failed!" in anchor_text(ws, d)
    assert d.category == "operator"


def test_a_compiler_subprocess_that_died_by_a_signal_relays_its_own_diagnostic(tmp_path):
    """`CalledProcessError: … died with <Signals.SIGSEGV: 11>`: the compiler crashed on the kernel;
    the diagnostic it printed (re-raised in the next exception's message) is the cause."""
    log = ("Traceback (most recent call last):\n"
           '  File "/opt/triton/backends/ascend/compiler.py", line 60, in ttir_to_linalg\n'
           "    ret = subprocess.run(cmd_list, capture_output=True, check=True)\n"
           "subprocess.CalledProcessError: Command '['/opt/triton/triton-adapter-opt', '/tmp/k/kernel.ttir.mlir']' "
           "died with <Signals.SIGSEGV: 11>.\n"
           "\n"
           "During handling of the above exception, another exception occurred:\n"
           "\n"
           "Traceback (most recent call last):\n"
           '  File "/w/test.py", line 44, in <module>\n'
           "    fn()\n"
           "triton.compiler.errors.MLIRCompilationError:\n"
           "[ConvertTritonIRToLinalgIR] encounters error:\n"
           "/w/ops/attn.py:133:41: error: cannot div 0!\n")
    ws, d = diagnose(tmp_path, {"compile.log": log})
    assert "cannot div 0!" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: a program that itself died by a signal, no subprocess, is the crash
    ws, d = diagnose(tmp_path / "b", {"run.log": "Fatal Python error: Segmentation fault\n"})
    assert "Segmentation fault" in anchor_text(ws, d)


def test_a_package_without_the_name_imported_from_it_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "[ERROR] ME(105:2814,MainProcess):2024-12-06-12:39:02.460.00 [mindspore/run_check/_check_version.py:360] "
        "CheckFailed: cannot import name 'version' from 'te' (unknown location)\n"})
    assert d.category == "environment"
    # look-alike: a name the script cannot find in its own module is no package of the set-up
    ws, d = diagnose(tmp_path / "b", {"run.log": "NameError: name 'version' is not defined\n"})
    assert d.category != "environment"


def test_a_message_asking_whether_a_library_was_loaded_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log":
        "EZ9999[PID: 56] 2026-03-11-21:59:54.366.980 (EZ9999):  Can not find Node Conv2D1_in_0[Data] custom "
        "infer_datatype func. Please confirm whether the op_proto shared library (.so) has been loaded "
        "successfully.[FUNC:InferDtypeByRegisteredFuncOrRule][FILE:shape_inference.cc][LINE:578]\n"})
    assert d.category == "environment"
    # look-alike: a model whose weights were loaded says nothing of a failure
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "EZ9999[PID: 56] 2026-03-11-21:59:54.366.980 (EZ9999):  Can not find Node Conv2D1_in_0[Data] custom "
        "infer_datatype func.[FUNC:InferDtypeByRegisteredFuncOrRule][FILE:shape_inference.cc][LINE:578]\n"})
    assert d.category != "environment"


def test_a_host_that_cannot_reach_the_network_explains_the_failure_after_it(tmp_path):
    """huggingface_hub's `'[Errno 101] Network is unreachable' thrown while requesting HEAD …`: the
    host's network, which the client's later `Cannot send a request` only follows."""
    log = ("'[Errno 101] Network is unreachable' thrown while requesting HEAD https://huggingface.co/datasets/x/y.json\n"
           "Retrying in 1s [Retry 1/5].\n"
           "Traceback (most recent call last):\n"
           '  File "/w/bench.py", line 98, in download\n'
           "    return hf_hub_download(repo_id=repo_id, filename=filename)\n"
           "RuntimeError: Cannot send a request, as the client has been closed.\n")
    ws, d = diagnose(tmp_path, {"bench.log": log})
    assert "Network is unreachable" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a retry notice alone reports no failure
    ws, d = diagnose(tmp_path / "b", {"bench.log": "Retrying in 1s [Retry 1/5].\nDownload finished.\n"})
    assert d.anchor is None


def test_pythons_error_number_marks_a_failed_system_call(tmp_path):
    ws, d = diagnose(tmp_path, {"run.log": "copy of /data/shard_3 stopped: [Errno 5] Input/output error\n"})
    assert "[Errno 5]" in anchor_text(ws, d)
    # look-alike: the word errno in a help text names no failure
    ws, d = diagnose(tmp_path / "b", {"run.log": "  --errno-file PATH   where to write the errno table\n"})
    assert d.anchor is None


def test_a_linker_that_cannot_resolve_a_symbol_is_the_build(tmp_path):
    """lld's `error: undefined symbol: expf` is the link of the kernel being built; a library that
    a running job loads without a symbol stays the environment."""
    ws, d = diagnose(tmp_path, {"build.log":
        "[ERROR] TBE(5201,python3):2026-03-10-15:41:58.091.235 [repository_manager_log.py:30][log] "
        "[ascend910b]  MyKernelCustom_cecba2 ld.lld: error: undefined symbol: expf\n"})
    assert d.category == "compile"
    # look-alike: the loader at run time
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "ImportError: /usr/lib/libx_impl.so: undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationE\n"})
    assert d.category == "environment"


def test_two_settings_that_cannot_be_combined_are_the_environment(tmp_path):
    """A library refusing a combination of its settings (an allocator's options, a launcher's
    arguments) names the job's configuration, whatever exception carries it."""
    ws, d = diagnose(tmp_path, {"train.log":
        "Traceback (most recent call last):\n"
        '  File "/w/train.py", line 9, in <module>\n'
        "    x = torch.zeros(4, device='npu')\n"
        "RuntimeError: `roundup_power2_divisions` cannot be enabled with `expandable_segments`, "
        "please set `expandable_segments` to `False`.\n"})
    assert "cannot be enabled with" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "c", {"launch.log":
        "launcher.py: error: argument --tp: not allowed with argument --auto-parallel\n"})
    assert d.category == "environment"
    # look-alike: an operator that cannot run with a dtype is no setting of the job
    ws, d = diagnose(tmp_path / "b", {"train.log":
        "Traceback (most recent call last):\n"
        '  File "/w/train.py", line 9, in <module>\n'
        "    y = torch.matmul(a, b)\n"
        "RuntimeError: aclnnMatmul cannot be executed with dtype Float8_e4m3fn on this device.\n"})
    assert "aclnnMatmul cannot be executed" in anchor_text(ws, d)
    assert d.category != "environment"


def test_a_harness_fail_tag_on_a_result_check_is_the_operator(tmp_path):
    """A kernel test harness's `[FAIL]` verdict on comparing the output with its reference: the
    operator computed wrong values, though no error word is printed."""
    ws, d = diagnose(tmp_path, {"verify.log":
        "running case 3/8 shape=(2, 4096)\n"
        "[FAIL] Output mismatch, max diff: 0.731, location: (1, 77)\n"
        "Diff count: 2048\n"})
    assert anchor_text(ws, d) == "[FAIL] Output mismatch, max diff: 0.731, location: (1, 77)"
    assert d.category == "operator"
    # look-alikes: a longer tag is another word, and a passing check is no failure
    ws, d = diagnose(tmp_path / "b", {"verify.log":
        "[FAILOVER] switched the shard to its replica\n"
        "[PASS] Output matches, max diff: 0.0001\n"})
    assert d.anchor is None
    # and a harness failing for a missing file is no wrong result
    ws, d = diagnose(tmp_path / "c", {"verify.log": "[FAIL] cannot open /data/golden/x.bin: No such file or directory: '/data/golden/x.bin'\n"})
    assert d.category != "operator"


def test_a_scheduler_timeout_whose_dump_names_a_notify_wait_is_communication(tmp_path):
    """The task scheduler's hardware timeout names the hung task's kind in its register dump: a
    notify wait is a collective waiting on a peer, not a kernel hung on this device."""
    head = "[ERROR] TSCH(-1,null):2026-03-11-10:00:{} {} (dieid:0,cpuid:0) hwts_plat.c:1931 int_process_hwts_timeout_exception: "
    def log(kind: str) -> str:
        return (head.format("09.520.395", 11) + "RTS_HWTS: hwts timeout exception bitmap=0x8000\n"
                "<exception_print>HWTS_PUBLIC_START\n"
                "<exception_print>TIME:2026-03-11-10:00:09.520.401, device_id=0, stream_id=16, task_id=43\n"
                f"<exception_print>{kind}\n"
                + head.format("09.520.500", 12) + "RTS_HWTS: hwts timeout exception, slot_id=15, stream_id=16\n")
    ws, d = diagnose(tmp_path, {"device-0/device-0_20260311100000.log": log("notify wait timeout")})
    assert "hwts timeout exception bitmap" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: the same timeout on a kernel of this device stays the device's
    ws, d = diagnose(tmp_path / "b", {"device-0/device-0_20260311100000.log": log("aicore execute timeout")})
    assert "hwts timeout exception bitmap" in anchor_text(ws, d)
    assert d.category == "device"


def _p2p_waits(first_peer_line: str) -> str:
    """Four processes' link set-up waits: the first names one peer, three others wait on device 1."""
    h = "[ERROR] HCCL({pid},python3):2026-03-11-09:28:{ts} [{src}] [{tid}]"
    return (h.format(pid=501, ts="34.062.662", src="hccl_socket_manager.cc:778", tid=601) + first_peer_line + "\n"
            + "".join(h.format(pid=pid, ts=ts, src="p2p_mgmt.cc:305", tid=tid)
                      + f"[Wait][P2PConnected]connected p2p timeout, timeout:130 s. local logicDevid:{dev}, remote physic id:1.\n"
                      for pid, ts, tid, dev in ((501, "35.062.066", 611, 2), (502, "35.084.445", 612, 3),
                                                (503, "35.212.164", 613, 0))))


def test_when_only_waits_failed_the_first_wait_on_the_most_waited_peer_is_the_anchor(tmp_path):
    """Every process waited on a peer: the peer most of them waited on never came up, and a wait
    on another peer (itself stuck waiting on that one) only passes the wait along."""
    ws, d = diagnose(tmp_path, {"plog/plog-501_20260311092600000.log": _p2p_waits(
        "[Wait][LinkEstablish]wait socket establish timeout, role[1] rank[10] remote rank: [8] timeout[130]")})
    assert "local logicDevid:2, remote physic id:1." in anchor_text(ws, d)
    assert d.category == "communication"
    # it says which peer it chose and why the earlier wait lost
    assert "3 processes waited on device 1" in d.why
    assert any("wait on rank 8" in c.why_not for c in d.candidates)
    assert "device 1" in d.root_cause and "rank 8" not in d.root_cause
    # look-alike: the first wait already names the peer the others wait on: it stays the anchor
    ws, d = diagnose(tmp_path / "b", {"plog/plog-501_20260311092600000.log": _p2p_waits(
        "[Wait][P2PConnected]connected p2p timeout, timeout:130 s. local logicDevid:5, remote physic id:1.")})
    assert "local logicDevid:5, remote physic id:1." in anchor_text(ws, d)


def test_an_engine_refusing_an_operators_specs_is_the_operator(tmp_path):
    """EZ3002: a kernel engine exists for the op type and refuses these specs (dtype, format,
    shape): the operator's own support. EZ3003, no engine for the type at all, points at what is
    installed."""
    ws, d = diagnose(tmp_path, {"atc.log":
        "ATC start working now, please wait for a moment.\n"
        "EZ3002: [PID: 4242] 2026-03-11-10:00:01.123.456 Optype [NonMaxSuppressionV7] of Ops kernel "
        "[AIcoreEngine] is unsupported. Reason: the dtype DT_INT64 of input [boxes] is not supported.\n"
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"})
    assert "Optype [NonMaxSuppressionV7]" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: no engine found for the op type at all: the installed packages
    ws, d = diagnose(tmp_path / "b", {"atc.log":
        "ATC start working now, please wait for a moment.\n"
        "EZ3003: [PID: 4242] 2026-03-11-10:00:01.123.456 No supported Ops kernel and engine are found for "
        "[nms_1], optype [NonMaxSuppressionV7].\n"
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"})
    assert "No supported Ops kernel" in anchor_text(ws, d)
    assert d.category == "environment"


def test_a_memory_copy_refused_for_its_kind_is_the_callers_argument(tmp_path):
    """The runtime refuses a copy whose declared kind does not match where the memory is: the
    caller passed a wrong argument (operator), not a stream fault nor a lack of memory."""
    ws, d = diagnose(tmp_path, {"plog/plog-291088_20260311100000000.log":
        plog("ERROR", "RUNTIME", 291088, "10:00:01.519.799", "[api_error.cc:963]291577 MemcpyAsyncCheckKindAndLocation:"
             "[EXEC][EXEC]Memory async failed, src loc type=2, dst loc type=2, kind=1 is invalid!")})
    assert "kind=1 is invalid" in anchor_text(ws, d)
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "c", {"run.log":
        "[PID: 2144477] 2026-03-11-10:00:01.355.891 Invalid_Argument(EE1001): The argument is invalid.Reason: "
        "The real memory type of src is 1(RT_MEMORY_LOCATION_DEVICE), and the input type is 0(RT_MEMORY_LOCATION_HOST).\n"})
    assert d.category == "operator"
    # look-alike: an asynchronous copy that failed while it ran on a stream is no argument refused
    ws, d = diagnose(tmp_path / "b", {"plog/plog-291088_20260311100000000.log":
        plog("ERROR", "RUNTIME", 291088, "10:00:01.519.799", "[stream.cc:1023]291577 SynchronizeImpl:"
             "[EXEC][EXEC]Stream synchronize failed, stream_id=11, async copy task failed, retCode=0x7150050")})
    assert d.category != "operator"


def test_a_traceback_cut_above_its_header_still_names_the_code_that_raised(tmp_path):
    """Bug reports often paste a traceback from its middle: the innermost frame above the
    exception still says that a configuration's own check refused a setting."""
    tail = ("[rank6]:     fn(self)\n"
            '[rank6]:   File "/w/megatron/core/transformer/transformer_config.py", line 621, in __post_init__\n'
            "[rank6]:     raise ValueError('num_moe_experts must be non None to use expert-parallel.')\n"
            "[rank6]: ValueError: num_moe_experts must be non None to use expert-parallel.\n")
    ws, d = diagnose(tmp_path, {"train.log": tail})
    assert "[rank6]: ValueError: num_moe_experts" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the same cut traceback raised by the model's forward refuses no setting
    ws, d = diagnose(tmp_path / "b", {"train.log": tail.replace("transformer/transformer_config.py", "models/moe_layer.py")
                                      .replace("__post_init__", "forward")})
    assert "[rank6]: ValueError: num_moe_experts" in anchor_text(ws, d)
    assert d.category != "environment"


def test_a_cut_traceback_ends_with_its_bare_exception(tmp_path):
    """Without its `Traceback` header, the unindented line right under the last frame and its
    source line is still the exception, even a bare class name."""
    ws, d = diagnose(tmp_path, {"atc.log":
        '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 383, in _recv\n'
        "    raise EOFError\n"
        "EOFError\n"
        "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"})
    assert anchor_text(ws, d) == "EOFError"
    # look-alike: an indented line with no frame above it is no traceback's source line
    ws, d = diagnose(tmp_path / "b", {"run.log": "    retry queue drained\nShutdown\n"})
    assert d.anchor is None


def test_a_compiler_warning_is_not_the_message_of_the_exception_above_it(tmp_path):
    """An exception printed with an empty first line takes its message from the lines after it;
    a compiler's warning there does not stop the compiler, so the message is what follows it."""
    ws, d = diagnose(tmp_path, {"run.log":
        "triton.compiler.errors.MLIRCompilationError: \n"
        "[ConvertTritonIRToLinalgIR] encounters error:\n"
        "<unknown>:0: warning: could not cast operand of type 'f16' to '!tt.ptr<f16>'\n"
        '%206 = "tt.reshape"(%203) {MixUse} : (tensor<16xi32>) -> tensor<1x16xi32>\n'})
    assert anchor_text(ws, d).startswith('%206 = "tt.reshape"')
    # look-alike: a compiler's error there is the message
    ws, d = diagnose(tmp_path / "b", {"run.log":
        "triton.compiler.errors.MLIRCompilationError: \n"
        "[ConvertTritonIRToLinalgIR] encounters error:\n"
        "<unknown>:0: error: could not cast operand of type 'f16' to '!tt.ptr<f16>'\n"})
    assert "error: could not cast operand" in anchor_text(ws, d)


def test_torch_logging_compile_id_is_part_of_the_prefix(tmp_path):
    """torch's own logger prints the compile it traces after its glog header (`[0/0] `): a
    traceback under it is read as one, and ends in its exception."""
    head = "[rank7]:E0106 03:23:01.677000 37645 site-packages/torch/_subclasses/fake_tensor.py:2721] [0/0] "
    ws, d = diagnose(tmp_path, {"worker.log": "".join(head + line + "\n" for line in (
        "failed while attempting to run meta for npu.npu_quant_matmul.default",
        "Traceback (most recent call last):",
        '  File "/py/site-packages/torch/__init__.py", line 1666, in _check_with',
        "    raise error_type(message_evaluated)",
        "RuntimeError: scale's dtype must be float32, but scale's dtype is torch.float16"))})
    assert anchor_text(ws, d).endswith("RuntimeError: scale's dtype must be float32, but scale's dtype is torch.float16")


def test_an_import_the_application_tolerated_is_no_cause(tmp_path):
    """An application that caught a module's absence and logged it as a WARNING (an optional
    extension) goes on without it; the later failure is the cause."""
    later = ("INFO 06-28 08:28:40 model_runner.py:950] Loading model weights took 14.2 GB\n"
             "[rank0]:[E628 08:28:45.008203220 compiler_depend.ts:422] setup failed!\n")
    ws, d = diagnose(tmp_path, {"serve.log":
        "WARNING 06-28 08:28:13 camem.py:69] Failed to import vllm_ascend_C:No module named 'vllm_ascend.vllm_ascend_C'\n"
        + later})
    assert anchor_text(ws, d).endswith("setup failed!")
    # logged at ERROR by another release, it still gives way to a later failure (and, alone, is
    # the cause: test_a_line_that_announces_the_following_error_wraps_it)
    ws, d = diagnose(tmp_path / "e", {"serve.log":
        "ERROR 06-28 08:28:13 camem.py:69] Failed to import vllm_ascend_C:No module named 'vllm_ascend.vllm_ascend_C'\n"
        + later})
    assert anchor_text(ws, d).endswith("setup failed!")
    # look-alike: a library that failed to load is a cause wherever it is logged
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "WARNING 06-28 08:28:13 camem.py:64] Failed to import vllm_ascend_C:libvllm_ascend_kernels.so: "
        "cannot open shared object file: No such file or directory\n" + later})
    assert "cannot open shared object file" in anchor_text(ws, d)


def _traceback(outer: list[str], inner: list[str], exc: str, prefix: str = "") -> str:
    lines = ["Traceback (most recent call last):"]
    for path in outer + inner:
        lines += [f'  File "{path}", line 10, in f', "    return g(x)"]
    return "".join(prefix + line + "\n" for line in lines + [exc])


_CALL_PATH = ["/w/vllm/v1/executor/multiproc_executor.py", "/w/vllm/compilation/decorators.py",
              "/w/vllm/model_executor/models/mtp.py", "/w/vllm/model_executor/layers/linear.py"]


def test_only_the_frames_near_the_raise_route_the_category(tmp_path):
    """The outer frames of a traceback are the call path: a model built under a compile decorator
    did not fail to compile when a weight's key is missing two layers further in."""
    inner = ["/w/plugin/quantization/quant_config.py", "/w/plugin/quantization/skip.py"]
    ws, d = diagnose(tmp_path, {"serve.log": _traceback(_CALL_PATH, inner, "KeyError: 'model.layers.61.head.weight'")})
    assert "KeyError" in anchor_text(ws, d)
    assert d.category == "unknown"
    # logged above its traceback (vLLM's worker), the same holds
    logged = "ERROR 11-09 08:03:19 [multiproc_executor.py:597] "
    ws, d = diagnose(tmp_path / "l", {"serve.log": logged + "WorkerProc failed: 'model.layers.61.head.weight'\n"
                                      + _traceback(_CALL_PATH, inner, "KeyError: 'model.layers.61.head.weight'", logged)})
    assert d.category == "unknown"
    # look-alike: raised inside the compile backend's own frames, the failure is the compile's
    inner = ["/w/vllm/compilation/piecewise_backend.py", "/w/plugin/compilation/acl_graph.py"]
    ws, d = diagnose(tmp_path / "c", {"serve.log": _traceback(_CALL_PATH[:1], inner,
                                                              "AssertionError: Shape: 2304 out of considered ranges")})
    assert d.category == "compile"


def test_an_engine_that_failed_to_start_sends_the_reader_to_its_own_traceback(tmp_path):
    """vLLM's API server says the engine process failed to start and points at the stack trace
    above: the engine's own error is the cause."""
    logged = "ERROR 05-15 11:58:24 [engine.py:448] "
    engine = (logged + "'model.layers.0.self_attn.q_proj.weight'\n"
              + _traceback(["/w/vllm/engine/multiprocessing/engine.py"], ["/w/plugin/quant_config.py"],
                           "KeyError: 'model.layers.0.self_attn.q_proj.weight'", logged))
    server = _traceback(["/w/bin/vllm", "/w/vllm/entrypoints/openai/api_server.py"], [],
                        "RuntimeError: Engine process failed to start. See stack trace for the root cause.")
    ws, d = diagnose(tmp_path, {"serve.log": engine + server})
    assert "q_proj.weight" in anchor_text(ws, d)
    assert "Engine process failed" not in anchor_text(ws, d)
    # look-alike: with nothing before it, the server's exception is what there is
    ws, d = diagnose(tmp_path / "a", {"serve.log": server})
    assert "Engine process failed to start" in anchor_text(ws, d)


def test_an_exception_carrying_a_subprocess_output_gives_way_to_the_subprocess_error(tmp_path):
    logged = "(APIServer pid=883) ERROR 09-12 09:11:55 [registry.py:449] "
    text = (_traceback(["/w/vllm/model_executor/models/registry.py"], [], "RuntimeError: Error raised in subprocess:", logged)
            + _traceback(["<frozen runpy>", "/w/vllm/model_executor/models/registry.py"], ["/w/fla/ops/utils.py"],
                         "AttributeError: module 'triton.language' has no attribute 'exp'", logged))
    ws, d = diagnose(tmp_path, {"serve.log": text})
    assert "has no attribute 'exp'" in anchor_text(ws, d)
    # look-alike: an exception whose message goes on after the words is its own error
    ws, d = diagnose(tmp_path / "b", {"serve.log": _traceback(["/w/run.py"], [],
                                                              "RuntimeError: Error raised in subprocess: exit code 3")})
    assert "Error raised in subprocess: exit code 3" in anchor_text(ws, d)


def test_a_caught_import_printed_bare_gives_way_to_a_later_failure(tmp_path):
    """`No module named 'x'` alone on its line (a caught ImportError's message, a warning's text)
    is a notice the program went on from; the library that later failed to load is the cause."""
    later = _traceback(["/w/test.py"], ["/w/torch_npu/__init__.py"],
                       "ImportError: libatb.so: cannot open shared object file: No such file or directory")
    ws, d = diagnose(tmp_path, {"run.log": "No module named 'vllm._version'\n"
                                "  from vllm.version import __version__ as VLLM_VERSION\n" + later})
    assert "libatb.so" in anchor_text(ws, d)
    # look-alike: the exception itself, with its class, stays a cause
    ws, d = diagnose(tmp_path / "b", {"run.log": _traceback(["/w/test.py"], [],
                                                            "ModuleNotFoundError: No module named 'vllm._version'") + later})
    assert "No module named 'vllm._version'" in anchor_text(ws, d)


_STOP = ("[2026-06-16 16:21:15,212] torch.distributed.elastic.agent.server.api: [WARNING] Received "
         "Signals.SIGINT death signal, shutting down workers\n"
         "[2026-06-16 16:21:15,212] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 41 "
         "closing signal SIGINT\n")
_SHUTDOWN = ("[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!\n"
             + _traceback(["/w/multiprocessing/managers.py"], ["/w/multiprocessing/connection.py"], "EOFError"))


def test_a_job_told_to_stop_before_any_failure_is_anchored_on_the_stop(tmp_path):
    """torchrun's agent received a stop signal and nothing failed before it: the workers' errors
    while shutting down follow from the stop, and the report says so (not that a process crashed)."""
    ws, d = diagnose(tmp_path, {"train.log": "2026-06-16 16:21:11,513 DEBUG CV | Batch 230/200 loss 1.92\n"
                                + _STOP + _SHUTDOWN})
    assert "death signal" in anchor_text(ws, d)
    assert "told to stop" in d.root_cause and "crashed" not in d.root_cause
    assert "who sent the stop" in d.next_actions[0].action
    # look-alike: a failure before the stop is the cause, and the stop one of its consequences
    failed = _traceback(["/w/train.py"], ["/w/wenet/executor.py"], "ZeroDivisionError: division by zero")
    ws, d = diagnose(tmp_path / "b", {"train.log": failed + _STOP + _SHUTDOWN})
    assert "ZeroDivisionError" in anchor_text(ws, d)


def test_a_grpc_server_sending_away_a_client_that_pings_too_often_is_its_setting(tmp_path):
    ws, d = diagnose(tmp_path, {"client.log":
        '2026/02/09 15:25:22 ERROR: [transport] Client received GoAway with error code ENHANCE_YOUR_CALM and '
        'debug data equal to ASCII "too_many_pings".\n'})
    assert d.category == "environment"
    # look-alike: a server that closed the connection for no such reason is the link's problem
    ws, d = diagnose(tmp_path / "b", {"client.log":
        "2026/02/09 15:25:22 ERROR: [transport] Client received GoAway with error code NO_ERROR; connection "
        "error: socket closed\n"})
    assert d.category == "communication"


def test_an_exception_a_data_pipeline_raised_and_logged_as_a_warning_is_a_cause(tmp_path):
    """torch's DataPipes note the exceptions raised inside them; a program that logs the message at
    WARNING and goes on has still lost its data, and the later failure (nothing to average over)
    follows from it."""
    later = _traceback(["/w/train.py"], ["/w/wenet/executor.py"], "ZeroDivisionError: division by zero")
    caught = ("2026-06-16 10:09:52,918 WARNING Expecting value: line 1 column 1 (char 0)\n"
              "This exception is thrown by __iter__ of MapperIterDataPipe(datapipe=RawDatasetSource, fn=parse_json, "
              "input_col=None, output_col=None)\n")
    ws, d = diagnose(tmp_path, {"train.log": caught * 3 + later})
    assert "This exception is thrown by __iter__" in anchor_text(ws, d)
    # look-alike: the same warning without the pipeline's note is context, and the exception the cause
    ws, d = diagnose(tmp_path / "b", {"train.log": "2026-06-16 10:09:52,918 WARNING Expecting value: line 1 column 1 "
                                      "(char 0)\n" + later})
    assert "ZeroDivisionError" in anchor_text(ws, d)


def test_the_api_server_noticing_its_engine_died_is_no_cause(tmp_path):
    """vLLM's launcher says the engine is already dead (printed before the engine's own report
    reaches the log): the engine's exception is the cause."""
    logged = "ERROR 02-28 03:25:56 engine.py:137] "
    ws, d = diagnose(tmp_path, {"serve.log":
        "CRITICAL 02-28 03:25:56 launcher.py:99] MQLLMEngine is already dead, terminating server process\n"
        + logged + "TypeError('Builder.build() takes 3 positional arguments but 5 were given')\n"
        + _traceback(["/w/vllm/engine/multiprocessing/engine.py"], ["/w/vllm/worker/model_runner.py"],
                     "TypeError: Builder.build() takes 3 positional arguments but 5 were given", logged)})
    assert "takes 3 positional arguments" in anchor_text(ws, d)
    # look-alike: a launcher line about something else it found dead stays an error of its own
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "CRITICAL 02-28 03:25:56 launcher.py:99] Tokenizer pool is already dead, terminating server process\n"
        + logged + "TypeError('Builder.build() takes 3 positional arguments but 5 were given')\n"})
    assert "Tokenizer pool is already dead" in anchor_text(ws, d)


def test_a_compiler_drivers_own_error_is_the_build_failure(tmp_path):
    """A kernel compiler that refuses an option or a language before reading any source (an older
    toolkit) says so first; the JIT's `Compilation Failed!` and the exit header wrap it."""
    text = ("bisheng: error: unsupported option '--npu-arch=dav-2201'\n"
            "bisheng: error: language not recognized: 'asc'\n"
            + _traceback(["/w/conftest.py", "/w/tilelang/jit/__init__.py"], ["/w/tilelang/jit/adapter/libgen.py"],
                         "RuntimeError: Compilation Failed! ['bisheng', '--npu-arch=dav-2201', '-O2']")
            + "[ERROR] 2026-03-23-16:32:09 (PID:9, Device:-1, RankID:-1) ERR99999 UNKNOWN applicaiton exception\n")
    ws, d = diagnose(tmp_path, {"build.log": text})
    assert "unsupported option '--npu-arch=dav-2201'" in anchor_text(ws, d)
    # look-alike: a program's usage error in the same shape is no compiler's
    ws, d = diagnose(tmp_path / "b", {"build.log": "bishengview: note: language not recognized: 'asc'\n"
                                      + _traceback(["/w/conftest.py"], [], "RuntimeError: Compilation Failed!")})
    assert "Compilation Failed!" in anchor_text(ws, d)


def test_an_ascend_installers_error_is_the_environment(tmp_path):
    ws, d = diagnose(tmp_path, {"install.log": "[Driver] [ERROR] ERR_NO:0x0091; ERR_DES: HwHiAiUser not exists!\n"})
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "t", {"install.log": "[Toolkit] [2026-03-11 10:00:00] [ERROR] No packages to install !\n"})
    assert d.category == "environment"
    # look-alike: the same words from an application's own logger are not the installation's
    ws, d = diagnose(tmp_path / "b", {"app.log": "[Decoder] [ERROR] ERR_NO:0x0091; ERR_DES: frame not exists!\n"})
    assert d.category != "environment"


def test_a_symbol_defined_twice_is_why_the_link_failed(tmp_path):
    """Two objects that define one symbol (a stale object left in the build tree, a function
    defined in a header): the linker's own error is the cause, not the build tool's report."""
    text = ("/usr/bin/ld: build/objects/pos_encoding.cpp.o: in function `rope_half':\n"
            "pos_encoding.cpp:(.text+0x0): multiple definition of `rope_half'; build/objects/pos_encoding.cpp.o:"
            "(.text+0x0): first defined here\n"
            "collect2: error: ld returned 1 exit status\n"
            + _traceback(["/w/setup.py", "/w/subprocess.py"], [],
                         "subprocess.CalledProcessError: Command '['/usr/bin/c++', '-shared']' returned non-zero exit "
                         "status 1.")
            + "gmake: *** [Makefile:286: kernels] Error 2\n")
    ws, d = diagnose(tmp_path, {"build.log": text})
    assert "multiple definition of `rope_half'" in anchor_text(ws, d)
    # look-alike: a definition the linker only reports as where a symbol was first seen is no error
    ws, d = diagnose(tmp_path / "b", {"build.log": "note: the first definition of `rope_half' is here\n"
                                      "collect2: error: ld returned 1 exit status\n"})
    assert "collect2" in anchor_text(ws, d)


def test_mindspore_placing_a_tensor_on_another_kind_of_device_is_the_platform(tmp_path):
    ws, d = diagnose(tmp_path, {"export.log": _traceback(["/w/tools/export.py", "/w/mindocr/models/backbones/svtr.py"],
                                                         ["/w/mindspore/ops/function/array_func.py"],
        "RuntimeError: The device address type is wrong: type name in address:CPU, type name in context:Ascend")})
    assert d.category == "environment"
    # look-alike: an address that is only out of range is the operator's
    ws, d = diagnose(tmp_path / "b", {"run.log": _traceback(["/w/run.py"], [],
        "RuntimeError: The device address is out of range for operator Gather: 0x1200800")})
    assert d.category != "environment"


def test_vllms_logger_with_the_year_in_its_date_is_a_prefix(tmp_path):
    """Newer vLLM releases print `ERROR 2026-01-12 16:28:02.921 [file.py:824]`: the same logger
    prefix as `ERROR 01-12 16:28:02 [file.py:824]`, so a logged traceback ends in its exception."""
    for name, stamp in (("year", "2026-01-12 16:28:02.921"), ("short", "01-12 16:28:02")):
        logged = f"(Worker_DP0_PCP1_TP1_EP3 pid=1041) ERROR {stamp} [multiproc_executor.py:824] "
        text = logged + "WorkerProc hit an exception.\n" + _traceback(
            ["/w/vllm/v1/executor/multiproc_executor.py", "/w/vllm_ascend/worker/worker.py"],
            ["/w/vllm_ascend/distributed/mooncake_connector.py"], "IndexError: list index out of range", logged)
        ws, d = diagnose(tmp_path / name, {"serve.log": text})
        assert anchor_text(ws, d).endswith("IndexError: list index out of range"), name


def test_a_missing_standard_library_header_is_the_toolchain(tmp_path):
    """A compiler that cannot find `<filesystem>` is older than the sources need (or its include
    path is not set up): the build machine's toolchain, not the code."""
    build = ("[ 12%] Building CXX object CMakeFiles/torch_npu.dir/csrc/core/npu/NPUStream.cpp.o\n"
             "/w/torch_npu/csrc/toolkit/profiler/inc/data_dumper.h:9:10: fatal error: 'filesystem' file not found\n"
             "make[2]: *** [CMakeFiles/torch_npu.dir/build.make:76: NPUStream.cpp.o] Error 1\n")
    ws, d = diagnose(tmp_path, {"build.log": build})
    assert "'filesystem' file not found" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the project's own header missing is the sources' (or the build's) problem
    ws, d = diagnose(tmp_path / "b", {"build.log": build.replace("'filesystem'", "'npu_stream_guard.h'")})
    assert d.category != "environment"


def test_an_installer_step_that_sends_the_reader_to_its_log_is_the_installation(tmp_path):
    """The driver's `.run` installer prints bare `[ERROR]` lines for its own checks of the host
    (the owner of its directory, the tools it needs, a kernel module it could not build), each
    naming its installation log: the machine's set-up, not a job."""
    for name, line in (("owner", "[ERROR]The given directory, including its parents, should belong to root, details in "
                                 ": var/log/ascend_seclog/ascend_install.log. "),
                       ("dkms", "[ERROR]Dkms install failed, details in : var/log/ascend_seclog/ascend_install.log. "),
                       ("tools", "[ERROR]The list of missing tools: pciutils,net-tools")):
        ws, d = diagnose(tmp_path / name, {"install.log": line + "\n"})
        assert d.category == "environment", name
    # look-alike: an application's own failed step with a log of its own names no installation
    ws, d = diagnose(tmp_path / "b", {"app.log": "[ERROR]Checkpoint merge failed, details in : /w/run/merge.log.\n"})
    assert d.category != "environment"


def test_mindspore_finding_no_kernel_for_the_inputs_is_the_operator(tmp_path):
    """MindSpore's kernel selection names the AI Core and AI CPU kernel lists it searched: no kernel
    of the operator takes these dtypes, which is the operator's support, not a fault of a core."""
    exc = ("TypeError: Can not select a valid kernel info for [LogicalXor] in AI CORE or AI CPU kernel info "
           "candidates list.")
    ws, d = diagnose(tmp_path, {"train.log": _traceback(["/w/train.py"], ["/w/mindspore/ops/primitive.py"], exc)})
    assert "Can not select a valid kernel info" in anchor_text(ws, d)
    assert d.category == "operator"
    # look-alike: a kernel that did run on an AI Core and failed there is the device's
    ws, d = diagnose(tmp_path / "b", {"train.log": _traceback(["/w/train.py"], [],
        "RuntimeError: The AI CORE kernel of [LogicalXor] failed to execute, core id is 3")})
    assert d.category == "device"


def test_an_operator_without_a_meta_kernel_for_dynamic_output_shapes_is_the_compile(tmp_path):
    """Tracing for torch.compile or a captured graph runs each operator on fake tensors: one whose
    output shape depends on its data and has no meta kernel for that cannot be traced."""
    logged = "(EngineCore_DP0 pid=31) ERROR 03-11 10:00:00 [core.py:710] "
    text = logged + ("RuntimeError: Worker failed with error 'dynamic shape operator: aten.nonzero.default; Operator "
                     "does not have a meta kernel that supports dynamic output shapes, please report an issue to "
                     "PyTorch', please check the stack trace above for the root cause\n")
    ws, d = diagnose(tmp_path, {"serve.log": text})
    assert "meta kernel" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: an operator refusing its inputs when it runs is the operator's
    ws, d = diagnose(tmp_path / "b", {"serve.log": logged + "RuntimeError: Worker failed with error 'operator "
                                      "aten.nonzero.default: input of 9 dims is not supported'\n"})
    assert d.category == "operator"


def test_frames_another_process_printed_do_not_route_the_workers_error(tmp_path):
    """vLLM's engine re-raises a worker's failure from its own traceback (`collective_rpc`,
    `get_response`): those frames show where the failure was relayed, so a bare assertion in the
    worker's model code stays the worker's own, not a collective's."""
    worker = "(Worker_TP0 pid=40) ERROR 03-11 10:00:00 [multiproc_executor.py:671] "
    engine = "(EngineCore_DP0 pid=30) ERROR 03-11 10:00:00 [core.py:708] "
    text = (_traceback(["/w/vllm/v1/executor/multiproc_executor.py", "/w/vllm_ascend/worker/model_runner.py"],
                       ["/w/vllm_ascend/models/linear_attn.py"], "AssertionError", worker)
            + engine + "EngineCore failed to start.\n"
            + _traceback(["/w/vllm/v1/engine/core.py", "/w/vllm/v1/executor/abstract.py"],
                         ["/w/vllm/v1/executor/multiproc_executor.py"],
                         "RuntimeError: Worker failed with error '', please check the stack trace above for the root "
                         "cause", engine).replace("return g(x)", "return self.collective_rpc(method)"))
    ws, d = diagnose(tmp_path, {"serve.log": text})
    assert anchor_text(ws, d).endswith("AssertionError")
    assert d.category == "unknown"
    # look-alike: a worker's own traceback raised inside the collective it called is communication
    text = _traceback(["/w/vllm_ascend/worker/model_runner.py"], ["/w/torch/distributed/distributed_c10d.py"],
                      "RuntimeError: HCCL collective all_reduce failed on rank 1", worker)
    ws, d = diagnose(tmp_path / "b", {"serve.log": text})
    assert d.category == "communication"


def test_a_bare_failure_raised_in_torch_npus_operator_plugin_is_the_operator(tmp_path):
    """An ATB operation that refuses its set-up raises a bare `setup failed!` through torch_npu's
    operator plug-in: the frames it was raised in say an operator refused the call."""
    inner = ["/w/vllm_ascend/ops/rotary_embedding.py", "/w/torch_npu/op_plugin/atb/_atb_ops.py", "/w/torch/_ops.py"]
    ws, d = diagnose(tmp_path, {"serve.log": _traceback(["/w/vllm/worker/model_runner.py"], inner,
                                                        "RuntimeError: setup failed!", "[rank0]: ")})
    assert anchor_text(ws, d).endswith("RuntimeError: setup failed!")
    assert d.category == "operator"
    # look-alike: the same words raised by the application's own set-up name no operator
    inner = ["/w/app/services/loader.py", "/w/app/services/setup.py", "/w/torch/_ops.py"]
    ws, d = diagnose(tmp_path / "b", {"serve.log": _traceback(["/w/app/main.py"], inner,
                                                              "RuntimeError: setup failed!", "[rank0]: ")})
    assert d.category != "operator"


def ms_log(level: str, module: str, pid: int, ts: str, rest: str) -> str:
    """A MindSpore log line: its thread id and process name after the pid."""
    return f"[{level}] {module}({pid},ffffb4d8e480,python):2026-03-11-{ts} {rest}\n"


def test_a_codeless_step_failure_gives_way_to_the_error_message_passed_on_after_it(tmp_path):
    """Older MindSpore prints the error manager's message on the line that announces it
    (`Ascend error occurred, error message: EI0004: …`) right after the step that failed without a
    reason: the message explains the step."""
    text = (ms_log("CRITICAL", "HCCL_ADPT", 71, "10:00:00.314.843",
                   "[mindspore/ccsrc/runtime/hccl_adapter/hccl_adapter.cc:391] InitKernelInfoStore] Init hccl graph "
                   "adapter failed.")
            + ms_log("CRITICAL", "DEVICE", 71, "10:00:00.315.092",
                     "[mindspore/ccsrc/runtime/device/ascend/ascend_kernel_runtime.cc:357] Init] Ascend error occurred, "
                     "error message: EI0004: Invalid ranktable, with rank_id [0] and local device_id [0]."))
    ws, d = diagnose(tmp_path, {"train.log": text})
    assert "EI0004: Invalid ranktable" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: the announcement alone (its block under it missing) explains nothing
    text = text.split("error message: ")[0] + "error message:\n"
    ws, d = diagnose(tmp_path / "b", {"train.log": text})
    assert "Init hccl graph adapter failed" in anchor_text(ws, d)


def test_a_task_failure_report_gives_way_to_the_cann_message_of_its_exception(tmp_path):
    """MindSpore's dump of a failed task gives only the generic `model execute failed`; the
    `Ascend Error Message` of the exception it raises names the task (a notify wait on a peer that
    never recorded), even though those lines name no process of their own."""
    head = ms_log("ERROR", "DEVICE", 71, "10:00:00.200.963",
                  "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:744] DumpTaskExceptionInfo] "
                  "Task fail infos task_id: 10, stream_id: 27, tid: 71, device_id: 1, retcode: 507011 ( model "
                  "execute failed)")
    section = ("RuntimeError: Run task for graph:kernel_graph_1 error! The details refer to 'Ascend Error Message'.\n\n"
               "----------------------------------------------------\n- Ascend Error Message:\n"
               "----------------------------------------------------\n"
               "EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not "
               "received the Notify record from remote rank [0].\n")
    ws, d = diagnose(tmp_path, {"train.log": head + section})
    assert anchor_text(ws, d).startswith("EI0002: The wait execution")
    assert d.category == "communication"
    # look-alike: a message in another log names another process's failure, not this task's
    ws, d = diagnose(tmp_path / "b", {"train.log": head, "other/train.log": section})
    assert "Task fail infos" in anchor_text(ws, d)


def test_torch_npus_status_description_stays_with_the_escaped_fragment(tmp_path):
    """In an escaped console block, torch_npu's `[Error]:` line describes the status printed just
    before it: the anchored fragment shows both."""
    line = ('{"detail":"[address=10.0.0.1:4000, pid=9] getDevice:torch_npu/csrc/aten/common/CopyKernel.cpp:41 NPU error, '
            'error code is 107002\\n[Error]: The context is empty.\\n Check whether acl.rt.set_context or '
            'acl.rt.set_device is called.\\n"}\n')
    ws, d = diagnose(tmp_path, {"serve.log": line})
    assert d.anchor.fragment.endswith("error code is 107002\\n[Error]: The context is empty.")
    # look-alike: a plain sub-line after the status is not its description
    ws, d = diagnose(tmp_path / "b", {"serve.log": line.replace("[Error]: The context", "Retrying: the context")})
    assert d.anchor.fragment.endswith("error code is 107002")


def test_a_device_that_could_not_be_set_up_is_the_environment(tmp_path):
    """A driver call that could not set the device up, under a call layer that reports 507033
    (device set-up failed) and nothing that says why: the set-up itself, not the job."""
    text = ("[INFO] acl init success\n"
            "\tFailed to init device context, retCode=0x7020014, deviceId=3.[FUNC:Init][FILE:device.cc][LINE:211]\n"
            "\tset device 3 failed, runtime result = 507033.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:162]\n"
            "[ERROR] acl set device 3 failed\n")
    ws, d = diagnose(tmp_path, {"infer.log": text})
    assert "Failed to init device context" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the same call failing with a core's fault is the device's
    ws, d = diagnose(tmp_path / "b", {"infer.log": text.replace("507033", "507015")})
    assert d.category == "device"


def test_a_stream_call_named_in_camel_case_is_a_stream_failure(tmp_path):
    """MindSpore's `SyncStream failed` names the runtime's stream synchronisation in CamelCase."""
    text = ms_log("ERROR", "DEVICE", 71, "10:00:00.836.235",
                  "[mindspore/ccsrc/runtime/device/kernel_runtime_manager.cc:136] WaitTaskFinishOnDevice] "
                  "SyncStream failed, exception:The pointer[stream] is null.")
    ws, d = diagnose(tmp_path, {"train.log": text})
    assert d.category == "stream_event"
    # look-alike: `Stream` inside another word (an upstream server) is not a stream
    ws, d = diagnose(tmp_path / "b", {"train.log": text.replace("SyncStream failed, exception:The pointer[stream] "
                                                                 "is null.", "UpStream failed to answer.")})
    assert d.category != "stream_event"


def test_a_suspected_remote_error_is_a_peers_failure(tmp_path):
    """507057 (the runtime suspects the fault is on the device at the far end of a link) and
    507056 (a link error) send the reader to the peer's logs: communication."""
    text = ("(Worker_TP0 pid=51886) ERROR 11-14 08:13:55 [multiproc_executor.py:671] RuntimeError: copy_between_host_"
            "and_device_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:99 NPU function error: SUSPECT REMOTE "
            "ERROR, error code is 507057\n")
    ws, d = diagnose(tmp_path, {"serve.log": text})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "l", {"serve.log": text.replace("SUSPECT REMOTE ERROR", "LINK ERROR").replace(
        "507057", "507056")})
    assert d.category == "communication"
    # look-alike: another status of the same copy is not a peer's
    ws, d = diagnose(tmp_path / "b", {"serve.log": text.replace("SUSPECT REMOTE ERROR", "MEMORY ALLOCATION").replace(
        "507057", "207001")})
    assert d.category == "memory"


def test_the_synchronise_with_timeout_call_is_not_a_timeout(tmp_path):
    """`synchronize stream with timeout failed` is aclrtSynchronizeStreamWithTimeout in words; the
    error manager's reason before it (`reason=vector core exception`) is the device event."""
    text = (plog("ERROR", "RUNTIME", 61, "04:45:20.827.387", "[error_message_manage.cc:65]61 FuncErrorReason:"
                 "rtStreamSynchronizeWithTimeout execution failed, reason=vector core exception")
            + plog("ERROR", "ASCENDCL", 61, "04:45:20.827.749", "[stream.cpp:167]61 aclrtSynchronizeStreamWithTimeoutImpl:"
                   "synchronize stream with timeout failed, runtime result = 507035")
            + plog("ERROR", "RUNTIME", 61, "04:45:20.845.127", "[api_c.cc:764]61 rtEventSynchronize:ErrCode=507035, "
                   "desc=[vector core exception], InnerCode=0x715005e"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-61_20260311044500000.log": text})
    assert "reason=vector core exception" in anchor_text(ws, d)
    assert d.category == "device"
    assert d.anchor.kind != "timeout"
    # look-alike: a wait that failed with a timeout is one
    wait = plog("ERROR", "HCCL", 61, "04:45:20.800.000", "[transport.cc:9]61 WaitRecv: wait failed with timeout, "
                "remote rank [3]")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-61_20260311044500000.log": wait})
    assert d.anchor.kind == "timeout"


def test_a_reason_restating_the_runtimes_device_record_relays_it(tmp_path):
    """Where the runtime's own record of the core fault is in the log, the error manager's reason
    for the failed call restates it (even when printed first)."""
    text = (plog("ERROR", "RUNTIME", 61, "04:45:20.827.387", "[error_message_manage.cc:65]61 FuncErrorReason:"
                 "rtStreamSynchronizeWithTimeout execution failed, reason=vector core exception")
            + plog("ERROR", "RUNTIME", 61, "04:45:20.828.000", "[device_error_proc.cc:9]61 ProcessCoreErrorInfo:The "
                   "error from device(chipId:2, dieId:0), serial number is 4, there is an aivec error exception, core "
                   "id is 7, error code = 0x800000, dump info: pc start: 0x1"))
    ws, d = diagnose(tmp_path, {"debug/plog/plog-61_20260311044500000.log": text})
    assert "serial number is 4" in anchor_text(ws, d)


def test_an_op_info_entry_skipped_at_start_up_is_not_the_cause(tmp_path):
    """The op-info library reports an operator entry it cannot initialise into the error queue and
    skips it; torch_npu prints the queue later under an unrelated failure. The failure it was
    printed under is the cause; the entry is the anchor only when nothing else failed."""
    skipped = ("E29999: Inner Error!\n"
               "E29999[PID: 464] 2026-03-11-10:28:25.885.371 (E29999):  [InitOpInfoLib][InitOpKernel] Inconsistent "
               "format size [1] and data type size [2]![FUNC:InitUnknownFormatAndDtype][FILE:op_kernel_info_"
               "constructor.cc][LINE:959]\n"
               "        TraceBack (most recent call last):\n"
               "       [GraphOpt][Init][ConstructOpKernelInfo] OpKernelInfo MyCustomOp initialization failed.[FUNC:"
               "ConstructOpKernelInfo][FILE:sub_op_info_store.cc][LINE:199]\n")
    failed = ("RuntimeError: npu_fused_infer_attention_score:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:415 NPU "
              "function error: call aclnnFusedInferAttentionScoreV3 failed, error code is 561002\n"
              "[ERROR] 2026-03-11-10:29:42 (PID:464, Device:1, RankID:-1) ERR00100 PTA call acl api failed.\n")
    ws, d = diagnose(tmp_path, {"serve.log": failed + skipped})
    assert "call aclnnFusedInferAttentionScoreV3 failed" in anchor_text(ws, d)
    assert d.category == "operator"
    # a device fault queued after the entry is the cause too
    fault = ("       The error from device(chipId:2, dieId:0), serial number is 2, there is an exception of fftsplus "
             "aivector error, core id is 3\n")
    ws, d = diagnose(tmp_path / "f", {"serve.log": skipped + fault})
    assert "fftsplus aivector error" in anchor_text(ws, d)
    # look-alike: alone, the skipped entry is all there is to show
    ws, d = diagnose(tmp_path / "b", {"serve.log": skipped})
    assert "[InitOpInfoLib]" in anchor_text(ws, d)


def test_a_runtime_call_in_torch_npus_function_error_is_not_an_operator(tmp_path):
    """`NPU function error: X, error code is N` names the operator whose inputs the next action
    asks to check, unless X is a runtime or collective call (no inputs of an operator to check)."""
    line = ("[rank0]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU "
            "function error: AclrtSynchronizeDeviceWithTimeout, error code is 507015\n")
    ws, d = diagnose(tmp_path, {"train.log": line})
    assert not any("AclrtSynchronizeDeviceWithTimeout" in a.action for a in d.next_actions)
    ws, d = diagnose(tmp_path / "b", {"train.log": line.replace("AclrtSynchronizeDeviceWithTimeout", "GridSampler3D")})
    assert any("Check the inputs of GridSampler3D" in a.action for a in d.next_actions)


def test_a_stamp_thread_id_and_level_word_is_a_logger_prefix(tmp_path):
    """MindIE's service log prints `<stamp> <thread id> <level word> <file>:<line>] msg`; an
    `error` there is an error line even without an error word in the message."""
    text = ("2024-07-01 10:59:22.531964 460279 info llm_daemon.cpp:30] starting\n"
            "2024-07-01 10:59:22.535626 460279 error infer_engine_inner.cc:257] Engine init config manager failed.\n")
    ws, d = diagnose(tmp_path, {"mindservice.log": text})
    assert "Engine init config manager failed" in anchor_text(ws, d)
    assert d.category == "environment"  # its configuration would not load
    # look-alike: an info line of the same logger is no error
    ws, d = diagnose(tmp_path / "b", {"mindservice.log": text.splitlines(True)[0]})
    assert d.anchor is None


def test_a_later_run_that_fails_on_its_own_is_a_new_episode(tmp_path):
    """An appended service log: an earlier run's error, then 35 minutes later a new process that
    fails at start-up on its own. The 2 h window that keeps a root error with its victims is for
    waits and restatements; a failure of its own opens a new episode."""
    text = ("2024-07-01 10:24:10.158054 449875 error infer_tokenizer.cc:46] [Tokenizer::Decode] get unknown error\n"
            "2024-07-01 10:24:10.158134 449875 warning llm_daemon.cpp:43] received exit signal[2]\n"
            "2024-07-01 10:59:22.535626 460279 error infer_engine_inner.cc:257] Engine init config manager failed.\n")
    ws, d = diagnose(tmp_path, {"mindservice.log": text})
    assert "Engine init config manager failed" in anchor_text(ws, d)
    earlier = next(c for c in d.candidates if "get unknown error" in c.event.text)
    assert earlier.why_not.startswith("stale")
    # look-alike: a wait that times out 35 minutes after a failure stays in its episode
    victim = ("2024-07-01 10:24:10.158054 449875 error infer_tokenizer.cc:46] [Tokenizer::Decode] get unknown error\n"
              "2024-07-01 10:59:22.535626 460279 error hccl_comm.cc:9] HcclAllReduce: notify wait timeout, "
              "remote rank [0]\n")
    ws, d = diagnose(tmp_path / "b", {"mindservice.log": victim})
    earlier = next(c for c in d.candidates if "get unknown error" in c.event.text)
    assert not earlier.why_not.startswith("stale")


def test_a_models_input_tensor_refused_at_execution_is_not_a_compile(tmp_path):
    """E19025 (Input Tensor Error): the inputs an application hands a loaded model do not fit it."""
    text = ("[ERROR] GE(1702,msame):2026-03-11-10:00:01.100.200 [davinci_model.cc:9]1702 CopyInput: E19025: Input "
            "tensor is invalid. Reason: The input memory provided by the user, plus 64 bytes for data alignment, is "
            "smaller than op_size in the model.\n")
    ws, d = diagnose(tmp_path, {"debug/plog/plog-1702_20260311100000000.log": text})
    assert d.category == "operator"
    # look-alike: another GE code of the E1 family is the graph's compile
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-1702_20260311100000000.log": text.replace(
        "E19025: Input tensor is invalid. Reason: The input memory provided by the user, plus 64 bytes for data "
        "alignment, is smaller than op_size in the model.", "E19010: No parser is registered for Op [a, optype [B]].")})
    assert d.category == "compile"


def test_a_missing_cann_function_explains_the_device_init_that_fails_after_it(tmp_path):
    """torch_npu's warning that a CANN function it looks up is missing (CANN older than the
    build) explains SetDevice failing right after it."""
    text = ("[W compiler_depend.ts:148] Warning: Failed to find function aclsysGetCANNVersion (function operator())\n"
            "Traceback (most recent call last):\n"
            '  File "t.py", line 1, in <module>\n'
            "RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:153 NPU function error: "
            "c10_npu::SetDevice(device_id_), error code is 507033\n")
    ws, d = diagnose(tmp_path, {"smoke.log": text})
    assert "Failed to find function aclsysGetCANNVersion" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the same warning before an unrelated failure stays a warning
    other = text.replace("Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:153 NPU function error: "
                         "c10_npu::SetDevice(device_id_), error code is 507033",
                         "NPU out of memory. Tried to allocate 2.00 GiB")
    ws, d = diagnose(tmp_path / "b", {"smoke.log": other})
    assert "out of memory" in anchor_text(ws, d)


def test_a_report_that_points_to_another_log_wraps_the_error_told_there(tmp_path):
    """A service's console report that asks the reader to check its log for the reason, with the
    report's line above it, wraps the error its log tells; a line with a reason of its own does
    not."""
    text = ("Engine failed to init Models\n"
            "ERR: Failed to init endpoint! Please check the service log or console output.\n"
            "[2026-03-11 09:59:06.966376] [917] [2814] [llm] [INFO] [manager.cpp:70] runtime init success!\n"
            "[2026-03-11 09:59:12.384944] [917] [2814] [llm] [ERROR] [instance.cpp:47] Initialize model backends "
            "failed: weight q_proj.bias does not exist\n")
    ws, d = diagnose(tmp_path, {"daemon.log": text})
    assert "Initialize model backends failed" in anchor_text(ws, d)
    # look-alike: without the pointer, the console's own failure comes first
    ws, d = diagnose(tmp_path / "b", {"daemon.log": text.replace(" Please check the service log or console output.", "")})
    assert "Engine failed to init Models" in anchor_text(ws, d)


def test_a_victim_rank_in_a_failed_restart_does_not_reach_back_to_the_earlier_run(tmp_path):
    """What opens the cluster after a gap decides: a restarted service that fails on its own
    opens it, so a peer's timeout that joins that cluster later does not merge the earlier run."""
    service = ("2024-07-01 10:24:10.158054 449875 error infer_tokenizer.cc:46] [Tokenizer::Decode] get unknown error\n"
               "2024-07-01 10:59:22.535626 460279 error infer_engine_inner.cc:257] Engine init config manager failed.\n")
    rank7 = ("[rank7]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU "
             "function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n"
             "[rank7]: [ERROR] 2024-07-01-11:05:27 (PID:51234, Device:7, RankID:7) ERR00100 PTA call acl api failed\n"
             "[rank7]: EI0002: [PID: 51234] 2024-07-01-11:05:27.123.456 The wait execution of the Notify register "
             "times out. Reason: The Notify register has not received the Notify record from remote rank [3].\n")
    ws, d = diagnose(tmp_path, {"mindservice.log": service, "stdout_rank7.log": rank7})
    assert "Engine init config manager failed" in anchor_text(ws, d)


def test_a_peers_timeout_gives_way_to_a_sync_failure_or_a_lone_status_before_it(tmp_path):
    """A healthy rank's timeout ten minutes later names no cause: a failure another process told
    before it wins, even one told only by a synchronisation that failed, or by a status whose
    block holds only an op-info entry the library skipped."""
    rank7 = ("[rank7]: EI0002: [PID: 51234] 2026-03-11-10:40:00.123.456 The wait execution of the Notify register "
             "times out. Reason: The Notify register has not received the Notify record from remote rank [0].\n")
    sync = ms_log("ERROR", "DEVICE", 71, "10:30:00.836.235",
                  "[mindspore/ccsrc/runtime/device/kernel_runtime_manager.cc:136] WaitTaskFinishOnDevice] "
                  "SyncStream failed, exception:The pointer[stream] is null.")
    ws, d = diagnose(tmp_path, {"train.log": sync, "stdout_rank7.log": rank7})
    assert "SyncStream failed" in anchor_text(ws, d)
    status = ("RuntimeError: npu_fused_infer_attention_score:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:415 NPU "
              "function error: call aclnnFusedInferAttentionScoreV3 failed, error code is 561002\n"
              "[ERROR] 2026-03-11-10:30:00 (PID:464, Device:0, RankID:0) ERR00100 PTA call acl api failed.\n"
              "E29999: Inner Error!\n"
              "E29999[PID: 464] 2026-03-11-10:28:25.885.371 (E29999):  [InitOpInfoLib][InitOpKernel] Inconsistent "
              "format size [1] and data type size [2]![FUNC:InitUnknownFormatAndDtype][FILE:op_kernel_info_"
              "constructor.cc][LINE:959]\n")
    ws, d = diagnose(tmp_path / "s", {"train.log": status, "stdout_rank7.log": rank7})
    assert "call aclnnFusedInferAttentionScoreV3 failed" in anchor_text(ws, d)


def test_the_command_that_sources_cann_set_env_is_no_failure(tmp_path):
    """A post's list of the commands run (`source …/set_env.sh`) is input, not a loader failure;
    a message asking for that script still is one."""
    text = ("sudo yum install -y Ascend-cann-toolkit-8.2.RC1\n"
            "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
            "2026-02-04 09:39:07.236919290 [E:onnxruntime:Default, provider_bridge_ort.cc:2223 TryGetProviderInfo_CANN] "
            "Failed to load library libonnxruntime_providers_cann.so with error: libmsprofiler.so: cannot open shared "
            "object file: No such file or directory\n")
    ws, d = diagnose(tmp_path, {"post.log": text})
    assert "libmsprofiler.so: cannot open shared object file" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "b", {"post.log": "Exception: ASCEND_OPP_PATH environment variable is not set. Please "
                                                   "run 'source set_env.sh' first.\n"})
    assert d.anchor is not None and d.category == "environment"


def test_a_failed_call_to_the_drivers_tool_is_the_machines_set_up(tmp_path):
    """A script that could not get device IPs from hccn_tool fails later with its own KeyError:
    the tool's failure comes first and is the machine's set-up."""
    text = ("start ./tools/hccl_tools.py\n"
            "Failed to call hccn_tool, try to read /etc/hccn.conf instead\n"
            "Traceback (most recent call last):\n"
            '  File "./tools/hccl_tools.py", line 137, in main\n'
            "    device_ip = device_ips[device_id]\n"
            "KeyError: '0'\n")
    ws, d = diagnose(tmp_path, {"run.log": text})
    assert "Failed to call hccn_tool" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a failed call to the script's own helper is no driver tool
    ws, d = diagnose(tmp_path / "b", {"run.log": text.replace("Failed to call hccn_tool, try to read /etc/hccn.conf "
                                                              "instead", "Failed to call helper, retrying")})
    assert "KeyError" in anchor_text(ws, d)


def test_the_operator_compiler_that_would_not_start_is_the_environment(tmp_path):
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 9, in <module>\n'
            "RuntimeError: TbeInitialize running failed.\n")
    ws, d = diagnose(tmp_path, {"train.log": text})
    assert d.category == "environment"


def test_a_device_that_could_not_be_opened_is_the_environment(tmp_path):
    """A runtime that could not open the device, before any work ran on it: its driver, its
    libraries, or a device that is taken or not visible."""
    text = ("[ERROR] ME(26748,7f6c73867fc0,benchmark):2026-03-11-09:51:54.833.515 [model_infer.cc:59] Init] Acl open "
            "device 0 failed.\n"
            "[ERROR] ME(26748,7f6c73867fc0,benchmark):2026-03-11-09:51:54.833.727 [model_impl.cc:413] "
            "BuildByBufferImpl] compile graph failed.\n")
    ws, d = diagnose(tmp_path, {"bench.log": text})
    assert "Acl open device 0 failed" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a stream the runtime could not close is the runtime's objects, not the set-up
    ws, d = diagnose(tmp_path / "b", {"bench.log": text.replace("Acl open device 0 failed.", "Acl close stream 0 failed.")})
    assert d.category == "stream_event"


def test_an_earlier_runs_error_in_an_appended_log_does_not_silence_a_lone_status(tmp_path):
    """A status printed with nothing near it that tells why ranks like an exception; an error a
    day before at the top of the same appended log belongs to another run and tells nothing."""
    def log(oom_day: str) -> str:
        return ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
                f"[ERROR] 2026-02-{oom_day}-17:05:22 (PID:1111, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
                "(VllmWorker rank=0 pid=48) ERROR 02-24 17:09:23 [multiproc_executor.py:546] RuntimeError: "
                "create_config:torch_npu/csrc/distributed/HCCLUtils.cpp:148 HCCL function error: "
                "hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 5\n"
                "(VllmWorker rank=0 pid=48) ERROR 02-24 17:09:23 [multiproc_executor.py:546] [ERROR] "
                "2026-02-24-17:09:22 (PID:48, Device:0, RankID:-1) ERR02200 DIST call hccl api failed.\n")
    ws, d = diagnose(tmp_path, {"serve.log": log("23")})
    assert "hcclCommInitRootInfoConfig" in anchor_text(ws, d)
    # look-alike: the same error four minutes before, in the same run, is the one told
    ws, d = diagnose(tmp_path / "b", {"serve.log": log("24")})
    assert "NPU out of memory" in anchor_text(ws, d)


def test_a_native_library_or_extension_that_would_not_load_is_the_environment(tmp_path):
    """A loader failure names the library by its file (`libdcmi.so`) or the package's compiled
    ops; the hint that lists possible reasons (`errors while compiling … from source`) is not a
    compile failure of this run."""
    ws, d = diagnose(tmp_path / "a", {"tool.log": "[root@host]# ascend-dmi -c\nFailed to load the libdcmi.so dynamic "
                                                    "library. Check the environment configuration dependency.\n"})
    assert d.category == "environment"
    text = ("Traceback (most recent call last):\n"
            '  File "/x/torchvision/extension.py", line 63, in _assert_has_ops\n'
            "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are "
            "incompatible, or if you had errors while compiling torchvision from source.\n")
    ws, d = diagnose(tmp_path / "b", {"train.log": text})
    assert d.category == "environment"
    # look-alike: a kernel that failed to compile is a compile failure, whatever it loads after
    ws, d = diagnose(tmp_path / "c", {"train.log": "RuntimeError: Failed to compile kernel add_custom: errors while "
                                                   "compiling the custom ops\n"})
    assert d.category == "compile"


def test_software_that_cannot_read_the_chips_name_is_the_environment(tmp_path):
    """The runtime asking the driver which SoC it runs on, and getting nothing: a stack too old
    for the chip, or a container without the driver's files."""
    line = ("[ERROR] DEVICE(384,ffffb37b1010,python):2025-10-20-09:54:58.317.312 [mindspore/ccsrc/plugin/device/"
            "ascend/hal/hardware/ge_device_context.cc:557] SetContextSocVersion] Get soc name failed.\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": line})
    assert d.category == "environment"
    # look-alike: a stream the runtime failed to get is its objects, not the set-up
    ws, d = diagnose(tmp_path / "b", {"run.log": line.replace("Get soc name failed.", "Get stream failed.")})
    assert d.category == "stream_event"


def test_an_api_removed_by_a_newer_release_of_a_package_is_the_environment(tmp_path):
    """`np.float_ was removed in the NumPy 2.0 release`: the installed package is newer than the
    code that calls it; a package name in the hint below (`hccl`) routes nothing."""
    text = ("[ERROR] ME(158838:281472936417664,MainProcess):2024-08-03-16:18:41.796.176 [mindspore/run_check/"
            "_check_version.py:388] CheckFailed: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` "
            "instead.\n"
            "[ERROR] ME(158838:281472936417664,MainProcess):2024-08-03-16:18:41.796.376 [mindspore/run_check/"
            "_check_version.py:389] MindSpore relies on whl packages of \"te\" and \"hccl\" in the \"latest\" folder.\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": text})
    assert "was removed in the NumPy 2.0 release" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a rank removed from a communicator is the collective's own failure
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: rank 3 was removed from the HCCL communicator after a "
                                                 "link failure\n"})
    assert d.category == "communication"


def test_a_build_without_a_compiler_is_the_environment(tmp_path):
    """CMake finding no compiler for a language the project uses: the toolchain is not
    installed or not on the path, not a fault of the sources."""
    text = ("      -- The CXX compiler identification is unknown\n"
            "      CMake Error at CMakeLists.txt:14 (project):\n"
            "        No CMAKE_CXX_COMPILER could be found.\n"
            "      -- Configuring incomplete, errors occurred!\n")
    ws, d = diagnose(tmp_path / "a", {"build.log": text})
    assert "No CMAKE_CXX_COMPILER could be found" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the compiler found and refusing the sources is a compile failure
    ws, d = diagnose(tmp_path / "b", {"build.log": "csrc/kernels/add.cpp:12:5: error: 'foo' was not declared in this "
                                                   "scope\n"})
    assert d.category == "compile"


def test_an_operator_named_in_brackets_routes_to_operator(tmp_path):
    """Paddle names an operator `op [pd_op.full_with_tensor]`: a kernel of that operator that
    does not fit its definition on this device is the operator's."""
    line = ("RuntimeError: (PreconditionNotMet) op [pd_op.full_with_tensor] kernel output args (0) defs should equal "
            "op outputs (1)\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": line})
    assert d.category == "operator"
    # look-alike: a bracketed counter after "op" names no operator (only a dotted name does)
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: (PreconditionNotMet) retry of op [3] requested before "
                                                 "the reader was ready\n"})
    assert d.category != "operator"


def test_a_compilers_own_wording_routes_to_compile_without_its_location(tmp_path):
    """GCC's `'X' was not declared in this scope` is a compiler's diagnostic even when the
    report kept only its `error:` part; a type named like a stream does not make it a stream's."""
    text = ("error: 'cudaStream_t' was not declared in this scope\n"
            "  127 |     CHECK_ACLRT(aclrtMemsetAsync(ptr, count, value, count, (cudaStream_t)stream));\n")
    ws, d = diagnose(tmp_path / "a", {"build.log": text})
    assert d.category == "compile"
    # look-alike: a runtime that could not create a stream is the runtime's objects
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: the stream was not created in this context\n"})
    assert d.category == "stream_event"


def test_the_kv_transfer_library_named_by_its_source_file_routes_to_communication(tmp_path):
    """HIXL, LLMDataDist and a transfer engine's transports move the KV cache over the devices'
    links: a failure raised in their sources (`[FILE:hixl_impl.cc]`, glog's `transport.cpp:460`)
    is the link's, whatever check its message words (`must > 0`)."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "E19999[PID: 1340518]:  timeout_in_millis:0 must > 0[FUNC:Connect]"
                                                 "[FILE:hixl_impl.cc][LINE:235]\n"})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "b", {"run.log": "E0805 09:42:09.763501 80495 ascend_direct_transport.cpp:460 Register "
                                                 "mem ret:103900.\n"})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "c", {"run.log": "(VllmWorker rank=0 pid=90674) RuntimeError: "
                                                 "LLMDataDistCMgrConnectorWorker: Linking failed, comm id: 1\n"})
    assert d.category == "communication"
    # look-alike: the same check raised in an operator's tiling source is the operator's
    ws, d = diagnose(tmp_path / "d", {"run.log": "E19999[PID: 1340518]:  block_dim:0 must > 0[FUNC:Tiling]"
                                                 "[FILE:matmul_tiling.cc][LINE:235]\n"})
    assert d.category == "operator"


def _sink_mode_log(between: str = "") -> str:
    return ("[WARNING] MD(17532,fffd117fa1e0,python):2026-03-09-20:18:49.009.973 [mindspore/ccsrc/minddata/dataset/"
            "engine/datasetops/data_queue_op.cc:832] DetectPerBatchTime] Bad performance attention, it takes more than "
            "25 seconds to fetch a batch of data from dataset pipeline, which might result `GetNext` timeout problem.\n"
            + between +
            "[ERROR] DEVICE(17532,fffe74f491e0,python):2026-03-09-20:18:50.318.418 [mindspore/ccsrc/plugin/device/ascend/"
            "hal/device/ascend_kernel_runtime.cc:745] DumpTaskExceptionInfo] Task fail infos task_id: 2, stream_id: "
            "1060, tid: 17532, device_id: 0, retcode: 507011 ( model execute failed)\n")


def test_a_data_pipeline_too_slow_for_the_device_explains_the_bare_task_failure_after_it(tmp_path):
    """In MindSpore's sink mode the device's GetNext waits for host data; MindData warns when a
    batch takes too long, and a task failure with no cause of its own right after it is that
    wait giving up: the warning is the cause, and the advice is about the data pipeline."""
    ws, d = diagnose(tmp_path / "a", {"train.log": _sink_mode_log()})
    assert "to fetch a batch of data" in anchor_text(ws, d)
    assert d.category == "device"
    assert any("dataset" in a.action for a in d.next_actions)
    assert "GetNext" in d.root_cause
    assert d.confidence == "medium"  # an inference from a warning, not a failure's own words
    # look-alike: an explicit error of its own between them says why; the warning stays a warning
    own = ("[ERROR] MD(17532,fffd117fa1e0,python):2026-03-09-20:18:49.900.000 [mindspore/ccsrc/minddata/dataset/"
           "engine/datasetops/data_queue_op.cc:903] InterruptMaster] Unable to query real-time size of Mbuf channel: "
           "abc, error code: 507899\n")
    ws, d = diagnose(tmp_path / "b", {"train.log": _sink_mode_log(own)})
    assert "Mbuf channel" in anchor_text(ws, d)


def test_g1_markdown_bold_around_pasted_lines_is_an_envelope(tmp_path):
    """A reporter bolds the lines that matter (`**[rank0]: EZ9999: … fail.` … `failed.**`): the
    markers are the paste's, and the detail under them is still the block's detail."""
    text = ("[rank0]: RuntimeError: call aclnnArange failed, detail:EZ9999: Inner Error!\n"
            "**[rank0]: EZ9999: [PID: 2075] 2025-07-09-06:39:54.780.150 Parse dynamic kernel config fail.\n"
            "[rank0]:         TraceBack (most recent call last):\n"
            "[rank0]:        AclOpKernelInit failed opType\n"
            "[rank0]:        ArangeAiCore ADD_TO_LAUNCHER_LIST_AICORE failed.**\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": text})
    assert "Parse dynamic kernel config fail" in anchor_text(ws, d)
    # look-alike: glibc's three stars open its own report, which stays crash evidence
    ws, d = diagnose(tmp_path / "b", {"run.log": "*** Error in `python': double free or corruption (out): "
                                                 "0x00007f2c3c000b20 ***\nAborted (core dumped)\n"})
    assert "double free" in anchor_text(ws, d)


def test_an_operator_missing_from_the_dispatcher_is_the_environment(tmp_path):
    """PyTorch's `operator torchvision::nms does not exist`: the library that registers the
    operator was built for another torch release (or not loaded), not a fault of the operator."""
    text = ("Traceback (most recent call last):\n"
            '  File "/x/torchvision/_meta_registrations.py", line 163, in <module>\n'
            "RuntimeError: operator torchvision::nms does not exist\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": text})
    assert d.category == "environment"
    # look-alike: an operator that exists and refuses a dtype is the operator's
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: operator aclnnAdd does not support the dtype "
                                                 "DT_INT16\n"})
    assert d.category == "operator"


def test_a_path_the_system_says_is_missing_is_a_failure_of_the_set_up(tmp_path):
    """A tool's `<path>: No such file or directory` (the C library's words for ENOENT) is the
    failure when nothing else failed: a build without the kernel's headers, a missing install."""
    ws, d = diagnose(tmp_path / "a", {"build.log": "make -C /lib/modules/5.10.0-60.aarch64/build M=/root/driver\n"
                                                   "/lib/modules/5.10.0-60.aarch64/build: No Such file or directory.\n"})
    assert "No Such file or directory" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a probe's missing file before a real error is context for it, not the cause
    text = ("/usr/local/Ascend/driver/tools/upgrade-tool.log: No such file or directory\n"
            "Traceback (most recent call last):\n"
            '  File "train.py", line 9, in <module>\n'
            "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n")
    ws, d = diagnose(tmp_path / "b", {"train.log": text})
    assert "NPU out of memory" in anchor_text(ws, d)


def test_an_exception_raised_inside_a_registered_operator_is_the_operators(tmp_path):
    """The innermost frame `torch/_ops.py, in __call__` is PyTorch handing the call to a
    registered operator's own implementation: what it raises with no other word (a custom op's
    `bIndex is out of range: 3068`) is that operator's check."""
    def log(frame: str) -> str:
        return ("Traceback (most recent call last):\n"
                '  File "/w/vllm_ascend/attention/sfa_v1.py", line 708, in _sfa_preprocess_decode\n'
                "    torch.ops._C_ascend.mla_preprocess(\n"
                f"{frame}"
                "RuntimeError: bIndex is out of range: 3068\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": log('  File "/usr/lib/python3.11/site-packages/torch/_ops.py", '
                                                     'line 1243, in __call__\n    return self._op(*args, **kwargs)\n')})
    assert d.category == "operator"
    # look-alike: the same words raised in the application's own code name no operator
    ws, d = diagnose(tmp_path / "b", {"run.log": log('  File "/w/vllm_ascend/worker/model_runner.py", line 90, in '
                                                     'prepare\n    raise RuntimeError(msg)\n')})
    assert d.category != "operator"


def test_an_installed_package_of_another_version_than_required_is_the_environment(tmp_path):
    """setuptools' `ContextualVersionConflict: (numpy 2.2.4 …, Requirement.parse('numpy==1.26.4'))`
    and `DistributionNotFound`: what is installed does not fit what a package requires."""
    text = ("Traceback (most recent call last):\n"
            '  File "/x/pip/_vendor/pkg_resources/__init__.py", line 934, in _resolve_dist\n'
            "    raise VersionConflict(dist, req).with_context(dependent_req)\n"
            "pip._vendor.pkg_resources.ContextualVersionConflict: (numpy 2.2.4 (/usr/lib/python3.10/site-packages), "
            "Requirement.parse('numpy==1.26.4'), {'vllm-ascend'})\n")
    ws, d = diagnose(tmp_path / "a", {"install.log": text})
    assert d.category == "environment"
    # look-alike: a conflict between two ranks' tensors is no package's
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: shape conflict between rank 0 and rank 1 in the "
                                                 "HCCL allgather\n"})
    assert d.category == "communication"


def test_the_dynamic_loader_binding_another_build_of_a_library_is_the_environment(tmp_path):
    """G6: the dynamic loader's own failures (`relocation error: … symbol X version Y not defined in
    file Z`, `version `GLIBCXX_3.4.29' not found (required by …)`) are causal environment errors,
    whatever program they stop (here `make`, before the build it was asked for)."""
    text = ("compiling dataset index builder ...\n"
            "make: relocation error: /usr/lib64/libguile-2.0.so.22: symbol ffi_type_uint32 version LIBFFI_BASE_7.0 "
            "not defined in file libffi.so.7 with link time reference\n"
            "ERROR:megatron.core.datasets.utils:Failed to compile the C++ dataset helper functions\n")
    ws, d = diagnose(tmp_path / "a", {"train.log": text})
    assert "relocation error" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"run.log": "/opt/bin/infer: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' "
                                                 "not found (required by /opt/bin/infer)\n"})
    assert "GLIBCXX_3.4.29" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: the static linker's relocation complaint is a build of the sources, not the loader
    ws, d = diagnose(tmp_path / "c", {"build.log": "/usr/bin/ld: kernels.o: relocation R_X86_64_32 against `.rodata' "
                                                   "can not be used when making a shared object; recompile with "
                                                   "-fPIC\ncollect2: error: ld returned 1 exit status\n"})
    assert d.category != "environment"


def test_a_services_configuration_that_will_not_load_is_the_environment(tmp_path):
    """A service whose configuration cannot be built from its file (`ConfigManager init exception:
    Failed to initialize ModelDeployConfig from JSON.`), or whose check of a file's permissions
    refuses it, fails in its set-up."""
    ws, d = diagnose(tmp_path / "a", {"daemon.log": "ConfigManager: Load Config from /srv/conf/config.json.\n"
                                                    "ConfigManager init exception: Failed to initialize "
                                                    "ModelDeployConfig from JSON.\nKilled\n"})
    assert "ModelDeployConfig" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"daemon.log": "Check path: weights/config.json failed, by: Check Other group "
                                                    "permission failed: Current permission is 4, but required no "
                                                    "greater than 0.\n"})
    assert d.category == "environment"
    # look-alikes: a communicator initialised from a rank table, an operator's shape check
    ws, d = diagnose(tmp_path / "c", {"run.log": "RuntimeError: Failed to initialize HcclComm from the rank table: "
                                                 "HCCL connect timeout\n"})
    assert d.category == "communication"
    ws, d = diagnose(tmp_path / "d", {"run.log": "RuntimeError: aclnnMatmul CheckShape failed: the input shape "
                                                 "check failed\n"})
    assert d.category == "operator"


def test_an_operator_function_missing_from_the_graph_engines_registry_is_the_environment(tmp_path):
    """The graph engine looking up an operator's tiling-parse function by its type and finding none
    (`Failed to find func by type TransData`): the operator package does not match the toolkit."""
    text = plog("ERROR", "GE", 73, "17:14:00.937.954", "[tiling.cc:312]74 BuildTilingParseOutputs: ErrorNo: "
                "1343225857(Parameter invalid!) Failed to find func by type TransData, func_name compile_info_creator")
    ws, d = diagnose(tmp_path / "a", {"debug/plog/plog-73_20260311171400000.log": text})
    assert d.category == "environment"
    # look-alike: a node the engine cannot find by its name is a graph of its own making
    text = plog("ERROR", "GE", 73, "17:14:00.937.954", "[graph.cc:312]74 FindNode: ErrorNo: 1343225857(Parameter "
                "invalid!) Failed to find node by name TransData_1 in graph g0")
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-73_20260311171400000.log": text})
    assert d.category != "environment"


def test_a_tensor_of_another_size_than_a_node_takes_is_the_operators(tmp_path):
    """The graph engine's check of an input against the size its node takes (`Input[40]:tensor size
    mismatches.expected: 768032, but given 32`) refuses the operator's input."""
    text = plog("ERROR", "GE", 87, "14:39:37.270.942", "[execution_engine.cc:450]91 ValidInputTensor:ErrorNo: "
                "1343225860(Internal errors) [EXEC][Check][Size] for [Node_14(PartitionedCall)] Input[40]:tensor "
                "size mismatches.expected: 768032, but given 32.")
    ws, d = diagnose(tmp_path / "a", {"debug/plog/plog-87_20260311143937000.log": text})
    assert d.category == "operator"
    # look-alike: a checkpoint whose weights have another size than the model is not an operator's input
    ws, d = diagnose(tmp_path / "b", {"run.log": "RuntimeError: Error(s) in loading state_dict for Model:\n"
                                                 "\tsize mismatch for layers.0.weight: copying a param with shape "
                                                 "[4096, 4096] from checkpoint\n"})
    assert d.category != "operator"


def test_a_line_that_gives_its_own_reason_above_a_report_pointing_elsewhere_is_the_cause(tmp_path):
    """A report that sends the reader to another log wraps the lines of the same report above it,
    except one that states its own reason (`…, by: …`, `… but required …`): that reason is here."""
    report = ("Failed check model config.json! take modelConfig.modelWeightPath to empty\n"
              "ERR: Failed to init endpoint! Please check the service log or console output.\nKilled\n")
    ws, d = diagnose(tmp_path / "a", {"daemon.log": "./bin/daemon\nCheck path: config.json failed, by: Check Other "
                                                    "group permission failed: Current permission is 4, but required "
                                                    "no greater than 0.\n" + report})
    assert "Current permission is 4" in anchor_text(ws, d)
    # look-alike: a line above that only says a step failed is part of the report
    ws, d = diagnose(tmp_path / "b", {"daemon.log": "./bin/daemon\nLLMInferEngine failed to init LLMInferModels\n"
                                                    + report})
    assert "Current permission" not in anchor_text(ws, d)
    assert d.anchor.secondary is None and anchor_text(ws, d) != "Killed"


def test_a_kill_after_a_reported_failure_is_its_consequence(tmp_path):
    """A shell's `Killed` right after a process reported that it failed (a report that points to
    its own log) is how it ended, not why: the report is the better line. Killed with nothing
    failed before it stays the anchor (the OOM killer, a scheduler)."""
    ws, d = diagnose(tmp_path / "a", {"daemon.log": "./bin/daemon\nLLMInferEngine failed to init LLMInferModels\n"
                                                    "ERR: Failed to init endpoint! Please check the service log or "
                                                    "console output.\nKilled\n"})
    assert anchor_text(ws, d) == "LLMInferEngine failed to init LLMInferModels"
    ws, d = diagnose(tmp_path / "b", {"train.log": "epoch 1 step 200 loss 2.1\nepoch 1 step 300 loss 2.0\nKilled\n"})
    assert anchor_text(ws, d) == "Killed"


def test_a_failure_printed_above_a_bare_raise_is_its_reason(tmp_path):
    """A library prints which step failed, then raises an exception that only says a step failed
    (`RuntimeError: NPU kernel k init failed`): the printed line right above the traceback is the
    reason, and the exception (with an exception that only introduces it) relays it."""
    def log(above: str, message: str) -> str:
        return (f"{above}\n"
                "Traceback (most recent call last):\n"
                '  File "test.py", line 11, in <module>\n'
                "    out = fused(x, y)\n"
                '  File "/x/inductor_npu_ext/compiler/__init__.py", line 26, in __init__\n'
                '    raise RuntimeError(f"NPU kernel {self.name} init failed")\n'
                "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
                f"RuntimeError: {message}\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": log("Kernel load failed for autofused_add_sum_31ab",
                                                     "NPU kernel .npu_kernels_7 init failed")})
    assert anchor_text(ws, d) == "Kernel load failed for autofused_add_sum_31ab"
    # look-alikes: a logger's intro of the traceback says nothing failed of its own; an exception
    # that gives its reason is the reason
    ws, d = diagnose(tmp_path / "b", {"run.log": log("Error executing method 'profile_run'. This might cause "
                                                     "deadlock.", "GroupTopkOperation CreateOperation failed!")})
    assert "CreateOperation failed" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "c", {"run.log": log("Kernel load failed for autofused_add_sum_31ab",
                                                     "NPU kernel .npu_kernels_7 init failed: the workspace of 4 GB "
                                                     "exceeds the device limit")})
    assert "the workspace of 4 GB" in anchor_text(ws, d)


def test_g2_a_copied_plog_header_with_irregular_spacing_is_a_plog_line(tmp_path):
    """Copies of plog lines (troubleshooting pages) put a space before the header's colon or none
    after the level (`[ERROR]RUNTIME(44525,python) :2024-…`): still the plog grammar, so the
    runtime's own words before its status lines are read as the cause they are."""
    def line(level: str, ts: str, rest: str, gap: str = " ") -> str:
        return f"[{level}]{gap}RUNTIME(44525,python) :2024-01-22-04:26:23.{ts} {rest}\n"
    text = (line("ERROR", "625.743", "[api_impl.cc:1401]45179 DevMalloc: [DUMP] [DEFAULT] ctx is NULL!")
            + line("ERROR", "625.784", "[logger.cc:581]45179 DevMalloc:[DUMP][DEFAULT]Device malloc failed, size=9(Byte), "
                   "type=2.")
            + line("ERROR", "625.805", "[api_c.cc:1173]45179 rtMalloc:[DUMP][DEFAULT]ErrCode=107002, desc=[context "
                   "pointer null], InnerCode=0x7070001", gap=""))
    ws, d = diagnose(tmp_path / "a", {"plog.log": text})
    assert "ctx is NULL!" in anchor_text(ws, d)
    assert d.anchor.time is not None
    # look-alike: a bracketed word and a pid without a date is no plog header
    ws, d = diagnose(tmp_path / "b", {"run.log": "[ERROR] Worker(3,main) : lost its parent\n"})
    assert d.anchor is not None and d.anchor.time is None


def test_a_shell_prompt_and_its_command_are_never_the_error(tmp_path):
    """A pasted prompt with the command typed after it (`[root@host plog]# grep -rn "ERROR"`) is the
    reader's search, not the job's failure, whatever words it holds."""
    text = ('[root@localhost plog]# grep -rn "ERROR" .\n'
            "app.log:88: ERROR worker 3 failed to start: device 3 is busy\n")
    ws, d = diagnose(tmp_path / "a", {"session.log": text})
    assert "grep -rn" not in anchor_text(ws, d)
    assert "device 3 is busy" in anchor_text(ws, d)
    # look-alike: an address with an @ in an error of its own is still that error
    ws, d = diagnose(tmp_path / "b", {"run.log": "ERROR: rsync to root@10.0.0.2:/data/ckpt failed: Permission denied\n"})
    assert "Permission denied" in anchor_text(ws, d)


def test_the_linker_that_cannot_find_a_library_is_the_environment(tmp_path):
    """`/usr/bin/ld: cannot find -lascendcl`: the toolkit's library folder is not on the link path
    (or the library is not installed); the make lines after it only say the build stopped."""
    text = ("/usr/bin/ld: cannot find -lascendcl\n"
            "collect2: error: ld returned 1 exit status\n"
            "make[2]: *** [CMakeFiles/main.dir/build.make:94: out/main] Error 1\n")
    ws, d = diagnose(tmp_path / "a", {"build.log": text})
    assert "cannot find -lascendcl" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a symbol the sources call and the libraries do not define is the build's own
    ws, d = diagnose(tmp_path / "b", {"build.log": "/usr/bin/ld: main.o: in function `run': main.cpp:(.text+0x1c): "
                                                   "undefined reference to `aclmdlExecuteV3'\n"
                                                   "collect2: error: ld returned 1 exit status\n"})
    assert d.category == "compile"


def test_a_framework_package_built_for_another_device_is_the_environment(tmp_path):
    """MindSpore's `package type mindspore-gpu support 'device_target' type gpu or cpu, but got
    Ascend`: the installed package is the build for another device."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "ValueError: For 'set_context', package type mindspore-gpu support "
                                                 "'device_target' type gpu or cpu, but got Ascend.\n"})
    assert d.category == "environment"
    # look-alike: an operator's own support check names a type and what it got
    ws, d = diagnose(tmp_path / "b", {"run.log": "ValueError: For 'MatMul', the input type float64 is not supported, "
                                                 "but got float64 for x.\n"})
    assert d.category != "environment"


def test_a_build_error_no_word_routes_is_the_build(tmp_path):
    """A build tool's error that names no subsystem (CMake's `Parse error`) failed a build; the
    words of a path in a message (a folder called `operator`) route nothing."""
    ws, d = diagnose(tmp_path / "a", {"build.log": "CMake Error at cmake/paddle.cmake:1:\n"
                                                   "  Parse error.  Expected a command name, got unquoted argument with "
                                                   "text \"../x.cmake\".\n"
                                                   "-- Configuring incomplete, errors occurred!\n"})
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"build.log": 'CMake Error: The source directory "/root/samples/operator/Add/'
                                                   'build" does not appear to contain CMakeLists.txt.\n'})
    assert d.category == "compile"
    # look-alikes: an error outside any build that no word routes stays unclassified; the same
    # word outside a path routes as before
    ws, d = diagnose(tmp_path / "c", {"run.log": "RuntimeError: step 3 went wrong\n"})
    assert d.category == "unknown"
    ws, d = diagnose(tmp_path / "d", {"run.log": "RuntimeError: the operator refused input 3 (see /root/logs/run1/out"
                                                 ".txt)\n"})
    assert d.category == "operator"


def test_g1_a_terminal_panes_border_is_an_envelope(tmp_path):
    """Lines copied from a terminal pane (k9s, tmux) keep its border (`│ `): the glog level behind
    it still counts, so the fatal line is the anchor, not an INFO line that mentions a failure."""
    text = ("│ I0908 02:12:23.339234       1 client.go:53] BuildConfigFromFlags failed for file /root/.kube/config: "
            "stat /root/.kube/config: no such file or directory using inClusterConfig\n"
            "│ I0908 02:12:23.340058       1 main.go:118] using config file: /device-config.yaml\n"
            "│ F0908 02:12:23.566599       1 main.go:133] load config failed, error is can not find vnpu config for "
            "chip 910B4-1\n")
    ws, d = diagnose(tmp_path / "a", {"plugin.log": text})
    assert "can not find vnpu config" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a bar inside a line (a column of a table printed by the job) envelops nothing
    ws, d = diagnose(tmp_path / "b", {"run.log": "I0908 02:12:23.339234 1 main.go:9] step 3 │ load config failed, "
                                                 "using defaults\n"})
    assert d.anchor is None


def test_a_failure_logged_at_info_level_is_context(tmp_path):
    """A program that logs a failure at INFO went on from it: the line is context, and an error
    logged later at an error level is the anchor. Alone, an INFO line is no anchor at all."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "INFO 12-03 07:26:33 [loader.py:81] Loading cached kernel failed, "
                                                 "compiling it again\n"
                                                 "ERROR 12-03 07:26:40 [worker.py:90] RuntimeError: device 0 is busy\n"})
    assert "device 0 is busy" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "b", {"run.log": "INFO 12-03 07:26:33 [loader.py:81] Loading cached kernel failed, "
                                                 "compiling it again\n"})
    assert d.anchor is None
    # look-alike: an INFO line that says ERROR in its message is still read as an error
    ws, d = diagnose(tmp_path / "c", {"run.log": "INFO 12-03 07:26:33 [proc.py:81] worker 3 reported: ERROR device "
                                                 "lost\n"})
    assert d.anchor is not None


def test_an_api_that_returned_an_error_code_prints_its_status(tmp_path):
    """`aclrtKernelArgsFinalize(argsHandle) returned error code 100000`: the call's aclError is
    read as a status like `error code is N`; a count that is no status is not."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "[ERROR] Operation failed: aclrtKernelArgsFinalize(argsHandle) "
                                                 "returned error code 100000\n"})
    assert d.anchor.code == "100000"
    ws, d = diagnose(tmp_path / "b", {"run.log": "[ERROR] Operation failed: the batch returned 100000 tokens\n"})
    assert d.anchor.code is None


def test_the_shells_error_in_a_script_is_a_failure(tmp_path):
    """bash reports an error in the job's script with its line (`build.sh: line 1567: [: missing
    `]'`), with no error word: a failure all the same."""
    ws, d = diagnose(tmp_path / "a", {"build.log": "building ops ...\nbuild.sh: line 1567: [: missing `]'\n"})
    assert "missing `]'" in anchor_text(ws, d)
    # look-alike: the script's own echo of a line number is no error
    ws, d = diagnose(tmp_path / "b", {"build.log": "building ops ...\nstep 3 of build.sh done\n"})
    assert d.anchor is None


def test_g3_a_go_log_date_gives_its_year_to_glogs_yearless_stamps(tmp_path):
    """Go's log package prints `2025/09/08 02:12:23.564828` beside glog's year-less `F0908` lines
    (the Ascend device plug-in): the glog line's year is that date's, not the file's copy time."""
    text = ("[INFO]     2025/09/08 02:12:23.564828 1       devmanager/devmanager.go:100    the dcmi version is 25.0\n"
            "F0908 02:12:23.566599       1 main.go:133] load config failed, error is can not find vnpu config\n")
    ws, d = diagnose(tmp_path / "a", {"plugin.log": text})
    assert format_us(d.anchor.time).startswith("2025-09-08")
    # look-alike: a path of digits and slashes is no date
    ws, d = diagnose(tmp_path / "b", {"plugin.log": "[INFO] saved /data/1999/01/02 12:00:00 checkpoints\n"
                                      + text.split("\n", 1)[1]})
    assert not format_us(d.anchor.time).startswith("1999")


def test_the_runtimes_dump_of_a_failed_tasks_arguments_is_evidence(tmp_path):
    """Before its verdict on a failed AI Core task (`AI Core kernel execution failed, … fault
    kernel_name=X`) the runtime dumps the task's arguments at ERROR level (`GetArgsInfo:[AIC_INFO]
    args(20 to 24) after execute:0, 0xa5a5…`): evidence for the verdict, never the anchor."""
    def rt(ts: str, rest: str) -> str:
        return f"[ERROR] RUNTIME(29387,):2026-09-05-07:55:03.{ts} {rest}\n"
    dump = (rt("039.723", "[davinci_kernel_task.cc:1076]30290 GetArgsInfo:[AIC_INFO] args(20 to 24) after execute:0, "
               "0, 0, 0, 0xa5a5a5a54d0451fb.")
            + rt("039.725", "[davinci_kernel_task.cc:1080]30290 GetArgsInfo:tilingKey = 0, print 2 Times totalLen=(25*8)")
            + rt("039.732", "[davinci_kernel_task.cc:1180]30290 PrintErrorInfoForDavinciTask:[AIC_INFO] after execute:"
                 "args print end"))
    verdict = rt("039.807", "[davinci_kernel_task.cc:1210]30290 PrintErrorInfoForDavinciTask:[DFX_INFO]AI Core kernel "
                 "execution failed, device_id=0, stream_id=47, task_id=62945, fault kernel_name=IndexCheck_int64_0")
    ws, d = diagnose(tmp_path / "a", {"plog.log": dump + verdict})
    assert "AI Core kernel execution failed" in anchor_text(ws, d)
    # look-alike: a launch that failed on its arguments, untagged, is a failure of its own
    ws, d = diagnose(tmp_path / "b", {"plog.log": rt("039.700", "[kernel.cc:10]30290 LaunchKernel: args(20 to 24) "
                                                     "invalid, launch failed, 0xa5a5a5a54d0451fb") + dump})
    assert "LaunchKernel" in anchor_text(ws, d)


def test_hccls_heartbeat_verdict_outranks_a_later_watchdog_timeout(tmp_path):
    """HCCL's `Cluster Exception Location[IP/ID]:[…/1] … ExceptionType:[Heartbeat Lost Occurred]`
    names the node where the exception is: a healthy rank's watchdog that times out thirty minutes
    later waited on it (its header glued to the stamp, as copies print it)."""
    verdict = ("[ERROR]HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:610]"
               "[835695][TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[127.10.0.1/1], Arrival "
               "Time:[Thu Oct 23 17:25:58 2025], Discoverer:[127.10.0.1/2], ExceptionType:[Heartbeat Lost Occurred]\n")
    victim = _watchdog_rank7("E1023 17:58:06")
    ws, d = diagnose(tmp_path / "a", {"debug/plog/plog-835695_20251023172806000.log": verdict, "rank7.log": victim})
    assert "Heartbeat Lost Occurred" in anchor_text(ws, d)
    # look-alike: the watchdog alone is what there is
    ws, d = diagnose(tmp_path / "b", {"rank7.log": victim})
    assert "Watchdog caught" in anchor_text(ws, d)


def test_a_quoted_watchdog_timeout_is_a_collective_wait(tmp_path):
    """PyTorch's process-group watchdog quoted without c10's level prefix (`HCCL watchdog thread
    terminated with exception: [Rank 24] Watchdog caught collective operation timeout: …`) is still
    a collective wait that expired: the anchor when nothing else failed, and a victim otherwise."""
    watchdog = ("HCCL watchdog thread terminated with exception: [Rank 24] Watchdog caught collective operation "
                "timeout: WorkHCCL(SeqNum=6711, OpType=ALLGATHER, NumelIn=128, NumelOut=4096, Timeout(ms)=600000) "
                "ran for 600901 milliseconds before timing out\n")
    ws, d = diagnose(tmp_path / "a", {"train.log": watchdog})
    assert "Watchdog caught" in anchor_text(ws, d)
    assert d.anchor.kind == "timeout" and d.category == "communication"
    ws, d = diagnose(tmp_path / "b", {"train.log": "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
                                                   + watchdog})
    assert "out of memory" in anchor_text(ws, d)
    # look-alike: a line about the watchdog's setting is no timeout
    ws, d = diagnose(tmp_path / "c", {"train.log": "INFO: collective operation timeout set to 600 s\n"})
    assert d.anchor is None


def test_a_device_set_up_warning_explains_a_later_missing_context(tmp_path):
    """ACL's `aclrtSetDevice: update platform info with device failed` (a WARNING) means the device
    was never set: the same process's later `ctx is NULL!` / 107002 context pointer null errors
    follow from it. Followed by an error of another kind, the warning stays a warning."""
    warned = plog("WARNING", "ASCENDCL", 28980, "06:08:31.254.818", "[device.cpp:157]28980 aclrtSetDevice: update "
                  "platform info with device failed, deviceId = 0", day="2024-02-21")
    no_ctx = (plog("ERROR", "RUNTIME", 28980, "06:08:59.095.531", "[api_impl.cc:1038]28980 GetMaxStreamAndTask:"
                   "[FINAL][FINAL]ctx is NULL!", day="2024-02-21")
              + plog("ERROR", "RUNTIME", 28980, "06:08:59.095.668", "[api_c.cc:850]28980 rtGetMaxStreamAndTask:"
                     "[FINAL][FINAL]ErrCode=107002, desc=[context pointer null], InnerCode=0x7070001", day="2024-02-21"))
    name = "debug/plog/plog-28980_20240221060831000.log"
    ws, d = diagnose(tmp_path / "a", {name: warned + no_ctx})
    assert "update platform info with device failed" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: an out-of-memory after the same warning has a cause of its own
    oom = plog("ERROR", "RUNTIME", 28980, "06:08:59.095.531", "[npu_driver.cc:9]28980 DevMemAlloc: out of memory, "
               "size=2147483648", day="2024-02-21")
    ws, d = diagnose(tmp_path / "b", {name: warned + oom})
    assert "out of memory" in anchor_text(ws, d)


def test_an_aicpu_task_record_wrapped_after_its_task_id_is_the_device_fault(tmp_path):
    """The runtime's record of a failed AI CPU task (`Aicpu kernel execute failed, device_id=…,
    stream_id=…, task_id=…,` with `kernelName=` on the next line, as CANN 8 names the kernel and a
    console wraps it) is the fault; the synchronize call's `reason=aicpu exception` relays it."""
    record = ("Aicpu kernel execute failed, device_id=1, stream_id=7, task_id=912,\n"
              "soName=libcust_kernels.so, funcName=RunCpuKernel, kernelName=ScatterNd,\n"
              "errorCode=0x2a\n")
    tail = ("rtStreamSynchronize execution failed, reason=aicpu exception\n"
            "RuntimeError: ACL stream synchronize failed, error code:507018\n")
    ws, d = diagnose(tmp_path / "a", {"ci.log": record + tail})
    assert anchor_text(ws, d).startswith("Aicpu kernel execute failed, device_id=1")
    assert d.category == "device"
    # the same record on one line, with the kernel named in CANN 8's words
    ws, d = diagnose(tmp_path / "b", {"ci.log": "Aicpu kernel execute failed, device_id=1, stream_id=7, task_id=912, "
                                                "soName=libcust_kernels.so, kernelName=ScatterNd\n" + tail})
    assert anchor_text(ws, d).startswith("Aicpu kernel execute failed")
    # look-alike: a sentence about a kernel that failed, with no task's ids, is no record
    ws, d = diagnose(tmp_path / "c", {"ci.log": "kernel execute failed, retrying on the host\n" + tail})
    assert anchor_text(ws, d).startswith("rtStreamSynchronize execution failed, reason=aicpu exception")


def test_the_message_under_a_torch_npu_header_outranks_the_exception_above(tmp_path):
    """torch_npu prints the exception, its header, then the error manager's message; a copy that
    lost the message's code (and the header's stamp) still has it right under the header."""
    exc = ("RuntimeError: createHCCLComm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:31 HCCL function error: "
           "HcclGetRootInfo(&hcclID), error code is 7\n")
    ws, d = diagnose(tmp_path / "a", {"job.log": exc + "ERR02200 DIST call hccl api failed\n"
                                      "Failed to bind the IP port. Reason: The IP address and port have been bound already.\n"})
    assert anchor_text(ws, d).startswith("Failed to bind the IP port")
    assert d.category == "environment"
    # with the header's stamp, as torch_npu prints it
    ws, d = diagnose(tmp_path / "b", {"job.log": exc + "[ERROR] 2026-03-11-10:00:00 (PID:77, Device:0, RankID:-1) "
                                      "ERR02200 DIST call hccl api failed.\n"
                                      "Failed to bind the IP port. Reason: The IP address and port have been bound already.\n"})
    assert anchor_text(ws, d).startswith("Failed to bind the IP port")
    # look-alike: the line under the header is another logger's (another process's) print
    ws, d = diagnose(tmp_path / "c", {"job.log": "(Worker pid=5) " + exc + "(Worker pid=5) ERR02200 DIST call hccl api failed\n"
                                      "(Engine pid=4) ERROR 03-11 10:00:00 [core.py:9] Engine failed to start.\n"})
    assert "HcclGetRootInfo" in anchor_text(ws, d)
    # look-alike: an out-of-memory exception's header has no message under it; the next line is
    # another run's (a log the job appends to), whatever it says
    earlier = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
               "[ERROR] 2026-03-10-10:00:00 (PID:11, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n")
    later = ("Kernel error:\n"
             "EZ9999: [PID: 12] 2026-03-11-10:00:00.000.001 The error from device(chipId:0, dieId:0), serial number "
             "is 3, an exception occurred during AICPU execution, stream_id:2, task_id:9.\n")
    ws, d = diagnose(tmp_path / "d", {"job.log": earlier + later})
    assert "The error from device" in anchor_text(ws, d)


def test_an_operator_without_a_compiled_kernel_is_found_without_its_code(tmp_path):
    """`Cannot find bin of op X, integral key …` is the operator library's message that no compiled
    kernel matches the inputs (EZ9999's text); a copy without the code still shows it, and the
    aclnn status printed after it only relays it."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "OpName:[aclnnScatterUpdate_*_ScatterUpdate]\n"
                                      "Cannot find bin of op ScatterUpdate, integral key 0/1/|bf16/ND/\n\n"
                                      "RuntimeError:\naclnnScatterUpdateGetWorkspaceSize failed with aclnnStatus=561103.\n"})
    assert anchor_text(ws, d).startswith("Cannot find bin of op ScatterUpdate")
    assert d.category == "operator"
    # look-alike: a cache lookup that found the binary is no error
    ws, d = diagnose(tmp_path / "b", {"run.log": "INFO find binary cache for op ScatterUpdate: hit\n"})
    assert d.anchor is None


def test_a_registry_title_cut_at_its_first_letter_is_still_a_detail(tmp_path):
    """The error manager's `Title_Words(CODE): message` with its first letters lost in a copy
    (`nvalid_Argument(EZ1001): …`) is still its message, and the only line of the log."""
    ws, d = diagnose(tmp_path / "a", {"paste.log": "nvalid_Argument(EZ1001): Tensor x dtype DT_INT64 is not supported, "
                                                   "supported list is:\n"})
    assert d.anchor is not None and d.anchor.kind == "cann_detail"
    assert d.category == "operator"
    # look-alike: a program's helper named in front of a code is not the registry's title
    ws, d = diagnose(tmp_path / "b", {"paste.log": "check_params(EZ1001): value 3 is not supported\n"})
    assert d.anchor is None or d.anchor.kind != "cann_detail"


def test_a_rendezvous_store_socket_timeout_warning_is_a_wait_that_expired(tmp_path):
    """c10d logs its store socket's timeout as a warning and retries: a job hanging in its
    rendezvous shows nothing else, so the first one is the anchor; after a real failure it is a
    victim of it."""
    warn = ("(RayWorker pid=7, ip=10.0.0.2) [W311 10:00:05.000000001 socket.cpp:929] [c10d] The server socket on "
            "[::ffff:10.0.0.9]:29511 has timed out, will retry.\n")
    later = warn.replace("10:00:05", "10:02:16")
    ws, d = diagnose(tmp_path / "a", {"ray.log": warn + later})
    assert "10:00:05" in anchor_text(ws, d) and d.anchor.kind == "timeout"
    ws, d = diagnose(tmp_path / "b", {"ray.log": "[E311 10:00:01.000000001 npu.cpp:9] RuntimeError: NPU out of memory. "
                                                 "Tried to allocate 2.00 GiB\n" + warn})
    assert "out of memory" in anchor_text(ws, d)
    # look-alike: the store's listening notice is no wait
    ws, d = diagnose(tmp_path / "c", {"ray.log": "[W311 10:00:05.000000001 socket.cpp:700] [c10d] The server socket "
                                                 "has started to listen on [::]:29511.\n"})
    assert d.anchor is None


def test_a_package_built_for_another_chip_is_the_set_up(tmp_path):
    """An installer or loader refusing a package built for another SoC (`the socversion X of bin
    package does not match the current device socversion Y`) has no error word; either order."""
    ws, d = diagnose(tmp_path / "a", {"install.log": "the socversion Ascend910B3 of bin package does not match the "
                                                     "current device socversion Ascend310P1. Please rebuild.\n"})
    assert "does not match" in anchor_text(ws, d)
    assert d.category == "environment"
    ws, d = diagnose(tmp_path / "b", {"install.log": "package does not match this machine: SoC version Ascend310B4\n"})
    assert d.category == "environment"
    # look-alike: a matching SoC, and a mismatch of something else, are not this
    ws, d = diagnose(tmp_path / "c", {"install.log": "check socversion Ascend910B3 of bin package: matches the device\n"
                                                     "note: pattern does not match any file, skipped\n"})
    assert d.anchor is None


def test_an_operator_namespace_without_the_operator_is_the_set_up(tmp_path):
    """`'_OpNamespace' 'ns' object has no attribute 'op'`: the library that registers the custom
    operators was not loaded or is of another release than the code calling it."""
    ws, d = diagnose(tmp_path / "a", {"serve.log": "Traceback (most recent call last):\n"
                                      "  File \"/app/sampler.py\", line 40, in forward\n"
                                      "AttributeError: '_OpNamespace' '_C_custom' object has no attribute 'npu_top_p'\n"})
    assert d.category == "environment"
    # look-alike: a module of the model without an attribute is the program's own error
    ws, d = diagnose(tmp_path / "b", {"serve.log": "Traceback (most recent call last):\n"
                                      "  File \"/app/model.py\", line 40, in forward\n"
                                      "AttributeError: 'RowLinear' object has no attribute 'npu_top_p'\n"})
    assert d.category != "environment"


def test_a_check_of_the_ascend_c_api_inside_a_kernel_is_the_operator(tmp_path):
    """A kernel that breaks a rule of the Ascend C API (a queue's buffer limit, an instruction's
    operand check, in CPU debug or on the device) fails a check inside the framework's own source
    (`…/tikcpp/tikcfw/…`) or an `AscendC::` function: the operator's code is at fault."""
    ws, d = diagnose(tmp_path / "a", {"debug.log": "[ERROR][Core_0][/opt/cann/x86_64-linux/tikcpp/tikcfw/interface/"
                                                   "kernel_tpipe.h:700][AllocBuffer][91] queue buffer limit reached, "
                                                   "current size is 8\n"})
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "b", {"debug.log": "add_custom_cpu: kernel_operator_intf.h:40: void AscendC::Adds(...): "
                                                   "Assertion `check adds instr failed' failed.\n"})
    assert d.category == "operator"
    # look-alike: the same shape of check in another library's source says nothing of a kernel
    ws, d = diagnose(tmp_path / "c", {"debug.log": "[ERROR][Core_0][/opt/app/include/pool.h:700][AllocBuffer][91] "
                                                   "queue buffer limit reached, current size is 8\n"})
    assert d.category != "operator"


def test_core_error_information_behind_its_function_name_is_the_device_fault(tmp_path):
    """The runtime's `The extend info: errcode:(…)` and its `errorStr:` say what the core hit; a
    copy that kept the printing function's name (`PrintCoreInfo: The extend info: …`) is the same
    record, earlier than the task report (`Aicore kernel execute failed, …`) after it."""
    text = ("PrintCoreInfo: The extend info: errcode:(0, 0x800, 0)\n"
            "    errorStr: The UB address accessed by the VEC instruction is not aligned.\n"
            "PrintErrorInfoForDavinciTask: Aicore kernel execute failed, device_id=0,\n"
            "    stream_id=3, task_id=0, fault kernel_name=k_mix_aic,\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": text})
    assert anchor_text(ws, d).startswith("PrintCoreInfo: The extend info")
    assert d.category == "device"
    # look-alike: a sentence that mentions the extend info is not the record
    ws, d = diagnose(tmp_path / "b", {"run.log": "hint: read The extend info lines of the plog for the cause\n"})
    assert d.anchor is None


def test_a_unified_buffer_overflow_verdict_is_a_compile_failure_without_its_prefix(tmp_path):
    """BiShengIR's `ub overflow, requires N bits while M bits available` (a kernel's tiles do not fit
    the core's Unified Buffer) is the compiler's error, also quoted without `loc(…): error:`."""
    ws, d = diagnose(tmp_path / "a", {"pr.log": "ub overflow, requires 3145728 bits while 1572864 bits available\n"})
    assert anchor_text(ws, d).startswith("ub overflow")
    assert d.category == "compile"
    # look-alike: a tool's note about the check is no verdict
    ws, d = diagnose(tmp_path / "b", {"pr.log": "INFO ub overflow check passed for kernel k\n"})
    assert d.anchor is None


def test_a_kernel_assertion_wrapped_after_its_location_is_a_device_side_assert(tmp_path):
    """An Ascend C kernel's `[ASSERT] <file>:<line>:` with the assertion on the next lines (a copy
    wrapped it) is the device-side assert, before the host's synchronize report after it."""
    text = ("[ASSERT] .../ascendc/scatter/scatter_base.h:88:\n"
            "         Assertion `(idx < this->size_)'\n"
            "         Index 70001 out of range[0 512)!\n"
            "[ERROR] function backend_synchronize at backend.cpp:200\n"
            "        aclrtSynchronizeStream(ctx->stream())\n")
    ws, d = diagnose(tmp_path / "a", {"app.log": text})
    assert anchor_text(ws, d).startswith("[ASSERT] .../ascendc/scatter/scatter_base.h:88:")
    assert d.category == "device"
    # look-alike: a build's note that assertions are on is no assertion
    ws, d = diagnose(tmp_path / "b", {"app.log": "[ASSERT] enabled in this build: see kernel.h\n"})
    assert d.anchor is None


def test_a_kernel_prints_release_field_routes_nothing(tmp_path):
    """A kernel print's bracketed header fields (`[CANN VERSION : 8.1.RC1][TimeStamp : 0]`) name the
    release that built it, not a release at fault: the assertion after them is the device's."""
    ws, d = diagnose(tmp_path / "a", {"serve.log": "[ASSERT] [CANN VERSION : 8.2.RC1][TimeStamp : 0] /opt/opp/ascendc/"
                                                   "gather/gather_base.h:137: Assertion `(0 <= val)' Index 9 out of "
                                                   "range [0 9) !\n"})
    assert d.category == "device"
    # look-alike: a message about the CANN version itself is the set-up
    ws, d = diagnose(tmp_path / "b", {"serve.log": "ERROR: CANN version 7.0.0 is not supported by this package\n"})
    assert d.category == "environment"


def test_a_generic_internal_error_routes_by_the_call_that_returned_it(tmp_path):
    """The driver's and the runtime's generic internal errors (507899, 507000) say less than the call
    that returned them: an allocation's is memory, a device query's the set-up."""
    def wrapped(call: str) -> str:
        return (f"[rank7]: RuntimeError: map:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:456 NPU function "
                f"error: {call}, error code is 507899\n")
    ws, d = diagnose(tmp_path / "a", {"train.log": wrapped("aclrtMallocPhysical")})
    assert d.category == "memory"
    ws, d = diagnose(tmp_path / "b", {"train.log": wrapped("aclrtFreePhysical")})
    assert d.category == "memory"
    # look-alike: the same status from a device query is the driver's set-up, as before
    ws, d = diagnose(tmp_path / "c", {"train.log": wrapped("aclrtGetDeviceCount")})
    assert d.category == "environment"


def test_acls_own_plog_line_names_the_call_a_generic_status_came_from(tmp_path):
    """ASCENDCL's plog line names its call before the message (`aclrtFree: … failed, runtime result
    = N`): a generic internal error from a free is the memory's, from a device query the set-up's."""
    def acl(call: str, what: str) -> str:
        return plog("ERROR", "ASCENDCL", 88, "10:00:00.000.100",
                    f"[memory.cpp:229]88 {call}: {what} failed, runtime result = 507899")
    ws, d = diagnose(tmp_path / "a", {"debug/plog/plog-88_20260311100000000.log": acl("aclrtFree", "free device memory")})
    assert d.category == "memory"
    # look-alike: the same status from a device count is the driver's set-up
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-88_20260311100000000.log": acl("aclrtGetDeviceCount", "get device count")})
    assert d.category == "environment"


def test_a_cut_reports_traceback_status_outranks_a_later_peers_timeout(tmp_path):
    """A worker's CANN report cut to its TraceBack still says a call of that process failed with a
    status of its own (`… failed, runtime result = 207001`, an allocation); a peer's notify wait
    that expired ten minutes later waited on it."""
    worker = ("(Worker_TP3 pid=41) ERROR 03-11 10:00:00 [executor.py:8]         TraceBack (most recent call last):\n"
              "(Worker_TP3 pid=41) ERROR 03-11 10:00:00 [executor.py:8]        rtsLaunchKernelWithHostArgs failed, "
              "runtime result = {status}.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]\n")
    peer = ("[rank7]: EI0002: [PID: 77] 2026-03-11-10:10:00.123.456 The wait execution of the Notify register times out. "
            "Reason: The Notify register has not received the Notify record from remote rank [3].base information: "
            "[streamID:[9], taskID[21], taskType[Notify Wait]] task information: [remote rank:[3]].\n")
    ws, d = diagnose(tmp_path / "a", {"stdout.log": worker.format(status=207001), "stdout_rank7.log": peer})
    assert "runtime result = 207001" in anchor_text(ws, d)
    # look-alike: a trace line of a synchronisation that timed out says no more than the peer
    ws, d = diagnose(tmp_path / "b", {"stdout.log": worker.format(status=507048).replace("rtsLaunchKernelWithHostArgs",
                                                                                          "rtStreamSynchronize"),
                                      "stdout_rank7.log": peer})
    assert "EI0002" in anchor_text(ws, d)


def test_the_error_managers_message_under_its_pid_field_without_code_or_stamp(tmp_path):
    """`[PID: n] message` is the error manager's shape (its code and stamp precede the field when
    printed whole); a copy that dropped both still shows its message, which explains the
    torch_npu exception and the runtime's call report around it."""
    text = ("RuntimeError: Initialize:../torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:165\n"
            "NPU function error: aclInit, error code is 107001\n"
            "[ERROR] PTA call acl api failed\n"
            "[PID: 41] SetDeviceId failed because value 3 for parameter devId is invalid. Expected value: [0, 2).\n"
            "rtSetDefaultDeviceId execution failed, reason=device id error\n")
    ws, d = diagnose(tmp_path / "a", {"start.log": text})
    assert anchor_text(ws, d).startswith("[PID: 41] SetDeviceId failed")
    assert d.category == "environment"
    # look-alike: the field before a line with no error word is no message of a failure
    ws, d = diagnose(tmp_path / "b", {"start.log": "[PID: 41] worker started on device 3\n"})
    assert d.anchor is None


def test_a_line_an_error_only_by_its_loggers_level_is_no_message_of_a_torch_npu_header(tmp_path):
    """A logger that prints every line of a failure at ERROR (a vLLM worker) makes any line under a
    torch_npu header an error line: only a line that says by its own words that something failed
    is the error manager's message; a Ray notice or a teardown line under it is not."""
    pre = "(Worker pid=9) ERROR 03-11 10:00:00 [multiproc_executor.py:880] "
    exc = (pre + "RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function "
           "error: HcclCommInitRootInfoConfig(n, &info, rank, cfg, &comm), error code is 4\n"
           + pre + "[ERROR] 2026-03-11-10:00:00 (PID:7, Device:0, RankID:0) ERR02200 DIST call hccl api failed.\n")
    ws, d = diagnose(tmp_path / "a", {"w.log": exc + pre + "Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_"
                                      "ERRORS=1'): ray::Worker.init() (pid=8, ip=10.0.0.1)\n"})
    assert "HcclCommInitRootInfoConfig" in anchor_text(ws, d)
    ws, d = diagnose(tmp_path / "b", {"w.log": exc + pre + "Failed to bind the IP port. Reason: The IP address and "
                                      "port have been bound already.\n"})
    assert "Failed to bind the IP port" in anchor_text(ws, d)


def test_a_silent_data_corruption_check_error_is_the_devices(tmp_path):
    """The silent-data-corruption check of a step's feature values (`SilentCheck get L1 Error, input
    message: val = [inf]`) says the device computed wrong values: an NPU health event, also as
    grep printed it behind its file name and line number."""
    hit = ("device-2/device-1685_20240913141623807.log:2204:[ERROR] AICPU(1685,aicpu_scheduler):2024-09-13-"
           "14:16:43.130.671 [silent_check_v2.cc:136][ComputeL1Error][tid:1695]SilentCheck get L1 Error, input "
           "message: val = [inf], pre_val = [0.1], step = [5]\n")
    ws, d = diagnose(tmp_path / "a", {"paste.log": "$ grep -nr 'SilentCheck' device-*\n" + hit + "$\n"})
    assert "SilentCheck get L1 Error" in anchor_text(ws, d)
    assert d.category == "device"
    # look-alike: the check's settings printed at start-up are no error
    ws, d = diagnose(tmp_path / "b", {"paste.log": "[INFO] AICPU(1685,aicpu_scheduler):2024-09-13-14:16:43.048.647 "
                                                   "[silent_check_v2.cc:124][SilentCheck][tid:1695]c_thresh_l1 = [1e6]\n"})
    assert d.anchor is None


def test_a_plugin_or_module_a_program_could_not_load_is_a_loader_failure(tmp_path):
    """`Unable to load loader plugin hf. Exiting.`: the program swallowed the import error under
    it and said only that it could not load the plugin; a loader failure, the set-up's."""
    ws, d = diagnose(tmp_path / "a", {"convert.log":
        "  warnings.warn(msg, RuntimeWarning)\n"
        "Using /root/.cache/torch_extensions/py310_cpu as PyTorch extensions root...\n"
        "Unable to load saver plugin mcore. Exiting.\n"})
    assert "Unable to load saver plugin mcore" in anchor_text(ws, d)
    assert d.category == "environment"
    # look-alike: a cache the program falls back from is no loader failure
    ws, d = diagnose(tmp_path / "b", {"serve.log": "INFO unable to load cached config, using defaults\n"})
    assert d.anchor is None


def test_onnx_runtimes_status_exception_and_the_cann_call_it_names(tmp_path):
    """ONNX Runtime's Python binding raises its status by name (`…onnxruntime_pybind11_state.Fail`),
    and its CANN provider names the call that failed (`CANN Graph error executing
    ge::aclgrphBuildModel(…)`): a graph build is the compile stage."""
    def ort(call: str) -> str:
        return ("    return self._sess.run(output_names, input_feed, run_options)\n"
                "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status "
                "code returned while running main_graph node. Name:'CANNExecutionProvider_main_graph_0_0' Status "
                f"Message: CANN Graph error executing {call}\n")
    ws, d = diagnose(tmp_path / "a", {"infer.log": ort("ge::aclgrphBuildModel(graph, options, model)")})
    assert "onnxruntime_pybind11_state.Fail" in anchor_text(ws, d)
    assert d.category == "compile"
    # look-alike: the provider's malloc names an allocation, not a build
    ws, d = diagnose(tmp_path / "b", {"infer.log": ort("aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST)")})
    assert d.category == "memory"
    # look-alike: an import of the binding's module names no failure
    ws, d = diagnose(tmp_path / "c", {"infer.log": "from onnxruntime.capi.onnxruntime_pybind11_state import Fail\n"})
    assert d.anchor is None


def test_an_assertion_in_the_ascend_c_apis_own_headers_is_the_kernels_misuse(tmp_path):
    """A kernel's `[ASSERT]` inside the Ascend C API's headers (`include/ascendc/highlevel_api/…`)
    says the kernel called the API against its rules: the operator's; an assertion in the kernel's
    own source stays a device-side assert."""
    def assert_in(path: str) -> str:
        return f"        [ASSERT] {path}:268: Assertion `isTransposeB <= B_TYPE::isTrans && \"not allowed\"'\n"
    ws, d = diagnose(tmp_path / "a", {"run.log": assert_in("/opt/cann/include/ascendc/highlevel_api/lib/matmul/matmul_client.h")})
    assert d.category == "operator"
    ws, d = diagnose(tmp_path / "b", {"run.log": assert_in("/home/dev/op_kernel/add_custom.cpp")})
    assert d.category == "device"


def test_a_failed_subprocess_routes_by_its_program(tmp_path):
    """`CalledProcessError: Command '['…/bishengir-compile', …]'`: the program's folder is a path
    like any other, its name says the compile stage failed; another program says nothing of it."""
    def failed(program: str) -> str:
        return (f"subprocess.CalledProcessError: Command '['/usr/local/Ascend/cann-8.5.0/tools/bishengir/bin/{program}', "
                "'/tmp/tmpx/kernel.ttadapter.mlir', '--target=Ascend910B3']' returned non-zero exit status 1.\n")
    ws, d = diagnose(tmp_path / "a", {"run.log": failed("bishengir-compile")})
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"run.log": failed("npu-smi")})
    assert d.category != "compile"


def test_a_file_operation_in_the_cann_install_tree_is_the_set_up(tmp_path):
    """A deploy that cannot create a folder under the CANN install (`create /usr/local/Ascend/cann/opp/
    vendors/customize/framework failed`) lacks the rights on that tree: the environment's."""
    ws, d = diagnose(tmp_path / "a", {"deploy.log": "[ERROR] create /usr/local/Ascend/cann/opp/vendors/customize/framework failed\n"})
    assert d.category == "environment"
    # look-alike: creating a job's own output file names no install
    ws, d = diagnose(tmp_path / "b", {"deploy.log": "[ERROR] create /data/run1/outputs/summary failed\n"})
    assert d.category != "environment"


def test_the_assemblers_immediate_range_is_a_compile_failure(tmp_path):
    """`error: out of jump/jumpc imm range`: a branch in the kernel whose offset does not fit its
    instruction (the kernel is too large), printed by the kernel compiler's assembler."""
    ws, d = diagnose(tmp_path / "a", {"build.log": "[ERROR] [ascend910b] PowerCustom_88a6 error: out of jump/jumpc imm range\n"})
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"build.log": "[ERROR] [ascend910b] PowerCustom_88a6 error: index out of range\n"})
    assert d.category != "compile"


def test_a_status_printed_as_err_and_the_system_dma_status(tmp_path):
    """`aclrtSynchronizeStream failed after launch_fwd, err=507015` prints the call's status as
    `err=`: an AI Core exception; 507013 (ACL_ERROR_RT_SYS_DMA) is the device's DMA engine."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "RuntimeError: backend (v4): aclrtSynchronizeStream failed after launch_fwd, err=507015\n"})
    assert d.category == "device"
    ws, d = diagnose(tmp_path / "b", {"run.log": "CANN failure 507013: (look for ACL_ERROR_xxx in acl.h); NPU=0 ; "
                                                 "expr=aclrtSynchronizeStream(stream);\n"})
    assert d.category == "device"
    # look-alike: a stream status printed the same way stays the stream's
    ws, d = diagnose(tmp_path / "c", {"run.log": "RuntimeError: backend (v4): aclrtSynchronizeStream failed after launch_fwd, err=107002\n"})
    assert d.category != "device"
    # look-alike: the runtime's note of its last error (`PeekLastErr: level=0 err=507899.`) reports no
    # call that failed: no status of a failure
    assert numeric_codes("PeekLastErr: level=0 err=507899.") == {}
    assert numeric_codes("aclrtSynchronizeStream failed after launch_fwd, err=507015") == {"acl": 507015}


def test_a_graph_capture_call_named_in_snake_case_is_the_compile_stage(tmp_path):
    """`ACL graph capture_end during cleanup failed`: capturing a graph is the graph (compile) stage,
    in whatever case a program names its calls."""
    ws, d = diagnose(tmp_path / "a", {"run.log": "E20260821 17:32:26.321024 84730 acl_graph_executor_impl.cpp:464] ACL graph "
                                                 "capture_end during cleanup failed: capture_end:torch_npu/csrc/core/npu/NPUGraph.cpp:247\n"})
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"run.log": "E20260821 17:32:26.321024 84730 screen.cpp:464] screen_capture_tool failed to open display\n"})
    assert d.category != "compile"


def test_a_header_that_only_introduces_its_message_yields_to_the_build_stop_under_it(tmp_path):
    """`Failed error:` says nothing itself; under it a compiler's warning, then make's stop on the
    target that failed: the stop is the failure, and a build's stop is the build (compile)."""
    ws, d = diagnose(tmp_path / "a", {"build.log":
        "Failed error:\n"
        "  /src/op_host/add_def.cpp:64:56: warning: conversion from 'double' to 'float' changes value [-Wfloat-conversion]\n"
        "  make[3]: *** [CMakeFiles/opbuild_gen_exc.dir/build.make:77: /src/build/autogen/exc/top_k_proto.cpp] Error 1\n"
        "  make[2]: *** [CMakeFiles/Makefile2:804: CMakeFiles/opbuild_gen_exc.dir/all] Error 2\n"})
    assert "opbuild_gen_exc.dir/build.make:77" in anchor_text(ws, d)
    assert d.category == "compile"
    # a launcher's rank prefix on every line: the compiler's source excerpt under its warning is
    # code, no message of the header either
    ws, d = diagnose(tmp_path / "c", {"build.log": "".join(f"[rank3]:{line}\n" for line in (
        "Failed error:",
        "  /src/op_host/add_def.cpp:64:56: warning: conversion from 'double' to 'float' changes value [-Wfloat-conversion]",
        "     64 |         this->Attr(\"epsilon\").AttrType(OPTIONAL).Float(1e-6);",
        "        |                                                        ^~~~",
        "  make[3]: *** [CMakeFiles/opbuild_gen_exc.dir/build.make:77: /src/build/autogen/exc/top_k_proto.cpp] Error 1"))})
    assert "opbuild_gen_exc.dir/build.make:77" in anchor_text(ws, d)
    # look-alike: a stop far below a header is no message of it; the header stays the earlier error
    ws, d = diagnose(tmp_path / "b", {"build.log":
        "Failed error:\n" + "\n" * 12
        + "  make[3]: *** [CMakeFiles/opbuild_gen_exc.dir/build.make:77: /src/build/autogen/exc/top_k_proto.cpp] Error 1\n"})
    assert anchor_text(ws, d).startswith("Failed error:")


def test_the_graph_engines_no_kernel_message_is_the_cause_left_in_a_cut_traceback(tmp_path):
    """EZ3003's message (`No supported Ops kernel and engine are found for [X], optype [Y].`) is a
    failure of its own in a TraceBack whose head was cut; the build steps under it relay it."""
    block = ("        TraceBack (most recent call last):\n"
             "        {first}\n"
             "        build graph failed, graph id:0, ret:-1[FUNC:BuildModelWithGraphId][FILE:ge_generator.cc][LINE:1615]\n"
             "        build op model failed, result = 500002[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n")
    ws, d = diagnose(tmp_path / "a", {"train.log": block.format(
        first="No supported Ops kernel and engine are found for [Conv3D1], optype [Conv3D].")})
    assert "No supported Ops kernel and engine" in anchor_text(ws, d)
    # look-alike: a line of no failure there leaves the first failure of its own, as before
    ws, d = diagnose(tmp_path / "b", {"train.log": block.format(first="Start to build the single op model.")})
    assert "build graph failed" in anchor_text(ws, d)


def test_hccls_heartbeat_verdict_in_a_timeouts_report_names_the_lost_peer(tmp_path):
    """A notify wait that expired, then HCCL's list of abnormal devices in the same report
    (`deviceId[4], Heartbeat Lost Occurred`): the verdict names the peer the wait was on, the
    suspect; it outranks the wait, and it is a collective's (communication)."""
    wait = ("EI0002: [PID: 77] 2026-03-11-10:10:00.123.456 The wait execution of the Notify register times out. "
            "Reason: The Notify register has not received the Notify record from remote rank [4].\n")
    ws, d = diagnose(tmp_path / "a", {"stdout.log": wait + "there are(is) 1 abnormal device(s):\n"
                      "serverId[192.168.100.111], deviceId[4], Heartbeat Lost Occurred, Possible Reason: "
                      "1. Process has exited, 2. Network Disconnected\n"})
    assert "deviceId[4], Heartbeat Lost Occurred" in anchor_text(ws, d)
    assert d.category == "communication"
    # look-alike: a list of abnormal devices that is empty leaves the wait as the anchor
    ws, d = diagnose(tmp_path / "b", {"stdout.log": wait + "there are(is) 0 abnormal device(s):\n"})
    assert "EI0002" in anchor_text(ws, d)


def test_an_exception_repr_under_a_caret_is_no_message_line(tmp_path):
    """Triton's `CompilationError: at 9:21:` prints the kernel's source up to a caret, then its
    message; when the next line is an exception's repr quoting source (`CompilationError('def
    f(x):\\n    # TODO …')`), its sub-lines are code: the exception keeps its own line."""
    head = ("triton.compiler.errors.CompilationError: at 2:21:\n"
            "def kernel(in_ptr0, out_ptr0):\n"
            "    tmp1, tmp2 = helpers.frexp(tmp0)\n"
            "                     ^\n")
    ws, d = diagnose(tmp_path / "a", {"build.log": head +
        "CompilationError('def frexp(x):\\n    # TODO(dev): use inline asm here\\n    y = ilogb(x) + 1\\n', "
        "<ast.BinOp object at 0x7fa9>, 'AttributeError(\"no attribute __add__\")')\n"})
    assert anchor_text(ws, d).startswith("triton.compiler.errors.CompilationError: at 2:21:")
    # look-alike: a plain message under the caret is the message, as before
    ws, d = diagnose(tmp_path / "b", {"build.log": head + "invalid operands of type pointer<fp32> and fp32\n"})
    assert anchor_text(ws, d).startswith("invalid operands of type")


def test_an_hccl_setting_named_in_the_message_is_the_collectives(tmp_path):
    """`HCCL_BUFFSIZE is too SMALL, …`: an MoE dispatch's check of HCCL's buffer setting; the
    setting belongs to the collective library, so the message routes to communication."""
    ws, d = diagnose(tmp_path / "a", {"serve.log":
        "EZ9999[PID: 25038] 2026-03-17-08:21:12.001.372 (EZ9999):  HCCL_BUFFSIZE is too SMALL, maxBs = 256, "
        "h = 2048, epWorldSize = 16, localMoeExpertNum = 1, needed = 305MB, HCCL_BUFFSIZE=200MB.\n"})
    assert d.category == "communication"
    # look-alike: a word that only starts like the variable names no HCCL setting
    ws, d = diagnose(tmp_path / "b", {"serve.log":
        "EZ9999[PID: 25038] 2026-03-17-08:21:12.001.372 (EZ9999):  MY_BUFFSIZE is too SMALL, maxBs = 256.\n"})
    assert d.category != "communication"


def test_atcs_offline_model_generator_checking_its_options_is_the_conversion(tmp_path):
    """`[omg.cc:310] VerifyOutputTypeAndOutNodes: … Invalid value for --output_type`: ATC's offline
    model generator refused an option while converting a model: the compile stage."""
    line = ("[ERROR] GE(3575320,atc):2026-03-11-10:00:00.000.100 [{src}:310]3575320 VerifyOutputTypeAndOutNodes: "
            "ErrorNo: 4294967295(failed)[Check][Param]Invalid value for --output_type[/fc/Gemm:0:FP16]\n")
    ws, d = diagnose(tmp_path / "a", {"debug/plog/plog-3575320_20260311100000000.log": line.format(src="omg.cc")})
    assert d.category == "compile"
    ws, d = diagnose(tmp_path / "b", {"debug/plog/plog-3575320_20260311100000000.log": line.format(src="session.cc").replace(",atc)", ",python)")})
    assert d.category != "compile"


def test_a_build_stop_outranks_a_later_peers_timeout(tmp_path):
    """make's stop on the target that failed is a failure of that process: a peer's notify wait
    without a stamp gives way to it, as to any other failure printed before it."""
    peer = ("[rank7]: EI0002: The wait execution of the Notify register times out. Reason: The Notify register "
            "has not received the Notify record from remote rank [3].\n")
    ws, d = diagnose(tmp_path / "a", {"stdout.log": "  make[3]: *** [CMakeFiles/opbuild_gen_exc.dir/build.make:77: "
                                                     "/src/build/autogen/exc/top_k_proto.cpp] Error 1\n",
                                      "stdout_rank7.log": peer})
    assert "opbuild_gen_exc.dir/build.make:77" in anchor_text(ws, d)
    # look-alike: make's note that it waits for its other jobs names no failure
    ws, d = diagnose(tmp_path / "b", {"stdout.log": "  make[2]: *** Waiting for unfinished jobs....\n",
                                      "stdout_rank7.log": peer})
    assert "EI0002" in anchor_text(ws, d)


def test_an_exception_quoting_another_of_its_process_wraps_it_across_files(tmp_path):
    """`RuntimeError: NPUModelRunner init failed, error is 'Tensor' object has no attribute 'gpu'`
    quotes the AttributeError the same worker raised at the same second: its wrapper, also when a
    copy put the two in different files."""
    prefix = "(Worker pid=6574) ERROR 05-06 08:19:01 [multiproc_executor.py:949] "
    cause = prefix + "AttributeError: 'Tensor' object has no attribute 'gpu'\n"
    wrapper = prefix + "RuntimeError: NPUModelRunner init failed, error is 'Tensor' object has no attribute 'gpu'\n"
    ws, d = diagnose(tmp_path / "a", {"stdout.log": cause, "engine.log": wrapper})
    assert "AttributeError: 'Tensor'" in anchor_text(ws, d)
    # look-alike: another process's exception with the same words is no wrapper of it
    ws, d = diagnose(tmp_path / "b", {"stdout.log": cause, "engine.log": wrapper.replace("pid=6574", "pid=7001")})
    assert "RuntimeError: NPUModelRunner" in anchor_text(ws, d)
