"""Check the built documentation site: a page per public name, and the site in a real browser.

    python docs/check_site.py [HTML_DIR] [--screenshots DIR] [--no-browser]

HTML_DIR defaults to ``docs/_build/html`` (build it first:
``sphinx-build -W -b html docs docs/_build/html``). Two kinds of checks:

1. Files (no browser): every name of ``metaeval.__all__`` has its API page (the functions and
   classes of the public modules ``metaeval.figures`` and ``metaeval.datasets`` too, their constants
   an entry on the module's page); every ``figures/fig_*.py`` has a gallery page with its figure;
   the CLI page lists every subcommand; the statistics pages show every registered statistic
   (the ``metaeval-statistics`` table) and the cluster-bootstrap coverage table.
2. Browser: the site is served on 127.0.0.1 and opened in headless Chromium (Debian's
   ``/usr/bin/chromium``), driven over the DevTools protocol. The search page must find
   ``cohen_kappa`` (with a link to its API page among the results); every page of the site is
   opened (of the generated API pages, a sample), and on each every image must load and the
   console must stay free of errors, failed requests and uncaught exceptions. Screenshots (the search results, the gallery, an API page) are kept in
   ``docs/_build/check_site/`` (or ``--screenshots``).

Exit status 0 when everything passes, 1 otherwise (each failure printed on its own line).
``tests/test_docs_site.py`` runs the same checks.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
DEFAULT_HTML = DOCS / "_build" / "html"
DEFAULT_SHOTS = DOCS / "_build" / "check_site"

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
                  "--window-size=1280,900"]
SEARCH_TERM = "cohen_kappa"
#: API pages opened in the browser (the other pages are all opened: see :func:`pages_to_visit`)
API_PAGES = ["api/index.html", "api/generated/metaeval.cohen_kappa.html", "api/generated/metaeval.Estimate.html",
             "api/generated/metaeval.figures.html", "api/generated/metaeval.figures.plot_forest.html"]
#: pages kept as screenshots (besides the search results)
SCREENSHOTS = {"gallery/index.html": True, "api/generated/metaeval.cohen_kappa.html": False,
               "statistics/index.html": False}


def pages_to_visit(html: Path) -> list[str]:
    """Every page of the site except the generated API pages (a sample of those) and search.html."""
    pages = [p.relative_to(html).as_posix() for p in sorted(html.glob("**/*.html"))
             if not p.relative_to(html).as_posix().startswith(("api/", "_"))]
    pages = [p for p in pages if p != "search.html"]
    return ["index.html", *[p for p in pages if p != "index.html"], *API_PAGES]


# -- files ---------------------------------------------------------------------------------------

def expected_pages() -> dict[str, str]:
    """``{public name: API page path relative to the site}``, plus ``name#anchor`` for module constants."""
    import inspect

    import metaeval

    out = {}
    for name in metaeval.__all__:
        if name == "__version__":
            continue
        obj = getattr(metaeval, name)
        out[f"metaeval.{name}"] = f"api/generated/metaeval.{name}.html"
        if inspect.ismodule(obj):
            for sub in getattr(obj, "__all__", []):
                member = getattr(obj, sub)
                full = f"metaeval.{name}.{sub}"
                if inspect.isfunction(member) or inspect.isclass(member):
                    out[full] = f"api/generated/{full}.html"
                else:
                    out[full] = f"api/generated/metaeval.{name}.html#{full}"
    return out


