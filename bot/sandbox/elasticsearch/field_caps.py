"""The `_field_caps` endpoint of the Elasticsearch stand-in: which fields exist, typed how, aggregatable or not.

It is what a read-only client may ask of the mapping (the `read` index privilege covers it, unlike
`_mapping`), so the log tools pick their field preset from it. A field typed differently across
indices lists each type with the indices that have it, as Elasticsearch does.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from bot.sandbox.elasticsearch.errors import EsError, Json
from bot.sandbox.elasticsearch.index import Index


def field_caps(indices: list[Index], fields: str | None) -> Json:
    """The capabilities of the fields matching the comma-separated `fields` patterns."""
    patterns = [p.strip() for p in (fields or "").split(",") if p.strip()]
    if not patterns:
        raise EsError(
            400, "action_request_validation_exception", "Validation Failed: 1: no fields specified;"
        )
    found: dict[str, dict[str, Json]] = {}
    for index in indices:
        for field in index.mapping.fields.values():
            if not any(fnmatchcase(field.name, pattern) for pattern in patterns):
                continue
            entry = found.setdefault(field.name, {}).setdefault(
                field.es_type,
                {
                    "type": field.es_type,
                    "metadata_field": False,
                    "searchable": True,
                    "aggregatable": field.kind != "text" or field.fielddata,
                    "indices": [],
                },
            )
            entry["indices"].append(index.name)
    for types in found.values():
        if len(types) == 1:
            for entry in types.values():
                entry.pop("indices")
    return {"indices": [index.name for index in indices], "fields": found}
