"""triage runs and the announcement's time

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 09:00:00

Each triage of an incident is a numbered run (re-runs are allowed, one stored result per run);
the incident counts its runs and records when it was announced, so the triage post can wait for
the announcement it belongs under.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.store.types import UtcDateTime

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("announced_at", UtcDateTime(), nullable=True))
        batch_op.add_column(sa.Column("triage_runs", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("triages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("run", sa.Integer(), server_default="1", nullable=False))
        batch_op.add_column(sa.Column("posted_at", UtcDateTime(), nullable=True))
    # Before runs existed a retried job could store a second triage of one incident: number them in
    # the order they were stored, so that each becomes a run of its own and the constraint holds.
    op.execute(
        "UPDATE triages SET run = (SELECT count(*) FROM triages t "
        "WHERE t.incident_id = triages.incident_id AND t.id <= triages.id)"
    )
    with op.batch_alter_table("triages", schema=None) as batch_op:
        batch_op.create_unique_constraint("uq_triages_incident_run", ["incident_id", "run"])
    op.execute(
        "UPDATE incidents SET triage_runs = "
        "(SELECT coalesce(max(t.run), 0) FROM triages t WHERE t.incident_id = incidents.id)"
    )
    # Announced incidents say so on their timeline.
    op.execute(
        "UPDATE incidents SET announced_at = (SELECT min(e.at) FROM timeline_events e "
        "WHERE e.incident_id = incidents.id AND e.kind = 'announced')"
    )


def downgrade() -> None:
    with op.batch_alter_table("triages", schema=None) as batch_op:
        batch_op.drop_constraint("uq_triages_incident_run", type_="unique")
        batch_op.drop_column("posted_at")
        batch_op.drop_column("run")
    with op.batch_alter_table("incidents", schema=None) as batch_op:
        batch_op.drop_column("triage_runs")
        batch_op.drop_column("announced_at")
