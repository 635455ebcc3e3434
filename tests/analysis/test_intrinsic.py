"""bpe_core.analysis.intrinsic: the hand-computed examples of the research note (docs: Zouhar et al. 2023,
Lotz et al. 2025, tokka-bench, SwissAI TokEval), reference values from the reference tools, and
properties (bounds, invariances) on random distributions."""

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.analysis import intrinsic, metrics
from bpe_core.analysis.intrinsic import (
    ZipfFit,
    average_token_rank,
    fertility,
    renyi_efficiency,
    renyi_entropy,
    simpson_area,
    trapezoid_area,
    unique_tokens,
    zipf_fit,
)
from bpe_core.analysis.words import word_spans

COUNTS = st.lists(st.integers(min_value=1, max_value=10_000), min_size=1, max_size=60)
ALPHAS = st.one_of(st.just(1.0), st.just(math.inf), st.floats(min_value=0.0, max_value=20.0))


# --------------------------------------------------------------------------------------------------
# Rényi entropy and efficiency (note, section 4.1)


def test_renyi_hand_computed_example():
    # tokens a a b c: p = (1/2, 1/4, 1/4); sum p^2.5 = 0.1767767 + 2 * 0.03125 = 0.2392767
    counts = Counter("aabc")
    assert renyi_entropy(counts, 2.5, base=2) == pytest.approx(1.3754988, abs=1e-7)
    assert renyi_entropy(counts, 2.5) == pytest.approx(-math.log(0.2392767) / 1.5, abs=1e-6)  # nats
    # the paper's |V| = 4 and tokenization-scorer's V_obs = 3 (checked against tokenization-scorer 1.1.8)
    assert renyi_efficiency(counts, 4) == pytest.approx(0.6877494, abs=1e-7)
    assert renyi_efficiency(counts, normalize_by="observed") == pytest.approx(0.8678431, abs=1e-7)
    # Shannon efficiency over V_obs: 1.5 bits / log2(3)
    assert renyi_efficiency(counts, alpha=1, normalize_by="observed") == pytest.approx(0.9463946, abs=1e-7)


@pytest.mark.parametrize("alpha", [0, 0.5, 1, 2, 2.5, 3, 10, math.inf])
def test_uniform_over_part_of_the_vocabulary_is_exact(alpha):
    # a b c d with |V| = 16: H_alpha = log 4 for every alpha, so E = 2 / 4
    assert renyi_efficiency(Counter("abcd"), 16, alpha=alpha) == pytest.approx(0.5, abs=1e-12)
    assert renyi_efficiency(Counter("abcd"), alpha=alpha, normalize_by="observed") == pytest.approx(1.0, abs=1e-12)


def test_renyi_efficiency_needs_an_explicit_normalisation():
    with pytest.raises(ValueError, match="vocab_size.*normalize_by='observed'"):
        renyi_efficiency(Counter("abc"))
    with pytest.raises(ValueError, match="leave vocab_size None"):
        renyi_efficiency(Counter("abc"), 10, normalize_by="observed")
    with pytest.raises(ValueError, match="normalize_by must be one of vocabulary, observed"):
        renyi_efficiency(Counter("abc"), 10, normalize_by="paper")
    with pytest.raises(ValueError, match="smaller than the 3 distinct tokens"):
        renyi_efficiency(Counter("abc"), 2)


def test_renyi_degenerate_and_bad_input():
    assert renyi_efficiency(Counter(), 16) is None
    assert renyi_efficiency(Counter("aaa"), 16) == 0.0
    assert renyi_efficiency(Counter("aaa"), normalize_by="observed") is None  # log V_obs = 0
    assert renyi_efficiency(Counter("a"), 1) is None
    assert renyi_entropy({"a": 3, "b": 0}, 2.5) == 0.0  # a zero count is no type
    with pytest.raises(ValueError, match="empty distribution"):
        renyi_entropy([], 2.5)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        renyi_entropy([1, 2], -1)
    with pytest.raises(ValueError, match="cannot be negative"):
        renyi_entropy([1, -2], 2)
    with pytest.raises(TypeError, match="must be integers"):
        renyi_entropy([1.5, 2], 2)
    with pytest.raises(TypeError, match="not a string"):
        renyi_entropy("aabc", 2)
    with pytest.raises(ValueError, match="base"):
        renyi_entropy([1, 2], 2, base=1)


@given(COUNTS, ALPHAS, st.integers(min_value=0, max_value=10**6))
def test_efficiency_is_between_0_and_1(counts, alpha, extra):
    vocab = len(counts) + extra
    value = renyi_efficiency(counts, vocab, alpha=alpha)
    if vocab < 2:
        assert value is None
    else:
        assert 0.0 <= value <= 1.0
    observed = renyi_efficiency(counts, alpha=alpha, normalize_by="observed")
    assert observed is None if len(counts) == 1 else 0.0 <= observed <= 1.0
    # dividing by the larger |V| never gives more
    if value is not None and observed is not None:
        assert value <= observed + 1e-12


