def handler(event, context):
    return {'ok': 2}
