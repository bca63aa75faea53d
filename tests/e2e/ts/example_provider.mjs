// The TypeScript SDK's own example provider (1.x examples/client), as a developer copies it,
// driven by tests/e2e/test_ts_sdk_step_up.py.
//
// Usage: node example_provider.mjs <"as-shipped" | "with-state"> <server /mcp URL> <redirect URI>
// Connects until the SDK sends the user to authorize, prints {"event": "authorize", "url"} and
// exits: what the authorization request carries is all this checks. "with-state" is the
// example with the one line /docs/mcp gives added to the class.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryOAuthClientProvider } from "@modelcontextprotocol/sdk/examples/client/simpleOAuthClientProvider.js";

const [variant, serverUrl, redirectUri] = process.argv.slice(2);

class WithState extends InMemoryOAuthClientProvider {
  state() { return crypto.randomUUID(); }
}

const Provider = variant === "with-state" ? WithState : InMemoryOAuthClientProvider;
let authorizeUrl;
const provider = new Provider(
  redirectUri,
  {
    client_name: "Example Provider Client",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  },
  (url) => {
    authorizeUrl = url.toString();
  },
);

try {
  await new Client({ name: "example-provider", version: "1.0.0" }).connect(
    new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }),
  );
} catch {
  // UnauthorizedError: the SDK has sent the user to authorize.
}
process.stdout.write(JSON.stringify({ event: authorizeUrl ? "authorize" : "error", url: authorizeUrl ?? null }) + "\n");
process.exit(0);
