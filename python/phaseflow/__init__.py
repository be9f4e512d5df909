"""phaseflow from Python: symplectic integrators for large phase-space ensembles.

Every function here runs the command line's own code. :func:`run` sets each keyword argument
on the library's run builder (``RunConfig::builder``, checked once as the command line's
settings are); the other functions write their keyword arguments as the flags of the matching
``phaseflow`` subcommand (``snapshot_every=10`` is ``--snapshot-every 10``, ``tangent=True`` is
``--tangent``, ``params={"m": 2}`` is ``--param m=2``), parsed by the command line's parser.
Both run the same pipeline. Results come back as numpy arrays (and pandas DataFrames when
pandas is installed). See docs/python.md.

Bad arguments raise ``ValueError`` naming the keyword argument (``backend="warp"``); other
failures raise
``RuntimeError``. Ctrl-C raises ``KeyboardInterrupt`` once the run has written a checkpoint
(resumable with :func:`resume` when ``out`` was given).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _phaseflow

__version__: str = _phaseflow.__version__

__all__ = [
    "Run",
    "Sweep",
    "Order",
    "order",
    "show_modified_hamiltonian",
    "merge",
    "plot",
    "Study",
    "run",
    "study",
    "validate",
    "bench",
    "resume",
    "systems",
    "methods",
    "presets",
    "ensembles",
    "method_check",
]

PathLike = Union[str, "os.PathLike[str]"]

# Keyword arguments whose flag is not their name with "_" → "-".
_RENAMED = {"params": "param"}

_SCALARS = (str, int, float, np.integer, np.floating)


def _bad(keyword: str, value: Any, want: str) -> ValueError:
    """The error for a keyword argument phaseflow cannot take: it names the keyword."""
    return ValueError(f"{keyword}={value!r}: {want}")


def _text(keyword: str, value: Any, text: str) -> str:
    """``text`` as one argument of the command line: NUL cannot be passed to a program."""
    if "\0" in text:
        raise _bad(keyword, value, "contains a NUL character, which no option or path may hold")
    return text


def _switch(keyword: str, value: Any) -> bool:
    """A yes/no keyword argument: True or False only (the string "false" is not False)."""
    if not isinstance(value, (bool, np.bool_)):
        raise _bad(keyword, value, "give True or False")
    return bool(value)


def _path(keyword: str, value: Any) -> str:
    """A path keyword argument: a str or an os.PathLike naming one."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise _bad(keyword, value, "give a path: a str or a pathlib.Path")
    return _text(keyword, value, value)


def _scalar(keyword: str, value: Any) -> str:
    """One number or word as the command line writes it."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        # repr is the shortest text that reads back as the same double.
        return repr(float(value))
    if isinstance(value, os.PathLike):
        return _path(keyword, value)
    if isinstance(value, str):
        return _text(keyword, value, value)
    raise _bad(keyword, value, "give a number, a string, or a list or tuple of them")


def _value(keyword: str, value: Any) -> str:
    """A keyword argument's value as the command line writes it: a list's items joined by
    commas."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise _bad(keyword, value, "give a one-dimensional list of values")
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        items = [_scalar(keyword, v) for v in value]
        if any("," in item for item in items):
            raise _bad(keyword, value, "an item holds a comma, which separates the items")
        return ",".join(items)
    return _scalar(keyword, value)


