"""Per-point features through the Python package: chaos indicators, Poincaré sections and
parameter sweeps, each equal to the command line's files for the same arguments."""

import _thread
import threading

import numpy as np
import pytest

import phaseflow


def flags_of(kwargs):
    """The command line's flags for keyword arguments, written out by hand (lists joined by
    commas, as the package's own translation, which is what is under test, does)."""
    out = []
    for k, v in kwargs.items():
        text = ",".join(map(str, v)) if isinstance(v, list) else str(v)
        out += ["--" + k.replace("_", "-"), text]
    return out


def test_chaos_indicators_equal_the_command_line(cli, tmp_path):
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=64, dt=0.05,
              steps=400, backend="cpu", precision="f64", chaos="megno,lyapunov")
    r = phaseflow.run(**kw)
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    assert list(r.chaos) == [400]
    theirs = np.load(tmp_path / "cli" / "chaos" / "step_400.npy")
    assert r.chaos[400].shape == (64, 2)
    assert np.array_equal(r.chaos[400], theirs, equal_nan=True)
    # A pendulum disk near the bottom librates, nearly isochronously: no point is chaotic,
    # and the finite-time Lyapunov exponents (second column) are small and decaying.
    megno, lyapunov = r.chaos[400][:, 0], r.chaos[400][:, 1]
    assert np.all(megno < 4.0) and np.all(np.abs(lyapunov) < 0.5)
    assert np.asarray(r.stats["chaotic_fraction"])[-1] == 0.0


def test_section_equals_the_command_line(cli, tmp_path):
    kw = dict(system="henon-heiles", method="verlet", ensemble="point", center=[0, 0.1, 0.35, 0],
              dt=0.05, steps=2000, backend="cpu", precision="f64", section="q1=0")
    r = phaseflow.run(**kw)
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    theirs = np.load(tmp_path / "cli" / "section.npy")
    assert r.section is not None and r.section.shape[0] > 5
    assert np.array_equal(r.section, theirs)
    assert phaseflow.run(**dict(kw, section=None)).section is None


def test_stops_in_memory_equal_the_command_lines_file(cli, tmp_path):
    # A pendulum grid whose rotating rows (|p| large) pass over the top: exactly they stop.
    kw = dict(system="pendulum", method="verlet", ensemble="grid", points=400, lo=[-0.1, -3],
              hi=[0.1, 3], dt=0.05, steps=1000, snapshot_every=500, backend="cpu",
              precision="f64", stop_when="q^2 > 10")
    r = phaseflow.run(**kw)
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    theirs = np.load(tmp_path / "cli" / "stops.npy")
    assert r.stops is not None and r.stops.shape == theirs.shape and len(theirs) == 160
    assert np.array_equal(r.stops, theirs)
    # Read back from a folder, and labelled by to_xarray.
    folder = phaseflow.run(**dict(kw, out=tmp_path / "py"))
    assert folder.stops is not None and np.array_equal(folder.stops, theirs)
    ds = r.to_xarray()
    assert list(ds["stop_column"].values) == ["point", "step", "t", "condition"]
    assert np.array_equal(ds["stops"].sel(stop_column="step").values, theirs[:, 1])
    # An ensemble stopped as far: the same rows once it reaches the run's last step.
    ens = phaseflow.Ensemble(**{k: v for k, v in kw.items() if k != "steps"})
    early = ens.advance(10).stops()
    assert early is not None and len(early) < len(theirs)
    assert np.array_equal(ens.advance(990).stops(), theirs)
    assert phaseflow.run(**dict(kw, stop_when=None)).stops is None


def test_frequencies_in_memory_equal_the_command_lines_file(cli, tmp_path):
    kw = dict(system="pendulum", method="yoshida4", ensemble="disk", points=16,
              center=[0.5, 0.0], radius=0.2, dt=0.05, steps=4096, backend="cpu",
              precision="f64", frequencies="q,q-ip")
    r = phaseflow.run(**kw)
    cli("run", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    theirs = np.load(tmp_path / "cli" / "frequencies.npy")
    assert r.frequencies is not None and r.frequencies.shape == (16, 8)
    assert np.array_equal(r.frequencies, theirs, equal_nan=True)
    assert r.frequency_columns[:4] == ["nu_q", "nu_q_first", "nu_q_second", "diffusion_q"]
    # Small librations of the unit pendulum: frequencies just below 1 rad per time unit.
    assert np.all((r.frequencies[:, 0] > 0.9) & (r.frequencies[:, 0] < 1.0))
    ds = r.to_xarray()
    assert np.array_equal(ds["frequencies"].sel(frequency_column="nu_q-ip").values,
                          theirs[:, 4], equal_nan=True)
    assert phaseflow.run(**dict(kw, frequencies=None)).frequencies is None


def test_sweep_parts_equal_param_runs(tmp_path):
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=500, dt=0.05,
              steps=100, backend="cpu")
    s = phaseflow.sweep(out=tmp_path / "sweep", sweep="g=1:2:3", **kw)
    assert isinstance(s, phaseflow.Sweep) and len(s.parts) == 3
    assert list(np.asarray(s.table["g"])) == [1.0, 1.5, 2.0]
    for part, g in zip(s.parts, [1.0, 1.5, 2.0]):
        alone = phaseflow.run(params={"g": g}, **kw)
        for column in alone.stats.keys():
            a, b = np.asarray(part.stats[column]), np.asarray(alone.stats[column])
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), column
    assert np.array_equal(np.unique(np.asarray(s.stats["sweep_index"])), [0, 1, 2])


