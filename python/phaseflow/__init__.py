"""phaseflow from Python: symplectic integrators for large phase-space ensembles.

Every function here runs the library's own pipeline: its keyword arguments are read by kind
(a number, a whole number, a switch, a path, one of a list of names...) into the settings the
command line's flags fill too (for :func:`run`, the library's run builder
``RunConfig::builder``), checked once as the command line's are. The signatures list every
option of the library (``help(phaseflow.run)`` says what each does); they are written from
the library's description of each entry point and tested against it. Results come back as
numpy arrays (tables as a :class:`Table` of columns, ``.to_pandas()`` for a DataFrame). See
docs/python.md.

Bad arguments raise ``ValueError`` naming the keyword argument (``backend="warp"``); other
failures raise ``RuntimeError``. Ctrl-C raises ``KeyboardInterrupt`` once the run has written
a checkpoint (resumable with :func:`resume` when ``out`` was given).
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path
from typing import (Any, Callable, Dict, Iterator, List, Literal, Mapping, MutableMapping,
                    Optional, Sequence, Tuple, TypeVar, Union)

import numpy as np

from . import _phaseflow, _signature

__version__: str = _phaseflow.__version__

__all__ = [
    "Run",
    "Ensemble",
    "Table",
    "Sweep",
    "sweep",
    "Order",
    "order",
    "show_modified_hamiltonian",
    "merge",
    "open_run",
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

def _bad(keyword: str, value: Any, want: str) -> ValueError:
    """The error for a keyword argument phaseflow cannot take: it names the keyword."""
    return ValueError(f"{keyword}={value!r}: {want}")


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
    if "\0" in value:
        raise _bad(keyword, value, "contains a NUL character, which no path may hold")
    return value


@functools.lru_cache(maxsize=None)
def _keywords(function: str) -> Tuple[str, ...]:
    return tuple(k for k, _, _, _ in _signature.options(function))


def _settings(function: str, scope: Mapping[str, Any], verbose: Any) -> Dict[str, Any]:
    """The options of ``function`` given in ``scope`` (its parameters; None: not given), a
    one-dimensional array as the list of its values, and ``quiet`` from ``verbose``."""
    settings = {}
    for keyword in _keywords(function):
        value = scope[keyword]
        if value is not None:
            if isinstance(value, np.ndarray) and value.ndim == 1:
                value = value.tolist()
            settings[keyword] = value
    settings["quiet"] = not _switch("verbose", verbose)
    return settings


_Function = TypeVar("_Function", bound=Callable[..., Any])


def _documented(function: _Function) -> _Function:
    """``function`` with its options' help (the library's) after its docstring."""
    function.__doc__ = (function.__doc__ or "") + _signature.doc(function.__name__)
    return function


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


class Table:
    """A CSV file's columns as numpy arrays, whatever else is installed: whole-number columns
    int64, real ones float64 (an empty cell NaN), others str; every number reads back as the
    double it was written from.

    ``table["col"]`` is a column, ``table.keys()`` the names in file order, ``len(table)``
    the rows; :meth:`to_numpy` one structured array, :meth:`to_pandas` a DataFrame.
    """

    def __init__(self, columns: Dict[str, np.ndarray]) -> None:
        self._columns = columns

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name]

    def __contains__(self, name: object) -> bool:
        return name in self._columns

    def __len__(self) -> int:
        return len(next(iter(self._columns.values()))) if self._columns else 0

    def keys(self) -> List[str]:
        """The columns' names, in the file's order."""
        return list(self._columns)

    def items(self) -> List[Tuple[str, np.ndarray]]:
        return list(self._columns.items())

    def to_numpy(self) -> np.ndarray:
        """One structured array, a field per column."""
        return np.rec.fromarrays(list(self._columns.values()), names=self.keys()).view(np.ndarray)

    def to_pandas(self) -> Any:
        """A pandas DataFrame of the columns (pandas must be installed)."""
        import pandas as pd
        return pd.DataFrame(self._columns)

    def __repr__(self) -> str:
        return f"<phaseflow.Table of {len(self)} rows: {', '.join(self.keys())}>"


def _table(path: Path) -> Table:
    """A CSV file as a :class:`Table`."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return Table({name: _column([r[j] for r in body]) for j, name in enumerate(header)})


def _column(cells: List[str]) -> np.ndarray:
    try:
        return np.array([int(c) for c in cells], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells], dtype=np.float64)
    except ValueError:
        return np.array(cells, dtype=str)


def _toml(text: str) -> Dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.9/3.10
        import tomli as tomllib
    return tomllib.loads(text)


def _read_toml(path: Path) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return _toml(f.read())


