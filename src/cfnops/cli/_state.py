"""What the global options resolve to, shared by every command through ``ctx.obj``."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:  # imported when first used: keeps `cfnops --help` and `diff` fast
    from rich.console import Console

    from cfnops.aws import AwsClients
    from cfnops.config import Settings
    from cfnops.durable import Engine
    from cfnops.runtime import Runtime


@dataclass
class CliState:
    """Global options as given; settings and clients are built on first use."""

    region: str | None = None
    profile: str | None = None
    endpoint_url: str | None = None
    output: str | None = None
    config: Path | None = None
    verbose: int = 0
    _settings: Settings | None = field(default=None, repr=False)
    _clients: AwsClients | None = field(default=None, repr=False)
    _runtime: Runtime | None = field(default=None, repr=False)

    @property
    def settings(self) -> Settings:
        from cfnops.config import load_settings

        if self._settings is None:
            aws = {
                k: v
                for k, v in {
                    "region": self.region,
                    "profile": self.profile,
                    "endpoint_url": self.endpoint_url,
                }.items()
                if v is not None
            }
            self._settings = load_settings(
                self.config, output=self.output, **({"aws": aws} if aws else {})
            )
        return self._settings

    @property
    def aws_region(self) -> str | None:
        """The region setting (flag, ``CFNOPS_AWS__REGION``, file) without building the
        whole settings model when a plain read can tell it (keeps ``cfnops diff`` fast)."""
        if self.region is not None:
            return self.region
        if self._settings is None:
            from cfnops._config_file import Unsure, peek_setting

            try:
                return peek_setting(self.config, "aws", "region")
            except Unsure:
                pass
        return self.settings.aws.region

    @property
    def clients(self) -> AwsClients:
        from cfnops.aws import AwsClients

        if self._clients is None:
            self._clients = AwsClients(self.settings.aws)
        return self._clients

    @property
    def runtime(self) -> Runtime:
        """The command's runtime: settings, these clients, one database handle (built once)."""
        from cfnops.runtime import Runtime

        if self._runtime is None:
            self._runtime = Runtime.from_settings(self.settings, aws=self.clients)
        return self._runtime

    def register_workflows(self) -> None:
        """Register every built-in workflow before this process starts an engine.

        An engine recovers any run a dead process left, whatever its workflow.
        """
        from cfnops.builtin_workflows import register_all

        register_all()

    def engine(
        self,
        settings: Settings | Runtime | None = None,
        *,
        worker: bool = False,
        console: Console | None = None,
    ) -> Engine:
        """The process's durable engine on this command's runtime, every built-in workflow
        registered: ``settings`` are other settings (same clients and database), or a
        runtime the command built (the worker's has metrics)."""
        from dataclasses import replace

        from cfnops.durable import Engine
        from cfnops.notify import ConsoleNotifier
        from cfnops.runtime import Runtime

        self.register_workflows()
        if isinstance(settings, Runtime):
            runtime = settings
        else:
            runtime = self.runtime if settings is None else self.runtime.with_settings(settings)
        if console is not None:
            runtime = replace(runtime, console_channel=ConsoleNotifier(console))
        return Engine.start_process(runtime, worker=worker)

    @property
    def output_format(self) -> str:
        return self.output or self.settings.output

    @property
    def console(self) -> Console:
        from cfnops.cli._console import WholeConsole

        return WholeConsole(highlight=False)

    def emit_json(self, data: Any) -> None:
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def state(ctx: typer.Context) -> CliState:
    """The :class:`CliState` of the running command."""
    root = ctx.find_root()
    if not isinstance(root.obj, CliState):
        root.obj = CliState()
    return root.obj
