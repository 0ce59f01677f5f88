#!/usr/bin/env python3
"""Build the built-in registry data shipped with npudiag-tui (src/npudiag_tui/core/registry/data).

Why a build step: the app must work offline from files inside the package. The facts (codes,
families, titles, templates, arglists, numeric names) are copied verbatim from a reference fact
table; every guidance sentence is the product's own wording, hand-written below for the codes
that matter in PyTorch / vLLM / MindSpore jobs and composed from family + title rules for the rest.

The facts come from REFERENCE_DIR (registry_facts.json, numeric_codes.json) when given. That fact
table is not in the repository; the shipped data holds every fact the build reads, verbatim, so
without REFERENCE_DIR the facts are read back from the shipped data. That is how to change the
guidance in a plain clone: edit the tables below, run this, commit the data.

Usage: .venv/bin/python tools/build_registry.py [REFERENCE_DIR] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository (tools/)
OUT_DIR = ROOT / "src" / "npudiag_tui" / "core" / "registry" / "data"
REGISTRY_FILE = "builtin_registry.json"
NUMERIC_FILE = "numeric_codes.json"

# ---------------------------------------------------------------------------------------------
# Hand-written guidance: code -> (possible cause, solution). Product wording.
# ---------------------------------------------------------------------------------------------
GUIDANCE: dict[str, tuple[str, str]] = {
    # --- HCCL (EI) ------------------------------------------------------------------------------
    "EI0001": (
        "An HCCL environment variable holds a value HCCL refuses, so the communicator cannot start.",
        "Fix or unset the variable named in the message (echo it in the launcher of every rank) and rerun.",
    ),
    "EI0002": (
        "This rank waited on a notify from a peer for longer than HCCL_EXEC_TIMEOUT. It is almost always a "
        "victim: a peer crashed or hung earlier, ranks issued different collectives (order, count or shapes), "
        "one rank was much slower (data loading, compile), or the link dropped packets.",
        "Do not debug this rank first. Find the earliest error on the other ranks (the waiting peer is named in "
        "the message when known), check that every rank runs the same sequence of collectives, compare the "
        "elapsed time with HCCL_EXEC_TIMEOUT, and grep all logs for 'error cqe' to rule out the network.",
    ),
    "EI0003": (
        "A collective was called with an argument HCCL rejects (count, dtype, reduce op, root or group).",
        "Check the arguments of the named collective at the Python call site against the value HCCL expects.",
    ),
    "EI0004": (
        "The rank table file could not be parsed: wrong path, malformed JSON or fields that do not fit.",
        "Validate the file named in the message (python -m json.tool FILE), compare it with the hardware layout "
        "and check RANK_TABLE_FILE points at it on every node.",
    ),
    "EI0005": (
        "Ranks called the same collective with different arguments (for example different counts or dtypes), "
        "usually because ranks diverged in control flow or batch shapes.",
        "Compare the local and remote values in the message; make every rank call the collective with the same "
        "shape and dtype (pad uneven batches, keep the same code path on all ranks).",
    ),
    "EI0006": (
        "Socket setup between ranks timed out: a peer never reached communicator init (crashed, slow start, "
        "wrong address) or the host network blocks the port.",
        "Look for the earliest error on peer ranks; confirm all ranks start within HCCL_CONNECT_TIMEOUT, that "
        "MASTER_ADDR/port and HCCL_IF_IP are reachable, and that no firewall blocks the ports.",
    ),
    "EI0007": (
        "HCCL ran out of a resource it needs for a communicator (streams, notifies, memory).",
        "Reduce the number of communicators/groups created, release unused process groups, and check "
        "HCCL_BUFFSIZE against available device memory.",
    ),
    "EI0008": (
        "The ranks run different versions of a package (CANN, HCCL or driver), so their protocols disagree.",
        "Install the same CANN / driver / torch_npu versions on every node and source the same set_env.sh.",
    ),
    "EI0009": (
        "Transport between this device and a peer could not be initialised (link down, wrong IP, peer gone).",
        "Check the NIC link with `hccn_tool -i <dev> -link -g`, device IPs with `hccn_tool -i <dev> -ip -g`, and "
        "whether the peer rank was still alive at that time.",
    ),
    "EI0010": (
        "A point-to-point (send/recv) transfer failed, usually because the peer failed or mismatched the call.",
        "Check that every send has a matching recv on the peer with the same size and tag, and look for an "
        "earlier error on the peer rank.",
    ),
    "EI0011": (
        "HCCL could not allocate device memory for its buffers; the model or other processes filled HBM.",
        "Run `npu-smi info` to see who holds HBM, lower HCCL_BUFFSIZE or the number of communicators, or reduce "
        "model memory (batch size, activation checkpointing).",
    ),
    "EI0012": (
        "An SDMA copy task inside a collective hit an exception, often caused by a bad address or a failing peer.",
        "Check the remote rank named in the message for an earlier error; collect device logs of both ranks.",
    ),
    "EI0013": (
        "The RoCE NIC returned an error completion (error CQE): the link flapped, the peer died or packets were "
        "lost on the network.",
        "Check link state on both devices named in the message (`hccn_tool -i <dev> -link -g`, `-stat -g`), "
        "check the switch ports, and look for a crash on the remote side first.",
    ),
    "EI0014": (
        "A rank table variable has a value outside what HCCL accepts.",
        "Fix the variable named in the message in the rank table and keep the file identical on all nodes.",
    ),
    "EI0015": (
        "Cluster discovery through rootInfo failed: some ranks did not reach the root or the root was not reachable.",
        "Check that all ranks started, that the root's address/port is reachable, and look for errors on the "
        "ranks that never joined.",
    ),
    "EI0016": (
        "An HCCL configuration value is invalid.",
        "Correct the configuration named in the message (often an HCCL_* variable) and rerun.",
    ),
    "EI0017": (
        "The rank table lacks a required field.",
        "Add the missing field named in the message; regenerate the rank table with the cluster tooling if possible.",
    ),
    "EI0018": (
        "The UB network returned an error completion during a collective: link or peer trouble.",
        "Check the link of both devices named in the message and the remote rank's logs for an earlier failure.",
    ),
    "EI0019": (
        "HCCL could not listen on the host NIC socket: the port is in use (often a stale job) or the IP is wrong.",
        "Kill leftover processes from the previous run, check the port is free (`ss -ltnp`) and that "
        "HCCL_IF_IP / HCCL_SOCKET_IFNAME name a valid host interface.",
    ),
    "EI0020": (
        "HCCL could not listen on the NPU NIC socket: port busy or device IP not configured.",
        "Check device IPs with `hccn_tool -i <dev> -ip -g`, free the port from stale processes, and rerun.",
    ),
    "EI9999": (
        "HCCL reports an internal failure; the specific reason is in the HCCL lines logged just before it.",
        "Read the earlier HCCL ERROR lines of this process (and the first error on other ranks); this banner "
        "itself is never the root cause.",
    ),
    # --- HCCP (EJ) ------------------------------------------------------------------------------
    "EJ0001": (
        "The device network process (HCCP) could not start, typically because a previous job still owns the "
        "device or did not shut down cleanly.",
        "Check for leftover processes with `npu-smi info` and `ps -ef | grep python`, stop them, and rerun; "
        "if none exist, reset the device or reboot the node.",
    ),
    "EJ0002": (
        "The NPU network port is down, so cross-device traffic over RoCE cannot flow.",
        "Check link state with `hccn_tool -i <dev> -link -g`, the cable/optics and the switch port; follow the "
        "hint in the message.",
    ),
    "EJ0003": (
        "HCCP could not bind its IP/port: address already in use or not configured on the device.",
        "Free the port from stale jobs and verify device IPs with `hccn_tool -i <dev> -ip -g`.",
    ),
    "EJ0004": (
        "An IP address check failed on the device NIC (missing, duplicated or in the wrong subnet).",
        "List device IPs with `hccn_tool -i <dev> -ip -g` and fix the network configuration of that device.",
    ),
    # --- Runtime (EE) ---------------------------------------------------------------------------
    "EE1001": (
        "A runtime API received an invalid argument, usually passed down from the framework.",
        "Use the reason in the message; rerun with ASCEND_LAUNCH_BLOCKING=1 to see which Python call triggered it.",
    ),
    "EE1002": (
        "A stream synchronize timed out. This is a symptom: a kernel hung, an earlier device error stopped "
        "the stream, or a collective on this stream waited on a peer.",
        "Look for an earlier AI Core / AI CPU / HCCL error on this and other ranks; collect all-rank plogs at "
        "ASCEND_GLOBAL_LOG_LEVEL=1 if nothing earlier is visible.",
    ),
    "EE1003": (
        "A runtime call was given a value outside the accepted range.",
        "Compare the value and the expected value in the message; the calling layer (torch_npu/MindSpore) passed it.",
    ),
    "EE1004": (
        "A runtime call received a null pointer where an object was required.",
        "Usually a framework bug or use of a freed object; check versions and the Python call site.",
    ),
    "EE1005": (
        "The device or system does not offer the requested runtime feature.",
        "Check the SoC model and driver/CANN versions against the feature's requirements.",
    ),
    "EE1006": (
        "A runtime call asked for an unsupported type or mode.",
        "Use the reason in the message; align framework and CANN versions.",
    ),
    "EE1007": (
        "A stream could not be bound (for example to a model/graph), often during graph capture.",
        "Check the reason; if it happens under graph capture, run that part eagerly.",
    ),
    "EE1008": (
        "An operator kernel binary could not be loaded: missing or mismatched kernel package.",
        "Check that the opp_kernel package for this SoC is installed and that set_env.sh of the same install is sourced.",
    ),
    "EE1009": (
        "Model (graph) execution failed on the device; the model id identifies which graph.",
        "Look at the earlier device/AI Core errors for the real failing task.",
    ),
    "EE1010": (
        "An object was used from a context it does not belong to (wrong device or thread context).",
        "Check that the thread sets the right device before use (torch.npu.set_device) and objects are not shared "
        "across devices.",
    ),
    "EE1011": (
        "A runtime call received an invalid parameter value.",
        "Use the value and reason in the message to find the offending call; rerun with ASCEND_LAUNCH_BLOCKING=1.",
    ),
    "EE1012": (
        "A runtime call received an invalid value.",
        "Use the value and reason in the message; rerun with ASCEND_LAUNCH_BLOCKING=1 to see the Python call.",
    ),
    "EE1013": (
        "The host ran out of memory while the runtime allocated a buffer.",
        "Check host RAM (`free -g`), dataloader workers and pinned memory; reduce them or the batch size.",
    ),
    "EE1014": (
        "An operator binary file could not be parsed: damaged or from another CANN version.",
        "Reinstall the matching opp/opp_kernel packages and clear stale kernel caches (kernel_meta folders).",
    ),
    "EE1015": (
        "The driver is older than this CANN needs.",
        "Upgrade the driver/firmware to the version paired with your CANN release (`npu-smi info` shows the driver).",
    ),
    "EE1016": (
        "A runtime call is not supported in the current setup.",
        "Use the reason in the message; check the SoC and CANN/driver pairing.",
    ),
    "EE1017": (
        "A runtime call received an invalid parameter.",
        "Use the reason in the message to identify the bad argument.",
    ),
    "EE1018": (
        "Runtime APIs were called in the wrong order (for example use before init, or after the device was reset).",
        "Check the reason; it often follows an earlier failure that already tore down the context.",
    ),
    "EE1019": (
        "A runtime call failed during execution.",
        "Use the reason in the message and the earlier device errors to find the failing task.",
    ),
    "EE1020": (
        "A system call made by the runtime failed (errno given in the message).",
        "Check the errno: permissions, file descriptors (ulimit -n), or shared memory limits.",
    ),
    "EE1021": (
        "The runtime could not create a host resource (thread, memory, handle).",
        "Check host limits (ulimit -u / -n, RAM) and stray processes.",
    ),
    "EE1022": (
        "A runtime call received a combination of invalid values.",
        "Use the reason in the message to correct the parameters.",
    ),
    "EE1023": (
        "The runtime ran short of a resource.",
        "Use the reason in the message; check streams/events created per process and stale jobs.",
    ),
    "EE1024": (
        "An AI CPU operator timed out while the device was also out of memory.",
        "Treat the OOM as the likely cause: check `npu-smi info` and reduce memory use.",
    ),
    "EE2002": (
        "A runtime environment variable has a value it does not accept.",
        "Fix the variable named in the message to one of the expected values.",
    ),
    "EE9999": (
        "The runtime reports an internal failure; details are in the runtime/device lines just before or after.",
        "Read the lines around it (and device logs) for the specific error; this banner is never the root cause.",
    ),
    # --- ACL (EH) -------------------------------------------------------------------------------
    "EH0001": (
        "An ACL API got an invalid value (ACL is the API layer, not HCCL).",
        "Use the reason in the message; the value comes from the framework call just before.",
    ),
    "EH0002": (
        "An ACL API got a null argument.",
        "Usually a framework or custom-op bug; check the Python call and versions.",
    ),
    "EH0003": (
        "A path given to ACL is invalid.",
        "Check that the path in the message exists and is accessible to the job user.",
    ),
    "EH0004": (
        "A file given to ACL is invalid or unreadable.",
        "Check the file named in the message (permissions, size, version it was produced with).",
    ),
    "EH0006": (
        "ACL does not support the requested feature in this setup.",
        "Use the reason in the message; compare SoC and CANN versions with the feature's support list.",
    ),
    "EH0009": (
        "An ACL call received an invalid parameter value.",
        "Use the value and reason in the message; rerun with ASCEND_LAUNCH_BLOCKING=1 to find the caller.",
    ),
    "EH0010": (
        "The host ran out of memory inside ACL.",
        "Check host RAM and reduce dataloader workers or batch size.",
    ),
    "EH0011": (
        "The device or system does not support the requested ACL feature.",
        "Check the SoC model and CANN version.",
    ),
    "EH9999": (
        "ACL reports an internal failure; the real reason is in the runtime/op lines around it.",
        "Read the earlier ERROR lines of this process; this banner is never the root cause.",
    ),
    # --- operators / aclnn (EZ) -----------------------------------------------------------------
    "EZ0001": (
        "An operator input has a shape the operator does not accept.",
        "Print the input shapes at the failing call and match them to the expected shape in the message.",
    ),
    "EZ0002": (
        "An operator attribute has a value the operator does not accept.",
        "Change the attribute named in the message to an allowed value at the Python call.",
    ),
    "EZ0004": (
        "A required operator parameter was empty.",
        "Pass the missing parameter named in the message (check for None tensors in the call).",
    ),
    "EZ0007": (
        "An operator input has a dtype the operator does not support.",
        "Cast the input to one of the dtypes listed in the message before the call.",
    ),
    "EZ0008": (
        "A tensor argument of an operator has the wrong shape.",
        "Compare the shape in the message with the expected one at the failing call.",
    ),
    "EZ0019": (
        "A tensor argument of an operator has an unsupported dtype.",
        "Cast the argument to the dtype named in the message.",
    ),
    "EZ0501": (
        "The operator's IR is not registered in the installed op package.",
        "Check that the op package matching this CANN version is installed and that set_env.sh is sourced.",
    ),
    "EZ1001": (
        "An aclnn operator rejected its parameters; the text explains which check failed. If it says the "
        "opp_kernel package is missing, the install is incomplete.",
        "Read the message: fix the shape/dtype at the call, or install the opp_kernel package for this SoC if it "
        "names the kernel package.",
    ),
    "EZ1002": (
        "An operator needs an environment variable that is not set (often ASCEND_OPP_PATH).",
        "Source `<install>/set_env.sh` in the job's shell so the variables are set.",
    ),
    "EZ1006": (
        "The operator has no implementation for this dtype.",
        "Cast to a supported dtype from the range in the message, or use another op.",
    ),
    "EZ1008": (
        "Executing the named operator failed.",
        "Use the reason; rerun with ASCEND_LAUNCH_BLOCKING=1 and check shapes/dtypes against the op constraints.",
    ),
    "EZ1009": (
        "Executing the named operator failed.",
        "Use the reason; rerun with ASCEND_LAUNCH_BLOCKING=1 and check shapes/dtypes against the op constraints.",
    ),
    "EZ1014": (
        "Executing the named operator failed.",
        "Use the reason; rerun with ASCEND_LAUNCH_BLOCKING=1 and check shapes/dtypes against the op constraints.",
    ),
    "EZ2001": (
        "The device reported an AI Core fault while executing a kernel (bad address, overflow, trap).",
        "Rerun with ASCEND_LAUNCH_BLOCKING=1 to identify the op, then collect with `asys` and decode with "
        "`msaicerr -p <dir>`.",
    ),
    "EZ3002": (
        "No kernel implementation supports this op type in the selected ops kernel store.",
        "Check the reason (dtype/format/SoC); change the input dtype or upgrade the op package.",
    ),
    "EZ3003": (
        "No engine and kernel were found for the operator: unsupported op or missing package.",
        "Check the op package is installed for this SoC and versions match.",
    ),
    "EZ9903": (
        "An aclnn runtime failure; the message carries the detail.",
        "Read the text and the lines before it for the failing runtime or HCCL call.",
    ),
    "EZ9999": (
        "The operator layer reports an internal failure; the specific reason follows in the same block or "
        "in the lines before it.",
        "Read the detail lines of this block and any earlier error; this banner is never the root cause.",
    ),
    # --- TEFusion / op compile (E4) -------------------------------------------------------------
    "E40001": (
        "An environment variable used by operator compilation has an invalid value.",
        "Fix the variable named in the message.",
    ),
    "E40002": (
        "The Python running operator compilation is older than required.",
        "Use the Python version the CANN release supports and reinstall the CANN Python wheels into it.",
    ),
    "E40003": (
        "Operator compilation could not open a JSON file it needs (op info, config): wrong install or permissions.",
        "Check the file named in the message exists and is readable; reinstall the op package if it is missing.",
    ),
    "E40020": (
        "Operator compilation could not import a Python module: CANN Python packages not installed for this "
        "interpreter or a missing dependency.",
        "Source set_env.sh, then `python -c 'import <module>'` with the same interpreter; install the missing "
        "dependency or the CANN wheels (te, op_compile_tool).",
    ),
    "E40021": (
        "Compiling an operator failed. The code only says that compilation failed; the reason is logged just "
        "before it (TEFUSION/FE lines, a Python stack, often E40020/E40024/E40003).",
        "Open the host plog around this line and read the Python stack and earlier compile errors; check the "
        "oppath in the message is the install you expect.",
    ),
    "E40022": (
        "An operator compile option has an invalid value.",
        "Correct the parameter named in the message.",
    ),
    "E40023": (
        "A path used by operator compilation is invalid.",
        "Check the path named in the message (exists, permissions).",
    ),
    "E40024": (
        "A Python function called during operator compilation failed; often an environment mismatch "
        "(Python version, numpy, or a C-extension built for another Python).",
        "Read the reason and the Python stack in the plog; align the Python/numpy versions with the CANN release.",
    ),
    "E49999": (
        "Operator compilation reports an internal failure; details precede it.",
        "Read the earlier TEFUSION lines and Python stack in the plog.",
    ),
    # --- FE / GE / AI CPU -----------------------------------------------------------------------
    "E20001": (
        "An operator failed to compile at the fusion engine stage (the same failure as E40021, seen by FE).",
        "Look for E40020/E40024/E40003 and the Python stack logged just before; check the environment.",
    ),
    "E20007": (
        "A graph fusion pass failed while compiling the graph.",
        "Check the pass named in the message; try disabling the fusion pass or update CANN.",
    ),
    "E22001": (
        "The compiled result of an operator was not found, usually after a compile failure logged earlier.",
        "Find the earlier compile error for the same op.",
    ),
    "E30005": (
        "The AI CPU side could not connect to the device.",
        "Check device health with `npu-smi info` and look for driver errors.",
    ),
    "E30006": (
        "The device rejected the operator package (OPP) during verification: damaged or mismatched install.",
        "Reinstall the OPP / opp_kernel packages matching the CANN and driver versions.",
    ),
    "E30008": (
        "An AI CPU operator took too long on the device.",
        "Check the extra info; collect device logs and run with ASCEND_LAUNCH_BLOCKING=1 to find the op.",
    ),
    "E10001": (
        "A graph/ATC option has a value GE rejects.",
        "Correct the option named in the message according to the reason.",
    ),
    "E19999": (
        "GE reports an internal failure; the real reason is in the GE/FE lines just before it.",
        "Read the earlier ERROR lines of this process; this banner is never the root cause.",
    ),
    # --- driver (EL) ----------------------------------------------------------------------------
    "EL0001": (
        "The device is missing or in an abnormal state.",
        "Run `npu-smi info`; check ASCEND_RT_VISIBLE_DEVICES and driver health (dmesg).",
    ),
    "EL0002": (
        "The device id is not valid for this process.",
        "Check ASCEND_RT_VISIBLE_DEVICES / local rank to device mapping.",
    ),
    "EL0004": (
        "The driver could not allocate device memory for the named module: HBM is full.",
        "Run `npu-smi info` to see who holds memory (other or stale jobs), then lower memory use; if "
        "reserved memory is far above allocated, set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True.",
    ),
    "EL0005": (
        "The device resource is busy, often held by another process.",
        "Check for other jobs on the device with `npu-smi info` and stop stale ones.",
    ),
    "EL0006": (
        "The device ran out of a driver-managed resource.",
        "Reduce streams/events per process and check for other jobs on the device.",
    ),
    "EL0007": (
        "The job user lacks permission to access the device.",
        "Run as a user in the HwHiAiUser group or fix device node permissions.",
    ),
}

# Inner codes that are not in the fact table but appear in real logs; added so a lookup answers.
EXTRA_INNER: dict[str, str] = {
    "EE9999": "RTS Errors",
    "EH9999": "ACL Errors",
    "EI9999": "HCCL Errors",
    "E49999": "TEFusion Errors",
}

# ---------------------------------------------------------------------------------------------
# Composed guidance for the rest: a title rule gives the gist, the component adds where to look.
# ---------------------------------------------------------------------------------------------
TITLE_RULES: list[tuple[str, str, str]] = [
    ("performance", "A performance notice from {comp}, not a failure.",
     "Safe to ignore when looking for the cause of a crash or hang."),
    ("timeout", "An operation in {comp} did not finish in time; this is often a consequence of an earlier "
     "failure or a stalled peer/device.", "Find the earliest error before this line before acting on the timeout."),
    ("environment_variable", "An environment variable has a value {comp} does not accept.",
     "Correct or unset the variable named in the message and rerun."),
    ("python", "A Python step used by {comp} failed (import or call).",
     "Check the Python interpreter and packages match the CANN release; read the Python stack in the plog."),
    ("package", "An installed package is missing, damaged or does not match the other components.",
     "Source the matching set_env.sh and compare CANN, driver and framework versions; reinstall if needed."),
    ("version", "Installed components have versions that do not fit together.",
     "Compare CANN, driver, firmware and framework versions and install a supported combination."),
    ("null_pointer", "A required argument reached {comp} as a null pointer.",
     "Usually a caller bug or use of a released object; check the call site and versions."),
    ("memory", "{comp} could not get the memory it needed.",
     "Check free memory (`npu-smi info` for device, `free -g` for host) and reduce usage."),
    ("insufficient", "{comp} ran out of a resource.",
     "Check for other jobs on the device and reduce the resources created per process."),
    ("resource", "{comp} could not obtain a resource.",
     "Use the reason in the message; check limits and other processes on the device."),
    ("file", "A file or directory used by {comp} could not be found, opened, read, parsed or written.",
     "Check that the path in the message exists, is readable by the job user and is complete."),
    ("path", "A path given to {comp} is invalid.",
     "Check that the path in the message exists and is accessible."),
    ("directory", "A directory used by {comp} is invalid or inaccessible.",
     "Check the directory in the message exists and is writable."),
    ("shape", "A tensor shape does not satisfy the operator's constraints.",
     "Print the input shapes at the failing call and compare them with the constraint in the message."),
    ("dtype", "A tensor dtype is not supported here.",
     "Cast the input to a supported dtype listed in the message."),
    ("data_type", "A data type is not supported here.",
     "Cast the input to a supported data type."),
    ("format", "A tensor format is not supported here.",
     "Use a supported format (check for private NPU formats in the input)."),
    ("attr", "An operator attribute has an invalid value or size.",
     "Correct the attribute named in the message at the call site."),
    ("unsupported", "The requested operator or feature is not supported by {comp} in this setup.",
     "Check the SoC and version support list; use a supported variant."),
    ("not_supported", "The requested feature is not supported by {comp} in this setup.",
     "Check the SoC and version support list; use a supported variant."),
    ("compil", "A compilation step failed; reported by {comp}.",
     "Read the compile errors and Python stack logged just before this line."),
    ("config", "A configuration item for {comp} is invalid.",
     "Correct the item named in the message in its configuration file or option."),
    ("connect", "{comp} could not connect to a peer or device.",
     "Check the address, network reachability and that the peer is running."),
    ("permission", "The job user lacks a permission that {comp} needs.",
     "Check file and device permissions for the job user."),
    ("execution", "Execution in {comp} failed at run time.",
     "Use the reason in the message and earlier device errors to find the failing task."),
    ("invalid", "A value passed to {comp} failed validation.",
     "Use the value and reason in the message to find and fix the argument."),
]

COMPONENT_STEP: dict[str, str] = {
    "GE": "In PyTorch jobs GE is on the path only in graph mode (torchair) or model conversion; the GE lines before it in the plog show the stage.",
    "FE": "FE errors come from graph compilation; the FE/TEFUSION lines before it give the detail.",
    "AI CPU": "AI CPU work runs on the device's CPU cores; device logs hold the detail.",
    "TEFusion": "Operator compilation runs in Python; the TEFUSION lines and Python stack in the host plog give the reason.",
    "operator checks": "The op name in the message tells which call to inspect; rerun with ASCEND_LAUNCH_BLOCKING=1 to see the Python frame.",
    "vector/OPP config": "This points at the operator package installation; check ASCEND_OPP_PATH and reinstall the op package if needed.",
    "operator compile": "The compile traceback in the host plog shows the failing kernel.",
    "runtime": "The runtime sits under the framework; the call that reached it is in the lines just before.",
    "ACL": "ACL is the API layer used by torch_npu/MindSpore (not HCCL).",
    "HCCL": "For collectives, compare with the logs of all ranks before acting.",
    "HCCP": "HCCP drives the device NICs; `hccn_tool -i <dev> -link -g` shows link state.",
    "driver": "Check `npu-smi info` and the kernel log (dmesg) for driver trouble.",
    "profiling": "Only relevant when profiling is on; disable it to confirm.",
    "dump": "Only relevant when data dump is on; check the dump configuration.",
    "operators/aclnn": "Check shapes, dtypes and formats at the failing call against the operator's constraints.",
}

PLACEHOLDER = re.compile(r"%(?:ll|l|z)?[sdu]")


def component(code: str) -> str:
    """Short component name, from the same table the app uses (registry.codes)."""
    if str(ROOT / "src") not in sys.path:  # runs without installing the package too
        sys.path.insert(0, str(ROOT / "src"))
    from npudiag_tui.core.registry.codes import component_of

    return component_of(code)


COMPONENT_NOUN: dict[str, str] = {
    "GE": "GE (graph engine)",
    "FE": "FE (fusion engine)",
    "AI CPU": "the AI CPU side",
    "TEFusion": "operator compilation (TBE/Ascend C)",
    "operator checks": "an operator's input checks",
    "vector/OPP config": "the operator package configuration",
    "operator compile": "operator compilation",
    "runtime": "the runtime",
    "driver": "the driver",
    "profiling": "profiling",
    "dump": "data dump",
    "operators/aclnn": "the operator (aclnn) layer",
}


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def compose(code: str, title: str | None, family: str | None) -> tuple[str, str]:
    """Guidance for codes without hand-written text: title gist + component hint."""
    comp = component(code)
    noun = COMPONENT_NOUN.get(comp)
    if noun is None:
        noun = family.split("(")[0].replace(" Errors", "").replace(" Error", "").strip() if family else comp
    key = (title or "").lower().replace(" ", "_")
    cause = solution = None
    if code.endswith(("9999", "8888")) or key == "inner_error":
        cause = f"{noun} failed internally; this line does not carry the root cause."
        solution = "Read the ERROR lines logged before it in the same process for a more specific code."
    else:
        key = key.removeprefix("inner_error_")
        for word, c, s in TITLE_RULES:
            if word in key:
                cause, solution = c.format(comp=noun), s
                break
    if cause is None:
        name = f" ({title})" if title else ""
        kind = "a warning" if code.startswith("W") else "an error"
        cause = f"{noun} reported {kind}{name}; the message text names what failed."
        solution = "Read the message and the ERROR lines just before it in the same process."
    cause = _sentence(cause)
    step = COMPONENT_STEP.get(comp)
    if step is None and family:
        step = f"{family.split('(')[0].strip()} belong to a tool that is rarely on a training/inference path unless you used it."
    if step:
        solution = f"{solution} {step}"
    return cause, solution


def arglist(raw: str | None) -> list[str]:
    """Arglist facts are comma lists with stray spaces; keep names verbatim otherwise."""
    if not raw:
        return []
    return [a.strip() for a in raw.split(",") if a.strip()]


def build_registry(facts: list[dict], say=print) -> dict:
    entries: dict[str, dict] = {}
    hand = 0
    for f in facts:
        code = f["code"]
        if code in GUIDANCE:
            cause, solution = GUIDANCE[code]
            hand += 1
        else:
            cause, solution = compose(code, f.get("title"), f.get("family"))
        entries[code] = {
            "code": code,
            "family": f.get("family"),
            "title": f.get("title"),
            "template": f.get("template"),
            "arglist": arglist(f.get("arglist")),
            "variants": [
                {"template": v["template"], "arglist": arglist(v.get("arglist"))}
                for v in (f.get("template_variants") or [])
                if v.get("template")
            ],
            "possible_cause": cause,
            "solution": solution,
            "is_inner": bool(f.get("is_inner_code")) or code.endswith(("9999", "8888")),
            "guidance": "hand-written" if code in GUIDANCE else "composed",
        }
    for code, family in EXTRA_INNER.items():
        if code in entries:
            continue
        cause, solution = GUIDANCE[code]
        hand += 1
        entries[code] = {
            "code": code, "family": family, "title": None, "template": None, "arglist": [],
            "variants": [], "possible_cause": cause, "solution": solution, "is_inner": True,
            "guidance": "hand-written",
        }
    missing = sorted(set(GUIDANCE) - set(entries))
    if missing:
        raise SystemExit(f"guidance for unknown codes: {missing}")
    say(f"registry: {len(entries)} codes, {hand} with hand-written guidance")
    return {"schema": "npudiag-registry/1", "codes": entries}


# ---------------------------------------------------------------------------------------------
# Numeric codes
# ---------------------------------------------------------------------------------------------
NUMERIC_MEANING: dict[tuple[str, int], str] = {
    ("acl", 100000): "An argument passed to an ACL call failed validation.",
    ("acl", 107000): "A runtime call got an invalid parameter.",
    ("acl", 107020): "A runtime task did not finish in time.",
    ("acl", 107025): "Graph capture: an operation is not allowed while a stream is being captured.",
    ("acl", 107030): "The operation is forbidden while the stream is in capture mode (graph capture).",
    ("acl", 200000): "Memory allocation failed.",
    ("acl", 207001): "Device memory allocation failed; HBM is full or fragmented.",
    ("acl", 207018): "The device is out of memory.",
    ("acl", 500002): "GE failed; in torch_npu jobs this usually wraps an operator compile failure logged earlier.",
    ("acl", 507011): "A model (graph) run failed on the device, usually because one task inside it failed: the first task error names it.",
    ("acl", 507014): "An AI Core kernel ran past its time limit (hung or very slow kernel).",
    ("acl", 507015): "An AI Core kernel raised an exception (bad address, overflow, invalid instruction).",
    ("acl", 507018): "An AI CPU kernel raised an exception on the device.",
    ("acl", 507033): "Setting up the device failed; usually a consequence of memory, OPP or an occupied device.",
    ("acl", 507034): "A vector core (AIV) kernel ran past its time limit.",
    ("acl", 507035): "A vector core (AIV) kernel raised an exception.",
    ("acl", 507046): "A stream synchronize timed out; a symptom of a hung task or an earlier failure.",
    ("acl", 507048): "An FFTS+ task (a fused sub-task group) timed out on the device.",
    ("aclnn", 161001): "A required aclnn argument was null.",
    ("aclnn", 161002): "An aclnn argument failed the host-side check (shape, dtype, format or value).",
    ("aclnn", 361001): "A runtime call made by the aclnn operator failed.",
    ("aclnn", 561000): "Generic aclnn internal failure; often a runtime or HCCL call beneath the op failed.",
    ("aclnn", 561001): "Shape inference of the operator failed.",
    ("aclnn", 561002): "Tiling of the operator failed (the shapes/attributes do not fit the kernel).",
    ("aclnn", 561003): "No kernel binary was found for this operator and input combination.",
    ("aclnn", 561107): "The operator package path was not found (environment not set up).",
    ("aclnn", 561112): "The opp_kernel package is not installed for this SoC.",
    ("hccl", 1): "A collective got an invalid parameter.",
    ("hccl", 2): "A collective got a null or invalid pointer.",
    ("hccl", 3): "HCCL could not get memory.",
    ("hccl", 4): "HCCL internal failure.",
    ("hccl", 5): "The collective or option is not supported in this setup.",
    ("hccl", 6): "A resource HCCL looked for does not exist.",
    ("hccl", 7): "A resource HCCL needs is unavailable.",
    ("hccl", 8): "A system call inside HCCL failed.",
    ("hccl", 9): "A collective timed out waiting (peer failed, hung or issued a different collective).",
    ("hccl", 11): "The TCP connection to a peer rank failed.",
    ("hccl", 12): "The RoCE connection to a peer rank failed.",
    ("hccl", 15): "A runtime call made by HCCL failed.",
    ("hccl", 19): "A network error occurred between ranks.",
    ("hccl", 21): "The remote side reported an error (error CQE).",
    ("hccl", 24): "HCCL ran out of device memory.",
    ("hccl", 1041): "HCCL is in an error state after an earlier failure.",
}

TORCH_SUBMODULE = {"00": "torch_npu core (PTA)", "01": "torch_npu operators (OPS)",
                   "02": "torch_npu distributed (DIST)", "03": "torch_npu graph mode (GRAPH)",
                   "04": "torch_npu profiler (PROF)"}
TORCH_ERROR = {
    "000": "no error", "001": "an argument is invalid", "002": "an argument has the wrong type",
    "003": "a value is invalid", "004": "a pointer is invalid", "005": "internal failure",
    "006": "memory problem", "007": "the feature is not supported", "008": "a resource was not found",
    "009": "a resource is unavailable", "010": "a system call failed", "011": "timed out",
    "012": "permission denied",
    "100": "an ACL call failed; a wrapper, the cause is in the CANN error printed with it",
    "200": "an HCCL call failed; a wrapper, the cause is in the HCCL error printed with it",
    "300": "a GE call failed; a wrapper, the cause is in the GE error printed with it",
}

ACL_CLASS = {"1": "Caller or environment problem (usually user-fixable)",
             "2": "Resources exhausted or unsupported on this hardware",
             "3": "Business state (queue full/empty)",
             "5": "Internal software or hardware failure"}
NAME_PREFIXES = ("ACL_ERROR_RT_", "ACL_ERROR_GE_", "ACL_ERROR_", "ACLNN_ERR_INNER_", "ACLNN_ERR_",
                 "HCCL_E_", "ACL_")


def domain_of(raw: str) -> str:
    low = raw.lower()
    if low.startswith("aclnn"):
        return "aclnn"
    if low.startswith("aclerror"):
        return "acl"
    if low.startswith("hccl"):
        return "hccl"
    return "torch_npu"


def numeric_meaning(domain: str, value: int, name: str) -> str:
    """Hand-written when known, else the range class plus the name read as words."""
    if (domain, value) in NUMERIC_MEANING:
        return NUMERIC_MEANING[(domain, value)]
    words = name
    for p in NAME_PREFIXES:
        if words.startswith(p):
            words = words[len(p):]
            break
    words = words.replace("_", " ").lower().strip() or name
    if value == 0:
        return "Success."
    if domain == "acl":
        cls = ACL_CLASS.get(str(value)[0], "Error")
        return f"{cls}: {words}."
    if domain == "aclnn":
        cls = {"1": "Host-side parameter check", "3": "Runtime call", "5": "aclnn internal"}.get(str(value)[0], "aclnn")
        return f"{cls} failure: {words}."
    if domain == "hccl":
        return f"HCCL result: {words}."
    return words


def build_numeric(rows: list[dict], say=print) -> dict:
    out: list[dict] = []
    seen: set[tuple[str, int]] = set()
    for r in rows:
        domain = domain_of(r["domain"])
        raw = r["value"]
        if domain == "torch_npu":
            digits = str(raw)[3:]
            value = int(digits)
            meaning = f"{TORCH_SUBMODULE.get(digits[:2], 'torch_npu')}: {TORCH_ERROR.get(digits[2:], 'error')}."
        else:
            value = int(raw)
            meaning = numeric_meaning(domain, value, r["name"])
        key = (domain, value)
        if key in seen:  # aliases (ACL_SUCCESS, KEY_CONFILICT): the first name stays primary
            continue
        seen.add(key)
        out.append({"value": value, "name": r["name"], "domain": domain, "meaning": meaning})
    say(f"numeric: {len(out)} codes")
    return {"schema": "npudiag-numeric/1", "codes": out}


# ---------------------------------------------------------------------------------------------
# Facts read back from the shipped data (the fact table itself is not in the repository)
# ---------------------------------------------------------------------------------------------
_RAW_DOMAIN = {"acl": "aclError", "aclnn": "aclnnStatus", "hccl": "HcclResult", "torch_npu": "torch_npu"}


def facts_from_shipped(registry: dict) -> list[dict]:
    """The fact rows `build_registry` reads, recovered from a built registry (verbatim copies)."""
    return [{
        "code": e["code"], "family": e["family"], "title": e["title"], "template": e["template"],
        "arglist": ",".join(e["arglist"]),
        "template_variants": [{"template": v["template"], "arglist": ",".join(v["arglist"])} for v in e["variants"]],
        "is_inner_code": e["is_inner"],
    } for e in registry["codes"].values()]


def numeric_rows_from_shipped(numeric: dict) -> list[dict]:
    """The rows `build_numeric` reads, recovered from built numeric data (aliases were dropped
    by the build and change nothing when absent)."""
    return [{
        "domain": _RAW_DOMAIN[c["domain"]], "name": c["name"],
        "value": f"ERR{c['value']:05d}" if c["domain"] == "torch_npu" else c["value"],
    } for c in numeric["codes"]]


def _text(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def build(reference: Path | None, say=print) -> dict[str, str]:
    """File name -> the text the build writes, from REFERENCE_DIR or the shipped facts."""
    if reference is None:
        facts = facts_from_shipped(json.loads((OUT_DIR / REGISTRY_FILE).read_text(encoding="utf-8")))
        rows = numeric_rows_from_shipped(json.loads((OUT_DIR / NUMERIC_FILE).read_text(encoding="utf-8")))
    else:
        facts = json.loads((reference / "registry_facts.json").read_text(encoding="utf-8"))
        rows = json.loads((reference / "numeric_codes.json").read_text(encoding="utf-8"))
    return {REGISTRY_FILE: _text(build_registry(facts, say)), NUMERIC_FILE: _text(build_numeric(rows, say))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the built-in registry data shipped with npudiag-tui.")
    parser.add_argument("reference", nargs="?", type=Path,
                        help="folder with registry_facts.json and numeric_codes.json (default: the shipped facts)")
    parser.add_argument("--check", action="store_true", help="only say whether the shipped data is what this builds")
    args = parser.parse_args(argv)
    built = build(args.reference)
    stale = [name for name, text in built.items() if (OUT_DIR / name).read_text(encoding="utf-8") != text]
    if args.check:
        for name in stale:
            print(f"{OUT_DIR / name}: not what tools/build_registry.py builds", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        (OUT_DIR / name).write_text(built[name], encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
