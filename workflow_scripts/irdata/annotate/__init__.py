"""The LLM stages of a Doubting build: agent search, grading, answer generation and WOOD."""
