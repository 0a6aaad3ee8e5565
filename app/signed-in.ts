import "server-only";
import { headers } from "next/headers";
import { getAppServices } from "@/server/services/app-services-singleton";
import type { AuthResult } from "@/server/services/auth-service";

/** How this request is signed in (session cookie or token), or null. */
export async function signedInAs(): Promise<AuthResult> {
  try {
    return await getAppServices().auth.authenticate(await headers());
  } catch {
    return null;
  }
}

/** Whether this request carries a live session (or token). */
export async function signedIn(): Promise<boolean> {
  return (await signedInAs()) !== null;
}