class Run:
    """A finished run: its statistics, saved states, final state and configuration.

    Attributes:
        stats: stats.csv, one row per snapshot, as a :class:`Table` (``.to_pandas()`` for a
            DataFrame).
        states: the saved snapshots (``save_states=True``, or a study's portraits) as one
            array of shape ``(snapshots, points, 2d)`` (q1..qd, p1..pd), in the run's
            precision; ``steps`` and ``t`` their steps and times, ``q`` and ``p`` views of
            its halves.
        final_state: the state after the last step, shape ``(points, 2d)``, in the run's
            precision (its buffer is the library's own: no copy).
        config: the resolved configuration (config.toml) as a dict.
        out: the run's folder when ``out`` was given, else None: the run wrote no file, and
            every result came back from the library in memory (the arrays are the library's
            own buffers, handed to numpy without a copy).
        engine: the engine that ran it, as the command line reports it.
        method: the method's name.
        accuracy: what ``reference`` and ``reverse`` found, a sentence each.
    """

    def __init__(self, folder: Optional[Path], summary: Mapping[str, Any],
                 out: Optional[Path]) -> None:
        self._folder = folder
        self.out: Optional[Path] = out
        self.engine: str = summary.get("engine", "")
        self.method: str = summary.get("method", "")
        self.accuracy: List[str] = list(summary.get("accuracy", []))
        self._final: Optional[np.ndarray] = summary.get("final_state")
        self._states: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self._chaos: Optional[Dict[int, np.ndarray]] = None
        self._section: Optional[np.ndarray] = None
        self._stops: Optional[np.ndarray] = None
        self._frequencies: Optional[np.ndarray] = None
        self._components: Optional[List[str]] = None
        if folder is not None:
            self.stats: Table = _table(folder / "stats.csv")
            self._config_text: str = (folder / "config.toml").read_text(encoding="utf-8")
            self.config: Dict[str, Any] = _toml(self._config_text)
            return
        # A run without a folder: its results as the library kept them.
        self.stats = Table(dict(summary["stats"]))
        self._config_text = summary["config"]
        self.config = _toml(self._config_text)
        states = summary["states"]
        self._states = (summary["state_steps"],
                        states if states is not None else np.empty((0, 0, 0)))
        chaos = summary["chaos"]
        self._chaos = {} if chaos is None else {
            int(step): block for step, block in zip(summary["chaos_steps"], chaos)}
        self._section = summary["section"]
        self._stops = summary["stops"]
        self._frequencies = summary["frequencies"]

    def _snapshots(self) -> Tuple[np.ndarray, np.ndarray]:
        if self._states is None:
            assert self._folder is not None
            store = self._store()
            if store is not None and "state" in store:
                array = store["state"]
                self._states = (np.array(array.attrs["steps"], dtype=np.int64), array[...])
                return self._states
            found = _numbered(self._folder / "states")
            steps = np.array([step for step, _ in found], dtype=np.int64)
            if found:
                states = np.stack([np.load(f) for _, f in found])
            else:
                states = np.empty((0, 0, 0))
            self._states = (steps, states)
        return self._states

    def _store(self) -> Any:
        """The run's Zarr store (``store="zarr"``) as a zarr group, or None without one (the
        zarr package is needed to read one)."""
        if self._folder is None or not (self._folder / "states.zarr").is_dir():
            return None
        import zarr

        return zarr.open_group(str(self._folder / "states.zarr"), mode="r")

    @property
    def states(self) -> np.ndarray:
        """The saved snapshots, shape (snapshots, points, 2d); (0, 0, 0) when none were saved."""
        return self._snapshots()[1]

    @property
    def steps(self) -> np.ndarray:
        """The step of each saved snapshot (int64)."""
        return self._snapshots()[0]

    @property
    def t(self) -> np.ndarray:
        """The time of each saved snapshot: its step times the step size."""
        return self.steps * float(self.config["dt"])

    @property
    def q(self) -> np.ndarray:
        """The positions of the saved snapshots, a view of ``states``: (snapshots, points, d)."""
        states = self.states
        return states[..., : states.shape[-1] // 2]

    @property
    def p(self) -> np.ndarray:
        """The momenta of the saved snapshots, a view of ``states``: (snapshots, points, d)."""
        states = self.states
        return states[..., states.shape[-1] // 2:]

    @property
    def chaos(self) -> Dict[int, np.ndarray]:
        """With ``chaos="megno,lyapunov"``: the per-point indicators, {step: array of shape
        (points, indicators)} in the order asked for (chaos/step_<k>.npy; empty without)."""
        if self._chaos is None:
            assert self._folder is not None
            self._chaos = {step: np.load(f) for step, f in _numbered(self._folder / "chaos")}
            store = self._store()
            names = [n for n in (store.array_keys() if store is not None else [])
                     if n.startswith("chaos_") and n != "chaos_time"]
            if names:
                # The store's one array per indicator, in the order asked for.
                order = [c for name in str(self.config.get("chaos", "")).split(",")
                         for c in (["sali", "sali_min"] if name == "sali" else [name])]
                arrays = [store[f"chaos_{c}"] for c in order]
                steps = arrays[0].attrs["steps"]
                values = np.stack([a[...] for a in arrays], axis=-1)
                self._chaos = {int(step): values[i] for i, step in enumerate(steps)}
        return self._chaos

    def _table(self, name: str) -> Optional[np.ndarray]:
        """The run's ``NAME.npy``, or the store's array ``NAME`` (``store="zarr"``); None
        without either."""
        assert self._folder is not None
        path = self._folder / f"{name}.npy"
        if path.is_file():
            return np.load(path)
        if (self._folder / "states.zarr" / name / "zarr.json").is_file():
            return np.asarray(self._store()[name][...], dtype=np.float64)
        return None

    @property
    def section(self) -> Optional[np.ndarray]:
        """With ``section="q1=0"``: every crossing, one row each (point index, crossing number,
        time, the other coordinates: section.npy, or the store's ``section``); None without a
        section."""
        if self._folder is None:
            return self._section
        return self._table("section")

    @property
    def stops(self) -> Optional[np.ndarray]:
        """With ``stop_when=``: one row per stopped point (point index, step, time, index of
        the condition that stopped it, from 0), float64, shape (stopped, 4) (stops.npy, or
        the store's ``stops``);
        None without stop conditions."""
        if self._folder is None:
            return self._stops
        return self._table("stops")

    @property
    def frequencies(self) -> Optional[np.ndarray]:
        """With ``frequencies="q1,q2"``: per point, for each signal its frequency over the run,
        over the first and the second half (rad per time unit) and the diffusion index
        log10|ν_first − ν_second|, float64, shape (points, 4 × signals), columns named by
        :attr:`frequency_columns` (frequencies.npy; NaN for a point without a value); None
        without a frequency analysis."""
        if self._folder is None:
            return self._frequencies
        path = self._folder / "frequencies.npy"
        return np.load(path) if path.is_file() else None

    @property
    def frequency_columns(self) -> List[str]:
        """The names of :attr:`frequencies`' columns: per signal S, ``nu_S``, ``nu_S_first``,
        ``nu_S_second``, ``diffusion_S`` (empty without a frequency analysis)."""
        signals = [x.strip() for x in str(self.config.get("frequencies", "")).split(",")
                   if x.strip()]
        return [f"{prefix}{s}{suffix}" for s in signals
                for prefix, suffix in (("nu_", ""), ("nu_", "_first"), ("nu_", "_second"),
                                       ("diffusion_", ""))]

    @property
    def final_state(self) -> Optional[np.ndarray]:
        """The state after the last step, shape (points, 2d); for a resumed run the last saved
        snapshot, or None when none was saved."""
        if self._final is None and len(self.states):
            return self.states[-1]
        return self._final

    def to_xarray(self) -> Any:
        """The run as an ``xarray.Dataset`` (xarray must be installed): the statistics as time
        series over ``time`` (stats.csv's ``t``); the saved states as ``state`` over
        (``state_time``, ``point``, ``coordinate``), the coordinates named by the system
        (:attr:`components`: ``θ``, ``p_θ`` for the pendulum; q1..qd, p1..pd for a formula
        without ``coordinates``); the chaos indicators as ``chaos_<name>`` over
        (``chaos_time``, ``point``); the section's crossings as ``section`` over (``crossing``,
        ``column``), the columns named ``point``, ``crossing``, ``t`` and the components but the
        section's own; the frequency analysis as ``frequencies`` over (``point``,
        ``frequency_column``); the stopped points (``stop_when``) as ``stops`` over (``stopped``,
        ``stop_column``: ``point``, ``step``, ``t``, ``condition``); the configuration's values
        as attributes."""
        import xarray as xr

        data: Dict[str, Any] = {}
        coords: Dict[str, Any] = {"time": np.asarray(self.stats["t"])}
        for name in self.stats.keys():
            if name != "t":
                data[name] = ("time", self.stats[name])
        if len(self.states):
            coords.update(state_time=self.t, coordinate=self.components,
                          point=np.arange(self.states.shape[1]))
            data["state"] = (("state_time", "point", "coordinate"), self.states)
        chaos = self.chaos
        if chaos:
            # One column per indicator; SALI has two (its value and its least so far).
            indicators = [c for name in str(self.config.get("chaos", "")).split(",")
                          for c in (["sali", "sali_min"] if name == "sali" else [name])]
            stacked = np.stack(list(chaos.values()))
            coords["chaos_time"] = np.array(list(chaos)) * float(self.config["dt"])
            coords["point"] = np.arange(stacked.shape[1])
            for j, name in enumerate(indicators):
                data[f"chaos_{name}"] = (("chaos_time", "point"), stacked[..., j])
        section = self.section
        if section is not None:
            # Its columns: point, crossing, t, then every component but the section's own
            # (the section names it by number: q1..qd, p1..pd).
            fixed = str(self.config.get("section", "")).split("=")[0].strip()
            d = len(self.components) // 2
            numbered = [f"q{i + 1}" for i in range(d)] + [f"p{i + 1}" for i in range(d)]
            kept = [name for name, number in zip(self.components, numbered) if number != fixed]
            coords["column"] = ["point", "crossing", "t"] + kept
            coords["crossing"] = np.arange(len(section))
            data["section"] = (("crossing", "column"), section)
        frequencies = self.frequencies
        if frequencies is not None:
            coords["frequency_column"] = self.frequency_columns
            coords["point"] = np.arange(frequencies.shape[0])
            data["frequencies"] = (("point", "frequency_column"), frequencies)
        stops = self.stops
        if stops is not None:
            coords["stop_column"] = ["point", "step", "t", "condition"]
            data["stops"] = (("stopped", "stop_column"), stops)
        attrs = {k: v for k, v in self.config.items() if isinstance(v, (str, int, float, bool))}
        return xr.Dataset(data, coords=coords, attrs=attrs)

    @property
    def components(self) -> List[str]:
        """The names of the state's 2d components, positions then momenta, as the system names
        them: ``["θ", "p_θ"]`` for the pendulum, ``["x", "y", "p_x", "p_y"]`` for Hénon–Heiles,
        a system file's ``coordinates`` with ``p_`` before each for the momenta, else
        q1..qd, p1..pd (a variational system's p slots hold velocities: ``v_θ``)."""
        if self._components is None:
            self._components = list(_phaseflow.component_names(self._config_text))
        return self._components

    def __repr__(self) -> str:
        where = f" in {self.out}" if self.out else ""
        return f"<phaseflow.Run {self.method} on {self.engine}{where}>"


def _stack(datasets: List[Any], dim: str) -> Any:
    """Datasets stacked along a new dimension ``dim``: their coordinates joined (a time one
    lacks is NaN), every variable given the new dimension, the attributes they agree on kept."""
    import xarray as xr

    return xr.concat(datasets, dim=dim, data_vars="all", coords="different", compat="equals", join="outer",
                     combine_attrs="drop_conflicts", fill_value=np.nan)


def _numbered(folder: Path) -> List[Tuple[int, Path]]:
    """The files step_<k>.npy of ``folder``, by step (none when there is no folder)."""
    found = []
    if folder.is_dir():
        for f in folder.iterdir():
            m = re.fullmatch(r"step_(\d+)\.npy", f.name)
            if m:
                found.append((int(m.group(1)), f))
    return sorted(found)


class Sweep:
    """A finished parameter sweep (``sweep="NAME=LO:HI:N"`` or a list of them): one run per
    value.

    Attributes:
        stats: every part's stats.csv rows, after the columns ``sweep_index`` and one per swept
            parameter (a :class:`Table`, as ``Run.stats``).
        table: sweep.csv, one row per part: its values, folder and energy errors (a
            :class:`Table`).
        parts: each part as a :class:`Run`, in sweep_index order.
        out: the sweep's folder when ``out`` was given, else None (a temporary folder).
    """

    def __init__(self, folder: Path, dirs: List[str], out: Optional[Path],
                 keep: Optional[tempfile.TemporaryDirectory] = None) -> None:
        self._keep = keep
        self.out: Optional[Path] = out
        self.stats: Table = _table(folder / "stats.csv")
        self.table: Table = _table(folder / "sweep.csv")
        self.parts: List[Run] = [Run(folder / d, {}, folder / d if out else None) for d in dirs]

    @property
    def parameters(self) -> List[str]:
        """The swept parameters' names, in the order of ``sweep=``."""
        names = self.table.keys()
        return names[names.index("sweep_index") + 1: names.index("dir")]

    def to_xarray(self) -> Any:
        """The sweep as one ``xarray.Dataset``: every part's :meth:`Run.to_xarray` stacked
        along a dimension ``part`` (its ``sweep_index``), with each swept parameter's value as
        a coordinate over ``part``; variables a part lacks (or times it does not reach) are
        NaN; attributes the parts share are kept."""
        stacked = _stack([part.to_xarray() for part in self.parts], "part")
        index = np.asarray(self.table["sweep_index"])
        extra = {name: ("part", np.asarray(self.table[name])) for name in self.parameters}
        return stacked.assign_coords(part=index, **extra)

    def __repr__(self) -> str:
        where = f" in {self.out}" if self.out else ""
        return f"<phaseflow.Sweep of {len(self.parts)} parts{where}>"


class Study:
    """A finished study.

    Attributes:
        summary: summary.csv, one row per method (a :class:`Table`, as ``Run.stats``).
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
        self.summary: Table = _table(self.out / "summary.csv")

    @property
    def runs(self) -> List[str]:
        """The run folders (under ``out``), in the study's order: a method's name, or a
        run's label where the study varies an energy or a parameter."""
        return list(_phaseflow.study_runs(self.out))

    def to_xarray(self) -> Any:
        """The study as one ``xarray.Dataset``: every run's :meth:`Run.to_xarray` stacked along
        a dimension ``run`` (its folder name), with each run's ``method``, ``system`` and
        ``dt`` as coordinates over ``run``; times or variables a run lacks are NaN (methods
        of a study may take different steps); attributes the runs share are kept."""
        names = self.runs
        runs = [Run(self.out / name, {}, self.out / name) for name in names]
        stacked = _stack([r.to_xarray() for r in runs], "run")
        return stacked.assign_coords(
            run=names,
            method=("run", [str(r.config.get("method", "")) for r in runs]),
            system=("run", [str(r.config.get("system", "")) for r in runs]),
            dt=("run", [float(r.config["dt"]) for r in runs]))

    def run(self, method: str) -> Run:
        """One method's run of the study, read back from its folder."""
        folder = self.out / method
        if not (folder / "stats.csv").is_file():
            raise ValueError(f"{self.out}: no run of method {method!r} in this study")
        return Run(folder, {"method": method}, folder)

    def __repr__(self) -> str:
        return f"<phaseflow.Study in {self.out}: {len(self.figures)} figures>"


def _initial_array(initial: Any, settings: Mapping[str, Any]) -> np.ndarray:
    """``initial=`` as the library reads it, from the array's own buffer: float32 or float64
    values of shape (points, 2d), C order, in the machine's byte order. Such an array is
    passed as it is; another layout or byte order is converted once, its values unchanged."""
    if settings.get("ensemble", "file") != "file" or "input" in settings:
        raise ValueError("initial=: give either the array or ensemble=/input=, not both")
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
    return np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))


