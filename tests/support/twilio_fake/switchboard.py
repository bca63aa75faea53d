"""The fake's switchboard: calls played as Twilio plays them, and the callbacks they send (the test's thread)."""

import heapq
import itertools
import uuid
import xml.etree.ElementTree as ET
from datetime import timedelta

from django.utils import timezone
from twilio.request_validator import RequestValidator

from apps.telephony import events as ev
from apps.telephony import simulator

from .resources import API_VERSION, rfc2822, sid

LIVE = ("queued", "initiated", "ringing", "in-progress")


class Switchboard:
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
