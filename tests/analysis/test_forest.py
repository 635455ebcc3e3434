"""The merge forest's indexes (bpe_core.analysis.forest) and token contexts (bpe_core.analysis.contexts): equal to the
slow, obvious computations on trained tokenizers, GPT-2 and (when installed) Llama 3's tiktoken rule."""

from __future__ import annotations

import pytest

import bpe_core
from bpe_core.analysis.contexts import token_contexts
from bpe_core.analysis.forest import MergeForest
from bpe_core.display.marks import token_display, token_displays
from bpe_core.pretrained import catalogue

TEXT = (
    "The theme of the thesis: tokenizers   merge\tbytes.\n\nNaïve café 你好世界 🙂👍🏽 "
    "don't      stop  — 12345 6789!!\r\n  done"
)


@pytest.fixture(scope="module")
def trained():
    documents = ["the theme of the thesis, the then and the there " * 20, "naïve café 你好 " * 10]
    return bpe_core.train(documents, 400, min_frequency=2, special_tokens=["<|end|>"])


@pytest.fixture(scope="module")
def gpt2():
    return bpe_core.load("gpt2")


def test_the_index_matches_the_merge_records(trained, gpt2):
    for tokenizer in (trained, gpt2):
        forest = MergeForest.of(tokenizer)
        records = tokenizer.merge_records
        assert [(r.left, r.right, r.id, r.count) for r in records] == list(
            zip(forest.left, forest.right, forest.made, forest.counts, strict=True)
        )
        depth: dict[int, int] = {}
        for r in records:
            depth[r.id] = 1 + max(depth.get(r.left, 0), depth.get(r.right, 0))
        assert forest.depth == depth
        assert all(forest.rank_of[r.id] == tokenizer.merge_rank_of(r.id) for r in records)
        assert forest.display == {i: token_display(b) for i, b in tokenizer.vocab.items()}
        assert [tokenizer.decode_single_token_bytes(i) for i in forest.byte_ids] == [bytes([b]) for b in range(256)]
        assert forest.parts(records[5].id) == (records[5].left, records[5].right)
        assert forest.parts(forest.byte_ids[65]) is None
    assert any(MergeForest.of(trained).counts) and not any(MergeForest.of(gpt2).counts)


def test_display_texts_cut_the_joined_text_back_exactly():
    vocab = {0: b" a\n", 2: "你".encode()[:2], 1: b"\x00\x7f", 3: b"\\x41", 4: b""}
    assert token_displays(vocab) == {i: token_display(b) for i, b in vocab.items()}
    assert list(token_displays(vocab)) == [0, 1, 2, 3, 4]


def test_built_from_is_breadth_first_and_bounded(trained):
    forest = MergeForest.of(trained)
    start = trained.encode_single_token("th")
    rows = forest.built_from(start, limit=10_000)
    # the obvious way: every merge whose parts include an already reached token, level by level
    reached, depth_of = {start: 0}, {}
    changed = True
    while changed:
        changed = False
        for rank, (a, b, new) in enumerate(zip(forest.left, forest.right, forest.made, strict=True)):
            parents = [p for p in (a, b) if p in reached]
            if parents and new not in reached:
                candidate = 1 + min(reached[p] for p in parents)
                reached[new], depth_of[rank] = candidate, candidate
                changed = True
    assert {rank: depth for depth, rank, _ in rows} == depth_of
    assert all(forest.made[rank] != start for _, rank, _ in rows)
    assert all(forest.left[rank] == parent or forest.right[rank] == parent for _, rank, parent in rows)
    assert len(forest.built_from(start, limit=3)) == 3
    assert forest.built_from(trained.encode_single_token("<|end|>")) == []


@pytest.mark.parametrize("pattern", ["gpt2", "o200k", r"\S+|\s+", None])
def test_first_k_equals_the_truncated_tokenizer(pattern):
    tokenizer = bpe_core.train(
        [TEXT * 5, "the theme " * 30], 420, min_frequency=1, pattern=pattern, special_tokens=["<|end|>"]
    )
    forest = MergeForest.of(tokenizer)
    text = TEXT + "<|end|>" + "\ud800 lone surrogate"
    for k in (0, 1, 7, 60, len(forest), len(forest) + 5):
        expected = tokenizer.truncated(k).encode_with_details(text, disallowed_special=())
        assert forest.first_k_infos(text, k) == expected, (pattern, k)
    with pytest.raises(ValueError, match="non-negative integer"):
        forest.first_k_infos(text, -1)


