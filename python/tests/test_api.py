"""Errors, interrupts, studies, checks and the registries."""

import _thread
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import phaseflow

SMALL = dict(system="pendulum", method="verlet", ensemble="disk", points=1000, dt=0.05,
             steps=40, backend="cpu")


def cli_error(cli, *args):
    done = cli("run", *args, check=False)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip()


def test_malformed_argument_is_value_error_naming_the_keyword(cli):
    with pytest.raises(ValueError) as e:
        phaseflow.run(system="pendulum", points="many")
    # The builder's setter takes a count: the keyword and its value named, as the command
    # line refuses the flag's.
    assert str(e.value) == "points='many': give a whole number ≥ 0"
    assert "invalid value 'many' for '--points <" in cli_error(cli, "--system", "pendulum",
                                                               "--points", "many")


def test_unknown_keyword_is_a_type_error_and_the_compiled_modules_a_value_error():
    # Every function has a signature: an unknown keyword is Python's own TypeError (and
    # mypy's error before that); the compiled module names the nearest option.
    with pytest.raises(TypeError, match="warp_speed"):
        phaseflow.run(system="pendulum", warp_speed=9)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="warp_speed=: phaseflow run has no such option"):
        phaseflow._phaseflow.run({"system": "pendulum", "warp_speed": 9}, False)


def test_input_error_is_value_error_with_the_cli_message(cli, tmp_path):
    with pytest.raises(ValueError) as e:
        phaseflow.run(**dict(SMALL, points=0))
    theirs = cli_error(cli, "--system", "pendulum", "--method", "verlet", "--ensemble", "disk",
                       "--points", "0", "--dt", "0.05", "--steps", "40", "--backend", "cpu",
                       "--out", tmp_path / "x")
    assert theirs.startswith("Error: --points")
    assert str(e.value).startswith("points=")
    assert theirs == "Error: " + str(e.value).replace("points=", "--points", 1)


def test_bad_initial_array():
    with pytest.raises(ValueError, match="dtype"):
        phaseflow.run(system="pendulum", initial=np.zeros((4, 2), dtype=np.int32))
    with pytest.raises(ValueError, match="shape"):
        phaseflow.run(system="pendulum", initial=np.zeros(4))
    with pytest.raises(ValueError, match="column"):
        phaseflow.run(system="pendulum", method="verlet", initial=np.zeros((4, 3)), steps=2,
                      dt=0.1)


def test_runtime_failure_is_runtime_error(cli):
    # A folder the kernel will not create: a failure to write (exit code 1), not bad input.
    with pytest.raises(RuntimeError) as e:
        phaseflow.run(out="/proc/self/phaseflow", **SMALL)
    done = cli("run", *[a for k, v in SMALL.items() for a in (f"--{k}", v)],
               "--out", "/proc/self/phaseflow", check=False)
    assert done.returncode == 1
    assert done.stderr.strip() == f"Error: {e.value}"


def test_interrupt_raises_keyboard_interrupt_and_leaves_a_checkpoint(tmp_path):
    out = tmp_path / "run"
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=400000, dt=0.01,
              steps=400000, backend="cpu", checkpoint_every=10)
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        phaseflow.run(out=out, **kw)
    timer.cancel()
    assert "checkpoint" in str(e.value)
    assert (out / "checkpoint" / "run.ckpt").is_file()
    assert not (out / "manifest.toml").exists()


