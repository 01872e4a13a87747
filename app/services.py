"""The composition root: settings, engines, the policy gateway, limiter, use cases.

One :class:`Services` object per app instance, built by :func:`build_services`. This
is the only place that knows how the pieces fit: every use case receives exactly what
it uses (a unit-of-work factory, the authorizer, the policy gateway, the limits it
reads), never this object. The app (``app/main.py``) attaches it to every request's
scope (``app/http/app_state.py``); handlers find it with :func:`services_of`.

Observability is wired here too: with ``metrics.port`` set, one :class:`Metrics` per
app is handed to the layers as their observer (authorizer, gateway, rate limiter,
pools); with tracing on, the engines and the gateway get the tracer. Off, nothing is
attached and the layers run exactly as without them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext
from starlette.types import Scope

from app.config import Settings
from app.http.app_state import served_app
from app.http.correlation import current_correlation_id, note_policy_revision
from app.http.ratelimit import RateLimiter
from app.http.routes import Route
from app.observability.calls import ObservedCalls
from app.observability.metrics import LabelSets, Metrics
from app.observability.pools import observe_pool, waiting_pool_class
from app.observability.tracing import Tracing
from app.opa_client import OpaClient
from app.policy import PolicyGateway
from app.policy.gateway import RevisionObserver
from app.policy.recorder import recording
from app.usecases.admin import AdminWrites
from app.usecases.authorization import Authorizer
from app.usecases.authz_queries import ExplainDecision, QueryTriggerHolders
from app.usecases.comms_relay import RelayCommsCall, RelayedOperation
from app.usecases.health import Readiness
from app.usecases.messages import ListMessages, PostMessage
from app.usecases.retention_guard import RetentionGuard
from app.usecases.run_context import ContextLimits, ReadRunContext
from app.usecases.run_privacy import (
    AppendRunStep,
    PutRunAnswer,
    ReadRunPrivacy,
    RecordProviderAttempt,
    RotateRunEnvelope,
)
from app.usecases.runners import (
    BindRun,
    EnrollRunner,
    ReloadSession,
    ReportSession,
    StopSession,
    UnbindRun,
)
from app.usecases.session_context import ResolveSessionContext
from app.usecases.workspaces import ProvisionWorkspace
from repositories import make_engine
from repositories.audit import SqlDenialAudit
from repositories.engine import ping_after_idle
from repositories.unit_of_work import GuardedUnitOfWork, UnitOfWork

__all__ = ["Services", "UseCases", "build_services", "services_of"]


@dataclass(frozen=True)
class UseCases:
    """Every use case of the service, wired with its dependencies."""

    read_run_context: ReadRunContext
    list_messages: ListMessages
    post_message: PostMessage
    query_trigger_holders: QueryTriggerHolders
    explain_decision: ExplainDecision
    admin: AdminWrites
    readiness: Readiness
    resolve_session_context: ResolveSessionContext
    provision_workspace: ProvisionWorkspace
    enroll_runner: EnrollRunner
    report_session: ReportSession
    reload_session: ReloadSession
    stop_session: StopSession
    bind_run: BindRun
    unbind_run: UnbindRun
    relay_comms_call: RelayCommsCall
    record_provider_attempt: RecordProviderAttempt
    append_run_step: AppendRunStep
    put_run_answer: PutRunAnswer
    rotate_run_envelope: RotateRunEnvelope
    read_run_privacy: ReadRunPrivacy


@dataclass
class Services:
    """The wired service: what handlers and tests reach, and what to close."""

    settings: Settings
    engine: Engine
    read_engine: Engine
    opa: OpaClient
    policy: PolicyGateway
    limiter: RateLimiter
    routes: dict[str, Route]
    use_cases: UseCases
    sql_statements: int = field(default=0)
    metrics: Metrics | None = None
    tracing: Tracing | None = None

    def reader(self) -> UnitOfWork:
        """A read-only unit: autocommit statements, no transaction, no locks."""
        return UnitOfWork(self.read_engine, read_only=True)

    def close(self) -> None:
        """Release pooled connections."""
        self.opa.close()
        self.engine.dispose()
        self.read_engine.dispose()


def _engines(settings: Settings, metrics: Metrics | None) -> tuple[Engine, Engine]:
    def engine_for(pool: str, **isolation: str) -> Engine:
        options: dict[str, object] = dict(isolation)
        if metrics is not None:
            # Counts the threads waiting for a connection (app/observability/pools.py).
            options["poolclass"] = waiting_pool_class(metrics.pools[pool])
        engine = make_engine(
            settings.text("database.url"),
            pool_size=settings.integer("database.pool_size"),
            max_overflow=settings.integer("database.pool_size"),
            # No ping per checkout (a round trip on every request): ping_after_idle
            # below checks only connections that sat idle in the pool.
            pool_pre_ping=False,
            pool_recycle=1800,
            # LIFO keeps the few connections a quiet process needs warm (their prepared
            # statements and catalog caches); the rest age out.
            pool_use_lifo=True,
            connect_args={
                # force_generic_plan: a prepared statement (repositories.prepared) is
                # planned once per connection, not on each of its first five runs.
                "options": "-c timezone=UTC -c plan_cache_mode=force_generic_plan "
                f"-c statement_timeout={settings.integer('database.statement_timeout_ms')}",
                "connect_timeout": 5,
            },
            **options,
        )
        ping_after_idle(engine, settings.number("database.pool_ping_after_idle_seconds"))
        if metrics is not None:
            observe_pool(engine, metrics.pools[pool])
        return engine

    # Reads get their own pool of autocommit connections: switching a pooled connection
    # in and out of autocommit would cost a SET round trip per request.
    return engine_for("write"), engine_for("read", isolation_level="AUTOCOMMIT")


def _revision_observer(metrics: Metrics | None) -> RevisionObserver:
    """Where the bundle revision of every OPA answer goes: the request's access log line
    and, with metrics on, ``agent_authz_policy_revision_info``."""
    if metrics is None:
        return note_policy_revision

    def observe(revision: str | None) -> None:
        note_policy_revision(revision)
        metrics.policy_revision(revision)

    return observe


def _relayed(routes: dict[str, Route], operation_id: str) -> RelayedOperation:
    route = routes[operation_id]
    return RelayedOperation(action=route.action, rate_class=route.rate_class)


def _use_cases(
    settings: Settings,
    engine: Engine,
    read_engine: Engine,
    policy: PolicyGateway,
    *,
    limiter: RateLimiter,
    routes: dict[str, Route],
    metrics: Metrics | None = None,
) -> UseCases:
    def writer() -> UnitOfWork:
        return UnitOfWork(engine)

    def reader() -> UnitOfWork:
        return UnitOfWork(read_engine, read_only=True)

    authorizer = Authorizer(
        policy,
        SqlDenialAudit(read_engine, window_seconds=settings.integer("audit.deny_aggregate_window")),
        observer=metrics,
    )
    list_messages = ListMessages(reader=reader, authorizer=authorizer)
    post_message = PostMessage(writer=writer, authorizer=authorizer)
    # One retention guard for every run-carrying write: provider attempts, steps,
    # answers and envelope rotation all lock, reread and filter through it.
    guard = RetentionGuard(
        units=lambda: GuardedUnitOfWork(engine),
        authorizer=authorizer,
        policy=policy,
        lock_timeout_ms=settings.integer("privacy.lock_timeout_ms"),
    )
    return UseCases(
        read_run_context=ReadRunContext(
            reader=reader,
            authorizer=authorizer,
            policy=policy,
            limits=ContextLimits.from_settings(settings),
        ),
        list_messages=list_messages,
        post_message=post_message,
        query_trigger_holders=QueryTriggerHolders(
            reader=reader, authorizer=authorizer, policy=policy
        ),
        explain_decision=ExplainDecision(reader=reader, authorizer=authorizer, policy=policy),
        admin=AdminWrites(
            writer=writer,
            authorizer=authorizer,
            backfill_max=settings.integer("channel.history_backfill_limit_max"),
        ),
        readiness=Readiness(engine=engine, policy=policy),
        resolve_session_context=ResolveSessionContext(
            reader=reader, policy=policy, decisions=metrics
        ),
        provision_workspace=ProvisionWorkspace(writer=writer, authorizer=authorizer),
        enroll_runner=EnrollRunner(writer=writer, authorizer=authorizer),
        report_session=ReportSession(writer=writer, authorizer=authorizer),
        reload_session=ReloadSession(reader=reader, authorizer=authorizer),
        stop_session=StopSession(writer=writer, authorizer=authorizer),
        bind_run=BindRun(writer=writer, authorizer=authorizer),
        unbind_run=UnbindRun(writer=writer, authorizer=authorizer),
        # The relayed call runs through the very use cases above, as the agent account,
        # with the action and rate-limit class of the messages API's operations.
        relay_comms_call=RelayCommsCall(
            reader=reader,
            authorizer=authorizer,
            list_messages=list_messages,
            post_message=post_message,
            # The relay's handler is sync: the check runs on the event loop meanwhile.
            throttle=limiter.check_blocking,
            listing=_relayed(routes, "listChannelMessages"),
            posting=_relayed(routes, "postChannelMessage"),
        ),
        record_provider_attempt=RecordProviderAttempt(guard=guard),
        append_run_step=AppendRunStep(guard=guard),
        put_run_answer=PutRunAnswer(guard=guard),
        rotate_run_envelope=RotateRunEnvelope(guard=guard),
        read_run_privacy=ReadRunPrivacy(reader=reader, authorizer=authorizer),
    )


def build_services(
    settings: Settings, routes: dict[str, Route], *, tracing: Tracing | None = None
) -> Services:
    """Create the engines, the OPA client and gateway, and wire every use case.

    Metrics are counted when ``metrics.port`` is set; ``tracing`` (``None``: off) gets
    a span per SQL statement and per OPA call.
    """
    metrics = (
        Metrics(LabelSets.from_routes(routes)) if settings.integer("metrics.port") > 0 else None
    )
    engine, read_engine = _engines(settings, metrics)
    if tracing is not None:
        for traced in (engine, read_engine):
            tracing.instrument_engine(traced)
    opa = OpaClient(
        settings.text("opa.url"),
        timeout=settings.number("opa.timeout_seconds"),
        pool_size=settings.integer("opa.pool_size"),
    )
    observed = metrics is not None or tracing is not None
    # policy.corpus_file (off by default) records every input the gateway sends.
    policy = PolicyGateway(
        recording(opa, settings.text("policy.corpus_file")),
        observer=ObservedCalls(
            metrics, tracing.tracer("app.policy") if tracing is not None else None
        )
        if observed
        else None,
        require_revision=settings.flag("policy.require_bundle_revision"),
        on_revision=_revision_observer(metrics),
        correlation_id=current_correlation_id,
    )
    limiter = RateLimiter(
        settings,
        on_reject=metrics.rate_limited if metrics is not None else None,
        on_storage_failure=metrics.rate_limit_storage_failed if metrics is not None else None,
    )
    services = Services(
        settings=settings,
        engine=engine,
        read_engine=read_engine,
        opa=opa,
        policy=policy,
        limiter=limiter,
        routes=routes,
        use_cases=_use_cases(
            settings, engine, read_engine, policy, limiter=limiter, routes=routes, metrics=metrics
        ),
        metrics=metrics,
        tracing=tracing,
    )

    lock = threading.Lock()

    def _count(*_args: object) -> None:
        # Read by the cost tests and the benchmark: statements per request. Handlers run
        # in worker threads, so the increment is locked.
        with lock:
            services.sql_statements += 1

    def _on_disconnect(context: ExceptionContext) -> None:
        # A lost connection means the server went away: every pooled connection of both
        # pools is dead. Start both pools afresh (connections in use finish on their
        # own), so the first request after recovery does not fail on a stale one.
        if context.is_disconnect:
            for pooled in (engine, read_engine):
                pooled.dispose(close=False)

    for counted in (engine, read_engine):
        event.listen(counted, "before_cursor_execute", _count)
        event.listen(counted, "handle_error", _on_disconnect)

    return services


def services_of(scope: Scope) -> Services:
    """The services of the app serving the request of ``scope``.

    Raises:
        LookupError: the request did not come through an app built by ``create_app``.
    """
    services = served_app(scope)
    if not isinstance(services, Services):
        raise LookupError("the app serving this request has no services")
    return services
