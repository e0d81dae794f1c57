"""SAM templates: transformed as CloudFormation will see them, then diffed.

A template with ``Transform: AWS::Serverless-2016-10-31`` is expanded by AWS's own
translator (``aws-sam-translator``, the ``cfnops[sam]`` extra; it is what
CloudFormation runs for the transform: "AWS SAM template anatomy",
https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-specification-template-anatomy.html).
A template the translator rejects is diffed as written (:func:`sam_untransformed`):
the operator still sees what changed, the translator's error is a warning, and each
changed ``AWS::Serverless::*`` resource is MAY_REPLACE: what it generates, and
whether that is replaced, is unknown without the transform.
Local code paths (``CodeUri: src/``, what ``sam build``/``sam package`` later upload)
become an S3 location whose key is the path, so a path change still shows.

The report names the SAM resource behind each generated one: a generated resource's
logical id starts with its SAM resource's id (``Fn`` → ``Fn``, ``FnRole``,
``FnApiPermissionProd``), which is how the translator names them; the implicit APIs
(``ServerlessRestApi``, ``ServerlessHttpApi``) come from the functions' API events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cfnops.diff._model import Impact, TemplateDiff, annotate
from cfnops.diff.errors import SamTransformError, TemplateLoadError

__all__ = ["is_sam", "sam_annotations", "sam_origins", "sam_untransformed", "transform_sam"]

SAM_TRANSFORM = "AWS::Serverless-2016-10-31"
_LOCAL_URIS = {
    "AWS::Serverless::Function": ("CodeUri", ("Bucket", "Key")),
    "AWS::Serverless::LayerVersion": ("ContentUri", ("Bucket", "Key")),
    "AWS::Serverless::Api": ("DefinitionUri", ("Bucket", "Key")),
    "AWS::Serverless::HttpApi": ("DefinitionUri", ("Bucket", "Key")),
    "AWS::Serverless::StateMachine": ("DefinitionUri", ("Bucket", "Key")),
}
_IMPLICIT_APIS = ("ServerlessRestApi", "ServerlessHttpApi")
_LOCAL_BUCKET = "cfnops-local-code"
_IMPLICIT = "implicit API of the functions' Api/HttpApi events"


def is_sam(template: Mapping[str, Any]) -> bool:
    """True when the template declares the SAM transform (alone or in a list)."""
    transform = template.get("Transform")
    names = transform if isinstance(transform, list) else [transform]
    return SAM_TRANSFORM in names


def _local_uri(resource: dict[str, Any]) -> dict[str, Any]:
    spec = _LOCAL_URIS.get(str(resource.get("Type")))
    props = resource.get("Properties")
    if spec is None or not isinstance(props, dict):
        return resource
    key, (bucket_key, key_key) = spec
    value = props.get(key)
    if isinstance(value, str) and not value.startswith("s3://"):
        props = {**props, key: {bucket_key: _LOCAL_BUCKET, key_key: value}}
        return {**resource, "Properties": props}
    return resource


def _prepared(template: Mapping[str, Any]) -> dict[str, Any]:
    resources = template.get("Resources") or {}
    out = {**template, "Resources": {k: _local_uri(dict(v)) for k, v in resources.items()}}
    globals_ = template.get("Globals")
    if isinstance(globals_, dict) and isinstance(globals_.get("Function"), dict):
        fn = globals_["Function"]
        if isinstance(fn.get("CodeUri"), str) and not fn["CodeUri"].startswith("s3://"):
            fn = {**fn, "CodeUri": {"Bucket": _LOCAL_BUCKET, "Key": fn["CodeUri"]}}
            out["Globals"] = {**globals_, "Function": fn}
    return out


def transform_sam(template: Mapping[str, Any], source: str, region: str) -> dict[str, Any]:
    """The CloudFormation template the SAM transform makes of ``template``."""
    try:
        import boto3
        from samtranslator.metrics.metrics import Metrics
        from samtranslator.model.exceptions import InvalidDocumentException
        from samtranslator.parser.parser import Parser
        from samtranslator.translator.translator import Translator
    except ModuleNotFoundError:
        raise TemplateLoadError(
            source,
            f"uses the {SAM_TRANSFORM} transform, and the SAM translator is not installed",
            hint="pip install 'cfnops[sam]'",
        ) from None
    session = boto3.session.Session(region_name=region)
    pseudo = {"AWS::Region": region, "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}
    metrics = Metrics()  # offline: its default publisher drops them (publish() keeps it quiet)
    translator = Translator(None, Parser(), boto_session=session, metrics=metrics)
    try:
        result = translator.translate(_prepared(template), pseudo, get_managed_policy_map=dict)
    except InvalidDocumentException as exc:
        causes = "; ".join(str(c.message) for c in exc.causes) or str(exc)
        raise SamTransformError(source, causes) from None
    finally:
        metrics.publish()
    return dict(result)


def sam_origins(
    sam: Mapping[str, Any], transformed: Mapping[str, Any]
) -> dict[str, tuple[str, str]]:
    """Generated logical id → (SAM logical id, SAM type); the implicit APIs map to
    ``(their own id, "implicit API of the functions' events")``."""
    sam_ids = {
        str(k): str(v.get("Type"))
        for k, v in (sam.get("Resources") or {}).items()
        if isinstance(v, dict) and str(v.get("Type", "")).startswith("AWS::Serverless::")
    }
    by_length = sorted(sam_ids, key=len, reverse=True)
    out: dict[str, tuple[str, str]] = {}
    for key in transformed.get("Resources") or {}:
        logical_id = str(key)
        owner = next((s for s in by_length if logical_id.startswith(s)), None)
        if owner is not None:
            out[logical_id] = (owner, sam_ids[owner])
        elif logical_id.startswith(_IMPLICIT_APIS):
            out[logical_id] = (logical_id, _IMPLICIT)
    return out


def sam_annotations(diff: TemplateDiff, origins: Mapping[str, tuple[str, str]]) -> TemplateDiff:
    """``diff`` with each generated resource annotated with its SAM resource and siblings."""
    if not origins:
        return diff
    siblings: dict[tuple[str, str], list[str]] = {}
    for generated_id, origin in origins.items():
        siblings.setdefault(origin, []).append(generated_id)
    notes: dict[str, list[str]] = {}
    for logical_id, (owner, kind) in origins.items():
        if kind == _IMPLICIT:
            notes[logical_id] = [f"generated by SAM: the {kind}"]
        else:
            generated = ", ".join(sorted(siblings[(owner, kind)]))
            notes[logical_id] = [
                f"generated by SAM resource {owner} ({kind}), which generates {generated}"
            ]
    return annotate(diff, notes)


_UNKNOWN = "not transformed: the resources it generates, and whether any is replaced, are unknown"


def sam_untransformed(diff: TemplateDiff, warning: str) -> TemplateDiff:
    """``diff`` of SAM templates compared as written, after the translator rejected one.

    A changed ``AWS::Serverless::*`` resource becomes MAY_REPLACE (its generated
    resources are unknown); the translator's error is the first note.
    """
    resources = []
    for res in diff.resources:
        if res.type.startswith("AWS::Serverless::") and res.impact in (
            Impact.WILL_UPDATE,
            Impact.NO_CHANGE,
        ):
            res = replace(
                res,
                impact=Impact.MAY_REPLACE,
                reason=f"{res.logical_id} is a SAM resource {_UNKNOWN}",
                notes=(*res.notes, f"SAM resource {_UNKNOWN}"),
            )
        resources.append(res)
    note = f"warning: {warning}; the templates are compared untransformed"
    return replace(diff, resources=tuple(resources), notes=(note, *diff.notes))