def _with_progress(progress: bool, what: str, work: Callable[[Any], Any]) -> Any:
    """``work(callback)``, with a tqdm bar of the steps drawn by ``callback`` when asked for."""
    callback, bar = _progress(progress, what)
    try:
        return work(callback)
    finally:
        if bar is not None:
            bar.close()


@_documented
def run(
    *,
    # options of run
    config: Optional[PathLike] = None,
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    system_file: Optional[PathLike] = None,
    dof: Optional[int] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    params: Optional[Mapping[str, float]] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    ensemble: Optional[str] = None,
    points: Optional[int] = None,
    center: Optional[Sequence[float]] = None,
    radius: Optional[float] = None,
    lo: Optional[Sequence[float]] = None,
    hi: Optional[Sequence[float]] = None,
    energy: Optional[float] = None,
    grid_axes: Optional[Union[str, Sequence[str]]] = None,
    sigma: Optional[float] = None,
    seed: Optional[int] = None,
    input: Optional[PathLike] = None,
    loop: Optional[bool] = None,
    positions: Optional[bool] = None,
    raw_start: Optional[bool] = None,
    dt: Optional[float] = None,
    steps: Optional[int] = None,
    snapshot_every: Optional[int] = None,
    backend: Optional[Literal["auto", "gpu", "cpu"]] = None,
    precision: Optional[Literal["f32", "f64"]] = None,
    compensated: Optional[bool] = None,
    tangent: Optional[bool] = None,
    no_refine: Optional[bool] = None,
    refine_tol: Optional[float] = None,
    max_nodes: Optional[int] = None,
    implicit_tol: Optional[float] = None,
    implicit_max_iter: Optional[int] = None,
    save_states: Optional[bool] = None,
    store: Optional[Literal["npy", "zarr"]] = None,
    checkpoint_every: Optional[int] = None,
    shard: Optional[str] = None,
    devices: Optional[Union[str, Sequence[str]]] = None,
    modified_hamiltonian: Optional[int] = None,
    chaos: Optional[Union[str, Sequence[str]]] = None,
    deviation: Optional[Union[str, Sequence[str]]] = None,
    deviation_metric: Optional[Union[str, Sequence[str]]] = None,
    reference: Optional[str] = None,
    reverse: Optional[bool] = None,
    section: Optional[str] = None,
    section_max: Optional[int] = None,
    frequencies: Optional[Union[str, Sequence[str]]] = None,
    frequency_stride: Optional[int] = None,
    stop_when: Optional[Union[str, Sequence[str]]] = None,
    out: Optional[PathLike] = None,
    force: Optional[bool] = None,
    # end of options
    initial: Any = None,
    progress: bool = False,
    verbose: bool = False,
) -> Run:
    """Advance an ensemble, as ``phaseflow run``, and return the :class:`Run`.

    Besides the options below (each as ``phaseflow run``'s flag of the same name, ``_`` for
    ``-``; ``params={"m": 2}`` is ``--param m=2``):

        initial: the initial ensemble as an array of shape (points, 2d), float32 or float64
            (as ``ensemble="file"`` with ``input=``); with ``loop=True`` its rows are a closed
            loop's nodes.
        progress: draw a tqdm progress bar (when tqdm is installed).
        verbose: let the library's notes through to stderr.

    ``out=None`` writes no file: the statistics, states, indicators and crossings come back
    from the library in memory (numpy arrays over its own buffers), as ``Run.out`` None says.
    With ``out`` the run's folder holds its files (and ``initial``'s points as initial.npy,
    which config.toml names, so that the folder resumes). A parameter sweep is :func:`sweep`.

    Raises:
        ValueError: bad arguments (naming the keyword).
        RuntimeError: a failure while running.
        KeyboardInterrupt: Ctrl-C, after the run wrote its checkpoint (with ``out``).
    """
    settings = _settings("run", locals(), verbose)
    points = None if initial is None else _initial_array(initial, settings)
    summary = _with_progress(progress, "phaseflow run",
                             lambda callback: _phaseflow.run(settings, True, callback, points))
    if out is None:
        return Run(None, summary, None)
    folder = Path(_path("out", out))
    return Run(folder, summary, folder)


