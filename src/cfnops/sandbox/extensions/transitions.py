"""Intermediate states for EC2 instances and Aurora/RDS clusters, with delays.

moto jumps straight to the final state. Here, as in AWS:

- EC2 ("Amazon EC2 instance state changes",
  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-lifecycle.html):
  a launched or started instance is ``pending`` (code 0) before ``running`` (16);
  a stopped one is ``stopping`` (64) before ``stopped`` (80). Stopping a
  ``pending`` instance, or starting a ``stopping`` one, fails with
  ``IncorrectInstanceState`` ("Error codes for the Amazon EC2 API").
- RDS ("Viewing Amazon Aurora DB cluster status",
  https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/accessing-monitoring.html#Aurora.Status,
  and "Stopping and starting an Amazon Aurora DB cluster"):
  ``StopDBCluster`` -> ``stopping`` -> ``stopped``; ``StartDBCluster`` ->
  ``starting`` -> ``available``; a cluster snapshot (``CreateDBClusterSnapshot``
  or an AWS Backup job) puts the cluster in ``backing-up`` and the snapshot in
  ``creating`` until both are ``available``. Calls that need ``available`` or
  ``stopped`` meanwhile fail with ``InvalidDBClusterStateFault`` (moto's checks).

The delays are ``ec2_transition`` and ``rds_transition`` of the sandbox's
:class:`~cfnops.sandbox._state.Delays` (read when the transition starts); the
final state is reached at the first request after the delay. Terminating an
instance stays immediate (moto's own behaviour). Control route
``/_cfnops/transitions`` answers the two delays.
"""

from __future__ import annotations

import threading
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions._patching import replace

__all__ = ["begin_cluster_backup", "install"]

_EC2_CODES = {"pending": 0, "running": 16, "shutting-down": 32, "stopping": 64, "stopped": 80}
_lock = threading.Lock()


def _ec2_later(instance: Any, via: str, final: str) -> None:
    """Put ``instance`` in ``via`` now and in ``final`` after the EC2 delay."""
    instance._state.name, instance._state.code = via, _EC2_CODES[via]

    def settle() -> None:
        if instance._state.name == via:
            instance._state.name, instance._state.code = final, _EC2_CODES[final]

    current_state().schedule(current_state().delay("ec2_transition"), settle)


def _incorrect_state(instance: Any, action: str) -> Exception:
    from moto.ec2.exceptions import EC2ClientError

    return EC2ClientError(
        "IncorrectInstanceState",
        f"The instance '{instance.id}' is not in a state from which it can be {action}.",
    )


def _patch_ec2() -> None:
    from moto.ec2.models.instances import Instance, InstanceBackend

    if getattr(Instance.start, "_cfnops_patched", False):
        return
    _patch_instance_transitions(Instance)
    _patch_backend_state_checks(InstanceBackend)


def _patch_instance_transitions(instance_class: Any) -> None:
    """Launch, start and stop pass through pending/stopping before they settle."""
    original_init = instance_class.__init__
    original_start, original_stop = instance_class.start, instance_class.stop

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        _ec2_later(self, "pending", "running")

    def start(self: Any) -> Any:
        if self._state.name == "running":
            return original_start(self)  # AWS answers running -> running, no transition
        previous = original_start(self)
        _ec2_later(self, "pending", "running")
        return previous

    def stop(self: Any) -> Any:
        if self._state.name == "stopped":
            return original_stop(self)
        previous = original_stop(self)
        _ec2_later(self, "stopping", "stopped")
        return previous

    start._cfnops_patched = True  # type: ignore[attr-defined]
    replace(instance_class, "__init__", __init__)
    replace(instance_class, "start", start)
    replace(instance_class, "stop", stop)


def _patch_backend_state_checks(backend_class: Any) -> None:
    """StartInstances/StopInstances refuse an instance in a state AWS refuses."""
    original_start_many = backend_class.start_instances
    original_stop_many = backend_class.stop_instances

    def start_instances(self: Any, instance_ids: list[str]) -> Any:
        for instance in self.get_multi_instances_by_id(instance_ids):
            if instance.state in ("stopping", "shutting-down", "terminated"):
                raise _incorrect_state(instance, "started")
        return original_start_many(self, instance_ids)

    def stop_instances(self: Any, instance_ids: list[str]) -> Any:
        for instance in self.get_multi_instances_by_id(instance_ids):
            if instance.state in ("pending", "shutting-down", "terminated"):
                raise _incorrect_state(instance, "stopped")
        return original_stop_many(self, instance_ids)

    replace(backend_class, "start_instances", start_instances)
    replace(backend_class, "stop_instances", stop_instances)


def _rds_later(obj: Any, via: str, final: str) -> None:
    obj.status = via

    def settle() -> None:
        if obj.status == via:
            obj.status = final

    current_state().schedule(current_state().delay("rds_transition"), settle)


def begin_cluster_backup(cluster: Any, snapshot: Any) -> None:
    """Cluster ``backing-up`` and snapshot ``creating`` until the RDS delay passes."""
    if cluster.status == "available":
        _rds_later(cluster, "backing-up", "available")
    _rds_later(snapshot, "creating", "available")


def _patch_rds() -> None:
    from moto.rds.models import RDSBackend

    if getattr(RDSBackend.stop_db_cluster, "_cfnops_patched", False):
        return
    original_stop = RDSBackend.stop_db_cluster
    original_start = RDSBackend.start_db_cluster
    original_snapshot = RDSBackend.create_db_cluster_snapshot

    def stop_db_cluster(self: Any, cluster_identifier: str) -> Any:
        original_stop(self, cluster_identifier)  # checks "available", sets stopped
        cluster = self.clusters[cluster_identifier]
        _rds_later(cluster, "stopping", "stopped")
        return cluster

    def start_db_cluster(self: Any, cluster_identifier: str) -> Any:
        original_start(self, cluster_identifier)  # checks "stopped", sets available
        cluster = self.clusters[cluster_identifier]
        _rds_later(cluster, "starting", "available")
        return cluster

    def create_db_cluster_snapshot(self: Any, *args: Any, **kwargs: Any) -> Any:
        snapshot = original_snapshot(self, *args, **kwargs)
        # the snapshot holds a copy of the cluster: change the live one
        begin_cluster_backup(self.clusters[snapshot.cluster.db_cluster_identifier], snapshot)
        return snapshot

    stop_db_cluster._cfnops_patched = True  # type: ignore[attr-defined]
    replace(RDSBackend, "stop_db_cluster", stop_db_cluster)
    replace(RDSBackend, "start_db_cluster", start_db_cluster)
    replace(RDSBackend, "create_db_cluster_snapshot", create_db_cluster_snapshot)


def _control(request: dict[str, Any]) -> dict[str, Any]:
    state = current_state()
    return {
        "ec2_transition": state.delay("ec2_transition"),
        "rds_transition": state.delay("rds_transition"),
    }


def install() -> None:
    """Patch moto's EC2 instances and RDS clusters (once per process)."""
    with _lock:
        _patch_ec2()
        _patch_rds()
        register_control("transitions", _control)
