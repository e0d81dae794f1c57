"""Entry points for AWS Lambda (heal as a durable function, AMI rotation)."""
