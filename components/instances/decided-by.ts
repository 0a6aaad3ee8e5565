/** Who decided or answered, in words: the server records how the decision arrived (`session`, `token`). */
export function decidedBy(by: string): string {
  if (by === "session") return "A browser session";
  if (by === "token") return "The API (access token)";
  return "Someone";
}
