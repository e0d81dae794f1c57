"""Reading a template file, and the one check every caller makes: is it a mapping."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfnops.templates._yaml import decode
from cfnops.templates.errors import TemplateError


def read_text(path: str | Path) -> str:
    """A template file's text; :class:`TemplateError` says why it cannot be read."""
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TemplateError(str(path), "file not found") from None
    except IsADirectoryError:
        raise TemplateError(str(path), "is a directory, not a template file") from None
    except UnicodeDecodeError as exc:
        raise TemplateError(str(path), f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise TemplateError(str(path), f"cannot read: {exc.strerror}") from None


def parse_template(text: str, source: str = "<string>") -> Mapping[str, Any]:
    """Decode template text that must be a mapping (an empty text is ``{}``).

    >>> parse_template("Resources: {Q: {Type: AWS::SQS::Queue, Properties: {A: !Ref X}}}")
    {'Resources': {'Q': {'Type': 'AWS::SQS::Queue', 'Properties': {'A': {'Ref': 'X'}}}}}
    """
    document = decode(text, source)
    if not isinstance(document, Mapping):
        kind = type(document).__name__
        raise TemplateError(
            source,
            f"not a CloudFormation template: the document is {kind}, not a mapping",
            hint="a template is a JSON object / YAML mapping with a Resources section",
        )
    return document


def load_template(path: str | Path) -> Mapping[str, Any]:
    """Read and decode a template file (JSON or YAML with short-form tags).

    Mappings, lists and strings in the result carry ``start_mark``/``end_mark``
    (see :func:`line_of`). Raises :class:`TemplateError` (exit 2) naming the file, and
    the line and column when the text is malformed.
    """
    return parse_template(read_text(path), str(path))
