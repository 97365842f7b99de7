"""The card's relevance scale, spelled once: every grade is one of GRADES, every grading call
chooses among CHOICES."""

GRADES = (0, 1, 2, 3)
CHOICES = tuple(str(g) for g in GRADES)
STRICT = 3  # dev strict qrels: grade 3
