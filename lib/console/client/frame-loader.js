// The MCP App frame's loader, inlined into console/frame.html by ../frame.ts (a classic
// script, not part of the console's script): it asks the console for the app's HTML, writes
// it into the frame and reports the height it takes.
"use strict";
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
})();
