"""Whether a chat request asks for a summary, and the document it asks about, cut from the instruction.

    request = find_request(["You summarize news."], ["Article: The council voted 7-2 ..."], False)
    request.document   # "The council voted 7-2 ..."
    find_request([], ["What is the capital of France?"], False)   # "not a summarization request"

The request says so in its wording: a verb ("summarize", "TL;DR", "condense", "sum up") is enough; a noun
or a shape ("summary", "key points", "in three sentences", "brief overview") counts unless the instruction
names another task (translate, classify, proofread, judge ...), so a judge asked to check a summary, or a
translator handed one, is not taken for a summarizer. Only the instruction is read for these words, never
the document, and a summary needs a document of some length: "summarize the plot of Hamlet" has nothing to
ground the answer in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import instruction_words as words

MIN_DOCUMENT_WORDS = 15  # shorter than this there is nothing a summary could be checked against
MAX_INSTRUCTION_WORDS = 80  # text around a delimited block longer than this is not an instruction wrapper
MAX_VERDICT_WORDS = 25  # a yes/no answer this short is a verdict on something, not a summary of it

SUMMARY_OPERATION = re.compile(r"summar|tl;?dr|digest")

_TAGGED = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>(.*?)</\1\s*>", re.S)
_FENCED = re.compile(r"```[\w-]*[ \t]*\n?(.*?)```", re.S)
_TRIPLE_QUOTED = re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'', re.S)
_QUOTED = re.compile(r'"([^"]{80,})"|\u201c([^\u201d]{80,})\u201d', re.S)
_SEPARATOR = re.compile(r"^[ \t]*(?:-{3,}|={3,}|\*{3,}|_{3,}|#{3,})[ \t]*$", re.M)
_HEAD_END = re.compile(r":[ \t]*\n?|\n[ \t]*\n?")
_SENTENCE_END = re.compile(r"[.!?][ \t]*\n?[ \t]*(?=\S)")
_INSTRUCTION_REACH = 300  # how far into a message (from either end) its instruction is looked for
_SUMMARY_FIELDS = ("summary", "tldr", "tl;dr", "text", "answer", "content")


@dataclass(frozen=True)
class Request:
    """A summarization request: the document alone, and how it was found."""

    document: str
    how: str


def find_request(system: Sequence[str], turns: Sequence[str], by_operation: bool,
                 tool_results: Sequence[str] = ()) -> Request | str:
    """The document a summarization request is about, or one line saying why this is not one.

    ``tool_results`` are the tool answers after the last user turn (an agent fetched the document it was asked
    to summarize: "Summarize it" then a tool result); they are the document when the user's turn holds none."""
    system_text = "\n".join(system)
    system_says = _asks_for_summary(system_text)
    last = turns[-1]
    if _judges_a_summary(system_text, last):
        return "a summary handed over to be judged or checked, not a request for one"
    instruction, document, how = _split(last)
    # with no document apart, the whole message is the instruction: it must read as a request for a summary
    # (a translation of a text that mentions "summarize" is not one)
    user_asks = _asks_for_summary(instruction) if document else _is_instruction(last)
    fetched = "\n\n".join(t.strip() for t in tool_results if t.strip())
    if fetched and not document and _short(last):
        # "Fetch https://... and summarize it": a short turn asking for a summary of what a tool brought back
        user_asks = user_asks or _asks_for_summary(last)
    if system_says and not user_asks and _other_request(instruction if document else last):
        # an assistant that can summarize, asked here for something else
        system_says = False
    asked = by_operation or system_says or user_asks
    if not asked:
        return "not a summarization request"
    if _words(document) < MIN_DOCUMENT_WORDS and _words(fetched) >= MIN_DOCUMENT_WORDS:
        document, how = _clean(fetched), f"tool result{'s' if len(tool_results) > 1 else ''}"
    if not document and (system_says or by_operation):
        document, how = last.strip(), "the whole user message"
    if _words(document) < MIN_DOCUMENT_WORDS and len(turns) > 1:
        # the document in an earlier turn, the instruction alone in the last one
        earlier = "\n\n".join(turns[:-1])
        _, document, how = _split(earlier)
        document, how = document or earlier.strip(), f"earlier user turn{'s' if len(turns) > 2 else ''}"
    why = "operation" if by_operation else "system instruction" if system_says else "instruction"
    if _words(document) < MIN_DOCUMENT_WORDS:
        return f"asks for a summary but gives no document to ground it ({_words(document)} words)"
    return Request(document, f"{why}; document: {how}")


