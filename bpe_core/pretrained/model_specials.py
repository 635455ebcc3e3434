"""The built-in tokenizers' pre-tokenization patterns and special tokens, each written as the model's
own files and packages give them (ids numbered from where the model's regular tokens end).

This module holds data and the small functions that number it; which file each tokenizer reads, its
hash and how it is built is ``catalogue``'s.
"""

from __future__ import annotations

from collections.abc import Iterable

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
#: Qwen 2.5 / 3 (single digits), and Qwen 3.5 / 3.6 (marks join letters); both normalize to NFC first.
QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN35_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN_SPECIALS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)  # Qwen 3's 26 in id order; Qwen 3.5 adds the 7 below
QWEN35_EXTRA = (
    "<|audio_start|>",
    "<|audio_end|>",
    "<tts_pad>",
    "<tts_text_bos>",
    "<tts_text_eod>",
    "<tts_text_bos_single>",
    "<|audio_pad|>",
)
LLAMA3_SPECIALS = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
)
TEKKEN_SPECIALS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)  # mistral-common's specials of a v3 Tekken file, then <SPECIAL_20>..<SPECIAL_999>


def numbered(names: Iterable[str], start: int) -> dict[str, int]:
    return {token: start + i for i, token in enumerate(names)}


def o200k_harmony_specials(_count: int) -> dict[str, int]:
    # tiktoken's o200k_harmony, except <|reserved_200018|>, which would share id 200018 with
    # <|endofprompt|> (tiktoken keeps both names; bpe_core gives each id one name).
    specials = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018, "<|startoftext|>": 199998}
    named = {
        200002: "<|return|>",
        200003: "<|constrain|>",
        200005: "<|channel|>",
        200006: "<|start|>",
        200007: "<|end|>",
        200008: "<|message|>",
        200012: "<|call|>",
    }
    for token_id in range(200000, 201088):
        if token_id != 200018:
            specials[named.get(token_id, f"<|reserved_{token_id}|>")] = token_id
    return specials


def llama3_specials(count: int) -> dict[str, int]:
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(LLAMA3_SPECIALS))]
    return numbered(LLAMA3_SPECIALS + tuple(reserved), count)


LLAMA4_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)  # o200k's, with "/" after punctuation runs (llama-models' llama4/tokenizer.py)


def llama4_specials(count: int) -> dict[str, int]:
    """llama-models' Llama 4 specials, in id order from ``count``: 5 basic, 75 text, 1,054 vision,
    10 reasoning, then plain reserved ones up to 2,048."""

    def reserved(kind: str, numbers: Iterable[int]) -> list[str]:
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in numbers]

    text = [
        "<|header_start|>",
        "<|header_end|>",
        "<|eom|>",
        "<|eot|>",
        "<|step|>",
        *reserved("text_post_train", range(6)),
        "<|python_start|>",
        "<|python_end|>",
        "<|finetune_right_pad|>",
        *reserved("text_post_train", range(8, 69)),
    ]
    v = reserved("vision", range(1048))
    vision = [
        "<|image_start|>",
        "<|image_end|>",
        v[0],
        v[1],
        "<|tile_x_separator|>",
        "<|tile_y_separator|>",
        *v[2:6],
        "<|image|>",
        v[6],
        "<|patch|>",
        *v[7:],
    ]
    reasoning = [*reserved("reasoning", range(8)), "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        *text,
        *vision,
        *reasoning,
    ]
    return numbered(named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))], count)
