"""The token strips' style sheets: the font stacks for every script, the strips' boxes, pieces, cut
view and Step through's words (``strip``'s markup). Self-contained: fonts come from the reader's
machine (``local()`` only), nothing is fetched. Constants only; the app's page-wide rules are its own.
"""

from __future__ import annotations

#: Fonts for every script the samples use, so no text falls back to boxes: Linux (Noto: the Debian
#: packages fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji), macOS and Windows equivalents.
SCRIPT_FONTS = (
    '"Noto Sans", "Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Tamil", "Noto Sans Thai", '
    '"Noto Sans Myanmar", "Noto Sans Ethiopic", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans CJK SC", '
    '"Noto Sans CJK JP", "Noto Sans CJK KR", "PingFang SC", "Hiragino Sans", "Apple SD Gothic Neo", '
    '"Kohinoor Devanagari", "Microsoft YaHei", "Yu Gothic", "Malgun Gothic", "Nirmala UI", "Leelawadee UI", '
    '"Myanmar Text", "Ebrima", "Segoe UI", "Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", '
    '"Segoe UI Symbol", "Noto Sans Symbols 2"'
)
#: Arabic letters in a font that joins them: the monospace fonts that have Arabic glyphs (DejaVu Sans
#: Mono) draw each letter in its isolated form. Only the Arabic ranges, so digits and spaces stay monospace.
ARABIC_FACE = (
    '@font-face { font-family: "BPE Arabic"; src: local("Noto Sans Arabic Regular"), local("NotoSansArabic-Regular"), '
    'local("Noto Sans Arabic"), local("Noto Naskh Arabic Regular"), local("NotoNaskhArabic-Regular"), '
    'local("Geeza Pro"), local("Segoe UI"), local("Tahoma"); '
    "unicode-range: U+0600-06FF, U+0750-077F, U+0870-08FF, U+FB50-FDFF, U+FE70-FEFF; }"
)
MONO_FONTS = (
    f'ui-monospace, SFMono-Regular, Menlo, Consolas, "BPE Arabic", "DejaVu Sans Mono", {SCRIPT_FONTS}, monospace'
)

#: The six colours tokens take in turn (class c0..c5).
TOKEN_COLOURS = ("#ffd8a8", "#a5d8ff", "#b2f2bb", "#fcc2d7", "#d0bfff", "#ffec99")

