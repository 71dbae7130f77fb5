"""chat channels and messages

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 12:00:00

Each incident's Slack channel is claimed in the database before Slack is asked for it, and the
messages the bot posts are recorded by purpose, so retried jobs and racing replicas edit what
exists instead of posting it again.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from bot.store.types import UtcDateTime

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chat_channels",
        sa.Column("incident_id", ID, nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("channel_id", sa.String(length=40), nullable=True),
        sa.Column("claimed_by", sa.String(length=200), nullable=False),
        sa.Column("claimed_until", UtcDateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("steps", JSON, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["incidents.id"],
            name=op.f("fk_chat_channels_incident_id_incidents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_chat_channels")),
        sa.UniqueConstraint("channel_id", name=op.f("uq_chat_channels_channel_id")),
    )
    op.create_table(
        "chat_messages",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("incident_id", ID, nullable=False),
        sa.Column("purpose", sa.String(length=40), nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.String(length=40), nullable=False),
        sa.Column("ts", sa.String(length=40), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["incidents.id"],
            name=op.f("fk_chat_messages_incident_id_incidents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_messages")),
        sa.UniqueConstraint("incident_id", "purpose", "run", name="uq_chat_messages_purpose"),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_messages_incident_id"), ["incident_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_incident_id"))
    op.drop_table("chat_messages")
    op.drop_table("chat_channels")
