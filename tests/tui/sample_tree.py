"""A small CANN-shaped log tree (the plog shapes of docs/formats.md, synthetic values) for TUI tests.

Two ranks. Rank 1 hits an AICPU kernel error first (the root); rank 0 then times out in HCCL
(notify wait), and the console shows the torch_npu wrapper. Lines are deterministic.
"""

from __future__ import annotations

from pathlib import Path

T0 = (2026, 1, 1, 10, 0, 0)


def ts(sec: float) -> str:
    total_us = int(round(sec * 1_000_000))
    whole, frac = divmod(total_us, 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def make_tree(root: Path, filler: int = 60, hostile: bool = True) -> tuple[Path, Path]:
    """Write the tree under root; return (log root, console file)."""
    log = root / "ascend" / "log"
    plog = log / "debug" / "plog"
    plog.mkdir(parents=True)
    (log / "debug" / "device-0").mkdir(parents=True)
    (log / "debug" / "device-1").mkdir(parents=True)

    def plog_lines(pid: int, rank: int) -> list[str]:
        out = [
            f"[INFO] HCCL({pid},python):{ts(0.5)} [hccl_comm.cc:120] [{pid}][HcclCommInit] "
            f"HcclCommInitRootInfo success, rank[{rank}] rankSize[2] deviceLogicId[{rank}]",
        ]
        for k in range(filler):
            sec = 1 + k * 0.07
            out.append(f"[INFO] GE({pid},python):{ts(sec)} [ge_api.cc:{100 + k}]{pid} RunGraph:step {k} ok")
            if k % 10 == 5:
                out.append(f"[INFO] HCCL({pid},python):{ts(sec + 0.01)} [hccl_op.cc:33] [{pid}][AllReduce] "
                           f"launch allreduce tag[step{k}]")
        if rank == 0:
            out.append(f"[WARNING] RUNTIME({pid},python):{ts(7.5)} [stream.cc:88]{pid} Sync:stream busy, retrying")
            out.append(f"[ERROR] HCCL({pid},python):{ts(9.0)} [notify.cc:210] [{pid}][Wait][Notify]"
                       f"notify wait timeout, rank[0] remote rank[1] timeout[1800 s] EI0002")
            out.append(f"[ERROR] RUNTIME({pid},python):{ts(9.1)} [stream.cc:101]{pid} Sync:stream sync failed, "
                       f"error code is 507048")
            if hostile:
                out.append(f"[WARNING] GE({pid},python):{ts(9.2)} [ge.cc:1]{pid} Evil:[bold red]not markup[/b] "
                           "\x1b[2J esc")
        else:
            out.append(f"[ERROR] RUNTIME({pid},python):{ts(6.0)} [task.cc:77]{pid} TaskFail:aicpu kernel "
                       "execute failed, error code is 507018")
            out.append("    continuation line of the rank 1 error without a stamp")
        for k in range(10):
            out.append(f"[INFO] GE({pid},python):{ts(10 + k * 0.1)} [ge_api.cc:9]{pid} Finalize:{k}")
        return out

    def device_lines(pid: int, rank: int) -> list[str]:
        out = [f"[INFO] AICPU(4{rank}00,aicpu_scheduler):{ts(0.7)} [aicpu.cc:1][Init][tid:1] start"]
        for k in range(20):
            out.append(f"[INFO] AICPU(4{rank}00,aicpu_scheduler):{ts(1.05 + k * 0.2)} [aicpu.cc:2][Run][tid:1] "
                       f"kernel {k}")
        if rank == 1:
            out.append(f"[ERROR] AICPU(4100,aicpu_scheduler):{ts(5.9)} [aicpu_sharder.cc:288][RunKernel][tid:1] "
                       "kernel param invalid, op type is Gather")
        out.append(f"[ERROR] HCCP(4{rank}00,hccp):{ts(9.05)} [ra.c:10]tid:1,ra_op(10) : link down")
        return out

    (plog / "plog-1000_20260101100000000.log").write_text("\n".join(plog_lines(1000, 0)) + "\n")
    (plog / "plog-2000_20260101100000000.log").write_text("\n".join(plog_lines(2000, 1)) + "\n")
    (log / "debug" / "device-0" / "device-1000_20260101100000000.log").write_text(
        "\n".join(device_lines(1000, 0)) + "\n")
    (log / "debug" / "device-1" / "device-2000_20260101100000000.log").write_text(
        "\n".join(device_lines(2000, 1)) + "\n")
    console = root / "train.log"
    con = [f"2026-01-01 10:00:0{k},000 INFO step {k}" for k in range(5)]
    con += [
        "Traceback (most recent call last):",
        '  File "train.py", line 10, in <module>',
        "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:479 NPU function error: "
        "AclrtSynchronizeDeviceWithTimeout, error code is 507048",
        "[ERROR] 2026-01-01-10:00:09 (PID:1000, Device:0, RankID:0) ERR00100 PTA call acl api failed",
    ]
    console.write_text("\n".join(con) + "\n")
    return log, console
