"""The browser check of the report (tests/report_browser.py) on a report of a few lines' workflow, made with the
same Snakemake: it sees each category under its name with its figure and table, and it fails where a reader
would see something wrong: a script error on the page, a docutils system message in a caption."""

import subprocess
import sys

import pytest

from report_browser import open_report

pytestmark = pytest.mark.workflow

SNAKEFILE = """\
report: "front.rst"
TITLES = {"good": "Doubting Good: v1", "bad": "Doubting Bad"}
SHOWN = dict(caption="caption.rst", category=lambda w: TITLES[w.b])
rule all:
    input: expand("out/{b}/{f}", b=TITLES, f=("table.html", "figure.png")), "out/arms.html"
# a category of one result and no subcategory, as 44b Eval's
rule arms:
    output: report("out/arms.html", caption="front.rst", category="44b Eval")
    shell: "echo '<html><body><h3>44b Eval: arms</h3></body></html>' > {output}"
rule make:
    output:
        table=report("out/{b}/table.html", subcategory="Tables", **SHOWN),
        figure=report("out/{b}/figure.png", subcategory="Figures", **SHOWN),
    params: title=lambda w: TITLES[w.b]
    run:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        open(output.table, "w").write(f"<html><body><h3>{params.title}: a table</h3></body></html>")
        plt.plot([0, 1])
        plt.savefig(output.figure)
"""
CAPTIONS = {
    "front.rst": "This report shows {{ categories|length }} builds.\n",
    # the bad build's caption leaves a literal open (docutils prints a system message into it) and runs a script
    # that fails
    "caption.rst": "The figures of {{ snakemake.params.title }}.\n"
                   "{% if snakemake.wildcards.b == 'bad' %}\nThe ``package.\n\n.. raw:: html\n\n"
                   "   <img src='missing.png' onerror=\"throw new Error('the caption broke')\">\n{% endif %}\n",
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report_browser")
    (root / "Snakefile").write_text(SNAKEFILE)
    for name, text in CAPTIONS.items():
        (root / name).write_text(text)
    for args in (["--cores", "1"], ["--report", "report.html"]):
        subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=root, check=True, capture_output=True,
                       timeout=600)
    return open_report(root / "report.html", root / "browser")


def test_it_sees_each_category_with_its_figure_table_and_caption(report):
    assert report["done"] and "This report shows 3 builds." in report["front"]
    good = report["categories"]["Doubting Good: v1"]
    assert set(good["subcategories"]) == {"Figures", "Tables"}
    table, figure = good["results"]["out/good/table.html"], good["results"]["out/good/figure.png"]
    assert table["rendered"] and table["title"] == "Doubting Good: v1: a table"
    assert figure["rendered"] and figure["width"] > 0
    assert figure["caption"] == "The figures of Doubting Good: v1."
    assert "Doubting Good: v1" in report["menu"] and "Doubting Bad" in report["menu"]
    arms = report["categories"]["44b Eval"]["results"]["out/arms.html"]
    assert arms["rendered"] and arms["title"] == "44b Eval: arms" and arms["caption"] == "This report shows 3 builds."


def test_it_sees_a_script_error_and_a_system_message(report):
    assert any("the caption broke" in error for error in report["errors"]), report["errors"]
    bad = report["categories"]["Doubting Bad"]["results"]["out/bad/figure.png"]
    assert "System Message" in bad["captionHtml"]
    assert "System Message" not in str(report["categories"]["Doubting Good: v1"])