def answer_text(parts: Sequence[str]) -> tuple[str, str]:
    """(the answer as plain text, "") or ("", why there is none)."""
    text = "\n".join(p.strip() for p in parts if p.strip()).strip()
    if not text:
        return "", "no answer text (capture off, a streamed answer not recorded, or a tool call)"
    if text[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            field = next((parsed[k] for k in _SUMMARY_FIELDS if isinstance(parsed.get(k), str)), None)
            if field is None:
                return "", "the answer is a JSON object without a summary field, not summary text"
            text = field
        elif parsed is not None:
            return "", "the answer is JSON, not summary text"
    if words.VERDICT_ANSWER.match(text) and _words(text) <= MAX_VERDICT_WORDS:
        return "", "the answer is a yes/no verdict, not a summary"
    return words.ANSWER_PREAMBLE.sub("", text, count=1).strip(), ""


def _judges_a_summary(system_text: str, message: str) -> bool:
    """Whether a summary is handed over to be graded ("Here is a summary I wrote: '...' Is it accurate compared
    to this article?"): a supplied summary and a judging word, both in the instruction's reach (the system text,
    the opening and the close of the message), never deep inside the document."""
    reach = f"{system_text}\n{message[:_INSTRUCTION_REACH]}\n{message[-_INSTRUCTION_REACH:]}"
    return bool(words.SUPPLIED_SUMMARY.search(reach)) and bool(words.JUDGING.search(reach))


def _other_request(text: str) -> bool:
    """Whether a user message opens with a request of its own that is not a summary (a question, a
    translation ...)."""
    head = re.match(r"\s*([^:\n?]{0,200}(?:[:?]|\n|$))", text)
    opening = head.group(1) if head else ""
    return opening.rstrip().endswith("?") or bool(words.OTHER_TASK.search(opening))


def _asks_for_summary(instruction: str) -> bool:
    if words.VERB.search(instruction):
        return True
    return bool(words.NOUN.search(instruction)) and not words.OTHER_TASK.search(instruction)


def _words(text: str) -> int:
    return len(text.split())


def _short(text: str) -> bool:
    return _words(text) <= MAX_INSTRUCTION_WORDS


def _split(text: str) -> tuple[str, str, str]:
    """(instruction, document, how) for one user message; the document is "" when none stands apart."""
    for name, pattern in (("tagged block", _TAGGED), ("fenced block", _FENCED),
                          ("triple-quoted block", _TRIPLE_QUOTED), ("quoted text", _QUOTED)):
        found = _longest_block(text, pattern)
        if found:
            instruction, document, label = found
            return instruction, document, f"{name}{label}"
    separated = _by_separator(text)
    if separated:
        return separated
    labelled = _by_label(text)
    if labelled:
        return labelled
    return _by_sentence(text)


def _longest_block(text: str, pattern: re.Pattern[str]) -> tuple[str, str, str] | None:
    best: re.Match[str] | None = None
    best_body = ""
    for m in pattern.finditer(text):
        body = next((g for g in reversed(m.groups()) if g is not None), "")
        if pattern is _TAGGED:
            body = m.group(2)
        if _words(body) > _words(best_body):
            best, best_body = m, body
    if best is None or not best_body.strip():
        return None
    outside = text[:best.start()] + " " + text[best.end():]
    if not _short(outside):
        return None
    label = f" <{best.group(1)}>" if pattern is _TAGGED else ""
    return outside.strip(), _clean(best_body), label


def _by_separator(text: str) -> tuple[str, str, str] | None:
    chunks = [c.strip() for c in _SEPARATOR.split(text)]
    chunks = [c for c in chunks if c]
    if len(chunks) < 2:
        return None
    document = max(chunks, key=_words)
    rest = "\n".join(c for c in chunks if c is not document)
    if not _short(rest):
        return None
    return rest, _clean(document), "text between separator lines"


def _by_label(text: str) -> tuple[str, str, str] | None:
    m = words.LABEL.search(text)
    if m is None or not _short(text[:m.start()]):
        return None
    body = text[m.end():]
    trailer = words.OUTPUT_LABEL.search(body)
    instruction = text[:m.start()]
    if trailer:
        instruction += " " + body[trailer.start():]
        body = body[:trailer.start()]
    closing = _closing_instruction(body)
    if closing is not None:
        instruction += " " + body[closing:]
        body = body[:closing]
    return instruction.strip(), _clean(body), f'text after "{m.group(1)}:"'


def _by_sentence(text: str) -> tuple[str, str, str]:
    """The instruction as the opening words up to a colon or line break (or the opening sentences), or as the
    closing paragraph or sentence; the rest is the document. An instruction reads like one: it opens with a
    request ("Summarize", "Please give", "Can you", "Here is ... summarize it:")."""
    for m in _HEAD_END.finditer(text[:800]):
        head = text[:m.end()]
        if _is_instruction(head) and _words(text[m.end():]) >= MIN_DOCUMENT_WORDS:
            label = words.HEADER_LABEL.search(head.rstrip())
            if label and m.group()[0] == ":" and _is_instruction(head[:label.start()]):
                # "Summarize this email. From: alice@..." : the label opens the document, it is not instruction
                return head[:label.start()].strip(), _clean(text[label.start():]), "text after the instruction sentence"
            return head.strip(), _clean(text[m.end():]), "text after the instruction sentence"
        if not _short(head) or m.group()[0] == ":" or m.group().count("\n") > 1:
            break  # a colon or a blank line ends a preamble: what follows is the document, not more instruction
    for count, m in enumerate(_SENTENCE_END.finditer(text[:800])):
        head = text[:m.end()]
        if count >= 3 or not _short(head):
            break
        if _is_instruction(head) and _words(text[m.end():]) >= MIN_DOCUMENT_WORDS:
            return head.strip(), _clean(text[m.end():]), "text after the instruction sentence"
    tail = _closing_instruction(text)
    if tail is not None:
        lead_in, document = _lead_in(text[:tail])
        return f"{lead_in} {text[tail:]}".strip(), _clean(document), "text before the closing instruction"
    return text.strip(), "", "no document apart from the instruction"


def _is_instruction(text: str) -> bool:
    return bool(words.REQUEST_START.match(text)) and not words.LABELLED_ANSWER.match(text) and _asks_for_summary(text)


def _closing_instruction(text: str) -> int | None:
    """Where a closing instruction ("...\\n\\nSummarize the above in two sentences.") starts: the last
    paragraph, or one of the last two sentences."""
    body = text.rstrip()
    paragraphs = [m.end() for m in re.finditer(r"\n[ \t]*\n", body)]
    sentences = [m.end() for m in _SENTENCE_END.finditer(body)][-2:]
    for start in sorted({*paragraphs[-1:], *sentences}, reverse=True):
        tail = body[start:]
        if _short(tail) and _is_instruction(tail) and _words(body[:start]) >= MIN_DOCUMENT_WORDS:
            return start
    return None


def _lead_in(text: str) -> tuple[str, str]:
    """("Here's an email thread:", the rest) when a short line ending in a colon opens the text."""
    m = re.match(r"\s*([^\n]{1,120}:)[ \t]*\n", text)
    if m and _words(m.group(1)) <= 12 and _words(text[m.end():]) >= MIN_DOCUMENT_WORDS:
        return m.group(1), text[m.end():]
    return "", text


def _clean(document: str) -> str:
    cleaned = _SEPARATOR.sub("", document).strip()
    trailer = words.OUTPUT_LABEL.search("\n" + cleaned)
    if trailer and trailer.start() > 0:
        cleaned = cleaned[:trailer.start() - 1]
    return cleaned.strip().strip('"\u201c\u201d').strip()
