"""A Snakemake report opened in headless Chromium (Debian's `chromium`, which tools/install_chromium.sh installs):
what a reader sees of it and every script error on the way.

The report is a single-page app whose results are embedded in report.html. A copy of it gets two scripts: one
first in <head>, recording every error (uncaught, in a promise, or logged with console.error) before the
report's own scripts run, and tests/report_browser.js last, which walks the menu, each category, its
subcategories and results, reading captions and showing each figure and table. Chromium runs the page under a
virtual time budget and prints the DOM, from which the walk's record is read back. Nothing is downloaded.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
# first in <head>: every error of the page, including those of the report's own scripts
RECORDER = """<script>
window.__reportCheck = {errors: [], categories: {}, done: false};
window.addEventListener("error", (e) => window.__reportCheck.errors.push(
    `${e.message} (${e.filename}:${e.lineno})`));
window.addEventListener("unhandledrejection", (e) => window.__reportCheck.errors.push(
    `unhandled rejection: ${e.reason}`));
const __consoleError = console.error;
console.error = (...args) => { window.__reportCheck.errors.push(`console.error: ${args.join(" ")}`);
                               __consoleError(...args); };
</script>"""
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio")
MARK = '<pre id="report-check">'  # where the walk leaves its record
INSTALL = "install Debian's chromium (as root: bash tools/install_chromium.sh)"


def chromium() -> str:
    """The browser's path; a missing one is an error that says how to install it (the test must not skip)."""
    path = shutil.which("chromium")
    if path is None:
        raise AssertionError(f"no `chromium` on PATH: {INSTALL}")
    return path


def instrumented(report: Path, copy: Path) -> Path:
    """`report` with the error recorder first in its <head> and the walk last in its <body>, written to `copy`."""
    page = report.read_text(encoding="utf-8")
    head, body_end = page.find("<head>"), page.rfind("</body>")
    if head < 0 or body_end < 0:
        raise AssertionError(f"{report}: no <head> or </body>: not a Snakemake HTML report")
    walk = "<script>" + (HERE / "report_browser.js").read_text(encoding="utf-8") + "</script>"
    head += len("<head>")
    copy.write_text(page[:head] + RECORDER + page[head:body_end] + walk + page[body_end:], encoding="utf-8")
    return copy


def open_report(report: Path, workdir: Path, budget_ms: int = 120_000, timeout: int = 600) -> dict:
    """What the walk saw: `errors` (script errors), `front` (the front page's text), `menu` (its entries) and
    `categories` ({category: {subcategories: {name: navbar text}, results: {path: {name, subcategory, caption,
    captionHtml, kind, rendered, title (a table's <h3>), text}}}}); `console`: Chromium's log of the page."""
    workdir.mkdir(parents=True, exist_ok=True)
    page = instrumented(report, workdir / "report_checked.html")
    proc = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={workdir / 'profile'}",
                           "--enable-logging=stderr", "--v=0", f"--virtual-time-budget={budget_ms}", "--dump-dom",
                           page.as_uri()], capture_output=True, text=True, timeout=timeout)
    # the last one: the walk's script, in the page too, names the element
    start = proc.stdout.rfind(MARK)
    found = start >= 0 and re.match(r"(.*?)</pre>", proc.stdout[start + len(MARK):], re.S)
    if proc.returncode != 0 or not found:
        raise AssertionError(f"chromium did not finish the walk of {report} (exit {proc.returncode}):\n"
                             f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    seen = json.loads(html.unescape(found.group(1)))
    seen["console"] = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return seen
