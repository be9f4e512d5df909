"""Keyword arguments a Python caller may get wrong: each bad one is a ValueError that names the
keyword (never a TypeError, a RuntimeError or a crash), and the good ones in unusual forms
(negative numbers, big-endian or strided arrays, numpy scalars) run as the plain ones do."""

import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import phaseflow

TINY = dict(system="pendulum", method="verlet", ensemble="disk", points=64, dt=0.05, steps=5,
            backend="cpu")


def value_error(keyword, **kw):
    """The ValueError of ``phaseflow.run(**kw)``, checked to name ``keyword`` as a keyword
    argument and no command-line flag."""
    with pytest.raises(ValueError) as e:
        phaseflow.run(**kw)
    message = str(e.value)
    assert f"{keyword}=" in message, message
    assert f"--{keyword.replace('_', '-')}" not in message, message
    return message


def test_a_string_is_not_a_switch():
    for text in ("false", "true", "", "no"):
        message = value_error("save_states", **dict(TINY, save_states=text))
        assert "True or False" in message
    with pytest.raises(ValueError, match="verbose="):
        phaseflow.run(verbose="false", **TINY)
    with pytest.raises(ValueError, match="progress="):
        phaseflow.run(progress="no", **TINY)
    # numpy's booleans are booleans.
    assert phaseflow.run(save_states=np.bool_(False), **TINY).states.shape == (0, 0, 0)


def test_initial_in_any_byte_order_and_layout_runs_as_the_native_array():
    rng = np.random.default_rng(11)
    native = rng.normal(scale=0.5, size=(40, 2))
    kw = dict(system="pendulum", method="verlet", dt=0.05, steps=10, backend="cpu",
              precision="f64")
    expected = phaseflow.run(initial=native, **kw).final_state
    wide = np.repeat(native, 3, axis=0)[::3]          # strided rows
    for arr in (native.astype(">f8"), native.astype("<f8"), np.asfortranarray(native),
                wide, native.astype(">f8")[::-1][::-1]):
        assert phaseflow.run(initial=arr, **kw).final_state.tobytes() == expected.tobytes()
    single = native.astype(np.float32)
    expected32 = phaseflow.run(initial=single, **kw).final_state
    got = phaseflow.run(initial=single.astype(">f4"), **kw).final_state
    assert got.tobytes() == expected32.tobytes()


def test_initial_of_no_float_type_names_the_keyword():
    for arr in (np.zeros((4, 2), dtype=np.int32), np.zeros((4, 2), dtype=np.float16),
                np.zeros((4, 2), dtype=np.complex128), [["a", "b"]], "abc"):
        with pytest.raises(ValueError, match="initial="):
            phaseflow.run(system="pendulum", initial=arr)


def test_method_check_of_no_name_is_a_value_error():
    for bad in (5, None, ["verlet"], b"verlet"):
        with pytest.raises(ValueError, match="method="):
            phaseflow.method_check(bad)
    with pytest.raises(ValueError, match="method="):
        phaseflow.method_check("ver\0let")


def test_nul_in_a_path_is_a_value_error(tmp_path):
    value_error("out", **dict(TINY, out=str(tmp_path / "a\0b")))
    with pytest.raises(ValueError, match="out="):
        phaseflow.resume(str(tmp_path / "a\0b"))
    with pytest.raises(ValueError, match="folder="):
        phaseflow.plot(str(tmp_path / "a\0b"))
    with pytest.raises(ValueError, match="shards="):
        phaseflow.merge([str(tmp_path / "a\0b")], out=tmp_path / "m")
    with pytest.raises(ValueError, match="shards="):
        phaseflow.merge(str(tmp_path / "s0"), out=tmp_path / "m")


def test_negative_step_runs_as_the_command_line(cli, tmp_path):
    kw = dict(TINY, dt=-0.00001, steps=20)
    r = phaseflow.run(**kw)
    cli("run", *[f"--{k}={v}" for k, v in kw.items()], "--out", tmp_path / "cli", "--quiet")
    theirs = phaseflow._table(tmp_path / "cli" / "stats.csv")
    assert r.stats.keys() == theirs.keys()
    for column in theirs.keys():
        assert r.stats[column].tobytes() == theirs[column].tobytes(), column
    assert r.config["dt"] == -0.00001


