// An assistant built on the official TypeScript MCP SDK, driven by tests/e2e/test_ts_sdk_step_up.py.
//
// Usage: node step_up.mjs <sdk: "v2" | "v1" | "v1-reauthorize"> <server /mcp URL> <redirect URI>
// It connects through the SDK's OAuth flow, then calls svc_get_balance. Each time the SDK
// sends the user to authorize, it prints {"event": "authorize", "url"} and reads the address
// the browser landed on (one line on stdin), hands it to the SDK (finishAuth) and retries
// as the SDK's own examples do. Every step is one JSON line on stdout.
//
// "v1-reauthorize" is a 1.x assistant with the workaround /docs/mcp gives: when the SDK gives
// up on a 403 insufficient_scope ("Server returned 403 after trying upscoping"), it forgets its
// tokens and authorizes again for what it held plus what the challenge named.

import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

const [sdk, serverUrl, redirectUri] = process.argv.slice(2);

// Every request on a connection of its own. Node's fetch keeps an idle connection for 4 s and
// gunicorn closes one after 2 s; a request sent on a connection just closed under it fails with
// "fetch failed" and is never sent again (a POST is not retried), which a loaded machine makes
// likely between the person's steps. This is the test's plumbing, not part of the workaround.
const nativeFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  headers.set("connection", "close");
  return nativeFetch(input, { ...init, headers });
};

const modules =
  sdk === "v2"
    ? await import("@modelcontextprotocol/client").then((m) => ({
        Client: m.Client,
        Transport: m.StreamableHTTPClientTransport,
        UnauthorizedError: m.UnauthorizedError,
      }))
    : {
        Client: (await import("@modelcontextprotocol/sdk/client/index.js")).Client,
        Transport: (await import("@modelcontextprotocol/sdk/client/streamableHttp.js")).StreamableHTTPClientTransport,
        UnauthorizedError: (await import("@modelcontextprotocol/sdk/client/auth.js")).UnauthorizedError,
        auth: (await import("@modelcontextprotocol/sdk/client/auth.js")).auth,
        StreamableHTTPError: (await import("@modelcontextprotocol/sdk/client/streamableHttp.js")).StreamableHTTPError,
      };

const say = (event, fields = {}) => process.stdout.write(JSON.stringify({ event, ...fields }) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

class Provider {
  constructor() {
    this.stored = {};
  }
  get redirectUrl() {
    return redirectUri;
  }
  get clientMetadata() {
    return {
      client_name: "TypeScript Assistant",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return randomUUID();
  }
  clientInformation() {
    return this.stored.client;
  }
  saveClientInformation(info) {
    this.stored.client = info;
  }
  tokens() {
    return this.stored.tokens;
  }
  saveTokens(tokens) {
    this.stored.tokens = tokens;
    say("tokens", { scope: tokens.scope ?? null });
  }
  redirectToAuthorization(url) {
    say("authorize", { url: url.toString() });
  }
  saveCodeVerifier(verifier) {
    this.stored.verifier = verifier;
  }
  codeVerifier() {
    return this.stored.verifier;
  }
  discoveryState() {
    return this.stored.discovery;
  }
  saveDiscoveryState(state) {
    this.stored.discovery = state;
  }
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "client") delete this.stored.client;
    if (scope === "all" || scope === "tokens") delete this.stored.tokens;
    if (scope === "all" || scope === "verifier") delete this.stored.verifier;
  }
}

const provider = new Provider();
let transport;
let client;

// The workaround, part 1: remember the scope the last 403 insufficient_scope challenge named
// (1.x keeps it to itself).
let challenged;
async function fetchNotingChallenges(input, init) {
  const response = await fetch(input, init);
  const header = response.headers.get("www-authenticate") ?? "";
  if (response.status === 403 && header.includes("insufficient_scope")) {
    challenged = /scope="([^"]*)"/.exec(header)?.[1];
  }
  return response;
}

async function open() {
  const options = { authProvider: provider };
  if (sdk === "v1-reauthorize") options.fetch = fetchNotingChallenges;
  transport = new modules.Transport(new URL(serverUrl), options);
  client = new modules.Client({ name: "ts-step-up", version: "1.0.0" });
  await client.connect(transport);
}

// After a redirect: the landed address (code, state, iss) goes back to the SDK.
async function finish() {
  const { value: landed } = await lines.next();
  const params = new URL(landed.trim()).searchParams;
  if (sdk === "v2") await transport.finishAuth(params);
  else await transport.finishAuth(params.get("code"));
}

async function connect() {
  try {
    await open();
  } catch (error) {
    if (!(error instanceof modules.UnauthorizedError)) throw error;
    await finish();
    await open();
  }
}

const balance = () => client.callTool({ name: "svc_get_balance", arguments: {} });

// The workaround, part 2: 1.x answered the challenge with a refresh, which cannot widen a grant.
// Forget the tokens and authorize for what was held plus what the challenge named; auth()
// then sends the person to the consent page (redirectToAuthorization) instead of refreshing.
async function reauthorize(error) {
  if (!(error instanceof modules.StreamableHTTPError && error.code === 403 && challenged)) throw error;
  const held = (await provider.tokens())?.scope ?? "";
  const scope = [...new Set(`${held} ${challenged}`.split(" ").filter(Boolean))].join(" ");
  await provider.invalidateCredentials("tokens");
  const result = await modules.auth(provider, { serverUrl: new URL(serverUrl), scope, fetchFn: fetchNotingChallenges });
  if (result !== "REDIRECT") throw error;
  throw new modules.UnauthorizedError("authorize again for more scopes");
}

async function callBalance() {
  try {
    return await balance().catch((error) => (sdk === "v1-reauthorize" ? reauthorize(error) : Promise.reject(error)));
  } catch (error) {
    if (!(error instanceof modules.UnauthorizedError)) throw error;
    // The SDK sent the user to authorize more: finish as after the first connection, then retry.
    await finish();
    await client.close().catch(() => {});
    await open();
    return await balance();
  }
}

try {
  await connect();
  say("connected");
  const result = await callBalance();
  say("result", { isError: result.isError ?? false, structured: result.structuredContent ?? null });
} catch (error) {
  say("error", { name: error?.constructor?.name ?? "Error", message: String(error?.message ?? error) });
} finally {
  await client?.close().catch(() => {});
  process.exit(0);
}
