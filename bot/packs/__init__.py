"""Incidents become scenario packs: `incidents export-pack` reads a stored incident's evidence
from the live backends, redacted, in the pack format that `triage --pack` and `eval` replay."""
