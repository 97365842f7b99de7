"""A job of the journal tests: chats `n` prompts against a server, journaled; writes results.

usage: journal_worker.py BASE_URL JOURNAL OUT N [PAD [FSIZE]]

Prompt i is "REPLY:item i" followed by PAD dots (longer journal lines). FSIZE: a file-size limit
in bytes (RLIMIT_FSIZE, SIGXFSZ ignored), so that writes past it are cut short and then fail with
EFBIG, as a full disk fails them.
"""

import asyncio
import dataclasses
import json
import resource
import signal
import sys

from irdata.atomic import write_text_atomic
from irdata.llm import make_client


async def main(url, journal, out, n, pad):
    settings = {"backend": "openai", "model": "fake", "base_urls": [url], "max_in_flight": 4}
    async with make_client(settings, journal_path=journal) as c:
        res = await c.chat_many([[{"role": "user", "content": f"REPLY:item {i}" + "." * pad}] for i in range(n)],
                                progress=False)
        write_text_atomic(out, json.dumps({"texts": [r.text for r in res], "stats": dataclasses.asdict(c.stats)}))


if __name__ == "__main__":
    if len(sys.argv) > 6:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[6]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    pad = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), pad))
