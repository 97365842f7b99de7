"""Automatic prefix caching as vLLM does it, for any per-block value: a prompt's full blocks of
`block_size` tokens are each keyed by a hash chained over every token before and in it, so a block is
found only after the same whole prefix (sha256, as vLLM has used since hash collisions were shown to
mix prompts). A prompt reuses its leading run of cached blocks, never its
last token (at least one is computed), and then caches all its full blocks. At most `capacity` blocks
are kept, least recently used first out; a prompt's blocks are touched tail first, so its head, shared
by more prompts, outlives its tail (vLLM frees a request's blocks in reverse order).

The local backend keeps each block's key/value states here (irdata/llm/local.py); the test server
keeps nothing and only counts what vLLM would have reused (tests/model_server.py).
"""

from __future__ import annotations

import hashlib
from array import array
from collections import OrderedDict
from collections.abc import Sequence


class PrefixBlocks:
    def __init__(self, capacity: int, block_size: int):
        self.capacity, self.block_size = capacity, block_size
        self._blocks: OrderedDict[bytes, object] = OrderedDict()

    def keys(self, token_ids: Sequence[int]) -> list[bytes]:
        """The chained key of each full block of the prompt."""
        size, keys, h = self.block_size, [], b""
        for start in range(0, len(token_ids) - size + 1, size):
            h = hashlib.sha256(h + array("q", token_ids[start:start + size]).tobytes()).digest()
            keys.append(h)
        return keys

    def reusable(self, keys: list[bytes]) -> list:
        """The values of the leading run of `keys` that is cached (a caller leaves out the block of a
        prompt's last token)."""
        found = []
        for key in keys:
            if key not in self._blocks:
                break
            found.append(self._blocks[key])
        return found

    def store(self, keys: list[bytes], values: Sequence) -> None:
        """Cache the blocks `keys` (a prompt's leading full blocks) with their values, tail first."""
        if self.capacity <= 0:
            return
        for key, value in reversed(list(zip(keys, values))):
            self._blocks[key] = value
            self._blocks.move_to_end(key)
        while len(self._blocks) > self.capacity:
            self._blocks.popitem(last=False)
