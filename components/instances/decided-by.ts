/**
 * Who decided or answered, in words, for `viewer` (the reader's sign-in session ref, viewer-session.tsx):
 * the server records how the decision arrived (`session`, `token`) and, for a browser, its session ref.
 * The reader's own login (any tab, after a reload) is "You"; another sign-in "Another browser session";
 * a record made before refs were kept says only that a browser session sent it.
 */
export function decidedBy(who: { by: string; session?: string }, viewer: string | null): string {
  if (who.by === "session") {
    if (!who.session) return "A browser session";
    return who.session === viewer ? "You" : "Another browser session";
  }
  if (who.by === "token") return "The API (access token)";
  return "Someone";
}
