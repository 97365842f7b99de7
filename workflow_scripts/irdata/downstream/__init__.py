"""Downstream comparison of the Doubting MS MARCO release: bi-encoders trained on its positives and on the
official ones, evaluated zero-shot (labels.py, evaluation.py, significance.py; rules/downstream.smk)."""
