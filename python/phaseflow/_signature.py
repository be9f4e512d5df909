"""The package's signatures, written from the library's description of each entry point.

The compiled module's readers ask for every keyword by the kind of value it takes
(``_phaseflow.keywords``); the options in each public function's signature are that list,
written between the markers ``# options of COMMAND`` and ``# end of options`` in
``phaseflow/__init__.py``. ``python python/phaseflow/_signature.py`` (with the package built
and installed) rewrites those blocks after an option was added to the library; the tests fail
while a block differs from what it would write, so a signature cannot drift from the library.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Tuple


def _compiled() -> Any:
    """The compiled module: the package's, or, run as a script, the installed package's
    loaded alone (its ``__init__.py`` is the file being rewritten, and need not import)."""
    if __package__:
        from . import _phaseflow
        return _phaseflow
    import importlib.machinery
    import importlib.util
    spec = importlib.util.find_spec("phaseflow")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("phaseflow is not installed: pip install ./python first")
    folder = Path(list(spec.submodule_search_locations)[0])
    for path in folder.iterdir():
        if path.name.startswith("_phaseflow.") and path.suffix in (".so", ".pyd"):
            loader = importlib.machinery.ExtensionFileLoader("phaseflow._phaseflow", str(path))
            module_spec = importlib.util.spec_from_loader(loader.name, loader)
            assert module_spec is not None
            module = importlib.util.module_from_spec(module_spec)
            loader.exec_module(module)
            return module
    raise SystemExit(f"{folder}: no compiled module")


_phaseflow = _compiled()

# Keywords of the library that a Python function takes in another form: ``quiet`` is
# ``verbose`` turned round (notes off unless asked for).
SET_OTHERWISE = {"quiet"}

# Each function with options: (its command, keywords it leaves to another function).
FUNCTIONS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "run": ("run", ("sweep",)),
    # The options of a whole run (its length, its folder) do not apply to an ensemble
    # advanced step by step; nor does the frequency analysis, which samples the whole run.
    "Ensemble": ("run", ("sweep", "steps", "out", "force", "shard", "reverse", "reference",
                         "checkpoint_every", "save_states", "store", "section", "section_max",
                         "frequencies", "frequency_stride")),
    "sweep": ("run", ()),
    "validate": ("validate", ()),
    "study": ("study", ()),
    "bench": ("bench", ()),
    "order": ("order", ()),
    "show_modified_hamiltonian": ("show-modified-hamiltonian", ()),
    "merge": ("merge", ()),
    "plot": ("plot", ()),
    "resume": ("resume", ()),
}

# Keywords a function requires beside those whose flags are required: the sweep's axes.
REQUIRED = {("sweep", "sweep")}


def options(function: str) -> List[Tuple[str, str, str, bool]]:
    """``function``'s options: (keyword, Python type, help, required), in the library's
    order."""
    command, leave_out = FUNCTIONS[function]
    return [(k, t, h, r or (function, k) in REQUIRED)
            for k, t, h, r in _phaseflow.keywords(command)
            if k not in SET_OTHERWISE and k not in leave_out]


def block(function: str, indent: str = "    ") -> str:
    """The options' lines of ``function``'s signature, as the source holds them (indented as
    its block: a class's ``__init__`` deeper than a function)."""
    lines = []
    for keyword, annotation, _, required in options(function):
        if required:
            lines.append(f"{indent}{keyword}: {annotation},")
        else:
            lines.append(f"{indent}{keyword}: Optional[{annotation}] = None,")
    return "\n".join(lines)


def doc(function: str) -> str:
    """The options' part of ``function``'s docstring: each keyword with its flag's help."""
    out = ["", "Options (the library's; None or left out: its default):"]
    for keyword, _, help_text, _ in options(function):
        text = " ".join(help_text.split()) or "see `phaseflow --help`."
        out.append(textwrap.fill(f"{keyword}: {text}", width=92, initial_indent="    ",
                                 subsequent_indent="        "))
    return "\n".join(out)


MARKER = re.compile(r"^(( +)# options of (\w+)\n)((?:(?!\2# ).*\n)*?)(\2# end of options)$", re.M)


def regenerated(source: str) -> str:
    """``source`` with every options block rewritten."""
    def lines(m: "re.Match[str]") -> str:
        body = block(m.group(3), m.group(2))
        return m.group(1) + (body + "\n" if body else "") + m.group(5)

    return MARKER.sub(lines, source)


def main() -> int:
    path = Path(__file__).with_name("__init__.py")
    source = path.read_text()
    new = regenerated(source)
    if new != source:
        path.write_text(new)
        print(f"{path}: options rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
