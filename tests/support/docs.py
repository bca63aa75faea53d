"""The origin the docs tests serve the site at (BASE_URL, APP_URL)."""

ORIGIN = "http://testserver"
