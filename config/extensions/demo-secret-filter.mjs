// A sample extension module: Modex loads every *.mjs / *.js file of MODEX_EXTENSIONS_DIR at start-up and
// registers its default export (an object like this one, a class, or a function returning either).
// It hides demo secrets (MODEX-DEMO-SECRET-<letters and digits>) from the streamed answer and reasoning, the final
// answer, tool calls' arguments (what a graph node delivers) and tool results. Streamed text comes in chunks, so text that could be the start of a secret
// is held back until it is complete (the stream's last call, context.final, returns the rest).
const SECRET = /MODEX-DEMO-SECRET-[A-Za-z0-9]+/g;
const MASK = "[demo secret hidden]";
const pending = new Map(); // turn → text not yet passed on

const mask = (text) => text.replace(SECRET, MASK);

export default {
  name: "demo_secret_filter",
  priority: 80,

  onDuringLlmStreaming(ctx) {
    const key = ctx.turnId ?? ctx.sessionId;
    const text = (pending.get(key) ?? "") + ctx.get("chunk", "");
    if (ctx.get("context")?.final) {
      pending.delete(key);
      return mask(text);
    }
    // Pass on everything up to the last space; a secret never contains one.
    const cut = text.lastIndexOf(" ") + 1;
    pending.set(key, text.slice(cut));
    return mask(text.slice(0, cut));
  },

  onAfterLlmResponse(ctx) {
    return mask(ctx.get("response", ""));
  },

  onBeforeToolParse(ctx) {
    ctx.set("toolCalls", ctx.get("toolCalls", []).map((call) => ({ ...call, arguments: mask(call.arguments) })));
  },

  onAfterToolExecute(ctx) {
    const result = ctx.get("toolResult");
    return result ? { ...result, content: mask(result.content) } : undefined;
  },

  onBeforeResponseSend(ctx) {
    return mask(ctx.get("response", ""));
  },
};
