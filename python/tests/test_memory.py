"""Runs without a folder: nothing written, every result handed over from the library's own
buffers, equal bit for bit to the command line's files."""

import os
import tempfile

import numpy as np
import pytest

import phaseflow
from test_run import flags_of


@pytest.fixture
def no_files(tmp_path, monkeypatch):
    """A working folder and a temporary folder that must stay empty: called while a run's
    results are alive, and once more at the end."""
    work, temp = tmp_path / "work", tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def empty():
        assert os.listdir(work) == [] and os.listdir(temp) == []

    yield empty
    empty()


def the_library_buffer(array):
    """Whether ``array`` is a view of a vector the library handed to numpy (rust-numpy's
    container holds it), no numpy array along the way owning a copy."""
    base = array
    while isinstance(base, np.ndarray):
        if base.flags.owndata:
            return False
        base = base.base
    return type(base).__name__ == "PySliceContainer"


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_a_run_without_out_writes_nothing_and_equals_the_command_line(cli, tmp_path, no_files,
                                                                      precision):
    kw = dict(system="pendulum", method="yoshida4", ensemble="gaussian", points=3000, dt=0.05,
              steps=60, snapshot_every=20, backend="cpu", precision=precision, save_states=True,
              seed=7, chaos="megno,lyapunov")
    r = phaseflow.run(**kw)
    no_files()
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    assert r.out is None
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")
    assert r.stats.keys() == theirs.keys()
    for column in theirs.keys():
        a, b = r.stats[column], theirs[column]
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), column
    assert list(r.steps) == [0, 20, 40, 60] and r.states.shape == (4, 3000, 2)
    for i, step in enumerate(r.steps):
        assert r.states[i].tobytes() == np.load(tmp_path / "cli" / "states" / f"step_{step}.npy").tobytes()
    for step, block in r.chaos.items():
        assert block.tobytes() == np.load(tmp_path / "cli" / "chaos" / f"step_{step}.npy").tobytes()
    assert sorted(r.chaos) == [0, 20, 40, 60]
    assert r.config["steps"] == 60 and r.config["method"] == "yoshida4"
    assert r.final_state.tobytes() == r.states[-1].tobytes()


def test_states_stats_and_indicators_are_the_library_buffers(no_files):
    r = phaseflow.run(system="oscillator", method="verlet", ensemble="disk", points=4096,
                      dt=0.1, steps=4, snapshot_every=2, backend="cpu", precision="f32",
                      save_states=True, chaos="megno")
    no_files()
    assert r.states.dtype == np.float32 and r.states.shape == (3, 4096, 2)
    for array in (r.states, r.q, r.final_state, r.stats["rel_energy_err_max"],
                  r.stats["step"], r.chaos[4]):
        assert the_library_buffer(array)


def test_a_section_in_memory_equals_the_folders(tmp_path, no_files):
    kw = dict(system="henon-heiles", method="verlet", ensemble="disk", points=64, dt=0.05,
              steps=400, backend="cpu", center=[0.0, 0.1, 0.2, 0.0], radius=0.05,
              section="q1=0")
    folder = phaseflow.run(out=tmp_path / "folder", **kw).section
    run = phaseflow.run(**kw)
    no_files()
    memory = run.section
    assert memory is not None and len(memory) > 0
    assert memory.tobytes() == folder.tobytes() and memory.shape == folder.shape


def test_initial_points_are_read_from_the_buffer_and_a_folder_keeps_them(cli, tmp_path):
    rng = np.random.default_rng(5)
    arr = rng.normal(scale=0.3, size=(300, 2))
    kw = dict(system="pendulum", method="verlet", dt=0.05, steps=20, backend="cpu",
              checkpoint_every=10)
    r = phaseflow.run(initial=arr, out=tmp_path / "run", **kw)
    # The folder holds the points, and its config.toml names them: it runs again from it.
    kept = tmp_path / "run" / "initial.npy"
    assert np.load(kept).tobytes() == arr.tobytes()
    assert r.config["ensemble"]["input"] == str(kept.resolve())
    # The file is the run's own: force replaces the run.
    phaseflow.run(initial=arr[:100], out=tmp_path / "run", force=True, **kw)
    assert np.load(kept).shape == (100, 2)
    cli("run", "--config", tmp_path / "run" / "config.toml", "--out", tmp_path / "again",
        "--quiet")
    assert (tmp_path / "again" / "stats.csv").read_bytes() == (tmp_path / "run" / "stats.csv").read_bytes()


