"""Scenario-pack generator: builds the public packs under `scenarios/` (spec/scenario-pack.md).

Run as `.venv/bin/python scripts/packgen [generate|validate|list] ...`. Plain Python and PyYAML;
every pack is deterministic (fixed seeds), so regenerating gives byte-identical files.
"""
