import type { AuthResult } from "./auth-service";

/**
 * Who sent an answer or an approval decision, as recorded with it: how it came (`by`: "session" a
 * browser, "token" REST or modexctl, "unknown") and, for a browser, its sign-in session's ref (never the
 * cookie), so every tab of that login can say "You" and any other login "Another browser session".
 * Records made before the ref was kept have `by` only.
 */
export interface Author {
  by: string;
  session?: string;
}

/** The author of a request signed in as `auth`. */
export function authorOf(auth: AuthResult): Author {
  if (auth?.via === "cookie") return { by: "session", session: auth.session };
  return { by: auth?.via === "bearer" ? "token" : "unknown" };
}

/** `by` as callers may give it: an Author, or only how it came (tests, internal callers). */
export function asAuthor(by: Author | string | undefined): Author {
  if (by === undefined) return { by: "unknown" };
  if (typeof by === "string") return { by };
  return by.session ? { by: by.by, session: by.session } : { by: by.by };
}
