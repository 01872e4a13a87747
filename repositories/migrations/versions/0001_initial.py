"""Initial schema: every table of SPEC section 4.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-29

Hand-checked against ``repositories/models.py``: a database migrated with this revision
and one built with ``Base.metadata.create_all`` have the same ``pg_dump --schema-only``
output (tables, defaults, CHECKs, partial and NULLS NOT DISTINCT unique indexes, foreign
keys). The values in the CHECKs are written out rather than imported from the models so
that this revision keeps describing the schema it created after the models move on.

``gen_random_uuid()`` is built into PostgreSQL 13 and later, so no extension is created.
The two reference cycles (principals <-> channels, threads <-> messages) are closed with
foreign keys added after both tables exist.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create all tables, constraints and indexes of the initial schema."""

    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("actor_id", sa.UUID(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("resource_kind", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("count", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column(
            "first_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column(
            "last_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.CheckConstraint("count >= 1", name=op.f("ck_audit_log_count_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        sa.UniqueConstraint(
            "actor_id",
            "action",
            "resource_kind",
            "reason",
            "window_start",
            name="uq_audit_log_aggregate",
            postgresql_nulls_not_distinct=True,
        ),
    )
    op.create_table(
        "groups",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_groups")),
        sa.UniqueConstraint("key", name=op.f("uq_groups_key")),
    )
    op.create_table(
        "principals",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("handle", sa.Text(), nullable=False),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("email", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), server_default=sa.text("'active'"), nullable=False),
        sa.Column("is_owner", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("owner_user_id", sa.UUID(), nullable=True),
        sa.Column("home_channel_id", sa.UUID(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "NOT is_owner OR kind = 'user'", name=op.f("ck_principals_owner_only_users")
        ),
        sa.CheckConstraint(
            "email IS NULL OR kind = 'user'", name=op.f("ck_principals_email_only_users")
        ),
        sa.CheckConstraint(
            "home_channel_id IS NULL OR kind = 'agent'",
            name=op.f("ck_principals_home_channel_only_agents"),
        ),
        sa.CheckConstraint(
            "kind IN ('user', 'agent', 'app')", name=op.f("ck_principals_kind_valid")
        ),
        sa.CheckConstraint(
            "owner_user_id IS NULL OR kind = 'agent'",
            name=op.f("ck_principals_owner_user_only_agents"),
        ),
        sa.CheckConstraint(
            "status IN ('active', 'pending', 'disabled', 'deleted')",
            name=op.f("ck_principals_status_valid"),
        ),
        sa.ForeignKeyConstraint(
            ["owner_user_id"],
            ["principals.id"],
            name=op.f("fk_principals_owner_user_id_principals"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_principals")),
        sa.UniqueConstraint("handle", name=op.f("uq_principals_handle")),
    )
    op.create_table(
        "provider_policies",
        sa.Column("provider_id", sa.Text(), nullable=False),
        sa.Column("audit_content_ceiling", sa.Text(), nullable=False),
        sa.Column("background_answer_ceiling", sa.Text(), nullable=False),
        sa.Column("explicit", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.PrimaryKeyConstraint("provider_id", name=op.f("pk_provider_policies")),
    )
    op.create_table(
        "runners",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("handle", sa.Text(), nullable=False),
        sa.Column("enrollment_epoch", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("enrolled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "enrollment_epoch >= 0", name=op.f("ck_runners_enrollment_epoch_not_negative")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runners")),
        sa.UniqueConstraint("handle", name=op.f("uq_runners_handle")),
    )
    op.create_table(
        "spaces",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_spaces")),
        sa.UniqueConstraint("name", name=op.f("uq_spaces_name")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("principal_id", sa.UUID(), nullable=True),
        sa.Column("runner_id", sa.UUID(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "(kind = 'runner') = (runner_id IS NOT NULL)",
            name=op.f("ck_api_tokens_runner_kind_iff_runner"),
        ),
        sa.CheckConstraint(
            "kind IN ('session', 'agent', 'app', 'runner')", name=op.f("ck_api_tokens_kind_valid")
        ),
        sa.CheckConstraint(
            "token_hash ~ '^[0-9a-f]{64}$'", name=op.f("ck_api_tokens_token_hash_is_sha256_hex")
        ),
        sa.CheckConstraint(
            "num_nonnulls(principal_id, runner_id) = 1", name=op.f("ck_api_tokens_one_holder")
        ),
        sa.ForeignKeyConstraint(
            ["principal_id"],
            ["principals.id"],
            name=op.f("fk_api_tokens_principal_id_principals"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["runner_id"],
            ["runners.id"],
            name=op.f("fk_api_tokens_runner_id_runners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index("ix_api_tokens_principal_id", "api_tokens", ["principal_id"], unique=False)
    op.create_index("ix_api_tokens_runner_id", "api_tokens", ["runner_id"], unique=False)
    op.create_table(
        "channels",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("space_id", sa.UUID(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), server_default=sa.text("'regular'"), nullable=False),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("history_backfill_limit", sa.Integer(), nullable=True),
        sa.Column("operator_agent_id", sa.UUID(), nullable=True),
        sa.Column(
            "allow_mentioned_agents", sa.Boolean(), server_default=sa.text("false"), nullable=False
        ),
        sa.Column("auto_thread", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("kind IN ('regular', 'dm')", name=op.f("ck_channels_kind_valid")),
        sa.CheckConstraint(
            "history_backfill_limit IS NULL OR history_backfill_limit >= 0",
            name=op.f("ck_channels_history_backfill_limit_not_negative"),
        ),
        sa.ForeignKeyConstraint(
            ["operator_agent_id"],
            ["principals.id"],
            name=op.f("fk_channels_operator_agent_id_principals"),
        ),
        sa.ForeignKeyConstraint(
            ["space_id"], ["spaces.id"], name=op.f("fk_channels_space_id_spaces")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_channels")),
        sa.UniqueConstraint("space_id", "name", name=op.f("uq_channels_space_id_name")),
    )
    op.create_table(
        "group_members",
        sa.Column("group_id", sa.UUID(), nullable=False),
        sa.Column("principal_id", sa.UUID(), nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["groups.id"],
            name=op.f("fk_group_members_group_id_groups"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["principal_id"],
            ["principals.id"],
            name=op.f("fk_group_members_principal_id_principals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("group_id", "principal_id", name=op.f("pk_group_members")),
    )
    op.create_index(
        "ix_group_members_principal_id", "group_members", ["principal_id"], unique=False
    )
    op.create_table(
        "principal_permissions",
        sa.Column("principal_id", sa.UUID(), nullable=False),
        sa.Column("permission", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["principal_id"],
            ["principals.id"],
            name=op.f("fk_principal_permissions_principal_id_principals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "principal_id", "permission", name=op.f("pk_principal_permissions")
        ),
    )
    op.create_table(
        "session_bindings",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("runner_id", sa.UUID(), nullable=False),
        sa.Column("enrollment_epoch", sa.Integer(), nullable=False),
        sa.Column("container_name", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=True),
        sa.Column("agent_id", sa.UUID(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "state IN ('provisioned', 'bound', 'stopped')",
            name=op.f("ck_session_bindings_state_valid"),
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["principals.id"], name=op.f("fk_session_bindings_agent_id_principals")
        ),
        sa.ForeignKeyConstraint(
            ["runner_id"],
            ["runners.id"],
            name=op.f("fk_session_bindings_runner_id_runners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_bindings")),
        sa.UniqueConstraint(
            "runner_id", "container_name", name=op.f("uq_session_bindings_runner_id_container_name")
        ),
        sa.UniqueConstraint(
            "runner_id", "session_id", name=op.f("uq_session_bindings_runner_id_session_id")
        ),
    )
    op.create_table(
        "channel_members",
        sa.Column("channel_id", sa.UUID(), nullable=False),
        sa.Column("principal_id", sa.UUID(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_channel_members_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["principal_id"],
            ["principals.id"],
            name=op.f("fk_channel_members_principal_id_principals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("channel_id", "principal_id", name=op.f("pk_channel_members")),
    )
    op.create_index(
        "ix_channel_members_principal_id", "channel_members", ["principal_id"], unique=False
    )
    op.create_table(
        "grants",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("subject_principal_id", sa.UUID(), nullable=True),
        sa.Column("subject_group_id", sa.UUID(), nullable=True),
        sa.Column("target_space_id", sa.UUID(), nullable=True),
        sa.Column("target_channel_id", sa.UUID(), nullable=True),
        sa.Column("level", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "level IN ('read', 'write', 'trigger', 'manage')", name=op.f("ck_grants_level_valid")
        ),
        sa.CheckConstraint(
            "num_nonnulls(subject_principal_id, subject_group_id) = 1",
            name=op.f("ck_grants_one_subject"),
        ),
        sa.CheckConstraint(
            "num_nonnulls(target_space_id, target_channel_id) = 1",
            name=op.f("ck_grants_one_target"),
        ),
        sa.ForeignKeyConstraint(
            ["subject_group_id"],
            ["groups.id"],
            name=op.f("fk_grants_subject_group_id_groups"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subject_principal_id"],
            ["principals.id"],
            name=op.f("fk_grants_subject_principal_id_principals"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["target_channel_id"],
            ["channels.id"],
            name=op.f("fk_grants_target_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["target_space_id"],
            ["spaces.id"],
            name=op.f("fk_grants_target_space_id_spaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_grants")),
    )
    op.create_index("ix_grants_subject_group_id", "grants", ["subject_group_id"], unique=False)
    op.create_index(
        "ix_grants_subject_principal_id", "grants", ["subject_principal_id"], unique=False
    )
    op.create_index("ix_grants_target_channel_id", "grants", ["target_channel_id"], unique=False)
    op.create_index("ix_grants_target_space_id", "grants", ["target_space_id"], unique=False)
    op.create_unique_constraint(
        "uq_grants_subject_target_level",
        "grants",
        [
            "subject_principal_id",
            "subject_group_id",
            "target_space_id",
            "target_channel_id",
            "level",
        ],
        postgresql_nulls_not_distinct=True,
    )
    op.create_table(
        "threads",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("channel_id", sa.UUID(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("parent_message_id", sa.UUID(), nullable=True),
        sa.Column("operator_agent_id", sa.UUID(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "kind <> 'main' OR parent_message_id IS NULL",
            name=op.f("ck_threads_main_has_no_parent"),
        ),
        sa.CheckConstraint(
            "kind IN ('main', 'thread', 'forum_post')", name=op.f("ck_threads_kind_valid")
        ),
        sa.ForeignKeyConstraint(
            ["channel_id"], ["channels.id"], name=op.f("fk_threads_channel_id_channels")
        ),
        sa.ForeignKeyConstraint(
            ["operator_agent_id"],
            ["principals.id"],
            name=op.f("fk_threads_operator_agent_id_principals"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_threads")),
    )
    op.create_index("ix_threads_channel_id", "threads", ["channel_id"], unique=False)
    op.create_index(
        "ux_threads_one_main_per_channel",
        "threads",
        ["channel_id"],
        unique=True,
        postgresql_where=sa.text("kind = 'main'"),
    )
    op.create_index(
        "ux_threads_parent_message_id",
        "threads",
        ["parent_message_id"],
        unique=True,
        postgresql_where=sa.text("parent_message_id IS NOT NULL"),
    )
    op.create_table(
        "agent_sessions",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("thread_id", sa.UUID(), nullable=False),
        sa.Column("agent_id", sa.UUID(), nullable=False),
        sa.Column("is_current", sa.Boolean(), nullable=False),
        sa.Column("started", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["principals.id"], name=op.f("fk_agent_sessions_agent_id_principals")
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["threads.id"], name=op.f("fk_agent_sessions_thread_id_threads")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_sessions")),
    )
    op.create_index(
        "ux_agent_sessions_current_per_thread",
        "agent_sessions",
        ["thread_id"],
        unique=True,
        postgresql_where=sa.text("is_current"),
    )
    op.create_table(
        "messages",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("thread_id", sa.UUID(), nullable=False),
        sa.Column("thread_seq", sa.BigInteger(), nullable=False),
        sa.Column("author_principal_id", sa.UUID(), nullable=False),
        sa.Column("origin", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), server_default=sa.text("'text'"), nullable=False),
        sa.Column("content_md", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("reply_to_message_id", sa.UUID(), nullable=True),
        sa.Column("system_code", sa.Text(), nullable=True),
        sa.Column("client_request_id", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "deleted_at IS NULL OR content_md = ''", name=op.f("ck_messages_deleted_has_no_content")
        ),
        sa.CheckConstraint(
            "kind IN ('text', 'system', 'file')", name=op.f("ck_messages_kind_valid")
        ),
        sa.CheckConstraint(
            "origin IN ('human', 'agent', 'app', 'import', 'system')",
            name=op.f("ck_messages_origin_valid"),
        ),
        sa.CheckConstraint(
            "system_code IS NULL OR origin = 'system'",
            name=op.f("ck_messages_system_code_only_system"),
        ),
        sa.CheckConstraint("thread_seq >= 1", name=op.f("ck_messages_thread_seq_positive")),
        sa.ForeignKeyConstraint(
            ["author_principal_id"],
            ["principals.id"],
            name=op.f("fk_messages_author_principal_id_principals"),
        ),
        sa.ForeignKeyConstraint(
            ["reply_to_message_id"],
            ["messages.id"],
            name=op.f("fk_messages_reply_to_message_id_messages"),
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["threads.id"], name=op.f("fk_messages_thread_id_threads")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
        sa.UniqueConstraint(
            "author_principal_id",
            "client_request_id",
            name=op.f("uq_messages_author_principal_id_client_request_id"),
        ),
        sa.UniqueConstraint(
            "thread_id", "thread_seq", name=op.f("uq_messages_thread_id_thread_seq")
        ),
    )
    op.create_table(
        "attachments",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("message_id", sa.UUID(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("file_id", sa.UUID(), nullable=False),
        sa.Column("original_name", sa.Text(), nullable=False),
        sa.Column("mime_type", sa.Text(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("scan_status", sa.Text(), server_default=sa.text("'pending'"), nullable=False),
        sa.Column("transcript", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "scan_status IN ('pending', 'clean', 'infected', 'failed')",
            name=op.f("ck_attachments_scan_status_valid"),
        ),
        sa.CheckConstraint("position >= 0", name=op.f("ck_attachments_position_not_negative")),
        sa.CheckConstraint("size_bytes >= 0", name=op.f("ck_attachments_size_bytes_not_negative")),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["messages.id"],
            name=op.f("fk_attachments_message_id_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attachments")),
        sa.UniqueConstraint(
            "message_id", "position", name=op.f("uq_attachments_message_id_position")
        ),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("thread_id", sa.UUID(), nullable=False),
        sa.Column("agent_id", sa.UUID(), nullable=False),
        sa.Column("agent_session_id", sa.UUID(), nullable=True),
        sa.Column("trigger_kind", sa.Text(), nullable=False),
        sa.Column("triggering_message_id", sa.UUID(), nullable=True),
        sa.Column("triggered_by", sa.UUID(), nullable=True),
        sa.Column("state", sa.Text(), server_default=sa.text("'queued'"), nullable=False),
        sa.Column(
            "queued_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("audit_content_ceiling", sa.Text(), nullable=True),
        sa.Column("background_answer_ceiling", sa.Text(), nullable=True),
        sa.Column(
            "attempted_provider_ids",
            postgresql.ARRAY(sa.Text()),
            server_default=sa.text("'{}'::text[]"),
            nullable=False,
        ),
        sa.Column("background_answer", sa.Text(), nullable=True),
        sa.Column("sealed_envelope", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'waiting_input', 'succeeded', 'failed', 'cancelled')",
            name=op.f("ck_runs_state_valid"),
        ),
        sa.CheckConstraint(
            "trigger_kind IN ('message', 'command', 'interaction')",
            name=op.f("ck_runs_trigger_kind_valid"),
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["principals.id"], name=op.f("fk_runs_agent_id_principals")
        ),
        sa.ForeignKeyConstraint(
            ["agent_session_id"],
            ["agent_sessions.id"],
            name=op.f("fk_runs_agent_session_id_agent_sessions"),
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"], ["threads.id"], name=op.f("fk_runs_thread_id_threads")
        ),
        sa.ForeignKeyConstraint(
            ["triggered_by"], ["principals.id"], name=op.f("fk_runs_triggered_by_principals")
        ),
        sa.ForeignKeyConstraint(
            ["triggering_message_id"],
            ["messages.id"],
            name=op.f("fk_runs_triggering_message_id_messages"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_index(
        "ix_runs_active_agent_id",
        "runs",
        ["agent_id"],
        unique=False,
        postgresql_where=sa.text("state IN ('queued', 'running', 'waiting_input')"),
    )
    op.create_index(
        "ix_runs_agent_session_id_queued_at",
        "runs",
        ["agent_session_id", "queued_at"],
        unique=False,
    )
    op.create_index("ix_runs_thread_id", "runs", ["thread_id"], unique=False)
    op.create_table(
        "run_followups",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("run_id", sa.UUID(), nullable=False),
        sa.Column("message_id", sa.UUID(), nullable=False),
        sa.Column("state", sa.Text(), server_default=sa.text("'pending'"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "state IN ('pending', 'delivered', 'absorbed', 'dropped')",
            name=op.f("ck_run_followups_state_valid"),
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["messages.id"],
            name=op.f("fk_run_followups_message_id_messages"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_followups_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_followups")),
    )
    op.create_index("ix_run_followups_message_id", "run_followups", ["message_id"], unique=False)
    op.create_index("ix_run_followups_run_id", "run_followups", ["run_id"], unique=False)
    op.create_unique_constraint(
        "uq_run_followups_run_id_message_id", "run_followups", ["run_id", "message_id"]
    )
    op.create_table(
        "run_steps",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("run_id", sa.UUID(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_run_steps_run_id_runs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_steps")),
        sa.UniqueConstraint("run_id", "seq", name=op.f("uq_run_steps_run_id_seq")),
    )

    # Cycles, closed once both sides exist (use_alter in the models).
    op.create_foreign_key(
        op.f("fk_principals_home_channel_id_channels"),
        "principals",
        "channels",
        ["home_channel_id"],
        ["id"],
    )
    op.create_foreign_key(
        op.f("fk_threads_parent_message_id_messages"),
        "threads",
        "messages",
        ["parent_message_id"],
        ["id"],
    )


def downgrade() -> None:
    """Drop everything :func:`upgrade` created (all data is lost)."""
    op.drop_constraint(op.f("fk_threads_parent_message_id_messages"), "threads", type_="foreignkey")
    op.drop_constraint(
        op.f("fk_principals_home_channel_id_channels"), "principals", type_="foreignkey"
    )
    # Dropping a table drops its indexes and constraints with it.
    for table in (
        "run_steps",
        "run_followups",
        "runs",
        "attachments",
        "messages",
        "agent_sessions",
        "threads",
        "grants",
        "channel_members",
        "session_bindings",
        "principal_permissions",
        "group_members",
        "channels",
        "api_tokens",
        "spaces",
        "runners",
        "provider_policies",
        "principals",
        "groups",
        "audit_log",
    ):
        op.drop_table(table)
