"""`prmkit label` on Ray actors: the same records as the local run; kill -9 of the driver, then a re-run,
loses and duplicates nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import cli, pool_dict, write_jsonl
from prmkit.data.formats import read_pools
from prmkit.label import InformationConfig, LabelConfig, label_pools
from tolerances import FLOAT32_REL, MODEL_ABS

pytestmark = pytest.mark.xdist_group("ray")  # one local Ray cluster: these tests share one worker of `pytest -n`

STEPS = ["Tom has 3 apples", "he buys 4 more", "3 + 4 = 7", "the price is 12 dollars", "5 * 6 = 30"]


def make_pools(n: int) -> list[dict]:
    """n problems of 4 traces each (two correct), 1 to 3 steps a trace."""
    return [pool_dict(f"p{k}", f"How many apples does Tom have? case {k}", "7",
                      [([STEPS[(k + j + s) % len(STEPS)] for s in range(1 + (k + j) % 3)], ans, ans == "7")
                       for j, ans in enumerate(["7", "12", "30", "7"])]) for k in range(n)]


def prmkit(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "prmkit.cli.main", *args], capture_output=True, text=True, check=True,
                   env=os.environ | {"OMP_NUM_THREADS": "1"})


def _by_trace(path) -> dict[str, dict]:
    with open(path) as fh:
        records = [json.loads(line) for line in fh]
    assert len({r["trace_id"] for r in records}) == len(records), "a trace written twice"
    return {r["trace_id"]: r for r in records}


@pytest.mark.slow
def test_label_on_ray_gives_the_local_records(ray_cluster, tmp_path, tiny_base):
    pools = list(read_pools(write_jsonl(tmp_path / "pools.jsonl", make_pools(8))))
    settings = [InformationConfig(model=tiny_base)]
    local = label_pools(pools, LabelConfig(method="ig,mcnig"), tmp_path / "local.{method}.jsonl", settings, False)
    ray = label_pools(pools, LabelConfig(method="ig,mcnig", ray="local", ray_actors=2),
                      tmp_path / "ray.{method}.jsonl", settings, False)
    for m in ("ig", "mcnig"):
        # compared as sets keyed by trace id: the lines come back in the order the actors finish them; here the
        # labeler packs several problems into one forward pass, an actor one problem at a time, so the scores (and
        # the tau chosen on them) agree up to float rounding and everything else exactly
        ray_records, local_records = _by_trace(tmp_path / f"ray.{m}.jsonl"), _by_trace(tmp_path / f"local.{m}.jsonl")
        assert sorted(ray_records) == sorted(local_records)
        for tid, r in ray_records.items():
            mine = local_records[tid]
            assert r["scores"] == pytest.approx(mine["scores"], abs=MODEL_ABS, rel=FLOAT32_REL)
            assert r["threshold"] == pytest.approx(mine["threshold"], abs=MODEL_ABS, rel=FLOAT32_REL)
            assert {k: v for k, v in r.items() if k not in ("scores", "threshold")} == \
                {k: v for k, v in mine.items() if k not in ("scores", "threshold")}
        assert ray[m].traces == local[m].traces == 32 and ray[m].sweeps.keys() == local[m].sweeps.keys()
        for key, sweep in ray[m].sweeps.items():  # the same tau up to the scores' rounding, the same accuracy
            assert sweep == {**local[m].sweeps[key], "tau": pytest.approx(local[m].sweeps[key]["tau"], abs=MODEL_ABS,
                                                                          rel=FLOAT32_REL)}
        assert ray[m].tokens_read == local[m].tokens_read > 0


@pytest.mark.slow
def test_kill_9_of_the_ray_driver_then_rerun_loses_and_duplicates_nothing(ray_cluster, tmp_path, tiny_base):
    pools = write_jsonl(tmp_path / "pools.jsonl", make_pools(24))
    args = ["label", "--method", "mcnig", "--input", pools, "--model", tiny_base, "--quiet", "--output"]
    cli(*args, str(tmp_path / "clean.jsonl"), check=True)  # the clean run in this process, without Ray
    victim = tmp_path / "killed.jsonl"
    # the drivers join the session's cluster (as on a real one, the cluster outlives the killed driver and its actors)
    ray = ["--ray", ray_cluster.get_runtime_context().gcs_address, "--ray-actors", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "prmkit.cli.main", *args, str(victim), *ray],
                            env=os.environ | {"OMP_NUM_THREADS": "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and (not victim.exists() or victim.read_text().count("\n") < 12):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = victim.read_text().count("\n")
    assert 12 <= written < 96, "the kill must land mid-run"
    prmkit(*args, str(victim), *ray)
    clean, resumed = _by_trace(tmp_path / "clean.jsonl"), _by_trace(victim)
    assert sorted(resumed) == sorted(clean) and len(resumed) == 96
    for tid, r in resumed.items():
        assert r["scores"] == pytest.approx(clean[tid]["scores"], abs=MODEL_ABS, rel=FLOAT32_REL)
        assert r["labels"] == clean[tid]["labels"]
