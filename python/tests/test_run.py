"""phaseflow.run against the command line: same arguments, same bits."""

import threading
import time

import numpy as np
import pytest

import phaseflow

PENDULUM = dict(system="pendulum", method="verlet", ensemble="disk", points=10000, dt=0.01,
                steps=1000, backend="cpu")


def flags_of(kwargs):
    """The command line's flags for keyword arguments (the package's own translation is
    what is under test, so this one is written out by hand)."""
    out = []
    for k, v in kwargs.items():
        if v is True:
            out.append("--" + k.replace("_", "-"))
        else:
            out += ["--" + k.replace("_", "-"), str(v)]
    return out


def test_acceptance_number_equals_the_command_line(cli, tmp_path):
    r = phaseflow.run(**PENDULUM)
    cli("run", *flags_of(PENDULUM), "--out", tmp_path / "cli", "--quiet")
    ours = r.stats["rel_energy_err_max"].max()
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")["rel_energy_err_max"].max()
    assert ours == theirs
    assert np.isfinite(ours) and ours > 0
    assert r.out is None
    assert r.method == "verlet"
    assert r.config["method"] == "verlet" and r.config["steps"] == 1000


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_stats_and_states_bit_for_bit(cli, tmp_path, precision):
    kw = dict(system="pendulum", method="yoshida4", ensemble="gaussian", points=3000, dt=0.05,
              steps=60, snapshot_every=20, backend="cpu", precision=precision, save_states=True,
              seed=7)
    r = phaseflow.run(out=tmp_path / "py", **kw)
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    assert (tmp_path / "py" / "stats.csv").read_bytes() == (tmp_path / "cli" / "stats.csv").read_bytes()
    assert list(r.steps) == [0, 20, 40, 60]
    assert np.array_equal(r.t, r.steps * 0.05)
    assert r.states.shape == (4, 3000, 2)
    for i, step in enumerate(r.steps):
        theirs = np.load(tmp_path / "cli" / "states" / f"step_{step}.npy")
        assert r.states.dtype == theirs.dtype == np.dtype(precision.replace("f", "float"))
        assert r.states[i].tobytes() == theirs.tobytes()
    # q and p are views of the one array, its halves.
    assert np.shares_memory(r.q, r.states) and np.shares_memory(r.p, r.states)
    assert np.array_equal(r.q[..., 0], r.states[..., 0]) and r.p.shape == (4, 3000, 1)
    assert r.final_state.tobytes() == r.states[-1].tobytes()
    assert r.out == tmp_path / "py"


def test_final_state_is_the_library_buffer_not_a_copy():
    r = phaseflow.run(system="oscillator", method="verlet", ensemble="disk", points=5000,
                      dt=0.1, steps=3, backend="cpu", precision="f32")
    f = r.final_state
    assert f.dtype == np.float32 and f.shape == (5000, 2)
    # A reshaped view of the library's vector, which numpy holds through rust-numpy's
    # container: no array along the way owns a copy.
    assert not f.flags.owndata and not f.base.flags.owndata
    assert f.base.size == 10000
    assert type(f.base.base).__name__ == "PySliceContainer"


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_initial_array_equals_ensemble_file(cli, tmp_path, dtype):
    rng = np.random.default_rng(3)
    arr = rng.normal(size=(500, 4)).astype(dtype)
    kw = dict(system="henon-heiles", method="verlet", dt=0.01, steps=50, backend="cpu",
              precision="f64", save_states=True)
    r = phaseflow.run(initial=arr, **kw)
    np.save(tmp_path / "init.npy", arr)
    cli("run", *flags_of(kw), "--ensemble", "file", "--input", tmp_path / "init.npy",
        "--out", tmp_path / "cli", "--quiet")
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")
    for column in ("energy_mean", "abs_energy_err_max", "rel_energy_err_max"):
        assert np.array_equal(np.asarray(r.stats[column]), np.asarray(theirs[column]))
    final = np.load(tmp_path / "cli" / "states" / "step_50.npy")
    assert r.final_state.tobytes() == final.tobytes()


def test_initial_loop(cli, tmp_path):
    s = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    loop = np.stack([0.5 * np.cos(s), 0.5 * np.sin(s)], axis=1)
    kw = dict(system="pendulum", method="symplectic-euler-a", dt=0.1, steps=40, backend="cpu")
    r = phaseflow.run(initial=loop, loop=True, **kw)
    np.save(tmp_path / "loop.npy", loop)
    cli("run", *flags_of(kw), "--ensemble", "file", "--input", tmp_path / "loop.npy", "--loop",
        "--out", tmp_path / "cli", "--quiet")
    assert "area_ratio" in list(r.stats.keys())
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")
    assert np.array_equal(np.asarray(r.stats["area_ratio"]), np.asarray(theirs["area_ratio"]))


def test_hamiltonian_params_and_tangent(cli, tmp_path):
    kw = dict(hamiltonian="p^2/(2*m) + k*q^4", method="verlet", ensemble="disk", points=800,
              dt=0.02, steps=30, backend="cpu", tangent=True)
    r = phaseflow.run(params={"m": 2, "k": 0.5}, **kw)
    cli("run", *flags_of(kw), "--param", "m=2", "--param", "k=0.5", "--out", tmp_path / "cli",
        "--quiet")
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")
    for column in theirs.keys():
        a, b = np.asarray(r.stats[column]), np.asarray(theirs[column])
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), column


