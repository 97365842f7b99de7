"""The LLM stages of Doubting MS MARCO: agent search, grading, answer generation and WOOD."""
