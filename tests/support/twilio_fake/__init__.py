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
import uuid
import xml.etree.ElementTree as ET
from datetime import timedelta
from email.utils import format_datetime
from urllib.parse import urlsplit

from django.utils import timezone
from twilio.request_validator import RequestValidator

from apps.telephony import events as ev
from apps.telephony import simulator

from . import spec
from .server import Server, twilio_error

ACCOUNT_SID = "AC" + "7" * 32
AUTH_TOKEN = "f" * 32
SERVICE_SID = "GA" + "5" * 32
API_VERSION = "2010-04-01"
LIVE = ("queued", "initiated", "ringing", "in-progress")


def sid(prefix: str) -> str:
    return prefix + uuid.uuid4().hex


def rfc2822(moment):
    return format_datetime(moment) if moment else None


class FakeTwilio:
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

    # --- the switchboard (the test's thread) ----------------------------------------------------------

    def _new_call(self, *, to, from_, parent, now) -> dict:
        call = {
            "sid": sid("CA"),
            "to": to,
            "from": from_,
            "parent": parent,
            "status": "queued",
            "date_created": now,
            # Twilio's start_time is when the call was dialled; "answered" is the fake's own note.
            "start_time": now,
            "answered": None,
            "end_time": None,
            "duration": None,
            "sequence": itertools.count(),
            "ending": False,
        }
        self.calls[call["sid"]] = call
        return call

    def _at(self, moment, action) -> None:
        with self.lock:
            heapq.heappush(self._queue, (moment, next(self._seq), action))

    def _live(self, call) -> bool:
        return call["status"] in LIVE

    def _ringing(self, call) -> None:
        if call["status"] in ("queued", "initiated"):
            call["status"] = "ringing"
            self._status(call, "ringing", "ringing")

    def _answer_yours(self, call, *, presses: bool) -> None:
        if not self._live(call) or call["ending"]:
            return
        now = timezone.now()
        call.update(status="in-progress", answered=now)
        self._status(call, "answered", "in-progress")
        gather = call["gather"]
        if self.your_phone_hangs_up_at_prompt:
            self._at(now + timedelta(seconds=8), lambda: self._end(call, "completed"))
        elif presses:
            self._at(now + timedelta(seconds=2), lambda: self._gathered(call, "1"))
        elif gather.get("actionOnEmptyResult") == "true":
            self._at(now + timedelta(seconds=int(gather.get("timeout", 5))), lambda: self._gathered(call, ""))
        else:
            self._at(now + timedelta(seconds=int(gather.get("timeout", 5))), lambda: self._end(call, "completed"))

    def _gathered(self, call, digits: str) -> None:
        if not self._live(call):
            return
        answer = self._sync(call["gather"].get("action"), {**self._call_params(call), "Digits": digits}, call)
        self._run_twiml(call, answer)

    def _run_twiml(self, call, answer: str) -> None:
        document = ET.fromstring(answer.encode())
        self.twiml.append(answer)
        dial = document.find("Dial")
        if dial is None:
            assert document.find("Hangup") is not None, answer
            self._end(call, "completed")
            return
        number = dial.find("Number")
        leg = self._new_call(to=number.text.strip(), from_=dial.get("callerId"), parent=call["sid"], now=timezone.now())
        leg.update(
            status_url=number.get("statusCallback"),
            status_events=(number.get("statusCallbackEvent") or "").split(),
            dial=dial,
        )
        call["leg"] = leg
        self._status(leg, "initiated", "initiated")
        leg["status"] = "ringing"
        self._status(leg, "ringing", "ringing")
        steps = simulator.destination(leg["to"]).steps
        now, at = timezone.now(), timezone.now()
        ring_for = int(dial.get("timeout", 30))
        first = steps[0]
        if first.kind == ev.CALLEE_ANSWERED:
            self._at(now + timedelta(seconds=first.after), lambda: self._answer_leg(leg, steps[1:]))
        elif first.kind == ev.CALLEE_NO_ANSWER:
            self._at(at + timedelta(seconds=min(ring_for, first.after)), lambda: self._end_leg(leg, "no-answer"))
        else:
            outcome = {ev.CALLEE_BUSY: "busy", ev.UNROUTABLE: "failed"}[first.kind]
            self._at(at + timedelta(seconds=first.after), lambda: self._end_leg(leg, outcome))

    def _answer_leg(self, leg, rest) -> None:
        if not self._live(leg):
            return
        now = timezone.now()
        leg.update(status="in-progress", answered=now)
        self._status(leg, "answered", "in-progress")
        limit = int(leg["dial"].get("timeLimit", 14400))
        talk = rest[0].after if rest and rest[0].kind == ev.CALLEE_HUNG_UP else None
        if talk is not None and talk < limit:
            self._at(now + timedelta(seconds=talk), lambda: self._end_leg(leg, "completed"))
        else:
            self._at(now + timedelta(seconds=limit), lambda: self._end_leg(leg, "completed"))

    def _end_leg(self, leg, outcome: str, *, you_hung_up: bool = False) -> None:
        if not self._live(leg):
            return
        now = timezone.now()
        talked = int((now - leg["answered"]).total_seconds()) if leg["answered"] else 0
        leg.update(status=outcome, end_time=now, duration=str(talked))
        self._status(leg, "completed", outcome, CallDuration=str(talked))
        parent = self.calls[leg["parent"]]
        dial = leg["dial"]
        params = {
            **self._call_params(parent),
            "CallStatus": "completed" if you_hung_up else "in-progress",
            "DialCallSid": leg["sid"],
            "DialCallStatus": outcome,
            "DialBridged": "true" if leg["answered"] else "false",
        }
        if leg["answered"]:
            params["DialCallDuration"] = str(talked)
        if leg["answered"] and (dial.get("record") or "").startswith("record-from-answer"):
            recording = {
                "sid": sid("RE"),
                "call_sid": parent["sid"],
                "start": leg["answered"],
                "duration": talked,
                "to": leg["to"],
            }
            self.recordings[recording["sid"]] = recording
            params.update(RecordingSid=recording["sid"], RecordingDuration=str(talked))
        if not dial.get("action") or (you_hung_up and self.dial_action_unreachable):
            return
        if self.dial_action_unreachable:
            self.sent.append(("unreachable", dial.get("action"), params))
            self._end(parent, "completed")
            return
        answer = self._sync(dial.get("action"), params, parent)
        if not you_hung_up:
            self._run_twiml(parent, answer)

    def _hang_up_yours(self, call) -> None:
        """You hang up (or the API completes your leg): the callee's leg ends with it."""
        leg = call.get("leg")
        if leg is not None and self._live(leg):
            self._end_leg(leg, "completed" if leg["answered"] else "canceled", you_hung_up=True)
        self._end(call, "completed")

    def _end(self, call, outcome: str) -> None:
        if not self._live(call):
            return
        leg = call.get("leg")
        if leg is not None and self._live(leg):
            self._hang_up_yours(call)
            return
        now = timezone.now()
        talked = int((now - call["answered"]).total_seconds()) if call["answered"] else 0
        call.update(status=outcome, end_time=now, duration=str(talked))
        self._status(call, "completed", outcome, CallDuration=str(talked))
        if self.delivery == "out_of_order":
            held, self._held = self._held, []
            for url, params, headers in reversed(held):
                self._post(url, params, headers)

    # --- callbacks ------------------------------------------------------------------------------------

    def _call_params(self, call) -> dict:
        params = {
            "AccountSid": self.account_sid,
            "ApiVersion": API_VERSION,
            "CallSid": call["sid"],
            "CallStatus": call["status"],
            "Called": call["to"],
            "Caller": call["from"],
            "Direction": "outbound-dial" if call["parent"] else "outbound-api",
            "From": call["from"],
            "To": call["to"],
        }
        if call["parent"]:
            params["ParentCallSid"] = call["parent"]
        return params

    def _status(self, call, event: str, status: str, **extra) -> None:
        if event not in call.get("status_events", ()) or not call.get("status_url"):
            return
        params = {
            **self._call_params(call),
            "CallStatus": status,
            "CallbackSource": "call-progress-events",
            "SequenceNumber": str(next(call["sequence"])),
            "Timestamp": rfc2822(timezone.now()),
            **extra,
        }
        self._async(call["status_url"], params, call=call)

    def _async(self, url: str, params: dict, *, call) -> None:
        headers = {"I-Twilio-Idempotency-Token": str(uuid.uuid4())}
        if self.delivery == "lost":
            self.sent.append(("lost", url, params))
            return
        if self.delivery == "out_of_order" and call is not None:
            self._held.append((url, params, headers))
            return
        self._post(url, params, headers)
        if self.delivery == "duplicated":
            self._post(url, params, headers)
        elif self.delivery == "retried":
            self._at(timezone.now() + timedelta(seconds=5), lambda: self._post(url, params, headers))

    def _sync(self, url: str, params: dict, call) -> str:
        status, body = self._post(url, params, {"I-Twilio-Idempotency-Token": str(uuid.uuid4())})
        assert status == 200, (url, status, body)
        return body

    def _post(self, url: str, params: dict, headers: dict):
        signature = RequestValidator(self.auth_token).compute_signature(url, params)
        self.sent.append(("sent", url, params))
        return self.deliver_http(url, params, {"X-Twilio-Signature": signature, **headers})

    # --- resources as Twilio writes them --------------------------------------------------------------

    def _call_resource(self, call) -> dict:
        document = spec.document_of("twilio_api_v2010.subset.json")
        uri = f"/{API_VERSION}/Accounts/{self.account_sid}/Calls/{call['sid']}.json"
        return spec.shaped(
            document,
            "api.v2010.account.call",
            {
                "sid": call["sid"],
                "account_sid": self.account_sid,
                "api_version": API_VERSION,
                "date_created": rfc2822(call["date_created"]),
                "date_updated": rfc2822(timezone.now()),
                "parent_call_sid": call["parent"],
                "to": call["to"],
                "to_formatted": call["to"],
                "from": call["from"],
                "from_formatted": call["from"],
                "status": call["status"],
                "start_time": rfc2822(call["start_time"]),
                "end_time": rfc2822(call["end_time"]),
                "duration": call["duration"],
                "direction": "outbound-dial" if call["parent"] else "outbound-api",
                "price_unit": "USD",
                "queue_time": "0",
                "uri": uri,
                "subresource_uris": {"recordings": uri.replace(".json", "/Recordings.json")},
            },
        )

    def _recording_resource(self, recording) -> dict:
        document = spec.document_of("twilio_api_v2010.subset.json")
        return spec.shaped(
            document,
            "api.v2010.account.call.call_recording",
            {
                "sid": recording["sid"],
                "account_sid": self.account_sid,
                "api_version": API_VERSION,
                "call_sid": recording["call_sid"],
                "date_created": rfc2822(recording["start"]),
                "date_updated": rfc2822(recording["start"]),
                "start_time": rfc2822(recording["start"]),
                "duration": str(recording["duration"]),
                "status": "completed",
                "channels": 1,
                "source": "DialVerb",
                "track": "both",
                "price_unit": "USD",
                "uri": f"/{API_VERSION}/Accounts/{self.account_sid}/Calls/{recording['call_sid']}"
                f"/Recordings/{recording['sid']}.json",
            },
        )

    def _transcript_status(self, transcript) -> str:
        age = (timezone.now() - transcript["created"]).total_seconds()
        if age < simulator.TRANSCRIPTION_STARTS_SECONDS:
            return "queued"
        if age < simulator.TRANSCRIPTION_SECONDS:
            return "in-progress"
        return "failed" if transcript["recording"]["to"] == simulator.TRANSCRIPTION_FAILS_TO else "completed"

    def _transcript_resource(self, transcript) -> dict:
        document = spec.document_of("twilio_intelligence_v2.subset.json")
        stamp = transcript["created"].strftime("%Y-%m-%dT%H:%M:%SZ")
        return spec.shaped(
            document,
            "intelligence.v2.transcript",
            {
                "account_sid": self.account_sid,
                "service_sid": transcript["service_sid"],
                "sid": transcript["sid"],
                "date_created": stamp,
                "date_updated": stamp,
                "status": self._transcript_status(transcript),
                "channel": transcript["channel"],
                "data_logging": False,
                "language_code": "en-US",
                "customer_key": transcript["customer_key"],
                "duration": transcript["recording"]["duration"],
                "url": f"https://intelligence.twilio.com/v2/Transcripts/{transcript['sid']}",
                "redaction": False,
                "links": {},
            },
        )

    def _sentences(self, transcript) -> list[dict]:
        document = spec.document_of("twilio_intelligence_v2.subset.json")
        lines = [
            "Hello, this is the front desk.",
            "I am calling to confirm my appointment.",
            f"It is confirmed; your reference is REF-{transcript['sid'][-4:].upper()}.",
        ]
        return [
            spec.shaped(
                document,
                "intelligence.v2.transcript.sentence",
                {
                    "media_channel": index % 2 + 1,
                    "sentence_index": index,
                    "start_time": str(index * 2.0),
                    "end_time": str(index * 2.0 + 1.5),
                    "transcript": line,
                    "sid": sid("GX"),
                    "confidence": "0.93",
                },
            )
            for index, line in enumerate(lines)
        ]

    def _operator_results(self, transcript) -> list[dict]:
        document = spec.document_of("twilio_intelligence_v2.subset.json")
        return [
            spec.shaped(
                document,
                "intelligence.v2.transcript.operator_result",
                {
                    "operator_type": "text-generation",
                    "name": "Conversation Summary",
                    "operator_sid": sid("LY"),
                    "text_generation_results": {"format": "text", "result": "The appointment is confirmed."},
                    "transcript_sid": transcript["sid"],
                    "url": f"https://intelligence.twilio.com/v2/Transcripts/{transcript['sid']}/OperatorResults",
                },
            )
        ]

    def _page_2010(self, key: str, records: list, query: dict) -> dict:
        size = int((query.get("PageSize") or ["50"])[0])
        return {
            key: records,
            "end": max(0, len(records) - 1),
            "first_page_uri": "/",
            "next_page_uri": None,
            "page": 0,
            "page_size": size,
            "previous_page_uri": None,
            "start": 0,
            "uri": "/",
        }

    def _page_v2(self, key: str, records: list) -> dict:
        return {
            key: records,
            "meta": {
                "first_page_url": "https://intelligence.twilio.com/",
                "key": key,
                "next_page_url": None,
                "page": 0,
                "page_size": 50,
                "previous_page_url": None,
                "url": "https://intelligence.twilio.com/",
            },
        }


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
