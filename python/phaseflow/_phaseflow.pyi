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

import numpy as np

__version__: str

Progress = Optional[Callable[[int, int], Any]]
Settings = Mapping[str, Any]
PathLike = Union[str, "os.PathLike[str]"]

def run(settings: Settings, keep_final: bool = True, progress: Progress = None,
        initial: Optional[np.ndarray] = None) -> Dict[str, Any]:
    """A run (``phaseflow.run``'s options, set on the library's run builder; ``initial``'s
    points read from its buffer, a C-contiguous float32 or float64 array of shape (points,
    2d) in the machine's byte order): out, engine, method, accuracy, refine_capped_at,
    refine_stuck_at and final_state (a numpy array of shape (points, 2d), or None). Without
    ``out`` nothing is written, and the run's results come back too: stats (a list of
    (column, array) pairs), config (config.toml's text), states and state_steps, chaos and
    chaos_steps, section (arrays, or None). For a sweep (``sweep``) out and sweep_parts (the
    parts' folders, in sweep_index order)."""

class Ensemble:
    """An ensemble advanced step by step (``phaseflow.Ensemble``): the library's open run,
    its engine on a thread of its own. Every method releases the GIL while it works."""

    def __init__(self, settings: Settings, initial: Optional[np.ndarray] = None) -> None:
        """``phaseflow.run``'s options but those of a whole run; the initial set generated and
        measured (the statistics row at step 0)."""
    def advance(self, steps: int, progress: Progress = None) -> None:
        """Advance by ``steps``, measuring the snapshots passed (``snapshot_every``)."""
    def step(self) -> int: ...
    def time(self) -> float: ...
    def dt(self) -> float: ...
    def state(self) -> np.ndarray:
        """The points now, (points, 2d), in the run's precision (read back from a GPU)."""
    def energy(self) -> np.ndarray:
        """H of every point now (float64)."""
    def stats(self) -> List[Tuple[str, np.ndarray]]:
        """The statistics rows so far, as (column, array) pairs in stats.csv's order."""
    def measure(self) -> List[Tuple[str, np.ndarray]]:
        """The statistics row of the points now, as (column, one-element array) pairs."""
    def stops(self) -> Optional[np.ndarray]:
        """stops.npy's rows so far, (stopped, 4); None without stop conditions."""
    def params(self) -> Dict[str, float]: ...
    def set_params(self, params: Mapping[str, float]) -> None:
        """New parameter values from the next step on (H0 taken again)."""
    def save(self, path: PathLike, steps: int, force: bool = False) -> None:
        """A checkpoint folder that ``phaseflow resume`` continues to step ``steps``."""
    def engine(self) -> str: ...

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

def component_names(config_toml: str) -> List[str]:
    """The names of the state components of the system a config.toml text records."""

def study_runs(out: PathLike) -> List[str]:
    """The run folders of the study in ``out``, in the study's order."""

def cli(args: List[str]) -> int:
    """The command line itself in this process (``python -m phaseflow``): its exit status."""

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
