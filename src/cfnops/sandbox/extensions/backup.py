"""AWS Backup on-demand jobs: StartBackupJob, DescribeBackupJob, ListBackupJobs.

moto's Backup has vaults and plans but no jobs. Here (AWS Backup Developer
Guide, "Creating an on-demand backup" and API reference pages "StartBackupJob",
"DescribeBackupJob", "ListBackupJobs", https://docs.aws.amazon.com/aws-backup/latest/devguide/):

- an EC2 instance (``arn:aws:ec2:REGION:ACCOUNT:instance/i-...``) is backed up as
  an AMI in moto's EC2, named ``AwsBackup_<instance>_<job>``, carrying the
  instance's tags and the request's ``RecoveryPointTags``; the recovery point ARN
  is the image ARN (``arn:aws:ec2:REGION::image/ami-...``), as for real EC2 backups;
- an Aurora/RDS cluster (``arn:aws:rds:REGION:ACCOUNT:cluster:NAME``) is backed up
  as a cluster snapshot ``awsbackup:job-<job>`` (the cluster is ``backing-up``
  meanwhile, see :mod:`transitions`);
- the job goes CREATED -> RUNNING (after half the ``backup_job`` delay) ->
  COMPLETED (after the whole delay); the image is ``pending`` until then. A
  resource that does not exist makes the job FAILED with a status message;
- every state change is published on the sandbox's EventBridge bus as a
  "Backup Job State Change" event from ``aws.backup`` ("Monitoring AWS Backup
  events using Amazon EventBridge", devguide/eventbridge.html), whose ``detail``
  carries ``backupJobId``, ``state``, ``resourceArn``, ``resourceType``,
  ``backupVaultName``/``Arn``, ``iamRoleArn``, ``creationDate``, ``percentDone``,
  ``backupSizeInBytes``, ``bytesTransferred``, ``startBy`` and, once COMPLETED,
  ``completionDate``, with the recovery point (the AMI or snapshot ARN) as
  ``resources[0]``, as in the guide's example events (see :meth:`BackupJob.event`).

The ``Default`` vault is created on first use, as the AWS Backup console does.
Control route ``/_cfnops/backup`` answers the jobs.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from cfnops.sandbox._control import register_control
from cfnops.sandbox._state import current_state
from cfnops.sandbox.extensions import events
from cfnops.sandbox.extensions._paging import page
from cfnops.sandbox.extensions._patching import replace

__all__ = ["BackupJob", "install", "jobs"]

_STORE = "backup"
_lock = threading.Lock()


@dataclass
class BackupJob:
    job_id: str
    account: str
    region: str
    vault_name: str
    vault_arn: str
    resource_arn: str
    resource_type: str
    iam_role_arn: str
    created: datetime
    start_by: datetime
    recovery_point_arn: str = ""
    state: str = "CREATED"
    status_message: str = ""
    completed: datetime | None = None
    size: int = 0
    token: str | None = None
    recovery_point_tags: dict[str, str] = field(default_factory=dict)

    @property
    def percent_done(self) -> str:
        return {"CREATED": "0.0", "RUNNING": "50.0"}.get(self.state, "100.0")

    @property
    def event_percent_done(self) -> int:
        # the API answers PercentDone as a string; the documented events carry a number
        return {"CREATED": 0, "RUNNING": 50, "FAILED": 0}.get(self.state, 100)

    def api(self) -> dict[str, Any]:
        """The BackupJob structure (DescribeBackupJob / ListBackupJobs)."""
        data: dict[str, Any] = {
            "AccountId": self.account,
            "BackupJobId": self.job_id,
            "BackupVaultName": self.vault_name,
            "BackupVaultArn": self.vault_arn,
            "ResourceArn": self.resource_arn,
            "CreationDate": self.created,
            "State": self.state,
            "PercentDone": self.percent_done,
            "BackupSizeInBytes": self.size,
            "BytesTransferred": self.size if self.state == "COMPLETED" else 0,
            "IamRoleArn": self.iam_role_arn,
            "CreatedBy": {},
            "ResourceType": self.resource_type,
            "StartBy": self.start_by,
            "BackupType": "",
            "IsParent": False,
            "ResourceName": self.resource_arn.rsplit("/", 1)[-1].rsplit(":", 1)[-1],
            "InitiationDate": self.created,
        }
        if self.recovery_point_arn:
            data["RecoveryPointArn"] = self.recovery_point_arn
        if self.status_message:
            data["StatusMessage"] = self.status_message
        if self.completed is not None:
            data["CompletionDate"] = self.completed
        return data

    def event(self) -> dict[str, Any]:
        """The "Backup Job State Change" event for the current state.

        Field by field as the example events of the AWS Backup Developer Guide,
        "Monitoring AWS Backup events using Amazon EventBridge"
        (https://docs.aws.amazon.com/aws-backup/latest/devguide/eventbridge.html):
        CREATED carries only ``backupJobId``, ``state`` and ``creationDate``;
        RUNNING, FAILED and COMPLETED the job's fields; only COMPLETED names the
        recovery point, in ``resources`` (``resources`` is ``[]`` otherwise). For an
        EC2 backup the recovery point ARN is the AMI's
        (``arn:aws:ec2:REGION::image/ami-...``, "Amazon EC2 backups",
        https://docs.aws.amazon.com/aws-backup/latest/devguide/ec2-backups.html), so a
        handler written for AWS takes the image from ``resources[0]``.
        """
        detail: dict[str, Any]
        if self.state == "CREATED":
            detail = {
                "backupJobId": self.job_id,
                "state": self.state,
                "creationDate": _iso(self.created),
            }
        else:
            detail = {
                "backupJobId": self.job_id,
                "backupVaultArn": self.vault_arn,
                "backupVaultName": self.vault_name,
                "bytesTransferred": str(self.size if self.state == "COMPLETED" else 0),
                "creationDate": _iso(self.created),
                "iamRoleArn": self.iam_role_arn,
                "resourceArn": self.resource_arn,
                "resourceType": self.resource_type,
                "state": self.state,
            }
            if self.state != "FAILED":  # the FAILED example has no size
                detail["backupSizeInBytes"] = str(self.size)
            if self.status_message:
                detail["statusMessage"] = self.status_message
            if self.completed is not None and self.state == "COMPLETED":
                detail["completionDate"] = _iso(self.completed)
            detail["startBy"] = _iso(self.start_by)
            detail["percentDone"] = self.event_percent_done
        completed = self.state == "COMPLETED" and self.recovery_point_arn
        return {
            "source": "aws.backup",
            "detail-type": "Backup Job State Change",
            "account": self.account,
            "region": self.region,
            "resources": [self.recovery_point_arn] if completed else [],
            "detail": detail,
        }


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _store() -> dict[str, BackupJob]:
    jobs: dict[str, BackupJob] = current_state().extras.setdefault(_STORE, {})
    return jobs


def jobs() -> list[BackupJob]:
    """Every backup job the sandbox started, oldest first."""
    with current_state().lock:
        return list(_store().values())


# -- the job -----------------------------------------------------------------


def _resource_type(arn: str) -> str:
    from moto.backup.exceptions import InvalidParameterValueException

    parts = arn.split(":")
    if len(parts) >= 6 and parts[2] == "ec2" and parts[5].startswith("instance/"):
        return "EC2"
    if len(parts) >= 7 and parts[2] == "rds" and parts[5] == "cluster":
        return "Aurora"
    raise InvalidParameterValueException(
        f"Invalid ARN or unsupported resource type in the sandbox: {arn} "
        "(EC2 instances and RDS clusters are emulated)"
    )


def _begin(job: BackupJob) -> None:
    """Create the recovery point (pending) and return; raises nothing."""
    parts = job.resource_arn.split(":")
    try:
        if job.resource_type == "EC2":
            _begin_ec2(job, parts[5].split("/", 1)[1])
        else:
            _begin_rds(job, parts[6])
    except Exception as exc:  # the resource is gone: the job fails, as in AWS
        job.status_message = f"Resource not found or not backed up: {exc}"


def _begin_ec2(job: BackupJob, instance_id: str) -> None:
    from moto.ec2.models import ec2_backends

    ec2 = ec2_backends[job.account][job.region]
    instance = ec2.get_instance(instance_id)
    tags = {
        tag["key"]: tag["value"]
        for tag in ec2.describe_tags(filters={"resource-id": [instance_id]})
    }
    tags.update(job.recovery_point_tags)
    spec = [{"ResourceType": "image", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}]
    image = ec2.create_image(
        instance.id,
        f"AwsBackup_{instance.id}_{job.job_id}",
        "This image is created by the AWS Backup service.",
        spec if tags else [],
    )
    image.state = "pending"
    job.size = 8 * 1024**3
    job.recovery_point_arn = f"arn:aws:ec2:{job.region}::image/{image.id}"


def _begin_rds(job: BackupJob, cluster_name: str) -> None:
    from moto.rds.models import rds_backends

    rds = rds_backends[job.account][job.region]
    snapshot_id = f"awsbackup:job-{job.job_id.lower()}"  # RDS ids are lower case
    snapshot = rds.create_db_cluster_snapshot(cluster_name, snapshot_id, snapshot_type="awsbackup")
    job.size = int(getattr(snapshot, "allocated_storage", 1) or 1) * 1024**3
    job.recovery_point_arn = (
        f"arn:aws:rds:{job.region}:{job.account}:cluster-snapshot:{snapshot_id}"
    )


def _set_state(job: BackupJob, new_state: str) -> None:
    job.state = new_state
    if new_state in ("COMPLETED", "FAILED"):
        job.completed = datetime.now(UTC)
    if new_state == "COMPLETED" and job.resource_type == "EC2":
        _finish_image(job)
    events.emit(job.event())


def _finish_image(job: BackupJob) -> None:
    from moto.ec2.models import ec2_backends

    image_id = job.recovery_point_arn.rsplit("/", 1)[-1]
    image = ec2_backends[job.account][job.region].amis.get(image_id)
    if image is not None:
        image.state = "available"


def _run(job: BackupJob) -> None:
    state = current_state()
    total = state.delay("backup_job")

    def running() -> None:
        _begin(job)
        if job.status_message:
            _set_state(job, "FAILED")
            return
        _set_state(job, "RUNNING")
        state.schedule(total / 2, lambda: _set_state(job, "COMPLETED"))

    state.schedule(total / 2, running)


def start_job(backend: Any, params: dict[str, Any]) -> BackupJob:
    """StartBackupJob against moto's backup ``backend`` (validates like AWS)."""
    from moto.backup.exceptions import InvalidParameterValueException

    for name in ("BackupVaultName", "ResourceArn", "IamRoleArn"):
        if not params.get(name):
            raise InvalidParameterValueException(f"{name} is required")
    vault_name = str(params["BackupVaultName"])
    with current_state().lock:  # concurrent first jobs must not both create it
        if vault_name == "Default" and vault_name not in backend.vaults:
            backend.create_backup_vault("Default", {}, "", str(uuid.uuid4()))
    vault = backend.describe_backup_vault(vault_name)  # ResourceNotFoundException
    token = params.get("IdempotencyToken")
    with current_state().lock:
        for existing in _store().values():
            if token and existing.token == token:
                return existing
        now = datetime.now(UTC)
        job = BackupJob(
            job_id=str(uuid.uuid4()).upper(),
            account=backend.account_id,
            region=backend.region_name,
            vault_name=vault_name,
            vault_arn=vault.backup_vault_arn,
            resource_arn=str(params["ResourceArn"]),
            resource_type=_resource_type(str(params["ResourceArn"])),
            iam_role_arn=str(params["IamRoleArn"]),
            created=now,
            start_by=now + timedelta(minutes=int(params.get("StartWindowMinutes") or 480)),
            token=token,
            recovery_point_tags=dict(params.get("RecoveryPointTags") or {}),
        )
        _store()[job.job_id] = job
        events.emit(job.event())
        _run(job)
    return job


# -- responses ---------------------------------------------------------------


def _start_backup_job(self: Any) -> Any:
    from moto.core.responses import ActionResult

    job = start_job(self.backup_backend, json.loads(self.body or "{}"))
    # RecoveryPointArn is only returned for EFS and DynamoDB (StartBackupJob reference)
    return ActionResult({"BackupJobId": job.job_id, "CreationDate": job.created, "IsParent": False})


def _describe_backup_job(self: Any) -> Any:
    from moto.backup.exceptions import ResourceNotFoundException
    from moto.core.responses import ActionResult

    job_id = self.path.rstrip("/").rsplit("/", 1)[-1]
    with current_state().lock:
        job = _store().get(job_id)
        if job is None or job.account != self.current_account:
            raise ResourceNotFoundException(f"Cannot find backup job {job_id}")
        return ActionResult(job.api())


_LIST_FILTERS = {
    "resourceArn": "ResourceArn",
    "state": "State",
    "backupVaultName": "BackupVaultName",
    "resourceType": "ResourceType",
    "accountId": "AccountId",
}


def _query_time(text: str) -> datetime:
    """A timestamp query parameter: ISO 8601 (botocore's default) or epoch seconds."""
    from moto.backup.exceptions import InvalidParameterValueException

    try:
        return datetime.fromtimestamp(float(text), UTC)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidParameterValueException(f"Invalid timestamp: {text}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _list_backup_jobs(self: Any) -> Any:
    from moto.core.responses import ActionResult

    query = {k: v[0] for k, v in self.querystring.items() if v}
    with current_state().lock:
        rows = [
            job.api()
            for job in _store().values()
            if job.account == self.current_account and job.region == self.region
        ]
    for param, key in _LIST_FILTERS.items():
        if param in query:
            rows = [row for row in rows if row.get(key) == query[param]]
    for param, after in (("createdAfter", True), ("createdBefore", False)):
        if param in query:
            bound = _query_time(query[param])
            rows = [row for row in rows if (row["CreationDate"] >= bound) == after]
    rows.sort(key=lambda row: row["CreationDate"], reverse=True)
    size = int(query.get("maxResults") or 1000)
    return ActionResult(page(rows, "BackupJobs", query.get("nextToken"), size))


def _control(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "jobs": [job.api() for job in jobs()],
        "delay": {"backup_job": current_state().delay("backup_job")},
    }


def install() -> None:
    """Add the backup-jobs routes and handlers to moto's Backup (once per process)."""
    from moto.backup import urls
    from moto.backup.responses import BackupResponse

    with _lock:
        urls.url_paths.setdefault("{0}/backup-jobs/?$", BackupResponse.dispatch)
        urls.url_paths.setdefault(
            "{0}/backup-jobs/(?P<backupJobId>[^/]+)$", BackupResponse.dispatch
        )
        replace(BackupResponse, "start_backup_job", _start_backup_job)
        replace(BackupResponse, "describe_backup_job", _describe_backup_job)
        replace(BackupResponse, "list_backup_jobs", _list_backup_jobs)
        register_control("backup", _control)
