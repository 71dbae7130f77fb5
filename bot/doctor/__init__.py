"""`incident-bot doctor`: what each configured backend is, and what the bot can and cannot get from it.

Each check reaches its backend through the same client and settings the triage uses, asks only
read-only questions (a SelfSubjectAccessReview only asks), and never raises: a backend that cannot be
reached is a report that says so. A configured backend that is unusable makes the command exit 1.
"""
