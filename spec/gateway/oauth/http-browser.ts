// A browser without a window for the identity specs: plain fetch, redirects followed by hand,
// cookies kept per host (paths ignored: each cookie the hub and the provider set has its own
// name), and the forms of the pages posted as a person would fill them in.
export class HttpBrowser {
  readonly #jar = new Map<string, Map<string, string>>();
  /** Every URL requested, in order: where the person was taken. */
  readonly visited: URL[] = [];

  /** One request, its cookies kept; no redirect followed. */
  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    this.visited.push(target);
    const cookies = this.#jar.get(target.host);
    const headers = new Headers(init.headers);
    if (cookies && cookies.size > 0) headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(target, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const jar = this.#jar.get(target.host) ?? new Map<string, string>();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(pair!.slice(0, eq).trim());
      else jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
      this.#jar.set(target.host, jar);
    }
    return res;
  }

  /** Follows redirects from `url` until a page answers (or `stopAt` matches a redirect's target, which is answered unfetched). */
  async follow(url: string | URL, init: RequestInit = {}, stopAt?: (location: URL) => boolean): Promise<{ url: URL; res: Response }> {
    let current = new URL(url);
    let res = await this.request(current, init);
    for (let hops = 0; res.status >= 301 && res.status <= 308 && hops < 20; hops++) {
      await res.arrayBuffer();
      const next = new URL(res.headers.get("location")!, current);
      if (stopAt?.(next)) return { url: next, res };
      current = next;
      res = await this.request(current);
    }
    return { url: current, res };
  }

  /** Posts the page's first form (its hidden fields plus `fields`) and follows where it leads. */
  async submit(page: { url: URL; html: string }, fields: Record<string, string>, stopAt?: (location: URL) => boolean): Promise<{ url: URL; res: Response }> {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.html);
    if (!form) throw new Error("the page has no form");
    const body = new URLSearchParams();
    for (const input of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
      if (name) body.set(name, htmlText(value));
    }
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    const action = new URL(htmlText(form[1]!), page.url);
    return this.follow(action, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body }, stopAt);
  }
}

function htmlText(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"');
}