@_documented
def sweep(
    *,
    # options of sweep
    config: Optional[PathLike] = None,
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    system_file: Optional[PathLike] = None,
    dof: Optional[int] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    params: Optional[Mapping[str, float]] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    ensemble: Optional[str] = None,
    points: Optional[int] = None,
    center: Optional[Sequence[float]] = None,
    radius: Optional[float] = None,
    lo: Optional[Sequence[float]] = None,
    hi: Optional[Sequence[float]] = None,
    energy: Optional[float] = None,
    grid_axes: Optional[Union[str, Sequence[str]]] = None,
    sigma: Optional[float] = None,
    seed: Optional[int] = None,
    input: Optional[PathLike] = None,
    loop: Optional[bool] = None,
    positions: Optional[bool] = None,
    raw_start: Optional[bool] = None,
    dt: Optional[float] = None,
    steps: Optional[int] = None,
    snapshot_every: Optional[int] = None,
    backend: Optional[Literal["auto", "gpu", "cpu"]] = None,
    precision: Optional[Literal["f32", "f64"]] = None,
    compensated: Optional[bool] = None,
    tangent: Optional[bool] = None,
    no_refine: Optional[bool] = None,
    refine_tol: Optional[float] = None,
    max_nodes: Optional[int] = None,
    implicit_tol: Optional[float] = None,
    implicit_max_iter: Optional[int] = None,
    save_states: Optional[bool] = None,
    store: Optional[Literal["npy", "zarr"]] = None,
    checkpoint_every: Optional[int] = None,
    shard: Optional[str] = None,
    devices: Optional[Union[str, Sequence[str]]] = None,
    modified_hamiltonian: Optional[int] = None,
    chaos: Optional[Union[str, Sequence[str]]] = None,
    deviation: Optional[Union[str, Sequence[str]]] = None,
    deviation_metric: Optional[Union[str, Sequence[str]]] = None,
    reference: Optional[str] = None,
    reverse: Optional[bool] = None,
    section: Optional[str] = None,
    section_max: Optional[int] = None,
    frequencies: Optional[Union[str, Sequence[str]]] = None,
    frequency_stride: Optional[int] = None,
    stop_when: Optional[Union[str, Sequence[str]]] = None,
    sweep: Union[str, Sequence[str]],
    out: Optional[PathLike] = None,
    force: Optional[bool] = None,
    # end of options
    initial: Any = None,
    progress: bool = False,
    verbose: bool = False,
) -> Sweep:
    """Run once per value of a system parameter, as ``phaseflow run --sweep``, and return
    the :class:`Sweep`: ``sweep="NAME=LO:HI:N"`` (N values from LO to HI evenly spaced) or a
    list of them (a grid); every other option as for :func:`run`, ``initial``, ``progress``
    and ``verbose`` too."""
    settings = _settings("sweep", locals(), verbose)
    points = None if initial is None else _initial_array(initial, settings)
    # A sweep writes its parts' folders: without out, a temporary one that lives as long as
    # the Sweep.
    scratch = None if out is not None else tempfile.TemporaryDirectory(prefix="phaseflow-")
    if scratch is not None:
        settings["out"] = str(Path(scratch.name) / "sweep")
    folder = Path(_path("out", settings["out"]))
    try:
        summary = _with_progress(progress, "phaseflow sweep",
                                 lambda callback: _phaseflow.run(settings, True, callback, points))
        return Sweep(folder, list(summary["sweep_parts"]), None if out is None else folder,
                     scratch)
    except BaseException:
        if scratch is not None:
            scratch.cleanup()
        raise


