"""The example notebooks run from top to bottom and show their figures as Jupyter does:
examples/liouville.ipynb (its last cell checks Liouville's theorem) and
examples/chaos_and_sections.ipynb (a MEGNO map and a Poincaré section from `to_xarray`, its
last cell checking the chaotic fraction against the run's own)."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _executed(name, tmp_path, monkeypatch):
    # Jupyter's own inline backend, which draws into the cell's output without a display:
    # the notebook itself chooses none, so a Jupyter user sees its figures.
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(EXAMPLES / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    return nb, outputs


def test_liouville_notebook_runs_and_shows_its_figures(tmp_path, monkeypatch):
    nb, outputs = _executed("liouville.ipynb", tmp_path, monkeypatch)
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 2, [o.get("output_type") for o in outputs]
    last = nb.cells[-1].outputs[-1]["data"]["text/plain"]
    assert "symplectic Euler" in last


def test_chaos_notebook_runs_and_shows_its_map_and_section(tmp_path, monkeypatch):
    nb, outputs = _executed("chaos_and_sections.ipynb", tmp_path, monkeypatch)
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 2, [o.get("output_type") for o in outputs]
    last = nb.cells[-1].outputs[-1]["data"]["text/plain"]
    assert "points on the surface, chaotic fraction" in last, last
