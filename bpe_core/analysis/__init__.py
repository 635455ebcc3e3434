"""Measuring tokenizers: compression and fairness metrics (``metrics``, ``fairness``, ``words``),
held-out evaluation (``heldout``), compression against vocabulary size (``vocab_sweep``), vocabulary
diffs (``vocab_diff``, ``rank_correlation``), the merge forest (``forest``), where a token occurs
(``contexts``), and standard against parity-aware training (``parity_report``).

It trains only in ``parity_report``, through ``bpe_core.training``; it draws nothing.
"""
