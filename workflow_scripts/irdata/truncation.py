"""How training, scoring and evaluation cut texts: the first `chars` characters (0: the whole text)."""


def truncate(text: str, chars: int) -> str:
    return text[:chars] if chars else text
