"""Stand-ins for the reference rubrics' tests: a deterministic embedder and an in-process JSON model.

    embedder = BagOfWords()                          # a text's vector: its words hashed into buckets
    model = ScriptedModel(lambda messages: {...})    # what LLMJudge and coverage ask, answered in process
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from sumwatch.clustering.json_model import JsonAnswer

SOURCE = ("The city council approved a 4.2 million dollar budget for the new library on Tuesday. "
          "Construction will start in March and should take two years. "
          "Mayor Ana Ruiz said the library will have a children's wing and a public makerspace. "
          "Two council members voted against the plan, citing rising costs.")
REFERENCE = ("The city council approved a 4.2 million dollar library budget on Tuesday. Construction starts in "
             "March and takes two years. The library will include a children's wing and a makerspace.")
GOOD = ("On Tuesday the city council approved a 4.2 million dollar budget for the library. Construction starts in "
        "March and takes two years. It will have a children's wing and a makerspace.")


class BagOfWords:
    """Sentence vectors without a model: each word hashed into one of 256 buckets, rows of unit length."""

    name = "bag-of-words"

    def __init__(self) -> None:
        self.encoded: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded.append(list(texts))
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[i, zlib.crc32(word.encode()) % 256] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def user_text(messages: list[dict[str, str]]) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def system_text(messages: list[dict[str, str]]) -> str:
    return next(m["content"] for m in messages if m["role"] == "system")


class ScriptedModel:
    """A JSON model answering in process: ``reply(messages)`` gives the reply's object (or text, or None for a
    provider error); the caller's ``read`` checks it, as LitellmModel's ask_json does, with one repair turn."""

    def __init__(self, reply: Callable[[list[dict[str, str]]], Any], model: str = "openai/scripted") -> None:
        self.reply, self.model = reply, model
        self.calls = self.input_tokens = self.output_tokens = 0
        self.spent_usd = 0.0
        self.max_spend_usd: float | None = None
        self.asked: list[list[dict[str, str]]] = []

    async def ask_json(self, messages, read, correction, *, what=""):
        conversation = messages
        for attempt in range(2):
            self.asked.append(conversation)
            self.calls += 1
            self.input_tokens += 100
            self.output_tokens += 10
            self.spent_usd += 0.001
            content = self.reply(conversation)
            if content is None:
                return JsonAnswer(None, error="InternalServerError (500): scripted failure", calls=attempt + 1)
            text = content if isinstance(content, str) else json.dumps(content)
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                value, problems = None, ["the reply is not valid JSON"]
            else:
                value, problems = read(obj)
            if value is not None and not problems:
                return JsonAnswer(value, text, "", attempt + 1, 100 * (attempt + 1), 10 * (attempt + 1),
                                  0.001 * (attempt + 1))
            conversation = [*messages, {"role": "assistant", "content": text},
                            {"role": "user", "content": correction.replace("{problems}", "; ".join(problems))}]
        return JsonAnswer(None, error="malformed reply after a correction: " + "; ".join(problems), calls=2)