@_documented
def study(
    *,
    # options of study
    preset: Optional[str] = None,
    config: Optional[PathLike] = None,
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    dof: Optional[int] = None,
    system_file: Optional[PathLike] = None,
    params: Optional[Mapping[str, float]] = None,
    methods: Optional[Union[str, Sequence[str]]] = None,
    dt: Optional[Union[float, Sequence[float]]] = None,
    steps: Optional[Union[int, Sequence[int]]] = None,
    t_end: Optional[float] = None,
    ensemble: Optional[str] = None,
    points: Optional[int] = None,
    center: Optional[Sequence[float]] = None,
    radius: Optional[float] = None,
    lo: Optional[Sequence[float]] = None,
    hi: Optional[Sequence[float]] = None,
    energy: Optional[float] = None,
    grid_axes: Optional[Union[str, Sequence[str]]] = None,
    sigma: Optional[float] = None,
    seed: Optional[int] = None,
    input: Optional[PathLike] = None,
    loop: Optional[bool] = None,
    positions: Optional[bool] = None,
    raw_start: Optional[bool] = None,
    portraits: Optional[int] = None,
    reference: Optional[str] = None,
    snapshot_every: Optional[int] = None,
    backend: Optional[Literal["auto", "gpu", "cpu"]] = None,
    precision: Optional[Literal["f32", "f64"]] = None,
    compensated: Optional[bool] = None,
    no_tangent: Optional[bool] = None,
    modified_hamiltonian: Optional[int] = None,
    chaos: Optional[Union[str, Sequence[str]]] = None,
    deviation: Optional[Union[str, Sequence[str]]] = None,
    deviation_metric: Optional[Union[str, Sequence[str]]] = None,
    no_refine: Optional[bool] = None,
    refine_tol: Optional[float] = None,
    max_nodes: Optional[int] = None,
    implicit_tol: Optional[float] = None,
    implicit_max_iter: Optional[int] = None,
    out: Optional[PathLike] = None,
    force: Optional[bool] = None,
    save_states: Optional[bool] = None,
    checkpoint_every: Optional[int] = None,
    # end of options
    progress: bool = False,
    verbose: bool = False,
) -> Study:
    """Evolve one initial set with several methods, as ``phaseflow study`` (``out`` is
    required, as on the command line): a preset (``preset=``, :func:`presets` lists them) or
    your own (``methods=["euler", "verlet"]`` and the run's options). ``progress`` draws a
    tqdm bar of each run, ``verbose`` lets the library's notes through.

    Returns:
        The :class:`Study`: its summary table, figure paths and report.
    """
    settings = _settings("study", locals(), verbose)
    shown = " ".join(f"{k}={v!r}" for k, v in settings.items() if k != "quiet")
    command_line = f"phaseflow.study({shown})"
    return Study(_with_progress(
        progress, "phaseflow study",
        lambda callback: _phaseflow.study(settings, command_line, callback)))


class Order:
    """A finished convergence study (``phaseflow order``).

    Attributes:
        table: order.csv, one row per step size: the global and energy errors and the
            unconverged points (a :class:`Table`, as ``Run.stats``).
        printed: the table with the fitted orders, as the command line prints it.
        figures: order.png and order.svg.
        out: the study's folder.
    """

    def __init__(self, summary: Mapping[str, Any]) -> None:
        self.out: Path = Path(summary["out"])
        self.printed: str = summary["table"]
        self.table: Table = _table(self.out / "order.csv")
        self.figures: List[Path] = [self.out / "order.png", self.out / "order.svg"]

    def __repr__(self) -> str:
        return f"<phaseflow.Order in {self.out}>"


