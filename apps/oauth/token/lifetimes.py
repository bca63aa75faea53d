"""Token lifetimes (docs/spec.md 3.2, 3.3, 5.5), from one source: DOT's settings.

oauthlib answers ``expires_in`` from ``ACCESS_TOKEN_EXPIRE_SECONDS``; the rows
take their expiry from the same setting here, so the two can never drift.
"""

from datetime import timedelta

from oauth2_provider.settings import oauth2_settings

CODE_LIFETIME = timedelta(seconds=oauth2_settings.AUTHORIZATION_CODE_EXPIRE_SECONDS)
ACCESS_TOKEN_LIFETIME = timedelta(seconds=oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS)
REFRESH_ABSOLUTE_LIFETIME = timedelta(seconds=oauth2_settings.REFRESH_TOKEN_EXPIRE_SECONDS)
# A refresh token unused this long expires before its absolute lifetime; DOT has no setting for it.
REFRESH_IDLE_LIFETIME = timedelta(days=14)
