/**
 * Who decided or answered, in words: the server records how the decision arrived (`session`, `token`);
 * `own`: this browser tab sent it (own-answers.ts), so the person reading it is the one who answered.
 */
export function decidedBy(by: string, own = false): string {
  if (own) return "You";
  if (by === "session") return "A browser session";
  if (by === "token") return "The API (access token)";
  return "Someone";
}
