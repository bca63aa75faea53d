"""The Twilio adapter of the carrier boundary (``carrier.py``); the ``twilio`` package does the talking."""
