"""The one exception type bpe_core raises for bad input, so that callers (the CLI, the app) catch one,
and the one warning category it gives (``BpeWarning``).

``BpeError`` is a ``ValueError``: a setting, a text, a file or an id bpe_core cannot take, with a
message that says what is wrong and what to do. Errors of the libraries bpe_core uses are turned
into it where they come in, their own words kept and the C++ source position a native library appends
taken out (``foreign_message``). Anything else bpe_core raises (``TypeError`` for an argument of the wrong
type, ``AttributeError``...) is a caller's mistake or a bug, and is left to show its traceback. Among
those, a keyword a function does not take: ``keyword_options`` gives the functions that share a family
of keyword options (a ``TypedDict``) one home for their names and defaults, and refuses any other
keyword at once with a ``TypeError`` that names it and the keywords taken.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, ForwardRef, TypeVar

Function = TypeVar("Function", bound=Callable[..., Any])

#: Where in its C++ source a native library failed (SentencePiece: "INTERNAL:
#: src/sentencepiece_processor.cc(109) [model_proto->ParseFromArray(...)]"), to the end of the message:
#: where the library failed, not what is wrong with the input.
_NATIVE_SOURCE = re.compile(
    r"[:;,]?\s*(?-i:[A-Z_]{3,}:\s*)?[\w./\\-]+\.(?:cc|cpp|c|h|hpp)\(\d+\).*$", re.DOTALL | re.IGNORECASE
)


class BpeError(ValueError):
    """Bad input to bpe_core; the message names the input and the fix.

    >>> try:
    ...     raise BpeError("vocab_size must be at least 256, got 10")
    ... except ValueError as caught:
    ...     print(caught)
    vocab_size must be at least 256, got 10
    """


class BpeWarning(UserWarning):
    """Something bpe_core could not use, worked around with the same result (a model cache that cannot
    be read or written: loading goes on without it). The CLI prints it as one ``warning: ...`` line."""


def foreign_message(error: object) -> str:
    """Another library's error message as bpe_core passes it on: its own words, without the C++ source
    position a native library appends (empty when that is all it says).

    >>> foreign_message(RuntimeError("INTERNAL: src/sentencepiece_processor.cc(109) [a->b()]"))
    ''
    >>> foreign_message(OSError("not a model: src/sentencepiece_processor.cc(109) [proto->Parse()]"))
    'not a model'
    """
    return _NATIVE_SOURCE.sub("", str(error)).strip()


def keyword_options(options: Any, defaults: Mapping[str, object]) -> Callable[[Function], Function]:
    """Decorate a function that takes ``**options: Unpack[options]`` (``options`` a ``TypedDict``,
    total=False): every keyword of ``options`` is optional, with its default in ``defaults`` (the one
    place it is written; the signature lists them in its order), so the function always receives them
    all. A keyword the function does not take is a ``TypeError`` before the function runs, naming it
    (and a close match) and the keywords it takes; ``help()`` and ``inspect.signature`` show each
    keyword with its default.

    >>> import inspect
    >>> from typing import TypedDict
    >>> class Options(TypedDict, total=False):
    ...     size: int
    >>> @keyword_options(Options, {"size": 2})
    ... def area(**options):
    ...     return options["size"] ** 2
    >>> area(), area(size=3), str(inspect.signature(area))
    (4, 9, "(*, size: 'int' = 2)")
    >>> area(sise=3)
    Traceback (most recent call last):
    TypeError: area() got an unexpected keyword argument 'sise' (did you mean 'size'?); it takes: size
    """
    import inspect  # only when a module that uses it is imported: inspect is not light

    missing = [name for name in options.__annotations__ if name not in defaults]
    if missing:
        raise TypeError(f"{options.__name__} has no default for {', '.join(missing)}")
    chosen = {name: default for name, default in defaults.items() if name in options.__annotations__}
    names = list(chosen)  # in the order of ``defaults``

    def decorate(function: Function) -> Function:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        keyword = inspect.Parameter.KEYWORD_ONLY
        added = [
            inspect.Parameter(name, keyword, default=chosen[name], annotation=_shown(options, name)) for name in names
        ]
        taken = [p.name for p in own if p.kind is not inspect.Parameter.POSITIONAL_ONLY] + names

        @functools.wraps(function)
        def with_defaults(*args: Any, **given: Any) -> Any:
            for name in given:
                if name not in chosen and name not in taken:
                    raise _unexpected_keyword(function.__name__, name, taken)
            return function(*args, **{**chosen, **given})

        setattr(with_defaults, "__signature__", signature.replace(parameters=own + added))  # noqa: B010
        return with_defaults  # type: ignore[return-value]

    return decorate


def _shown(options: Any, name: str) -> object:
    """The annotation of ``options``' key ``name`` as a signature shows it (a string, as written)."""
    annotation = options.__annotations__[name]
    return annotation.__forward_arg__ if isinstance(annotation, ForwardRef) else annotation


def _unexpected_keyword(function: str, name: str, taken: list[str]) -> TypeError:
    import difflib  # only for a keyword refused: not at import

    close = difflib.get_close_matches(name, taken, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return TypeError(f"{function}() got an unexpected keyword argument {name!r}{hint}; it takes: {', '.join(taken)}")
