"""JSON from outside, decoded into text that every store and client can hold.

Python's decoder keeps what JSON's `\\u` escapes can spell and UTF-8 cannot: a lone surrogate
(`"\\ud800"`) fails later, when the text is hashed, stored or posted, and U+0000 is refused by
PostgreSQL's `text` and `jsonb`. Failing there answers 500, and Alertmanager retries a 5xx without
end. Both become U+FFFD, as Go's `encoding/json` (Alertmanager's own) decodes a lone surrogate.
"""

from __future__ import annotations

import json
import re
from typing import Any

# After decoding, a valid surrogate pair is one astral character: any surrogate left is lone.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def loads(body: bytes | str) -> Any:
    """`json.loads`, with lone surrogates and NUL in keys and values replaced by U+FFFD.

    Raises JSONDecodeError or UnicodeDecodeError on a body that is not JSON, or JSONDecodeError on
    JSON no reader should take: nested past Python's recursion limit, or an integer longer than
    Python converts (`sys.get_int_max_str_digits`), which `json.loads` raises as other errors.
    """
    # Strict UTF-8 (or the UTF-16/32 JSON allows): `json.loads` of bytes lets surrogates encoded
    # as bytes through ("surrogatepass"), which no UTF-8 decoder should.
    text = body if isinstance(body, str) else body.decode(json.detect_encoding(body))
    try:
        data = json.loads(text)
        return _clean(data) if "\\u" in text else data  # only an escape can spell either
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        raise json.JSONDecodeError(str(exc), text, 0) from None


def clean_text(text: str) -> str:
    return _UNSTORABLE.sub(REPLACEMENT, text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): _clean(v) for k, v in value.items()}
    return value
