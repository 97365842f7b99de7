"""The Hugging Face Hub's size_categories buckets, for both releases' card front matter."""

from __future__ import annotations

# (upper bound, name): n below the bound
SIZE_BUCKETS = [(10**3, "n<1K"), (10**4, "1K<n<10K"), (10**5, "10K<n<100K"), (10**6, "100K<n<1M"),
                (10**7, "1M<n<10M"), (10**8, "10M<n<100M"), (10**9, "100M<n<1B"), (10**10, "1B<n<10B"),
                (10**11, "10B<n<100B"), (10**12, "100B<n<1T")]
LARGEST_BUCKET = "n>1T"


def size_category(n_rows: int) -> str:
    """The Hub's size_categories bucket of `n_rows` (a bound itself falls in the bucket above it)."""
    if n_rows < 0:
        raise ValueError(f"row count must be >= 0, got {n_rows}")
    return next((name for bound, name in SIZE_BUCKETS if n_rows < bound), LARGEST_BUCKET)
