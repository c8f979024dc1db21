// The official TypeScript SDK client over the legacy HTTP+SSE transport (GET /sse) against the demo app.
import { sdkInteropSuite } from "./sdk-suite.ts";

sdkInteropSuite("sse");