@given(st.integers(min_value=2, max_value=500), st.integers(min_value=1, max_value=1000), ALPHAS)
def test_uniform_distribution_has_efficiency_1(types, count, alpha):
    assert renyi_efficiency([count] * types, types, alpha=alpha) == pytest.approx(1.0, abs=1e-9)


@given(COUNTS, st.integers(min_value=1, max_value=50))
def test_entropy_depends_on_proportions_only_and_falls_with_alpha(counts, factor):
    scaled = [c * factor for c in counts]
    alphas = [0, 0.5, 1, 2, 2.5, 3, math.inf]
    entropies = [renyi_entropy(counts, a) for a in alphas]
    assert [renyi_entropy(scaled, a) for a in alphas] == pytest.approx(entropies, abs=1e-9)
    assert all(high <= low + 1e-9 for low, high in itertools.pairwise(entropies))
    assert entropies[0] == pytest.approx(math.log(len(counts)))  # alpha 0: Hartley entropy
    assert entropies[-1] == pytest.approx(-math.log(max(counts) / sum(counts)), abs=1e-12)


def test_the_comparisons_use_this_module_s_formulas_only():
    assert intrinsic.renyi_entropy is renyi_entropy
    assert not hasattr(metrics, "renyi_efficiency")  # one Rényi efficiency, this module's
    ids = [1, 1, 2, 3]
    assert intrinsic.distribution(Counter(ids), 50).renyi_efficiency == renyi_efficiency(Counter(ids), 50)


# --------------------------------------------------------------------------------------------------
# Zipf (note, section 4.2)


def test_zipf_example_a_exact_zipf_law():
    fit = zipf_fit(Counter("aaaaaabbbcc"))  # counts 6, 3, 2 = 6 / r
    assert fit.cardinality == 3
    assert fit.slope == pytest.approx(-1.0, abs=1e-12)
    assert fit.intercept == pytest.approx(math.log(6), abs=1e-12)
    assert fit.power_law_mae == pytest.approx(0.0, abs=1e-12)
    area = math.log(3) * math.log(6) - math.log(3) ** 2 / 2  # integral of ln 6 - x from 0 to ln 3
    assert area == pytest.approx(1.364974, abs=1e-6)
    assert fit.auc_simpson == pytest.approx(area, abs=1e-12)
    assert fit.auc_trapezoid == pytest.approx(area, abs=1e-12)


def test_zipf_example_b_against_numpy_and_scipy():
    fit = zipf_fit([4, 2, 1])  # the note's values, computed with numpy/scipy
    assert fit.slope == pytest.approx(-1.233662, abs=1e-6)
    assert fit.intercept == pytest.approx(1.429956, abs=1e-6)
    assert fit.power_law_mae == pytest.approx(0.078867, abs=1e-6)
    assert fit.auc_simpson == pytest.approx(0.904224, abs=1e-6)
    assert fit.auc_trapezoid == pytest.approx(0.861203, abs=1e-6)
    ten = zipf_fit([4, 2, 1], base=10)
    assert ten.slope == pytest.approx(fit.slope, abs=1e-12)
    assert ten.power_law_mae == pytest.approx(0.034252, abs=1e-6)
    assert ten.auc_simpson == pytest.approx(0.170547, abs=1e-6)


def test_zipf_even_number_of_points_uses_the_last_interval_correction():
    # scipy.integrate.simpson(np.log([8, 4, 2, 1]), x=np.log([1, 2, 3, 4])) with scipy 1.17.1
    assert zipf_fit([8, 4, 2, 1]).auc_simpson == pytest.approx(1.7694338702931696, abs=1e-12)
    assert zipf_fit([1, 2, 4, 8]) == zipf_fit(Counter({"x": 8, "y": 1, "z": 4, "w": 2}))  # order does not matter


def test_zipf_degenerate():
    assert zipf_fit([]) is None and zipf_fit([5]) is None and zipf_fit({"a": 3, "b": 0}) is None
    two = zipf_fit([4, 1])
    assert two.power_law_mae == pytest.approx(0.0, abs=1e-12)  # a line through two points
    assert two.auc_simpson == two.auc_trapezoid == pytest.approx(math.log(2) * (math.log(4) + 0) / 2)


def test_simpson_and_trapezoid_on_known_integrals():
    assert trapezoid_area([0, 1, 3], [0, 1, 1]) == 2.5
    xs = [0.0, 0.3, 1.1, 1.5, 2.0, 3.7]  # uneven; an even number of points
    assert simpson_area(xs, [x * x for x in xs]) == pytest.approx(3.7**3 / 3, abs=1e-12)
    assert simpson_area(xs[:5], [3 * x * x - x + 2 for x in xs[:5]]) == pytest.approx(8 - 2 + 4, abs=1e-12)
    assert simpson_area([1.0], [2.0]) == 0.0
    with pytest.raises(ValueError, match="as many x as y"):
        simpson_area([0, 1], [0])


