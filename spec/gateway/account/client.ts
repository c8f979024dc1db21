// A person's browser for the account page specs, over real HTTP: one cookie (the sign-in
// cookie), redirects followed by hand so each one can be checked, forms posted as a browser
// posts them.
import { hiddenField } from "../oauth/harness.ts";

export const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

export class PageClient {
  cookie: string | undefined;
  /** `headers`: sent with every request, as a front proxy adds them. */
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  async get(path: string): Promise<Response> {
    return this.#remember(await fetch(new URL(path, `${this.base}/`), { redirect: "manual", headers: this.#headers() }));
  }

  async post(path: string, fields: Record<string, string>): Promise<Response> {
    const res = await fetch(new URL(path, `${this.base}/`), {
      method: "POST",
      redirect: "manual",
      headers: { ...FORM, ...this.#headers() },
      body: new URLSearchParams(fields),
    });
    return this.#remember(res);
  }

  /** `/account` (or `/admin`), through sign-in with this password, to the page; answers its HTML. */
  async signIn(user: string, password: string, page: "account" | "admin" = "account"): Promise<string> {
    const start = await this.get(page);
    if (start.status !== 303) throw new Error(`/${page} answered ${start.status}`);
    const login = await this.get(start.headers.get("location")!);
    const html = await login.text();
    const signed = await this.post("developer/oauth/login", {
      request: hiddenField(html, "request"),
      csrf: hiddenField(html, "csrf"),
      username: user,
      password,
    });
    if (signed.status !== 303) throw new Error(`login answered ${signed.status}`);
    const back = await this.get(`developer/oauth/${signed.headers.get("location")!}`);
    if (back.status !== 303 || back.headers.get("location") !== page) throw new Error(`consent step answered ${back.status}`);
    return this.page(page);
  }

  async page(page: "account" | "admin" = "account"): Promise<string> {
    const res = await this.get(`developer/oauth/${page}`);
    if (res.status !== 200) throw new Error(`${page} page answered ${res.status}`);
    return res.text();
  }

  /** Posts one of the page's forms with the CSRF token the page carries. */
  async act(html: string, fields: Record<string, string>): Promise<Response> {
    return this.post("developer/oauth/account", { csrf: hiddenField(html, "csrf"), ...fields });
  }

  #headers(): Record<string, string> {
    return this.cookie ? { ...this.headers, Cookie: this.cookie } : { ...this.headers };
  }

  #remember(res: Response): Response {
    const set = res.headers.getSetCookie();
    if (set.length > 0) this.cookie = set[0]!.split(";")[0];
    return res;
  }
}
