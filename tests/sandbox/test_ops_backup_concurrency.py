"""Concurrent first Backup jobs share one Default vault instead of racing to create it."""

from __future__ import annotations

import threading
from typing import Any

from cfnops.sandbox import Sandbox


def test_concurrent_first_jobs_on_the_default_vault(cfnops_sandbox: Sandbox) -> None:
    ec2 = cfnops_sandbox.client("ec2")
    backup = cfnops_sandbox.client("backup")
    ids = [
        i["InstanceId"]
        for i in ec2.run_instances(ImageId="ami-760aaa0f", MinCount=4, MaxCount=4)["Instances"]
    ]
    errors: list[Exception] = []
    barrier = threading.Barrier(len(ids))

    def start(instance_id: str) -> Any:
        barrier.wait()
        try:
            backup.start_backup_job(
                BackupVaultName="Default",
                ResourceArn=f"arn:aws:ec2:us-east-1:123456789012:instance/{instance_id}",
                IamRoleArn="arn:aws:iam::123456789012:role/backup",
            )
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(backup.list_backup_jobs(ByBackupVaultName="Default")["BackupJobs"]) >= len(ids)
