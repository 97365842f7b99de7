"""irdata.workdir: how a working folder elsewhere (`snakemake -d DIR`) names the workflow's files and the
config's inputs."""

from irdata.workdir import input_file, resolve_config_inputs, workflow_file


def test_a_workflow_file_is_relative_inside_the_working_folder_and_absolute_outside(tmp_path):
    repo, scratch = tmp_path / "repo", tmp_path / "scratch"
    (repo / "prompts").mkdir(parents=True)
    scratch.mkdir()
    assert workflow_file("prompts/grade.txt", repo, repo) == "prompts/grade.txt"
    assert workflow_file("prompts/grade.txt", repo, scratch) == f"{repo}/prompts/grade.txt"
    assert workflow_file("prompts/grade.txt", repo, repo / "prompts") == "grade.txt"


def test_an_input_is_the_working_folders_unless_only_the_workflow_has_it(tmp_path):
    repo, run = tmp_path / "repo", tmp_path / "run"
    (repo / "resources/demo").mkdir(parents=True)
    (repo / "resources/demo/collection.tsv").write_text("1\tx\n")
    (repo / "both.tsv").write_text("")
    run.mkdir()
    (run / "both.tsv").write_text("")
    assert input_file("resources/demo/collection.tsv", repo, run) == f"{repo}/resources/demo/collection.tsv"
    assert input_file("both.tsv", repo, run) == "both.tsv"  # the working folder's own file wins
    assert input_file("missing.tsv", repo, run) == "missing.tsv"  # reported missing where the user put it
    assert input_file("/abs/x.tsv", repo, run) == "/abs/x.tsv"
    assert input_file(None, repo, run) is None
    # from the workflow folder itself nothing changes
    assert input_file("resources/demo/collection.tsv", repo, repo) == "resources/demo/collection.tsv"


def test_every_input_of_the_config_is_resolved(tmp_path):
    repo, run = tmp_path / "repo", tmp_path / "run"
    run.mkdir()
    names = ["c", "tq", "tr", "dq", "dr", "da", "h1", "h2", "aq", "aqq", "ar1", "ar2", "p", "r"]
    for name in names:
        (repo / "d").mkdir(parents=True, exist_ok=True)
        (repo / "d" / name).write_text("")
    config = {
        "doubting": {"collection": "d/c", "train_queries": "d/tq", "train_qrels": "d/tr", "dev_queries": "d/dq",
                     "dev_qrels": "d/dr", "dev_answers": "d/da", "heldout_queries": ["d/h1", "d/h2"],
                     "audit": {"qrels": "d/aq", "queries": "d/aqq", "runs": ["d/ar1", "d/ar2"]},
                     "package_dir": "results/x"},
        "eval44b": {"papers": "d/p", "reviews": "d/r", "release": "results/y"},
    }
    resolve_config_inputs(config, repo, run)
    d, e = config["doubting"], config["eval44b"]
    resolved = [d["collection"], d["train_queries"], d["train_qrels"], d["dev_queries"], d["dev_qrels"],
                d["dev_answers"], *d["heldout_queries"], d["audit"]["qrels"], d["audit"]["queries"],
                *d["audit"]["runs"], e["papers"], e["reviews"]]
    assert resolved == [f"{repo}/d/{name}" for name in names]
    assert d["package_dir"] == "results/x" and e["release"] == "results/y"  # outputs stay in the working folder
