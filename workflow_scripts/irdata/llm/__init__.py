"""The LLM layer: every LLM call of the workflow goes through `make_client(settings, journal_path=...)`.

Operations (async, journaled, bounded in flight, coalesced, counted in `client.stats`): `chat`,
`grade`, `loglikelihood` and their batched `*_many` forms; `client.identity()` for the manifest.
Backends (the `Backend` protocol): `local` (SmolLM2-135M-Instruct in process, the demo and tests)
and `openai` (any OpenAI-compatible server: vLLM in production). Config: schemas/llm.schema.yaml;
settings.py splits it into answer settings (rule params, journal keys) and connection settings.
Failures carry a kind (results.py); a job no base URL can serve raises ServersUnusable before its
first call (preflight.py); grades follow one grammar (grading.py); log-likelihoods one
contract (loglikelihood.py).
"""

from .actions import ToolCall
from .backend import Backend
from .client import LLMClient, SyncClient, journal_path_for, make_client
from .grading import GRADE_REASK, parse_grade
from .results import GRADE_PATHS, ChatResult, GradeResult, LLMCallError, ServersUnusable, Stats
from .settings import (
    ANSWER_SETTINGS,
    CONNECTION_SETTINGS,
    LLMSettings,
    connection_settings,
    load_settings,
    settings_from_parts,
)

__all__ = [
    "ANSWER_SETTINGS", "CONNECTION_SETTINGS", "GRADE_PATHS", "GRADE_REASK", "Backend", "ChatResult", "GradeResult",
    "LLMCallError", "LLMClient", "LLMSettings", "ServersUnusable", "Stats", "SyncClient", "ToolCall",
    "connection_settings", "journal_path_for", "load_settings", "make_client", "parse_grade", "settings_from_parts",
]
