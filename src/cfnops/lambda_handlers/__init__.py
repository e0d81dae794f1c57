"""Entry points for AWS Lambda (heal as a durable function, AMI rotation).

- :mod:`cfnops.lambda_handlers.heal`: ``handler``, the heal workflow as a Lambda
  durable function (``deploy/heal-function.yaml``);
- :mod:`cfnops.lambda_handlers.ami`: AMI rotation (``deploy/ami-rotation.yaml``).
"""
