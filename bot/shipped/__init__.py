"""Where the shipped runbooks and prompts are, in a checkout and in an installed wheel alike.

The top-level `runbooks/` and `prompts/` folders are the one copy users edit. `runbooks` and
`prompts` beside this file are relative links to them: a checkout (or an editable install) reads
the top-level folders through them, and a wheel (the container image) carries real copies,
because setuptools follows the links when it collects the package data that pyproject.toml's
`[tool.setuptools.package-data]` names. The paths are resolved so that messages name the folder
the file really is in (`runbooks/gpu-oom.md` in a checkout).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNBOOKS = (HERE / "runbooks").resolve()
PROMPTS = (HERE / "prompts").resolve()