@_documented
def order(
    *,
    # options of order
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    dof: Optional[int] = None,
    system_file: Optional[PathLike] = None,
    params: Optional[Mapping[str, float]] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    ensemble: Optional[str] = None,
    points: Optional[int] = None,
    center: Optional[Sequence[float]] = None,
    radius: Optional[float] = None,
    lo: Optional[Sequence[float]] = None,
    hi: Optional[Sequence[float]] = None,
    energy: Optional[float] = None,
    grid_axes: Optional[Union[str, Sequence[str]]] = None,
    sigma: Optional[float] = None,
    seed: Optional[int] = None,
    input: Optional[PathLike] = None,
    loop: Optional[bool] = None,
    positions: Optional[bool] = None,
    raw_start: Optional[bool] = None,
    dt: Optional[float] = None,
    steps: Optional[int] = None,
    halvings: Optional[int] = None,
    reference: Optional[str] = None,
    implicit_tol: Optional[float] = None,
    implicit_max_iter: Optional[int] = None,
    out: Optional[PathLike] = None,
    force: Optional[bool] = None,
    # end of options
    progress: bool = False,
    verbose: bool = False,
) -> Order:
    """Measure a method's order of convergence, as ``phaseflow order``: the global and energy
    errors at h0, h0/2, ... against a reference solution, with the fitted orders (``out`` is
    required)."""
    settings = _settings("order", locals(), verbose)
    return Order(_with_progress(progress, "phaseflow order",
                                lambda callback: _phaseflow.order(settings, callback)))


@_documented
def show_modified_hamiltonian(
    *,
    # options of show_modified_hamiltonian
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    dof: Optional[int] = None,
    system_file: Optional[PathLike] = None,
    params: Optional[Mapping[str, float]] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    dt: Optional[float] = None,
    order: int,
    # end of options
) -> str:
    """The modified Hamiltonian's correction terms as formulas, as
    ``phaseflow show-modified-hamiltonian`` prints them."""
    settings = _settings("show_modified_hamiltonian", locals(), False)
    del settings["quiet"]
    return _phaseflow.show_modified_hamiltonian(settings)


@_documented
def merge(
    shards: Sequence[PathLike],
    *,
    # options of merge
    out: PathLike,
    force: Optional[bool] = None,
    # end of options
    verbose: bool = False,
) -> Run:
    """Merge the folders of a run split with ``shard="K/N"`` into ``out``, as ``phaseflow
    merge``, and return it as a :class:`Run` (statistics bit for bit those of the unsplit
    run)."""
    if isinstance(shards, (str, bytes, os.PathLike)) or not isinstance(shards, Sequence):
        raise _bad("shards", shards, "give a list of the shards' folders")
    settings = _settings("merge", locals(), verbose)
    folder = Path(_phaseflow.merge(list(shards), settings))
    return Run(folder, {}, folder)


def open_run(path: PathLike) -> Run:
    """A run's folder read back as a :class:`Run`: its statistics, configuration, saved
    states and chaos indicators, from the .npy files or from the Zarr store ``states.zarr``
    (``store="zarr"``; reading it needs the zarr package)."""
    folder = Path(_path("path", path))
    if not (folder / "config.toml").is_file():
        raise ValueError(f"path={str(folder)!r}: no config.toml; give the folder of a run (its out)")
    return Run(folder, {}, folder)


@_documented
def plot(
    folder: PathLike,
    *,
    # options of plot
    out: Optional[PathLike] = None,
    # end of options
    verbose: bool = False,
) -> List[Path]:
    """Draw a run's or a study's figures and report again from its files, as
    ``phaseflow plot`` (into ``out`` when given, else into the folder); the files written."""
    settings = _settings("plot", locals(), verbose)
    return [Path(f) for f in _phaseflow.plot(folder, settings)]


@_documented
def validate(
    *,
    # options of validate
    config: Optional[PathLike] = None,
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    system_file: Optional[PathLike] = None,
    dof: Optional[int] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    params: Optional[Mapping[str, float]] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    ensemble: Optional[str] = None,
    points: Optional[int] = None,
    center: Optional[Sequence[float]] = None,
    radius: Optional[float] = None,
    lo: Optional[Sequence[float]] = None,
    hi: Optional[Sequence[float]] = None,
    energy: Optional[float] = None,
    grid_axes: Optional[Union[str, Sequence[str]]] = None,
    sigma: Optional[float] = None,
    seed: Optional[int] = None,
    input: Optional[PathLike] = None,
    loop: Optional[bool] = None,
    positions: Optional[bool] = None,
    raw_start: Optional[bool] = None,
    dt: Optional[float] = None,
    steps: Optional[int] = None,
    snapshot_every: Optional[int] = None,
    backend: Optional[Literal["auto", "gpu", "cpu"]] = None,
    precision: Optional[Literal["f32", "f64"]] = None,
    compensated: Optional[bool] = None,
    tangent: Optional[bool] = None,
    no_refine: Optional[bool] = None,
    refine_tol: Optional[float] = None,
    max_nodes: Optional[int] = None,
    implicit_tol: Optional[float] = None,
    implicit_max_iter: Optional[int] = None,
    save_states: Optional[bool] = None,
    store: Optional[Literal["npy", "zarr"]] = None,
    checkpoint_every: Optional[int] = None,
    shard: Optional[str] = None,
    devices: Optional[Union[str, Sequence[str]]] = None,
    modified_hamiltonian: Optional[int] = None,
    chaos: Optional[Union[str, Sequence[str]]] = None,
    deviation: Optional[Union[str, Sequence[str]]] = None,
    deviation_metric: Optional[Union[str, Sequence[str]]] = None,
    reference: Optional[str] = None,
    reverse: Optional[bool] = None,
    section: Optional[str] = None,
    section_max: Optional[int] = None,
    frequencies: Optional[Union[str, Sequence[str]]] = None,
    frequency_stride: Optional[int] = None,
    stop_when: Optional[Union[str, Sequence[str]]] = None,
    sweep: Optional[Union[str, Sequence[str]]] = None,
    out: Optional[PathLike] = None,
    force: Optional[bool] = None,
    tolerance: Optional[float] = None,
    # end of options
    progress: bool = False,
    verbose: bool = False,
) -> Dict[str, Any]:
    """Run the GPU and CPU engines side by side, as ``phaseflow validate``.

    Returns a dict: max_abs_dev, max_rel_dev, tangent_max_rel_dev, chaos_max_rel_dev
    (with ``chaos``), section_max_rel_dev and section_count_mismatch (with ``section``),
    finite_mismatch, both_nonfinite, compared, gpu, tolerance, passed and failure (why it
    failed, or None).
    """
    settings = _settings("validate", locals(), verbose)
    result: Dict[str, Any] = _with_progress(
        progress, "phaseflow validate", lambda callback: _phaseflow.validate(settings, callback))
    return result


