import type { IncomingMessage } from "node:http";

export const CLIENT_ADDRESS_HEADER: "x-modex-client-address";
export function stampClientAddress(req: IncomingMessage): void;
export function declareClientAddressStamping(): void;
export function clientAddressIsStamped(): boolean;
