"""The signatures of the package's functions against the library: every option the library
reads is a typed keyword of the function, written from the library's own description (a
new option of the command line that Python misses fails here), and mypy --strict passes on a
file calling every function with its keywords."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import phaseflow
from phaseflow import _phaseflow, _signature


def keyword_of(flag):
    return "params" if flag == "param" else flag.replace("-", "_")


@pytest.mark.parametrize("command", sorted({c for c, _ in _signature.FUNCTIONS.values()}))
def test_the_library_reads_every_flag_of_its_command(command):
    # Each reader asks for its keywords by name: a flag added to the command line that no
    # reader asks for is missing from Python.
    flags = {keyword_of(name) for name, *_ in _phaseflow.flags(command)}
    read = {k for k, *_ in _phaseflow.keywords(command)}
    assert read == flags, f"missing from Python: {sorted(flags - read)}; not flags: {sorted(read - flags)}"


def test_every_signature_is_written_from_the_library():
    source = Path(phaseflow.__file__).read_text()
    regenerated = _signature.regenerated(source)
    assert regenerated == source, (
        "phaseflow/__init__.py's options differ from the library's: run "
        "`python python/phaseflow/_signature.py` and commit the result")
    assert source.count("# options of ") == len(_signature.FUNCTIONS)


@pytest.mark.parametrize("function", sorted(_signature.FUNCTIONS))
def test_each_option_is_a_typed_keyword(function):
    parameters = inspect.signature(getattr(phaseflow, function)).parameters
    for keyword, annotation, _, required in _signature.options(function):
        p = parameters[keyword]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, keyword
        want = annotation if required else f"Optional[{annotation}]"
        # Python keeps an annotation as its source, re-written (quotes normalised).
        assert p.annotation == ast.unparse(ast.parse(want)), (keyword, p.annotation, want)
        assert (p.default is inspect.Parameter.empty) == required, keyword
    assert "Options (the library's" in getattr(phaseflow, function).__doc__


def test_a_number_is_typed_as_a_number_and_a_choice_as_its_names():
    options = {k: t for k, t, _, _ in _signature.options("run")}
    assert options["dt"] == "float" and options["steps"] == "int"
    assert options["backend"] == 'Literal["auto", "gpu", "cpu"]'
    assert options["tangent"] == "bool" and options["params"] == "Mapping[str, float]"


def test_mypy_strict_passes_on_calls_with_every_keyword():
    typed = Path(__file__).with_name("typed_calls.py")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(typed)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_typed_calls_run(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import typed_calls
    finally:
        sys.path.pop(0)
    names = typed_calls.call_everything(tmp_path)
    assert names[:4] == ["Run", "Sweep", "Study", "dict"] and names[6] == "str"


def test_other_entry_points_refuse_bad_values_by_keyword(tmp_path):
    # No argv: each value read by kind, refused naming its keyword.
    with pytest.raises(ValueError, match=r"^points='many': give a whole number"):
        phaseflow.bench(points="many")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^no_gpu='false': give True or False"):
        phaseflow.bench(no_gpu="false")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^steps= must be at least 1"):
        phaseflow.bench(steps=0)
    # A value the command line's parser of the flag refuses, refused as it is.
    with pytest.raises(ValueError, match=r"^method=\"warp-drive\": "):
        phaseflow.order(out=tmp_path / "o", system="pendulum", method="warp-drive", dt=0.1)
    # Keywords whose flags exclude each other, as clap refuses the flags.
    with pytest.raises(ValueError, match="preset= and dt= exclude each other"):
        phaseflow.study(out=tmp_path / "s", preset="pendulum-disks", dt=0.1)
    with pytest.raises(ValueError, match="method_file= and method= exclude each other"):
        phaseflow.run(system="pendulum", method="verlet", method_file="m.toml",
                      ensemble="disk", dt=0.1, steps=2)
    # A required keyword.
    with pytest.raises(ValueError, match="^order= is required"):
        phaseflow._phaseflow.show_modified_hamiltonian({"system": "pendulum", "method": "verlet"})


def test_validate_refuses_what_it_does_not_use_naming_the_keyword():
    kw = dict(system="pendulum", method="verlet", ensemble="disk", points=8192, dt=0.1, steps=2)
    for extra, named in ((dict(shard="0/2"), "shard="), (dict(save_states=True), "save_states="),
                         (dict(max_nodes=5000), "refine_tol=/max_nodes=")):
        with pytest.raises(ValueError, match=f"^{named}: validate does not use it"):
            phaseflow.validate(**kw, **extra)  # type: ignore[arg-type]
    # A switch left off is not given.
    assert phaseflow.validate(**kw, save_states=False)["passed"]  # type: ignore[arg-type]


def test_study_takes_a_list_of_steps_and_step_sizes(tmp_path):
    s = phaseflow.study(out=tmp_path / "s", system="pendulum", methods=["euler", "verlet"],
                        ensemble="circle", points=32, dt=[0.1, 0.05], steps=[10, 20],
                        portraits=2)
    assert s.summary is not None and (tmp_path / "s" / "report.md").is_file()
