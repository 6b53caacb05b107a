"""Executors: the same work gives the same results here and on Ray actors (generate and rollout, fixed seed)."""

from __future__ import annotations

import argparse
import os
import pickle

import pytest

from prmkit.cli.common import add_config_arguments, config_from_args
from prmkit.data.settings import build_config
from prmkit.generate import GenerateConfig, RolloutConfig, run_generation, run_rollout
from prmkit.generate.distributed import LocalExecutor, RayExecutor, Resident, ScaleConfig, make_executor

pytestmark = pytest.mark.xdist_group("ray")  # one local Ray cluster: these tests share one worker of `pytest -n`


class _PidSquare:
    """Work whose resident part records the process that built it."""

    def __init__(self):
        self.pid = Resident(os.getpid)

    def __call__(self, x: int) -> tuple[int, int]:
        return x * x, self.pid.get()


def test_resident_travels_without_its_value():
    built = Resident(list, value=[1, 2])
    assert built.get() == [1, 2] and pickle.loads(pickle.dumps(built)).get() == []


def test_make_executor_by_address():
    assert isinstance(make_executor(ScaleConfig()), LocalExecutor)
    ray = make_executor(ScaleConfig(ray="auto", ray_actors=3))
    assert isinstance(ray, RayExecutor) and (ray.address, ray.actors) == ("auto", 3)


def test_ray_flag_alone_or_with_an_address():
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, ScaleConfig)
    parsed = {argv: config_from_args(ScaleConfig, parser.parse_args(argv)).ray
              for argv in [(), ("--ray",), ("--ray", "auto"), ("--ray", "ray://head:10001")]}
    assert list(parsed.values()) == [None, "local", "auto", "ray://head:10001"]
    assert config_from_args(ScaleConfig, parser.parse_args(["--ray-actors", "3"])).ray_actors == 3


@pytest.mark.slow
def test_ray_executor_maps_every_item_once_in_actors(ray_cluster):
    out = dict(RayExecutor("local", 2).map(_PidSquare(), list(range(7))))
    assert sorted(out) == list(range(7)) and all(out[i][0] == i * i for i in out)
    assert os.getpid() not in {pid for _, pid in out.values()}  # the work ran in actors, not here


def _lines(path) -> set[str]:
    return set(open(path).read().splitlines())


@pytest.mark.slow
def test_generate_and_rollout_on_ray_equal_local(ray_cluster, tiny_model_dir, tmp_path):
    gen = dict(data="demo", limit=4, k=2, max_new_tokens=12, model=tiny_model_dir, batch_size=4, filter=False)
    roll = dict(limit=2, k=2, max_new_tokens=8, model=tiny_model_dir, batch_size=4, positions=[0, 1])
    for where, ray in (("local", None), ("ray", "local")):
        run_generation(build_config(GenerateConfig, {}, gen | {"ray": ray, "output": str(tmp_path / f"{where}.jsonl")}),
                       progress=False)
        run_rollout(build_config(RolloutConfig, {}, roll | {"input": str(tmp_path / "local.jsonl"), "ray": ray,
                                                            "output": str(tmp_path / f"{where}.rollouts.jsonl")}),
                    progress=False)
    # the same lines (the order may differ: Ray returns batches as actors finish them)
    assert len(_lines(tmp_path / "local.raw.jsonl")) == 4
    assert _lines(tmp_path / "local.raw.jsonl") == _lines(tmp_path / "ray.raw.jsonl")
    assert len(_lines(tmp_path / "local.rollouts.jsonl")) >= 4
    assert _lines(tmp_path / "local.rollouts.jsonl") == _lines(tmp_path / "ray.rollouts.jsonl")
