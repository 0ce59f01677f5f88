"""Next minimal actions and missing-evidence rules per category."""

from __future__ import annotations

import pytest

from npudiag_tui.core.diagnosis.actions import plan_actions
from npudiag_tui.core.model import CATEGORIES, NextAction, Situation

FULL = frozenset({"plog", "device", "stdout"})


def sit(category: str, **kw: object) -> Situation:
    base = dict(streams=FULL, has_device_logs=True, has_info_lines=True, rank_count=1)
    base.update(kw)
    return Situation(category=category, **base)  # type: ignore[arg-type]


def env_of(actions: list[NextAction]) -> dict[str, str]:
    out: dict[str, str] = {}
    for a in actions:
        out.update(a.env)
    return out


def text_of(actions: list[NextAction]) -> str:
    return "\n".join(a.action + " " + a.why for a in actions)


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_category_short_and_explained(category: str) -> None:
    actions, missing = plan_actions(sit(category))
    assert 2 <= len(actions) <= 5
    for a in actions:
        assert isinstance(a, NextAction) and a.action and a.why
    assert isinstance(missing, list)


def test_operator_names_op_and_launch_blocking() -> None:
    actions, missing = plan_actions(sit("operator", code="EZ1001", op_name="QuantBatchMatmulV3",
                                        text="aclnnQuantMatmul failed, opp_kernel package not found"))
    assert env_of(actions)["ASCEND_LAUNCH_BLOCKING"] == "1"
    assert "QuantBatchMatmulV3" in text_of(actions)
    assert "opp_kernel" in text_of(actions)
    assert missing == []


def test_device_uses_msaicerr() -> None:
    actions, _ = plan_actions(sit("device", code="507015", op_name="MatMul"))
    t = text_of(actions)
    assert "asys" in t and "msaicerr -p <dir>" in t
    assert env_of(actions)["ASCEND_LAUNCH_BLOCKING"] == "1"


def test_communication_root_rank_and_links() -> None:
    actions, missing = plan_actions(sit("communication", code="EI0006", rank_count=8, root_rank=5))
    t = text_of(actions)
    assert "rank 5" in actions[0].action
    assert "hccn_tool -i <dev> -link -g" in t
    env = env_of(actions)
    assert env["ASCEND_GLOBAL_EVENT_ENABLE"] == "1" and env["ASCEND_GLOBAL_LOG_LEVEL"] == "1"
    assert "HCCL_CONNECT_TIMEOUT" in env and "HCCL_EXEC_TIMEOUT" in env
    assert not any("all ranks" in m.lower() for m in missing)
    assert any("ASCEND_HOST_LOG_FILE_NUM" in m for m in missing)


def test_communication_all_timeouts_asks_entry_log_and_all_ranks() -> None:
    actions, missing = plan_actions(sit("communication", code="EI0002", rank_count=4, timeouts_only=True))
    assert env_of(actions).get("HCCL_ENTRY_LOG_ENABLE") == "1"
    assert any("all ranks" in m.lower() for m in missing)


def test_communication_single_rank_needs_all_ranks() -> None:
    _, missing = plan_actions(sit("communication", code="EI0002", rank_count=1))
    assert any("all ranks" in m.lower() and "only one rank" in m for m in missing)


def test_memory() -> None:
    actions, _ = plan_actions(sit("memory", code="EL0004", rank_count=8, text="HCCL alloc failed"))
    env = env_of(actions)
    assert "npu-smi info" in actions[0].action
    assert env["PYTORCH_NPU_ALLOC_CONF"] == "expandable_segments:True"
    assert "HCCL_BUFFSIZE" in env


def test_compile_bisect_and_capture() -> None:
    actions, _ = plan_actions(sit("compile", compile_stage="backend"))
    t = text_of(actions)
    env = env_of(actions)
    assert env["TORCH_LOGS"] == "+dynamo,+aot,+graph_breaks" and env["TORCH_COMPILE_DEBUG"] == "1"
    assert "aot_eager" in t and "npugraph_ex" in t
    cap, _ = plan_actions(sit("compile", code="107030"))
    assert "eager" in cap[0].action.lower() and "capture" in cap[0].action.lower()
    op, _ = plan_actions(sit("compile", code="E40021", op_name="QuantBatchMatmulV3"))
    assert "E40024" in op[0].action and "QuantBatchMatmulV3" in op[0].action


def test_environment() -> None:
    actions, _ = plan_actions(sit("environment", code="E40020"))
    t = text_of(actions)
    assert "set_env.sh" in t and "torch_npu" in t and "opp_kernel" in t


def test_stream_event_is_a_symptom() -> None:
    actions, missing = plan_actions(sit("stream_event", code="507046", rank_count=2))
    assert "symptom" in actions[0].action
    assert env_of(actions)["ASCEND_GLOBAL_LOG_LEVEL"] == "1"
    assert any("ASCEND_HOST_LOG_FILE_NUM" in m for m in missing)


def test_unknown_after_a_crash_wants_backtrace_and_versions() -> None:
    t = text_of(plan_actions(sit("unknown", crashed=True))[0])
    assert "backtrace" in t and "version" in t.lower()


