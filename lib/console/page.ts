// The console's HTML shell. Static: the script fills it in from the server's own MCP
// answers. Every URL is relative, so the page works under any path prefix or proxy.
export const consolePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>Tool console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="console/console.css">
<script src="console/console.js" defer></script>
</head>
<body>
<a class="skip" href="#tools-section">Skip to the tools</a>
<header class="top">
  <div>
    <h1 id="server-title">Tool console</h1>
    <p id="server-meta" class="muted"></p>
  </div>
  <div id="log-level-row" class="log-level" hidden>
    <label for="log-level">Log level</label>
    <select id="log-level">
      <option>debug</option><option selected>info</option><option>notice</option><option>warning</option>
      <option>error</option><option>critical</option><option>alert</option><option>emergency</option>
    </select>
  </div>
</header>
<main>
  <p id="status" role="status" aria-live="polite">Loading…</p>
  <noscript><p>The tool console needs JavaScript. MCP clients use the <code>mcp</code> endpoint of this server.</p></noscript>
  <p id="instructions" class="instructions" hidden></p>
  <section id="asks-section" aria-labelledby="asks-heading" hidden>
    <h2 id="asks-heading">Questions from the server</h2>
    <div id="asks"></div>
  </section>
  <section id="tools-section" aria-labelledby="tools-heading" tabindex="-1">
    <h2 id="tools-heading">Tools</h2>
    <div id="tools" class="cards"></div>
  </section>
  <section id="resources-section" aria-labelledby="resources-heading" hidden>
    <h2 id="resources-heading">Resources</h2>
    <div id="resources" class="cards"></div>
  </section>
  <section id="templates-section" aria-labelledby="templates-heading" hidden>
    <h2 id="templates-heading">Resource templates</h2>
    <div id="templates" class="cards"></div>
  </section>
  <section id="prompts-section" aria-labelledby="prompts-heading" hidden>
    <h2 id="prompts-heading">Prompts</h2>
    <div id="prompts" class="cards"></div>
  </section>
  <section id="log-section" aria-labelledby="log-heading" hidden>
    <h2 id="log-heading">Server log</h2>
    <ol id="server-log" class="log" aria-live="polite"></ol>
  </section>
</main>
<footer class="muted">Served by this MCP server: nothing is loaded from elsewhere.</footer>
</body>
</html>
`;
