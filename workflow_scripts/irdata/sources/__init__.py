"""Input sources, one module per format (msmarco.py, beir.py, ir_datasets.py) behind one interface (base.py); the
registry that picks a build's source is registry.py. Nothing is imported here: a source's input check imports its
own module alone, so that another source's code is not part of its code identity."""
