/**
 * The input pipeline's first stage: raw text from any channel (the web chat, REST, the terminal) becomes
 * an InputMessage. A line starting with `/` and a command word is a command for the session-control
 * stage, which intercepts it before the agent sees it; anything else (`/` followed by a space or a path
 * like `/usr/bin`, say) is text for the agent.
 */
export type InputMessage = { kind: "text"; text: string } | { kind: "command"; name: string; args: string; raw: string };

const COMMAND = /^\/([a-z][a-z0-9_-]*)(?:\s+([\s\S]*))?$/i;

export function adaptInput(raw: string): InputMessage {
  const text = raw.trim();
  const match = COMMAND.exec(text);
  if (!match) return { kind: "text", text };
  return { kind: "command", name: match[1].toLowerCase(), args: (match[2] ?? "").trim(), raw: text };
}
