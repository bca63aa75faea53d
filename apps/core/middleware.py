from .ids import new_id


class RequestIdMiddleware:
    """Gives every request an id and every response, whatever the path, its header.

    Outermost in the stack, so responses from handler404/handler500 and from
    other middleware pass through it too.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = new_id("req_")
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        return response
