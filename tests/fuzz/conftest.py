from .checks import no_network  # noqa: F401  (fixture)
