import cfnops
import cfnops.durable


def test_durable_public_names_are_pinned() -> None:
    assert sorted(cfnops.durable.__all__) == [
        "AuditEntry",
        "AuditLog",
        "BadAuditEntry",
        "DEFAULT_QUEUE",
        "DbosDurableContext",
        "DurableError",
        "Engine",
        "IncompatibleRun",
        "RunCancelled",
        "RunFailed",
        "RunHandle",
        "StepResultNotJson",
        "UnknownRun",
        "UnknownWorkflow",
        "register_workflow",
        "registered",
        "workflow",
    ]
    for name in cfnops.durable.__all__:
        assert getattr(cfnops.durable, name) is not None


def test_root_exports() -> None:
    assert cfnops.__all__ == ["CfnopsError", "__version__"]