@_documented
def bench(
    *,
    # options of bench
    system: Optional[str] = None,
    hamiltonian: Optional[str] = None,
    lagrangian: Optional[str] = None,
    discretization: Optional[str] = None,
    momentum: Optional[str] = None,
    velocities: Optional[bool] = None,
    constraint: Optional[Union[str, Sequence[str]]] = None,
    dof: Optional[int] = None,
    system_file: Optional[PathLike] = None,
    params: Optional[Mapping[str, float]] = None,
    against: Optional[str] = None,
    against_method: Optional[str] = None,
    method: Optional[str] = None,
    method_file: Optional[PathLike] = None,
    points: Optional[int] = None,
    steps: Optional[int] = None,
    dt: Optional[float] = None,
    seed: Optional[int] = None,
    no_gpu: Optional[bool] = None,
    gpu_only: Optional[bool] = None,
    compensated: Optional[bool] = None,
    csv: Optional[PathLike] = None,
    peers: Optional[bool] = None,
    rounds: Optional[int] = None,
    min_ratio: Optional[float] = None,
    # end of options
    print_table: bool = False,
) -> Table:
    """Time the reference loop and the engines, as ``phaseflow bench``.

    Returns the table's rows (the columns of ``csv=``) as a :class:`Table`;
    ``print_table=True`` also prints the command line's table.
    """
    settings = _settings("bench", locals(), False)
    del settings["quiet"]
    rows_json, lines = _phaseflow.bench(settings, None)
    if _switch("print_table", print_table):
        print("\n".join(lines))
    rows = json.loads(rows_json)
    names = list(rows[0]) if rows else []

    def cell(v: Any) -> str:
        return "" if v is None else repr(v) if isinstance(v, float) else str(v)

    return Table({n: _column([cell(row.get(n)) for row in rows]) for n in names})


@_documented
def resume(
    out: PathLike,
    *,
    # options of resume
    # end of options
    progress: bool = False,
    verbose: bool = False,
) -> Union[Run, Study, Sweep]:
    """Continue an interrupted run, study or sweep from its checkpoint, as ``phaseflow
    resume``; for a complete folder, read it back."""
    settings = _settings("resume", locals(), verbose)
    kind, summary = _with_progress(
        progress, "phaseflow resume", lambda callback: _phaseflow.resume(out, settings, callback))
    folder = Path(out)
    if kind == "sweep":
        return Sweep(folder, list(summary["sweep_parts"]), folder)
    if kind == "study":
        files = summary["files"] if summary else [str(f) for f in folder.rglob("*")
                                                   if f.suffix in (".png", ".svg", ".csv", ".md")]
        return Study({"out": str(folder), "files": files})
    return Run(folder, summary or {}, folder)



class _Parameters(MutableMapping[str, float]):
    """An :class:`Ensemble`'s system parameters: ``ens.params["g"]`` reads one,
    ``ens.params["g"] = 2`` sets it from the next step on (as :meth:`Ensemble.set_param`)."""

    def __init__(self, ensemble: "Ensemble") -> None:
        self._ensemble = ensemble

    def _now(self) -> Dict[str, float]:
        values: Dict[str, float] = self._ensemble._core.params()
        return values

    def __getitem__(self, name: str) -> float:
        return self._now()[name]

    def __setitem__(self, name: str, value: float) -> None:
        self._ensemble.set_param(name, value)

    def __delitem__(self, name: str) -> None:
        raise TypeError("a system's parameter cannot be removed; set another value")

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())

    def __repr__(self) -> str:
        return repr(self._now())


