"""The suite's model cache is a temporary directory (tests/conftest.py), never the user's."""

import os
import tempfile
from pathlib import Path

from prmkit.models.loading import cache_dir


def test_the_suite_uses_a_temporary_model_cache():
    assert cache_dir() == Path(os.environ["PRMKIT_CACHE"])
    assert cache_dir().name.startswith("prmkit-test-cache-") and cache_dir().parent == Path(tempfile.gettempdir())
