"""The LLM layer: every LLM call of the workflow goes through `make_client(settings, journal_path=...)`.

Operations (async, journaled, bounded in flight, counted in `client.stats`): `chat`, `grade`,
`loglikelihood` and their batched `*_many` forms; `client.identity()` for the manifest.
Backends: `local` (SmolLM2-135M-Instruct in process, the demo and tests) and `openai` (any
OpenAI-compatible server: vLLM in production). Config: schemas/llm.schema.yaml.
"""

from .actions import ToolCall
from .client import LLMClient, SyncClient, journal_path_for, make_client, parse_choice
from .results import ChatResult, GradeResult, LLMCallError, Stats
from .settings import LLMSettings, load_settings

__all__ = [
    "ChatResult", "GradeResult", "LLMCallError", "LLMClient", "LLMSettings", "Stats", "SyncClient",
    "ToolCall", "journal_path_for", "load_settings", "make_client", "parse_choice",
]