def _plain(value: Any) -> Any:
    """A one-dimensional numpy array as the list of its values (``center=np.array([0.5, 0])``);
    any other value as it is, checked by the library's setter it is given to."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    return value


def _params(value: Any) -> List[str]:
    """``params={"m": 2}`` as the values of ``--param``: NAME=VALUE each."""
    if not isinstance(value, Mapping):
        return value
    for name in value:
        if not isinstance(name, str) or not name or "=" in name:
            raise _bad("params", value, f"the parameter name {name!r} is not a name")
    return [f"{name}={_scalar('params', v)}" for name, v in value.items()]


def _args(subcommand: str, kwargs: Mapping[str, Any]) -> List[str]:
    """The command line's arguments for ``kwargs``: each name is a flag of ``subcommand``,
    written ``--flag=VALUE`` so that a value starting with "-" (``dt=-1e-05``) is not taken
    for a flag."""
    known = {name: (takes, repeats, kind)
             for name, takes, repeats, kind in _phaseflow.flags(subcommand)}
    args: List[str] = []
    for keyword, value in kwargs.items():
        if value is None:
            continue
        flag = _RENAMED.get(keyword, keyword.replace("_", "-"))
        if flag not in known:
            raise _unknown(subcommand, keyword, known)
        takes, repeats, kind = known[flag]
        if kind == "path":
            value = _path(keyword, value)
        elif kind == "bool":
            value = _switch(keyword, value)
        if keyword == "params":
            value = _params(value)
        if not takes:
            # A switch: True sets it, False leaves it off.
            if _switch(keyword, value):
                args.append(f"--{flag}")
            continue
        if repeats and isinstance(value, (list, tuple)):
            args += [f"--{flag}={_scalar(keyword, v)}" for v in value]
        else:
            args.append(f"--{flag}={_value(keyword, value)}")
    return args


def _unknown(subcommand: str, keyword: str, known: Mapping[str, Any]) -> ValueError:
    """The error for a keyword that is no flag of ``subcommand``, with the nearest ones."""
    import difflib

    keywords = [next((k for k, f in _RENAMED.items() if f == flag), flag.replace("-", "_"))
                for flag in known]
    near = difflib.get_close_matches(keyword, keywords, n=3)
    hint = f"; did you mean {', '.join(k + '=' for k in near)}" if near else ""
    return ValueError(f"{keyword}=: phaseflow {subcommand} has no such option{hint} "
                      f"(the options are the flags of `phaseflow {subcommand} --help`)")


def _progress(enabled: bool, what: str) -> Tuple[Optional[Callable[[int, int], None]], Any]:
    """A callback drawing a tqdm bar of the run's steps (when tqdm is installed and asked for)."""
    if not _switch("progress", enabled):
        return None, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, None
    bar = tqdm(total=0, unit="step", desc=what)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.n = done
        bar.refresh()

    return update, bar


