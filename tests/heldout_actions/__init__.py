"""Held-out acceptance tests of the approval-gated actions, written from the README's contract by
someone who had not read the actions' code, before seeing whether they pass.

First contact: 22 of 24 runs passed (12 tests, SQLite and PostgreSQL). The two failures were one
product bug: a dry run's diff of a container's `args` was cut at a fixed width, so the changed
flag did not show; list values now diff item by item.
"""
