"""Shared helpers: the command line binary the package's results are compared with."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """Run the phaseflow binary (PHASEFLOW_BIN, else the release build of this checkout)."""
    binary = os.environ.get("PHASEFLOW_BIN", str(ROOT / "target" / "release" / "phaseflow"))
    if not Path(binary).is_file():
        raise FileNotFoundError(
            f"{binary}: build the command line first (cargo build --release) or set PHASEFLOW_BIN")

    def call(*args, check=True):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"phaseflow {' '.join(map(str, args))}: {done.stderr}")
        return done

    return call
