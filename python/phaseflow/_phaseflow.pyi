"""The compiled core of phaseflow: the library's pipelines.

Every entry point takes its keyword arguments as a dict (``settings``: the package's function
passes the options it was given, None ones left out) and reads each by the kind of value its
option takes into the settings the pipeline takes; no argv is built. Each raises ValueError
for bad input (its options named as keyword arguments, an unknown one with the nearest names),
RuntimeError for other failures and KeyboardInterrupt when Ctrl-C stopped the work (after its
checkpoint). The work runs with the GIL released.
"""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str

Progress = Optional[Callable[[int, int], Any]]
Settings = Mapping[str, Any]
PathLike = Union[str, "os.PathLike[str]"]

def run(settings: Settings, keep_final: bool = True,
        progress: Progress = None) -> Dict[str, Any]:
    """A run (``phaseflow.run``'s options, set on the library's run builder): out, engine,
    method, accuracy, refine_capped_at, refine_stuck_at and final_state (a numpy array of
    shape (points, 2d), or None); for a sweep (``sweep``) out and sweep_parts (the parts'
    folders, in sweep_index order)."""

def study(settings: Settings, command_line: str, progress: Progress = None) -> Dict[str, Any]:
    """A study: out and files (the paths written); ``command_line`` is recorded in study.toml
    and report.md."""

def validate(settings: Settings, progress: Progress = None) -> Dict[str, Any]:
    """The engines compared: the deviations, tolerance, passed and failure."""

def bench(settings: Settings, progress: Progress = None) -> Tuple[str, List[str]]:
    """The benchmark: the rows as JSON and the printed table's lines."""

def resume(dir: PathLike, settings: Settings,
           progress: Progress = None) -> Tuple[str, Optional[Dict[str, Any]]]:
    """``dir`` continued: what it holds, "run", "study" or "sweep", and what was continued: a
    run's summary, a study's files (None for a complete run or study), a sweep's out and
    sweep_parts (also when it was complete)."""

def catalogue() -> str:
    """Systems, methods (with verdicts), presets and ensemble kinds, as JSON."""

def method_check(method: str) -> str:
    """``phaseflow method check METHOD --json``."""

def flags(subcommand: str) -> List[Tuple[str, bool, bool, str]]:
    """A subcommand's flags: (name, takes a value, may repeat, what the value is: "path",
    "bool" or "text")."""

def keywords(command: str) -> List[Tuple[str, str, str, bool]]:
    """The keywords an entry point reads (command: "run", "validate", "study", "bench",
    "order", "show-modified-hamiltonian", "merge", "plot", "resume"): (keyword, Python type,
    the help of its flag, whether it is required), in the order read."""

def order(settings: Settings, progress: Progress = None) -> Dict[str, Any]:
    """A convergence study: out and table (the printed table with the fitted orders)."""

def show_modified_hamiltonian(settings: Settings) -> str:
    """The modified Hamiltonian's correction terms as printed."""

def merge(shards: Sequence[PathLike], settings: Settings) -> str:
    """The shards merged: the merged folder."""

def plot(folder: PathLike, settings: Settings) -> List[str]:
    """A run's or study's figures drawn again: the files written."""
