/** One layer of an onion: gets the input and the rest of the chain, and must pass through `next`'s output. */
export type ChainHandler<I, O> = (input: I, next: (input: I) => O) => O;

/**
 * The single chain builder: every interceptor onion is composed here, so ordering cannot drift.
 * `handlers[0]` is the outermost layer (enters first, exits last); `terminal` is the wrapped call.
 */
export function composeChain<I, O>(handlers: readonly ChainHandler<I, O>[], terminal: (input: I) => O): (input: I) => O {
  return handlers.reduceRight<(input: I) => O>((next, handler) => (input) => handler(input, next), terminal);
}
