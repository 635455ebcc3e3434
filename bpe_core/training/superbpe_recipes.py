"""SuperBPE's recipes and stage 2's rule (``superbpe``): the two pre-tokenization patterns of each recipe,
written as one regex each, and which tokens stage 2 may make (at most ``max_words`` words and none of the
``forbidden`` byte strings; ``SuperwordRefusal`` is that rule as the merge engine's ``refuse``). The sources
and the tests that hold the patterns equal to the reference's are in ``superbpe``'s docstring. This module
trains nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bpe_core.errors import BpeError

#: A digit run cut into groups of three from the right (HF ``Digits`` then ``(?=(\d{3})+(?!\d))``).
_DIGIT_GROUPS = r"\p{N}+?(?=(?:\d{3})+(?!\d)|(?!\p{N}))"
_CASED = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"
_LOWER = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"


@dataclass(frozen=True)
class SuperBPERecipe:
    """The two pre-tokenization patterns of SuperBPE and stage 2's rules. Each pattern is a regex of
    bpe_core's (``PreTokenizer``) and is also what counting and encoding use; ``max_words`` (None: no
    cap) and ``forbidden`` (byte strings no new token may hold) apply to stage 2's merges only."""

    name: str
    stage1_pattern: str | None
    stage2_pattern: str | None
    max_words: int | None = 4
    forbidden: tuple[bytes, ...] = (b": ",)
    source: str = field(default="", compare=False)


RECIPES: dict[str, SuperBPERecipe] = {
    "paper": SuperBPERecipe(
        "paper",
        _DIGIT_GROUPS + r"| ?\p{L}+| ?[^\s\p{L}\p{N}]+|[^\S\n]*\n|[^\S\n]+(?![^\s\p{N}])|[^\S\n]+",
        _DIGIT_GROUPS + r"|[^\p{N}\n]+\n?|\n",
        source="PythonNut/superbpe 5df84b0 (the paper's tokenizers): Digits(individual_digits=False), then "
        r"Split((?=(\d{3})+(?!\d))| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+) in stage 1 and "
        r"Split((?=(\d{3})+(?!\d))) in stage 2, isolated, on each line",
    ),
    "2025-11": SuperBPERecipe(
        "2025-11",
        rf"[^\r\n\p{{L}}\p{{N}}]?{_CASED}*{_LOWER}+|[^\r\n\p{{L}}\p{{N}}]?{_CASED}+{_LOWER}*|\p{{N}}{{1,3}}"
        r"| ?[^\s\p{L}\p{N}]+[\r/]*\n?|[^\S\n]*[\r\n]|\s+(?!\S)|\s+",
        r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r/]*\n?| +(?!\S)"
        r"|(?:(?!\p{N}| ?[^\s\p{L}\p{N}]{2,}| +(?!\S))[^\n])+\n?|\n",
        source="PythonNut/superbpe dc6bbea/d731c76 (scripts/train_tokenizer.sh, extend_tokenizer.sh): o200k's "
        r"pattern without contractions in stage 1, Split(\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)) in "
        "stage 2, isolated, on each line",
    ),
}


def word_count(token: bytes) -> int:
    """The words of a token as the reference counts them: runs of bytes other than the space byte.

    >>> word_count(b" of the"), word_count(b", I am"), word_count(b"  "), word_count(b"abc")
    (2, 3, 0, 1)
    """
    return sum(1 for word in token.split(b" ") if word)


def superword_allowed(token: bytes, max_words: int | None = 4, forbidden: Sequence[bytes] = (b": ",)) -> bool:
    """Whether stage 2 may make ``token``: at most ``max_words`` words and none of ``forbidden``.

    >>> superword_allowed(b" of the way"), superword_allowed(b"a b c d e"), superword_allowed(b"key: v")
    (True, False, False)
    """
    return not any(part in token for part in forbidden) and (max_words is None or word_count(token) <= max_words)


def recipe_named(recipe: str | SuperBPERecipe) -> SuperBPERecipe:
    """``recipe`` itself, or the one of ``RECIPES`` it names; ``BpeError`` listing them otherwise.

    >>> recipe_named("paper").max_words
    4
    """
    if isinstance(recipe, SuperBPERecipe):
        return recipe
    if recipe not in RECIPES:
        raise BpeError(f"recipe must be one of {', '.join(map(repr, RECIPES))} or a SuperBPERecipe, not {recipe!r}")
    return RECIPES[recipe]


class SuperwordRefusal:
    """Stage 2's rule as the merge engine's ``refuse``: a token ``superword_allowed`` forbids under
    ``recipe`` is refused; ``refused`` counts the pairs refused so.

    >>> refuse = SuperwordRefusal(RECIPES["paper"])
    >>> refuse(b" of the way"), refuse(b"key: v"), refuse.refused
    (False, True, 1)
    """

    def __init__(self, recipe: SuperBPERecipe) -> None:
        self.max_words, self.forbidden = recipe.max_words, recipe.forbidden
        self.refused = 0

    def __call__(self, token: bytes) -> bool:
        if superword_allowed(token, self.max_words, self.forbidden):
            return False
        self.refused += 1
        return True
