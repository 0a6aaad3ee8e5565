/**
 * A chat's title until its first message names it (or someone renames it). Every chat, opened by its
 * first message (the web app), by `create` (REST, `/new`) or by `modexctl`, is titled by its first turn
 * (ChatTurns' claim), one rule for all.
 */
export const UNTITLED = "New chat";

/** The title a chat's first message gives it: the message, cut to 60 characters. */
export function titleOf(text: string): string {
  const line = text.trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
