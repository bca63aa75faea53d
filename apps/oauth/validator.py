from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes

from .scopes import ALL_SCOPES, SCOPES


class ScopesBackend(BaseScopes):
    def get_all_scopes(self):
        return {name: s.sentence for name, s in SCOPES.items()}

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        return list(ALL_SCOPES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return []


class Validator(OAuth2Validator):
    pass
