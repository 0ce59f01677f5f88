#!/usr/bin/env python3
"""Generate a realistic multi-rank CANN log tree of a given size, with a planted root cause.

    python bench/gen_tree.py OUT --size 1G [--ranks 8] [--seed 1] [--scenario aicore|cqe]

Layout (docs/formats.md, "Files and folders"):

    OUT/debug/plog/plog-<pid>_<YYYYMMDDhhmmssmmm>.log        one process per rank, rotated at 20 MB
    OUT/debug/device-<id>/device-<pid>_<ts>.log              device side, about 2 % of the plog bytes
    OUT/run/plog/plog-<pid>_<ts>.log                         run logs: HCCL init/entry/heartbeat INFO
    OUT/train.log                                            console: torchrun + logging noise, then the
                                                             torch_npu error blocks at the end
    OUT/planted.json                                         the planted anchor (path, 1-based line, ...)

The bulk is INFO/DEBUG noise of RUNTIME, GE, FE, ASCENDCL, HCCL, OP and PROFILING with TS6 stamps
that increase through the run, a few WARNING lines without codes and a few benign early [ERROR]
lines (ATRACE, IDEDD, PROFILING). At T_root one rank (default 5) hits the planted cause:

- ``aicore``: AI Core exception: RUNTIME ProcessCoreErrorInfo / ErrCode=507015 lines in the plog,
  the TSCH line in the device log, the 507015 torch_npu block in the console;
- ``cqe``: HCCP ``error cqe`` in the device log of that rank (HCCL ErrorCqe lines in its plog).

1836 s later (HCCL_EXEC_TIMEOUT per the HCCL docs) every other rank logs EI0002 notify-wait
timeouts naming ``remote rank: [<root>]`` ([ERROR] HCCL plog lines plus 507048 sync failures), and
the console ends with their torch_npu blocks (RuntimeError ... error code is 507048, ERR00100,
[Error]:, EI0002 detail) and the torchrun ChildFailedError summary.

Lines come from a few templates filled from pre-built pools of varying numbers; the per-line
work is one stamp (cached per second) and one concatenation, written in ~4 MB buffered writes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import sys

MB = 1 << 20
T_START = _dt.datetime(2026, 3, 11, 6, 48, 15, 475000)
T_ROOT = _dt.datetime(2026, 3, 11, 7, 22, 41, 498770)
EXEC_TIMEOUT_S = 1836
BUF_BYTES = 4 * MB
T3 = [f"{i:03d}" for i in range(1000)]


def parse_size(text: str) -> int:
    t = text.strip().upper().rstrip("B")
    mult = 1
    if t and t[-1] in "KMGT":
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[t[-1]]
        t = t[:-1]
    try:
        return int(float(t) * mult)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use e.g. 3M, 1G, 500K)") from None


def us_of(dt: _dt.datetime) -> int:
    return int((dt - _dt.datetime(1970, 1, 1)).total_seconds() * 1_000_000)


EPOCH = _dt.datetime(1970, 1, 1)


class Stamper:
    """TS6 / name stamps from integer µs, caching the per-second part."""

    def __init__(self) -> None:
        self._sec = -1
        self._sec_text = ""

    def ts6(self, us: int) -> str:
        sec, frac = divmod(us, 1_000_000)
        if sec != self._sec:
            self._sec = sec
            self._sec_text = (EPOCH + _dt.timedelta(seconds=sec)).strftime("%Y-%m-%d-%H:%M:%S")
        ms, u = divmod(frac, 1000)
        return f"{self._sec_text}.{T3[ms]}.{T3[u]}"

    @staticmethod
    def name(us: int) -> str:
        dt = EPOCH + _dt.timedelta(microseconds=us)
        return dt.strftime("%Y%m%d%H%M%S") + T3[dt.microsecond // 1000]

    @staticmethod
    def console(us: int) -> str:  # Python logging: 2026-03-11 06:50:00,123
        dt = EPOCH + _dt.timedelta(microseconds=us)
        return dt.strftime("%Y-%m-%d %H:%M:%S") + "," + T3[dt.microsecond // 1000]

    @staticmethod
    def vllm(us: int) -> str:  # 03-11 06:50:00
        return (EPOCH + _dt.timedelta(microseconds=us)).strftime("%m-%d %H:%M:%S")

    @staticmethod
    def header(us: int) -> str:  # torch_npu header: 2026-03-11-07:52:41
        return (EPOCH + _dt.timedelta(microseconds=us)).strftime("%Y-%m-%d-%H:%M:%S")


# ------------------------------------------------------------------ noise templates
OPS = ["MatMulV2", "Add", "Mul", "Cast", "Gather", "SwiGlu", "RmsNorm", "Softmax", "Transpose",
       "FlashAttentionScore", "RotaryMul", "ReduceSum", "Sub", "Div", "Exp", "Muls"]
FORMATS = ["ND", "NZ", "NCHW", "NHWC"]
DTYPES = ["DT_BF16", "DT_FLOAT16", "DT_FLOAT", "DT_INT32", "DT_INT64"]


def noise_pool(rng: random.Random, pid: int, dev: int, n: int = 6000) -> list[tuple[str, str]]:
    """(head, tail) pairs: a line is head + TS6 + tail. Weighted towards INFO/DEBUG."""
    tids = [pid] + [pid + k for k in range(17, 40)]
    R = rng.randrange
    C = rng.choice

    def tid() -> int:
        return C(tids)

    gens = [
        # (weight, level, module, tail builder)
        (10, "INFO", "RUNTIME", lambda: f" [engine.cc:886]{tid()} ReportStatus:task done, stream_id={R(2, 12)}, task_id={R(1, 65535)}, task_type=0(kernel)"),
        (8, "DEBUG", "RUNTIME", lambda: f" [task.cc:1154]{tid()} PrintTask:kernel task, stream_id={R(2, 12)}, task_id={R(1, 65535)}, block_dim={C((8, 20, 24, 40, 48))}"),
        (4, "INFO", "RUNTIME", lambda: f" [stream.cc:{R(300, 1800)}]{tid()} Synchronize:stream synchronize, stream_id={R(2, 12)}, timeout={C((-1, 0, 1800000))}"),
        (6, "INFO", "GE", lambda: f" [model_executor.cc:742]{tid()} RunGraph:run graph {R(1, 200)} success, iteration loop {R(1, 5)}"),
        (6, "DEBUG", "GE", lambda: f" [tensor_utils.cc:233]{tid()} CalcTensorMemSize:tensor size {R(1024, 9000000)}, shape [{R(1, 512)}, {C((1024, 2048, 4096, 5120, 8192))}]"),
        (3, "INFO", "GE", lambda: f" [graph_manager.cc:1123]{tid()} CompileGraph:compile graph success, graph_id={R(1, 64)}, session_id=0"),
        (5, "DEBUG", "FE", lambda: f" [fe_util.cc:55]{tid()} IsHeavyFormat:format {C(FORMATS)} is not heavy format"),
        (4, "INFO", "FE", lambda: f" [op_store_adapter_manager.cc:171]{tid()} SelectFormat:op[{C(OPS)}_{R(1, 400)}] select format {C(FORMATS)}, dtype {C(DTYPES)}, impl type[tbe]"),
        (5, "INFO", "ASCENDCL", lambda: f" [stream.cpp:67]{tid()} aclrtSynchronizeStreamImpl:start to execute aclrtSynchronizeStream"),
        (4, "INFO", "ASCENDCL", lambda: f" [memory.cpp:{R(100, 400)}]{tid()} aclrtMemcpyAsyncImpl:start to execute aclrtMemcpyAsync, size {R(64, 4194304)}, kind {R(0, 4)}"),
        (6, "INFO", "HCCL", lambda: f" [op_base.cc:1102] [{tid()}][HcclAllReduce]tag[AllReduce_hcom_world_{R(1, 12)}], count[{C((1024, 4096, 16384, 65536))}], dataType[bfp16], op[sum], streamId[{R(2, 12)}]"),
        (5, "DEBUG", "HCCL", lambda: f" [dispatcher.cc:612] [{tid()}][Dispatcher][SignalRecord]notify id[{R(1, 64)}], stream[{R(2, 12)}], rank[{dev}]"),
        (6, "INFO", "OP", lambda: f" [op_executor.cpp:388][NNOP][NnopbaseExecutorRunWithWorkspace][{tid()}] aclnn{C(OPS)} launch kernel success, workspace size {R(0, 262144)}"),
        (5, "DEBUG", "OP", lambda: f" [op_cache.cpp:101][NNOP][NnopbaseCacheHit][{tid()}] aclnn{C(OPS)} hit cache, hash 0x{R(1 << 60, 1 << 64):x}"),
        (2, "INFO", "PROFILING", lambda: f" [msprof_tx.cpp:{R(60, 200)}] >>> (tid:{tid()}) mstx range {R(1, 100000)} pushed, domain default"),
        # a sprinkling of warnings without codes
        (0.15, "WARNING", "RUNTIME", lambda: f" [kernel.cc:402]{tid()} GetKernelAttr:kernel {C(OPS)}_{R(1 << 28, 1 << 32):08x} has no tiling key, use default"),
        (0.1, "WARNING", "GE", lambda: f" [graph_optimize.cc:{R(100, 900)}]{tid()} OptimizeGraph:node {C(OPS)}_{R(1, 400)} skipped constant folding, input is not const"),
    ]
    weights = [g[0] for g in gens]
    out = []
    for _ in range(n):
        w, lvl, mod, tail = rng.choices(gens, weights)[0]
        out.append((f"[{lvl}] {mod}({pid},python):", tail() + "\n"))
    return out


def device_pool(rng: random.Random, dpid: int, dev: int, n: int = 800) -> list[tuple[str, str]]:
    R = rng.randrange
    out = []
    for _ in range(n):
        k = R(10)
        if k < 5:
            out.append((f"[INFO] AICPU({dpid},aicpu_scheduler):",
                        f" [aicpu_sharder.cc:140][Prepare][tid:{dpid + 14}] load kernel so libcpu_kernels.so success\n"))
        elif k < 9:
            out.append((f"[INFO] HCCP({dpid},hccp_service.bin):",
                        f" [rs_ctx.c:402]tid:{dpid + 17},rs_ctx_heartbeat(402) : [rs]qp status ok, dev_id[{dev}], qp_num[{R(1, 64)}]\n"))
        else:
            out.append((f"[WARNING] AICPU({dpid},aicpu_scheduler):",
                        f" [aicpu_sharder.cc:162][Prepare][tid:{dpid + 14}] retry kernel load\n"))
    return out


# ------------------------------------------------------------------ rotating writer
class RotatingLog:
    """Writes lines into <dir>/<prefix>-<pid>_<stamp>.log, rotating at `rotate` bytes."""

    def __init__(self, root: str, rel_dir: str, prefix: str, pid: int, rotate: int) -> None:
        self.root, self.rel_dir, self.prefix, self.pid, self.rotate = root, rel_dir, prefix, pid, rotate
        os.makedirs(os.path.join(root, rel_dir), exist_ok=True)
        self.fh = None
        self.rel = ""
        self.size = 0
        self.lines = 0
        self.buf: list[str] = []
        self.buf_bytes = 0
        self.files: list[str] = []
        self.total = 0

    def _open(self, us: int) -> None:
        self.close()
        self.rel = f"{self.rel_dir}/{self.prefix}-{self.pid}_{Stamper.name(us)}.log"
        self.fh = open(os.path.join(self.root, self.rel), "w", encoding="utf-8", newline="\n")
        self.files.append(self.rel)
        self.size = 0
        self.lines = 0

    def write(self, line: str, us: int) -> tuple[str, int]:
        """Append one line (with newline); returns (relative path, 1-based line number)."""
        n = len(line)  # ASCII only
        if self.fh is None or (self.size + n > self.rotate and self.size > 0):
            self._open(us)
        self.buf.append(line)
        self.buf_bytes += n
        self.size += n
        self.total += n
        self.lines += 1
        if self.buf_bytes >= BUF_BYTES:
            self.flush()
        return self.rel, self.lines

    def flush(self) -> None:
        if self.buf and self.fh is not None:
            self.fh.write("".join(self.buf))
        self.buf.clear()
        self.buf_bytes = 0

    def close(self) -> None:
        if self.fh is not None:
            self.flush()
            self.fh.close()
            self.fh = None


def fill_noise(log: RotatingLog, pool: list[tuple[str, str]], rng: random.Random, stamper: Stamper,
               t0: int, t1: int, nbytes: int) -> int:
    """Write about `nbytes` of noise with stamps spread evenly over [t0, t1); returns the last stamp.

    Hot loop: one random pick from the pool, one cached stamp, one concatenation per line; the
    rotation check happens per line inside the writer but the file write is batched."""
    if nbytes <= 0:
        return t0
    avg = sum(len(h) + len(t) for h, t in pool[:500]) / min(len(pool), 500) + 26
    n = max(int(nbytes / avg), 1)
    step = max((t1 - t0) // n, 1)
    t = t0
    written = 0
    batch = 8192
    ts6 = stamper.ts6
    write = log.write
    while written < nbytes:
        picks = rng.choices(pool, k=batch)
        jit = rng.choices(range(step // 2 + 1, step + step // 2 + 2), k=batch)
        for (head, tail), j in zip(picks, jit):
            t += j
            if t >= t1:
                t = t1 - 1
            line = head + ts6(t) + tail
            write(line, t)
            written += len(line)
            if written >= nbytes:
                break
    return t


# ------------------------------------------------------------------ planted events
def aicore_root_lines(pid: int, dev: int, stamper: Stamper, t: int) -> list[tuple[str, int, str | None]]:
    """(line, stamp, anchor-substring-or-None) of the AI Core exception on the host plog."""
    hdr = f"[ERROR] RUNTIME({pid},python):"
    tid = pid + 26
    core = f"The error from device(chipId:{dev}, dieId:0), serial number is 3, there is an aicore error, core id is 12, error code = 0x800000"
    rows = [
        (0, f"[device_error_proc.cc:1374]{tid} ProcessCoreErrorInfo:{core}, dump info: pc start: 0x12c0c0d1a000, current: 0x12c0c0d1a3c8, vec error info: 0x1b3f0e41, mte error info: 0x3d06012f, ifu error info: 0x2fffee6e38380, ccu error info: 0, cube error info: 0, biu error info: 0, aic error mask: 0x6500020bd00028c, para base: 0x12c100465400.", core),
        (11, f"[device_error_proc.cc:1386]{tid} ProcessCoreErrorInfo:The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x6012f, fixp_error1 info: 0x3d, fsmId:0, tslot:2, thread:0, ctxid:0, blk:7, sublk:0, subErrType:4.", None),
        (233, f"[task_info.cc:1398]{tid} PrintErrorInfo:Aicore kernel execute failed, device_id={dev}, stream_id=2, report_stream_id=2, task_id=18841, flip_num=3, fault kernel_name=te_matmulv2_4f9a61c0d2b17e85_mix_aic, fault kernel info ext=none, program id=23, hash=9261174358142310021.", None),
        (311, f"[stream.cc:1082]{tid} GetError:Stream Synchronize failed, stream_id=2, retCode=0x91, [aicore exception].", None),
        (340, f"[callback.cc:88]{tid} TaskFailCallBack:TaskFailCallback, stream_id=2, task_id=18841, retCode=0x91, fault kernel_name=te_matmulv2_4f9a61c0d2b17e85_mix_aic", None),
        (1250, f"[api_c.cc:1997]{pid} rtStreamSynchronizeWithTimeout:ErrCode=507015, desc=[aicore exception], InnerCode=0x715002a", None),
    ]
    out = [(f"{hdr}{stamper.ts6(t + d)} {body}\n", t + d, sub) for d, body, sub in rows]
    out.append((f"[ERROR] ASCENDCL({pid},python):{stamper.ts6(t + 1262)} [stream.cpp:109]{pid} aclrtSynchronizeStreamWithTimeoutImpl:synchronize stream failed, runtime result = 507015\n", t + 1262, None))
    return out


def cqe_root_plog_lines(pid: int, dev: int, stamper: Stamper, t: int) -> list[tuple[str, int, str | None]]:
    tid = pid + 211
    h = f"[ERROR] HCCL({pid},python):"
    rows = [
        (803, h, f"[task_exception_handler.cc:602] [{tid}][TaskExceptionHandler][Callback]Task run failed, base information is streamID:[2], taskID[40718], tag[AllReduce_hcom_world_3], AlgType(level 0-fullmesh, level 1-ring, level 2-ring)."),
        (809, h, f"[task_exception_handler.cc:661] [{tid}][TaskExceptionHandler][ErrorCqe]An error CQE occurred during operator execution. Local information: server 10.0.0.1, device ID {dev}, device IP 192.168.1.{10 + dev}. Peer information: server 10.0.0.1, device ID 0, device IP 192.168.1.10."),
        (834, f"[ERROR] RUNTIME({pid},python):", f"[stream.cc:1241]{pid} TaskFailCallBack:stream_id=2, task_id=40718, task_type=17(notify record), retCode=0x9f, [hccl cqe error]"),
    ]
    return [(f"{hh}{stamper.ts6(t + d)} {body}\n", t + d, None) for d, hh, body in rows]


def victim_lines(pid: int, rank: int, dev: int, root: int, ranks: int, stamper: Stamper, t: int) -> list[tuple[str, int]]:
    tid = pid + 211
    h = f"[ERROR] HCCL({pid},python):"
    rows = [
        (0, h, f"[task_exception_handler.cc:834] [{tid}][TaskExceptionHandler][Callback]Task run failed, base information is streamID:[2], taskID[40717], tag[AllReduce_hcom_world_3], AlgType(level 0-fullmesh, level 1-ring, level 2-ring)."),
        (4, h, f"[task_exception_handler.cc:851] [{tid}][TaskExceptionHandler]The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [{root}]. base information: [streamID:[2], taskID[40717], tag[AllReduce_hcom_world_3], AlgType(level 0-fullmesh, level 1-ring, level 2-ring)]. task information: []. group information: [group:[hcom_world], user define information[], rankSize[{ranks}], rankId[{rank}]]"),
        (40, f"[ERROR] RUNTIME({pid},python):", f"[stream.cc:1082]{pid} GetError:Notify wait execute failed, device_id={dev}, stream_id=2, task_id=40717, flip_num=0, notify_id=46"),
        (61, f"[ERROR] RUNTIME({pid},python):", f"[api_c.cc:2034]{pid} rtStreamSynchronizeWithTimeout:ErrCode=507048, desc=[the execution of the internal task times out], InnerCode=0x7150050"),
        (70, f"[ERROR] ASCENDCL({pid},python):", f"[stream.cpp:92]{pid} aclrtSynchronizeDeviceWithTimeoutImpl:wait for compute device to finish failed, runtime result = 507048."),
    ]
    return [(f"{hh}{stamper.ts6(t + d)} {body}\n", t + d) for d, hh, body in rows]


# ------------------------------------------------------------------ console
CONSOLE_STEP_TEMPLATES = [
    "[rank{r}]:{ts} - INFO - step {step}/{total} loss={loss:.4f} lr={lr:.1e} tokens/s={tps}\n",
    "(VllmWorker rank={r} pid={pid}) INFO {vts} [model_runner.py:{ln}] Graph capturing finished in {sec} secs, took {gib:.2f} GiB\n",
    "(VllmWorker rank={r} pid={pid}) INFO {vts} [metrics.py:{ln}] Avg prompt throughput: {tps}.0 tokens/s, Running: {run} reqs, GPU KV cache usage: {kv:.1f}%.\n",
    "[rank{r}]:{ts} - INFO - iteration {step} | consumed samples: {samples} | elapsed time per iteration (ms): {ms:.1f} | learning rate: {lr:.3e} | global batch size: 256 |\n",
]


def write_console(out: str, rng: random.Random, nbytes: int, ranks: int, pids: list[int], root: int,
                  scenario: str, t0: int, t_root: int, t_to: int) -> int:
    path = os.path.join(out, "train.log")
    lines: list[str] = [
        "W0311 06:48:12.120004 91782 site-packages/torch/distributed/run.py:793] \n",
        "W0311 06:48:12.120004 91782 site-packages/torch/distributed/run.py:793] *****************************************\n",
        "W0311 06:48:12.120004 91782 site-packages/torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n",
        "W0311 06:48:12.120004 91782 site-packages/torch/distributed/run.py:793] *****************************************\n",
        f"I0311 06:48:12.920004 91782 site-packages/torch/distributed/elastic/agent/server/api.py:870] [default] starting workers for entrypoint: python3 (pretrain_gpt.py, nproc_per_node={ranks})\n",
    ]
    for r in range(ranks):
        lines.append(f"[rank{r}]:{Stamper.console(t0 + 3_000_000 + r * 11_000)} - INFO - Using device npu:{r} (ASCEND_RT_VISIBLE_DEVICES={','.join(map(str, range(ranks)))})\n")
    size = sum(len(x) for x in lines)
    n_est = max(int(nbytes / 130), 10)
    step_us = max((t_root - 60_000_000 - t0) // n_est, 1)
    t = t0 + 5_000_000
    step = 0
    total = n_est + 1000
    R = rng.randrange
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        while size < nbytes and t < t_root - 1_000_000:
            t += step_us
            step += 1
            r = R(ranks)
            tpl = CONSOLE_STEP_TEMPLATES[R(len(CONSOLE_STEP_TEMPLATES))]
            s = tpl.format(r=r, ts=Stamper.console(t), vts=Stamper.vllm(t), step=step, total=total,
                           loss=2.5 * 0.9999 ** step + rng.random() * 0.05, lr=1.9e-4, tps=R(5000, 5600),
                           pid=pids[r], ln=R(100, 900), sec=R(10, 40), gib=rng.random() * 2,
                           run=R(1, 64), kv=rng.random() * 90, samples=step * 256, ms=800 + rng.random() * 80)
            lines.append(s)
            size += len(s)
            if len(lines) >= 20000:
                fh.write("".join(lines))
                lines.clear()
        # the error blocks: the root rank first (it fails at T_root), then the victims 1836 s later
        rp = pids[root]
        tb = [
            f"[rank{{r}}]: Traceback (most recent call last):\n",
            f"[rank{{r}}]:   File \"/workspace/MindSpeed-LLM/pretrain_gpt.py\", line 254, in <module>\n",
            f"[rank{{r}}]:     pretrain(\n",
            f"[rank{{r}}]:   File \"/workspace/Megatron-LM/megatron/training/training.py\", line 748, in train_step\n",
            f"[rank{{r}}]:     losses_reduced = forward_backward_func(\n",
            f"[rank{{r}}]:   File \"/usr/local/python3.11.10/lib/python3.11/site-packages/torch_npu/npu/utils.py\", line 60, in synchronize\n",
            f"[rank{{r}}]:     return torch_npu._C._npu_synchronize()\n",
        ]
        if scenario == "aicore":
            tr = t_root + 1262
            lines += [x.format(r=root) for x in tb]
            lines += [
                f"[rank{root}]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeStreamWithTimeout, error code is 507015\n",
                f"[rank{root}]: [ERROR] {Stamper.header(tr)} (PID:{rp}, Device:{root}, RankID:{root}) ERR00100 PTA call acl api failed\n",
                f"[rank{root}]: [Error]: The aicore execution is abnormal.\n",
                f"[rank{root}]:         Rectify the fault based on the error information in the ascend log.\n",
                f"[rank{root}]: EZ9999: Inner Error!\n",
                f"[rank{root}]: EZ9999: [PID: {rp}] {Stamper().ts6(t_root)} The error from device(chipId:{root}, dieId:0), serial number is 3, there is an aicore error, core id is 12, error code = 0x\n",
                f"[rank{root}]:         The error from device(chipId:{root}, dieId:0), serial number is 3, there is an aicore error, core id is 12, error code = 0x800000, dump info: pc start: 0x12c0c0d1a000, current: 0x12c0c0d1a3c8.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1374]\n",
                f"[rank{root}]:         TraceBack (most recent call last):\n",
                f"[rank{root}]:         synchronize stream failed, runtime result = 507015[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n",
            ]
        st = Stamper()
        for r in range(ranks):
            if r == root:
                if scenario == "aicore":
                    continue
                lines += [x.format(r=r) for x in tb]
                lines += [
                    f"[rank{r}]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n",
                    f"[rank{r}]: [ERROR] {Stamper.header(t_to)} (PID:{pids[r]}, Device:{r}, RankID:{r}) ERR00100 PTA call acl api failed\n",
                    f"[rank{r}]: [Error]: The execution of the internal task times out.\n",
                    f"[rank{r}]:         Rectify the fault based on the error information in the ascend log.\n",
                    f"[rank{r}]: EI0013: Inner Error!\n",
                    f"[rank{r}]: EI0013: [PID: {pids[r]}] {st.ts6(t_root + 809)} An error CQE occurred during operator execution. Local information: server 10.0.0.1, device ID {r}, device IP 192.168.1.{10 + r}. Peer information: server 10.0.0.1, device ID 0, device IP 192.168.1.10.\n",
                ]
                continue
            lines += [x.format(r=r) for x in tb]
            tv = t_to + r * 1400
            lines += [
                f"[rank{r}]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048\n",
                f"[rank{r}]: [ERROR] {Stamper.header(tv)} (PID:{pids[r]}, Device:{r}, RankID:{r}) ERR00100 PTA call acl api failed\n",
                f"[rank{r}]: [Error]: The execution of the internal task times out.\n",
                f"[rank{r}]:         Rectify the fault based on the error information in the ascend log.\n",
                f"[rank{r}]: EI0002: Inner Error!\n",
                f"[rank{r}]: EI0002: [PID: {pids[r]}] {st.ts6(tv + 4)} The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [{root}]. base information: [streamID:[2], taskID[40718], tag[AllReduce_hcom_world_3], AlgType(level 0-fullmesh, level 1-ring, level 2-ring)]. task information: []. group information: [group:[hcom_world], user define information[], rankSize[{ranks}], rankId[{r}]]\n",
                f"[rank{r}]:         TraceBack (most recent call last):\n",
                f"[rank{r}]:         wait for compute device to finish failed, runtime result = 507048.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n",
            ]
        first_victim = 0 if root != 0 else 1
        lines += [
            "Traceback (most recent call last):\n",
            "  File \"/usr/local/python3.11.10/lib/python3.11/site-packages/torch/distributed/launcher/api.py\", line 263, in launch_agent\n",
            "    raise ChildFailedError(\n",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n",
            "============================================================\n",
            "pretrain_gpt.py FAILED\n",
            "------------------------------------------------------------\n",
            "Root Cause (first observed failure):\n",
            f"[{first_victim}]:\n",
            f"  time      : {Stamper.console(t_to + 900_000)[:19].replace(' ', '_')}\n",
            "  host      : node-0\n",
            f"  rank      : {first_victim} (local_rank: {first_victim})\n",
            f"  exitcode  : 1 (pid: {pids[first_victim]})\n",
            "  error_file: <N/A>\n",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n",
            "============================================================\n",
        ]
        fh.write("".join(lines))
    return os.path.getsize(path)


# ------------------------------------------------------------------ main
def generate(out: str, size: int, ranks: int = 8, seed: int = 1, root: int = 5,
             scenario: str = "aicore", rotate_mb: float = 20.0, quiet: bool = True) -> dict:
    if ranks < 2:
        raise ValueError("need at least 2 ranks")
    root = min(root, ranks - 1)
    rng = random.Random(seed)
    rotate = max(int(rotate_mb * MB), 4096)
    os.makedirs(out, exist_ok=True)
    t0 = us_of(T_START)
    t_root = us_of(T_ROOT)
    t_to = t_root + EXEC_TIMEOUT_S * 1_000_000
    pids = [2234 + 111 * r + rng.randrange(0, 50) for r in range(ranks)]
    dpids = [3100 + 97 * r + rng.randrange(0, 40) for r in range(ranks)]
    starts = [t0 + r * 31_000 + rng.randrange(0, 20_000) for r in range(ranks)]

    console_bytes = int(min(max(size * 0.004, 40_000), 4 * MB))
    per_rank = max((size - console_bytes) // ranks, 20_000)
    plog_bytes = int(per_rank * 0.975)
    dev_bytes = int(per_rank * 0.02)
    planted: dict = {}
    alts: list[dict] = []

    for r in range(ranks):
        pid, dpid, dev = pids[r], dpids[r], r
        st = Stamper()
        ts = starts[r]
        # ---- run log: init, entry lines, heartbeat
        run = RotatingLog(out, "run/plog", "plog", pid, rotate)
        init = (f"[INFO] HCCL({pid},python):{st.ts6(ts + 2_400_000)} [op_base.cc:412] [{pid}][Init][HcclCommInitRootInfo]"
                f"ranks[{ranks}], rank[{r}], rootinfo: host ip 10.0.0.1 port 60000 nicDeploy 1, deviceLogicId[{dev}]\n")
        run.write(init, ts + 2_400_000)
        tt = ts + 2_500_000
        n_entry = max(min(per_rank // 20000, 2000), 5)
        gap = (t_root - tt) // (n_entry + 1)
        for k in range(n_entry):
            tt += gap
            run.write(f"[INFO] HCCL({pid},python):{st.ts6(tt)} [op_base.cc:1108] [{pid}]Entry-HcclAllReduce:tag[AllReduce_hcom_world_{k % 12 + 1}], "
                      f"sendBuf[0x{rng.randrange(1 << 44, 1 << 47):x}], recvBuf[0x{rng.randrange(1 << 44, 1 << 47):x}], count[{rng.choice((1024, 4096, 16384))}], "
                      f"dataType[bfp16], op[sum], localRank[{r}], streamId[2], deviceLogicId[{dev}]\n", tt)
        if r != root:
            hb = t_root + 1_235_000 + r * 9_000
            run.write(f"[INFO] HCCL({pid},python):{st.ts6(hb)} [heartbeat.cc:1088] [{pid + 301}][HeartbeatAbnormal]local rank[10.0.0.1/{r}]: "
                      f"crimer rank[10.0.0.1/{root}] status[{'ERROR CQE' if scenario == 'cqe' else 'LOST'}] by informer rank[10.0.0.1/{r}]\n", hb)
        run.close()

        # ---- debug plog
        log = RotatingLog(out, "debug/plog", "plog", pid, rotate)
        st = Stamper()
        head = [
            (init.replace(st.ts6(ts + 2_400_000), st.ts6(ts)), ts),
            (f"[ERROR] ATRACE({pid},python):{st.ts6(ts + 881)} [atrace_api.c:87](tid:{pid}) open file /root/ascend/atrace/atrace_{pid}.cfg failed, errno=2\n", ts + 881),
            (f"[ERROR] IDEDD({pid},python):{st.ts6(ts + 1050)} [ide_daemon_stub.cc:74] >>> (tid:{pid}) symbol collection for libide_daemon.so failed, dlsym(IdeDumpStart) not found\n", ts + 1050),
            (f"[INFO] ASCENDCL({pid},python):{st.ts6(ts + 2248)} [acl.cpp:314]{pid} aclInit:start to execute aclInit\n", ts + 2248),
            (f"[INFO] ASCENDCL({pid},python):{st.ts6(ts + 3063)} [acl.cpp:330]{pid} aclInit:aclInit config file is null, version is 8.3.RC1\n", ts + 3063),
            (f"[ERROR] PROFILING({pid},python):{st.ts6(ts + 6820)} [msprof_callback_impl.cpp:152] >>> (tid:{pid}) Failed to get profiling switch from env, config is empty\n", ts + 6820),
            (f"[WARNING] PROFILING({pid},python):{st.ts6(ts + 7033)} [prof_acl_mgr.cpp:1061] >>> (tid:{pid}) MsprofInit is not called, profiling is disabled\n", ts + 7033),
            (f"[INFO] RUNTIME({pid},python):{st.ts6(ts + 26487)} [runtime.cc:1842]{pid} Init:runtime init, chip type=Ascend910B2, device count={ranks}\n", ts + 26487),
            (f"[INFO] RUNTIME({pid},python):{st.ts6(ts + 381009)} [device.cc:412]{pid} Open:device open success, deviceId={dev}, tsId=0\n", ts + 381009),
        ]
        for line, t in head:
            log.write(line, t)
        pool = noise_pool(rng, pid, dev)
        # dense noise up to T_root on every rank; the hung ranks (and a dying root) write a little after
        main_bytes = plog_bytes - sum(len(x) for x, _ in head)
        before = int(main_bytes * 0.985)
        t = fill_noise(log, pool, rng, st, ts + 400_000, t_root - 50_000 + r * 1_000, before)
        if r == root:
            if scenario == "aicore":
                for line, tl, sub in aicore_root_lines(pid, dev, st, t_root + 61):
                    rel, ln = log.write(line, tl)
                    if sub and not planted:
                        planted = {"path": rel, "line": ln, "contains": sub}
                    elif "errorStr" in line:
                        alts.append({"path": rel, "line": ln, "contains": "errorStr: The DDR address of the MTE instruction is out of range."})
                after_end = t_root + 2_000_000
            else:
                for line, tl, _ in cqe_root_plog_lines(pid, dev, st, t_root):
                    rel, ln = log.write(line, tl)
                    if "[Callback]Task run failed" in line:
                        alts.append({"path": rel, "line": ln, "contains": "[TaskExceptionHandler][Callback]Task run failed"})
                after_end = t_to - 1_000_000
            fill_noise(log, pool, rng, st, t_root + 3_000, after_end, main_bytes - before)
            if scenario == "cqe":
                for line, tl in victim_lines(pid, r, dev, root, ranks, st, t_to + r * 1400)[3:]:
                    log.write(line, tl)
        else:
            fill_noise(log, pool, rng, st, t_root + 40_000, t_to - 1_000_000, main_bytes - before)
            for line, tl in victim_lines(pid, r, dev, root, ranks, st, t_to + r * 1400):
                log.write(line, tl)
        log.close()

        # ---- device log
        dlog = RotatingLog(out, f"debug/device-{dev}", "device", pid, rotate)
        st = Stamper()
        td = ts + 4_000_000
        dlog.write(f"[INFO] AICPU({dpid},aicpu_scheduler):{st.ts6(td)} [aicpusd_main.cpp:214][main][tid:{dpid}] aicpu scheduler start, deviceId={dev}, hostPid={pid}\n", td)
        dpool = device_pool(rng, dpid, dev)
        fill_noise(dlog, dpool, rng, st, td + 1000, t_root - 100_000, dev_bytes)
        if r == root:
            if scenario == "aicore":
                rel, ln = dlog.write(f"[ERROR] TSCH({dpid},tsch):{st.ts6(t_root - 14)} [ts_task_handler.c:2081][tid:{dpid + 2}] aicore exception, core_id=12, stream_id=2, task_id=18841, err_code=0x800000\n", t_root - 14)
                alts.append({"path": rel, "line": ln, "contains": "aicore exception, core_id=12"})
            else:
                dlog.write(f"[WARNING] HCCP({dpid},hccp_service.bin):{st.ts6(t_root - 412)} [rs_rdma.c:1578]tid:{dpid + 51},rs_rdma_qp_check(1578) : [rdma]qp[283] retry count reach threshold, dev_id[{dev}], remote ip[192.168.1.10]\n", t_root - 412)
                sub = "error cqe found, status[12](IBV_WC_RETRY_EXC_ERR)"
                rel, ln = dlog.write(f"[ERROR] HCCP({dpid},hccp_service.bin):{st.ts6(t_root)} [rs_rdma.c:1630]tid:{dpid + 51},rs_rdma_cq_event_handle(1630) : [rdma][cqe]{sub}, vendor_err[0x81], qpn[283], dev_id[{dev}], local ip[192.168.1.{10 + dev}], remote ip[192.168.1.10]\n", t_root)
                planted = {"path": rel, "line": ln, "contains": sub}
                dlog.write(f"[ERROR] HCCP({dpid},hccp_service.bin):{st.ts6(t_root + 35)} [rs_rdma.c:1662]tid:{dpid + 51},rs_rdma_cq_event_handle(1662) : [rdma][cqe]report error cqe to ts, dev_id[{dev}], ret(0)\n", t_root + 35)
        dlog.write(f"[INFO] AICPU({dpid},aicpu_scheduler):{st.ts6(t_root + 2400)} [aicpusd_event_process.cpp:540][ProcessTaskAbort][tid:{dpid + 14}] stream 2 task abort by ts\n", t_root + 2400)
        dlog.close()
        if not quiet:
            print(f"rank {r}: pid {pid}, {len(log.files)} plog file(s)", file=sys.stderr)

    write_console(out, rng, console_bytes, ranks, pids, root, scenario, t0, t_root, t_to)

    total = 0
    for dp, _, fns in os.walk(out):
        for fn in fns:
            if fn != "planted.json":
                total += os.path.getsize(os.path.join(dp, fn))
    info = {
        "scenario": scenario,
        "anchor": planted,
        "rank": root,
        "category": "device" if scenario == "aicore" else "communication",
        "code": "507015" if scenario == "aicore" else "EI0013",
        "alt_anchors": alts,
        "ranks": {str(r): {"pid": pids[r], "device": r} for r in range(ranks)},
        "root_time": "2026-03-11T07:22:41.498770",
        "timeout_time": (T_ROOT + _dt.timedelta(seconds=EXEC_TIMEOUT_S)).isoformat(),
        "bytes": total,
        "seed": seed,
    }
    # the tree is read by the tool as a whole; planted.json is a .json file, which discovery skips
    with open(os.path.join(out, "planted.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=2)
        fh.write("\n")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--size", type=parse_size, default=parse_size("100M"), help="approximate total size (K/M/G)")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--root-rank", type=int, default=5)
    ap.add_argument("--scenario", choices=["aicore", "cqe"], default="aicore")
    ap.add_argument("--rotate-mb", type=float, default=20.0, help="plog rotation size in MB (CANN: 20)")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    if os.path.exists(a.out) and os.listdir(a.out):
        ap.error(f"{a.out} exists and is not empty")
    import time

    t = time.perf_counter()
    info = generate(a.out, a.size, a.ranks, a.seed, a.root_rank, a.scenario, a.rotate_mb, a.quiet)
    dt = time.perf_counter() - t
    if not a.quiet:
        print(f"wrote {info['bytes'] / MB:.1f} MB in {dt:.1f} s ({info['bytes'] / MB / max(dt, 1e-9):.0f} MB/s); "
              f"planted {info['anchor']['path']}:{info['anchor']['line']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