@_documented
class Ensemble:
    """An ensemble advanced step by step: made as :func:`run` makes its initial set (the same
    options but those of a whole run: ``steps``, ``out``, ``save_states``, ``reverse``,
    ``reference``, ``section``, ``shard``, ``checkpoint_every``), then advanced, inspected,
    changed and advanced again::

        ens = phaseflow.Ensemble(system="pendulum", method="verlet", ensemble="disk",
                                 points=10000, dt=0.01, backend="cpu", snapshot_every=100)
        ens.advance(500)            # or ens.integrate(5.0): to t = 5
        ens.q, ens.p, ens.t         # the points now
        ens.params["g"] = 2.0       # from the next step on
        ens.advance(500)
        ens.stats                   # a row at step 0 and every snapshot_every steps
        ens.save("ckpt", steps=5000)  # `phaseflow resume ckpt` runs on to step 5000

    The engine keeps the points (on a GPU, on the device) between advances; they are read
    back only when asked for (``state``, ``q``, ``p``, ``energy()``), once per advance.
    Grouping the steps into advances changes no bit of the result: ``advance(10)`` twenty
    times gives what ``advance(200)`` gives, and the statistics are :func:`run`'s at the same
    steps. Besides the options:

        initial: the initial points as an array of shape (points, 2d), float32 or float64
            (read from its buffer, as :func:`run` reads it).
        verbose: let the library's notes through to stderr.
    """

    def __init__(
        self,
        *,
        # options of Ensemble
        config: Optional[PathLike] = None,
        system: Optional[str] = None,
        hamiltonian: Optional[str] = None,
        lagrangian: Optional[str] = None,
        system_file: Optional[PathLike] = None,
        dof: Optional[int] = None,
        discretization: Optional[str] = None,
        momentum: Optional[str] = None,
        velocities: Optional[bool] = None,
        constraint: Optional[Union[str, Sequence[str]]] = None,
        params: Optional[Mapping[str, float]] = None,
        method: Optional[str] = None,
        method_file: Optional[PathLike] = None,
        ensemble: Optional[str] = None,
        points: Optional[int] = None,
        center: Optional[Sequence[float]] = None,
        radius: Optional[float] = None,
        lo: Optional[Sequence[float]] = None,
        hi: Optional[Sequence[float]] = None,
        energy: Optional[float] = None,
        grid_axes: Optional[Union[str, Sequence[str]]] = None,
        sigma: Optional[float] = None,
        seed: Optional[int] = None,
        input: Optional[PathLike] = None,
        loop: Optional[bool] = None,
        positions: Optional[bool] = None,
        raw_start: Optional[bool] = None,
        dt: Optional[float] = None,
        snapshot_every: Optional[int] = None,
        backend: Optional[Literal["auto", "gpu", "cpu"]] = None,
        precision: Optional[Literal["f32", "f64"]] = None,
        compensated: Optional[bool] = None,
        tangent: Optional[bool] = None,
        no_refine: Optional[bool] = None,
        refine_tol: Optional[float] = None,
        max_nodes: Optional[int] = None,
        implicit_tol: Optional[float] = None,
        implicit_max_iter: Optional[int] = None,
        devices: Optional[Union[str, Sequence[str]]] = None,
        modified_hamiltonian: Optional[int] = None,
        chaos: Optional[Union[str, Sequence[str]]] = None,
        deviation: Optional[Union[str, Sequence[str]]] = None,
        deviation_metric: Optional[Union[str, Sequence[str]]] = None,
        stop_when: Optional[Union[str, Sequence[str]]] = None,
        # end of options
        initial: Any = None,
        verbose: bool = False,
    ) -> None:
        settings = _settings("Ensemble", locals(), verbose)
        points = None if initial is None else _initial_array(initial, settings)
        self._core: Any = _phaseflow.Ensemble(settings, points)
        self._dt: float = self._core.dt()
        self._state: Optional[np.ndarray] = None
        self.params: MutableMapping[str, float] = _Parameters(self)

    def advance(self, steps: int, *, progress: bool = False) -> "Ensemble":
        """Advance every point by ``steps`` steps (measuring the snapshots passed); returns the
        ensemble. Ctrl-C stops between pieces of work, the ensemble at the step it reached."""
        if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)) \
                or steps < 0:
            raise _bad("steps", steps, "give a whole number of steps, 0 or more")
        self._state = None
        _with_progress(progress, "phaseflow advance",
                       lambda callback: self._core.advance(int(steps), callback))
        return self

    def integrate(self, t: float, *, progress: bool = False) -> "Ensemble":
        """Advance to time ``t`` (the nearest whole step, ``round((t - self.t) / dt)`` steps
        more); returns the ensemble. The ensemble goes forward only: ``t`` before its time
        is refused."""
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.number)):
            raise _bad("t", t, "give a time (a number)")
        steps = round((float(t) - self.t) / self._dt)
        if steps < 0:
            raise _bad("t", t, f"the ensemble is at t = {self.t} already and goes forward only")
        return self.advance(steps, progress=progress)

    @property
    def step(self) -> int:
        """The step the ensemble is at."""
        step: int = self._core.step()
        return step

    @property
    def t(self) -> float:
        """The time the ensemble is at: ``step * dt``."""
        t: float = self._core.time()
        return t

    @property
    def dt(self) -> float:
        """The step size."""
        return self._dt

    @property
    def state(self) -> np.ndarray:
        """The points now, shape (points, 2d) (q1..qd, p1..pd) in the run's precision:
        read-only, read back once per advance (a GPU's state then leaves the device) into an
        array the ensemble no longer touches (it stays as it is after the next advance)."""
        if self._state is None:
            state: np.ndarray = self._core.state()
            state.flags.writeable = False
            self._state = state
        return self._state

    @property
    def q(self) -> np.ndarray:
        """The positions now, a read-only view of ``state``: (points, d)."""
        state = self.state
        return state[:, : state.shape[1] // 2]

    @property
    def p(self) -> np.ndarray:
        """The momenta now, a read-only view of ``state``: (points, d)."""
        state = self.state
        return state[:, state.shape[1] // 2:]

    def energy(self) -> np.ndarray:
        """H of every point now, float64, with the parameters in force."""
        energy: np.ndarray = self._core.energy()
        return energy

    def stops(self) -> Optional[np.ndarray]:
        """With ``stop_when=``: the points stopped so far, one row each (point index, step,
        time, index of the condition that stopped it), float64, shape (stopped, 4), as
        :attr:`Run.stops`; None without stop conditions."""
        stops: Optional[np.ndarray] = self._core.stops()
        return stops

    def measure(self) -> Dict[str, float]:
        """The statistics of the points now, measured on demand: stats.csv's columns (``step``,
        ``t``, ``points``, the energy errors, …) as {column: value}, counts as ints. Measured
        as at a snapshot but without refining a loop or renormalising deviation vectors, so
        the ensemble and the rows of ``stats`` to come are left as they are; the row is not
        added to ``stats``."""
        row: Dict[str, float] = {}
        for name, cells in self._core.measure():
            row[name] = cells[0].item()
        return row

    @property
    def stats(self) -> Table:
        """The statistics so far (stats.csv's columns): a row at step 0 and at every
        multiple of ``snapshot_every`` passed (none besides without it)."""
        return Table(dict(self._core.stats()))

    @property
    def engine(self) -> str:
        """The engine that advances the points, as :func:`run` reports it."""
        engine: str = self._core.engine()
        return engine

    def set_param(self, name: str, value: float) -> None:
        """Give the system's parameter ``name`` the value ``value`` from the next step on.
        The engine is made again over the current points, and the energy statistics start
        anew from them (H0 taken with the new value: the old H is no longer conserved)."""
        self._core.set_params({name: value})

    def save(self, path: PathLike, *, steps: int, force: bool = False) -> Path:
        """Write the ensemble as a checkpoint folder at ``path`` that ``phaseflow resume``
        (or :func:`resume`) continues to step ``steps``: config.toml (the options, the
        parameters in force, statistics every ``snapshot_every`` steps or only at the end),
        stats.csv (the rows so far), the checkpoint (the points and what each carries) and,
        for points given as ``initial``, initial.npy. ``force=True`` replaces a run there.
        Returns the folder."""
        folder = Path(_path("path", path))
        self._core.save(folder, steps, _switch("force", force))
        return folder

    def __repr__(self) -> str:
        return f"<phaseflow.Ensemble at step {self.step} (t = {self.t}) on {self.engine}>"


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