def _table(path: Path) -> Any:
    """A CSV file as a pandas DataFrame when pandas is installed, else a dict of numpy arrays
    (integer columns as int64, real columns as float64 with empty cells NaN, others str)."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        # Every number must read back as the double the file was written from: pandas 3 parses
        # so by default (and deprecates the option), older pandas with "round_trip".
        exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
        return pd.read_csv(path, **exact)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    table: Dict[str, np.ndarray] = {}
    for j, name in enumerate(header):
        cells = [r[j] for r in body]
        table[name] = _column(cells)
    return table


def _column(cells: List[str]) -> np.ndarray:
    try:
        return np.array([int(c) for c in cells], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells], dtype=np.float64)
    except ValueError:
        return np.array(cells, dtype=str)


def _read_toml(path: Path) -> Dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.9/3.10
        import tomli as tomllib
    with open(path, "rb") as f:
        return tomllib.load(f)


class Run:
    """A finished run: its statistics, saved states, final state and configuration.

    Attributes:
        stats: stats.csv, one row per snapshot (a pandas DataFrame when pandas is installed,
            else a dict of numpy arrays keyed by column).
        states: the saved snapshots (``save_states=True``, or a study's portraits), a dict from
            step to a numpy array of shape ``(points, 2d)`` (q1..qd, p1..pd), in the run's
            precision.
        final_state: the state after the last step, shape ``(points, 2d)``, in the run's
            precision (its buffer is the library's own: no copy).
        config: the resolved configuration (config.toml) as a dict.
        out: the run's folder when ``out`` was given, else None (the results were read from a
            temporary folder, removed when the Run is).
        engine: the engine that ran it, as the command line reports it.
        method: the method's name.
        accuracy: what ``reference`` and ``reverse`` found, a sentence each.
    """

    def __init__(self, folder: Path, summary: Mapping[str, Any], out: Optional[Path],
                 keep: Optional[tempfile.TemporaryDirectory] = None) -> None:
        self._folder = folder
        self._keep = keep
        self.out: Optional[Path] = out
        self.engine: str = summary.get("engine", "")
        self.method: str = summary.get("method", "")
        self.accuracy: List[str] = list(summary.get("accuracy", []))
        self._final: Optional[np.ndarray] = summary.get("final_state")
        self.stats: Any = _table(folder / "stats.csv")
        self.config: Dict[str, Any] = _read_toml(folder / "config.toml")
        self._states: Optional[Dict[int, np.ndarray]] = None

    @property
    def states(self) -> Dict[int, np.ndarray]:
        """The saved snapshots: {step: array of shape (points, 2d)} (empty when none were saved)."""
        if self._states is None:
            found = []
            folder = self._folder / "states"
            if folder.is_dir():
                for f in folder.iterdir():
                    m = re.fullmatch(r"step_(\d+)\.npy", f.name)
                    if m:
                        found.append((int(m.group(1)), f))
            self._states = {step: np.load(f) for step, f in sorted(found)}
        return self._states

    @property
    def chaos(self) -> Dict[int, np.ndarray]:
        """With ``chaos="megno,lyapunov"``: the per-point indicators, {step: array of shape
        (points, indicators)} in the order asked for (chaos/step_<k>.npy; empty without)."""
        found = []
        folder = self._folder / "chaos"
        if folder.is_dir():
            for f in folder.iterdir():
                m = re.fullmatch(r"step_(\d+)\.npy", f.name)
                if m:
                    found.append((int(m.group(1)), f))
        return {step: np.load(f) for step, f in sorted(found)}

    @property
    def section(self) -> Optional[np.ndarray]:
        """With ``section="q1=0"``: every crossing, one row each (point index, crossing number,
        time, the other coordinates: section.npy); None without a section."""
        path = self._folder / "section.npy"
        return np.load(path) if path.is_file() else None

    @property
    def final_state(self) -> Optional[np.ndarray]:
        """The state after the last step, shape (points, 2d); for a resumed run the last saved
        snapshot, or None when none was saved."""
        if self._final is None and self.states:
            return self.states[max(self.states)]
        return self._final

    def __repr__(self) -> str:
        where = f" in {self.out}" if self.out else ""
        return f"<phaseflow.Run {self.method} on {self.engine}{where}>"


class Sweep:
    """A finished parameter sweep (``sweep="NAME=LO:HI:N"`` or a list of them): one run per
    value.

    Attributes:
        stats: every part's stats.csv rows, after the columns ``sweep_index`` and one per swept
            parameter (DataFrame or dict of arrays, as ``Run.stats``).
        table: sweep.csv, one row per part: its values, folder and energy errors.
        parts: each part as a :class:`Run`, in sweep_index order.
        out: the sweep's folder when ``out`` was given, else None (a temporary folder).
    """

    def __init__(self, folder: Path, dirs: List[str], out: Optional[Path],
                 keep: Optional[tempfile.TemporaryDirectory] = None) -> None:
        self._keep = keep
        self.out: Optional[Path] = out
        self.stats: Any = _table(folder / "stats.csv")
        self.table: Any = _table(folder / "sweep.csv")
        self.parts: List[Run] = [Run(folder / d, {}, folder / d if out else None) for d in dirs]

    def __repr__(self) -> str:
        where = f" in {self.out}" if self.out else ""
        return f"<phaseflow.Sweep of {len(self.parts)} parts{where}>"


class Study:
    """A finished study.

    Attributes:
        summary: summary.csv, one row per method (DataFrame or dict of arrays, as ``Run.stats``).
        figures: the paths of the figures written (PNG and SVG).
        files: every file the study wrote (summary.csv, figures, report.md).
        report: the path of report.md.
        out: the study's folder.
    """

    def __init__(self, summary: Mapping[str, Any]) -> None:
        self.out: Path = Path(summary["out"])
        self.files: List[Path] = [Path(f) for f in summary["files"]]
        self.figures: List[Path] = [f for f in self.files if f.suffix in (".png", ".svg")]
        self.report: Path = self.out / "report.md"
        self.summary: Any = _table(self.out / "summary.csv")

    def run(self, method: str) -> Run:
        """One method's run of the study, read back from its folder."""
        folder = self.out / method
        if not (folder / "stats.csv").is_file():
            raise ValueError(f"{self.out}: no run of method {method!r} in this study")
        return Run(folder, {"method": method}, folder)

    def __repr__(self) -> str:
        return f"<phaseflow.Study in {self.out}: {len(self.figures)} figures>"


def _initial_file(initial: Any, folder: Path) -> Path:
    """An initial ensemble given as an array, written as the .npy file --input reads: float32
    or float64 values in the machine's byte order, C order (a big-endian or strided array is
    converted, its values unchanged)."""
    try:
        arr = np.asarray(initial)
    except (TypeError, ValueError) as e:
        raise ValueError(f"initial=: not an array of numbers ({e})") from None
    if arr.dtype.kind != "f" or arr.dtype.itemsize not in (4, 8):
        raise ValueError(
            f"initial=: the array's dtype is {arr.dtype}; give float32 or float64 values")
    if arr.ndim != 2:
        raise ValueError(
            f"initial=: the array has shape {arr.shape}; give shape (points, 2d): q1..qd, p1..pd per row")
    native = arr.astype(arr.dtype.newbyteorder("="), order="C", copy=False)
    path = folder / "initial.npy"
    np.save(path, native)
    return path


def run(*, out: Optional[PathLike] = None, initial: Any = None, progress: bool = False,
        verbose: bool = False, **flags: Any) -> Union[Run, "Sweep"]:
    """Advance an ensemble, as ``phaseflow run``, and return the :class:`Run` (a
    :class:`Sweep` when ``sweep`` is given).

    Args:
        out: the folder for the run's files (``--out``); None writes them to a temporary folder
            that lives as long as the returned Run.
        initial: the initial ensemble as an array of shape (points, 2d), float32 or float64
            (``--ensemble file --input``); with ``loop=True`` its rows are a closed loop's
            nodes. With ``out`` given the array is kept beside the run (``resume`` reads it).
        progress: draw a tqdm progress bar (when tqdm is installed).
        verbose: let the library's notes through to stderr (off: ``--quiet``).
        **flags: the run's settings, set on the library's run builder: the options of
            ``phaseflow run``, named with ``_`` for ``-``, e.g.
            ``system="pendulum"``, ``hamiltonian="p^2/2 + 1 - cos(q)"``, ``method="verlet"``,
            ``ensemble="disk"``, ``points=10000``, ``dt=0.01``, ``steps=1000``,
            ``backend="cpu"``, ``precision="f32"``, ``params={"m": 2}``, ``tangent=True``,
            ``reference="rk4/16"``, ``reverse=True``, ``save_states=True``,
            ``chaos="megno,lyapunov"`` (``Run.chaos``), ``section="q1=0"`` (``Run.section``),
            ``sweep="g=1:2:3"`` or a list of them (a :class:`Sweep`).

    Raises:
        ValueError: bad arguments (naming the keyword).
        RuntimeError: a failure while running.
        KeyboardInterrupt: Ctrl-C, after the run wrote its checkpoint.
    """
    scratch = tempfile.TemporaryDirectory(prefix="phaseflow-")
    try:
        folder = Path(_path("out", out)) if out is not None else Path(scratch.name) / "run"
        if initial is not None:
            if flags.get("ensemble", "file") != "file" or "input" in flags:
                raise ValueError(
                    "initial=: give either the array or ensemble=/input=, not both")
            keep = Path(tempfile.mkdtemp(prefix="phaseflow-initial-")) if out is not None \
                else Path(scratch.name)
            flags = dict(flags, ensemble="file", input=_initial_file(initial, keep))
        settings = {keyword: _plain(value) for keyword, value in flags.items()}
        settings.update(out=folder, quiet=not _switch("verbose", verbose))
        callback, bar = _progress(progress, "phaseflow run")
        try:
            summary = _phaseflow.run(settings, True, callback)
        finally:
            if bar is not None:
                bar.close()
        keep_scratch = scratch if out is None else None
        if "sweep_parts" in summary:
            result: Union[Run, "Sweep"] = Sweep(folder, list(summary["sweep_parts"]),
                                               Path(out) if out is not None else None,
                                               keep_scratch)
        else:
            result = Run(folder, summary, Path(out) if out is not None else None, keep_scratch)
    except BaseException:
        scratch.cleanup()
        raise
    if out is not None:
        scratch.cleanup()
    return result


def study(*, out: PathLike, preset: Optional[str] = None,
          methods: Union[None, str, Sequence[str]] = None, progress: bool = False,
          verbose: bool = False, **flags: Any) -> Study:
    """Evolve one initial set with several methods, as ``phaseflow study``.

    Args:
        out: the study's folder (``--out``, required as on the command line).
        preset: a preset study (:func:`presets` lists them).
        methods: the methods of a custom study, a list or a comma-separated string.
        progress: draw a tqdm progress bar of each run (when tqdm is installed).
        verbose: let the library's notes through to stderr.
        **flags: every other flag of ``phaseflow study`` (``system``, ``dt``, ``steps``,
            ``ensemble``, ``portraits``, ``t_end``, ``force``...).

    Returns:
        The :class:`Study`: its summary table, figure paths and report.
    """
    args = _args("study", dict(flags, out=out, preset=preset, methods=methods,
                               quiet=not _switch("verbose", verbose)))
    command_line = "phaseflow study " + " ".join(shlex.quote(a) for a in args)
    callback, bar = _progress(progress, "phaseflow study")
    try:
        return Study(_phaseflow.study(args, command_line, callback))
    finally:
        if bar is not None:
            bar.close()


class Order:
    """A finished convergence study (``phaseflow order``).

    Attributes:
        table: order.csv, one row per step size: the global and energy errors and the
            unconverged points (DataFrame or dict of arrays, as ``Run.stats``).
        printed: the table with the fitted orders, as the command line prints it.
        figures: order.png and order.svg.
        out: the study's folder.
    """

    def __init__(self, summary: Mapping[str, Any]) -> None:
        self.out: Path = Path(summary["out"])
        self.printed: str = summary["table"]
        self.table: Any = _table(self.out / "order.csv")
        self.figures: List[Path] = [self.out / "order.png", self.out / "order.svg"]

    def __repr__(self) -> str:
        return f"<phaseflow.Order in {self.out}>"


def order(*, out: PathLike, progress: bool = False, verbose: bool = False,
          **flags: Any) -> Order:
    """Measure a method's order of convergence, as ``phaseflow order``: the global and energy
    errors at h0, h0/2, ... against a reference solution, with the fitted orders.

    Args:
        out: the folder for order.csv and the figure (``--out``, required).
        progress: draw a tqdm progress bar (when tqdm is installed).
        verbose: let the library's notes through to stderr.
        **flags: every other flag of ``phaseflow order`` (``system``, ``method``, ``dt``,
            ``steps``, ``halvings``, ``reference``...).
    """
    args = _args("order", dict(flags, out=out, quiet=not _switch("verbose", verbose)))
    callback, bar = _progress(progress, "phaseflow order")
    try:
        return Order(_phaseflow.order(args, callback))
    finally:
        if bar is not None:
            bar.close()


def show_modified_hamiltonian(**flags: Any) -> str:
    """The modified Hamiltonian's correction terms as formulas, as
    ``phaseflow show-modified-hamiltonian`` prints them (``system`` or ``hamiltonian``,
    ``method``, ``dt``, ``order``)."""
    return _phaseflow.show_modified_hamiltonian(_args("show-modified-hamiltonian", flags))


def merge(shards: Sequence[PathLike], *, out: PathLike, force: bool = False,
          verbose: bool = False) -> Run:
    """Merge the folders of a run split with ``shard="K/N"`` into one, as ``phaseflow merge``,
    and return it as a :class:`Run` (statistics bit for bit those of the unsplit run)."""
    if isinstance(shards, (str, bytes, os.PathLike)) or not isinstance(shards, Sequence):
        raise _bad("shards", shards, "give a list of the shards' folders")
    args = _args("merge", dict(out=out, force=force, quiet=not _switch("verbose", verbose)))
    args += ["--", *(_path("shards", s) for s in shards)]
    folder = Path(_phaseflow.merge(args))
    return Run(folder, {}, folder)


def plot(folder: PathLike, *, out: Optional[PathLike] = None,
         verbose: bool = False) -> List[Path]:
    """Draw a run's or a study's figures and report again from its files, as
    ``phaseflow plot`` (into ``out`` when given, else into the folder); the files written."""
    args = _args("plot", dict(out=out, quiet=not _switch("verbose", verbose)))
    args += ["--", _path("folder", folder)]
    return [Path(f) for f in _phaseflow.plot(args)]


def validate(*, progress: bool = False, verbose: bool = False, **flags: Any) -> Dict[str, Any]:
    """Run the GPU and CPU engines side by side, as ``phaseflow validate``.

    Returns a dict: max_abs_dev, max_rel_dev, tangent_max_rel_dev, chaos_max_rel_dev
    (with ``chaos``), section_max_rel_dev and section_count_mismatch (with ``section``),
    finite_mismatch, both_nonfinite, compared, gpu, tolerance, passed and failure (why it
    failed, or None).
    """
    args = _args("validate", dict(flags, quiet=not _switch("verbose", verbose)))
    callback, bar = _progress(progress, "phaseflow validate")
    try:
        return _phaseflow.validate(args, callback)
    finally:
        if bar is not None:
            bar.close()


def bench(*, print_table: bool = False, **flags: Any) -> Any:
    """Time the reference loop and the engines, as ``phaseflow bench``.

    Returns the table's rows (the columns of ``--csv``) as a DataFrame when pandas is
    installed, else a list of dicts; ``print_table=True`` also prints the command line's table.
    """
    rows_json, lines = _phaseflow.bench(_args("bench", flags), None)
    if _switch("print_table", print_table):
        print("\n".join(lines))
    rows = json.loads(rows_json)
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows)


