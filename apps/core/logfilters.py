"""Log filters named in settings.LOGGING."""

import logging

from pythonjsonlogger import json as jsonlogger
from pythonjsonlogger.core import RESERVED_ATTRS


class RefusedRequestLine(logging.Filter):
    """Django's record of a request it refused while reading it (too many fields, a body over its
    cap) as one line naming the request, without the traceback Django attaches: the refusal is
    expected input, answered 400 or 413 in the surface's shape (apps/core/views.py), and a
    traceback per such request buried the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if request is not None:
            path = getattr(request, "path", "?")[:200]
            record.msg = f"{record.getMessage()} Refused: {request.method} {path}"
            record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True


class JsonFormatter(jsonlogger.JsonFormatter):
    """python-json-logger's formatter, one JSON object a line, without the attributes Django hangs on
    its records: ``request`` (its repr holds the query string, where a misplaced secret may be) and
    ``server_time``. What a line may carry is said in apps/core/observe.py."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("reserved_attrs", [*RESERVED_ATTRS, "request", "server_time"])
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(*args, **kwargs)
