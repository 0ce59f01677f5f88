"""Robustness of the anchor under what real jobs add around a cause, on every dev case the
engine gets right; prints how many still hold and the cases that moved. Dev cases only: the
holdout is measured, never probed.

- `top` (default): lines that Ascend jobs print on every run and that no diagnostician anchors
  (torch_npu's start-up warnings, deprecations, progress bars, vLLM's INFO lines, a failed
  optional import) at the top of each console log;
- `near`: the same right before the traceback that ends in the anchor;
- `victim`: a healthy rank's console (rank 7) that times out waiting on the failed one ten
  minutes after the case's last event (HCCL's notify wait, EI0002, under a synchronize failure
  and its ERR00100); without a stamp when the case has none;
- `victim_watchdog`: the same rank as torch's HCCL watchdog reports it, thirty minutes later
  (c10's stamps, the watchdog's timeout, the process taken down);
- `victim_plog`: the same rank's plog instead, two minutes after the case's last dated event:
  HCCL's link set-up waiting on the failed peer (`wait socket establish timeout`);
- `earlier_run`: an earlier run's failure (an out-of-memory a day before the case's first dated
  event) at the top of the console file that holds the anchor, as a job appends to its log;
- `teardown`: what a process prints while it shuts down after the failure (a leaked process
  group, an exception ignored in a destructor, a leaked semaphore, a segfault at exit) at the
  end of the console file that holds the anchor;
- `launcher`: what the launchers above the failed process print after it (torchrun's
  ChildFailedError summary, vLLM's engine start-up failure), five seconds after the last event;
- `ray_died`: Ray's notices that the actor running the failed code died (the raylet's worker
  death, ActorDiedError, a final `Killed`) after the anchor;
- `interleave`: the case's console as rank 0's, with a healthy rank 1's progress lines between
  every two of its lines, as torchrun prints several ranks into one stream.

    .venv/bin/python bench/noise.py [top|near|victim|victim_watchdog|victim_plog|earlier_run|teardown|launcher|
                                     ray_died|interleave]
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import corpus_dirs  # noqa: E402
from test_conformance import judge  # noqa: E402
from envelopes import logger_stamp, report_moves  # noqa: E402

from npudiag_tui.core.workspace import Workspace  # noqa: E402

NOISE = [
    "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/path_manager.py:82: UserWarning: "
    "Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current user.",
    '  warnings.warn(f"Warning: The {path} owner does not match the current user.")',
    "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/contrib/transfer_to_npu.py:292: ImportWarning: ",
    "    *************************************************************************************************************",
    "    The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu now..",
    "    *************************************************************************************************************",
    "  warnings.warn(msg, ImportWarning)",
    "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/dynamo/__init__.py:18: UserWarning: Register eager "
    "implementation for the 'npu' backend of dynamo, as torch_npu was not compiled with torchair.",
    "[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. "
    "(function operator())",
    "INFO {stamp} [__init__.py:39] Available plugins for group vllm.platform_plugins:",
    "WARNING {stamp} [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError(\"No module named "
    "'vllm._C'\")",
    "/usr/local/python3.10/lib/python3.10/site-packages/transformers/utils/generic.py:311: FutureWarning: "
    "`torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` "
    "instead.",
    "Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.21it/s]",
    "DeprecationWarning: pkg_resources is deprecated as an API. See https://setuptools.pypa.io/en/latest/pkg_resources.html",
]


VICTIM = """\
[rank7]:[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())
[rank7]: Traceback (most recent call last):
[rank7]:   File "/workspace/train.py", line 212, in <module>
[rank7]:     torch.npu.synchronize()
[rank7]:   File "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/npu/utils.py", line 49, in synchronize
[rank7]:     return torch_npu._C._npu_synchronize()
[rank7]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: \
AclrtSynchronizeDeviceWithTimeout, error code is 507048
[rank7]: [ERROR] {day}-{hms} (PID:51234, Device:7, RankID:7) ERR00100 PTA call acl api failed
[rank7]: [Error]: The execution of the internal task times out.
[rank7]:         Rectify the fault based on the error information in the ascend log.
[rank7]: EI0002: [PID: 51234] {day}-{hms}.123.456 The wait execution of the Notify register times out. Reason: \
The Notify register has not received the Notify record from remote rank [3].base information: [streamID:[9], \
taskID[21], taskType[Notify Wait], tag[AllReduce_10.0.0.1%enp189s0f0_60000_0_1764499321000000], AlgType(level \
0-1-2):[fullmesh-ring-ring].] task information: [notify id:[0x0000000100000058], stage:[0], remote rank:[3]].
"""


# the same healthy rank as torch's watchdog reports it (c10's stamp: month*100+day, no year)
VICTIM_WATCHDOG = """\
[rank7]:[E{md} {hms}.123456789 ProcessGroupHCCL.cpp:1412] [Rank 7] Watchdog caught collective operation timeout: \
WorkHCCL(SeqNum=5123, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800021 milliseconds before timing out.
[rank7]:[E{md} {hms}.123456789 ProcessGroupHCCL.cpp:572] Some HCCL operations have failed or timed out. Due to the \
asynchronous nature of ASCEND kernels, subsequent NPU operations might run on corrupted/incomplete data.
[rank7]:[E{md} {hms}.123456789 ProcessGroupHCCL.cpp:578] To avoid data inconsistency, we are taking the entire \
process down.
terminate called after throwing an instance of 'std::runtime_error'
  what():  [Rank 7] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=5123, OpType=ALLREDUCE, \
Timeout(ms)=1800000) ran for 1800021 milliseconds before timing out.
"""


# the same healthy rank seen in its plog: HCCL's link set-up waiting on the peer that failed
VICTIM_PLOG = """\
[ERROR] HCCL(51234,python):{day}-{hms}.101.230 [hccl_socket_manager.cc:796] [51300][Wait][LinkEstablish]wait socket \
establish timeout, role[1] rank[7] timeout[120 s]
[ERROR] HCCL(51234,python):{day}-{hms}.101.502 [transport_manager.cc:301] [51300][Create][DestLink]Transport init \
error! createLink para:rank[7]-localUserrank[7]-localIpAddr[10.0.0.8], dst_rank[3]-remoteUserrank[3]-remote_ip_addr[10.0.0.4]
"""


# an earlier run's failure left at the top of a log the job appends to (nohup … >> train.log)
EARLIER_RUN = """\
{day} {hms},120 - INFO - trainer.py:88 - start training, world size 8
Traceback (most recent call last):
  File "/workspace/train.py", line 212, in <module>
    loss.backward()
RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity; 58.12 GiB already \
allocated; 58.12 GiB current active; 1.02 GiB free; 59.80 GiB reserved in total by PyTorch)
[ERROR] {day}-{hms} (PID:1111, Device:0, RankID:-1) ERR00100 PTA call acl api failed
"""


# what a process prints while it shuts down after the failure (untimed, at the end)
TEARDOWN = """\
[W compiler_depend.ts:487] Warning: destroy_process_group() was not called before program exit, which can leak \
resources. (function operator())
Exception ignored in: <function LLMEngine.__del__ at 0x7f3a2c1e5d80>
Traceback (most recent call last):
  File "/usr/local/python3.10/lib/python3.10/site-packages/vllm/engine/llm_engine.py", line 503, in __del__
    self.model_executor.shutdown()
AttributeError: 'NoneType' object has no attribute 'shutdown'
/usr/local/python3.10/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There \
appear to be 1 leaked semaphore objects to clean up at shutdown
  warnings.warn('resource_tracker: There appear to be %d '
Segmentation fault (core dumped)
"""


# what the launchers above the failed process print after it (torchrun's summary, vLLM's engine)
LAUNCHER = """\
{stamp} torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 1234) of \
binary: /usr/local/python3.10/bin/python3
Traceback (most recent call last):
  File "/usr/local/python3.10/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 1234)
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}
"""


# Ray's notices that the actor running the failed code died (the driver's view, after it)
RAY_DIED = """\
(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the \
problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff3c11a5e2 Worker ID: 9a3e Node ID: 7c1f \
Worker IP address: 10.0.0.2 Worker port: 10002 Worker PID: 91798 Worker exit type: SYSTEM_ERROR Worker exit detail: \
Worker unexpectedly exits with a connection error code 2. End of file.
Traceback (most recent call last):
  File "/workspace/main_ppo.py", line 64, in main
    ray.get(runner.run.remote(config))
ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.
	class_name: WorkerDict
	actor_id: 3c11a5e2
Killed
"""


def event_times(case: Path) -> list[int]:
    """The times the engine gives the case's events (its own year inference)."""
    ws = Workspace.open([str(p) for p in sorted(case.iterdir()) if p.name not in ("truth.json", "source.md")])
    try:
        ws.index()
        return [e.time for e in ws.diagnose().events if e.time is not None]
    finally:
        ws.close()


def _at(us: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us)


def last_time(case: Path) -> dt.datetime | None:
    """The case's last event time as the engine dates it."""
    times = event_times(case)
    return _at(max(times)) if times else None


def victim(case: Path) -> str:
    """Rank 7's timeout, ten minutes after the last event the engine dates in the case."""
    last = last_time(case)
    if last is None:  # the older shapes, without stamps
        return "\n".join(line.replace("[PID: 51234] {day}-{hms}.123.456 ", "") for line in VICTIM.split("\n")
                         if "ERR00100" not in line)
    t = last + dt.timedelta(minutes=10)
    return VICTIM.format(day=t.strftime("%Y-%m-%d"), hms=t.strftime("%H:%M:%S"))


# what a healthy rank prints meanwhile, line by line between the failing rank's lines
PEER = [
    "Loading checkpoint shards:  50%|█████     | 2/4 [00:01<00:01,  1.21it/s]",
    "step 120/1000 loss=2.3141 lr=1.0e-04 grad_norm=0.812",
    "[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with "
    "float. (function operator())",
    "  warnings.warn(",
]


def interleaved(lines: list[str]) -> list[str] | None:
    """The console of rank 0 (the case's own lines) with rank 1's lines between them, as
    torchrun prints several ranks into one stream; None when the case has ranks of its own."""
    if any(line.startswith("[rank") for line in lines):
        return None
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(f"[rank0]: {line}" if line else line)
        if line:
            out.append(f"[rank1]: {PEER[i % len(PEER)]}")
    return out


def noised(case: Path, dst: Path, mode: str) -> bool:
    """Copy a case with noise put where `mode` says; False when the case has no place for it."""
    if mode == "interleave":
        logs = [p for p in case.iterdir() if p.name.startswith("stdout") and p.name.endswith(".log")]
        mixed = {p.name: interleaved(p.read_text(encoding="utf-8", errors="replace").split("\n")) for p in logs}
        if not mixed or None in mixed.values():
            return False
        shutil.copytree(case, dst)
        for name, lines in mixed.items():
            (dst / name).write_text("\n".join(lines), encoding="utf-8")
        return True
    if mode in ("ray_died", "launcher", "teardown"):
        truth = json.loads((case / "truth.json").read_text(encoding="utf-8"))
        if not truth["file"].startswith("stdout"):
            return False
        if mode == "launcher":
            last = last_time(case)
            after = LAUNCHER.format(stamp=(last + dt.timedelta(seconds=5)).strftime("[%Y-%m-%d %H:%M:%S,000]")
                                    if last else "").lstrip(" ")
        else:
            after = RAY_DIED if mode == "ray_died" else TEARDOWN
        shutil.copytree(case, dst)
        log = dst / truth["file"]
        text = log.read_text(encoding="utf-8", errors="replace")
        log.write_text(text + ("" if text.endswith("\n") else "\n") + after, encoding="utf-8")
        return True
    if mode == "earlier_run":
        truth = json.loads((case / "truth.json").read_text(encoding="utf-8"))
        times = event_times(case)
        if not truth["file"].startswith("stdout") or not times:
            return False
        t = _at(min(times)) - dt.timedelta(days=1)
        shutil.copytree(case, dst)
        log = dst / truth["file"]
        log.write_text(EARLIER_RUN.format(day=t.strftime("%Y-%m-%d"), hms=t.strftime("%H:%M:%S"))
                       + log.read_text(encoding="utf-8", errors="replace"), encoding="utf-8")
        return True
    if mode == "victim_plog":
        last = last_time(case)
        if last is None:  # a plog always has stamps: nothing to place it against
            return False
        t = last + dt.timedelta(minutes=2)
        shutil.copytree(case, dst)
        folder = dst / "debug" / "plog"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"plog-51234_{t.strftime('%Y%m%d%H%M%S')}000.log").write_text(
            VICTIM_PLOG.format(day=t.strftime("%Y-%m-%d"), hms=t.strftime("%H:%M:%S")), encoding="utf-8")
        return True
    if mode == "victim_watchdog":
        last = last_time(case)
        if last is None:  # c10 stamps are good to a second: nothing to place them against
            return False
        t = last + dt.timedelta(minutes=30)
        shutil.copytree(case, dst)
        (dst / "stdout_rank7.log").write_text(VICTIM_WATCHDOG.format(md=f"{t.month * 100 + t.day}",
                                                                     hms=t.strftime("%H:%M:%S")), encoding="utf-8")
        return True
    if mode == "victim":
        shutil.copytree(case, dst)
        (dst / "stdout_rank7.log").write_text(victim(case), encoding="utf-8")
        return True
    near = mode == "near"
    truth = json.loads((case / "truth.json").read_text(encoding="utf-8"))
    logs = [p for p in case.iterdir() if p.name.startswith("stdout") and p.name.endswith(".log")]
    if near:
        logs = [p for p in logs if p.name == truth["file"]]
    if not logs:
        return False
    if not dst.exists():
        shutil.copytree(case, dst)
    for p in logs:
        lines = p.read_text(encoding="utf-8", errors="replace").split("\n")
        at = 0
        if near:  # a block that is not a traceback's could be cut in the middle of one message
            a = truth["anchor_line"] - 1
            at = next((i for i in range(a, max(-1, a - 80), -1)
                       if lines[i].lstrip().startswith("Traceback (most recent call last)")), -1)
            if at < 0:
                return False
        stamp = logger_stamp(lines)  # the case's own moment: a stamp from another day would split episodes
        noise = [line.replace("{stamp}", stamp) for line in NOISE]
        (dst / p.name).write_text("\n".join(lines[:at] + noise + lines[at:]), encoding="utf-8")
    return True


def main() -> None:
    mode = (sys.argv[1:] or ["top"])[0]
    good = [c for c in corpus_dirs("dev") if (r := judge(c))["anchor"] and r["category"]]
    report_moves(mode, good, lambda case, dst: noised(case, dst, mode))


if __name__ == "__main__":
    main()