def test_first_k_on_gpt2_ids_tiktoken_rule_and_pipelines(gpt2):
    # Llama 3: tiktoken's rule; Qwen: a Pipeline of split stages (HF's pre-tokenizer), when installed
    cases = [gpt2] + [catalogue.load(name) for name in ("llama3", "qwen") if catalogue.is_installed(name)]
    for tokenizer in cases:
        forest = MergeForest.of(tokenizer)
        for k in (300, len(forest) // 2):
            expected = tokenizer.truncated(k).encode_with_details(TEXT, disallowed_special=())
            assert forest.first_k_infos(TEXT, k) == expected
        assert [i.id for i in forest.first_k_infos(TEXT, len(forest))] == tokenizer.truncated(len(forest)).encode(
            TEXT, disallowed_special=()
        )


def test_search_by_prefix_contains_and_regex(gpt2):
    forest = MergeForest.of(gpt2)
    found = forest.search(" the", limit=5)
    assert found.ids[0] == 262 and len(found.ids) == 5  # ' the' typed plainly means ␣the
    assert found.total == sum(1 for shown in forest.display.values() if shown.startswith("␣the"))
    assert forest.search("␣the").total == found.total
    contains = forest.search("ization", mode="contains", limit=10_000)
    assert contains.total == len(contains.ids) > 10
    assert all("ization" in forest.display[i] for i in contains.ids)
    regex = forest.search(r"^␣[A-Z][a-z]+ing$", mode="regex", limit=100_000)
    assert gpt2.encode_single_token(" Thing") in regex.ids and regex.ids == sorted(regex.ids)
    assert forest.search(r"\\xe4", mode="regex").total > 0  # stray bytes are searched as shown
    assert forest.search("zzzzzzzz").total == 0


def test_bad_and_pathological_regexes_are_clear_errors(gpt2):
    forest = MergeForest.of(gpt2)
    with pytest.raises(ValueError, match="not a valid regular expression"):
        forest.search("(unclosed", mode="regex")
    with pytest.raises(ValueError, match=r"too slow over the vocabulary \(its budget is 0.2 s of processor time"):
        forest.search(r"(.*)*(.*)*\d$", mode="regex", timeout=0.2)
    with pytest.raises(ValueError, match="search mode"):
        forest.search("a", mode="glob")


def test_never_produced(trained):
    forest = MergeForest.of(trained)
    used = set(trained.encode("the theme"))
    assert forest.never_produced(used) == [r.rank for r in trained.merge_records if r.id not in used]


# ------------------------------------------------------------------------------------------------
# token contexts


def naive_contexts(tokenizer, texts, token_id, width):
    found = []
    for document, text in enumerate(texts):
        for info in tokenizer.encode_with_details(text, disallowed_special=()):
            if info.id == token_id:
                found.append(
                    (
                        document,
                        info.start,
                        info.end,
                        text[max(0, info.start - width) : info.start],
                        text[info.start : info.end],
                        text[info.end : info.end + width],
                    )
                )
    return found


def test_contexts_equal_encoding_whole_documents(gpt2):
    texts = ["the theme of the thesis " * 400, TEXT * 30, "你好 " * 2000]
    for token in (" the", "!!", "\n\n"):
        token_id = gpt2.encode_single_token(token)
        expected = naive_contexts(gpt2, texts, token_id, 30)
        got = token_contexts(gpt2, texts, token_id, limit=10**6, width=30)
        assert [(c.document, c.start, c.end, c.before, c.token, c.after) for c in got] == expected, token
        assert expected or token == "\n\n"  # GPT-2 splits "\n\nN" as "\n", "\n", "N": never met
    partial = gpt2.encode("你")[0]  # a token holding part of a character
    got = token_contexts(gpt2, texts, partial, limit=3)
    assert len(got) == 3 and all(c.token == "你" for c in got)


def test_contexts_are_bounded(trained):
    token_id = trained.encode_single_token(" the")
    texts = ["x the y " * 1000, "the the"]
    assert len(token_contexts(trained, texts, token_id, limit=4)) == 4
    few = token_contexts(trained, texts, token_id, limit=1000, max_chars=80)
    assert 0 < len(few) <= 10 and all(c.document == 0 and c.end <= 80 for c in few)
    assert token_contexts(trained, texts, trained.encode_single_token("<|end|>")) == []
    assert token_contexts(trained, "x the y", token_id)[0].before == "x"
    with pytest.raises(ValueError, match="limit must be a non-negative integer"):
        token_contexts(trained, texts, token_id, limit=-1)
    with pytest.raises(ValueError):
        token_contexts(trained, texts, 10**9)


def test_merges_matching_filters_by_shown_parts(gpt2):
    forest = MergeForest.of(gpt2)
    records = gpt2.merge_records
    shown = forest.display
    assert forest.merges_matching(" the", where="result") == [r.rank for r in records if "␣the" in shown[r.id]]
    assert forest.merges_matching("ing", where="right") == [r.rank for r in records if "ing" in shown[r.right]]
    every = forest.merges_matching("qu")
    assert every == [r.rank for r in records if any("qu" in shown[i] for i in (r.left, r.right, r.id))]
    with pytest.raises(ValueError, match="where must be one of"):
        forest.merges_matching("a", where="middle")


def test_simple_regexes_skip_the_time_limit_with_the_same_result(gpt2):
    from bpe_core.analysis.forest import needs_time_limit

    assert not needs_time_limit(r"^␣\p{Lu}[a-z]+$") and not needs_time_limit("ing$") and not needs_time_limit(r"\d{3}")
    for risky in ["(a+)+$", ".*a.*b", "a*b*", "[*+]x+", r"(?i)the", "a?b?c?d?", "a{2}b{3}"]:
        assert needs_time_limit(risky), risky
    forest = MergeForest.of(gpt2)
    import regex

    for pattern in [r"^␣\p{Lu}[a-z]+$", "ing$", r"\d{3}", "(?:ab)+", r"^\\x"]:
        compiled = regex.compile(pattern)
        expected = [i for i, shown in forest.display.items() if compiled.search(shown)]
        assert forest.search(pattern, mode="regex", limit=10**6).ids == expected, pattern


def test_a_picky_tokenizer_has_no_forest_and_says_why():
    from bpe_core.training.picky import train_picky

    picky = train_picky(["the then there the then; other others mother"] * 3, 300, threshold=0.6, min_frequency=1)
    assert picky.rule == "picky"
    with pytest.raises(bpe_core.BpeError, match="Picky BPE tokenizer.*picky_removals"):
        MergeForest.of(picky)
