"""The fenced record format shared by both renderers, and its strict parser.

A render is one framing line, then renderer-authored lines, each carrying the render's
fence ``F``: markers ``[<words> F]`` (optionally followed by attributes) and records::

    <msg F id="..." author="..." time="2026-11-29T10:00:00Z" ...>
    <body, verbatim: any text, newlines included>
    [truncated F]                                  (only when the body was cut)
    <attachment F file="..." bytes="12" scan="clean">
    <name F>
    report.pdf
    </name F>
    <mime F>
    application/pdf
    </mime F>
    <transcript F>                                 (only when there is one)
    ...
    </transcript F>
    </attachment F>
    </msg F>

A deleted message's body is the marker ``[deleted F]``; a message with neither
content nor attachments has ``[no renderable content F]``. Attribute values pass
:func:`~agent_sdk.render.fence.attr`. Bodies, names, MIME types and transcripts are
never escaped or altered: the fence, which none of them can contain, is the boundary,
so :func:`parse_records` gives back exactly what was rendered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from agent_sdk.render.fence import attr

__all__ = [
    "Attachment",
    "FencedText",
    "Record",
    "marker",
    "message_texts",
    "parse_marker",
    "parse_records",
    "render_record",
    "split_framing",
]

_ATTRS: Final = re.compile(r' ([a-z_]+)="([^"\n]*)"')


@dataclass(frozen=True, slots=True)
class Attachment:
    """An attachment as rendered: shape-checked attributes, fenced user texts."""

    attributes: dict[str, str]
    name: str
    mime_type: str
    transcript: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """One rendered message: its attributes (already checked) and its fenced content.

    ``body`` is ``None`` for a deleted message and for one without renderable content
    (``deleted`` and ``empty`` tell which).
    """

    attributes: dict[str, str]
    body: str | None
    deleted: bool = False
    empty: bool = False
    truncated: bool = False
    attachments: list[Attachment] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FencedText:
    """The texts of one message that a render places verbatim (for fence minting)."""

    texts: list[str]


def marker(words: str, fence: str, attributes: Mapping[str, str] | None = None) -> str:
    """A renderer-authored marker line ``[<words> F k="v" ...]``."""
    rendered = "".join(
        f' {key}="{attr(value, fence)}"' for key, value in (attributes or {}).items()
    )
    return f"[{words} {fence}{rendered}]"


def parse_marker(line: str, fence: str) -> tuple[str, dict[str, str]] | None:
    """The words and attributes of a marker line of this fence, else ``None``."""
    match = re.fullmatch(rf"\[([a-z ]+) {re.escape(fence)}((?: [a-z_]+=\"[^\"\n]*\")*)\]", line)
    if match is None:
        return None
    return match.group(1), dict(_ATTRS.findall(match.group(2)))


def _open(tag: str, fence: str, attributes: Mapping[str, str]) -> str:
    rendered = "".join(f' {key}="{value}"' for key, value in attributes.items())
    return f"<{tag} {fence}{rendered}>"


def _block(tag: str, fence: str, text: str) -> list[str]:
    return [f"<{tag} {fence}>", text, f"</{tag} {fence}>"]


def render_record(
    fence: str,
    attributes: Mapping[str, object],
    *,
    content: str,
    deleted: bool,
    truncated: bool,
    attachments: Sequence[Mapping[str, Any]],
) -> list[str]:
    """The lines of one record; every attribute value passes :func:`attr`."""
    checked = {key: attr(value, fence) for key, value in attributes.items()}
    lines = [_open("msg", fence, checked)]
    if deleted:
        lines.append(marker("deleted", fence))
    elif not content and not attachments:
        lines.append(marker("no renderable content", fence))
    else:
        lines.append(content)
        if truncated:
            lines.append(marker("truncated", fence))
    if not deleted:
        for item in attachments:
            meta = {
                "file": attr(item.get("file_id"), fence),
                "bytes": attr(str(item.get("size_bytes", "")), fence),
                "scan": attr(item.get("scan_status"), fence),
            }
            lines.append(_open("attachment", fence, meta))
            lines += _block("name", fence, str(item.get("original_name", "")))
            lines += _block("mime", fence, str(item.get("mime_type", "")))
            if isinstance(item.get("transcript"), str):
                lines += _block("transcript", fence, str(item["transcript"]))
            lines.append(f"</attachment {fence}>")
    lines.append(f"</msg {fence}>")
    return lines


class _Reader:
    """A cursor over the render text that only ever consumes whole, known lines."""

    def __init__(self, text: str, position: int) -> None:
        self.text = text
        self.position = position

    def at_end(self) -> bool:
        return self.position >= len(self.text)

    def peek_line(self) -> str:
        end = self.text.find("\n", self.position)
        return self.text[self.position :] if end < 0 else self.text[self.position : end]

    def line(self) -> str:
        value = self.peek_line()
        self.position += len(value) + 1
        return value

    def until(self, *terminators: str) -> tuple[str, str]:
        """Verbatim text up to the earliest ``"\\n" + terminator`` line start."""
        best: tuple[int, str] | None = None
        for terminator in terminators:
            found = self.text.find("\n" + terminator, self.position)
            if found >= 0 and (best is None or found < best[0]):
                best = (found, terminator)
        if best is None:
            raise ValueError("unterminated fenced text")
        value = self.text[self.position : best[0]]
        self.position = best[0] + 1
        return value, best[1]


def _opening(line: str, tag: str, fence: str) -> dict[str, str]:
    prefix = f"<{tag} {fence}"
    if not line.startswith(prefix) or not line.endswith(">"):
        raise ValueError(f"expected <{tag}> of this render")
    inner = line[len(prefix) : -1]
    attributes = dict(_ATTRS.findall(inner))
    if "".join(f' {k}="{v}"' for k, v in attributes.items()) != inner:
        raise ValueError("malformed attributes")
    return attributes


def _fenced_block(reader: _Reader, tag: str, fence: str) -> str:
    if reader.line() != f"<{tag} {fence}>":
        raise ValueError(f"expected <{tag}>")
    value, _ = reader.until(f"</{tag} {fence}>\n", f"</{tag} {fence}>")
    reader.line()
    return value


def _record(reader: _Reader, fence: str) -> Record:
    attributes = _opening(reader.line(), "msg", fence)
    close, attachment_open = f"</msg {fence}>", f"<attachment {fence} "
    truncated_marker = marker("truncated", fence)
    first = reader.peek_line()
    deleted = first == marker("deleted", fence)
    empty = first == marker("no renderable content", fence)
    body: str | None = None
    truncated = False
    if deleted or empty:
        reader.line()
    else:
        body, _ = reader.until(close, attachment_open, truncated_marker + "\n")
        if reader.peek_line() == truncated_marker:
            reader.line()
            truncated = True
    attachments: list[Attachment] = []
    while reader.peek_line().startswith(attachment_open):
        meta = _opening(reader.line(), "attachment", fence)
        name = _fenced_block(reader, "name", fence)
        mime = _fenced_block(reader, "mime", fence)
        transcript = None
        if reader.peek_line() == f"<transcript {fence}>":
            transcript = _fenced_block(reader, "transcript", fence)
        if reader.line() != f"</attachment {fence}>":
            raise ValueError("expected </attachment>")
        attachments.append(Attachment(meta, name, mime, transcript))
    if reader.line() != close:
        raise ValueError("expected </msg>")
    return Record(attributes, body, deleted, empty, truncated, attachments)


def message_texts(message: Mapping[str, Any], id_keys: Sequence[str]) -> list[str]:
    """Every text of ``message`` a render prints (body, author handle, attachments and
    the ids named by ``id_keys``): what its fence must not occur in."""
    texts = [str(message.get("content_md", ""))]
    author = message.get("author")
    if isinstance(author, Mapping):
        texts.append(str(author.get("handle", "")))
    for item in message.get("attachments", []) or []:
        texts += [str(item.get(key, "")) for key in ("original_name", "mime_type", "transcript")]
    texts += [str(message.get(key, "")) for key in id_keys]
    return texts


def split_framing(text: str, framing: str, what: str) -> tuple[str, str]:
    """The fence of a render whose first line is ``framing`` (a template with
    ``{fence}``), and the render after that line.

    Raises:
        ValueError: the first line is not ``framing`` with a fence (``what`` names the
            render in the message).
    """
    first, _, rest = text.partition("\n")
    fence = first.split("<msg ", 1)[1].split(" ", 1)[0] if "<msg " in first else ""
    if not fence or first != framing.format(fence=fence):
        raise ValueError(f"not a {what}: the framing line is missing")
    return fence, rest


def parse_records(
    text: str, fence: str, *, position: int = 0
) -> list[tuple[str, tuple[str, dict[str, str]] | Record]]:
    """Every marker line and record of a render after ``position``, in order.

    Raises:
        ValueError: a line that is neither a marker nor a record of this fence.
    """
    reader = _Reader(text, position)
    items: list[tuple[str, tuple[str, dict[str, str]] | Record]] = []
    while not reader.at_end():
        line = reader.peek_line()
        if line.startswith(f"<msg {fence}"):
            items.append(("record", _record(reader, fence)))
            continue
        parsed = parse_marker(line, fence)
        if parsed is None:
            raise ValueError("a line outside any record carries no fence")
        reader.line()
        items.append(("marker", parsed))
    return items
