"""A local fake of Twilio for the tests: its REST API on loopback (``server.py``), checked against Twilio's
published OpenAPI description (``spec.py``), and a switchboard that plays calls the way Twilio does and
calls the service back with signed callbacks (this module).

How a number behaves is the simulator's table (apps/telephony/simulator.py), so one journey
test runs on either carrier: your phone answers in 2 s and presses 1 in 2 s unless it is one
of the simulator's "your numbers"; the callee's leg follows the destination's steps.
Twilio's own rules are played as Twilio documents them: the ``Timeout`` of your leg, the
gather's ``timeout`` and ``actionOnEmptyResult``, ``<Dial timeLimit timeout record>``, the
``canceled``/``completed`` updates, and callbacks signed with the account's auth token.

Nothing happens by itself: the test moves the clock and calls ``advance()``, which runs what
is due, delivering each callback to the service through ``deliver`` (the Django test client).
``delivery`` chooses how status callbacks travel (they are asynchronous at Twilio; the
gather and dial actions are requests Twilio waits on, so they always come in order):
``in_order``, ``duplicated`` (each twice, one idempotency token), ``retried`` (again 5 s
later, as after a timeout), ``out_of_order`` (held, then sent last first once the call
ends), ``lost`` (never sent).
"""

import heapq
import itertools
import json
import threading
import xml.etree.ElementTree as ET
from datetime import timedelta
from urllib.parse import urlsplit

from django.utils import timezone

from apps.telephony import events as ev
from apps.telephony import simulator

from .resources import ACCOUNT_SID, API_VERSION, Resources, sid
from .server import Server, twilio_error
from .switchboard import LIVE, Switchboard

AUTH_TOKEN = "f" * 32
SERVICE_SID = "GA" + "5" * 32


