"""The report's front page (report/workflow.rst) and captions (report/doubting_*.rst, eval44b_arms.rst) rendered
as `snakemake --report` renders them (Jinja with the config, the job's params and the report's categories, then
docutils), for one build, two, the demo with the BEIR example and 44b Eval: no docutils system message, and each
build's own title and grading modes."""

import copy
import inspect
import io
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import snakemake.report
import yaml
from docutils.core import publish_parts
from jinja2 import Environment, StrictUndefined
from snakemake.report import Category

from demo_config import workflow_builds
from irdata.builds import deep_merge
from irdata.doubting.stages import report_settings

REPO = Path(__file__).resolve().parents[2]
CAPTIONS = sorted((REPO / "report").glob("*.rst"))
EVAL44B = "44b Eval"  # rules/report.smk's category of the 44b Eval figures


def snakemake_links() -> str:
    """The link targets Snakemake appends to every caption and to the front page (snakemake.report.auto_report),
    read from the installed Snakemake so that the check renders what it renders."""
    source = inspect.getsource(snakemake.report.auto_report)
    found = re.search(r'rst_links = textwrap\.dedent\(\s*"""(.*?)"""\s*\)', source, re.S)
    assert found, "snakemake.report.auto_report no longer builds rst_links: update this check"
    return textwrap.dedent(found.group(1))


def render(text: str, **context) -> tuple[str, str]:
    """(HTML body, docutils' messages) of a caption or the front page, as Snakemake renders them."""
    env = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined)
    rst = env.from_string(text + snakemake_links()).render(**context)
    messages = io.StringIO()
    body = publish_parts(rst, writer="html", settings_overrides={"warning_stream": messages})["body"]
    return body, messages.getvalue()


def configs(*overlays: str) -> tuple[dict, dict[str, dict]]:
    """The workflow's config and its builds' whole configs with config.yaml and `overlays` layered."""
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    for overlay in overlays:
        config = deep_merge(config, yaml.safe_load((REPO / overlay).read_text()))
    return config, workflow_builds(copy.deepcopy(config))


def categories(*names: str) -> dict:
    return {Category(name): {} for name in names}


def flat(html: str) -> str:
    """The words of an HTML body, without its tags."""
    return re.sub(r" ([,.:;)])", r"\1", " ".join(re.sub(r"<[^>]+>", " ", html).split()))


@pytest.mark.parametrize("names", [["Doubting MS MARCO"], ["Doubting MS MARCO", "Doubting BEIR example"],
                                   ["Doubting MS MARCO", "Doubting BEIR example", EVAL44B], [EVAL44B],
                                   ["Doubting MS MARCO: passage v1", "Doubting `odd` <name> *", EVAL44B]])
def test_the_front_page_lists_the_reports_builds_without_a_system_message(names):
    config, _ = configs("config/beir-example.yaml")
    body, messages = render((REPO / "report/workflow.rst").read_text(), snakemake=SimpleNamespace(config=config),
                            categories=categories(*names), files=[])
    assert not messages and "system-message" not in body, messages
    text = flat(body)
    count = f"{len(names)} build" + ("" if len(names) == 1 else "s")
    assert f"This report shows {count}, one category each" in text
    for name in names:
        assert re.search(r"<a [^>]*href=\"javascript:app.showCategory\('[^']+'\)\">" + re.escape(
            name.replace("<", "&lt;").replace(">", "&gt;")) + "</a>", body), name
    assert "``" not in text and "results/44b-eval" in text


def caption_context(config: dict, build: dict, names: list[str]) -> dict:
    params = SimpleNamespace(settings=report_settings(build))
    return {"snakemake": SimpleNamespace(config=config, params=params, wildcards={"build": build["build"]}),
            "categories": categories(*names), "files": [SimpleNamespace(target="grades.png", path="a/grades.png")]}


@pytest.mark.parametrize("caption", [c for c in CAPTIONS if c.name != "workflow.rst"], ids=lambda p: p.name)
def test_every_caption_renders_for_each_build_without_a_system_message(caption):
    config, builds = configs("config/beir-example.yaml")
    names = [b["doubting"]["title"] for b in builds.values()] + [EVAL44B]
    for build in builds.values():
        body, messages = render(caption.read_text(), **caption_context(config, build, names))
        assert not messages and "system-message" not in body, (build["build"], messages)
        assert "Doubting MS MARCO" not in flat(body)  # a caption is shared by builds: no build's title in it


def test_the_grades_caption_states_each_builds_grading_modes():
    config, builds = configs("config/beir-example.yaml")
    text = {name: flat(render((REPO / "report/doubting_grades.rst").read_text(),
                              **caption_context(config, build, []))[0]) for name, build in builds.items()}
    assert "The train split was graded query_only, the dev split answer_hinted: the two splits are not " \
           "comparable" in text["demo"]
    assert "Both splits were graded query_only." in text["beir-example"]
    assert "answer_hinted" not in text["beir-example"] and "not comparable" not in text["beir-example"]


def test_the_report_settings_are_each_builds_own():
    _, builds = configs("config/beir-example.yaml")
    assert report_settings(builds["demo"]) == {"title": "Doubting MS MARCO", "package_dir": "results/doubting-ms-marco",
                                               "grading": {"train": "query_only", "dev": "answer_hinted"},
                                               "beir": None}
    assert report_settings(builds["beir-example"]) == {
        "title": "Doubting BEIR example", "package_dir": "results/doubting-beir-example",
        "grading": {"train": "query_only", "dev": "query_only"},
        "beir": {"folder": "resources/beir-example", "qrels": {"train": "train", "dev": "test"}}}