def resume(out: PathLike, *, progress: bool = False,
           verbose: bool = False) -> Union[Run, Study, Sweep]:
    """Continue an interrupted run, study or sweep from its checkpoint, as ``phaseflow
    resume``; for a complete folder, read it back."""
    args = _args("resume", {"quiet": not _switch("verbose", verbose)}) + ["--", _path("out", out)]
    callback, bar = _progress(progress, "phaseflow resume")
    try:
        kind, summary = _phaseflow.resume(args, callback)
    finally:
        if bar is not None:
            bar.close()
    folder = Path(out)
    if kind == "sweep":
        return Sweep(folder, list(summary["sweep_parts"]), folder)
    if kind == "study":
        files = summary["files"] if summary else [str(f) for f in folder.rglob("*")
                                                   if f.suffix in (".png", ".svg", ".csv", ".md")]
        return Study({"out": str(folder), "files": files})
    return Run(folder, summary or {}, folder)


_CATALOGUE: Optional[Dict[str, Any]] = None


def _catalogue() -> Dict[str, Any]:
    global _CATALOGUE
    if _CATALOGUE is None:
        _CATALOGUE = json.loads(_phaseflow.catalogue())
    return _CATALOGUE


def systems() -> List[Dict[str, Any]]:
    """The built-in systems: name, summary, separable and params (name, default, meaning)."""
    return _catalogue()["systems"]


def methods() -> List[Dict[str, Any]]:
    """The built-in methods: name, summary and verdicts (``phaseflow method check --json``:
    order, symplectic, symmetric, stability interval...)."""
    return _catalogue()["methods"]


def presets() -> List[Dict[str, Any]]:
    """The preset studies: name and summary."""
    return _catalogue()["presets"]


def ensembles() -> List[Dict[str, Any]]:
    """The ensemble kinds: name and summary."""
    return _catalogue()["ensembles"]


def method_check(method: PathLike) -> Dict[str, Any]:
    """A method's verdicts by name or method file, as ``phaseflow method check --json``."""
    if not isinstance(method, (str, os.PathLike)):
        raise _bad("method", method, "give a method's name or a method file's path")
    return json.loads(_phaseflow.method_check(_path("method", method)))
