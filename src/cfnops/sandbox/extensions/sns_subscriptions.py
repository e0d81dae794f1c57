"""``AWS::SNS::Subscription`` in CloudFormation templates.

moto's CloudFormation has no model for the type: the resource was listed with an
empty logical id and no physical id, and no subscription existed, so anything
comparing the stack's resources with its template (``cfnops diff --change-set``,
drift) saw the subscription as missing. Here it is created with SNS Subscribe,
``Ref`` answers the subscription ARN, and ``FilterPolicy``, ``FilterPolicyScope``,
``RawMessageDelivery``, ``RedrivePolicy`` and ``DeliveryPolicy`` become
subscription attributes (Template Reference, AWS::SNS::Subscription,
https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sns-subscription.html;
``Endpoint``, ``Protocol`` and ``TopicArn`` require replacement, the others update
in place).
"""

from __future__ import annotations

import json
from typing import Any

from cfnops.sandbox.extensions._moto import install_once, moto_module

__all__ = ["install"]

_ATTRIBUTES = (
    "FilterPolicy",
    "FilterPolicyScope",
    "RawMessageDelivery",
    "RedrivePolicy",
    "DeliveryPolicy",
)
_REPLACING = ("Endpoint", "Protocol", "TopicArn")
# moto finds models through CloudFormationModel.__subclasses__() (weak references):
# the class must stay referenced.
_model: list[type] = []


def _attribute_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _sns_backend(account_id: str, region_name: str) -> Any:
    return moto_module("moto.sns.models").sns_backends[account_id][region_name]


def _set_attributes(backend: Any, arn: str, properties: dict[str, Any]) -> None:
    for name in _ATTRIBUTES:
        if name in properties:
            backend.set_subscription_attributes(arn, name, _attribute_text(properties[name]))


def _subscribe(properties: dict[str, Any], account_id: str, region_name: str) -> Any:
    backend = _sns_backend(account_id, region_name)
    subscription = backend.subscribe(
        properties["TopicArn"], properties.get("Endpoint", ""), properties["Protocol"]
    )
    _set_attributes(backend, subscription.arn, properties)
    return subscription


def _needs_replacement(properties: dict[str, Any], subscription: Any) -> bool:
    """Whether the new properties change one that SNS cannot update in place."""
    current = {
        "Endpoint": subscription.endpoint,
        "Protocol": subscription.protocol,
        "TopicArn": subscription.topic.arn,
    }
    return any(properties.get(k, "") != current[k] for k in _REPLACING)


def _update(
    model: Any,
    original_resource: Any,
    new_resource_name: str,
    cloudformation_json: Any,
    account_id: str,
    region_name: str,
) -> Any:
    """A new subscription when a replacing property changed, else its attributes set."""
    properties = cloudformation_json.get("Properties") or {}
    old = original_resource.subscription
    if _needs_replacement(properties, old):
        model.delete_from_cloudformation_json(old.arn, cloudformation_json, account_id, region_name)
        return model.create_from_cloudformation_json(
            new_resource_name, cloudformation_json, account_id, region_name
        )
    _set_attributes(_sns_backend(account_id, region_name), old.arn, properties)
    return original_resource


def _model_class() -> type:
    common = moto_module("moto.core.common_models")

    class SnsSubscription(common.CloudFormationModel):  # type: ignore[misc,name-defined]
        """A subscription made by a stack; wraps moto's SNS ``Subscription``."""

        def __init__(self, subscription: Any, account_id: str, region_name: str) -> None:
            self.subscription = subscription
            self.account_id = account_id
            self.region_name = region_name

        @property
        def physical_resource_id(self) -> str:
            return str(self.subscription.arn)

        @staticmethod
        def cloudformation_name_type() -> str:
            return ""

        @staticmethod
        def cloudformation_type() -> str:
            return "AWS::SNS::Subscription"

        @classmethod
        def has_cfn_attr(cls, attr: str) -> bool:
            return attr == "Arn"

        def get_cfn_attribute(self, attribute_name: str) -> Any:
            if attribute_name == "Arn":
                return self.subscription.arn
            raise moto_module("moto.cloudformation.exceptions").UnformattedGetAttTemplateException()

        @classmethod
        def create_from_cloudformation_json(  # type: ignore[override]
            cls,
            resource_name: str,
            cloudformation_json: Any,
            account_id: str,
            region_name: str,
            **kwargs: Any,
        ) -> Any:
            properties = cloudformation_json.get("Properties") or {}
            return cls(_subscribe(properties, account_id, region_name), account_id, region_name)

        # The update is _update's, with this class as its ``model``.
        update_from_cloudformation_json = classmethod(_update)  # type: ignore[assignment]

        @classmethod
        def delete_from_cloudformation_json(  # type: ignore[override]
            cls, resource_name: str, cloudformation_json: Any, account_id: str, region_name: str
        ) -> None:
            _sns_backend(account_id, region_name).unsubscribe(resource_name)

        def delete(self, account_id: str, region_name: str) -> None:
            _sns_backend(account_id, region_name).unsubscribe(self.subscription.arn)

    return SnsSubscription


@install_once
def install() -> None:
    """Register the model with moto's CloudFormation (idempotent)."""
    _model.append(_model_class())
    parsing = moto_module("moto.cloudformation.parsing")
    parsing.get_model_map.cache_clear()
    parsing.get_name_type_map.cache_clear()