def test_interrupted_run_resumes_to_the_uninterrupted_files(tmp_path):
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=300000, dt=0.01,
              steps=3000, snapshot_every=300, backend="cpu", checkpoint_every=30)
    script = textwrap.dedent(f"""
        import phaseflow, sys
        sys.stdout.write("started\\n"); sys.stdout.flush()
        phaseflow.run(out={str(tmp_path / 'a')!r}, **{kw!r})
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "started\n"
    # Wait for the first checkpoint, then press Ctrl-C.
    ckpt = tmp_path / "a" / "checkpoint" / "run.ckpt"
    for _ in range(600):
        if ckpt.exists() or child.poll() is not None:
            break
        threading.Event().wait(0.05)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode != 0, "the run finished before the interrupt"
    assert "KeyboardInterrupt" in err and "checkpoint" in err, err
    resumed = phaseflow.resume(tmp_path / "a")
    assert isinstance(resumed, phaseflow.Run)
    whole = phaseflow.run(out=tmp_path / "b", **{k: v for k, v in kw.items()})
    assert (tmp_path / "a" / "stats.csv").read_bytes() == (tmp_path / "b" / "stats.csv").read_bytes()
    assert resumed.stats["rel_energy_err_max"].max() == whole.stats["rel_energy_err_max"].max()
    # A complete folder is read back, not run again.
    again = phaseflow.resume(tmp_path / "a")
    assert len(again.stats["step"]) == len(whole.stats["step"])


def test_second_run_after_an_interrupt_is_not_stopped(tmp_path):
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        phaseflow.run(**dict(SMALL, points=400000, steps=100000))
    timer.cancel()
    r = phaseflow.run(**SMALL)
    assert int(np.asarray(r.stats["step"])[-1]) == 40


def test_study(tmp_path):
    s = phaseflow.study(out=tmp_path / "s", system="pendulum", methods=["euler", "symplectic-euler-a"],
                        ensemble="circle", points=200, dt=0.1, steps=50)
    assert list(np.asarray(s.summary["method"])) == ["euler", "symplectic-euler-a"]
    assert s.figures and all(f.is_file() for f in s.figures)
    assert s.report.is_file()
    run = s.run("euler")
    assert "area_ratio" in list(run.stats.keys())
    area = np.asarray(s.run("symplectic-euler-a").stats["area_ratio"])
    assert abs(area[-1] - 1) < abs(np.asarray(run.stats["area_ratio"])[-1] - 1)


def test_study_with_a_reference_run(tmp_path):
    s = phaseflow.study(out=tmp_path / "s", system="pendulum", methods=["euler", "verlet", "rk4"],
                        ensemble="point", center=[1.0, 0.0], dt=[0.02, 0.1, 0.001], t_end=10,
                        reference="rk4")
    far = np.asarray(s.summary["reference_position_err_max"], dtype=float)
    # Euler at h = 0.02 strays further than Verlet at h = 0.1; the reference has no distance.
    assert far[0] > 10 * far[1] > 0 and np.isnan(far[2])
    assert any(f.name == "reference_distance.png" for f in s.figures)
    with pytest.raises(ValueError, match="reference= gauss2: not one of the study's methods"):
        phaseflow.study(out=tmp_path / "t", system="pendulum", methods=["euler", "verlet"],
                        ensemble="point", center=[1.0, 0.0], dt=0.1, t_end=1, reference="gauss2")


def test_a_lagrangian_preset_keeps_its_discrete_momentum(tmp_path):
    s = phaseflow.study(out=tmp_path / "s", preset="lagrangian-kepler-noether", t_end=20)
    momentum = np.asarray(s.summary["momentum_err_max"], dtype=float)
    # The two Lagrangian runs keep J to rounding; RK4 on the built-in Kepler has no such column.
    assert (momentum[:2] < 1e-13).all() and np.isnan(momentum[2])
    assert np.asarray(s.summary["max_ang_mom_err"], dtype=float)[2] > 1e-8


def test_study_needs_out_as_on_the_command_line():
    with pytest.raises(ValueError, match="out=DIR is required"):
        phaseflow.study(out=None, preset="pendulum-disks")


def test_validate():
    v = phaseflow.validate(system="pendulum", method="verlet", ensemble="disk", points=512,
                           dt=0.05, steps=20)
    assert v["passed"] and v["failure"] is None
    assert v["max_rel_dev"] <= v["tolerance"]


def test_bench():
    rows = phaseflow.bench(system="pendulum", method="verlet", points=4096, steps=20, rounds=1)
    assert isinstance(rows, phaseflow.Table)
    assert set(rows["precision"]) >= {"f32", "f64"}
    assert all(rows["points"] == 4096)


def test_registries(cli):
    names = [s["name"] for s in phaseflow.systems()]
    assert "pendulum" in names and "kepler" in names
    pendulum = next(s for s in phaseflow.systems() if s["name"] == "pendulum")
    assert {p["name"] for p in pendulum["params"]} >= {"g", "l"}
    methods = {m["name"]: m for m in phaseflow.methods()}
    assert methods["verlet"]["verdicts"]["order"] == 2
    assert methods["verlet"]["verdicts"]["symplectic"] is True
    assert methods["euler"]["verdicts"]["symplectic"] is False
    listed = cli("list").stdout
    assert all(name in listed for name in methods)
    assert "pendulum-disks" in [p["name"] for p in phaseflow.presets()]
    assert "disk" in [e["name"] for e in phaseflow.ensembles()]
    assert phaseflow.method_check("verlet") == json.loads(
        cli("method", "check", "verlet", "--json").stdout)
    with pytest.raises(ValueError):
        phaseflow.method_check("no-such-method")
