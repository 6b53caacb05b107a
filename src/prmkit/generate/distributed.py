"""Executors of per-item work, here (`LocalExecutor`) or on Ray actors (`RayExecutor`), yielding (index, result) as
results come back; the calling recipe stays the only writer of its output (docs/scale_out.md)."""

import logging
import pickle
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from prmkit.data.settings import Range, check_limits

__all__ = ["Executor", "LocalExecutor", "RayExecutor", "Resident", "ScaleConfig", "make_executor", "progress_bar",
           "ray_init"]

T = TypeVar("T")
R = TypeVar("R")

# a cluster this module starts: small object store (the items and results are small), no dashboard
_OBJECT_STORE_BYTES = 256 * 1024**2


@dataclass
class ScaleConfig:
    """Where the work runs: here (default) or on a Ray cluster (`--ray`, `--ray auto`, `--ray ray://host:10001`)."""

    ray: str | None = field(default=None, metadata={
        "help": "run the work on Ray: 'local' (or a bare --ray) starts a local cluster, 'auto' joins the running "
                "one, 'ray://host:10001' a remote one; unset: in this process", "const": "local"})
    ray_actors: int = field(default=2, metadata={"help": "Ray actors (each loads the model once) with --ray",
                                                 "range": Range(1, 4096)})

    def __post_init__(self) -> None:
        check_limits(self)


class Executor(Protocol):
    """Maps `work` over `items`, yielding (index of the item, work(item)) as each result is ready."""

    def map(self, work: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]: ...


class Resident(Generic[T]):
    """An object (a model, a backend, labelers) built once where the work runs: pickled, only `build` travels; here,
    `value` (when given) is used as it is."""

    def __init__(self, build: Callable[[], T], value: T | None = None):
        self.build, self._value = build, value

    def get(self) -> T:
        if self._value is None:
            self._value = self.build()
        return self._value

    def __getstate__(self) -> dict[str, Any]:
        return {"build": self.build, "_value": None}


class LocalExecutor:
    def map(self, work: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        yield from enumerate(map(work, items))


def ray_init(address: str | None = "local", num_cpus: int | None = None) -> Any:
    """Connect to Ray (once per process): "" / "local" starts a local cluster (quiet, small object store),
    "auto" or "ray://host:port" joins a running one. Returns the `ray` module."""
    try:
        import ray
        import ray.data
    except ImportError as err:
        raise ImportError("--ray needs Ray: pip install 'prmkit[ray]'") from err
    if not ray.is_initialized():
        quiet = {"logging_level": logging.WARNING, "log_to_driver": False, "include_dashboard": False}
        if address in (None, "", "local"):
            ray.init(address="local", num_cpus=num_cpus, object_store_memory=_OBJECT_STORE_BYTES, **quiet)
        else:
            ray.init(address=address, **quiet)
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ctx.execution_options.preserve_order = False  # results come back as actors finish them
    return ray


class _RayActor:
    """One actor of the pool: unpickles the work once (its `Resident` parts build on first use), then maps it
    over the pickled items of each batch."""

    def __init__(self, work: bytes):
        self.work = pickle.loads(work)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        results = [pickle.dumps(self.work(pickle.loads(item))) for item in batch["item"]]
        return {"i": batch["i"], "result": np.array(results, dtype=object)}


@dataclass
class RayExecutor:
    """The work on `actors` Ray actors (Ray Data `map_batches` with an actor pool, one item per call)."""

    address: str | None = "local"
    actors: int = 2

    def map(self, work: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        if not items:
            return
        ray = ray_init(self.address)
        per_actor = min(1.0, ray.cluster_resources().get("CPU", 1.0) / self.actors)  # all actors fit the cluster
        rows = [{"i": i, "item": pickle.dumps(item)} for i, item in enumerate(items)]
        data = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            _RayActor, fn_constructor_args=(ray.cloudpickle.dumps(work),), batch_size=1, batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=self.actors), num_cpus=per_actor)
        for row in data.iter_rows():
            yield int(row["i"]), pickle.loads(row["result"])


def make_executor(config: ScaleConfig) -> Executor:
    return LocalExecutor() if config.ray is None else RayExecutor(config.ray, config.ray_actors)


@contextmanager
def progress_bar(enabled: bool, total: int, unit: str, desc: str) -> Iterator[Callable[[int], None] | None]:
    """The `update` of a tqdm bar over `total` items of the work (None when not `enabled`), closed on exit; tqdm is
    imported only when a bar is shown."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit=unit, desc=desc) as bar:
        yield bar.update
