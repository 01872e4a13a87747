"""Run the API under uvicorn (one process; scale out with more replicas)."""

from __future__ import annotations

import logging

import uvicorn

from app.config import Settings
from app.http.protocol import server_options
from app.logs import configure_logging
from app.main import create_app

__all__ = ["serve"]


def serve(settings: Settings) -> None:
    """Serve until interrupted, on ``host``:``port`` from configuration."""
    configure_logging(settings.text("log.level"))
    app = create_app(settings)
    logging.getLogger("app.server").info("serving", extra={"port": settings.integer("port")})
    uvicorn.run(
        app,
        host=settings.text("host"),
        port=settings.integer("port"),
        log_config=None,
        access_log=False,
        lifespan="off",
        **server_options(settings),
    )
