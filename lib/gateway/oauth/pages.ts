// The login, consent and error pages. Plain HTML forms with inline styles: no scripts, no
// external assets, readable on a phone. Every value from outside goes through escapeHtml.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:26rem;margin:8vh auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
@media (max-width:30rem){main{margin:0;min-height:100vh;border-radius:0;box-shadow:none}}
h1{font-size:1.35rem;margin:0 0 1rem}
p{margin:.5rem 0}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.7rem;font-size:1rem;border:1px solid #9ca3af;border-radius:8px}
button{width:100%;margin-top:1.25rem;padding:.8rem;font-size:1rem;font-weight:600;border:0;border-radius:8px;background:#1d4ed8;color:#fff;cursor:pointer}
a.button{display:block;text-align:center;text-decoration:none;padding:.8rem;font-weight:600;border-radius:8px;background:#1d4ed8;color:#fff}
button.secondary{background:#e5e7eb;color:#111827}
.row{display:flex;gap:.75rem}.row button{flex:1}
.error{padding:.6rem .8rem;border-radius:8px;background:#fee2e2;color:#991b1b}
dl{margin:1rem 0;padding:.75rem 1rem;background:#f9fafb;border-radius:8px}
dt{font-size:.85rem;color:#4b5563}dd{margin:0 0 .5rem;font-weight:600;overflow-wrap:anywhere}
.muted{color:#4b5563;font-size:.9rem}
`;

/** A whole page around `body` (already escaped): the pages of the account page share it. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

export interface LoginView {
  readonly action: string;
  /** The hub's host, so people see where they are typing their password. */
  readonly hub: string;
  readonly requestId: string;
  readonly csrf: string;
  readonly clientName: string;
  /** Instead of "… wants to use tools on this hub": what signing in is for, when no application asks. */
  readonly purpose?: string;
  readonly error?: string;
  readonly username?: string;
  /** Sign-in at the hub's identity provider: the button's words and where it leads. */
  readonly provider?: { readonly label: string; readonly href: string };
  /** False when the hub's passwords are switched off: the provider's button only. */
  readonly passwords?: boolean;
}

export function loginPage(view: LoginView): string {
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : "";
  // A plain link styled as the button: it works with JavaScript off and needs no form token.
  const provider = view.provider
    ? `<p><a class="button" id="provider" href="${escapeHtml(view.provider.href)}">Sign in with ${escapeHtml(view.provider.label)}</a></p>`
    : "";
  const intro = `<h1>Sign in to ${escapeHtml(view.hub)}</h1>
<p class="muted">${escapeHtml(view.purpose ?? `${view.clientName} wants to use tools on this hub.`)} Sign in with your hub account.</p>
${error}${provider}`;
  if (view.passwords === false) return page("Sign in", intro);
  return page(
    "Sign in",
    `${intro}<form method="post" action="${escapeHtml(view.action)}">
${hidden("request", view.requestId)}${hidden("csrf", view.csrf)}
<label for="username">User name</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(view.username ?? "")}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface ConsentView {
  readonly action: string;
  readonly requestId: string;
  readonly csrf: string;
  readonly clientName: string;
  readonly redirectHost: string;
  readonly toolLabel: string;
  readonly user: string;
}

export function consentPage(view: ConsentView): string {
  return page(
    "Allow access?",
    `<h1>Allow ${escapeHtml(view.clientName)} to use ${escapeHtml(view.toolLabel)}?</h1>
<p>It will act as <strong>${escapeHtml(view.user)}</strong>, with everything your account may do there.</p>
<dl><dt>Application</dt><dd>${escapeHtml(view.clientName)}</dd>
<dt>Returns to</dt><dd>${escapeHtml(view.redirectHost)}</dd>
<dt>Access to</dt><dd>${escapeHtml(view.toolLabel)}</dd></dl>
<p class="muted">Only allow applications you trust and started yourself.</p>
<form method="post" action="${escapeHtml(view.action)}">
${hidden("request", view.requestId)}${hidden("csrf", view.csrf)}
<div class="row"><button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="approve">Allow</button></div>
</form>`,
  );
}

/** Shown instead of the consent page when the account may not use the tool: nothing to allow. */
export function noAccessPage(view: Omit<ConsentView, "redirectHost">): string {
  return page(
    "No access",
    `<h1>You have no access to ${escapeHtml(view.toolLabel)}</h1>
<p>You are signed in as <strong>${escapeHtml(view.user)}</strong>, which is not in a group that may use it.
Ask the hub's operator to add you to one, then sign in again from ${escapeHtml(view.clientName)}.</p>
<form method="post" action="${escapeHtml(view.action)}">
${hidden("request", view.requestId)}${hidden("csrf", view.csrf)}
<button type="submit" name="decision" value="deny" class="secondary">Back to ${escapeHtml(view.clientName)}</button>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
