"""Doubting MS MARCO: assembly of the per-shard LLM stage outputs into the released package."""
