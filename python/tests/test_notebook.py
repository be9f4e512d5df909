"""examples/liouville.ipynb runs from top to bottom (its last cell checks Liouville's theorem)
and shows its figures as Jupyter does."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "liouville.ipynb"


def test_liouville_notebook_runs_and_shows_its_figures(tmp_path, monkeypatch):
    # Jupyter's own inline backend, which draws into the cell's output without a display:
    # the notebook itself chooses none, so a Jupyter user sees its figures.
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 2, [o.get("output_type") for o in outputs]
    last = nb.cells[-1].outputs[-1]["data"]["text/plain"]
    assert "symplectic Euler" in last
