"""Render every figure of the gallery: each ``fig_*.py`` script beside this file.

    python figures/make_all.py [OUT_DIR]

Writes ``<name>.pdf``, ``<name>.svg`` and ``<name>.png`` per figure into ``figures/out/`` (or
OUT_DIR). The seed and bootstrap sizes are fixed (``_gallery.py``), and
:func:`metaeval.figures.save` leaves time stamps out, so a second run writes byte-identical files.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts() -> list[Path]:
    """The figure scripts, in name order."""
    return sorted(HERE.glob("fig_*.py"))


def load(path: Path):
    """Import a figure script as a module (the gallery folder is put on sys.path for ``_gallery``)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(f"metaeval_gallery_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def render_all(out=None, *, verbose: bool = False) -> list[Path]:
    """Render every figure into ``out`` (default ``figures/out``); returns the written files."""
    import _gallery  # noqa: F401  (after load() put HERE on sys.path)

    written = []
    for path in scripts():
        t0 = time.perf_counter()
        files = load(path).render(out)
        written += files
        if verbose:
            print(f"{path.stem:<24} {time.perf_counter() - t0:5.1f} s  " + ", ".join(p.name for p in files))
    return written


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import _gallery

    out = _gallery.out_dir(argv)
    t0 = time.perf_counter()
    files = render_all(out, verbose=True)
    print(f"{len(files)} files written to {out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
