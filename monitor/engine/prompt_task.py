"""`sumwatch experiment run --prompt FILE --model M`: a prompt template run through the LLM client as the task.

    task, label = prompt_task(settings, Path("prompts/digest.txt"), "openai/gpt-4o-mini")
    task("The council approved ...")       # one chat call; a summarization span with the prompt's version

The template is the user message, with ``{source}`` where the item's text goes (and, when it holds them,
``{reference}``, ``{band}``, ``{questions}`` and ``{expected_facts}``; no other braces are read, so a template may
show JSON). The call goes to the configured LLM endpoint (``SUMWATCH_LLM_API_BASE`` and ``SUMWATCH_LLM_API_KEY``
when set; otherwise litellm reads the provider's own variables), with the judge's timeout and retries. Each call
is a summarization span whose prompt version names the file and a hash of its text, so two edits of a prompt
compare as two versions.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from sumwatch.tracer import record_usage, summarization

from ..remote.llm import LitellmModel, LLMConnection
from ..settings import Settings, reveal
from . import EngineError

PLACEHOLDERS = ("source", "reference", "band", "questions", "expected_facts")


def prompt_task(settings: Settings, path: Path, model: str) -> tuple[Callable[..., str], str]:
    """The task that fills the template at ``path`` with an item and asks ``model``; and its label."""
    try:
        template = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EngineError(f"--prompt: no such file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineError(f"--prompt: cannot read {path}: {exc}") from None
    if "{source}" not in template:
        raise EngineError(f"--prompt: {path} has no {{source}}: the template needs a place for the item's text")
    if not model.strip():
        raise EngineError("--model must name a model, like openai/gpt-4o-mini")
    judge = settings.judge
    connection = LLMConnection(model, api_base=judge.llm_api_base, api_key=reveal(judge.llm_api_key) or None,
                               timeout_s=judge.llm_timeout_s, concurrency=judge.llm_concurrency)
    version = f"{path.stem}@{hashlib.sha256(template.encode('utf-8')).hexdigest()[:8]}"

    @summarization(prompt_version=version)
    def summarize(source: str, reference: str = "", band: str = "", questions: Sequence[str] = (),
                  expected_facts: Sequence[str] = ()) -> str:
        values = {"source": source, "reference": reference, "band": band, "questions": "\n".join(questions),
                  "expected_facts": "\n".join(expected_facts)}
        prompt = template
        for name in PLACEHOLDERS:
            prompt = prompt.replace("{" + name + "}", values[name])
        llm = LitellmModel(connection, name="the experiment's model")  # per call: its token counts are this call's
        reply = asyncio.run(llm.complete([{"role": "user", "content": prompt}], what="the summary"))
        record_usage(model=model, input_tokens=llm.input_tokens, output_tokens=llm.output_tokens)
        return reply.strip()

    return summarize, f"prompt:{path.name} ({version}) on {model}"
