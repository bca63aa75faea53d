from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, but deeply nested input is ``invalid_body``, not a 500.

    ``json.loads`` raises RecursionError (not ValueError) past ~1000 levels,
    which DRF's parser lets through.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply.") from None
