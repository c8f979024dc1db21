// The MCP App host frame. The console loads console/frame.html in an iframe with
// sandbox="allow-scripts" (opaque origin: no cookies, no access to the console or the
// server's origin). Its script asks the console for the app's HTML and writes it into the
// frame, whose own policy lets the app's inline scripts and styles run; the console page's
// strict policy would block them in a srcdoc frame, which inherits it. The loader is inline
// too (an opaque-origin document's request for a script file counts as cross-origin); it is
// ./client/frame-loader.js, type-checked with the page's other browser code.
import { readFileSync } from "node:fs";

const loader = readFileSync(new URL("./client/frame-loader.js", import.meta.url), "utf8").trimEnd();

export const framePage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tool app</title><script>${loader}</script></head>
<body></body>
</html>
`;
