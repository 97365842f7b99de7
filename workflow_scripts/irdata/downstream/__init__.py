"""Downstream comparison of a Doubting build's release: bi-encoders trained on its positives and on the
official ones, evaluated zero-shot (labels.py, evaluation.py, significance.py; rules/downstream.smk)."""
