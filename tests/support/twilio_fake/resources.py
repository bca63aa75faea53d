"""Resources as Twilio writes them: every property of the schema in Twilio's description, dates as each API
writes them (RFC 2822 in the 2010 API, ISO 8601 in Voice Intelligence), lists in each API's page shape."""

import uuid
from email.utils import format_datetime

from django.utils import timezone

from apps.telephony import simulator

from . import spec

ACCOUNT_SID = "AC" + "7" * 32
API_VERSION = "2010-04-01"


def sid(prefix: str) -> str:
    return prefix + uuid.uuid4().hex


def rfc2822(moment):
    return format_datetime(moment) if moment else None


class Resources:
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
