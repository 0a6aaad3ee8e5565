import { CliError, EXIT } from "./errors.mjs";

/**
 * Chat over REST for modexctl: POSTs whose answer is a Server-Sent Events stream (a message's turn) or
 * a followed event stream, read frame by frame as they arrive. Errors before the stream starts are the
 * server's JSON errors, interpreted like every other answer (ModexClient.interpret).
 */
export async function openSse(client, { method, pathname, body, signal }) {
  const headers = { accept: "text/event-stream" };
  if (client.token) headers.authorization = `Bearer ${client.token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await client.fetch(`${client.url}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (error) {
    // The same message and code as any other unreachable server.
    return client.send({ method: "GET", pathname: "/api/health" }).then(() => {
      throw error;
    });
  }
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    await client.interpret({ method, pathname, answer: { status: response.status, headers: response.headers, text: await response.text() } });
    throw new CliError(`${method} ${pathname} did not answer with an event stream`, { code: "HTTP_ERROR" });
  }
  return readFrames(response.body);
}

/** SSE frames of a body: { event, data (parsed JSON), id }, comments skipped. */
export async function* readFrames(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame = { event: "message", data: "", id: undefined };
      for (const line of raw.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") frame.event = value;
        else if (field === "data") frame.data += value;
        else if (field === "id") frame.id = value;
      }
      if (frame.data === "") continue;
      yield { ...frame, data: JSON.parse(frame.data) };
    }
  }
}

/**
 * How a chat event reads in a terminal: text deltas as they come (no newline), everything else on a
 * line of its own. `write` writes without a newline. `shellSession`: the chat's id when the reader is at
 * a shell prompt (`chat send`), where an approval is given with `modexctl chat approve`, not `/approve`.
 */
export function renderChatEvent(event, write, { echoUser = false, shellSession = null } = {}) {
  const line = (text) => write(`${text}\n`);
  switch (event.type) {
    case "user_message":
      if (echoUser) line(`> ${event.text}`);
      return;
    case "text_delta":
      return write(event.text);
    case "reasoning_delta":
      return;
    case "tool_call":
      return line(`\n[tool] ${event.name} ${event.arguments}`);
    case "tool_result":
      return line(`[${event.isError ? "tool error" : "result"}] ${oneLine(event.content, 200)}`);
    case "approval_requested":
      return line(
        `\n[approval] ${event.name} ${event.arguments} waits for you: ${
          shellSession ? `modexctl chat approve ${shellSession} [reason…] or modexctl chat deny ${shellSession} [reason…]` : "/approve [reason] or /deny [reason]"
        }`,
      );
    case "approval_decided":
      return line(`[${event.approved ? "approved" : "denied"} by ${event.by}${event.reason ? `: ${event.reason}` : ""}]`);
    case "turn_completed":
      return line(`\n[${event.stopReason}${event.error ? `: ${event.error}` : ""} · ${event.estimated ? `~${event.tokens} tokens (estimated)` : `${event.tokens} tokens`}]`);
    case "turn_failed":
      return line(`\n[failed: ${event.message}]`);
    case "busy_input":
      return line(`[${event.mode.toLowerCase()}] ${event.text}`);
    case "queued_started":
      return line(`\n> ${event.text}`);
    case "notice":
      return line(`[${event.command}] ${event.text}`);
    case "context_summarized":
      return line(`\n[earlier messages summarized — ${event.prunedMessages} messages, ~${event.tokensBefore} → ~${event.tokensAfter} tokens] ${oneLine(event.summary, 200)}`);
  }
}

const oneLine = (text, max) => {
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A turn's end as an exit code: completed 0, waiting for approval 4, anything else 5. */
export function exitOfTurn(last) {
  if (!last) return EXIT.NOT_COMPLETED;
  if (last.type === "approval_requested") return EXIT.WAITING_FOR_HUMAN;
  if (last.type === "turn_completed" && last.stopReason === "completed") return EXIT.OK;
  return EXIT.NOT_COMPLETED;
}
