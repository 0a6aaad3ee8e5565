import type { IncomingMessage, ServerResponse } from "node:http";

export type DirectHandler = (request: Request) => Response | Promise<Response>;
export interface DirectRequest {
  handler: DirectHandler;
  request: Request;
}
export function directRequestFor(req: IncomingMessage, routes: Map<string, DirectHandler> | undefined): DirectRequest | null;
export function answerDirectly(direct: DirectRequest, res: ServerResponse): Promise<void>;
export function webRequestOf(req: IncomingMessage): Request;
