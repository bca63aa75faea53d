from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def home(request):
    """Where a signed-in user lands: how to connect an assistant and where everything is."""
    return render(
        request,
        "accounts/home.html",
        {
            "mcp_url": f"{settings.BASE_URL}/mcp",
            "api_base": f"{settings.BASE_URL}/v1",
            "docs_url": settings.DOCS_URL,
            "docs_mcp_url": f"{settings.DOCS_URL}/mcp",
        },
    )
