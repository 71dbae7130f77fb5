"""Triage: from an incident's alert to evidence, an attributed cause and reversible first moves."""
