"""Registry, numeric codes and code shapes: real behaviour against the shipped data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npudiag_tui.core.registry import (
    Registry,
    describe_code,
    is_inner_code,
    lookup_numeric,
)

E40021_LINE = (
    "[PID: 5120] 2026-01-10-09:15:02.114.220 Compilation_Error(E40021): Failed to compile Op "
    "QuantBatchMatmulV3. oppath is /usr/local/Ascend/cann/opp and optype is QuantBatchMatmulV3."
)
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "registry_facts.json"


@pytest.fixture(scope="module")
def reg() -> Registry:
    return Registry.load(env={}, search_roots=[])


def write_registry(path: Path, entries: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"error_info_list": entries}), encoding="utf-8")
    return path


def test_builtin_lookups(reg: Registry) -> None:
    e = reg.lookup("E40021")
    assert e is not None
    assert e.family == "TEFusion Errors"
    assert e.title == "Compilation_Error"
    assert e.template == "Failed to compile Op %s. oppath is %s and optype is %s."
    assert e.arglist == ["op_name", "opp_path", "op_type"]
    assert e.source == "built-in"
    assert e.possible_cause and e.solution
    assert not e.is_inner
    hccl = reg.lookup("ei0002")  # case-insensitive
    assert hccl is not None and hccl.family == "HCCL Errors"
    assert "HCCL_EXEC_TIMEOUT" in (hccl.solution or "")
    assert reg.lookup("EL0004").title == "Memory_Allocation_Failure"
    assert reg.lookup("NOPE01") is None
    assert reg.lookup("") is None
    assert reg.warnings == [] and reg.files == []


def test_inner_codes_have_entries(reg: Registry) -> None:
    for code in ("EZ9999", "E19999", "EE9999", "EH9999", "EI9999"):
        e = reg.lookup(code)
        assert e is not None, code
        assert e.is_inner
        assert e.solution and "root cause" in e.solution


@pytest.mark.skipif(not REFERENCE.exists(), reason="shared reference not available")
def test_all_reference_codes_present_verbatim(reg: Registry) -> None:
    facts = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert len(facts) == 642
    for f in facts:
        e = reg.lookup(f["code"])
        assert e is not None, f["code"]
        assert e.template == f["template"]
        assert e.title == f["title"]
        assert [t for t, _ in e.variants] == [v["template"] for v in f.get("template_variants") or []]
        # guidance is our own words, never the reference paraphrase
        assert e.possible_cause != f["cause_paraphrase"]
        assert e.solution != f["solution_paraphrase"]


def test_ei0002_variants(reg: Registry) -> None:
    e = reg.lookup("EI0002")
    assert len(e.variants) == 2
    new = (
        "A timeout occurs when the Notify register waits for execution. Waiting peer rank: 3; task information: "
        "streamId 5; communication operator information: allreduce; communicator: hccl_world_group."
    )
    args = reg.extract_args(e, new)
    assert args["remote_rankid"] == "3"
    assert args["group_rank_content"] == "hccl_world_group"
    old = (
        "[ERROR] HCCL(8431,python):2026-01-10-09:15:02.114.220 [task_exception_handler.cc:120] EI0002: The wait "
        "execution of the Notify register times out. Reason: The Notify register has not received the Notify "
        "record from remote rank: [unknown]. base information: [streamID:[3], taskID[5]]. task information: []. "
        "group information: [group:[hccl_world_group], rankSize[8]]"
    )
    args = reg.extract_args(e, old)
    assert args["remote_rankid"] == "unknown"
    assert args["base_information"] == "streamID:[3], taskID[5]"
    assert args["task_information"] == ""
    assert args["group_rank_content"] == "group:[hccl_world_group], rankSize[8]"
    oldest = (
        "The wait execution of the Notify register times out. Reason: The Notify register has not received the "
        "Notify record from remote rank [2].base information: [x] task information: [y]"
    )
    assert reg.extract_args(e, oldest) == {"remote_rankid": "2", "base_information": "x", "task_information": "y"}


def test_e40021_extraction(reg: Registry) -> None:
    e = reg.lookup("E40021")
    args = reg.extract_args(e, E40021_LINE)
    assert args == {
        "op_name": "QuantBatchMatmulV3",
        "opp_path": "/usr/local/Ascend/cann/opp",
        "op_type": "QuantBatchMatmulV3",
    }
    legacy = "Failed to compile Op [MatMul_1]. (oppath: [/opt/opp], optype: [MatMul])"
    assert reg.extract_args(e, legacy)["op_type"] == "MatMul"
    # truncated message: the last group runs to the end of the text; dots inside values survive
    cut = reg.extract_args(e, "Failed to compile Op a.b. oppath is /o and optype is x.y")
    assert cut["op_name"] == "a.b" and cut["op_type"] == "x.y"
    assert reg.extract_args(e, "nothing relevant here") == {}
    assert reg.extract_args(e, "") == {}


def test_extraction_flexible_whitespace_and_arglist_quirks(reg: Registry) -> None:
    e = reg.lookup("EZ0001")  # "%sth" and an Arglist with spaces after commas
    args = reg.extract_args(e, "The 2th  input of MatMul has incorrect shape [3,4]. It should be [4,3].")
    assert args == {"index": "2", "op_name": "MatMul", "incorrect_shape": "3,4", "correct_shape": "4,3"}
    ld = reg.lookup("EZ0022")  # contains %ld
    got = reg.extract_args(ld, "Parameter x of Foo has invalid tensor num 3. It should be 2.")
    assert got["incorrect_num"] == "3" and got["correct_num"] == "2"


def test_fill(reg: Registry) -> None:
    e = reg.lookup("E40021")
    args = reg.extract_args(e, E40021_LINE)
    assert reg.fill(e, args) == (
        "Failed to compile Op QuantBatchMatmulV3. oppath is /usr/local/Ascend/cann/opp and optype is QuantBatchMatmulV3."
    )
    assert reg.fill(e, {"op_name": "A"}) == "Failed to compile Op A. oppath is %s and optype is %s."
    assert reg.fill(reg.lookup("EE9999"), {}) is None  # no known template


def test_local_registry_overrides_builtin(tmp_path: Path) -> None:
    root = tmp_path / "cann"
    path = write_registry(
        root / "x86_64-linux" / "conf" / "error_manager" / "error_code.json",
        [
            {
                "errClass": "TEFusion Errors",
                "errTitle": "Failure to Compile Op",
                "ErrCode": "E40021",
                "ErrMessage": "Op %s failed to build (opp %s, type %s).",
                "Arglist": "op_name, opp_path ,op_type",
                "suggestion": {"Possible Cause": "N/A", "Solution": "Local advice."},
            },
            {"ErrCode": "EX1234", "ErrMessage": "Brand new %s.", "Arglist": ""},
        ],
    )
    reg = Registry.load(env={"ASCEND_HOME_PATH": str(root)}, search_roots=[])
    assert reg.files == [str(path)]
    assert reg.warnings == []
    e = reg.lookup("E40021")
    assert e.source == str(path)
    assert e.title == "Failure to Compile Op"
    assert e.template == "Op %s failed to build (opp %s, type %s)."
    assert e.arglist == ["op_name", "opp_path", "op_type"]
    assert e.solution == "Local advice."
    assert e.possible_cause  # "N/A" means none: built-in guidance stays
    # the built-in wordings are kept as variants, so older logs still extract
    assert reg.extract_args(e, E40021_LINE)["opp_path"] == "/usr/local/Ascend/cann/opp"
    assert reg.extract_args(e, "Op Add failed to build (opp /o, type AddV2).")["op_type"] == "AddV2"
    new = reg.lookup("EX1234")
    assert new.source == str(path) and new.arglist == []
    assert reg.lookup("E10001").source == "built-in"


def test_search_roots_and_toolkit_home(tmp_path: Path) -> None:
    a = write_registry(tmp_path / "a" / "latest" / "aarch64-linux" / "conf" / "error_manager" / "error_code.json",
                       [{"ErrCode": "EI0002", "ErrMessage": "from a %s", "Arglist": "x"}])
    b = write_registry(tmp_path / "b" / "conf" / "error_manager" / "error_code.json",
                       [{"ErrCode": "EI0002", "ErrMessage": "from b %s", "Arglist": "x"}])
    reg = Registry.load(env={"ASCEND_TOOLKIT_HOME": str(tmp_path / "b")}, search_roots=[str(tmp_path / "a")])
    assert reg.files == [str(a), str(b)]
    assert reg.lookup("EI0002").source == str(b)  # the environment's install wins over the default root


def test_extra_registry_wins(tmp_path: Path) -> None:
    local_root = tmp_path / "ascend"
    write_registry(local_root / "cann" / "conf" / "error_manager" / "error_code.json",
                   [{"ErrCode": "EI0006", "ErrMessage": "local %s", "Arglist": "reason"}])
    extra = write_registry(tmp_path / "mine.json",
                           [{"ErrCode": "EI0006", "ErrMessage": "extra %s", "Arglist": "reason",
                             "suggestion": {"Possible Cause": "Extra cause.", "Solution": "N/A"}}])
    reg = Registry.load(extra=[str(extra)], env={"ASCEND_HOME_PATH": str(local_root)}, search_roots=[])
    e = reg.lookup("EI0006")
    assert e.source == str(extra)
    assert e.template == "extra %s"
    assert e.possible_cause == "Extra cause."
    assert "local %s" in [t for t, _ in e.variants]
    assert reg.extract_args(e, "local boom") == {"reason": "boom"}


def test_bad_files_warn_and_never_raise(tmp_path: Path) -> None:
    not_json = tmp_path / "bad.json"
    not_json.write_text("{not json", encoding="utf-8")
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text(json.dumps({"codes": []}), encoding="utf-8")
    a_list = tmp_path / "list.json"
    a_list.write_text("[1, 2]", encoding="utf-8")
    partly = write_registry(tmp_path / "partly.json", [{"ErrMessage": "no code"}, "junk",
                                                        {"ErrCode": "EZ1234", "ErrMessage": "ok"}])
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    missing = tmp_path / "missing.json"
    folder = tmp_path / "adir"
    folder.mkdir()
    reg = Registry.load(extra=[str(p) for p in (not_json, wrong_shape, a_list, partly, binary, missing, folder)],
                        env={}, search_roots=[])
    by_file = {w.split(": ", 1)[0]: w for w in reg.warnings}
    for p in (not_json, wrong_shape, a_list, binary, missing, folder):
        assert str(p) in by_file, p
    assert "not valid JSON" in by_file[str(not_json)]
    assert "error_info_list" in by_file[str(wrong_shape)]
    assert "not found" in by_file[str(missing)]
    assert "skipped 2" in by_file[str(partly)]
    assert all("\n" not in w for w in reg.warnings)
    assert reg.files == [str(partly)]
    assert reg.lookup("EZ1234").source == str(partly)
    assert reg.lookup("E40021").source == "built-in"


def test_numeric_lookups() -> None:
    ffts = lookup_numeric(507048, "acl")
    assert ffts.name == "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT" and ffts.domain == "acl"
    assert "timed out" in ffts.meaning
    p = lookup_numeric(161002, "aclnn")
    assert p.name == "ACLNN_ERR_PARAM_INVALID"
    t = lookup_numeric(9, "hccl")
    assert t.name == "HCCL_E_TIMEOUT"
    assert lookup_numeric(9, "acl") is None  # never cross domains
    w = lookup_numeric("ERR00100", "torch_npu")
    assert w is not None and w.name == "PTA call acl api failed" and w.value == 100
    assert "wrapper" in w.meaning
    assert lookup_numeric(100, "torch_npu") == w
    assert lookup_numeric(207001, "acl").name == "ACL_ERROR_RT_MEMORY_ALLOCATION"
    assert lookup_numeric(123, "nope") is None
    assert lookup_numeric("not a number", "acl") is None


def test_describe_code() -> None:
    assert describe_code("EI0002") == "HCCL"
    assert describe_code("EH0001") == "ACL"
    assert describe_code("EJ0001") == "HCCP"
    assert describe_code("EE1002") == "runtime"
    assert describe_code("E40021") == "TEFusion"
    assert describe_code("E10001") == "GE"
    assert describe_code("E20001") == "FE"
    assert describe_code("E30006") == "AI CPU"
    assert describe_code("E70001") == "operator checks"
    assert describe_code("EL0004") == "driver"
    assert describe_code("EZ0001") == "operators/aclnn"
    assert describe_code("W11001") == "GE (warning)"
    assert "inner code" in describe_code("EZ9999")
    assert "inner code" in describe_code("E19999")
    assert is_inner_code("EI9999") and not is_inner_code("EI0002")
    assert "unknown" in describe_code("hello")


def test_extraction_reads_a_bounded_head_of_hostile_lines(reg: Registry) -> None:
    """Template regexes see at most MAX_EXTRACT_CHARS of a line (how their work per line is
    bounded; the timing lives in bench/): what lies beyond cannot change the answer."""
    from npudiag_tui.core.registry.registry import MAX_EXTRACT_CHARS

    hostile = ("f failed because value v for parameter p is invalid. Expected value: " * 100)[:MAX_EXTRACT_CHARS]
    real = ("Failed to compile Op QuantBatchMatmulV3. oppath is /usr/local/Ascend/cann/opp and optype "
            "is QuantBatchMatmulV3.")
    for code in ("EE1003", "EH0007", "EI0002", "E40021", "EZ0001"):
        entry = reg.lookup(code)
        assert reg.extract_args(entry, hostile + real) == reg.extract_args(entry, hostile)
        assert reg.extract_args(entry, "[" * 5000) == {}
    assert reg.extract_args(reg.lookup("E40021"), real)["op_name"] == "QuantBatchMatmulV3"


def test_installed_roots_follow_npudiag_cann_roots(tmp_path, monkeypatch):
    """A machine's CANN install is read from /usr/local/Ascend unless NPUDIAG_CANN_ROOTS names
    other folders (or none): how a run, or this test suite, keeps to the built-in registry."""
    from npudiag_tui.core.registry.registry import installed_roots

    assert installed_roots({}) == ["/usr/local/Ascend"]
    assert installed_roots({"NPUDIAG_CANN_ROOTS": ""}) == []
    root = tmp_path / "cann"
    write_registry(root / "latest" / "conf" / "error_manager" / "error_code.json",
                   [{"ErrCode": "EX4242", "ErrMessage": "From the install %s.", "Arglist": "what"}])
    monkeypatch.setenv("NPUDIAG_CANN_ROOTS", str(root))
    assert Registry.load().lookup("EX4242") is not None
    monkeypatch.setenv("NPUDIAG_CANN_ROOTS", "")
    assert Registry.load().lookup("EX4242") is None
