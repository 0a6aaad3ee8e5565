import { z } from "zod";
import { defineTool, type Tool } from "../tool";

export const HTTP_FETCH_TOOL = "http_fetch";
/** What the model reads of a body at most: pages are long, context is not. */
export const HTTP_FETCH_MAX_CHARS = 100_000;
const MAX_REDIRECTS = 3;

export interface HttpFetchOptions {
  /** Hosts the tool may reach: `example.com` (that host) or `*.example.com` (its subdomains). Empty: none. */
  allowedHosts: readonly string[];
  /** The fetch to use (tests pass their own); defaults to the global one. */
  fetch?: typeof fetch;
  maxChars?: number;
}

/**
 * `http_fetch`: a GET of a URL on a configured host, answering status, content type and the body as text.
 * Safe by construction: only http(s), only the allowed hosts (every redirect is checked again, and
 * followed by hand), no request body or headers from the model, the body cut at `maxChars`. Read-only.
 */
export function httpFetchTool(options: HttpFetchOptions): Tool {
  const allowed = options.allowedHosts.map((h) => h.trim().toLowerCase()).filter(Boolean);
  const hostsText = allowed.length > 0 ? allowed.join(", ") : "none (set MODEX_FETCH_ALLOWED_HOSTS)";
  return defineTool({
    name: HTTP_FETCH_TOOL,
    description: `GET a web page or API over http(s) and read its text. Only these hosts are allowed: ${hostsText}.`,
    args: z.object({ url: z.string().min(1).describe("The absolute http(s) URL to GET") }),
    readOnly: true,
    execute: async ({ url }, ctx) => {
      const doFetch = options.fetch ?? fetch;
      let target = url;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const refused = refusal(target, allowed);
        if (refused) return { content: refused, isError: true };
        const response = await doFetch(target, { method: "GET", redirect: "manual", signal: ctx.signal });
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          target = new URL(location, target).toString();
          continue;
        }
        return render(target, response, await response.text(), options.maxChars ?? HTTP_FETCH_MAX_CHARS);
      }
      return { content: `too many redirects (more than ${MAX_REDIRECTS})`, isError: true };
    },
  });
}

/** Why `url` may not be fetched, or null when it may. */
export function refusal(url: string, allowed: readonly string[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not an absolute URL: ${url}`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `only http and https URLs may be fetched, not ${parsed.protocol}`;
  if (parsed.username || parsed.password) return "URLs with credentials may not be fetched";
  const host = parsed.hostname.toLowerCase();
  if (allowed.some((rule) => hostMatches(host, rule))) return null;
  return allowed.length === 0
    ? "http_fetch is off on this server: no host is allowed (MODEX_FETCH_ALLOWED_HOSTS is empty)"
    : `host ${host} is not allowed; allowed: ${allowed.join(", ")}`;
}

function hostMatches(host: string, rule: string): boolean {
  if (rule.startsWith("*.")) return host.endsWith(rule.slice(1)) && host.length > rule.length - 1;
  return host === rule;
}

function render(url: string, response: Response, body: string, maxChars: number): { content: string; isError: boolean } {
  const type = response.headers.get("content-type") ?? "unknown";
  const cut = body.length > maxChars ? `${body.slice(0, maxChars)}\n[... ${body.length - maxChars} more characters not shown]` : body;
  return { content: `GET ${url}\nstatus: ${response.status}\ncontent-type: ${type}\n\n${cut}`, isError: !response.ok };
}
