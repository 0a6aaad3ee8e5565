/** Names of the two real nodes every graph registers. */
export const START = "__start__";
export const END = "__end__";
