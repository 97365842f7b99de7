"""A job of the kill -9 test: chats `n` prompts against a server, journaled; writes results.

usage: journal_worker.py BASE_URL JOURNAL OUT N
"""

import asyncio
import dataclasses
import json
import sys

from irdata.atomic import write_text_atomic
from irdata.llm import make_client


async def main(url, journal, out, n):
    settings = {"backend": "openai", "model": "fake", "base_urls": [url], "max_in_flight": 4}
    async with make_client(settings, journal_path=journal) as c:
        res = await c.chat_many([[{"role": "user", "content": f"REPLY:item {i}"}] for i in range(n)], progress=False)
        write_text_atomic(out, json.dumps({"texts": [r.text for r in res], "stats": dataclasses.asdict(c.stats)}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