# Square, opaque boxes: rounded backgrounds cost paint, a translucent piece a compositing effect
# (bench/PERFORMANCE.md, "The Tokenize page in a browser").
TOKEN_CSS = (
    "<style>" + ARABIC_FACE + "\n"
    f".bpe-tokens, .bpe-cuts {{ font-family: {MONO_FONTS}; font-size: 0.9rem; padding: 0.5rem; "
    "border: 1px solid rgba(128,128,128,0.25); border-radius: 0.4rem; overflow: auto; tab-size: 4; }"
    """
.bpe-tokens { line-height: 2.1; white-space: pre-wrap; max-height: 32rem; }
.bpe-tokens .t { display: inline-block; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%;
  vertical-align: top; unicode-bidi: isolate; padding: 0 1px; margin: 0 1px 2px 0;
  color: #1a1a1a; line-height: 1.6; }
"""
    + " ".join(f".bpe-tokens .c{number} {{ background: {colour}; }}" for number, colour in enumerate(TOKEN_COLOURS))
    + """
.bpe-tokens .s { background: #343a40; color: #fff; font-weight: 600; }
.bpe-tokens .x { box-shadow: -3px 0 0 0 #e03131; } .bpe-tokens .a { outline: 1px dotted #868e96; }
.bpe-tokens .w, .bpe-cuts .w { color: #868e96; }
.bpe-tokens .hl, .bpe-ids .hl { outline: 2px solid #1c7ed6; outline-offset: 0; background: #74c0fc; }
.bpe-tokens[data-k] [data-i] { cursor: pointer; }
.bpe-tokens .g { display: inline-flex; flex-direction: column; vertical-align: top; margin: 0 1px 2px 0;
  unicode-bidi: isolate; line-height: 1.6; max-width: 100%; }
.bpe-tokens .g .gc { text-align: center; white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 1px;
  border: 1px dashed #868e96; border-bottom: none; color: #1a1a1a; }
.bpe-tokens .g .p { flex: 1 1 0; min-width: max-content; padding: 0 2px; margin: 0; border: 1px dashed #868e96;
  font-size: 0.6rem; line-height: 1.3; text-align: center; color: #343a40; white-space: nowrap; }
.bpe-tokens .g .p + .p { border-left: none; } .bpe-tokens .g .gb { display: flex; flex-wrap: wrap; }
.bpe-tokens .g.hex .p { flex-basis: auto; min-width: 0; white-space: normal; overflow-wrap: anywhere; }
.bpe-tokens .p .ph { display: none; }
.bpe-tokens .g .n2 { flex-grow: 2; } .bpe-tokens .g .n3 { flex-grow: 3; } .bpe-tokens .g .n4 { flex-grow: 4; }
.bpe-tokens .new { outline: 2px solid #f08c00; font-weight: 700; }
.bpe-cuts { line-height: 2.1; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 20rem; }
.bpe-cuts .both { border-inline-start: 1px solid #adb5bd; }
.bpe-cuts .a { border-inline-start: 3px solid #1971c2; background: #d0ebff; }
.bpe-cuts .b { border-inline-start: 3px solid #e8590c; background: #ffe8cc; }
.bpe-cuts .ia { text-decoration: underline dotted #1971c2 2px; }
.bpe-cuts .ib { text-decoration: underline dotted #e8590c 2px; } .bpe-cuts .ia.ib { text-decoration-color: #495057; }
.bpe-legend span { padding: 0 0.4rem; border-radius: 3px; margin-right: 0.6rem; }
.bpe-tokens .sw { border-bottom: 3px solid #5f3dc4; font-weight: 600; }
</style>
"""
)
#: Step through's words: token strips (``strip.words_html``) in neutral boxes, the newest symbol in yellow.
WORDS_CSS = (
    "<style>.bpe-tokens.bpe-words{border:none;padding:0;max-height:none;overflow:visible;font-size:0.95rem;}"
    ".bpe-words .wd{margin:0 0 2px 0}.bpe-words .t{background:#f8f9fa;border:1px solid #adb5bd;padding:0 4px;}"
    ".bpe-words .t.new,.bpe-words .g .p.new{background:#ffd43b;border-color:#f08c00;outline:none;}"
    ".bpe-tokens.bpe-words .wd{white-space:normal}"
    ".bpe-words .g .p{border:1px dashed #868e96;padding:0 2px;background:#f8f9fa}.bpe-words .g .p+.p{border-left:none}"
    ".bpe-words .g .gc{background:#f8f9fa}.bpe-words .freq{display:inline-block;color:#868e96;margin-left:6px;}</style>"
)

#: Around a strip in a notebook (``view``, ``comparison``): dark text on a light panel whatever the
#: notebook's theme, the figures above the strip, a table of tokenizers side by side.
NOTEBOOK_CSS = (
    "<style>.bpe-nb{color:#1a1a1a;background:#fff;padding:0.3rem;border-radius:0.4rem;margin:0.2rem 0}"
    ".bpe-nb .bpe-nb-head{font-family:system-ui,sans-serif;font-size:0.85rem;margin:0 0 0.2rem 0.1rem}"
    ".bpe-nb .bpe-nb-more{font-family:system-ui,sans-serif;font-size:0.8rem;color:#495057}"
    ".bpe-nb table.bpe-cmp{border-collapse:collapse;font-family:system-ui,sans-serif;font-size:0.85rem;width:100%}"
    ".bpe-nb table.bpe-cmp th,.bpe-nb table.bpe-cmp td{border-bottom:1px solid #dee2e6;padding:0.25rem 0.4rem;"
    "text-align:right;vertical-align:top;color:#1a1a1a;background:#fff}"
    ".bpe-nb table.bpe-cmp th:first-child,.bpe-nb table.bpe-cmp td:first-child,.bpe-nb table.bpe-cmp .s"
    "{text-align:left}.bpe-nb table.bpe-cmp td.s{width:60%}.bpe-nb h4{margin:0.4rem 0 0.2rem;font-size:0.95rem}"
    ".bpe-nb .bpe-tokens{max-height:24rem}</style>"
)
