"""Whether a log line says that something failed: the gate in front of the learned stage.

The model is trained on failure lines only, so it would give any line a code: an INFO line, an
access log line of a 200, a notice that request fields were ignored. Those lines are not asked.
"""

from __future__ import annotations

import re
from typing import Any

import ahocorasick

# The model is asked only about lines that say something went wrong. A line without one of these
# words (an INFO line, a notice that request fields were ignored) is not an error line, whatever
# error lines it resembles. Short words count only as whole words ("inf" is not "info"). One
# Aho-Corasick pass finds them (a regex alternation of ~90 words costs ~0.1 ms a line).
FAILURE_WORDS = (
    "err",
    "exception",
    "fail",
    "fatal",
    "refused",
    "denied",
    "timed out",
    "time out",
    "timeout",
    "unavailable",
    "invalid",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "not found",
    "no such",
    "does not exist",
    "doesn't exist",
    "exceed",
    "killed",
    "panic",
    "abort",
    "crash",
    "out of memory",
    "traceback",
    "died",
    "reset",
    "too many",
    "limit",
    "unauthori",
    "forbidden",
    "overload",
    "not ready",
    "notready",
    "backoff",
    "back-off",
    "evict",
    "insufficient",
    "unsupported",
    "not supported",
    "mismatch",
    "missing",
    "unexpected",
    "illegal",
    "corrupt",
    "expired",
    "quota",
    "unknown",
    "must be",
    "required",
    "rejected",
    "throttl",
    "unreachable",
    "disconnect",
    "broken",
    "interrupted",
    "segmentation",
    "core dumped",
    "assert",
    "not healthy",
    "unhealthy",
    "restricted",
    "low on resource",
    "pressure",
    "not enough",
    "not compatible",
    "preempt",
    "truncat",
    "only supported",
    "does not match",
    "slowdown",
    "slow down",
    "bad request",
    "unprocessable",
    "bad gateway",
    "gateway time",
    "internal server",
    "status code 4",
    "status code 5",
    "http 4",
    "http 5",
    '" 4',
    '" 5',
    # from first-contact lines the rules missed and this list kept from the model
    "segfault",
    "dumped core",
    "too large",
    "lost",
    "deny",
    "is down",
    "enough resource",
    "unterminated",
    "deadlock",
    "no available",
)
WHOLE_WORDS = ("oom", "nan", "inf", "dead", "xid")


_JSON_KEY = re.compile(r'"[\w.:@-]+"\s*:')
_JSON_ERROR_STATUS = re.compile(r'"(?:response_code|status|status_code|code)"\s*:\s*"?[45]\d\d\b')


class _FailureGate:
    def __init__(self) -> None:
        self._automaton: Any = ahocorasick.Automaton()
        for word in FAILURE_WORDS:
            self._automaton.add_word(word, (False, len(word)))
        for word in WHOLE_WORDS:
            self._automaton.add_word(word, (True, len(word)))
        self._automaton.make_automaton()

    def __call__(self, text: str) -> bool:
        folded = text.lower()
        if folded.startswith("{"):  # a JSON record: its keys ("…_failure_reason": null) say nothing
            if _JSON_ERROR_STATUS.search(folded):
                return True
            folded = _JSON_KEY.sub(" ", folded)
        for end, (whole, size) in self._automaton.iter(folded):
            if not whole:
                return True
            start = end - size + 1
            before = folded[start - 1] if start else " "
            after = folded[end + 1] if end + 1 < len(folded) else " "
            if not (before.isalnum() or after.isalnum()):
                return True
        return False


says_failure = _FailureGate()
"""Whether a line says something failed (FAILURE_WORDS, or one of WHOLE_WORDS as a word)."""
