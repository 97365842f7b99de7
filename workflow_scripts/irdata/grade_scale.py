"""The card's relevance scale, spelled once: every grade is one of GRADES, every grading call
chooses among CHOICES."""

GRADES = (0, 1, 2, 3)
CHOICES = tuple(str(g) for g in GRADES)
MEANING = {
    0: "irrelevant",
    1: "marginally related",
    2: "relevant",
    3: "directly answering (an answer supported by the passage itself, including paraphrase or a short "
       "unambiguous inference)",
}
TRAIN_POSITIVE_MIN = 2  # train qrels: grade 2 or 3 (and a finite WOOD)
STRICT = 3  # dev strict qrels: grade 3
