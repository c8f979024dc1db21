// The hub's signed-in pages (the account page, the operator's page) on the gateway harness:
// alice, bob and carol (carol in "staff") with API tokens, and the authorization server wired
// as hub_gateway wires it (its sign-ins and grant changes told to the gateway's audit trail),
// since both pages rest on that server's browser session.
import { StoreAccountDirectory } from "../../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../../lib/gateway/identity/api-tokens.ts";
import { auditingLogger } from "../../../lib/gateway/audit/oauth-events.ts";
import { AuditTrail } from "../../../lib/gateway/audit/trail.ts";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { gatewayAuthorizationServer } from "../../../lib/gateway/identity/oauth-for-gateway.ts";
import { silentLogger } from "../../../lib/util/logger.ts";
import { type Harness, ROOT, startHarness } from "../helpers.ts";

interface After {
  after(fn: () => unknown): void;
  diagnostic?(message: string): void;
}

export async function startPagesHub(t: After, config: Record<string, unknown>): Promise<Harness> {
  let publicUrl = "http://127.0.0.1";
  const parsed = parseGatewayConfig(config, ROOT);
  const audit = new AuditTrail(parsed.audit);
  t.after(() => audit.close());
  const h = await startHarness(t, config, (store) => {
    const accounts = new StoreAccountDirectory(store);
    const authorizationServer = gatewayAuthorizationServer({
      config: parsed,
      settings: parsed.oauth,
      store,
      accounts,
      apiTokens: new ApiTokens(store, accounts),
      publicUrl: () => publicUrl,
      logger: auditingLogger(silentLogger, audit),
    });
    return { authorizationServer, audit };
  });
  publicUrl = h.gw.publicUrl;
  return h;
}
