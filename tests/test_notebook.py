"""Figures show in Jupyter without magic, and leave nothing open in scripts (#20 finding 2).

A notebook is executed with nbclient in a real IPython kernel: the value of a cell that ends with a
plot function is shown as a PNG (``image/png`` in the cell's output, at the figure's size), once.
Axes the caller takes from pyplot are shown by pyplot's inline backend, not twice. In a script,
fifty figures drawn in a loop are all freed (weak references dead, no Figure left in the garbage
collector's objects) and no pyplot figure is open.
"""

from __future__ import annotations

import base64
import gc
import struct
import sys
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval import figures

ROOT = Path(metaeval.__file__).resolve().parents[1]

FOREST = pd.DataFrame({"statistic": ["cohen_kappa", "gwet_ac1", "pabak"], "estimate": [0.60, 0.61, 0.58],
                       "ci_low": [0.50, 0.52, 0.49], "ci_high": [0.70, 0.70, 0.67]})

CELLS = [
    # the package the test imports (this worktree), whatever the kernel's sys.path holds
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport pandas as pd\nfrom metaeval import figures",
    "figures.plot_confusion([[85, 20], [20, 77]])",
    f"figures.plot_forest(pd.DataFrame({FOREST.to_dict(orient='list')!r}))",
    "figures.plot_confusion_panels({'a': [[5, 1], [2, 6]], 'b': [[4, 2], [1, 7]]})",
    "fig, ax = figures.subplots(figsize=(3, 2))\n_ = ax.plot([0, 1], [0, 1])\nfig",
    "ax = figures.plot_confusion([[5, 1], [2, 6]])",              # assigned: nothing shown, as for any value
    # the caller's pyplot Axes: pyplot's inline backend shows the figure; the returned Axes is plain
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nfigures.plot_confusion([[5, 1], [2, 6]], ax=ax)",
]


def _pngs(cell) -> list[tuple[bytes, dict]]:
    out = []
    for o in cell.outputs:
        if "image/png" in o.get("data", {}):
            out.append((base64.b64decode(o["data"]["image/png"]), o.get("metadata", {}).get("image/png", {})))
    return out


@pytest.fixture(scope="module")
def notebook():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3").execute()
    return nb


def notebook_cells_show_the_figures_test(notebook):
    cells = notebook.cells
    for i in (1, 2, 3, 4):
        pngs = _pngs(cells[i])
        assert len(pngs) == 1, (CELLS[i], cells[i].outputs)                 # shown, and shown once
        png, meta = pngs[0]
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[12 + 4:12 + 12])
        # rendered at 200 dpi, displayed at the figure's size (figure.dpi = 100): sharp on HiDPI screens
        assert (meta["width"], meta["height"]) == (round(width / 2), round(height / 2))
    assert cells[1].outputs[0]["output_type"] == "execute_result"
    assert "<NotebookAxes" in cells[1].outputs[0]["data"]["text/plain"]
    assert "AxesGrid" in cells[3].outputs[0]["data"]["text/plain"]
    assert _pngs(cells[4])[0][1] == {"width": 300, "height": 200}           # a 3 x 2 inch figure
    assert cells[5].outputs == []


def notebook_pyplot_axes_are_shown_by_pyplot_once_test(notebook):
    cell = notebook.cells[6]
    assert len(_pngs(cell)) == 1, cell.outputs
    kinds = sorted(o["output_type"] for o in cell.outputs)
    assert kinds == ["display_data", "execute_result"]                    # the picture, and the Axes' text
    result = next(o for o in cell.outputs if o["output_type"] == "execute_result")
    assert "image/png" not in result["data"] and result["data"]["text/plain"].startswith("<Axes:")


def returned_objects_carry_repr_png_only_for_the_package_figures_test():
    ax = figures.plot_forest(FOREST)
    png, meta = ax._repr_png_()
    assert png[:4] == b"\x89PNG" and meta["width"] == round(ax.figure.get_figwidth() * 100)
    grid = figures.plot_confusion_panels({"a": [[5, 1], [2, 6]], "b": [[4, 2], [1, 7]]})
    assert isinstance(grid, np.ndarray) and grid.shape == (2,) and grid._repr_png_()[0][:4] == b"\x89PNG"
    # Axes of someone else's figure come back as they were, with no picture of their own
    from matplotlib.figure import Figure

    own = Figure().subplots(1, 2)
    out = figures.plot_confusion_panels({"a": [[5, 1], [2, 6]], "b": [[4, 2], [1, 7]]}, axes=own)
    assert type(out[0]).__name__ == "Axes" and not hasattr(out[0], "_repr_png_")
    assert out._repr_png_() is None
    # a projection in subplot_kw is matplotlib's own class (no axes_class forced on it)
    _, polar = figures.subplots(subplot_kw={"projection": "polar"})
    assert polar.name == "polar"


def script_loop_leaves_no_figure_open_and_memory_flat_test():
    from matplotlib.figure import Figure

    def n_figures():
        gc.collect()
        return sum(isinstance(o, Figure) for o in gc.get_objects())

    figures.plot_confusion([[85, 20], [20, 77]])._repr_png_()        # warm-up: fonts, lazy imports
    before = n_figures()
    refs = []
    for i in range(50):
        ax = figures.plot_confusion([[85 + i, 20], [20, 77]])
        if i % 10 == 0:
            ax._repr_png_()             # the notebook's rendering path too
        refs.append(weakref.ref(ax.figure))
    del ax
    assert n_figures() == before        # no figure kept: nothing to close, memory flat
    assert all(r() is None for r in refs)
    if "matplotlib.pyplot" in sys.modules:              # (another test may have imported pyplot)
        assert sys.modules["matplotlib.pyplot"].get_fignums() == []
