"""Each profile's client (a digest of its API key or address) and when its examples last changed; the profiles each
client made, by time, for its hourly limit.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("profiles") as table:
        table.add_column(sa.Column("client", sa.String(64), nullable=True))  # profiles made before: no client
        table.add_column(sa.Column("updated", sa.DateTime(timezone=True), nullable=True))
        table.create_index("ix_profiles_client", ["client"])
    op.create_table(
        "profile_creations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_profile_creations_client_created", "profile_creations", ["client", "created"])


def downgrade() -> None:
    op.drop_index("ix_profile_creations_client_created", table_name="profile_creations")
    op.drop_table("profile_creations")
    with op.batch_alter_table("profiles") as table:
        table.drop_index("ix_profiles_client")
        table.drop_column("updated")
        table.drop_column("client")
