"""Retriever training through sentence-transformers' trainers: the one room the 44b fine-tunes and the
downstream comparison both train in (neither family imports the other)."""
