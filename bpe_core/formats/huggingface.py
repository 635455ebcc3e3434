"""Hugging Face ``tokenizer.json`` for byte-level BPE: writing one that HF ``tokenizers`` loads with the
same ids, and reading one exactly or not at all.

Reading takes what byte-level files of recent open models use: normalizers NFC, NFD, NFKC, NFKD,
Lowercase and Sequences of them; a pre-tokenizer that is a ``Sequence`` of ``Split`` rules (regex or
literal, any ``behavior``, ``invert``) ending with ``ByteLevel`` (with or without its own regex and
prefix space); a BPE model; added tokens. Regexes are read from Oniguruma's dialect by
``oniguruma``. Anything else is refused with a message naming the component, never imported
approximately. The ids are HF's ``encode(text, add_special_tokens=False)``: the post-processor (a
template adding ``<|begin_of_text|>``, say), truncation and padding are not part of the tokenizer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from bpe_core.bpe.model import gc_paused
from bpe_core.errors import BpeError
from bpe_core.formats.bpe_json import read_tokenizer_file
from bpe_core.formats.bytelevel import bytes_to_printable, printable_pairs, printable_to_bytes
from bpe_core.formats.gpt2_files import parse_encoder, refuse_picky
from bpe_core.formats.huggingface_extension import hf_merges, imported_bpe, takes_whole_pieces
from bpe_core.formats.oniguruma import from_oniguruma
from bpe_core.pretokenization.pretokenizer import GPT2_PATTERN, PRESETS
from bpe_core.pretokenization.stages import Pipeline, PrefixSpace, Split
from bpe_core.safe_io import json_value, write_atomic
from bpe_core.tokenizer import Tokenizer

# A possessive interval such as `\p{N}{1,3}+` (cl100k's digit rule) means "1 to 3 digits, no
# backtracking" to `regex` and tiktoken, but "one or more groups of 1 to 3 digits" to Oniguruma, the
# engine HF tokenizers uses. An atomic group says the same thing in every engine.
_POSSESSIVE_INTERVAL = re.compile(r"(\\[pP]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\]|[^\\()\[\]{}|])(\{\d+(?:,\d*)?\})\+")

#: HF's names for the split behaviors and normalizers, and bpe_core's (see ``stages``).
_BEHAVIORS = {
    "Isolated": "isolated",
    "Removed": "removed",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}
_NORMALIZERS = {"NFC": "NFC", "NFD": "NFD", "NFKC": "NFKC", "NFKD": "NFKD", "Lowercase": "lowercase"}
# What bpe_core's own export puts around a custom pattern so that HF keeps unmatched characters.
_CATCH_ALL = r"|[\s\S]"
_REFUSED = "it is not imported, since the ids would differ from HF tokenizers'"


def oniguruma_pattern(source: str) -> str:
    """``source`` rewritten for Oniguruma (HF tokenizers): possessive intervals become atomic groups."""
    return _POSSESSIVE_INTERVAL.sub(r"(?>\1\2)", source)


# ------------------------------------------------------------------------------------------------
# writing


def _normalizer_dict(normalizers: Sequence[str]) -> dict[str, Any] | None:
    hf_names = {ours: theirs for theirs, ours in _NORMALIZERS.items()}
    nodes = [{"type": hf_names[name]} for name in normalizers]
    if len(nodes) <= 1:
        return nodes[0] if nodes else None
    return {"type": "Sequence", "normalizers": nodes}


def _byte_level(*, add_prefix_space: bool, use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space, "trim_offsets": False, "use_regex": use_regex}


def _pipeline_pre_tokenizers(pipeline: Pipeline) -> list[dict[str, Any]]:
    """HF's pre-tokenizers for ``pipeline``: its Split rules, then ByteLevel, which takes a trailing
    GPT-2 split (``use_regex``) and a trailing prefix space (``add_prefix_space``)."""
    stages = list(pipeline.stages)
    use_regex = bool(stages) and stages[-1] == Split(GPT2_PATTERN)
    if use_regex:
        stages.pop()
    add_prefix_space = bool(stages) and isinstance(stages[-1], PrefixSpace)
    if add_prefix_space:
        stages.pop()
    nodes = []
    for stage in stages:
        if isinstance(stage, PrefixSpace):
            raise BpeError(
                "a prefix space can only be exported as the last stage (HF's ByteLevel(add_prefix_space=True), "
                "optionally followed by its GPT-2 regex); tokenizer.json cannot hold it elsewhere"
            )
        pattern = {"String": stage.pattern} if stage.literal else {"Regex": oniguruma_pattern(stage.pattern)}
        hf_behavior = next(theirs for theirs, ours in _BEHAVIORS.items() if ours == stage.behavior)
        nodes.append({"type": "Split", "pattern": pattern, "behavior": hf_behavior, "invert": stage.invert})
    return nodes + [_byte_level(add_prefix_space=add_prefix_space, use_regex=use_regex)]


def to_huggingface_dict(tokenizer: Tokenizer) -> dict[str, Any]:
    """The ``tokenizer.json`` form: BPE model over GPT-2's byte alphabet, the pattern as a Split
    pre-tokenizer followed by ByteLevel (a ``Pipeline``'s stages and normalizers as HF's), special
    tokens as added tokens. A Picky BPE tokenizer is refused (``gpt2_files.refuse_picky``)."""
    refuse_picky(tokenizer, "a Hugging Face tokenizer.json")
    special_ids = set(tokenizer.special_tokens.values())
    pattern = tokenizer.pattern
    normalizer = None
    if isinstance(pattern, Pipeline):
        pre_tokenizers = _pipeline_pre_tokenizers(pattern)
        normalizer = _normalizer_dict(pattern.normalizers)
    else:
        pre_tokenizers = []
        source = tokenizer.pretokenizer.full_source
        if source is not None:
            _check_expressible(tokenizer, source)
            regex = {"Regex": oniguruma_pattern(source)}
            pre_tokenizers.append({"type": "Split", "pattern": regex, "behavior": "Isolated", "invert": False})
        pre_tokenizers.append(_byte_level(add_prefix_space=False, use_regex=False))
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": token_id,
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": normalizer,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre_tokenizers},
        "post_processor": None,
        "decoder": _byte_level(add_prefix_space=False, use_regex=False),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": takes_whole_pieces(tokenizer),  # tiktoken's rule: a piece that is a token, whole
            # Special tokens are in the model's vocab under their own text, so that HF gives the
            # added tokens these ids instead of appending new ones.
            "vocab": {
                **{
                    bytes_to_printable(token): token_id
                    for token_id, token in sorted(tokenizer.vocab.items())
                    if token_id not in special_ids
                },
                **tokenizer.special_tokens,
            },
            "merges": [[bytes_to_printable(a), bytes_to_printable(b)] for a, b in hf_merges(tokenizer)],
        },
    }


def _check_expressible(tokenizer: Tokenizer, source: str) -> None:
    """A custom pattern (SuperBPE's stage 2, say) must read the same in Oniguruma, which HF tokenizers
    runs it with: ``from_oniguruma`` reads it back or names the construct that does not."""
    if tokenizer.pattern_name is not None:
        return  # the presets' export is tested as it is
    try:
        from_oniguruma(oniguruma_pattern(source))
    except ValueError as exc:
        reason = str(exc).split("; it is not imported")[0]  # the message is written for importing
        raise BpeError(
            f"cannot write {tokenizer.name!r} as tokenizer.json: {reason}, so HF tokenizers would split "
            "text differently; save it with Tokenizer.save (bpe_core's JSON)"
        ) from None


def save_huggingface(tokenizer: Tokenizer, path: str | os.PathLike[str]) -> None:
    """Write ``to_huggingface_dict`` as a ``tokenizer.json`` file, atomically (``safe_io.write_atomic``:
    a regular file or a new name, never through a symbolic link, nothing partial left after a failure)."""
    write_atomic(path, json.dumps(to_huggingface_dict(tokenizer), ensure_ascii=False))


# ------------------------------------------------------------------------------------------------
# reading


def _typed(node: Any, where: str) -> str:
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise BpeError(f"{where} must be an object with a 'type'")
    return node["type"]


def _flag(node: dict, key: str, default: bool, where: str) -> bool:
    value = node.get(key, default)
    if not isinstance(value, bool):
        raise BpeError(f"{where}: '{key}' must be true or false, got {value!r}")
    return value


def read_normalizers(node: Any) -> list[str]:
    """bpe_core's normalizer names for a tokenizer.json ``normalizer`` (None: no normalization);
    ValueError naming any normalizer this cannot reproduce exactly."""
    if node is None:
        return []
    kind = _typed(node, "the normalizer")
    if kind == "Sequence":
        children = node.get("normalizers")
        if not isinstance(children, list):
            raise BpeError("the normalizer Sequence needs a 'normalizers' list")
        return [name for child in children for name in read_normalizers(child)]
    if kind not in _NORMALIZERS:
        raise BpeError(
            f"the normalizer {kind!r} is not supported (only {', '.join(_NORMALIZERS)} and Sequences of "
            f"them are); {_REFUSED}"
        )
    return [_NORMALIZERS[kind]]


def _flatten(node: Any, where: str) -> list[dict]:
    kind = _typed(node, where)
    if kind != "Sequence":
        return [node]
    children = node.get("pretokenizers")
    if not isinstance(children, list):
        raise BpeError(f"{where}: a Sequence needs a 'pretokenizers' list")
    return [leaf for number, child in enumerate(children) for leaf in _flatten(child, f"{where} {number}")]


def _split_stage(node: dict, number: int) -> Split:
    where = f"pre-tokenizer {number} (Split)"
    pattern = node.get("pattern")
    if not isinstance(pattern, dict) or len(pattern) != 1 or not isinstance(next(iter(pattern.values())), str):
        raise BpeError(
            f'{where}: the pattern must be {{"Regex": ...}} or {{"String": ...}}, got {pattern!r}; {_REFUSED}'
        )
    ((kind, source),) = pattern.items()
    behavior = node.get("behavior")
    if behavior not in _BEHAVIORS:
        raise BpeError(f"{where}: the behavior {behavior!r} is not one of {', '.join(_BEHAVIORS)}")
    invert = _flag(node, "invert", False, where)
    if kind == "String":
        if not source:
            raise BpeError(f"{where}: an empty String pattern matches everywhere; {_REFUSED}")
        return Split(source, behavior=_BEHAVIORS[behavior], invert=invert, literal=True)
    if kind != "Regex":
        raise BpeError(f"{where}: the pattern kind {kind!r} is neither Regex nor String")
    try:
        translated = from_oniguruma(source)
    except ValueError as exc:
        raise BpeError(f"{where}: {exc}") from None
    return Split(translated, behavior=_BEHAVIORS[behavior], invert=invert)


def read_stages(node: Any) -> list[Split | PrefixSpace]:
    """bpe_core's stages for a tokenizer.json ``pre_tokenizer``: Splits, then what the final
    ByteLevel adds (a prefix space, GPT-2's regex); ValueError naming anything else."""
    if node is None:
        raise BpeError(f"the file has no pre-tokenizer, so no ByteLevel: not a byte-level BPE file; {_REFUSED}")
    leaves = _flatten(node, "the pre-tokenizer")
    stages: list[Split | PrefixSpace] = []
    for number, leaf in enumerate(leaves):
        kind = leaf["type"]
        if kind == "ByteLevel" and number == len(leaves) - 1:
            where = f"pre-tokenizer {number} (ByteLevel)"
            if _flag(leaf, "add_prefix_space", False, where):
                stages.append(PrefixSpace())
            if _flag(leaf, "use_regex", True, where):
                stages.append(Split(GPT2_PATTERN))
        elif kind == "ByteLevel":
            raise BpeError(
                f"pre-tokenizer {number} is a ByteLevel before other pre-tokenizers; only a final one is supported"
            )
        elif kind == "Split":
            stages.append(_split_stage(leaf, number))
        else:
            raise BpeError(
                f"pre-tokenizer {number} is {kind!r}, which is not supported (only Split rules followed by "
                f"ByteLevel are); {_REFUSED}"
            )
    if not leaves or leaves[-1]["type"] != "ByteLevel":
        raise BpeError(f"the pre-tokenizer does not end with ByteLevel: not a byte-level BPE file; {_REFUSED}")
    return stages


def _pattern_of(pre_tokenizer: Any, normalizers: list[str]) -> str | Pipeline | None:
    """The ``Tokenizer`` pattern: a preset name, a regex or None when one regex says it all (GPT-2's
    ByteLevel regex, bpe_core's own exports), else a ``Pipeline``."""
    stages = read_stages(pre_tokenizer)
    if normalizers or len(stages) > 1:
        return Pipeline(stages, normalizers)
    if not stages:
        return None
    if stages[0] == Split(GPT2_PATTERN):
        return "gpt2"
    first = stages[0]
    if isinstance(first, Split) and first == Split(first.pattern):  # one isolated, not inverted regex
        raw = next(leaf for leaf in _flatten(pre_tokenizer, "") if leaf["type"] == "Split")["pattern"]["Regex"]
        exported_presets = {oniguruma_pattern(source): name for name, source in PRESETS.items()}
        if raw in exported_presets:  # presets match every character, so their matches tile the text
            return exported_presets[raw]
        if raw.startswith("(?:") and raw.endswith(")" + _CATCH_ALL):
            return from_oniguruma(raw[3 : -len(_CATCH_ALL) - 1])  # bpe_core's export of a custom pattern
    return Pipeline(stages)


def _check_model(model: dict) -> None:
    if model.get("type", "BPE") != "BPE":
        raise BpeError(f"only BPE models can be imported, this one is {model.get('type')!r}")
    if not isinstance(model.get("vocab"), dict) or not isinstance(model.get("merges"), list):
        raise BpeError("the BPE model needs a 'vocab' object and a 'merges' list")
    if model.get("dropout") not in (None, 0, 0.0):
        raise BpeError(f"the BPE model has dropout {model['dropout']!r}, which makes ids random; {_REFUSED}")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key) not in (None, ""):
            raise BpeError(f"the BPE model's {key} {model[key]!r} is not supported; {_REFUSED}")


def _check_decoder(node: Any) -> None:
    """None or ByteLevel (alone or in a Sequence): what bpe_core's decode (the tokens' bytes) does."""
    if node is None:
        return
    children = node.get("decoders") if _typed(node, "the decoder") == "Sequence" else [node]
    for child in children if isinstance(children, list) else [None]:
        kind = child.get("type") if isinstance(child, dict) else child
        if kind != "ByteLevel":
            raise BpeError(
                f"the decoder {kind!r} is not supported (only ByteLevel is): decoded text would differ from HF's"
            )


def _added_tokens(entries: Any, normalizers: list[str]) -> dict[str, int]:
    """The added tokens as special tokens, refusing matching rules bpe_core does not have."""
    specials: dict[str, int] = {}
    normalized: list[str] = []
    raw: list[str] = []
    for entry in entries or []:
        if not (isinstance(entry, dict) and isinstance(entry.get("content"), str) and isinstance(entry.get("id"), int)):
            raise BpeError(f"an added token must be an object with a 'content' string and an 'id', got {entry!r}")
        content = entry["content"]
        for flag in ("lstrip", "rstrip", "single_word"):
            if entry.get(flag):
                raise BpeError(f"added token {content!r} has {flag}=true, which is not supported; {_REFUSED}")
        (normalized if entry.get("normalized", True) else raw).append(content)
        specials[content] = entry["id"]
    if normalized and normalizers:
        raise BpeError(
            f"added token {normalized[0]!r} is matched after normalization (normalized=true) and the file "
            f"normalizes ({', '.join(normalizers)}), which bpe_core does not do; {_REFUSED}"
        )
    clash = _displacing(normalized, raw) if normalized and raw else None
    if clash:
        raise BpeError(
            f"added token {clash[0]!r} (normalized=true) can start before {clash[1]!r} (normalized=false) and "
            "overlap it, or hold it: HF matches the normalized=false tokens first, bpe_core the leftmost longest "
            f"of all; {_REFUSED}"
        )
    return specials


def _displacing(normalized: Iterable[str], raw: Iterable[str]) -> tuple[str, str] | None:
    """A normalized token and a raw one whose matches HF and bpe_core can choose differently, or None.

    HF finds added tokens in two passes, leftmost longest in each: the normalized=false ones in the
    text, then the normalized=true ones in the gaps (the normalizer is the identity here, or the file
    is refused). bpe_core finds the leftmost longest of all of them in one pass. The two agree unless a
    normalized token can start before a raw one and overlap it (its end is the raw one's start), or
    holds it (there the one pass takes the normalized token, HF the raw one). A raw token that starts
    first, or holds a normalized one, wins in both (DeepSeek V4's ``<｜/table>｜`` before ``｜DSML｜``).

    >>> _displacing(["ab"], ["bc"]), _displacing(["bc"], ["ab"]), _displacing(["abc"], ["b"])
    (('ab', 'bc'), None, ('abc', 'b'))
    """
    raw = list(raw)
    # Where a normalized token may end with the start of a raw one: its proper prefixes, looked up at once.
    starts = {r[:k] for r in raw for k in range(1, len(r))}
    for n in normalized:
        if not any(n[-k:] in starts for k in range(1, len(n))) and not any(r != n and r in n for r in raw):
            continue
        for r in raw:
            if (r != n and r in n) or any(n.endswith(r[:k]) for k in range(1, min(len(n), len(r)))):
                return n, r
    return None


def _merge_pairs(entries: Any) -> list[tuple[bytes, bytes]]:
    """The merges (``"left right"`` strings or ``[left, right]`` lists) as byte pairs: all at once
    (``printable_pairs``), or merge by merge to name the first bad one.

    >>> _merge_pairs(["Ġ t", "h e"]), _merge_pairs([["h", "e"]])
    ([(b' ', b't'), (b'h', b'e')], [(b'h', b'e')])
    """
    kinds = set(map(type, entries))
    if kinds <= {list} and set(map(len, entries)) <= {2} and set(map(type, chain.from_iterable(entries))) <= {str}:
        entries, kinds = list(map(" ".join, entries)), {str}  # newer files: two-item lists
    pairs = printable_pairs(entries) if kinds <= {str} else None
    if pairs is not None:
        return pairs
    merges = []
    for rank, entry in enumerate(entries):
        merge = entry.split(" ") if isinstance(entry, str) else entry
        if not isinstance(merge, list) or len(merge) != 2 or not all(isinstance(part, str) for part in merge):
            raise BpeError(f"tokenizer.json merge {rank} must be two tokens, got {merge!r}")
        left, right = (printable_to_bytes(part, what=f"merge {rank}") for part in merge)
        merges.append((left, right))
    return merges


def from_huggingface_dict(data: Any, *, name: str = "huggingface") -> Tokenizer:
    """Import a byte-level BPE ``tokenizer.json`` exactly (see the module docstring), or raise
    ValueError naming the component that is not supported."""
    with gc_paused():  # its vocabulary and merges make hundreds of thousands of objects, and no cycle
        return _imported(data, name)


def _imported(data: Any, name: str) -> Tokenizer:
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise BpeError("not a Hugging Face tokenizer.json: the 'model' object is missing")
    model = data["model"]
    _check_model(model)
    normalizers = read_normalizers(data.get("normalizer"))
    specials = _added_tokens(data.get("added_tokens"), normalizers)
    encoder = dict(model["vocab"])  # the ordinary tokens: the added ones taken out (a copy, no step per token)
    for text in specials:
        encoder.pop(text, None)
    vocab = parse_encoder(encoder, what="tokenizer.json vocab")
    merges = _merge_pairs(model["merges"])
    pattern = _pattern_of(data.get("pre_tokenizer"), normalizers)
    _check_decoder(data.get("decoder"))
    return imported_bpe(vocab, merges, specials, pattern, name, ignore_merges=bool(model.get("ignore_merges")))


def load_huggingface(path: str | os.PathLike[str]) -> Tokenizer:
    """Read a byte-level BPE ``tokenizer.json``; ValueError saying what is wrong."""
    raw = read_tokenizer_file(path)
    try:
        data = json_value(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: not JSON, or nested too deeply
        raise BpeError(f"cannot read {os.fspath(path)} as tokenizer.json: {exc}") from None
    try:
        return from_huggingface_dict(data, name=Path(path).stem)
    except (ValueError, TypeError) as exc:
        raise BpeError(f"{os.fspath(path)}: {exc}") from None
