"""44b Eval: paper-disjoint split, review queries, screened hard negatives, scored arms, release.

The build of `spec/44b-eval.card.txt`. Modules: `inputs` (readers and format converters),
`split`, `queries`, `screen` (false-negative screen), `mining`, `metrics`, `arms`, `package`.
"""
