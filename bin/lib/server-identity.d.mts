// Types of server-identity.mjs, for the TypeScript tests.
export function describeServer(options: { url: string; fetchImpl?: typeof fetch }): Promise<{ modex: boolean; answer: string }>;
export function isModexHealth(health: unknown): boolean;
