"""Client registration (docs/spec.md 4.3 `POST /oauth/register`, RFC 7591) and client administration.

``metadata`` validates client metadata (shared with client metadata documents),
``services`` writes clients, ``selectors`` reads them, ``views`` is the endpoint.
"""
