"""Log filters named in settings.LOGGING."""

import logging


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
