"""A stand-in for ``socket.getaddrinfo``: fixed answers for test host names, and a count of lookups."""

import ipaddress
import socket


class FakeDNS:
    """Answers for the test host names; everything else goes to the real resolver."""

    def __init__(self, real):
        self.real = real
        self.answers: dict[str, list] = {}
        self.lookups: list[str] = []

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):
        if host not in self.answers:
            return self.real(host, port, family, type, proto, flags)
        self.lookups.append(host)
        answer = self.answers[host]
        if callable(answer):
            answer = answer()
        if isinstance(answer, Exception):
            raise answer
        infos = []
        for ip in answer:
            fam = socket.AF_INET6 if ipaddress.ip_address(ip).version == 6 else socket.AF_INET
            addr = (ip, port, 0, 0) if fam == socket.AF_INET6 else (ip, port)
            infos.append((fam, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", addr))
        return infos
