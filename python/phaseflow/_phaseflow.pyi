"""The compiled core of phaseflow: the command line's parser and pipelines.

``run`` takes the run's settings as keyword arguments and sets each on the library's run
builder; every other function takes one subcommand's arguments as the command line receives
them (the package's functions write them from keyword arguments). Each raises ValueError for
bad input (its options named as keyword arguments), RuntimeError for other failures and
KeyboardInterrupt when Ctrl-C stopped the work (after its checkpoint). The work runs with the
GIL released.
"""

from typing import Any, Callable, Dict, List, Optional, Tuple

__version__: str

Progress = Optional[Callable[[int, int], Any]]

def run(settings: Dict[str, Any], keep_final: bool = True,
        progress: Progress = None) -> Dict[str, Any]:
    """A run of ``settings`` (``phaseflow.run``'s keyword arguments, each set on the library's
    run builder): out, engine, method, accuracy, refine_capped_at,
    refine_stuck_at and final_state (a numpy array of shape (points, 2d), or None); for a
    sweep (``--sweep``) out and sweep_parts (the parts' folders, in sweep_index order)."""

def study(args: List[str], command_line: str, progress: Progress = None) -> Dict[str, Any]:
    """``phaseflow study ARGS``: out and files (the paths written); ``command_line`` is
    recorded in study.toml and report.md."""

def validate(args: List[str], progress: Progress = None) -> Dict[str, Any]:
    """``phaseflow validate ARGS``: the deviations, tolerance, passed and failure."""

def bench(args: List[str], progress: Progress = None) -> Tuple[str, List[str]]:
    """``phaseflow bench ARGS``: the rows as JSON and the printed table's lines."""

def resume(args: List[str], progress: Progress = None) -> Tuple[str, Optional[Dict[str, Any]]]:
    """``phaseflow resume DIR``: what DIR holds, "run", "study" or "sweep", and what was
    continued: a run's summary, a study's files (None for a complete run or study), a sweep's
    out and sweep_parts (also when it was complete)."""

def catalogue() -> str:
    """Systems, methods (with verdicts), presets and ensemble kinds, as JSON."""

def method_check(method: str) -> str:
    """``phaseflow method check METHOD --json``."""

def flags(subcommand: str) -> List[Tuple[str, bool, bool, str]]:
    """A subcommand's flags: (name, takes a value, may repeat, what the value is: "path",
    "bool" or "text")."""

def order(args: List[str], progress: Progress = None) -> Dict[str, Any]:
    """``phaseflow order ARGS``: out and table (the printed table with the fitted orders)."""

def show_modified_hamiltonian(args: List[str]) -> str:
    """``phaseflow show-modified-hamiltonian ARGS``: the correction terms as printed."""

def merge(args: List[str]) -> str:
    """``phaseflow merge SHARD_DIR... --out DIR``: the merged folder."""

def plot(args: List[str]) -> List[str]:
    """``phaseflow plot DIR [--out FIGDIR]``: the files written."""
