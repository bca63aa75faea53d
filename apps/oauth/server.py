from oauthlib.oauth2 import Server as OAuthlibServer


class Server(OAuthlibServer):
    pass
