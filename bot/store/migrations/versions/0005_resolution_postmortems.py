"""final tag and postmortem drafts

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 07:00:00

Resolving sets the final code beside the final category (what the triage is scored against);
each resolved incident keeps the postmortem draft made from its timeline, as posted.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from bot.store.types import UtcDateTime

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("code", sa.String(length=60), nullable=True))
    op.create_table(
        "postmortems",
        sa.Column("incident_id", ID, nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.Column("events", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("draft", JSON, nullable=False),
        sa.ForeignKeyConstraint(
            ["incident_id"],
            ["incidents.id"],
            name=op.f("fk_postmortems_incident_id_incidents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("incident_id", name=op.f("pk_postmortems")),
    )


def downgrade() -> None:
    op.drop_table("postmortems")
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.drop_column("code")
