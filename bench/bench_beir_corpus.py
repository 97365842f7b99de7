"""Reading a BEIR corpus.jsonl (irdata.beir.read_beir_corpus: pyarrow's JSON reader, then the id and text
checks) against the TSV path's reader on the same passages (irdata.tsv.read_id_text_tsv, what
validate_msmarco_inputs reads collection.tsv with) and against a plain `json.loads` loop over the lines.

    python bench/bench_beir_corpus.py [--sizes 300000 1000000]

Synthetic passages of MS MARCO's shape (bench/synthetic.py) with a title of 3-8 of their words, written as
corpus.jsonl and as collection.tsv. Each read runs in a fresh interpreter: seconds and peak RSS (VmHWM).
Extrapolated on the line through the two largest sizes to 5.4M documents (FEVER and Climate-FEVER's
corpus, the largest BEIR training set).
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import CHUNK, linear, run_fresh, synthetic_table, write_tsv  # noqa: E402

# imported here, not timed: each read runs in a fresh interpreter that imports this module first
from irdata.beir import read_beir_corpus  # noqa: E402
from irdata.tsv import read_id_text_tsv  # noqa: E402

FEVER = 5_416_568


def write_corpus(table, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for batch in table.to_batches(CHUNK):
            for pid, text in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                words = text.split()
                title = " ".join(words[: 3 + len(pid) % 6])
                fh.write(json.dumps({"_id": pid, "title": title, "text": text, "metadata": {}}) + "\n")


def read_beir(path):
    return read_beir_corpus(path).num_rows


def read_tsv(path):
    return read_id_text_tsv(path).num_rows


def read_loop(path):
    """The plain baseline: a dict per line, as a first script would read the file."""
    docs = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            docs[record["_id"]] = (record.get("title", ""), record["text"])
    return len(docs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[300_000, 1_000_000])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            table = synthetic_table(n)
            corpus, tsv = Path(tmp) / f"corpus{n}.jsonl", Path(tmp) / f"collection{n}.tsv"
            write_corpus(table, corpus)
            write_tsv(table, tsv)
            del table
            runs = {name: run_fresh("bench_beir_corpus", name, str(path))
                    for name, path in (("read_beir", corpus), ("read_tsv", tsv), ("read_loop", corpus))}
            assert {r["result"] for r in runs.values()} == {n}
            rows.append({"n": n, "MB": corpus.stat().st_size / 2**20,
                         **{f"{name} s": r["seconds"] for name, r in runs.items()},
                         **{f"{name} peak": r["peak_mb"] for name, r in runs.items()}})
            print(rows[-1], flush=True)
    print("\n| documents | corpus.jsonl MB | seconds: BEIR reader / TSV reader / json.loads loop "
          "| peak RSS MB: BEIR / TSV / loop |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['MB']:.0f} | {r['read_beir s']:.1f} / {r['read_tsv s']:.1f} / {r['read_loop s']:.1f} "
              f"| {r['read_beir peak']:.0f} / {r['read_tsv peak']:.0f} / {r['read_loop peak']:.0f} |")
    sizes = [r["n"] for r in rows]
    at = {key: linear(sizes, [r[key] for r in rows], at=FEVER) for key in rows[-1] if key.endswith((" s", " peak"))}
    print(f"\nExtrapolated to {FEVER:,} documents on the line through {sizes[-2:]}: BEIR reader "
          f"{at['read_beir s']:.0f} s and {at['read_beir peak'] / 1024:.1f} GB peak; "
          f"TSV reader {at['read_tsv s']:.0f} s, "
          f"{at['read_tsv peak'] / 1024:.1f} GB; json.loads loop {at['read_loop s']:.0f} s, "
          f"{at['read_loop peak'] / 1024:.1f} GB. BEIR reader / loop: "
          f"{rows[-1]['read_beir s'] / rows[-1]['read_loop s']:.2f}x the time at {sizes[-1]:,}.")


if __name__ == "__main__":
    main()
