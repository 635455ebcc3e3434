"""What the Lab page trains and measures, from its inputs: the variants (``VariantSpec``s of
``bpe_core.analysis.variants``) from its checkboxes and fields, checked against the vocabulary size
before any training; and the training text with its held-out text (the built-in parallel text and
samples, or the user's files with a tenth of each held out, then the built-in samples).

Pure functions of their arguments: no streamlit, nothing drawn (the widgets are in ``setup``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core.analysis.heldout import split_heldout
from bpe_core.analysis.variants import HeldOutSample, VariantSpec, builtin_heldout, parse_variants
from bpe_core.corpora.samples import parallel_text
from bpe_core.errors import BpeError
from bpe_core.training.superbpe import transition_merges

#: The share of each uploaded file held out for measuring (as ``python -m bpe_core lab files...``).
HELD_OUT_SHARE = 0.1


def parse_transitions(text: str) -> list[float | int]:
    """SuperBPE transition points from ``"0.8, 0.9"``: a share of the vocabulary (with a decimal
    point) or a number of merges (a whole number), in the order given, repeats dropped.

    >>> parse_transitions("0.8, 0.9 ,0.8"), parse_transitions("1500")
    ([0.8, 0.9], [1500])
    """
    values: list[float | int] = []
    for part in (text or "").replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value: float | int = float(part) if "." in part else int(part)
        except ValueError:
            raise BpeError(
                f"{part!r} is not a transition point: write a share of the vocabulary such as 0.8, "
                "or a number of merges such as 1500"
            ) from None
        if value not in values:
            values.append(value)
    if not values:
        raise BpeError("give SuperBPE at least one transition point (e.g. 0.8), or untick SuperBPE")
    return values


def variant_specs(*, bpe: bool, transitions: str | None, picky: float | None, parity: bool) -> list[VariantSpec]:
    """The variants ticked: BPE, SuperBPE at each transition of ``transitions`` (None: not ticked),
    Picky BPE at the IoS threshold ``picky`` (None: not ticked), parity-aware BPE. BpeError unless
    there are 2 to 6 different ones.

    >>> [v.label for v in variant_specs(bpe=True, transitions="0.8,0.9", picky=None, parity=False)]
    ['BPE', 'SuperBPE t=0.8', 'SuperBPE t=0.9']
    """
    names = ["bpe"] if bpe else []
    if transitions is not None:
        names += [f"superbpe:{value}" for value in parse_transitions(transitions)]
    if picky is not None:
        names.append(f"picky:{float(picky)}")
    if parity:
        names.append("parity")
    return parse_variants(names)


def check_variants(variants: Sequence[VariantSpec], vocab_size: int, *, parallel: bool = True) -> None:
    """BpeError, before any training, for a SuperBPE transition that does not fit ``vocab_size``, a
    Picky threshold out of (0, 1], or parity-aware BPE on text that is not ``parallel``; the
    vocabulary size itself is the trainers' to check."""
    if not parallel and any(variant.kind == "parity" for variant in variants):
        raise BpeError(
            "parity-aware BPE needs parallel text (the same sentences in each language): untick it, "
            "or train on the built-in parallel text"
        )
    for variant in variants:
        if variant.kind == "superbpe" and vocab_size >= 256:
            try:
                transition_merges(variant.value if variant.value is not None else 0.9, vocab_size)
            except BpeError as exc:
                raise BpeError(f"SuperBPE: {exc}") from None
        if variant.kind == "picky" and not 0 < float(variant.value or 0) <= 1:
            raise BpeError(f"Picky BPE's threshold is an IoS: above 0 and at most 1, got {variant.value}")


@dataclass(frozen=True)
class LabCorpus:
    """What the variants train on (source -> documents; parity-aware BPE needs the sources to be
    parallel languages), what they are measured on, a label for it and a signature that changes with
    it; ``parallel`` says whether the sources are parallel text."""

    texts: dict[str, list[str]]
    samples: list[HeldOutSample]
    label: str
    signature: str
    parallel: bool

    @property
    def documents(self) -> list[str]:
        return [document for documents in self.texts.values() for document in documents]


def builtin_corpus() -> LabCorpus:
    """The built-in parallel text's lines 1-90 in its 21 languages; measured on its held-out lines
    91-120 and the code and data samples."""
    texts = parallel_text(split="train")
    size = sum(len(line.encode("utf-8")) for lines in texts.values() for line in lines)
    label = f"the built-in parallel text, lines 1-90 in {len(texts)} languages ({size / 1000:,.0f} KB)"
    return LabCorpus(texts, builtin_heldout(), label, "builtin", parallel=True)


def uploaded_corpus(files: Sequence[tuple[str, str, Sequence[str]]]) -> LabCorpus:
    """The user's files, each (name, content digest, documents), with a tenth of each held out
    (``split_heldout``, seed 0: whole documents when a file has many, else lines), then measured on
    those held-out parts and on the built-in held-out samples. BpeError naming a file too small to
    split, or when there is no file."""
    if not files:
        raise BpeError("upload at least one corpus file, or train on the built-in parallel text")
    texts: dict[str, list[str]] = {}
    held: list[HeldOutSample] = []
    digest = hashlib.sha256()
    for name, content, documents in files:
        try:
            split = split_heldout(list(documents), fraction=HELD_OUT_SHARE, seed=0)
        except ValueError as exc:
            raise BpeError(f"{name}: {exc}") from None
        source = name if name not in texts else f"{name} ({len(texts) + 1})"
        texts[source] = split.train
        held.append(HeldOutSample(source, f"{source} (held out)", "held-out", "\n".join(split.heldout)))
        digest.update(f"{name}\0{content}\0".encode("utf-8", "replace"))
    names = ", ".join(list(texts)[:3]) + (f" and {len(texts) - 3} more" if len(texts) > 3 else "")
    label = f"{names} ({HELD_OUT_SHARE:.0%} of each held out)"
    return LabCorpus(texts, held + builtin_heldout(), label, "files:" + digest.hexdigest()[:16], parallel=False)
