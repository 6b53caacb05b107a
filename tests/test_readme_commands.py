"""Every `prmkit ...` command in the README's and docs' shell blocks parses with today's CLI: a renamed or removed
flag fails here, not in a user's terminal. Commands that hold shell variables or `...` placeholders are left out."""

import re
import shlex
from pathlib import Path

import pytest

from prmkit.cli.main import TOP, build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]  # the lab notes in docs/notes too


def commands(path: Path) -> list[str]:
    out = []
    for _, block in re.findall(r"```(\w*)\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = line.split(" # ")[0].strip()
            if line.startswith("prmkit ") and "$" not in line and "..." not in line:
                out.append(line)
    return out


def test_the_readme_shows_commands():
    assert len(commands(ROOT / "README.md")) >= 30


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_documented_command_parses(path):
    for line in commands(path):
        argv = shlex.split(line)[1:]
        argv = argv[: next((i for i, a in enumerate(argv) if a in ("|", ">", ">>", "&&", ";", "2>&1")), len(argv))]
        try:
            build_parser(argv[0] if argv[0] in TOP else None).parse_args(argv)
        except SystemExit:
            pytest.fail(f"{path.name}: `{line}` does not parse")
