"""The data files a triage reasons with, loaded and validated once at start-up.

The taxonomy, the attribution rules, the signal catalog and the runbooks are files users edit; a
mistake in any of them stops start-up with the file, the line and the field, and every part that
speaks the vocabulary (rules, signals, runbooks) is checked against the one taxonomy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.errors import ConfigError
from bot.settings import Settings
from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.classify import DECISION_CODES
from bot.triage.findings import FINDING_CODES
from bot.triage.learned import DEFAULT_MODEL
from bot.triage.runbooks import DEFAULT_DIR, RunbookCatalog
from bot.triage.taxonomy import DEFAULT_TAXONOMY, Taxonomy, load_taxonomy
from tools.signals import DEFAULT_CATALOG, Catalog, load_catalog
from tools.yamlpos import DataFileError


@dataclass(frozen=True)
class Knowledge:
    """Taxonomy, attribution rules, signal catalog and runbooks, consistent with one another."""

    taxonomy: Taxonomy
    attributor: Attributor
    catalog: Catalog
    runbooks: RunbookCatalog

    @classmethod
    def load(
        cls,
        *,
        taxonomy: Path = DEFAULT_TAXONOMY,
        rules: Path = DEFAULT_RULES,
        signals: Path = DEFAULT_CATALOG,
        runbooks: Path = DEFAULT_DIR,
        model: Path | None = DEFAULT_MODEL,
    ) -> Knowledge:
        """Read and cross-check every file; ConfigError names the file, the line and the field."""
        table = load_taxonomy(taxonomy)
        missing = sorted((FINDING_CODES | DECISION_CODES) - set(table.codes))
        if missing:
            raise ConfigError(
                f"{taxonomy}: codes: the triage rules name {', '.join(missing)}, which the taxonomy does not declare"
            )
        try:
            catalog = load_catalog(signals, layers=set(table.layers))
        except DataFileError as exc:
            raise ConfigError(exc.message) from exc
        return cls(
            taxonomy=table,
            attributor=Attributor.load(table, rules, model),
            catalog=catalog,
            runbooks=RunbookCatalog.load(runbooks, table),
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Knowledge:
        """The files the settings name, the shipped ones otherwise."""
        return cls.load(
            taxonomy=settings.taxonomy_file or DEFAULT_TAXONOMY,
            rules=settings.attribution_rules_file or DEFAULT_RULES,
            signals=settings.signals_file or DEFAULT_CATALOG,
            runbooks=settings.runbooks_dir or DEFAULT_DIR,
            model=model_path(settings.attribution_model),
        )


def model_path(setting: str | None) -> Path | None:
    """ATTRIBUTION_MODEL: unset or `shipped` → the shipped model, `off` → rules only, else a file."""
    if setting is None or setting.strip().lower() in ("", "shipped"):
        return DEFAULT_MODEL
    if setting.strip().lower() == "off":
        return None
    return Path(setting)
