"""The card's relevance scale, spelled once: every grade is one of GRADES, every grading call
chooses among CHOICES."""

GRADES = (0, 1, 2, 3)
CHOICES = tuple(str(g) for g in GRADES)
STRICT = 3  # the dev split's strict qrels (qrels/dev) hold the pairs of this grade
