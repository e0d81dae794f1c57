"""Resource attributes that decide an update's outcome beyond the property schema.

AWS docs, "UpdatePolicy attribute"
(https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-updatepolicy.html):

* ``AWS::AutoScaling::AutoScalingGroup``: a change of the launch configuration,
  ``LaunchTemplate``, ``VPCZoneIdentifier`` or ``PlacementGroup`` triggers the
  group's replacing or rolling update. With ``AutoScalingReplacingUpdate:
  WillReplace: true`` (which takes precedence over a rolling update) the group
  itself is replaced; with ``AutoScalingRollingUpdate`` (or ``WillReplace:
  false``) only its instances are, and the group is updated in place. Without
  any UpdatePolicy the registry schema's answer (conditionally create-only,
  MAY_REPLACE) stands for the launch settings; ``VPCZoneIdentifier`` is then
  updated in place (its reference: "Update requires: Some interruptions").
* ``AWS::ElastiCache::ReplicationGroup``: ``UseOnlineResharding: true`` updates
  ``NumNodeGroups`` / ``NodeGroupConfiguration`` without interruption; when it
  is false or absent, changing them replaces the replication group.
* ``AWS::OpenSearchService::Domain`` / ``AWS::Elasticsearch::Domain``:
  ``EnableVersionUpgrade: true`` upgrades ``EngineVersion`` /
  ``ElasticsearchVersion`` in place; when false or absent, a version change
  replaces the domain.
* ``AWS::Lambda::Alias`` with ``CodeDeployLambdaAliasUpdate``: a new
  ``FunctionVersion`` is shifted by a CodeDeploy deployment; the alias is
  updated in place (the reason says so).

The new template's attributes apply: CloudFormation runs the update with the
policy of the template being deployed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cfnops.diff._model import Impact

_ASG_TRIGGERS = frozenset(
    {
        "LaunchConfigurationName",
        "LaunchTemplate",
        "MixedInstancesPolicy",
        "VPCZoneIdentifier",
        "PlacementGroup",
    }
)


@dataclass(frozen=True)
class Override:
    """The impact an attribute imposes on a changed property, and why."""

    impact: Impact
    reason: str
    source: str = "UpdatePolicy"


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _condition_of(value: Any) -> list[Any] | None:
    """``[condition, when true, when false]`` of an ``Fn::If``, else ``None``."""
    if isinstance(value, Mapping) and set(value) == {"Fn::If"}:
        arg = value["Fn::If"]
        if isinstance(arg, list) and len(arg) == 3 and isinstance(arg[0], str):
            return arg
    return None


def _policy(resource: Any) -> Mapping[str, Any] | None:
    if not isinstance(resource, Mapping):
        return None
    policy = resource.get("UpdatePolicy")
    return policy if isinstance(policy, Mapping) else None


# The group's reference: VPCZoneIdentifier "Update requires: Some interruptions"
# (aws-resource-autoscaling-autoscalinggroup.html); the UpdatePolicy page: only
# AutoScalingReplacingUpdate WillReplace true replaces the group when it changes. The
# registry schema lists it as conditionally create-only: the documentation decides.
_SUBNETS_IN_PLACE = {
    "VPCZoneIdentifier": Override(
        Impact.WILL_UPDATE,
        "no AutoScalingReplacingUpdate WillReplace: new subnets update the group in place "
        "(VPCZoneIdentifier: Update requires Some interruptions)",
        "documented update behaviour",
    )
}


def _asg(policy: Mapping[str, Any] | None) -> dict[str, Override]:
    if policy is None:
        return dict(_SUBNETS_IN_PLACE)
    replacing = policy.get("AutoScalingReplacingUpdate")
    flag = replacing.get("WillReplace") if isinstance(replacing, Mapping) else None
    will_replace = _truthy(flag)
    chosen = _condition_of(flag)
    if chosen is not None and any(_truthy(branch) for branch in chosen[1:]):
        # WillReplace from Fn::If: which branch applies is the deploy's choice
        override = Override(
            Impact.MAY_REPLACE,
            f"UpdatePolicy AutoScalingReplacingUpdate WillReplace depends on condition "
            f"{chosen[0]}: the group is replaced when it picks true",
        )
    elif will_replace:
        override = Override(
            Impact.WILL_REPLACE,
            "UpdatePolicy AutoScalingReplacingUpdate WillReplace: true replaces the group",
        )
    elif "AutoScalingRollingUpdate" in policy:
        override = Override(
            Impact.WILL_UPDATE,
            "UpdatePolicy AutoScalingRollingUpdate replaces the instances, not the group",
        )
    elif isinstance(replacing, Mapping):
        override = Override(
            Impact.WILL_UPDATE,
            "UpdatePolicy AutoScalingReplacingUpdate WillReplace is false: "
            "the group is updated in place",
        )
    else:
        return dict(_SUBNETS_IN_PLACE)
    return dict.fromkeys(_ASG_TRIGGERS, override)


def _switch(
    policy: Mapping[str, Any] | None, key: str, names: tuple[str, ...], what: str
) -> dict[str, Override]:
    enabled = policy is not None and _truthy(policy.get(key))
    if enabled:
        override = Override(Impact.WILL_UPDATE, f"UpdatePolicy {key}: true {what} in place")
    else:
        override = Override(
            Impact.WILL_REPLACE, f"without UpdatePolicy {key}: true, this change replaces it"
        )
    return dict.fromkeys(names, override)


def _alias(policy: Mapping[str, Any] | None) -> dict[str, Override]:
    if policy is None or not isinstance(policy.get("CodeDeployLambdaAliasUpdate"), Mapping):
        return {}
    return {
        "FunctionVersion": Override(
            Impact.WILL_UPDATE,
            "UpdatePolicy CodeDeployLambdaAliasUpdate shifts traffic with a CodeDeploy "
            "deployment; the alias is updated in place",
        )
    }


def overrides(type_name: str, resource: Any) -> dict[str, Override]:
    """Property name -> the impact the resource's attributes impose when it changes.

    Only properties whose outcome an attribute decides are listed.
    """
    policy = _policy(resource)
    if type_name == "AWS::AutoScaling::AutoScalingGroup":
        return _asg(policy)
    if type_name == "AWS::ElastiCache::ReplicationGroup":
        return _switch(
            policy,
            "UseOnlineResharding",
            ("NumNodeGroups", "NodeGroupConfiguration"),
            "reshards the replication group",
        )
    if type_name == "AWS::OpenSearchService::Domain":
        return _switch(policy, "EnableVersionUpgrade", ("EngineVersion",), "upgrades the domain")
    if type_name == "AWS::Elasticsearch::Domain":
        return _switch(
            policy, "EnableVersionUpgrade", ("ElasticsearchVersion",), "upgrades the domain"
        )
    if type_name == "AWS::Lambda::Alias":
        return _alias(policy)
    return {}


# Conditionally create-only properties whose documented condition the template shows:
# "Replacement if you did not have a health check specified when you created the load
# balancer; No interruption if there was" (AWS docs, AWS::ElasticLoadBalancing::LoadBalancer,
# aws-resource-elasticloadbalancing-loadbalancer.html, HealthCheck).
_REPLACED_ONLY_WHEN_ADDED = frozenset({("AWS::ElasticLoadBalancing::LoadBalancer", "HealthCheck")})


def kept_settings(type_name: str, old: Any, new: Any) -> dict[str, Override]:
    """Overrides for properties that replace only when added, present in both templates."""
    old_props = old.get("Properties") if isinstance(old, Mapping) else None
    new_props = new.get("Properties") if isinstance(new, Mapping) else None
    if not isinstance(old_props, Mapping) or not isinstance(new_props, Mapping):
        return {}
    return {
        name: Override(
            Impact.WILL_UPDATE,
            f"{name} existed before, so a change is an update without interruption",
            "documented condition",
        )
        for kind, name in _REPLACED_ONLY_WHEN_ADDED
        if kind == type_name and name in old_props and name in new_props
    }


def followed_settings(
    type_name: str, resource: Any, existing: dict[str, Override]
) -> dict[str, Override]:
    """Overrides for launch settings whose *value* another resource changes (no UpdatePolicy).

    A group without an UpdatePolicy whose launch configuration is replaced (or whose
    launch template gets a new version) is updated in place: new instances use the new
    settings, running ones stay (AWS docs, "UpdatePolicy attribute"; the
    AWS::AutoScaling::AutoScalingGroup reference: LaunchConfigurationName and
    LaunchTemplate "Update requires: No interruption"). An edit of the group's own text
    keeps the registry schema's answer (conditionally create-only).
    """
    if type_name != "AWS::AutoScaling::AutoScalingGroup" or _policy(resource) is not None:
        return {}
    override = Override(
        Impact.WILL_UPDATE,
        "no UpdatePolicy: the group is updated in place and only new instances use it",
    )
    return {name: override for name in _ASG_TRIGGERS if name not in existing}


def policy_note(type_name: str, resource: Any, changed: set[str]) -> str | None:
    """A caveat for an Auto Scaling group whose launch settings change without an UpdatePolicy.

    The registry schema's answer (conditionally create-only: MAY_REPLACE) stands, but
    the UpdatePolicy page says the group is then updated in place and its instances
    keep running until they are replaced by scaling.
    """
    if type_name != "AWS::AutoScaling::AutoScalingGroup" or _policy(resource) is not None:
        return None
    if not changed & _ASG_TRIGGERS:
        return None
    return (
        "no UpdatePolicy: CloudFormation updates the group in place and does not replace "
        "its instances (add AutoScalingRollingUpdate or AutoScalingReplacingUpdate to choose)"
    )


def replace_note(resource: Any) -> str | None:
    """What happens to the old physical resource of a replaced resource.

    AWS docs: "UpdateReplacePolicy attribute" (aws-attribute-updatereplacepolicy.html).
    """
    policy = resource.get("UpdateReplacePolicy") if isinstance(resource, Mapping) else None
    if policy == "Retain":
        return "UpdateReplacePolicy Retain: the old physical resource is kept, not deleted"
    if policy == "Snapshot":
        return "UpdateReplacePolicy Snapshot: the old resource is deleted after a snapshot"
    return None
