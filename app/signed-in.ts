import "server-only";
import { headers } from "next/headers";
import { getAppServices } from "@/server/services/app-services-singleton";

/** Whether this request carries a live session (or token). */
export async function signedIn(): Promise<boolean> {
  try {
    return (await getAppServices().auth.authenticate(await headers())) !== null;
  } catch {
    return false;
  }
}
