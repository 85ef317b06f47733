"""Reports: every table as CSV and LaTeX (booktabs), every figure, Markdown, self-contained HTML, JSON.

A :class:`Report` collects sections, tables and figures and writes, into one folder:

* ``report.md`` and ``report.html`` (figures embedded as data URIs, no external resources);
* ``tables/<name>.csv`` and ``tables/<name>.tex`` for every table;
* ``figures/<name>.{png,svg,pdf}`` for every figure;
* ``results.json`` with all tables, the package versions and the seeds.

Files are deterministic: same inputs and seed → byte-identical output (no timestamps; rounding only
here, in the rendering). :func:`run_study` runs a study file (TOML) through the library; the bundled
demo study is ``metaeval/data_samples/demo_study.toml``.
"""

from __future__ import annotations

import base64
import html
import json
import os
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__

__all__ = ["Report", "to_latex", "versions", "progress"]


def versions() -> dict:
    """Versions of Python, metaeval and its main dependencies (recorded in results.json)."""
    import importlib.metadata as md

    out = {"python": platform.python_version(), "metaeval": __version__}
    for pkg in ("numpy", "scipy", "pandas", "statsmodels", "pyarrow", "matplotlib", "ir-measures", "pingouin"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:  # pragma: no cover
            out[pkg] = None
    return out


def progress(iterable, desc: str = "", total: int | None = None, stream=None):
    """Yield from ``iterable``, drawing a one-line progress bar on a terminal.

    Quiet when the stream is not a TTY (piped output, files) or when ``CI`` is set.
    """
    stream = stream or sys.stderr
    quiet = not getattr(stream, "isatty", lambda: False)() or os.environ.get("CI")
    if quiet:
        yield from iterable
        return
    items = list(iterable) if total is None else iterable
    total = len(items) if total is None else total
    for i, item in enumerate(items, start=1):
        done = int(30 * i / max(total, 1))
        stream.write(f"\r{desc} [{'#' * done}{'.' * (30 - done)}] {i}/{total}")
        stream.flush()
        yield item
    stream.write("\n")


# --------------------------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------------------------

def _fmt(v, digits=4) -> str:
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return ""
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}f}"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    return str(v)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in s)


