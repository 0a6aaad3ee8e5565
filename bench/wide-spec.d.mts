/** See wide-spec.mjs. */
export function wideSpec(options: { name: string; chains: number; depth: number; version?: string; description?: string }): string;
