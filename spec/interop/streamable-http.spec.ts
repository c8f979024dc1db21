// The official TypeScript SDK client over Streamable HTTP (POST /mcp) against the demo app.
import { sdkInteropSuite } from "./sdk-suite.ts";

sdkInteropSuite("streamable-http");
