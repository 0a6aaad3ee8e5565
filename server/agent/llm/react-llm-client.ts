import { drainControlChannel } from "../control/drain-control-channel";
import type { ControlChannel } from "../control/in-memory-control-channel";
import { watchCancel } from "../control/watch-cancel";
import { abortErrorFrom, mustPropagate } from "../errors";
import { InterceptorChain } from "../interceptor/interceptor-chain";
import type { TurnState } from "../state/turn-state";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { ensureSingleTerminal } from "./ensure-single-terminal";
import { estimateMissingUsage } from "./estimate-missing-usage";
import type { LlmProvider } from "./llm-provider";
import type { LlmRequest } from "./messages";
import { LlmResponseAssembler, type LlmCallOutcome } from "./response-assembler";
import { isTerminalEvent, type LLMStreamEvent } from "./stream-events";
import { addUsage } from "./token-usage";
import { estimateUsage, producedOutput } from "./usage-estimate";

export interface ReactLlmClientOptions {
  provider: LlmProvider;
  /** Supplies the LLM_STREAM onion; an empty chain still applies the stream-scope invariants. */
  interceptors?: InterceptorChain;
  channel?: ControlChannel;
}

export interface LlmCallInput {
  turn: TurnState;
  request: LlmRequest;
  signal?: AbortSignal;
  /** Sees every event as it arrives (deltas for live display). Must not throw. */
  onEvent?: (event: LLMStreamEvent) => void;
}

/**
 * Calls the model through one event loop: open the provider stream through the LLM_STREAM chain, then
 * consume events one by one, draining the control channel per event (a CANCEL_TURN stops the call within
 * one event) and feeding the assembler. If a cancel or control error cuts the stream, what streamed so
 * far is stashed in `turn.custom[INTERRUPTED_PARTIAL]` before the error is re-raised, and the call's
 * tokens (the provider's, or estimated: a stop cuts off the final usage chunk) are added to the turn and
 * kept in `turn.custom[CUT_CALL_USAGE]`. A stream that ends without usage gets an estimate too
 * (estimateMissingUsage), so no model call that produced output counts as free.
 */
export class ReactLlmClient {
  private readonly interceptors: InterceptorChain;

  constructor(private readonly options: ReactLlmClientOptions) {
    this.interceptors = options.interceptors ?? new InterceptorChain();
  }

  async call(input: LlmCallInput): Promise<LlmCallOutcome> {
    const { turn, request } = input;
    const assembler = new LlmResponseAssembler();
    // Between events too: a CANCEL_TURN while the model is silent (thinking, loading) aborts the request.
    const watch = watchCancel(this.options.channel, turn, input.signal);
    const signal = watch.signal;
    let iterator: AsyncIterator<LLMStreamEvent> | undefined;
    let sent: LlmRequest = request;
    let done = false;
    try {
      drainControlChannel(this.options.channel, turn);
      const events = this.interceptors.openLlmStream({
        turn,
        request,
        signal,
        open: (req, sig) => this.options.provider.stream((sent = req), { signal: sig }),
      });
      iterator = estimateMissingUsage(ensureSingleTerminal(events), () => sent, assembler)[Symbol.asyncIterator]();
      for (;;) {
        const step = await Promise.race([iterator.next(), watch.cancelled]);
        if (step.done) break;
        const event = step.value;
        drainControlChannel(this.options.channel, turn);
        if (signal.aborted) throw abortErrorFrom(signal);
        assembler.feed(event);
        // The response is whole: a command sent from here on waits for the next safe point (before a tool).
        if (isTerminalEvent(event)) watch.stop();
        if (watch.error !== undefined) throw watch.error;
        input.onEvent?.(event);
      }
      done = true;
    } catch (e) {
      if (mustPropagate(e)) {
        stashPartial(turn, assembler);
        countCutCall({ turn, assembler, request: sent, onEvent: input.onEvent });
      }
      throw e;
    } finally {
      watch.stop();
      // As `for await` would on a throw, close the stream; not awaited: a provider deaf to its signal must not hold the cancel.
      if (!done) iterator?.return?.(undefined).catch(() => {});
    }
    return assembler.end();
  }
}

function stashPartial(turn: TurnState, assembler: LlmResponseAssembler): void {
  const partial = assembler.partialOutput();
  turn.custom.set(TurnCustomKeys.INTERRUPTED_PARTIAL, {
    content: partial.content,
    reasoning: partial.reasoning,
    toolNames: partial.toolCalls.map((c) => c.name),
  });
}

/**
 * The tokens of a call a cancel cut short (or cut just after its terminal event, before its outcome was
 * settled): what the provider reported, else an estimate, then also told to listeners as a UsageSnapshot
 * so a live view counts it. A call cut before its first token is not counted: the model may not have
 * read the request yet.
 */
function countCutCall(args: { turn: TurnState; assembler: LlmResponseAssembler; request: LlmRequest; onEvent?: (event: LLMStreamEvent) => void }): void {
  const { turn, assembler } = args;
  const partial = assembler.partialOutput();
  let usage = assembler.reportedUsage();
  if (!usage) {
    if (!producedOutput(partial)) return;
    usage = estimateUsage(args.request, partial);
    args.onEvent?.({ type: "usage_snapshot", usage });
  }
  turn.usage = addUsage(turn.usage, usage);
  turn.custom.set(TurnCustomKeys.CUT_CALL_USAGE, usage);
}
