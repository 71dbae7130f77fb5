"""Several replicas of the bot on one PostgreSQL: storms, concurrent clicks, a database restart."""