def test_errors_name_keyword_arguments_not_flags():
    assert value_error("points", **dict(TINY, points=0)).startswith("points=")
    value_error("points", **dict(TINY, points="many"))
    value_error("steps", **dict(TINY, steps=-5))
    message = value_error("backend", **dict(TINY, backend="warp"))
    assert "warp" in message
    # An unknown keyword is Python's TypeError, as for any function with a signature; the
    # compiled module, which takes a dict, names it with the nearest options.
    with pytest.raises(TypeError, match="warp_speed"):
        phaseflow.run(**dict(TINY, warp_speed=9))
    with pytest.raises(ValueError, match="^snapshot_evry=: .*did you mean snapshot_every="):
        phaseflow._phaseflow.run(dict(TINY, snapshot_evry=2), False)
    # Two choices of the system: refused naming both, not one dropped.
    message = value_error("system_file", **dict(TINY, system_file="mine.toml"))
    assert "system=" in message and "each choose the system" in message
    with pytest.raises(ValueError) as e:
        phaseflow.run(**dict(TINY, params={"g": -1}))
    assert 'params={"g": -1}' in str(e.value) and "--param" not in str(e.value)


def test_a_sweep_of_too_many_parts_is_a_value_error():
    # Part counts whose product overflows 64 bits: refused, never an allocation that ends
    # the interpreter (so the call runs in a child process).
    script = textwrap.dedent("""
        import phaseflow
        try:
            phaseflow.sweep(system="pendulum", method="verlet", ensemble="disk", points=8,
                            dt=0.1, steps=2, backend="cpu",
                            sweep=["g=1:2:4294967296", "l=0.5:1.5:4294967296"])
        except ValueError as e:
            print("ValueError:", e)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ValueError: sweep=") and "more than 10000" in done.stdout


# The campaign: keyword arguments of every kind, each given values of the wrong kinds, drawn
# with a fixed seed. Each bad one must be a ValueError naming its keyword.
SWITCHES = ["save_states", "tangent", "reverse", "compensated", "force", "no_refine"]
NUMBERS = ["dt", "steps", "points", "radius", "snapshot_every", "checkpoint_every", "seed"]
PATHS = ["out", "input", "config", "method_file", "system_file"]
NOT_SWITCHES = ["false", "True", "", 0, 1, 1.0, [True], "yes"]
NOT_VALUES = [{"a": 1}, b"1", 1 + 2j, object(), [[1, 2]], ["a,b"], np.zeros((2, 2)), "1\0",
              "many", "-", float("nan")]
# Counts and sizes that cannot be negative (a negative step, dt=-0.05, is valid).
NOT_NEGATIVE = ["steps", "points", "radius", "snapshot_every", "checkpoint_every", "seed"]


def campaign_cases(seed=39, count=60):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        kind = rng.choice(["switch", "number", "negative", "path"])
        if kind == "switch":
            cases.append((rng.choice(SWITCHES), rng.choice(NOT_SWITCHES)))
        elif kind == "number":
            cases.append((rng.choice(NUMBERS), rng.choice(NOT_VALUES)))
        elif kind == "negative":
            cases.append((rng.choice(NOT_NEGATIVE), -rng.choice([1, 5, 1e-5, 1e300])))
        else:
            cases.append((rng.choice(PATHS), rng.choice(["x\0y", "\0", b"path", 7, ["a", "b"]])))
    return cases


@pytest.mark.parametrize("keyword,value", campaign_cases())
def test_campaign_bad_values_are_value_errors_naming_the_keyword(keyword, value, tmp_path):
    kw = dict(TINY, out=tmp_path / "r")
    kw[keyword] = value
    value_error(keyword, **kw)


def test_campaign_valid_unusual_forms_run(tmp_path):
    plain = phaseflow.run(**dict(TINY, center=[0.5, 0.25])).final_state
    forms = [dict(dt=0.05), dict(points=np.int64(64)), dict(steps=np.uint8(5)),
             dict(center=np.array([0.5, 0.25])), dict(center=(0.5, np.float32(0.25))),
             dict(tangent=np.bool_(False)), dict(compensated=False), dict(out=tmp_path / "p")]
    for form in forms:
        r = phaseflow.run(**{**TINY, "center": [0.5, 0.25], **form})
        assert r.final_state.tobytes() == plain.tobytes(), form


def test_notes_name_keyword_arguments_not_flags(capfd):
    # The library's note on the engine `auto` chose names its options as the caller set them.
    phaseflow.run(system="pendulum-variational", method="variational", ensemble="disk",
                  points=8, dt=0.05, steps=2, tangent=True, backend="auto", verbose=True)
    err = capfd.readouterr().err
    assert 'phaseflow: backend="auto": the GPU kernels of the discrete maps carry no tangent' in err, err
    assert "--" not in err, err


def test_the_compiled_run_takes_settings_not_arguments(tmp_path):
    # `run` hands its keyword arguments to the library's run builder as they are: no argv.
    summary = phaseflow._phaseflow.run(dict(TINY, out=tmp_path / "r", quiet=True), False)
    assert summary["out"] == str(tmp_path / "r") and summary["final_state"] is None
    with pytest.raises(ValueError, match=r"^dt='0.05': give a number$"):
        phaseflow._phaseflow.run(dict(TINY, dt="0.05", out=tmp_path / "s"), False)
