"""Connected apps (docs/spec.md 3.3, 4.5, 5.12): the user's view of the OAuth clients
holding their tokens, and disconnecting one.

A connection is not a row of its own: it is derived from the tokens (see
selectors.py and docs/decisions/connections-and-audit.md "Connected apps"), so it can never disagree
with what the tokens actually allow.
"""
