"""The one template loader: built-in names, user files, clear errors."""

import pytest

from prmkit.data.templates import load_template


def test_builtin_names_with_or_without_suffix(tmp_path):
    assert load_template("answer_cue") == load_template("answer_cue.txt")
    assert "{answer}" in load_template("answer_cue")
    own = tmp_path / "cue.txt"
    own.write_text("Result: {answer}", encoding="utf-8")
    assert load_template("answer_cue", own) == "Result: {answer}"


def test_unknown_names_and_missing_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match=r"no built-in template .nope.*answer_cue\.txt"):
        load_template("nope")
    with pytest.raises(FileNotFoundError, match="template file not found"):
        load_template("answer_cue", tmp_path / "missing.txt")


def test_an_empty_template_file_is_refused(tmp_path):
    """An empty (or blank) template file gave every prompt empty: `prmkit sft --template` trained on empty prompts."""
    from prmkit.experiments.sft import SFTRunConfig

    blank = tmp_path / "blank.txt"
    blank.write_text(" \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"template file .*blank.txt is empty"):
        load_template("label_prompt", blank)
    with pytest.raises(ValueError, match=r"template file .*blank.txt is empty"):  # before any model loads
        SFTRunConfig(output=str(tmp_path / "sft"), template=str(blank))
