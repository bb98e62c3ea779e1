"""pytest set-up for the unit tests of scripts/*.py: the scripts and the file factory importable,
matplotlib without a display."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
os.environ.setdefault("MPLBACKEND", "Agg")
for directory in (SCRIPTS, pathlib.Path(__file__).resolve().parent):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))


@pytest.fixture
def scripts_dir():
    return SCRIPTS
