"""Home's glance at what a language pays: the first sentence of the built-in parallel text in six
languages, cut by o200k (GPT-4o's tokenizer) and drawn as token strips (``render.tokens_inner``, the
one token renderer), each with its token count, its multiple of English's, and GPT-2's count beside.

The cuts are stored in ``glance_data`` so that Home draws them in its first step on a freshly started
server, loading no tokenizer (loading o200k takes longer than the whole page may). They are bpe_core's
own: ``measure`` computes them with the tokenizers, ``python -m pages._home.glance`` writes
``glance_data.py`` from it, and tests/app/test_home.py fails if the stored ones differ from what the
tokenizers give today. Builds markup only.
"""

from __future__ import annotations

import html
import pprint
from pathlib import Path

from bpe_core import TokenInfo
from bpe_core.corpora.samples import REFERENCE_ID
from bpe_core.display import glyphs
from pages._ui import render
from pages._ui.styles import TOKEN_CSS

from .glance_data import GLANCE

#: The languages shown, the reference first; the sentence (its line in the parallel text); the
#: tokenizer whose cuts are drawn, and the one whose count is given beside it.
LANGUAGES = ("eng", "zho", "ara", "hin", "tam", "mya")
SENTENCE = 0
DRAWN = "o200k"
BESIDE = "gpt2"
GLANCE_CSS = (
    "<style>.bpe-glance .grow{display:grid;grid-template-columns:13rem 1fr;gap:0.6rem;align-items:start;"
    "margin:0 0 0.3rem 0}.bpe-glance .meta{font-size:0.9rem;line-height:1.35;padding-top:0.2rem}"
    ".bpe-glance .bpe-tokens{padding:0.25rem 0.4rem;max-height:none}.bpe-glance .x2{color:#c92a2a;font-weight:700}"
    ".bpe-glance .old{color:#5c636a}</style>"
)


def measure() -> dict:
    """The glance's data, computed now: for each language its name, the sentence, the ``DRAWN``
    tokenizer's tokens as (id, bytes in hex, start, end, partial) and the ``BESIDE`` tokenizer's count."""
    import bpe_core
    from bpe_core.analysis.parity_report import language_names
    from bpe_core.corpora.samples import parallel_text

    drawn, beside = bpe_core.load(DRAWN), bpe_core.load(BESIDE)
    sentences = parallel_text(split="all", languages=list(LANGUAGES))
    names = language_names(list(LANGUAGES))
    rows = {}
    for language in LANGUAGES:
        text = sentences[language][SENTENCE]
        infos = drawn.encode_with_details(text, disallowed_special=())
        rows[language] = {
            "name": names[language],
            "text": text,
            "tokens": [(i.id, i.bytes.hex(), i.start, i.end, i.partial) for i in infos],
            BESIDE: len(beside.encode(text, disallowed_special=())),
        }
    return {"drawn": DRAWN, "beside": BESIDE, "sentence": SENTENCE, "rows": rows}


def _infos(tokens: list) -> list[TokenInfo]:
    return [TokenInfo(i, bytes.fromhex(b), start, end, partial, False) for i, b, start, end, partial in tokens]


def _title(info: TokenInfo) -> str:
    return f"id {info.id} · bytes {info.bytes.hex(' ')}"


def glance_html(data: dict = GLANCE) -> str:
    """The strips as Home draws them: name, tokens and multiple (GPT-2's beside) on the left, the strip
    on the right; a multiple of 2 or more in red."""
    rows = data["rows"]
    reference = rows[REFERENCE_ID]
    base, base_beside = len(reference["tokens"]), reference[data["beside"]]
    parts = [TOKEN_CSS, GLANCE_CSS, '<div class="bpe-glance">']
    for row in rows.values():
        count, beside = len(row["tokens"]), row[data["beside"]]
        multiple = count / base
        level = " x2" if multiple >= 2 else ""
        meta = (
            f'<div class="meta"><b>{html.escape(row["name"])}</b><br>{count:,} tokens · '
            f'<span class="m{level}">×{multiple:.2f}</span><br>'
            f'<span class="old">GPT-2: {beside:,} · ×{beside / base_beside:.2f}</span></div>'
        )
        strip = render.tokens_inner(row["text"], _infos(row["tokens"]), title_of=_title)
        direction = ' dir="rtl"' if glyphs.text_direction(row["text"]) == "rtl" else ""
        parts.append(f'<div class="grow">{meta}<div class="bpe-tokens"{direction}>{strip}</div></div>')
    parts.append("</div>")
    return "".join(parts)


DATA_FILE = Path(__file__).with_name("glance_data.py")


def write_data(path: Path = DATA_FILE) -> None:
    """Write ``glance_data.py`` from ``measure`` (run it after a tokenizer or the parallel text changed)."""
    body = pprint.pformat(measure(), width=110, sort_dicts=False)  # ruff format lays it out after
    path.write_text(
        '"""Home\'s glance, as o200k and GPT-2 tokenize it: written by ``python -m pages._home.glance``\n'
        '(``glance.measure``), checked against the tokenizers by tests/app/test_home.py."""\n\n'
        f"GLANCE = {body}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    write_data()
