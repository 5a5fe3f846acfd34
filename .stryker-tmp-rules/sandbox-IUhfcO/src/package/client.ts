/**
 * `floodgate/client`: a fetch wrapper that honours floodgate's headers (docs/client.md).
 *
 * @example
 * import { rateLimitedFetch } from "floodgate/client";
 * const response = await rateLimitedFetch("https://api.example.com/items");
 */
// @ts-nocheck

export * from "../client/index.ts";