def test_no_plog_first_action_collects_it() -> None:
    actions, missing = plan_actions(sit("operator", streams=frozenset({"stdout"}), has_device_logs=False,
                                        has_info_lines=False))
    assert actions[0].env["ASCEND_PROCESS_LOG_PATH"] == "<fresh dir>"
    assert actions[0].env["ASCEND_GLOBAL_LOG_LEVEL"] == "1"
    joined = "\n".join(missing)
    assert "ASCEND_PROCESS_LOG_PATH" in joined and "ASCEND_SLOG_PRINT_TO_STDOUT=1" in joined
    assert "ASCEND_LOG_DEVICE_FLUSH_TIMEOUT" in joined and "msnpureport" in joined
    assert len(actions) <= 5


def test_level_one_when_no_info_lines() -> None:
    _, missing = plan_actions(sit("memory", has_info_lines=False))
    assert any("ASCEND_GLOBAL_LOG_LEVEL=1" in m for m in missing)


def test_device_logs_only_asked_for_device_and_operator() -> None:
    _, missing = plan_actions(sit("device", streams=frozenset({"plog"}), has_device_logs=False))
    assert any("msnpureport" in m for m in missing)
    _, missing = plan_actions(sit("environment", streams=frozenset({"plog"}), has_device_logs=False))
    assert not any("msnpureport" in m for m in missing)


def test_unknown_category_falls_back() -> None:
    actions, _ = plan_actions(Situation(category="something-new"))
    assert actions


@pytest.mark.parametrize("category", ["environment", "compile", "operator", "unknown"])
def test_a_failed_build_asks_for_its_own_output_not_a_rerun_of_a_job(category: str) -> None:
    actions, missing = plan_actions(sit(category, streams=frozenset({"stdout"}), has_device_logs=False,
                                        has_info_lines=False, building=True))
    joined = text_of(actions) + "\n".join(missing)
    assert "ASCEND_PROCESS_LOG_PATH" not in joined and "ASCEND_LAUNCH_BLOCKING" not in env_of(actions)
    assert "msnpureport" not in joined
    assert "pip install -v" in joined and "version.cfg" in joined
    first = actions[0].action
    assert ("set_env.sh" in first) if category == "environment" else ("first error" in first)


def test_a_build_log_is_recognised_end_to_end(tmp_path) -> None:
    from npudiag_tui.core.workspace import Workspace

    (tmp_path / "build.log").write_text(
        "-- Configuring kernels\n"
        "/src/kernels/rope.cpp:357:9: error: use of undeclared identifier 'rope_half'\n"
        "1 error generated.\n"
        "gmake[2]: *** [CMakeFiles/kern.dir/build.make:76: rope.o] Error 1\n", encoding="utf-8")
    ws = Workspace.open([str(tmp_path / "build.log")])
    ws.index()
    d = ws.diagnose()
    assert d.category == "compile"
    assert "first error" in d.next_actions[0].action
    assert not any("ASCEND_PROCESS_LOG_PATH" in m for m in d.missing)
    ws.close()


@pytest.mark.parametrize("text, step", [
    ("Check path: config.json failed, by: Check Other group permission failed: Current permission is 4, but "
     "required no greater than 0.", "chmod 640"),
    ("ConfigManager init exception: Failed to initialize ModelDeployConfig from JSON.", "json.tool"),
    ("make: relocation error: /usr/lib64/libguile-2.0.so.22: symbol ffi_type_uint32 version LIBFFI_BASE_7.0 not "
     "defined in file libffi.so.7", "ldd"),
])
def test_a_set_up_failure_that_names_what_to_fix_leads_with_it(text: str, step: str) -> None:
    """The console alone holds the whole story of such a failure: fixing what the line names
    comes before a rerun that collects plogs (which would print the same line)."""
    actions, missing = plan_actions(sit("environment", text=text, streams=frozenset({"stdout"}), has_device_logs=False))
    assert step in actions[0].action
    assert any("ASCEND_PROCESS_LOG_PATH" in m for m in missing)  # the plog is still named as missing evidence


def test_a_library_the_loader_cannot_find_keeps_the_generic_set_up_first() -> None:
    """Look-alike: a library not found at all is the environment not being set up (set_env.sh),
    not another build bound by the loader."""
    actions, _ = plan_actions(sit("environment", text="ImportError: libhccl.so: cannot open shared object file: No "
                                  "such file or directory"))
    assert "set_env.sh" in actions[0].action and "ldd" not in text_of(actions)


def test_the_root_cause_of_a_named_set_up_failure_says_what_failed(tmp_path) -> None:
    from test_diagnosis import diagnose

    ws, d = diagnose(tmp_path / "a", {"daemon.log": "Check path: model/config.json failed, by: Check Other group "
                                                    "permission failed: Current permission is 4, but required no "
                                                    "greater than 0.\n"})
    assert "owner or mode" in d.root_cause
    ws, d = diagnose(tmp_path / "b", {"run.log": "ImportError: libhccl.so: cannot open shared object file: No such "
                                                 "file or directory\n"})
    assert d.category == "environment" and "owner or mode" not in d.root_cause and "loader bound" not in d.root_cause