def test_order_equals_the_command_line(cli, tmp_path):
    kw = dict(system="pendulum", method="verlet", dt=0.1, steps=100, halvings=3)
    o = phaseflow.order(out=tmp_path / "py", **kw)
    cli("order", *flags_of(kw), "--out", tmp_path / "cli", "--quiet")
    assert (tmp_path / "py" / "order.csv").read_bytes() == (tmp_path / "cli" / "order.csv").read_bytes()
    assert all(f.is_file() for f in o.figures)
    assert len(np.asarray(o.table["h"])) == 5  # four step sizes, then the fitted orders
    assert "order" in o.printed


def test_show_modified_hamiltonian_equals_the_command_line(cli):
    kw = dict(system="pendulum", method="verlet", dt=0.05, order=2)
    text = phaseflow.show_modified_hamiltonian(**kw)
    assert text.strip() == cli("show-modified-hamiltonian", *flags_of(kw)).stdout.strip()
    with pytest.raises(ValueError, match="order="):
        phaseflow.show_modified_hamiltonian(system="pendulum", method="verlet", order=99)


def test_shards_merge_to_the_unsplit_run_and_plot_redraws(tmp_path):
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=10000, dt=0.05,
              steps=60, backend="cpu")
    whole = phaseflow.run(out=tmp_path / "whole", **kw)
    for k in (0, 1):
        phaseflow.run(out=tmp_path / f"s{k}", shard=f"{k}/2", **kw)
    merged = phaseflow.merge([tmp_path / "s0", tmp_path / "s1"], out=tmp_path / "merged")
    assert (tmp_path / "merged" / "stats.csv").read_bytes() == (tmp_path / "whole" / "stats.csv").read_bytes()
    assert np.array_equal(np.asarray(merged.stats["rel_energy_err_max"]),
                          np.asarray(whole.stats["rel_energy_err_max"]), equal_nan=True)
    files = phaseflow.plot(tmp_path / "whole", out=tmp_path / "figs")
    assert any(f.name == "energy_error.png" for f in files) and all(f.is_file() for f in files)
    with pytest.raises(ValueError):
        phaseflow.merge([tmp_path / "s1"], out=tmp_path / "merged2")


# Long enough (about 4 s on two cores) for the interrupt at 1 s to land inside the sweep: at
# 400 steps a quiet machine finished it in 0.99 s and the interrupt fell after the call.
SWEEP = dict(system="pendulum", method="verlet", ensemble="disk", points=200000, dt=0.01,
             steps=1600, snapshot_every=100, backend="cpu", checkpoint_every=10,
             sweep=["g=1:2:2", "l=1:1.5:2"])


def test_interrupted_sweep_resumes_to_the_uninterrupted_files(tmp_path):
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        phaseflow.sweep(out=tmp_path / "a", **SWEEP)
    timer.cancel()
    assert "resume" in str(e.value)
    assert not (tmp_path / "a" / "manifest.toml").exists()
    resumed = phaseflow.resume(tmp_path / "a")
    assert isinstance(resumed, phaseflow.Sweep) and len(resumed.parts) == 4
    whole = phaseflow.sweep(out=tmp_path / "b", **SWEEP)
    for name in ("stats.csv", "sweep.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert np.array_equal(np.asarray(resumed.table["g"]), np.asarray(whole.table["g"]))
    # A complete sweep is read back, not run again.
    again = phaseflow.resume(tmp_path / "b")
    assert isinstance(again, phaseflow.Sweep) and again.out == tmp_path / "b"
    assert [p.out for p in again.parts] == [p.out for p in whole.parts]
    assert np.array_equal(np.asarray(again.stats["rel_energy_err_max"]),
                          np.asarray(whole.stats["rel_energy_err_max"]), equal_nan=True)
