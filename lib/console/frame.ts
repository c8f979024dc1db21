// The MCP App host frame. The console loads console/frame.html in an iframe with
// sandbox="allow-scripts" (opaque origin: no cookies, no access to the console or the
// server's origin). Its script asks the console for the app's HTML and writes it into the
// frame, whose own policy lets the app's inline scripts and styles run; the console page's
// strict policy would block them in a srcdoc frame, which inherits it. The loader is inline
// too: an opaque-origin document's request for a script file counts as cross-origin.
const loader = `"use strict";
(function () {
  window.addEventListener("message", function onRender(event) {
    if (event.source !== window.parent || !event.data || event.data.type !== "hubmcp-frame-render") return;
    window.removeEventListener("message", onRender);
    document.open();
    document.write(String(event.data.html));
    document.close();
    window.parent.postMessage({ type: "hubmcp-frame-rendered", height: document.documentElement.scrollHeight }, "*");
  });
  window.parent.postMessage({ type: "hubmcp-frame-ready" }, "*");
})();`;

export const framePage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tool app</title><script>${loader}</script></head>
<body></body>
</html>
`;
