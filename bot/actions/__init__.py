"""Reversible actions: the catalog the triage proposes from, and (later) their executors."""
