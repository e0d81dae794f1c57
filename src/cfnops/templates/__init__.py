"""CloudFormation template loading shared by every command (diff, guard, ami, heal).

>>> from cfnops.templates import parse_template, line_of
>>> body = parse_template("Resources:\\n  B:\\n    Type: AWS::S3::Bucket\\n")
>>> line_of(body["Resources"]["B"])
3

JSON and YAML (with ``!Ref``, ``!GetAtt A.B``, ``!Sub``, ``!If`` … short forms) decode to
dicts, lists and strings that remember their line; a duplicate key, a syntax error or an
unreadable file raise :class:`TemplateError` (exit 2) naming the file, line and column.
Built on PyYAML's C parser: importing this package costs a few milliseconds.
"""

from __future__ import annotations

from cfnops.templates._files import load_template, parse_template, read_text
from cfnops.templates._json import NotFastJson, decode_json
from cfnops.templates._nodes import LocatedDict, LocatedList, LocatedStr, line_of
from cfnops.templates._yaml import decode
from cfnops.templates.errors import TemplateError

__all__ = [
    "LocatedDict",
    "LocatedList",
    "LocatedStr",
    "NotFastJson",
    "TemplateError",
    "decode",
    "decode_json",
    "line_of",
    "load_template",
    "parse_template",
    "read_text",
]