class FakeTwilio(Switchboard, Resources):
    def __init__(self, *, deliver, base_url: str):
        self.account_sid, self.auth_token = ACCOUNT_SID, AUTH_TOKEN
        self.deliver_http = deliver
        self.base_url = base_url.rstrip("/")
        self.lock = threading.RLock()
        self.calls: dict[str, dict] = {}
        self.recordings: dict[str, dict] = {}
        self.transcripts: dict[str, dict] = {}
        self.requests, self.violations, self.sent, self.twiml = [], [], [], []
        self.delivery = "in_order"
        self.refuse_next_create = None
        self.your_phone_hangs_up_at_prompt = False
        # The service does not answer the dial action: Twilio says an application error and hangs up.
        self.dial_action_unreachable = False
        self._queue, self._seq, self._held = [], itertools.count(), []
        self.server = Server(self)

    # --- the test's side ------------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        return self.server.base

    def start(self):
        self.server.start()
        return self

    def stop(self):
        self.server.stop()

    def advance(self) -> None:
        """Run everything due by now (the test's clock), in time order."""
        while True:
            with self.lock:
                if not self._queue or self._queue[0][0] > timezone.now():
                    return
                _at, _n, action = heapq.heappop(self._queue)
            action()

    def send_sms(self, *, to: str, sender: str, body: str) -> str:
        """An SMS from ``sender`` arrives at ``to``: Twilio posts it to the number's messaging webhook."""
        message = sid("SM")
        params = {
            "AccountSid": self.account_sid,
            "ApiVersion": API_VERSION,
            "Body": body,
            "From": sender,
            "MessageSid": message,
            "NumMedia": "0",
            "NumSegments": "1",
            "SmsMessageSid": message,
            "SmsSid": message,
            "SmsStatus": "received",
            "To": to,
        }
        self._async(f"{self.base_url}/carrier/twilio/sms", params, call=None)
        return message

    def parent_calls(self) -> list[dict]:
        return [call for call in self.calls.values() if call["parent"] is None]

    def call_to(self, number: str) -> dict:
        return next(call for call in self.calls.values() if call["to"] == number)

    # --- REST operations (the server's thread, under the lock) -----------------------------------------

    def operate(self, operation_id: str, path: dict, query: dict, form: dict, arrays: dict):
        now = timezone.now()
        if operation_id == "CreateCall":
            if self.refuse_next_create:
                refused, self.refuse_next_create = self.refuse_next_create, None
                return twilio_error(*refused)
            return 201, self._call_resource(self._place(form, arrays, now))
        if operation_id == "FetchCall":
            call = self.calls.get(path["Sid"])
            return (200, self._call_resource(call)) if call else twilio_error(404, 20404, "Not found")
        if operation_id == "UpdateCall":
            call = self.calls.get(path["Sid"])
            if call is None:
                return twilio_error(404, 20404, "Not found")
            self._update(call, form.get("Status", ""), now)
            return 200, self._call_resource(call)
        if operation_id == "ListCall":
            parent = (query.get("ParentCallSid") or [None])[0]
            found = [c for c in self.calls.values() if parent is None or c["parent"] == parent]
            return 200, self._page_2010("calls", [self._call_resource(c) for c in found], query)
        if operation_id == "ListCallRecording":
            found = [r for r in self.recordings.values() if r["call_sid"] == path["CallSid"]]
            return 200, self._page_2010("recordings", [self._recording_resource(r) for r in found], query)
        if operation_id == "CreateTranscript":
            return 202, self._transcript_resource(self._transcribe(form, now))
        transcript = self.transcripts.get(path.get("Sid") or path.get("TranscriptSid"))
        if transcript is None:
            return twilio_error(404, 20404, "Not found")
        if operation_id == "FetchTranscript":
            return 200, self._transcript_resource(transcript)
        if operation_id == "ListSentence":
            return 200, self._page_v2("sentences", self._sentences(transcript))
        if operation_id == "ListOperatorResult":
            return 200, self._page_v2("operator_results", self._operator_results(transcript))
        return twilio_error(404, 20404, f"{operation_id} is not played by the fake")

    def _place(self, form: dict, arrays: dict, now) -> dict:
        call = self._new_call(to=form["To"], from_=form["From"], parent=None, now=now)
        call.update(
            status_url=form.get("StatusCallback"),
            status_events=arrays.get("StatusCallbackEvent", []),
            timeout=int(form.get("Timeout") or 60),
        )
        document = ET.fromstring(form["Twiml"].encode())
        self.twiml.append(form["Twiml"])
        gather = document.find("Gather")
        assert gather is not None and gather.get("numDigits") == "1", form["Twiml"]
        call["gather"] = gather
        self._at(now, lambda: self._status(call, "initiated", "initiated"))
        self._at(now + timedelta(seconds=1), lambda: self._ringing(call))
        yours = simulator.your_number(call["to"])
        first = yours.steps[0]
        if first.kind == ev.YOU_NO_ANSWER:
            self._at(now + timedelta(seconds=min(call["timeout"], first.after)), lambda: self._end(call, "no-answer"))
        elif first.kind == ev.YOU_DECLINED:
            self._at(now + timedelta(seconds=first.after), lambda: self._end(call, "busy"))
        else:
            self._at(
                now + timedelta(seconds=2), lambda: self._answer_yours(call, presses=first.kind == ev.YOU_PRESSED_1)
            )
        return call

    def _update(self, call: dict, status: str, now) -> None:
        if call["status"] not in LIVE:
            return
        if status == "canceled" and call["status"] in ("queued", "initiated", "ringing"):
            self._at(now, lambda: self._end(call, "canceled"))
            call["ending"] = True
        elif status == "completed" and call["status"] == "in-progress":
            call["ending"] = True
            self._at(now, lambda: self._hang_up_yours(call))

    def _transcribe(self, form: dict, now) -> dict:
        channel = json.loads(form["Channel"])
        recording = self.recordings[channel["media_properties"]["source_sid"]]
        transcript = {
            "sid": sid("GT"),
            "service_sid": form["ServiceSid"],
            "channel": channel,
            "customer_key": form.get("CustomerKey"),
            "created": now,
            "recording": recording,
        }
        self.transcripts[transcript["sid"]] = transcript
        return transcript


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
