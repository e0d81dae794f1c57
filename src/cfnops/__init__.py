"""cfnops: keep CloudFormation-managed AWS systems in their declared state.

The public surface is small: each capability is a subpackage (``cfnops.durable``,
``cfnops.diff``, ``cfnops.heal`` ...) with its own ``__all__``. This module only
exports the version and the root error.
"""

from cfnops._version import __version__
from cfnops.errors import CfnopsError

__all__ = ["CfnopsError", "__version__"]
