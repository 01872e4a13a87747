"""Renderers a message body cannot forge: comms transcripts and run contexts."""

from agent_sdk.render.fence import attr, mint_fence
from agent_sdk.render.run_context import (
    ParsedRunContext,
    RenderedRunContext,
    parse_run_context,
    render_run_context,
)
from agent_sdk.render.transcript import Transcript, parse_transcript, post_return, render_transcript

__all__ = [
    "ParsedRunContext",
    "RenderedRunContext",
    "Transcript",
    "attr",
    "mint_fence",
    "parse_run_context",
    "parse_transcript",
    "post_return",
    "render_run_context",
    "render_transcript",
]
