"""`--cluster --ray`: the summary runs on every node of a (simulated) Ray cluster.

A head and three added nodes of `ray.cluster_utils.Cluster` on this machine, every Ray process
bound to 127.0.0.1 (checked with `ss`), each node given its own log folder through `--logs
DIR/{node}`. Marked `ray` so they can run apart (`pytest -m ray`); skipped without Ray.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from npudiag_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import gen_cluster  # noqa: E402

PER_NODE = 8
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray's single-machine mode, every address local
RAY_PROCESS = re.compile(r'users:\(\("(gcs_server|raylet|ray::[^"]*|default_worker[^"]*|plasma[^"]*)"')


def test_without_ray_the_option_says_how_to_install(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code = main(["--cluster", "--ray", "--logs", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "pip install 'npudiag-tui[cluster]'" in err


def test_what_ray_prints_during_the_run_stays_off_the_reports_stdout(capsys, monkeypatch, tmp_path):
    """Ray's threads print to the driver's stdout (`(raylet) A worker died…`) even without
    log_to_driver; stdout carries `--report json`, so the run sends them to stderr."""
    import types

    from npudiag_tui import ray_run

    noise = "(raylet) A worker died or was killed while executing a task"
    fake = types.ModuleType("ray")
    fake.init = lambda **kw: print(noise)
    fake.nodes = lambda: (print(noise), [])[1]
    fake.remote = lambda **kw: (lambda fn: fn)
    fake.shutdown = lambda: print(noise)
    strategies = types.ModuleType("ray.util.scheduling_strategies")
    strategies.NodeAffinitySchedulingStrategy = object
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setitem(sys.modules, "ray.util", types.ModuleType("ray.util"))
    monkeypatch.setitem(sys.modules, "ray.util.scheduling_strategies", strategies)
    assert ray_run.gather("127.0.0.1:6379", str(tmp_path)) == ([], [])
    out, err = capsys.readouterr()
    assert out == "" and err.count(noise) == 3


def test_an_address_where_nothing_answers_fails_in_one_line_at_the_deadline(tmp_path):
    # Ray itself retries such an address for minutes; the driver must give up at its deadline,
    # say which address on one line, and the process must end (the connect thread is left behind).
    pytest.importorskip("ray")
    with socket.socket() as s:  # a port nothing listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = ("import sys, npudiag_tui.ray_run as r; r.CONNECT_TIMEOUT_S = 2\n"
              "from npudiag_tui.cli import main\n"
              f"sys.exit(main(['--cluster', '--ray', '127.0.0.1:{port}', '--logs', {str(tmp_path)!r}]))\n")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"127.0.0.1:{port}" in lines[0] and "no answer within 2 s" in lines[0]


@pytest.fixture(scope="module")
def ray_cluster():
    # Read by Ray at import: keep the node address on loopback. Without it, Ray turns a 127.0.0.1
    # address into the machine's own IP and the driver waits for ever for a GCS that is not there.
    before = os.environ.get(LOOPBACK_ENV)
    os.environ[LOOPBACK_ENV] = "0"
    try:
        yield from _cluster()
    finally:
        if before is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = before


def _free_ports(*names: str) -> dict[str, int]:
    """A free loopback port for each of Ray's fixed-default ports: two clusters on one machine
    (another test run) must not meet on the default GCS port and wait on each other."""
    ports = {}
    for name in names:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports[name] = s.getsockname()[1]
    return ports


def _cluster():
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    loopback = {"num_cpus": 1, "node_ip_address": "127.0.0.1"}
    cluster = Cluster(initialize_head=True,
                      head_node_args=dict(loopback, include_dashboard=False, resources={"npd_node_0": 1},
                                          **_free_ports("gcs_server_port",
                                                        "runtime_env_agent_port", "metrics_agent_port",
                                                        "metrics_export_port")))
    try:
        for k in range(1, 4):
            cluster.add_node(**loopback, resources={f"npd_node_{k}": 1},
                             **_free_ports("runtime_env_agent_port", "metrics_agent_port", "metrics_export_port"))
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False, logging_level="ERROR", _node_ip_address="127.0.0.1")
        try:
            from npudiag_tui.ray_run import node_names

            nodes = [n for n in ray.nodes() if n["Alive"]]
            # node name -> its index, by the custom resource each node was given
            index = {node_names(nodes)[n["NodeID"]]: next(int(k.rsplit("_", 1)[1]) for k in n["Resources"]
                                                           if k.startswith("npd_node_")) for n in nodes}
        finally:
            ray.shutdown()
        yield cluster, index
    finally:
        cluster.shutdown()


def _listeners_not_on_loopback() -> list[str]:
    if shutil.which("ss") is None:
        pytest.skip("ss is not available to check the listening addresses")
    out = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True, check=True).stdout
    bad = []
    for line in out.splitlines():
        if not RAY_PROCESS.search(line):
            continue
        local = line.split()[3]
        if not (local.startswith("127.0.0.1:") or local.startswith("[::ffff:127.0.0.1]:") or local.startswith("[::1]:")):
            bad.append(line)
    return bad


def _trees(base: Path, index: dict[str, int], root_node: int, skip: str | None = None) -> int:
    root_global = root_node * PER_NODE + 3
    for name, k in index.items():
        if name != skip:
            gen_cluster.generate_node(str(base / name), k, len(index), PER_NODE, root_global, 120_000)
    return root_global


@pytest.mark.ray
def test_ray_run_names_the_root_rank_and_node(capsys, tmp_path, ray_cluster):
    cluster, index = ray_cluster
    assert len(index) == 4
    assert _listeners_not_on_loopback() == []
    root_global = _trees(tmp_path / "logs", index, root_node=2)
    save = tmp_path / "saved"
    code = main(["--cluster", "--ray", cluster.address, "--logs", str(tmp_path / "logs" / "{node}"),
                 "--save", str(save), "--report", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    v = json.loads(out)
    root_name = next(n for n, k in index.items() if k == 2)
    assert v["root"]["rank"] == root_global and v["root"]["node"] == root_name
    assert sorted(r["rank"] for r in v["ranks"] if r["role"] == "victim") == [
        r for r in range(4 * PER_NODE) if r != root_global]
    assert v["missing_nodes"] == []
    assert sorted(p.name for p in save.iterdir()) == sorted(f"{n}.json" for n in index)
    for name in index:  # progress per node on stderr
        assert f"node {name}:" in err


@pytest.mark.ray
def test_ray_node_without_the_folder_is_reported_and_the_rest_merged(capsys, tmp_path, ray_cluster):
    cluster, index = ray_cluster
    gone = next(n for n, k in index.items() if k == 1)
    root_global = _trees(tmp_path / "logs", index, root_node=3, skip=gone)
    code = main(["--cluster", "--ray", cluster.address, "--logs", str(tmp_path / "logs" / "{node}"),
                 "--report", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    v = json.loads(out)
    assert [m["node"] for m in v["missing_nodes"]] == [gone]
    assert "no such file or directory" in v["missing_nodes"][0]["reason"]
    assert f"node {gone}" in err
    assert v["root"]["rank"] == root_global
    roles = {r["rank"]: r["role"] for r in v["ranks"]}
    assert all(roles[r] == "missing" for r in range(PER_NODE, 2 * PER_NODE))
    assert _listeners_not_on_loopback() == []
