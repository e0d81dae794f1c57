"""Demonstrations and sample workflows: what ``cfnops demo …`` runs.

Nothing outside ``cfnops.cli`` and the tests imports this package; it may use the
sandbox (the capabilities may not). Its modules are independent of each other:

- :mod:`cfnops.demo.workflows` — the durable-engine sample workflow (registered
  only when a demo command imports it);
- :mod:`cfnops.demo.heal_sample` — the one-bucket stack ``cfnops demo heal`` drifts;
- :mod:`cfnops.demo.ami` and :mod:`cfnops.demo.ami_bridge` — ``cfnops demo ami``
  and its local EventBridge → rotation subscription;
- :mod:`cfnops.demo.websystem` — the web system the job-net demo stops and starts.
"""

__all__: list[str] = []
