"""The service on Connexion's ``FlaskApp`` (WSGI bridge), served for comparison."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import uvicorn

from app.config import Settings, load_settings
from app.logs import configure_logging
from app.main import Application, SnakeCaseResolver

# How the benchmark starts the FlaskApp variant in its own process (``app_process``).
FLASK_COMMAND = ("tests.load.bench", "--serve-flask")


def _flask_compatible(function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a handler so that its Starlette response becomes a Flask response."""
    import flask
    from starlette.responses import Response as StarletteResponse

    @functools.wraps(function)
    def handler(*args: Any, **kwargs: Any) -> Any:
        response = function(*args, **kwargs)
        if isinstance(response, StarletteResponse):
            headers = [(k, v) for k, v in response.headers.items() if k != "content-length"]
            return flask.Response(
                bytes(response.body), status=response.status_code, headers=headers
            )
        return response

    return handler


def create_flask_app(settings: Settings) -> Application:
    """The same service built on Connexion's ``FlaskApp`` (WSGI bridge) for comparison.

    Mirrors :func:`app.main.create_app`; only the handlers' Starlette responses are
    converted, since Flask cannot send them.
    """
    import connexion
    from connexion.utils import get_function_from_name

    from app.http.routes import SPEC_PATH, MethodIndex, load_routes, load_spec
    from app.http.validation import validator_map
    from app.main import _error_handler
    from app.services import build_services

    spec = load_spec()
    services = build_services(settings, load_routes(spec))
    flask_app = connexion.FlaskApp(__name__, specification_dir=str(SPEC_PATH.parent))
    flask_app.add_api(
        SPEC_PATH.name,
        resolver=SnakeCaseResolver(
            function_resolver=lambda name: _flask_compatible(get_function_from_name(name))
        ),
        strict_validation=True,
        validate_responses=False,
        validator_map=validator_map(),
        swagger_ui_options=None,
    )
    handle = _error_handler(MethodIndex(spec))
    for status in (401, 404, 405, 406, 415):
        flask_app.add_error_handler(status, handle)
    flask_app.add_error_handler(Exception, handle)
    return Application(services, flask_app)


def serve_flask() -> int:
    """``--serve-flask``: serve the FlaskApp variant from the environment's settings."""
    settings = load_settings()
    configure_logging(settings.text("log.level"))
    uvicorn.run(
        create_flask_app(settings),
        host=settings.text("host"),
        port=settings.integer("port"),
        log_config=None,
        access_log=False,
        lifespan="off",
    )
    return 0