def test_what_needs_a_folder_asks_for_out(no_files):
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=8192, dt=0.05,
              steps=4, backend="cpu")
    with pytest.raises(ValueError, match=r"checkpoint_every=: keeping checkpoints needs a folder; give out="):
        phaseflow.run(checkpoint_every=2, **kw)
    with pytest.raises(ValueError, match=r"shard=: a shard .* needs a folder; give out="):
        phaseflow.run(shard="0/2", **kw)


def test_a_lagrangian_by_keywords_is_verlet_on_the_pendulum(no_files):
    """``lagrangian=``, ``discretization=`` and ``momentum=`` reach the library: the trapezoid
    rule on L = v²/2 − (1 − cos q) advances the pendulum as Störmer–Verlet does (to rounding),
    and a symmetry's generator adds its column."""
    common = dict(ensemble="disk", points=64, dt=0.05, steps=40, backend="cpu",
                  precision="f64")
    lagrangian = phaseflow.run(lagrangian="v^2/2 - (1 - cos(q))", method="variational",
                               discretization="trapezoid", **common)
    verlet = phaseflow.run(hamiltonian="p^2/2 + 1 - cos(q)", method="verlet", **common)
    assert np.abs(lagrangian.final_state - verlet.final_state).max() < 1e-12
    free = phaseflow.run(lagrangian="v^2/2", method="variational", discretization="midpoint",
                         momentum="1", **common)
    assert np.all(free.stats["momentum_err_max"] == 0.0)
    with pytest.raises(ValueError, match="discretization"):
        phaseflow.run(hamiltonian="p^2/2", method="verlet", discretization="left", **common)


def test_a_galerkin_discretization_by_keyword(no_files):
    """``discretization="gauss3"`` (a cubic path, order 6) reaches the library: on polar Kepler
    its discrete angular momentum stays at its start to rounding and its energy error is
    hundreds of times below the trapezoid's at the same step."""
    common = dict(lagrangian="(v1^2 + q1^2*v2^2)/2 + 1/q1", method="variational",
                  momentum="0,1", ensemble="disk", center=[1.0, 0.0, 0.1, 1.1], radius=0.05,
                  points=16, dt=0.05, steps=400, backend="cpu", precision="f64")
    sixth = phaseflow.run(discretization="gauss3", **common)
    second = phaseflow.run(discretization="trapezoid", **common)
    assert sixth.stats["momentum_err_max"].max() < 1e-13
    assert sixth.stats["unconverged"].max() == 0
    e6, e2 = sixth.stats["abs_energy_err_max"].max(), second.stats["abs_energy_err_max"].max()
    assert 0 < e6 < e2 / 100, (e6, e2)


def test_constraints_by_keyword(no_files):
    """``constraint=`` (one formula or a list) reaches the library: a spherical pendulum in
    Cartesian coordinates stays on its sphere to rounding, and a double pendulum on both of
    its rods; a constraint on a Hamiltonian is a ValueError naming the keyword."""
    sphere = phaseflow.run(lagrangian="(v1^2 + v2^2 + v3^2)/2 - q3", method="variational",
                           constraint="q1^2 + q2^2 + q3^2 - 1", ensemble="gaussian",
                           center=[1.0, 0.0, 0.0, 0.0, 0.5, 0.3], sigma=0.05, points=16,
                           dt=0.05, steps=400, backend="cpu", precision="f64",
                           save_states=True)
    assert sphere.stats["constraint_err_max"].max() < 1e-15
    assert sphere.stats["unconverged"].max() == 0
    q = sphere.q[-1]
    assert np.all(np.abs((q ** 2).sum(axis=1) - 1) < 1e-15)
    rods = phaseflow.run(lagrangian="(v1^2 + v2^2 + v3^2 + v4^2)/2 - q2 - q4",
                         method="variational",
                         constraint=["q1^2 + q2^2 - 1", "(q3 - q1)^2 + (q4 - q2)^2 - 1"],
                         ensemble="point", center=[0.48, -0.88, 1.32, -1.42, 0, 0, 0, 0],
                         dt=0.01, steps=200, backend="cpu", precision="f64")
    assert rods.stats["constraint_err_max"].max() < 1e-14
    with pytest.raises(ValueError, match="constraint"):
        phaseflow.run(hamiltonian="p^2/2 + q^2/2", method="verlet", constraint="q - 1",
                      ensemble="point", center=[1.0, 0.0], dt=0.1, steps=10, backend="cpu")
