"""action approvals

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 13:00:00

Proposals expire, carry the dry run shown before approval and the outcome shown after; an
execution phase (apply, undo) is one row, written before the first write to the cluster; a
triage run holds the checkpoint thread and the interrupt its approvals resume, and a short lease
so that one decision at a time resumes it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from bot.store.types import UtcDateTime

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("action_proposals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", UtcDateTime(), nullable=True))
        batch_op.add_column(sa.Column("follows", ID, nullable=True))
        batch_op.add_column(sa.Column("preview", JSON, nullable=False, server_default=sa.text("'{}'")))
        batch_op.add_column(sa.Column("outcome", JSON, nullable=False, server_default=sa.text("'{}'")))
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("action_executions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("plan", JSON, nullable=False, server_default=sa.text("'{}'")))
        batch_op.create_unique_constraint("uq_action_executions_phase", ["proposal_id", "phase"])
    with op.batch_alter_table("triages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thread_id", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("interrupt_id", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("acting_by", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("acting_until", UtcDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("triages", schema=None) as batch_op:
        batch_op.drop_column("acting_until")
        batch_op.drop_column("acting_by")
        batch_op.drop_column("interrupt_id")
        batch_op.drop_column("thread_id")
    with op.batch_alter_table("action_executions", schema=None) as batch_op:
        batch_op.drop_constraint("uq_action_executions_phase", type_="unique")
        batch_op.drop_column("plan")
    with op.batch_alter_table("action_proposals", schema=None) as batch_op:
        batch_op.drop_column("version")
        batch_op.drop_column("outcome")
        batch_op.drop_column("preview")
        batch_op.drop_column("follows")
        batch_op.drop_column("expires_at")
