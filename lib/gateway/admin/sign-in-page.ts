// The operator's page's sign-in form: a plain form, no script, posting to `{path}/sign-in`.
import { escapeHtml } from "../oauth/pages.ts";

const STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:24rem;margin:10vh auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}
input{width:100%;padding:.6rem;font-size:1rem;border:1px solid #9ca3af;border-radius:8px}
button{width:100%;margin-top:1.25rem;padding:.7rem;font-size:1rem;font-weight:600;border:0;border-radius:8px;background:#1d4ed8;color:#fff}
.error{padding:.6rem .8rem;border-radius:8px;background:#fee2e2;color:#991b1b}`;

export function signInPage(action: string, hub: string, error?: string): string {
  const alert = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Sign in: hub operations</title><style>${STYLE}</style></head>
<body><main><h1>Hub operations on ${escapeHtml(hub)}</h1>${alert}
<form method="post" action="${escapeHtml(action)}">
<label for="username">User name</label><input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form></main></body></html>
`;
}
