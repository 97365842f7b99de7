"""The cards' shared text helpers (irdata.card_text), and their templates as code: the code identity and
MANIFEST.json's code files cover them."""

import json
from pathlib import Path

import yaml

import irdata.provenance as provenance
from irdata import card_text
from irdata.code_identity import code_identity
from irdata.doubting.release_code import code_files

REPO = Path(__file__).resolve().parents[2]


def test_number_formats():
    assert card_text.count(1234567) == "1,234,567"
    assert card_text.decimal(0.12345) == "0.123" and card_text.decimal(2.5, 1) == "2.5"
    assert card_text.decimal(None) == card_text.percent(None) == "—"
    assert card_text.percent(0.1234) == "12.3%" and card_text.median(2.0) == "2"


def test_counted_takes_the_number_of_its_count():
    assert card_text.counted(1, "pair") == "1 pair" and card_text.counted(0, "pair") == "0 pairs"
    assert card_text.counted(2, "query", "queries") == "2 queries" and card_text.counted(1, "query", "queries") == (
        "1 query")
    assert card_text.counted(1234, "query has", "queries have") == "1,234 queries have"


def test_the_44b_card_counts_unresolvable_candidates_in_number():
    from irdata.eval44b.card import unresolvable_note

    census = {"unresolvable_schemes": ["web"], "test_unresolvable_negatives": 1, "test_unresolvable_positives": 0,
              "test_unresolvable_negatives_share": 0.01}
    assert unresolvable_note(census) == ("1 negative (1.0%) is a curated web document with no third-party identifier "
                                         "(scheme web) and is marked resolvable: false.")
    census.update(test_unresolvable_negatives=4, test_unresolvable_positives=1)
    assert unresolvable_note(census).startswith("4 negatives (1.0%), and 1 positive, are curated web documents")


def test_md_table():
    assert card_text.md_table(["a", "b"], [[1, "x"]]) == "| a | b |\n| --- | --- |\n| 1 | x |"


def test_front_matter_is_yaml_with_configs_in_order():
    configs = {"pairs": [("train", "train.jsonl"), ("validation", "val.jsonl")], "ranks": [("test", "r.jsonl")]}
    for scalar in (str, json.dumps):
        text = card_text.front_matter({"pretty_name": "X: y" if scalar is json.dumps else "X", "language": ["en"]},
                                      configs, scalar=scalar)
        assert text.startswith("---\n") and text.endswith("\n---\n")
        header = yaml.safe_load(text.strip("-\n"))
        assert header["language"] == ["en"]
        assert [c["config_name"] for c in header["configs"]] == ["pairs", "ranks"]
        assert header["configs"][0]["default"] is True and "default" not in header["configs"][1]
        assert header["configs"][0]["data_files"][1] == {"split": "validation", "path": "val.jsonl"}
    assert header["pretty_name"] == "X: y"  # quoted: any value is a valid scalar


def test_fill_reads_the_template_beside_the_module(tmp_path):
    module = tmp_path / "card.py"
    module.write_text("")
    (tmp_path / "templates" / "card").mkdir(parents=True)
    (tmp_path / "templates" / "card" / "a.md.tmpl").write_text("# $title\n")
    assert card_text.fill(module, "a.md.tmpl", {"title": "T"}) == "# T\n"
    assert card_text.part(module, "a.md.tmpl", {"title": "T"}) == "# T"


def test_a_modules_templates_are_in_its_code_identity(tmp_path):
    pkg = tmp_path / "workflow_scripts" / "irdata"
    (pkg / "templates" / "card").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "card.py").write_text("X = 1\n")
    (pkg / "other.py").write_text("Y = 1\n")
    (tmp_path / "workflow_scripts" / "rule_c.py").write_text("from irdata import card\n")
    (tmp_path / "workflow_scripts" / "rule_o.py").write_text("from irdata import other\n")
    template = pkg / "templates" / "card" / "README.md.tmpl"
    template.write_text("# $title\n")

    def h(script):
        provenance.module_templates.cache_clear()
        return code_identity(script, tmp_path)

    card, other = h("workflow_scripts/rule_c.py"), h("workflow_scripts/rule_o.py")
    template.write_text("# The $title\n")
    assert h("workflow_scripts/rule_c.py") != card  # the card's rule reruns
    assert h("workflow_scripts/rule_o.py") == other  # a rule that does not import the card does not


def test_the_cards_templates_are_their_rules_code_and_the_releases():
    def rel(paths):
        return {p.relative_to(REPO).as_posix() for p in paths}

    templates_44b = {"workflow_scripts/irdata/eval44b/templates/card/" + name for name in (
        "README.md.tmpl", "intro.md.tmpl", "intro_invented.md.tmpl", "text.md.tmpl", "text_invented.md.tmpl",
        "fine_tuned.md.tmpl")}
    assert templates_44b <= rel(provenance.script_files(REPO / "workflow_scripts/package_44b.py"))
    doubting = "workflow_scripts/irdata/doubting/templates/card/README.md.tmpl"
    assert doubting in rel(provenance.script_files(REPO / "workflow_scripts/stage_release.py"))
    recorded = code_files(REPO)
    assert doubting in recorded and not templates_44b & set(recorded)
