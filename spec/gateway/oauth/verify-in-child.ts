// Run by persistence.spec.ts as a second process on the same data dir: reads an access token
// from ACCESS_TOKEN and prints the user it belongs to, or "refused".
import { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { OAuthServer } from "../../../lib/gateway/oauth/server.ts";
import { TestAccounts } from "./harness.ts";

const [dir, publicUrl] = process.argv.slice(2) as [string, string];
const token = process.env.ACCESS_TOKEN ?? "";
const server = new OAuthServer({ publicUrl, store: new FileRecordStore(dir), accounts: new TestAccounts() });
const principal = await server.verifier.verify(token.trim(), publicUrl);
process.stdout.write(`${principal ? principal.user : "refused"}\n`);
