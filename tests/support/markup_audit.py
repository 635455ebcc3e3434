"""What the hostile-input app tests share: a detector of live Markdown/HTML in text bound for a
Markdown sink, and an AST audit of the pages that finds text reaching a Markdown sink unescaped.

The audit's rule: whatever the pages pass to a sink that reads Markdown (``st.markdown``,
``st.caption``, headers, alerts, ``st.toast``, expander, tab, metric and widget labels, ``help``
tooltips, progress text, ``state.flash`` messages) is a string literal, an ALL_CAPS constant, a call
to ``markdown_text`` (imported as ``md``), or an f-string / concatenation / join / conditional of
those in which every interpolated value is escaped with ``md(...)``, formatted as a number
(``{n:,}``, ``{x:.2f}``, ``{i:d}``) or is ``len(...)``. A value that is plain for a reason the AST
cannot see is marked on its line with a comment ``# plain: <why>``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ESCAPERS = {"md", "markdown_text"}
#: Calls that return a number, or a number written as text.
NUMBER_CALLS = {"len", "format_seconds", "ratio_text"}
#: Sinks whose first positional argument (the body or label) reads Markdown.
BODY_SINKS = {
    "markdown",
    "caption",
    "subheader",
    "header",
    "title",
    "error",
    "warning",
    "info",
    "success",
    "toast",
    "write",
    "expander",
    "checkbox",
    "toggle",
    "radio",
    "button",
    "download_button",
    "text_input",
    "text_area",
    "number_input",
    "slider",
    "select_slider",
    "selectbox",
    "multiselect",
    "file_uploader",
    "link_button",
    "popover",
    "color_picker",
    "date_input",
    "time_input",
    "pills",
    "segmented_control",
    "tokenizer_picker",
    "tokenizer_multiselect",  # the pages' own wrappers pass the label on
}
#: Every call whose arguments the audit reads.
SINKS = BODY_SINKS | {"metric", "tabs", "progress", "flash", "page_link"}
#: Keyword arguments of a sink that read Markdown (``help`` is a tooltip in every Streamlit call).
MARKDOWN_KEYWORDS = {"label", "help", "body", "text"}
_NUMBER_SPEC = re.compile(r"(,|[bcdoxXeEfFgGn%])$")
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")


# ------------------------------------------------------------------------------------------------
# live markup in a Markdown source


def live_markup(source: str) -> list[str]:
    """What in ``source`` (text handed to a Markdown sink) would render as markup that fetches, links
    or changes the text, as Streamlit's Markdown renders it.

    Syntax (links, images, raw HTML, <autolinks>, emphasis) is looked for with escaped characters (a
    backslash before ASCII punctuation) taken out, since those render as text. GitHub's bare autolinks
    (``https://``, ``www.``, e-mail addresses) and material icons are found by Streamlit in the text
    *after* escapes are resolved, so they are looked for there. Code spans show their content as
    written and are left out."""
    without_code = re.sub(r"(?<!\\)`[^`]*`", "", source)
    bare = _ESCAPED.sub("", without_code)
    text = _resolve_escapes(without_code)
    found = []
    if re.search(r"\]\s*\(", bare) or "![" in bare:
        found.append("link or image")
    if re.search(r"<[A-Za-z/!?]", bare):
        found.append("HTML tag or <autolink>")
    if re.search(r"(?i)https?://|www\.", text):
        found.append("bare URL autolink")
    if re.search(r"[-.\w+]@[-\w]", text):
        found.append("e-mail autolink")
    if re.search(r":material/", text):
        found.append("material icon")
    if "**b**" in bare or "<b>" in bare:
        found.append("markup from user text")
    return found


def _resolve_escapes(source: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", source)


def shown_text(source: str) -> str:
    """The text a Markdown source shows once its backslash escapes are resolved (without the
    invisible word joiners ``markdown_text`` puts into would-be autolinks)."""
    return _resolve_escapes(source).replace("\u2060", "")


# ------------------------------------------------------------------------------------------------
# the AST audit


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_constant_name(node: ast.AST) -> bool:
    name = _name(node)
    return name is not None and name.isupper()


def _safe_value(node: ast.FormattedValue) -> bool:
    """One ``{...}`` of an f-string."""
    if node.format_spec is not None:
        spec = "".join(part.value for part in node.format_spec.values if isinstance(part, ast.Constant))
        if _NUMBER_SPEC.search(spec):
            return True  # a number format: a string would raise
    if node.conversion != -1:
        return False  # {x!r} / {x!s}: not escaped
    return safe(node.value)


def safe(node: ast.AST) -> bool:
    """Whether an expression bound for a Markdown sink is escaped or written by the developers."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(_safe_value(part) if isinstance(part, ast.FormattedValue) else True for part in node.values)
    if isinstance(node, ast.Call):
        name = _name(node.func)
        if name in ESCAPERS or name in NUMBER_CALLS:
            return True
        if name == "join" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Constant):
            argument = node.args[0] if node.args else None
            if isinstance(argument, (ast.GeneratorExp, ast.ListComp)):
                return safe(argument.elt)
        return False
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _is_constant_name(node)
    if isinstance(node, ast.Subscript):
        return _is_constant_name(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return safe(node.left) and safe(node.right)
    if isinstance(node, ast.BoolOp):
        return all(safe(value) for value in node.values)
    if isinstance(node, ast.IfExp):
        return safe(node.body) and safe(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(safe(element) for element in node.elts)
    return False


def _checked_arguments(call: ast.Call) -> list[ast.AST]:
    """The arguments of ``call`` that a Markdown sink renders."""
    name = _name(call.func)
    if name not in SINKS:
        return [kw.value for kw in call.keywords if kw.arg == "help"]
    checked = [kw.value for kw in call.keywords if kw.arg in MARKDOWN_KEYWORDS]
    if name in BODY_SINKS and call.args:
        checked.append(call.args[0])
    elif name == "metric":
        checked.extend(call.args[:2])
        checked.extend(kw.value for kw in call.keywords if kw.arg == "value")
    elif name == "tabs" and call.args:
        checked.append(call.args[0])
    elif name == "progress" and len(call.args) > 1:
        checked.append(call.args[1])
    elif name == "flash" and len(call.args) > 1:
        checked.append(call.args[1])
    return checked


def unescaped_sinks(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: code`` for every argument of a Markdown sink that is neither escaped nor marked
    ``# plain: <why>`` on one of its lines."""
    lines = source.splitlines()
    problems = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or _name(node.func) is None:
            continue
        for argument in _checked_arguments(node):
            if safe(argument):
                continue
            span = lines[argument.lineno - 1 : argument.end_lineno]
            if any("# plain:" in line for line in span):
                continue
            problems.append(f"{filename}:{argument.lineno}: {ast.get_source_segment(source, argument)}")
    return problems


def audit_pages(root: Path) -> list[str]:
    """``unescaped_sinks`` over every module of ``pages/``: the pages, their own packages and the shared UI."""
    problems = []
    for path in sorted((root / "pages").rglob("*.py")):
        problems.extend(unescaped_sinks(path.read_text(encoding="utf-8"), str(path.relative_to(root))))
    return problems