def to_latex(df: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 4) -> str:
    """A booktabs LaTeX table (``\\toprule``/``\\midrule``/``\\bottomrule``), numbers right-aligned."""
    cols = [str(c) for c in df.columns]
    align = "".join("r" if df[c].dtype.kind in "biuf" else "l" for c in df.columns)
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{_tex(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [rf"\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(_tex(c) for c in cols) + r" \\", r"\midrule"]
    for row in df.itertuples(index=False):
        lines.append(" & ".join(_tex(_fmt(v, digits)) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def _md_table(df: pd.DataFrame, digits: int = 4) -> str:
    cols = [str(c) for c in df.columns]
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(_fmt(v, digits).replace("|", "\\|") for v in row) + " |")
    return "\n".join(out)


def _html_table(df: pd.DataFrame, digits: int = 4) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        cells = "".join(
            f"<td class=\"num\">{html.escape(_fmt(v, digits))}</td>" if isinstance(v, (int, float, np.number))
            and not isinstance(v, bool) else f"<td>{html.escape(_fmt(v, digits))}</td>" for v in row)
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _jsonable(df: pd.DataFrame):
    return json.loads(df.to_json(orient="records", double_precision=10))


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em}h2{font-size:1.3em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.88em}
th,td{padding:.25em .7em;border-bottom:1px solid #e5e5e5;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}thead th{border-bottom:2px solid #444}
figure{margin:1em 0 2em}figure img{max-width:100%;height:auto}figcaption,.caption{color:#555;font-size:.9em}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.85em}
"""

# marks the page once every image has loaded (the browser test reads it from the DOM)
_JS = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.every(function (im) { return im.complete && im.naturalWidth > 0; });
  document.body.setAttribute('data-images', imgs.length);
  document.body.setAttribute('data-images-loaded', ok ? 'true' : 'false');
});
"""


class Report:
    """Collects sections, text, tables and figures, and writes the report folder.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> r = Report("Example")
    >>> r.section("Agreement")
    >>> r.table("kappa", pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.6033]}))
    >>> out = r.write(tempfile.mkdtemp())
    >>> sorted(p.name for p in out.iterdir())
    ['report.html', 'report.md', 'results.json', 'tables']
    """

    def __init__(self, title: str, *, intro: str = "", meta: dict | None = None):
        self.title = title
        self.blocks: list[tuple] = []
        self.tables: dict[str, pd.DataFrame] = {}
        self.figures: dict[str, object] = {}
        self.meta = dict(meta or {})
        if intro:
            self.text(intro)

    def section(self, title: str, text: str = ""):
        self.blocks.append(("section", title))
        if text:
            self.text(text)

    def text(self, text: str):
        self.blocks.append(("text", text))

    def code(self, text: str):
        self.blocks.append(("code", text))

    def table(self, name: str, df: pd.DataFrame, caption: str = "", *, columns=None, digits: int = 4):
        """Add a table (all columns go to CSV/LaTeX/JSON; ``columns`` limits what the pages show)."""
        if name in self.tables:
            raise ValueError(f"duplicate table name {name!r}")
        self.tables[name] = df.reset_index(drop=True)
        self.blocks.append(("table", name, caption, list(columns) if columns is not None else None, digits))

    def figure(self, name: str, fig, caption: str = ""):
        """Add a matplotlib figure (saved as PNG, SVG and PDF; the PNG is embedded in the HTML)."""
        if name in self.figures:
            raise ValueError(f"duplicate figure name {name!r}")
        self.figures[name] = fig
        self.blocks.append(("figure", name, caption))

    # ----------------------------------------------------------------------------------------
    def write(self, out) -> Path:
        from ..output.figures import save

        out = Path(out)
        (out / "tables").mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            df.to_csv(out / "tables" / f"{name}.csv", index=False, float_format="%.10g", lineterminator="\n")
            (out / "tables" / f"{name}.tex").write_text(to_latex(df, caption=name.replace("_", " "),
                                                                 label=f"tab:{name}"), encoding="utf-8")
        pngs = {}
        if self.figures:
            (out / "figures").mkdir(parents=True, exist_ok=True)
            for name, fig in self.figures.items():
                save(fig, out / "figures" / name)
                pngs[name] = (out / "figures" / f"{name}.png").read_bytes()
        md = [f"# {self.title}", ""]
        body = [f"<h1>{html.escape(self.title)}</h1>"]
        for block in self.blocks:
            kind = block[0]
            if kind == "section":
                md += [f"## {block[1]}", ""]
                body.append(f"<h2>{html.escape(block[1])}</h2>")
            elif kind == "text":
                md += [block[1], ""]
                body.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "code":
                md += ["```", block[1], "```", ""]
                body.append(f"<pre>{html.escape(block[1])}</pre>")
            elif kind == "table":
                _, name, caption, columns, digits = block
                df = self.tables[name]
                show = df[columns] if columns else df
                cap = f"{caption} (`tables/{name}.csv`)" if caption else f"`tables/{name}.csv`"
                md += [f"*{cap}*", "", _md_table(show, digits), ""]
                body.append(f"<p class=\"caption\">{html.escape(caption or name)} "
                            f"(<code>tables/{html.escape(name)}.csv</code>, <code>.tex</code>)</p>")
                body.append(_html_table(show, digits))
            elif kind == "figure":
                _, name, caption = block
                md += [f"![{caption or name}](figures/{name}.png)", ""]
                b64 = base64.b64encode(pngs[name]).decode("ascii")
                body.append(f"<figure><img alt=\"{html.escape(caption or name)}\" src=\"data:image/png;base64,{b64}\">"
                            f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        (out / "report.md").write_text("\n".join(md), encoding="utf-8")
        page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.title)}</title><style>{_CSS}</style><script>{_JS}</script></head>"
                f"<body>\n{chr(10).join(body)}\n</body></html>\n")
        (out / "report.html").write_text(page, encoding="utf-8")
        results = {name: _jsonable(df) for name, df in self.tables.items()}
        results["_meta"] = {**self.meta, "versions": versions(), "tables": sorted(self.tables),
                            "figures": sorted(self.figures)}
        (out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True, allow_nan=True) + "\n",
                                          encoding="utf-8")
        return out