@given(COUNTS)
def test_zipf_fit_properties(counts):
    fit = zipf_fit(counts)
    if len(counts) < 2:
        assert fit is None
        return
    assert isinstance(fit, ZipfFit) and fit.cardinality == len(counts)
    assert fit.slope <= 1e-12  # counts sorted descending: never increasing
    assert fit.power_law_mae >= 0
    top = math.log(max(counts)) * math.log(len(counts))
    assert -1e-9 <= fit.auc_trapezoid <= top + 1e-9
    # scaling every count by k shifts the curve by log k: same slope and error, area + log k * log V
    scaled = zipf_fit([c * 3 for c in counts])
    assert scaled.slope == pytest.approx(fit.slope, abs=1e-9)
    assert scaled.power_law_mae == pytest.approx(fit.power_law_mae, abs=1e-9)
    assert scaled.auc_simpson == pytest.approx(fit.auc_simpson + math.log(3) * math.log(len(counts)), abs=1e-9)


# --------------------------------------------------------------------------------------------------
# unique tokens, average rank, fertility (note, sections 4.3 and 4.4)


def test_unique_tokens_and_average_rank_examples():
    assert unique_tokens([5, 5, 7, 9, 5]) == 3
    assert unique_tokens([]) == 0
    assert average_token_rank(Counter("abacab")) == pytest.approx(10 / 6)
    assert average_token_rank([]) is None
    assert average_token_rank([7]) == 1.0
    with pytest.raises(TypeError):
        unique_tokens("abc")


@given(st.lists(st.integers(min_value=0, max_value=30), max_size=200))
def test_average_rank_against_tokeval_most_common(ids):
    counts = Counter(ids)
    if not ids:
        assert average_token_rank(counts) is None
        return
    rank = {token: r for r, (token, _) in enumerate(counts.most_common(), start=1)}  # TokEval's ranking
    expected = sum(rank[i] for i in ids) / len(ids)
    assert average_token_rank(counts) == pytest.approx(expected)
    assert 1 <= average_token_rank(counts) <= (unique_tokens(ids) + 1) / 2 + 1e-12  # at most the uniform case


def test_fertility_pooled_and_macro():
    words = [len(word_spans(t)) for t in ("the cat sat", "hello world")]
    assert fertility([4, 3], words) == pytest.approx(1.4)
    assert fertility([4, 3], words, average="macro") == pytest.approx(1.416667, abs=1e-6)
    # texts without words: in the pooled tokens, not in the macro mean
    assert fertility([4, 2], [2, 0]) == 3.0 and fertility([4, 2], [2, 0], average="macro") == 2.0
    assert fertility([], []) is None and fertility([3], [0], average="macro") is None
    with pytest.raises(ValueError, match="one word count per token count"):
        fertility([1, 2], [1])
    with pytest.raises(ValueError, match="average must be one of pooled, macro"):
        fertility([1], [1], average="mean")


def test_fertility_agrees_with_measure():
    tokenizer = bpe_core.load("gpt2")
    text = "The library opens at nine. Die Bibliothek öffnet um neun."
    m = metrics.measure(tokenizer, text)
    assert fertility([m.tokens], [len(word_spans(text))]) == m.fertility


# --------------------------------------------------------------------------------------------------
# in the comparison rows


def test_measure_and_compare_carry_the_intrinsic_metrics():
    tokenizer = bpe_core.load("gpt2")
    text = "the cat sat on the mat and the dog sat on the log"
    ids = tokenizer.encode_ordinary(text)
    counts = Counter(ids)
    m = metrics.measure(tokenizer, text)
    fit = zipf_fit(counts)
    assert m.unique_tokens == unique_tokens(ids)
    assert m.renyi_efficiency == renyi_efficiency(counts, tokenizer.vocab_size)
    assert m.renyi_efficiency_observed == renyi_efficiency(counts, normalize_by="observed")
    assert m.avg_token_rank == average_token_rank(counts)
    assert (m.zipf_slope, m.zipf_mae, m.zipf_auc) == (fit.slope, fit.power_law_mae, fit.auc_simpson)
    row = metrics.compare({"gpt2": tokenizer}, [("t", text)], reference=None)[0]
    for key in intrinsic_keys():
        assert row[key] == getattr(m, key)


def intrinsic_keys():
    return (
        "unique_tokens",
        "renyi_efficiency",
        "renyi_efficiency_observed",
        "avg_token_rank",
        "zipf_slope",
        "zipf_mae",
        "zipf_auc",
    )


def test_empty_and_one_type_texts_leave_the_fits_empty():
    tokenizer = bpe_core.load("gpt2")
    empty = metrics.measure(tokenizer, "")
    assert (empty.avg_token_rank, empty.zipf_slope, empty.renyi_efficiency_observed) == (None, None, None)
    one = metrics.measure(tokenizer, "a")
    assert one.avg_token_rank == 1.0 and one.zipf_slope is None and one.renyi_efficiency_observed is None


def test_the_module_names_its_sources():
    doc = intrinsic.__doc__ + intrinsic.renyi_efficiency.__doc__ + intrinsic.zipf_fit.__doc__
    for source in ("Zouhar", "tokenization-scorer", "Lotz", "2506.03101", "tokka-bench", "TokEval"):
        assert source in doc