def check_files(html: Path) -> list[str]:
    """Failures of the file checks (an empty list when all pass)."""
    fails = []
    for name, page in expected_pages().items():
        path, _, anchor = page.partition("#")
        f = html / path
        if not f.is_file():
            fails.append(f"no API page for {name}: {path} is missing")
        elif anchor and f'id="{anchor}"' not in f.read_text(encoding="utf-8"):
            fails.append(f"no entry for {name} on {path} (anchor #{anchor})")
    for script in sorted((ROOT / "figures").glob("fig_*.py")):
        page = html / "gallery" / f"{script.stem}.html"
        if not page.is_file():
            fails.append(f"no gallery page for figures/{script.name}")
        elif not re.search(rf'<img[^>]*src="[^"]*sphx_glr_{script.stem}_\d+\.png"', page.read_text(encoding="utf-8")):
            fails.append(f"gallery page {page.name} shows no figure")
    stats_pages = sorted((html / "statistics").glob("**/*.html"))
    if not stats_pages:
        fails.append("the statistics reference (statistics/*.html) is missing")
    else:
        from metaeval.core import registry

        text = "".join(p.read_text(encoding="utf-8") for p in stats_pages)
        for name in registry.names():
            if f">{name}<" not in text:
                fails.append(f"the statistics reference does not show the registered statistic {name!r}")
        if "coverage of nominal 95%" not in text:
            fails.append("the statistics reference does not show the cluster-bootstrap coverage table")
    cli = html / "cli.html"
    if cli.is_file():
        from metaeval.cli import build_parser

        text = cli.read_text(encoding="utf-8")
        commands = [a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"]
        for name in commands[0].choices if commands else []:
            if f"metaeval {name}" not in text:
                fails.append(f"cli.html does not describe the subcommand {name!r}")
    else:
        fails.append("cli.html is missing")
    return fails


# -- serving -------------------------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - silence the access log
        pass


@contextlib.contextmanager
def serve(html: Path):
    """Serve ``html`` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# -- the browser -----------------------------------------------------------------------------------

def find_chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """Headless Chromium driven over the DevTools protocol (one page target, one websocket)."""

    def __init__(self, executable: str):
        import websocket  # websocket-client (the docs extra)

        self.profile = tempfile.mkdtemp(prefix="metaeval-chromium-")
        port = _free_port()
        self.proc = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", f"--remote-debugging-port={port}",
             "--remote-allow-origins=*", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        targets = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    targets = [t for t in json.load(r) if t.get("type") == "page"]
                if targets:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.proc.returncode}")
            time.sleep(0.2)
        if not targets:
            self.close()
            raise RuntimeError("chromium's DevTools endpoint did not come up within 30 s")
        self.ws = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=30,
                                              suppress_origin=True)
        self._id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params):
        self._id += 1
        mid = self._id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def pump(self, seconds: float) -> None:
        """Collect events for ``seconds``."""
        import websocket

        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                msg = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                break
            if "method" in msg:
                self.events.append(msg)
        self.ws.settimeout(30)

    def evaluate(self, expression: str):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluate failed: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def goto(self, url: str, timeout: float = 30) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(e["method"] == "Page.loadEventFired" for e in self.events):
                break
            self.pump(0.2)
        else:
            raise RuntimeError(f"{url} did not finish loading within {timeout:.0f} s")

    def wait_for(self, expression: str, timeout: float = 20):
        """Poll a JavaScript expression until it is truthy; returns its last value."""
        end = time.monotonic() + timeout
        value = None
        while time.monotonic() < end:
            value = self.evaluate(expression)
            if value:
                return value
            self.pump(0.25)
        return value

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            h = self.evaluate("Math.min(document.documentElement.scrollHeight, 6000)")
            params["clip"] = {"x": 0, "y": 0, "width": 1280, "height": h, "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and failed requests among the collected events."""
        out = []
        urls = {e["params"]["requestId"]: e["params"]["request"]["url"]
                for e in self.events if e["method"] == "Network.requestWillBeSent"}
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                out.append(f"console.{p['type']}: {args}")
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append(f"uncaught exception: {d.get('exception', {}).get('description') or d.get('text')}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                entry = p["entry"]
                out.append(f"console error ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                out.append(f"request failed: {p.get('errorText')} for {urls.get(p.get('requestId'), '?')}")
            elif m == "Network.responseReceived" and p.get("response", {}).get("status", 200) >= 400:
                r = p["response"]
                out.append(f"HTTP {r['status']} for {r['url']}")
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)


IMAGES_JS = """(async () => {
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  return imgs.map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]);
})()"""


def check_browser(html: Path, shots: Path, chromium: str) -> tuple[list[str], dict]:
    """Failures of the browser checks and what was seen (number of search results, images per page)."""
    fails, seen = [], {"images": {}, "screenshots": []}
    with serve(html) as base:
        browser = Browser(chromium)
        try:
            # the search page, as the search box sends it
            browser.goto(f"{base}search.html?q={SEARCH_TERM}")
            # Sphinx's search appends results one by one, then writes "Search finished, found N pages ..."
            summary = browser.wait_for(
                "(() => { const s = document.querySelector('#search-results .search-summary');"
                "  return s && /found|did not match/.test(s.textContent) ? s.textContent : ''; })()", timeout=30) or ""
            found = re.search(r"found (\d+)", summary)
            count = int(found.group(1)) if found else 0
            listed = count and browser.wait_for(
                f"document.querySelectorAll('#search-results ul.search li').length >= {count}", timeout=10)
            if count and not listed:
                fails.append(f"search summary says {count} results but the page lists fewer")
            links = browser.evaluate(
                "Array.from(document.querySelectorAll('#search-results ul.search li a')).map(a => a.getAttribute('href'))")
            seen["search_results"] = count
            seen["search_links"] = (links or [])[:10]
            if not count:
                fails.append(f"search for {SEARCH_TERM!r} returned no results")
            elif not any("metaeval.cohen_kappa.html" in (h or "") for h in links):
                fails.append(f"search for {SEARCH_TERM!r} does not list the API page of cohen_kappa: {links[:5]}")
            browser.pump(0.5)
            seen["screenshots"].append(str(browser.screenshot(shots / "search_cohen_kappa.png")))
            fails += [f"search.html: {p}" for p in browser.problems()]

            for page in pages_to_visit(html):
                if not (html / page).is_file():
                    fails.append(f"{page} is missing")
                    continue
                browser.goto(base + page)
                images = browser.evaluate(IMAGES_JS) or []
                browser.pump(0.3)
                seen["images"][page] = len(images)
                fails += [f"{page}: image does not load: {src}" for src, ok in images if not ok]
                fails += [f"{page}: {p}" for p in browser.problems()]
                if page in SCREENSHOTS:
                    name = page.replace("/", "_").removesuffix(".html") + ".png"
                    seen["screenshots"].append(str(browser.screenshot(shots / name, full_page=SCREENSHOTS[page])))
        finally:
            browser.close()
    return fails, seen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html", nargs="?", default=str(DEFAULT_HTML), help="the built site (default docs/_build/html)")
    ap.add_argument("--screenshots", default=str(DEFAULT_SHOTS), help="where to keep the screenshots")
    ap.add_argument("--no-browser", action="store_true", help="only the file checks")
    args = ap.parse_args(argv)
    html = Path(args.html)
    if not (html / "index.html").is_file():
        print(f"check_site: no built site in {html} (run sphinx-build -W -b html docs {html} first)")
        return 1
    t0 = time.perf_counter()
    fails = check_files(html)
    print(f"files: {len(expected_pages())} public names checked, {len(fails)} problem(s)")
    if not args.no_browser:
        chromium = find_chromium()
        if chromium is None:
            fails.append("no chromium found (apt-get install chromium)")
        else:
            bfails, seen = check_browser(html, Path(args.screenshots), chromium)
            fails += bfails
            print(f"browser: search for {SEARCH_TERM!r}: {seen.get('search_results')} result(s); "
                  f"{len(seen['images'])} pages opened, {sum(seen['images'].values())} images loaded "
                  f"({seen['images'].get('gallery/index.html', 0)} on the gallery's index)")
            print("screenshots: " + ", ".join(seen["screenshots"]))
    for f in fails:
        print("FAIL", f)
    print(f"check_site: {'OK' if not fails else f'{len(fails)} failure(s)'} in {time.perf_counter() - t0:.1f} s")
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
