"""The gallery's sources: the figure scripts of ``figures/``, staged for sphinx-gallery.

sphinx-gallery wants a header file in the examples folder and a reStructuredText title in every
script's docstring. ``figures/`` is the project's figure folder (``figures/make_all.py`` renders it
without Sphinx), so instead of adding files there, :func:`stage_gallery` copies ``fig_*.py`` and
``_gallery.py`` into ``docs/_build/gallery_src/`` on every build, writes the header there, and gives
a script whose docstring has no underlined title one: its first sentence. The code shown and run
is the script's, byte for byte. :func:`reset_argv` makes each script write its files into
``_out/<script>/`` beside the staged copy instead of ``figures/out``, and :func:`scraper` shows the
PNG it wrote.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

HEADER = """\
Gallery
=======

Every figure of metaeval, with the script that draws it. Each script renders one figure from the
bundled sample data (:mod:`metaeval.datasets`) with the library's public statistics and the plot
functions of :mod:`metaeval.figures`; ``python figures/make_all.py`` renders them all (PDF, SVG and
PNG, byte-identical from run to run). The scripts import their shared settings and cached data
(seed, number of resamples, scales, the aligned sample data) from ``figures/_gallery.py``.
"""

_DOCSTRING = re.compile(r'\A(?P<pre>(?:[ \t]*#[^\n]*\n|[ \t]*\n)*)(?P<q>"""|\'\'\')(?P<body>.*?)(?P=q)', re.S)
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$", re.M)


def _title(first_paragraph: str, limit: int = 60) -> str:
    """A short title from a docstring's first paragraph.

    Its first sentence; if that is longer than ``limit`` characters, the sentence up to the first
    ", ", " (", "; " or ": " that leaves at least three words before it.
    """
    text = " ".join(first_paragraph.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    title = (m.group(1) if m else text).rstrip(".")
    if len(title) > limit:
        for cut in re.finditer(r", | \(|; |: ", title):
            head = title[: cut.start()]
            if len(head.split()) >= 3:
                return head
    return title


def with_title(source: str) -> str:
    """``source`` with an underlined title at the top of its module docstring (unchanged if it has one)."""
    m = _DOCSTRING.match(source)
    if m is None:
        raise ValueError("a gallery script needs a module docstring (its first sentence becomes the title)")
    body = m.group("body").strip("\n")
    paragraphs = body.split("\n\n")
    if len(paragraphs[0].splitlines()) > 1 and _UNDERLINE.match(paragraphs[0].splitlines()[1]):
        return source
    title = _title(paragraphs[0])
    new_body = "\n" + title + "\n" + "=" * len(title) + "\n\n" + body + "\n"
    q = m.group("q")
    return source[: m.start("q")] + q + new_body + q + source[m.end():]


def dependency_digest(figures: Path) -> str:
    """SHA-256 (16 hex digits) of ``figures/_gallery.py`` and the package's Python sources."""
    import metaeval

    h = hashlib.sha256()
    package = Path(metaeval.__file__).resolve().parent
    for path in [figures / "_gallery.py", *sorted(package.rglob("*.py"))]:
        if path.is_file():
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def stage_gallery(figures: Path, target: Path, gallery: Path | None = None) -> Path:
    """Copy the gallery scripts of ``figures`` into ``target`` (titles added) and write its header.

    Files are rewritten only when their text changes, so sphinx-gallery's checksums skip unchanged
    scripts on an incremental build. Stale copies (a script removed from ``figures/``) are deleted.
    ``gallery`` is sphinx-gallery's output folder: its checksums are dropped when ``_gallery.py`` or
    the package's sources changed since the last build, so the figures are drawn again.
    """
    target.mkdir(parents=True, exist_ok=True)
    wanted = {"GALLERY_HEADER.rst": HEADER}
    for path in sorted(figures.glob("fig_*.py")):
        wanted[path.name] = with_title(path.read_text(encoding="utf-8"))
    shared = figures / "_gallery.py"
    if shared.exists():
        wanted[shared.name] = shared.read_text(encoding="utf-8")
    for name, text in wanted.items():
        p = target / name
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
    for p in target.glob("*.py"):
        if p.name not in wanted:
            p.unlink()
    shutil.rmtree(target / "__pycache__", ignore_errors=True)
    # sphinx-gallery re-runs a script only when the script's text changed (its .md5 file in the
    # gallery folder); the figures also depend on _gallery.py and on the library, so when those
    # change the checksums are dropped and every script runs again
    if gallery is not None:
        digest = dependency_digest(figures)
        stamp = target / ".dependencies"
        if not stamp.exists() or stamp.read_text() != digest:
            for md5 in gallery.glob("*.md5"):
                md5.unlink()
            stamp.write_text(digest)
    return target


def _out_dir(src_file) -> Path:
    return Path(src_file).parent / "_out" / Path(src_file).stem


def reset_argv(gallery_conf, script_vars) -> list[str]:
    """Command-line arguments of a gallery script: a fresh output folder of its own under ``_out/``."""
    out = _out_dir(script_vars["src_file"])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return [str(out.relative_to(Path(script_vars["src_file"]).parent))]


_shown: set[str] = set()


def scraper(block, block_vars, gallery_conf) -> str:
    """The figures a script wrote (its PNGs, as saved by :func:`metaeval.figures.save`).

    The figure scripts draw on Agg canvases without pyplot (:func:`metaeval.figures.subplots`),
    so sphinx-gallery's matplotlib scraper sees no figure; this one shows the PNG files the script
    wrote into its output folder — exactly the files ``figures/make_all.py`` writes.
    """
    from sphinx_gallery.scrapers import figure_rst

    out = _out_dir(block_vars["src_file"])
    new = [p for p in sorted(out.glob("*.png")) if str(p) not in _shown] if out.is_dir() else []
    paths = []
    for png, target in zip(new, block_vars["image_path_iterator"]):
        _shown.add(str(png))
        shutil.copyfile(png, target)
        paths.append(target)
    return figure_rst(paths, gallery_conf["src_dir"]) if paths else ""
