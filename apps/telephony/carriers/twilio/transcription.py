"""Transcripts of recorded callbacks through Twilio Voice Intelligence (``/v2/Transcripts``).

``<Dial record="record-from-answer">`` records the call on your leg. A transcription is
durable work: find the recording, create a Voice Intelligence transcript of it in the
service ``TWILIO_INTELLIGENCE_SERVICE_SID`` (its language operators decide the summary),
then ask every ``POLL_EVERY`` until Twilio says it is done. Polling, not a webhook: the
worker already runs, and one less address needs opening to Twilio.

What the transcript reports: the summary of a text-generation operator whose name has
"summary" (else the first sentences), the lines of one whose name has "action" as action
items, and reference numbers (letters and digits together, as agents read them out) found
in the sentences.
"""

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from apps.jobs.public import enqueue

from ... import events as ev
from ...events import CarrierEvent
from ..base import TranscriptionRequest
from . import conf

TRANSCRIBE_JOB = "telephony.twilio_transcribe"
POLL_JOB = "telephony.twilio_transcript_poll"
POLL_EVERY = timedelta(seconds=10)
# A recording is ready within seconds of the call's end; a transcript within minutes.
RECORDING_WAIT = timedelta(minutes=10)
TRANSCRIPT_WAIT = timedelta(hours=1)
SUMMARY_CHARS = 500
REFERENCE = re.compile(r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,}(?:-[A-Z0-9]+)+\b|\b[A-Z]{2,}\d{4,}\b")


def request(request: TranscriptionRequest) -> str:
    enqueue(
        TRANSCRIBE_JOB,
        {
            "subject": request.subject,
            "call_ref": request.call_ref,
            "language": request.language,
            "duration": request.duration,
            "since": request.now.isoformat(),
        },
        run_at=request.now,
        dedupe_key=f"{TRANSCRIBE_JOB}:{request.subject}",
        subject=request.subject,
    )
    return f"twilio:{request.subject}"


def _event(kind: str, subject: str, detail: dict | None = None) -> CarrierEvent:
    return CarrierEvent(ev.TRANSCRIPTION, kind, subject, timezone.now(), True, detail or {})


def transcribe(payload: dict) -> list[CarrierEvent]:
    """Start the transcript of the call's recording; its outcome comes from the polls."""
    subject = payload["subject"]
    if int(payload.get("duration") or 0) <= 0:
        return [_event(ev.TRANSCRIPTION_FAILED, subject, {"reason": "too_short"})]
    client = conf.rest_client()
    recordings = [
        one for one in client.calls(payload["call_ref"]).recordings.list(limit=20) if one.status == "completed"
    ]
    if not recordings:
        since = datetime.fromisoformat(payload["since"])
        if timezone.now() - since > RECORDING_WAIT:
            return [_event(ev.TRANSCRIPTION_FAILED, subject, {"reason": "audio_unavailable"})]
        enqueue(TRANSCRIBE_JOB, payload, run_at=timezone.now() + POLL_EVERY, subject=subject)
        return []
    # The language is the Voice Intelligence service's (set in the console): the API takes none per transcript.
    created = client.intelligence.v2.transcripts.create(
        service_sid=settings.TWILIO_INTELLIGENCE_SERVICE_SID,
        channel={"media_properties": {"source_sid": recordings[0].sid}},
        customer_key=subject,
    )
    poll_later(subject=subject, sid=created.sid, since=timezone.now())
    return [_event(ev.TRANSCRIPTION_STARTED, subject)]


def poll_later(*, subject: str, sid: str, since: datetime) -> None:
    enqueue(
        POLL_JOB,
        {"subject": subject, "sid": sid, "since": since.isoformat()},
        run_at=timezone.now() + POLL_EVERY,
        subject=subject,
    )


def poll(payload: dict) -> list[CarrierEvent]:
    subject, sid = payload["subject"], payload["sid"]
    transcripts = conf.rest_client().intelligence.v2.transcripts
    found = transcripts(sid).fetch()
    if found.status in ("failed", "canceled"):
        return [_event(ev.TRANSCRIPTION_FAILED, subject, {"reason": "provider_error"})]
    if found.status != "completed":
        if timezone.now() - datetime.fromisoformat(payload["since"]) > TRANSCRIPT_WAIT:
            return [_event(ev.TRANSCRIPTION_FAILED, subject, {"reason": "provider_error"})]
        poll_later(subject=subject, sid=sid, since=datetime.fromisoformat(payload["since"]))
        return []
    sentences = [one.transcript or "" for one in transcripts(sid).sentences.list(limit=1000)]
    results = transcripts(sid).operator_results.list(limit=50)
    return [_event(ev.TRANSCRIPTION_COMPLETED, subject, outcome(found.language_code, sentences, results))]


def outcome(language: str | None, sentences: list[str], results) -> dict:
    """The transcript's fields from Twilio's sentences and operator results."""
    summary, action_items = "", []
    for result in results:
        text = str((result.text_generation_results or {}).get("result") or "").strip()
        name = (result.name or "").lower()
        if not text:
            continue
        if "summary" in name and not summary:
            summary = text
        elif "action" in name and not action_items:
            action_items = [line.strip(" -*\u2022") for line in text.splitlines() if line.strip(" -*\u2022")]
    spoken = " ".join(sentence.strip() for sentence in sentences if sentence.strip())
    if not summary:
        summary = spoken[:SUMMARY_CHARS]
    references = list(dict.fromkeys(REFERENCE.findall(spoken)))
    return {
        "language": language or "en",
        "summary": summary,
        "action_items": action_items,
        "reference_numbers": references,
    }
