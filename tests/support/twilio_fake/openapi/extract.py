"""Cut the operations the Twilio adapter uses, and every schema they reference, out of Twilio's published
OpenAPI descriptions (github.com/twilio/twilio-oai, spec/json/). Run from a checkout of that repository:

    python extract.py /path/to/twilio-oai <commit>

It writes the ``*.subset.json`` files beside it; each keeps the source's ``info`` and names the commit.
"""

import json
import pathlib
import sys

OPERATIONS = {
    "twilio_api_v2010.json": {
        "/2010-04-01/Accounts/{AccountSid}/Calls.json": ["post", "get"],
        "/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json": ["get", "post"],
        "/2010-04-01/Accounts/{AccountSid}/Calls/{CallSid}/Recordings.json": ["get"],
    },
    "twilio_intelligence_v2.json": {
        "/v2/Transcripts": ["post"],
        "/v2/Transcripts/{Sid}": ["get"],
        "/v2/Transcripts/{TranscriptSid}/Sentences": ["get"],
        "/v2/Transcripts/{TranscriptSid}/OperatorResults": ["get"],
    },
}


def refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def subset(spec: dict, wanted: dict, source: str) -> dict:
    paths = {}
    for path, methods in wanted.items():
        item = spec["paths"][path]
        paths[path] = {
            key: value for key, value in item.items() if key not in ("get", "post", "delete") or key in methods
        }
    schemas, todo = {}, list(refs(paths))
    while todo:
        name = todo.pop().rsplit("/", 1)[-1]
        if name in schemas:
            continue
        schemas[name] = spec["components"]["schemas"][name]
        todo += list(refs(schemas[name]))
    components = {"schemas": dict(sorted(schemas.items()))}
    if "securitySchemes" in spec.get("components", {}):
        components["securitySchemes"] = spec["components"]["securitySchemes"]
    return {
        "openapi": spec["openapi"],
        "info": {**spec["info"], "x-subset-of": source},
        "servers": spec.get("servers", []),
        "paths": paths,
        "components": components,
        "security": spec.get("security", []),
    }


def main(checkout: str, commit: str) -> None:
    here = pathlib.Path(__file__).parent
    for name, wanted in OPERATIONS.items():
        spec = json.loads((pathlib.Path(checkout) / "spec" / "json" / name).read_text())
        source = f"https://github.com/twilio/twilio-oai/blob/{commit}/spec/json/{name}"
        out = here / name.replace(".json", ".subset.json")
        out.write_text(json.dumps(subset(spec, wanted, source), indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
