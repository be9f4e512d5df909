"""phaseflow.Ensemble: advanced step by step, bit for bit the run of the same steps, its
parameters changed between advances, saved as a checkpoint the command line resumes."""

import numpy as np
import pytest

import phaseflow

DISK = dict(system="pendulum", method="verlet", ensemble="disk", points=5000, dt=0.01,
            backend="cpu", seed=3)


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_advances_in_pieces_equal_one_advance_and_the_run(precision):
    whole = phaseflow.Ensemble(precision=precision, snapshot_every=50, **DISK).advance(200)
    pieces = phaseflow.Ensemble(precision=precision, snapshot_every=50, **DISK)
    for _ in range(20):
        pieces.advance(10)
    r = phaseflow.run(steps=200, snapshot_every=50, precision=precision, **DISK)
    assert pieces.step == whole.step == 200 and pieces.t == whole.t == 200 * 0.01
    assert pieces.state.tobytes() == whole.state.tobytes() == r.final_state.tobytes()
    assert pieces.state.dtype == np.dtype(precision.replace("f", "float"))
    # The statistics are the run's at the same steps.
    for column in r.stats.keys():
        a, b = pieces.stats[column], r.stats[column]
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), column


def test_measure_is_a_snapshots_row_now_and_changes_nothing():
    # Measured between snapshots, the row equals a run's row at that step, and the ensemble
    # goes on bit for bit as one that was never measured.
    measured = phaseflow.Ensemble(precision="f64", snapshot_every=50, chaos="megno", **DISK)
    measured.advance(30)
    row = measured.measure()
    measured.advance(70)
    plain = phaseflow.Ensemble(precision="f64", snapshot_every=50, chaos="megno", **DISK)
    plain.advance(100)
    assert measured.state.tobytes() == plain.state.tobytes()
    for column in plain.stats.keys():
        assert measured.stats[column].tobytes() == plain.stats[column].tobytes(), column
    r = phaseflow.run(steps=30, precision="f64", chaos="megno", **DISK)
    assert row["step"] == 30 and isinstance(row["step"], int) and isinstance(row["points"], int)
    assert row["t"] == pytest.approx(0.3)
    for column in r.stats.keys():
        want = r.stats[column][-1].item()
        assert row[column] == want or (np.isnan(want) and np.isnan(row[column])), column
    assert row["rel_energy_err_max"] > 0 and len(measured.stats["step"]) == 3


def test_views_are_read_only_and_read_back_once_per_advance():
    ens = phaseflow.Ensemble(**DISK)
    state = ens.state
    assert np.shares_memory(ens.q, state) and np.shares_memory(ens.p, state)
    assert ens.q.shape == ens.p.shape == (5000, 1)
    with pytest.raises(ValueError):
        ens.q[0, 0] = 1.0
    assert ens.state is state
    ens.advance(5)
    assert ens.state is not state and not np.array_equal(ens.state, state)
    assert ens.integrate(0.1).step == 10
    with pytest.raises(ValueError, match=r"^t=0\.05: the ensemble is at t = 0\.1"):
        ens.integrate(0.05)


def test_energy_is_h_of_the_points_now_with_the_parameters_in_force():
    ens = phaseflow.Ensemble(precision="f64", **DISK).advance(7)
    q, p = ens.q[:, 0], ens.p[:, 0]
    # The pendulum's H with m = l = 1: p²/2 + g (1 - cos q).
    for g in (9.81, 2.0):
        ens.params["g"] = g
        assert ens.params["g"] == g
        assert np.allclose(ens.energy(), p ** 2 / 2 + g * (1 - np.cos(q)), rtol=1e-12, atol=1e-12)


def test_a_parameter_changed_between_advances_is_a_run_from_there_with_it():
    ens = phaseflow.Ensemble(precision="f64", **DISK).advance(30)
    middle = np.array(ens.state)
    ens.set_param("g", 2.0)
    ens.advance(40)
    kw = {k: v for k, v in DISK.items() if k not in ("ensemble", "points", "seed")}
    then = phaseflow.run(initial=middle, params={"g": 2.0}, steps=40, precision="f64", **kw)
    assert ens.state.tobytes() == then.final_state.tobytes()
    # The energy statistics start again from the points where g changed.
    assert ens.stats["step"].tolist() == [0]


def test_an_initial_array_and_a_saved_checkpoint_that_the_command_line_resumes(cli, tmp_path):
    kw = dict(system="pendulum", method="yoshida4", dt=0.02, backend="cpu", snapshot_every=10)
    rng = np.random.default_rng(8)
    initial = rng.normal(scale=0.4, size=(4096, 2)).astype(">f8")
    ens = phaseflow.Ensemble(initial=initial, **kw).advance(35)
    assert ens.save(tmp_path / "saved", steps=100) == tmp_path / "saved"
    with pytest.raises(ValueError, match=r"^steps=20: the ensemble is at step 35 already"):
        ens.save(tmp_path / "early", steps=20)
    resumed = cli("resume", tmp_path / "saved", "--quiet")
    assert resumed.returncode == 0
    np.save(tmp_path / "initial.npy", initial.astype("<f8"))
    cli("run", "--system", "pendulum", "--method", "yoshida4", "--dt", "0.02", "--backend",
        "cpu", "--snapshot-every", "10", "--steps", "100", "--ensemble", "file", "--input",
        tmp_path / "initial.npy", "--out", tmp_path / "straight", "--quiet")
    assert (tmp_path / "saved" / "stats.csv").read_bytes() == (tmp_path / "straight" / "stats.csv").read_bytes()
    assert (tmp_path / "saved" / "manifest.toml").is_file()


def test_options_of_a_whole_run_are_not_the_ensembles():
    with pytest.raises(TypeError):
        phaseflow.Ensemble(steps=10, **DISK)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"^dt= is required"):
        phaseflow.Ensemble(system="pendulum", method="verlet", ensemble="disk")
    with pytest.raises(ValueError, match=r"^steps=-1: give a whole number"):
        phaseflow.Ensemble(**DISK).advance(-1)


def test_an_interrupted_advance_leaves_the_ensemble_where_it_stopped():
    import _thread
    import threading

    kw = dict(DISK, points=400000, precision="f64")
    ens = phaseflow.Ensemble(**kw)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ens.advance(1_000_000)
    timer.cancel()
    stopped = ens.step
    assert 0 < stopped < 1_000_000
    # It goes on from there, and the steps are counted right: the points are those of a
    # run of as many steps.
    ens.advance(3)
    again = phaseflow.Ensemble(**kw).advance(stopped + 3)
    assert ens.state.tobytes() == again.state.tobytes()


def test_a_short_advance_returns_as_soon_as_its_work_is_done():
    # Each call runs on a worker thread while the caller waits, waking every 50 ms to look
    # for Ctrl-C. The caller must wake the moment the worker is done, not at its next poll: a
    # lost wake-up once cost about a third of such calls 50 ms each.
    import time

    kw = dict(DISK, points=100000, precision="f64")
    calls = 30
    whole = phaseflow.Ensemble(**kw)
    start = time.perf_counter()
    whole.advance(2 * calls)
    one = time.perf_counter() - start
    pieces = phaseflow.Ensemble(**kw)
    start = time.perf_counter()
    for _ in range(calls):
        pieces.advance(2)
    many = time.perf_counter() - start
    assert pieces.state.tobytes() == whole.state.tobytes()
    overhead_ms = (many - one) / calls * 1e3
    assert overhead_ms < 10, f"{overhead_ms:.1f} ms per call beyond its steps"