def test_tables_are_the_same_with_or_without_pandas(monkeypatch, tmp_path):
    r = phaseflow.run(out=tmp_path / "r", **dict(PENDULUM, points=2000, steps=100))
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    plain = phaseflow.run(**dict(PENDULUM, points=2000, steps=100)).stats
    assert isinstance(plain, phaseflow.Table) and isinstance(r.stats, phaseflow.Table)
    assert plain["step"].dtype == np.int64
    assert plain["rel_energy_err_max"].dtype == np.float64
    for column in plain.keys():
        assert np.array_equal(plain[column], r.stats[column], equal_nan=True), column
    structured = r.stats.to_numpy()
    assert structured.dtype.names == tuple(r.stats.keys()) and len(structured) == len(r.stats)
    monkeypatch.undo()
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    assert list(r.stats.to_pandas().columns) == r.stats.keys()


def test_nothing_on_stdout(capfd):
    phaseflow.run(**dict(PENDULUM, points=500, steps=20))
    out, err = capfd.readouterr()
    assert out == ""
    assert err == ""


def test_progress_callback_sees_every_step():
    seen = []
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        settings = dict(PENDULUM, points=200000, steps=400, quiet=True, out=d + "/r")
        phaseflow._phaseflow.run(settings, False, lambda done, total: seen.append((done, total)))
    assert seen[-1] == (400, 400)
    # Before the run has set up its report it has no steps yet.
    assert all(total in (0, 400) for _, total in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_gil_released_while_the_engine_runs():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        start = time.perf_counter()
        # Long enough on any machine for the counter to tick many times (about 1 s here).
        phaseflow.run(**dict(PENDULUM, points=200000, steps=4000))
        elapsed = time.perf_counter() - start
    finally:
        stop.set()
        t.join()
    during = [x for x in ticks if start <= x <= start + elapsed]
    # With the GIL held for the whole run, the counter would not tick at all.
    assert elapsed > 0.2
    assert len(during) > 0.3 * elapsed / 0.0011


def test_to_xarray_labels_states_stats_and_chaos():
    xr = pytest.importorskip("xarray")
    r = phaseflow.run(system="pendulum", method="verlet", ensemble="disk", points=50, dt=0.1,
                      steps=20, snapshot_every=5, backend="cpu", precision="f64",
                      save_states=True, chaos="megno")
    ds = r.to_xarray()
    assert isinstance(ds, xr.Dataset)
    assert ds["state"].dims == ("state_time", "point", "coordinate")
    assert list(ds["coordinate"].values) == ["θ", "p_θ"] == r.components
    assert np.array_equal(ds["state"].values, r.states)
    assert np.array_equal(ds["state_time"].values, r.t)
    assert np.array_equal(ds["rel_energy_err_max"].values, r.stats["rel_energy_err_max"],
                          equal_nan=True)
    assert ds["chaos_megno"].dims == ("chaos_time", "point")
    assert ds.attrs["method"] == "verlet" and ds.attrs["dt"] == 0.1


def test_to_xarray_names_the_sections_columns():
    pytest.importorskip("xarray")
    r = phaseflow.run(system="henon-heiles", method="verlet", ensemble="disk", points=20,
                      center=[0, 0.1, 0.35, 0], radius=0.02, dt=0.05, steps=400,
                      backend="cpu", precision="f64", section="q1=0")
    ds = r.to_xarray()
    assert list(ds["column"].values) == ["point", "crossing", "t", "y", "p_x", "p_y"]
    assert len(ds["crossing"]) == len(r.section) > 20
    assert np.array_equal(ds["section"].sel(column="y").values, r.section[:, 3])
    assert np.array_equal(ds["section"].sel(column="point").values, r.section[:, 0])


def test_a_sweep_to_xarray_stacks_its_parts_over_the_swept_values():
    pytest.importorskip("xarray")
    s = phaseflow.sweep(system="pendulum", method="verlet", ensemble="disk", points=100,
                        dt=0.05, steps=20, snapshot_every=10, backend="cpu",
                        sweep=["g=0.5:2:4", "l=1:2:2"], chaos="megno")
    assert s.parameters == ["g", "l"]
    ds = s.to_xarray()
    assert ds["energy_mean"].dims == ("part", "time")
    assert list(ds["part"].values) == list(range(8))
    assert np.array_equal(ds["g"].values, s.table["g"])
    assert np.array_equal(ds["l"].values, s.table["l"])
    for i, part in enumerate(s.parts):
        assert np.array_equal(ds["energy_mean"].isel(part=i).values, part.stats["energy_mean"])
        megno = part.chaos[20][:, 0]
        assert np.array_equal(ds["chaos_megno"].isel(part=i, chaos_time=-1).values, megno)


def test_a_study_to_xarray_stacks_its_runs_over_the_methods(tmp_path):
    pytest.importorskip("xarray")
    st = phaseflow.study(system="pendulum", methods=["symplectic-euler-a", "verlet"],
                         dt=[0.1, 0.25], t_end=2.0, ensemble="disk", points=200,
                         backend="cpu", out=tmp_path / "s")
    assert st.runs == ["symplectic-euler-a", "verlet"]
    ds = st.to_xarray()
    assert list(ds["run"].values) == st.runs
    assert list(ds["method"].values) == ["symplectic-euler-a", "verlet"]
    assert list(ds["dt"].values) == [0.1, 0.25]
    # The methods step differently: the times are the union, NaN where a run has none.
    for name in st.runs:
        run = st.run(name)
        mine = ds["rel_energy_err_max"].sel(run=name, time=np.asarray(run.stats["t"]))
        assert np.array_equal(mine.values, run.stats["rel_energy_err_max"], equal_nan=True)
    assert len(ds["time"]) > max(len(st.run(n).stats["t"]) for n in st.runs)
