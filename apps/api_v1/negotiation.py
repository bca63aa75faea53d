"""DRF's content negotiation with a fast path for the Accept headers nearly every client sends."""

from rest_framework.negotiation import DefaultContentNegotiation

# Headers for which DRF's full negotiation picks the first renderer at its own media type.
FIRST_RENDERER_ACCEPTS = frozenset({"", "*/*", "application/json"})


class FastContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        accept = request.META.get("HTTP_ACCEPT", "")
        if (
            format_suffix is None
            and accept in FIRST_RENDERER_ACCEPTS
            and renderers
            and not request.query_params.get(self.settings.URL_FORMAT_OVERRIDE)
        ):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
