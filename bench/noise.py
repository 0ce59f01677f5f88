"""Robustness of the anchor under benign noise: put lines that real Ascend jobs print on every
run and that no diagnostician anchors (torch_npu's start-up warnings, deprecations, progress bars,
vLLM's INFO lines, a failed optional import) at the top of each console log of every dev case the
engine gets right (`near`: right before the traceback that ends in the anchor), and judge it
again. Prints how many still hold and the cases that moved. Dev cases only: the holdout is
measured, never probed.

    .venv/bin/python bench/noise.py [near]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import corpus_dirs  # noqa: E402
from test_conformance import judge  # noqa: E402

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
    "INFO 03-25 06:14:02 [__init__.py:39] Available plugins for group vllm.platform_plugins:",
    "WARNING 03-25 06:14:03 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError(\"No module named "
    "'vllm._C'\")",
    "/usr/local/python3.10/lib/python3.10/site-packages/transformers/utils/generic.py:311: FutureWarning: "
    "`torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` "
    "instead.",
    "Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.21it/s]",
    "DeprecationWarning: pkg_resources is deprecated as an API. See https://setuptools.pypa.io/en/latest/pkg_resources.html",
]


def noised(case: Path, dst: Path, near: bool) -> bool:
    """Copy a case with noise at the top of its console logs (or, `near`, before the block that
    holds the anchor, when that is a traceback); False when there is none."""
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
        (dst / p.name).write_text("\n".join(lines[:at] + NOISE + lines[at:]), encoding="utf-8")
    return True


def main() -> None:
    near = sys.argv[1:] == ["near"]
    good = [c for c in corpus_dirs("dev") if (r := judge(c))["anchor"] and r["category"]]
    moved, n = [], 0
    for case in good:
        with tempfile.TemporaryDirectory() as td:
            dst = Path(td) / case.name
            if not noised(case, dst, near):
                continue
            n += 1
            r = judge(dst)
            if not (r["anchor"] and r["category"]) or r["cascade"]:
                moved.append(f"{case.name}: {r['got'][:150]}")
    print(f"noise {'before the anchor' if near else 'at the top'}: {n - len(moved)}/{n} hold")
    for m in moved:
        print("   ", m)


if __name__ == "__main__":
    main()
