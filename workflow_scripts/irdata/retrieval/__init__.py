"""Lexical (bm25s) and dense (sentence-transformers + faiss) retrieval over a passage collection.

Import the submodule you need (`.bm25`, `.dense`, `.search`): this file imports nothing, so the
code hash of a rule script covers only the retrieval modules that script really uses.
"""
