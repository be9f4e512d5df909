"""``python -m phaseflow``: the command line from the package, the same program as the binary."""

import signal
import subprocess
import sys
import threading


def _module(*args, env=None):
    return subprocess.run([sys.executable, "-m", "phaseflow", *map(str, args)],
                          capture_output=True, text=True, env=env)


def test_the_module_prints_what_the_binary_prints(cli):
    for args in (["list"], ["--version"], ["method", "check", "verlet"]):
        ours = _module(*args)
        assert ours.returncode == 0, ours.stderr
        assert ours.stdout == cli(*args).stdout


def test_the_module_runs_a_run_to_the_binarys_files(cli, tmp_path):
    args = ["run", "--system", "pendulum", "--method", "verlet", "--ensemble", "disk",
            "--points", "500",
            "--steps", "40", "--dt", "0.05", "--backend", "cpu", "--quiet"]
    done = _module(*args, "--out", tmp_path / "a")
    assert done.returncode == 0, done.stderr
    cli(*args, "--out", tmp_path / "b")
    assert (tmp_path / "a" / "stats.csv").read_bytes() == (tmp_path / "b" / "stats.csv").read_bytes()


def test_the_module_exits_2_on_bad_input_naming_the_flag():
    done = _module("run", "--system", "pendulum", "--method", "verlet", "--ensemble", "disk",
                   "--points", "0", "--steps", "40", "--dt", "0.1", "--out", "unused")
    assert done.returncode == 2
    assert "--points" in done.stderr and "points=" not in done.stderr, done.stderr


def test_ctrl_c_writes_the_checkpoint_and_exits_130(cli, tmp_path):
    out = tmp_path / "a"
    args = ["run", "--system", "pendulum", "--method", "verlet", "--ensemble", "disk",
            "--points", "300000", "--dt", "0.01", "--steps", "3000", "--snapshot-every", "300",
            "--checkpoint-every", "30", "--backend", "cpu", "--quiet", "--out", out]
    child = subprocess.Popen([sys.executable, "-m", "phaseflow", *map(str, args)],
                             stderr=subprocess.PIPE, text=True)
    ckpt = out / "checkpoint" / "run.ckpt"
    for _ in range(1200):
        if ckpt.exists() or child.poll() is not None:
            break
        threading.Event().wait(0.05)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "KeyboardInterrupt" not in err and "checkpoint" in err, err
    # The binary resumes it to the uninterrupted run's files.
    cli("resume", out)
    cli(*args[:-1], tmp_path / "b")
    assert (out / "stats.csv").read_bytes() == (tmp_path / "b" / "stats.csv").read_bytes()
