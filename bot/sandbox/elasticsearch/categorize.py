"""The `categorize_text` algorithm of the Elasticsearch stand-in, without the aggregation around it.

It follows Elasticsearch's own algorithm: messages are cut by the `ml_standard` tokenizer (hex numbers
and tokens starting with a digit are dropped), weighted, and grouped by a weighted edit-distance
similarity, so lines that differ only in ids fall into one category whose key is the tokens they
share. Real Elasticsearch weighs tokens with an English part-of-speech dictionary; the stand-in
approximates it (plain words weigh 3, `-ed`/`-ing` words 6, anything else 1). `aggs` runs it as
the `categorize_text` aggregation and renders the categories as buckets.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from bot.sandbox.elasticsearch.mapping import Hit

# ---------------------------------------------------------------------------- categorize_text

_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
_MONTHS += ["October", "November", "December"]
_DATE_WORDS = frozenset([*_DAYS, *(d[:3] for d in _DAYS), *_MONTHS, *(m[:3] for m in _MONTHS), "GMT", "UTC"])
_MAX_TOKENS = 100
Weighted = list[tuple[str, int]]


def ml_standard_tokens(text: str) -> list[str]:
    """Tokens as Elasticsearch's `ml_standard` tokenizer cuts them.

    Letters and digits, with `_ . - @` inside a token, slashes anywhere (paths and URLs stay whole) and
    one colon after leading letters when a slash follows (`http://`). Tokens that are hex numbers or
    start with a digit are dropped, and `_ . - @ :` are trimmed from the end.
    """
    tokens, position = [], 0
    while position < len(text):
        token, position = _scan_token(text, position)
        if token:
            tokens.append(token)
    return tokens


def _scan_token(text: str, position: int) -> tuple[str, int]:
    chars: list[str] = []
    letters = slashes = 0
    colon = False
    first_backslash = -1
    non_hex = False
    while position < len(text):
        char = text[position]
        if not _token_char(char, chars, letters, colon, first_backslash):
            break
        if char == ":" and text[position + 1 : position + 2] not in ("/", "\\"):
            position += 1
            break
        chars.append(char)
        position += 1
        if char == ":":
            colon = True
        elif char in "/\\":
            slashes += 1
            if char == "\\" and first_backslash < 0:
                first_backslash = len(chars) - 1
        elif not colon and char.isalpha():
            letters += 1
        non_hex = non_hex or (char not in "0123456789abcdefABCDEF.-@:")
    if not chars:
        return "", position + 1
    if not non_hex or chars[0].isdigit() or len(chars) == slashes:
        return "", position
    return "".join(chars).rstrip("_.-@:"), position


def _token_char(char: str, chars: list[str], letters: int, colon: bool, first_backslash: int) -> bool:
    if char.isalnum() or char == "/":
        return True
    if chars and char in "_.-@":
        return True
    if chars and char == ":" and letters == len(chars):
        return True
    return char == "\\" and (not chars or (colon and letters == 1) or first_backslash == 0)


def categorization_tokens(text: str, filters: list[re.Pattern[str]]) -> Weighted:
    """The weighted tokens categorization compares: first line with letters, filters, tokens, weights."""
    line = next((line for line in text.splitlines() if any(c.isalpha() for c in line)), "")
    for pattern in filters:
        line = pattern.sub("", line)
    tokens = [token for token in ml_standard_tokens(line) if token not in _DATE_WORDS][:_MAX_TOKENS]
    weighted: Weighted = []
    run = 0
    for token in tokens:
        wordlike = (
            len(token) > 1 and token.isalpha() and (token.islower() or token.isupper() or token.istitle())
        )
        run = run + 1 if wordlike else 0
        verb = token.lower().endswith(("ed", "ing")) and len(token) > 4
        weight = ((6 if verb else 3) + (6 if run >= 3 else 0)) if wordlike else 1
        weighted.append((token, weight))
    return weighted


def _unique(tokens: Weighted) -> dict[str, int]:
    unique: dict[str, int] = {}
    for token, weight in tokens:
        unique[token] = unique.get(token, 0) + weight
    return unique


def _edit_distance(first: Weighted, second: Weighted) -> int:
    """Levenshtein distance where inserting or deleting a token costs its weight."""
    previous = [0]
    for _, weight in second:
        previous.append(previous[-1] + weight)
    for token, weight in first:
        current = [previous[0] + weight]
        for index, (other, other_weight) in enumerate(second):
            substitute = previous[index] + (0 if token == other else max(weight, other_weight))
            current.append(min(previous[index + 1] + weight, current[index] + other_weight, substitute))
        previous = current
    return previous[-1]


def _similarity(first: Weighted, first_weight: int, second: Weighted, second_weight: int) -> float:
    most = max(first_weight, second_weight)
    return 1.0 - _edit_distance(first, second) / most if most > 0 else 1.0


@dataclass
class Category:
    base: Weighted
    base_length: int
    max_length: int
    common: dict[str, int]
    members: list[Hit]
    begin: int = 0
    end: int = 0
    base_weight: int = field(init=False)
    orig_weight: int = field(init=False)

    def __post_init__(self) -> None:
        self.base_weight = sum(weight for _, weight in self.base)
        self.orig_weight = sum(self.common.values())
        self.end = len(self.base)

    @property
    def common_weight(self) -> int:
        return sum(self.common.values())

    def max_matching_length(self) -> int:
        extended = min(self.max_length * 11 // 10, int(self.base_length * max(len(self.common) / 1.5, 2.0)))
        return max(self.max_length, extended)

    def ordered(self) -> list[str]:
        return [token for token, _ in self.base[self.begin : self.end] if token in self.common]

    def accepts(self, weight: int, length: int, unique: dict[str, int], tokens: Weighted) -> bool:
        """Would a search built from this category find the message (all common tokens, in order)?"""
        if (self.base_weight == 0) != (weight == 0) or self.max_matching_length() < length:
            return False
        if any(unique.get(token) != weight for token, weight in self.common.items()):
            return False
        position = 0
        for token in self.ordered():
            while position < len(tokens) and tokens[position][0] != token:
                position += 1
            if position >= len(tokens):
                return False
            position += 1
        return True

    def kept_weight(self, unique: dict[str, int]) -> int:
        return sum(weight for token, weight in self.common.items() if unique.get(token) == weight)

    def add(self, tokens: Weighted, unique: dict[str, int], length: int, hit: Hit) -> None:
        self.common = {token: weight for token, weight in self.common.items() if unique.get(token) == weight}
        self._narrow_order(tokens)
        self.max_length = max(self.max_length, length)
        self.members.append(hit)

    def _narrow_order(self, tokens: Weighted) -> None:
        """Keep the heaviest run of base tokens whose common tokens the new message has in the same order."""
        while self.end > self.begin and self.base[self.end - 1][0] not in self.common:
            self.end -= 1
        while self.begin < self.end and self.base[self.begin][0] not in self.common:
            self.begin += 1
        best_weight, best = 0, (self.end, self.end)
        for start in range(self.begin, self.end):
            position, weight, stop, complete = 0, 0, self.end, True
            for index in range(start, self.end):
                token, base_weight = self.base[index]
                if token not in self.common:
                    continue
                while position < len(tokens) and tokens[position][0] != token:
                    position += 1
                if position >= len(tokens):
                    stop, complete = index, False
                    break
                weight += tokens[position][1] + base_weight
            if weight > best_weight:
                best_weight, best = weight, (start, stop)
            if complete:
                break
        self.begin, self.end = best


class Categorizer:
    """Elasticsearch's token-list categorizer: join the first close-enough category, else start one."""

    def __init__(self, threshold: float) -> None:
        self.lower = threshold
        self.upper = (1.0 + threshold) / 2.0
        self.categories: list[Category] = []

    def add(self, tokens: Weighted, length: int, hit: Hit) -> None:
        weight, unique = sum(w for _, w in tokens), _unique(tokens)
        low, high = _weight_window(weight, self.lower)
        best, best_similarity = -1, self.lower
        for index, category in enumerate(self.categories):
            accepted = category.accepts(weight, length, unique, tokens)
            if not accepted and not self._plausible(category, low, high, unique):
                continue
            similarity = _similarity(tokens, weight, category.base, category.base_weight)
            if accepted or similarity > self.upper:
                self._join(index, tokens, unique, length, hit)
                return
            if similarity > best_similarity:
                best, best_similarity = index, similarity
                low, high = _weight_window(weight, similarity)
        if best >= 0:
            self._join(best, tokens, unique, length, hit)
        else:
            self.categories.append(Category(list(tokens), length, length, dict(unique), [hit]))

    def _plausible(self, category: Category, low: int, high: int, unique: dict[str, int]) -> bool:
        if not low <= category.base_weight <= high:
            return False
        return category.kept_weight(unique) / category.orig_weight >= self.lower

    def _join(self, index: int, tokens: Weighted, unique: dict[str, int], length: int, hit: Hit) -> None:
        category = self.categories[index]
        category.add(tokens, unique, length, hit)
        target = index
        while target > 0 and len(self.categories[target - 1].members) < len(category.members):
            target -= 1
        self.categories[index], self.categories[target] = self.categories[target], category


def _weight_window(weight: int, threshold: float) -> tuple[int, int]:
    """Base weights a category can have and still be more than `threshold` similar."""
    if weight == 0:
        return 0, 0
    return math.floor(weight * threshold + 1e-6) + 1, math.ceil(weight / threshold - 1e-6) - 1


def key_tokens(category: Category) -> list[str]:
    return [token for token, _ in category.base if token in category.common]
