"""Handlers and runner for AWS's durable-execution conformance requirements.

Each ``h_<suite>.py`` module holds the handlers of one suite, one per requirement,
written from the requirement's words and registered as Lambda function ``conf-<N-M>``.
"""

MODULES = [
    "h_step",
    "h_wait",
    "h_child",
    "h_callback",
    "h_invoke",
    "h_parallel",
    "h_map",
    "h_wait_for_callback",
    "h_wait_for_condition",
    "h_plugin",
]
